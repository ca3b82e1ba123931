// Expansion of: fn sddmm; A(i,j) = B(i,j) * C(i,k) * D(j,k); formats<A: csr, B: csr, C: dense, D: dense>;
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
fn sddmm<T: ::sparse::Scalar>(
    A: &mut ::sparse::Tensor<T, ::sparse::Csr>,
    B: &::sparse::Tensor<T, ::sparse::Csr>,
    C: &::sparse::Tensor<T, ::sparse::Dense<2>>,
    D: &::sparse::Tensor<T, ::sparse::Dense<2>>,
) -> ::core::result::Result<(), ::sparse::KernelError> {
    let __A_shape0: usize = A.shape()[0];
    let __A_shape1: usize = A.shape()[1];
    let __B_shape0: usize = B.shape()[0];
    let __B_shape1: usize = B.shape()[1];
    let __C_shape0: usize = C.shape()[0];
    let __C_shape1: usize = C.shape()[1];
    let __D_shape0: usize = D.shape()[0];
    let __D_shape1: usize = D.shape()[1];
    if __B_shape0 != __A_shape0 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "i",
            tensor: "B",
            dim: 0,
            expected: __A_shape0,
            found: __B_shape0,
        });
    }
    if __C_shape0 != __A_shape0 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "i",
            tensor: "C",
            dim: 0,
            expected: __A_shape0,
            found: __C_shape0,
        });
    }
    if __B_shape1 != __A_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "B",
            dim: 1,
            expected: __A_shape1,
            found: __B_shape1,
        });
    }
    if __D_shape0 != __A_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "D",
            dim: 0,
            expected: __A_shape1,
            found: __D_shape0,
        });
    }
    if __D_shape1 != __C_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "k",
            tensor: "D",
            dim: 1,
            expected: __C_shape1,
            found: __D_shape1,
        });
    }
    ::sparse::__private::check_fill(&*A, "A", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*B, "B", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*C, "C", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*D, "D", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::copy_structure(&mut *A, B)?;
    let __C_l1_size: usize = C.level(1).size();
    let __D_l1_size: usize = D.level(1).size();
    let __B_l1_pos: &[::sparse::Idx] = B.level(1).pos();
    let __B_l1_crd: &[::sparse::Idx] = B.level(1).crd();
    let __B_vals: &[T] = B.values();
    let __C_vals: &[T] = C.values();
    let __D_vals: &[T] = D.values();
    let __A_vals: &mut [T] = A.values_mut();
    if ::sparse::__private::prefetch_wanted(__B_l1_crd)
        || ::sparse::__private::prefetch_wanted(__B_vals)
    {
        for __i in 0..__A_shape0.min(__B_l1_pos.len().saturating_sub(1)) {
            let __pB1_start: usize = __B_l1_pos[__i] as usize;
            ::sparse::__private::prefetch_ahead(__B_l1_crd, __pB1_start);
            ::sparse::__private::prefetch_ahead(__B_vals, __pB1_start);
            for __pB1 in __pB1_start..(__B_l1_pos[__i + 1] as usize)
                .min(__B_l1_crd.len())
                .min(__B_vals.len())
                .min(__A_vals.len())
            {
                let __j: usize = __B_l1_crd[__pB1] as usize;
                ::sparse::__private::prefetch_gather(
                    __D_vals,
                    __B_l1_crd,
                    __pB1 + 32,
                    0,
                    __D_l1_size,
                );
                let mut __t: T = <T as ::sparse::Scalar>::ZERO;
                let __guard: T = __B_vals[__pB1];
                if __guard != <T as ::sparse::Scalar>::ZERO {
                    __t
                        += ::sparse::__private::dense_dot(
                            __C_vals,
                            __i * __C_l1_size,
                            __D_vals,
                            __j * __D_l1_size,
                            __C_shape1,
                        );
                }
                __A_vals[__pB1] = __B_vals[__pB1] * __t;
            }
        }
    } else {
        for __i in 0..__A_shape0.min(__B_l1_pos.len().saturating_sub(1)) {
            let __pB1_start: usize = __B_l1_pos[__i] as usize;
            for __pB1 in __pB1_start..(__B_l1_pos[__i + 1] as usize)
                .min(__B_l1_crd.len())
                .min(__B_vals.len())
                .min(__A_vals.len())
            {
                let __j: usize = __B_l1_crd[__pB1] as usize;
                ::sparse::__private::prefetch_gather(
                    __D_vals,
                    __B_l1_crd,
                    __pB1 + 32,
                    0,
                    __D_l1_size,
                );
                let mut __t: T = <T as ::sparse::Scalar>::ZERO;
                let __guard: T = __B_vals[__pB1];
                if __guard != <T as ::sparse::Scalar>::ZERO {
                    __t
                        += ::sparse::__private::dense_dot(
                            __C_vals,
                            __i * __C_l1_size,
                            __D_vals,
                            __j * __D_l1_size,
                            __C_shape1,
                        );
                }
                __A_vals[__pB1] = __B_vals[__pB1] * __t;
            }
        }
    }
    ::core::result::Result::Ok(())
}
