// Expansion of: fn spmv_rows_jammed; y(i) = A(i,j) * x(j); formats<A: csr>; schedule<split(i, i0, i1, Down, 64).unroll(i1, 2).parallelize(i0, CpuThread, NoRaces)>;
#[allow(
    non_snake_case,
    unused_mut,
    unused_variables,
    unused_assignments,
    unused_parens,
    unused_qualifications,
    clippy::all,
    clippy::pedantic,
    clippy::nursery
)]
fn spmv_rows_jammed<T: ::sparse::Scalar>(
    y: &mut ::sparse::Tensor<T, ::sparse::Dense<1>>,
    A: &::sparse::Tensor<T, ::sparse::Csr>,
    x: &::sparse::Tensor<T, ::sparse::Dense<1>>,
) -> ::core::result::Result<(), ::sparse::KernelError> {
    let __y_shape0: usize = y.shape()[0];
    let __A_shape0: usize = A.shape()[0];
    let __A_shape1: usize = A.shape()[1];
    let __x_shape0: usize = x.shape()[0];
    if __A_shape0 != __y_shape0 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "i",
            tensor: "A",
            dim: 0,
            expected: __y_shape0,
            found: __A_shape0,
        });
    }
    if __x_shape0 != __A_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "x",
            dim: 0,
            expected: __A_shape1,
            found: __x_shape0,
        });
    }
    let __A_l1_pos: &[::sparse::Idx] = A.level(1).pos();
    let __A_l1_crd: &[::sparse::Idx] = A.level(1).crd();
    let __A_vals: &[T] = A.values();
    let __x_vals: &[T] = x.values();
    let __y_vals: &mut [T] = y.values_mut();
    {
        let __chunk: usize = ::core::cmp::max(64, 1);
        ::sparse::__private::rayon::iter::ParallelIterator::for_each(
            ::sparse::__private::rayon::iter::IndexedParallelIterator::enumerate(
                ::sparse::__private::rayon::slice::ParallelSliceMut::par_chunks_mut(
                    &mut *__y_vals,
                    __chunk,
                ),
            ),
            |(__i0, __out_rows): (usize, &mut [T])| {
                let __out_offset = __i0 * __chunk;
                for __i1_group in 0..(::core::cmp::min(64, __y_shape0 - 0 - __i0 * 64)
                    - 0) / 2
                {
                    let __i1: usize = 0 + (__i1_group * 2 + 0);
                    let __i: usize = 0 + (__i0 * 64 + __i1);
                    let mut __t: T = <T as ::sparse::Scalar>::ZERO;
                    let __pA1_start: usize = __A_l1_pos[__i] as usize;
                    ::sparse::__private::prefetch_ahead(__A_l1_crd, __pA1_start);
                    ::sparse::__private::prefetch_ahead(__A_vals, __pA1_start);
                    let __pA1_lo: usize = __pA1_start;
                    let __pA1_end: usize = __A_l1_pos[__i + 1] as usize;
                    let __i1_1: usize = 0 + (__i1_group * 2 + 1);
                    let __i_1: usize = 0 + (__i0 * 64 + __i1_1);
                    let mut __t_1: T = <T as ::sparse::Scalar>::ZERO;
                    let __pA1_start_1: usize = __A_l1_pos[__i_1] as usize;
                    let __pA1_1_lo: usize = __pA1_start_1;
                    let __pA1_1_end: usize = __A_l1_pos[__i_1 + 1] as usize;
                    {
                        let __pA1_lo: usize = __pA1_lo.min(__pA1_end);
                        let __slice_0 = &__A_l1_crd[__pA1_lo..__pA1_end];
                        let __slice_1 = &__A_vals[__pA1_lo..__pA1_end];
                        let __pA1_1_lo: usize = __pA1_1_lo.min(__pA1_1_end);
                        let __slice_2 = &__A_l1_crd[__pA1_1_lo..__pA1_1_end];
                        let __slice_3 = &__A_vals[__pA1_1_lo..__pA1_1_end];
                        let __steps: usize = ::core::cmp::min(
                            __slice_0.len(),
                            __slice_2.len(),
                        );
                        for __step in 0..__steps {
                            let __pA1: usize = __pA1_lo + __step;
                            let __j: usize = __slice_0[__step] as usize;
                            __t += __slice_1[__step] * __x_vals[__j];
                            let __pA1_1: usize = __pA1_1_lo + __step;
                            let __j_1: usize = __slice_2[__step] as usize;
                            __t_1 += __slice_3[__step] * __x_vals[__j_1];
                        }
                        for __step in __steps..__slice_0.len() {
                            let __pA1: usize = __pA1_lo + __step;
                            let __j: usize = __slice_0[__step] as usize;
                            __t += __slice_1[__step] * __x_vals[__j];
                        }
                        for __step in __steps..__slice_2.len() {
                            let __pA1_1: usize = __pA1_1_lo + __step;
                            let __j_1: usize = __slice_2[__step] as usize;
                            __t_1 += __slice_3[__step] * __x_vals[__j_1];
                        }
                    }
                    __out_rows[__i - __out_offset] = __t;
                    __out_rows[__i_1 - __out_offset] = __t_1;
                }
                let __i1_unrolled_end: usize = 0
                    + (::core::cmp::min(64, __y_shape0 - 0 - __i0 * 64) - 0) / 2 * 2;
                for __i1 in __i1_unrolled_end..::core::cmp::min(
                    64,
                    __y_shape0 - 0 - __i0 * 64,
                ) {
                    let __i: usize = 0 + (__i0 * 64 + __i1);
                    let mut __t: T = <T as ::sparse::Scalar>::ZERO;
                    let __pA1_start: usize = __A_l1_pos[__i] as usize;
                    ::sparse::__private::prefetch_ahead(__A_l1_crd, __pA1_start);
                    ::sparse::__private::prefetch_ahead(__A_vals, __pA1_start);
                    for __pA1 in __pA1_start..(__A_l1_pos[__i + 1] as usize)
                        .min(__A_l1_crd.len())
                        .min(__A_vals.len())
                    {
                        let __j: usize = __A_l1_crd[__pA1] as usize;
                        __t += __A_vals[__pA1] * __x_vals[__j];
                    }
                    __out_rows[__i - __out_offset] = __t;
                }
            },
        );
    }
    ::core::result::Result::Ok(())
}
