// Expansion of: fn spmv_positions; y(i) = A(i,j) * x(j); formats<A: csr>; schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 2048).parallelize(p0, CpuThread, Atomics)>;
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
fn spmv_positions<T: ::sparse::Scalar>(
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
    ::sparse::__private::check_fill(&*y, "y", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*A, "A", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*x, "x", <T as ::sparse::Scalar>::ZERO)?;
    let __A_l1_pos: &[::sparse::Idx] = A.level(1).pos();
    let __A_l1_crd: &[::sparse::Idx] = A.level(1).crd();
    let __A_vals: &[T] = A.values();
    let __x_vals: &[T] = x.values();
    let __x_at_A_l1: ::sparse::__private::Gather<'_, T> = ::sparse::__private::Gather::new(
        &*A,
        1,
        __A_l1_crd,
        __x_vals,
    );
    let __y_vals: &mut [T] = y.values_mut();
    if __A_vals.len() + __x_vals.len() < ::sparse::__private::unsplit_below() {
        __x_at_A_l1
            .dot_rows(
                __A_l1_crd,
                __A_vals,
                __A_l1_pos,
                0..__y_shape0,
                &mut *__y_vals,
                0,
            );
    } else {
        let __p0_tiles: usize = (__A_l1_crd.len() - 0 + 2047) / 2048;
        let __p0_per_task: usize = ::core::cmp::max((__p0_tiles + 255) / 256, 2);
        for __bound_run in 0..(__p0_tiles + (__p0_per_task - 1)) / __p0_per_task + 1 {
            let __bound: usize = ::core::cmp::min(
                __bound_run * __p0_per_task * 2048,
                __A_l1_crd.len(),
            );
            let __bound_upto: usize = ::sparse::__private::count_up_to(
                __A_l1_pos,
                __bound,
            );
            for __bound_row in ::core::cmp::min(
                if __bound == 0 {
                    0
                } else {
                    ::sparse::__private::count_up_to(__A_l1_pos, __bound - 1)
                },
                __bound_upto - 1,
            )..::core::cmp::min(__bound_upto, __A_l1_pos.len() - 1).min(__y_vals.len())
            {
                __y_vals[__bound_row] = <T as ::sparse::Scalar>::ZERO;
            }
        }
        ::sparse::__private::for_each_run(
            &mut *__y_vals,
            __A_l1_pos,
            0..(__p0_tiles + (__p0_per_task - 1)) / __p0_per_task,
            __A_vals.len() + __x_vals.len(),
            |__p0_task: usize| -> usize { 0 + __p0_task * __p0_per_task * 2048 },
            |__p0_task: usize, __out_run: &mut ::sparse::__private::Run<'_, T>| {
                let __y_shape0 = __y_shape0;
                let __A_shape0 = __A_shape0;
                let __A_shape1 = __A_shape1;
                let __x_shape0 = __x_shape0;
                let __A_l1_pos = __A_l1_pos;
                let __A_l1_crd = __A_l1_crd;
                let __A_vals = __A_vals;
                let __x_vals = __x_vals;
                let __x_at_A_l1 = __x_at_A_l1;
                let mut __A_segment: usize = ::sparse::__private::count_up_to(
                    __A_l1_pos,
                    0 + (__p0_task * __p0_per_task * 2048 + 0),
                ) - 1;
                let mut __A_segment_end: usize = if __A_segment + 1 < __A_l1_pos.len() {
                    __A_l1_pos[__A_segment + 1] as usize
                } else {
                    0
                };
                let mut __p_cursor: usize = 0 + __p0_task * __p0_per_task * 2048;
                let __p_stop: usize = ::core::cmp::min(
                    0 + __p0_task * __p0_per_task * 2048 + 2048 * __p0_per_task,
                    __A_l1_crd.len(),
                );
                let __p_tile_first: usize = __A_segment;
                while __p_cursor < __p_stop {
                    if __A_segment != __p_tile_first
                        && (__A_l1_pos[__A_segment + 1] as usize) <= __p_stop
                    {
                        let __rows_end: usize = ::core::cmp::max(
                            ::sparse::__private::count_up_to(__A_l1_pos, __p_stop) - 1,
                            __A_segment + 1,
                        );
                        __out_run
                            .dot_rows(
                                &__x_at_A_l1,
                                __A_l1_crd,
                                __A_vals,
                                __A_l1_pos,
                                __A_segment..__rows_end,
                                false,
                            );
                        __p_cursor = __A_l1_pos[__rows_end] as usize;
                        __A_segment = __rows_end;
                    } else {
                        __A_segment_end = __A_l1_pos[__A_segment + 1] as usize;
                        let __i: usize = __A_segment;
                        let __p_run_end: usize = ::core::cmp::min(
                            __A_segment_end,
                            __p_stop,
                        );
                        let mut __segment_sum: T = <T as ::sparse::Scalar>::ZERO;
                        ::sparse::__private::prefetch_ahead(__A_l1_crd, __p_cursor);
                        ::sparse::__private::prefetch_ahead(__A_vals, __p_cursor);
                        __segment_sum
                            += __x_at_A_l1
                                .dot(__A_l1_crd, __A_vals, __p_cursor, __p_run_end);
                        if __A_segment == __p_tile_first || __p_stop < __A_segment_end {
                            __out_run.add(__A_segment, __segment_sum);
                        } else {
                            __out_run.set(__A_segment, __segment_sum);
                        }
                        __p_cursor = __p_run_end;
                        if __p_run_end == __A_segment_end {
                            __A_segment += 1;
                        }
                    }
                }
            },
        );
    }
    ::core::result::Result::Ok(())
}
