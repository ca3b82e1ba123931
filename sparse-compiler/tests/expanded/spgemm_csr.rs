// Expansion of: fn spgemm; A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csr, C: csr>;
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
fn spgemm<T: ::sparse::Scalar>(
    A: &mut ::sparse::Tensor<T, ::sparse::Csr>,
    B: &::sparse::Tensor<T, ::sparse::Csr>,
    C: &::sparse::Tensor<T, ::sparse::Csr>,
) -> ::core::result::Result<(), ::sparse::KernelError> {
    let __A_shape0: usize = A.shape()[0];
    let __A_shape1: usize = A.shape()[1];
    let __B_shape0: usize = B.shape()[0];
    let __B_shape1: usize = B.shape()[1];
    let __C_shape0: usize = C.shape()[0];
    let __C_shape1: usize = C.shape()[1];
    if __B_shape0 != __A_shape0 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "i",
            tensor: "B",
            dim: 0,
            expected: __A_shape0,
            found: __B_shape0,
        });
    }
    if __C_shape1 != __A_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "C",
            dim: 1,
            expected: __A_shape1,
            found: __C_shape1,
        });
    }
    if __C_shape0 != __B_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "k",
            tensor: "C",
            dim: 0,
            expected: __B_shape1,
            found: __C_shape0,
        });
    }
    ::sparse::__private::check_fill(&*A, "A", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*B, "B", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*C, "C", <T as ::sparse::Scalar>::ZERO)?;
    let __B_l1_pos: &[::sparse::Idx] = B.level(1).pos();
    let __B_l1_crd: &[::sparse::Idx] = B.level(1).crd();
    let __C_l1_pos: &[::sparse::Idx] = C.level(1).pos();
    let __C_l1_crd: &[::sparse::Idx] = C.level(1).crd();
    let __B_vals: &[T] = B.values();
    let __C_vals: &[T] = C.values();
    let mut __w_j = ::std::vec![< T as ::sparse::Scalar > ::ZERO; __A_shape1];
    let mut __w_j_set = ::std::vec![false; __A_shape1];
    let mut __w_j_list = ::std::vec![0usize; __A_shape1];
    let mut __w_j_count: usize = 0;
    let mut __asm = ::sparse::__private::begin_assembly(&mut *A);
    for __i in 0..__A_shape0.min(__B_l1_pos.len().saturating_sub(1)) {
        let __pB1_start: usize = __B_l1_pos[__i] as usize;
        ::sparse::__private::prefetch_ahead(__B_l1_crd, __pB1_start);
        ::sparse::__private::prefetch_ahead(__B_vals, __pB1_start);
        for __pB1 in __pB1_start..(__B_l1_pos[__i + 1] as usize).min(__B_l1_crd.len()) {
            let __k: usize = __B_l1_crd[__pB1] as usize;
            for __pC1 in __C_l1_pos[__k]
                as usize..(__C_l1_pos[__k + 1] as usize)
                .min(__C_l1_crd.len())
                .min(__C_vals.len())
            {
                let __j: usize = __C_l1_crd[__pC1] as usize;
                if !__w_j_set[__j] {
                    __w_j_set[__j] = true;
                    __w_j_list[__w_j_count] = __j;
                    __w_j_count += 1;
                }
                __w_j[__j] = <T as ::sparse::Scalar>::mul_add_contracted(
                    __B_vals[__pB1],
                    __C_vals[__pC1],
                    __w_j[__j],
                );
            }
        }
        __w_j_list[..__w_j_count].sort_unstable();
        for __k_1 in 0..__w_j_count {
            let __j_1: usize = __w_j_list[__k_1];
            __asm.append(1, __j_1);
            __asm.append_value(__w_j[__j_1]);
            __w_j[__j_1] = <T as ::sparse::Scalar>::ZERO;
            __w_j_set[__j_1] = false;
        }
        __w_j_count = 0;
        __asm.finish_segment(1, __i);
    }
    ::sparse::__private::end_assembly(&mut *A, __asm)?;
    ::core::result::Result::Ok(())
}
/// Like [`spgemm`], but reuses the output's structure (assembled by an earlier call with inputs of the same structure) and computes only its values.
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
fn spgemm_compute<T: ::sparse::Scalar>(
    A: &mut ::sparse::Tensor<T, ::sparse::Csr>,
    B: &::sparse::Tensor<T, ::sparse::Csr>,
    C: &::sparse::Tensor<T, ::sparse::Csr>,
) -> ::core::result::Result<(), ::sparse::KernelError> {
    let __A_shape0: usize = A.shape()[0];
    let __A_shape1: usize = A.shape()[1];
    let __B_shape0: usize = B.shape()[0];
    let __B_shape1: usize = B.shape()[1];
    let __C_shape0: usize = C.shape()[0];
    let __C_shape1: usize = C.shape()[1];
    if __B_shape0 != __A_shape0 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "i",
            tensor: "B",
            dim: 0,
            expected: __A_shape0,
            found: __B_shape0,
        });
    }
    if __C_shape1 != __A_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "C",
            dim: 1,
            expected: __A_shape1,
            found: __C_shape1,
        });
    }
    if __C_shape0 != __B_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "k",
            tensor: "C",
            dim: 0,
            expected: __B_shape1,
            found: __C_shape0,
        });
    }
    ::sparse::__private::check_fill(&*A, "A", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*B, "B", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*C, "C", <T as ::sparse::Scalar>::ZERO)?;
    let __B_l1_pos: &[::sparse::Idx] = B.level(1).pos();
    let __B_l1_crd: &[::sparse::Idx] = B.level(1).crd();
    let __C_l1_pos: &[::sparse::Idx] = C.level(1).pos();
    let __C_l1_crd: &[::sparse::Idx] = C.level(1).crd();
    let __B_vals: &[T] = B.values();
    let __C_vals: &[T] = C.values();
    let (__A_levels, __A_vals): (&[::sparse::Level], &mut [T]) = ::sparse::__private::levels_and_values_mut(
        &mut *A,
    );
    let __A_l1_pos: &[::sparse::Idx] = __A_levels[1].pos();
    let __A_l1_crd: &[::sparse::Idx] = __A_levels[1].crd();
    let mut __w_j = ::std::vec![< T as ::sparse::Scalar > ::ZERO; __A_shape1];
    let mut __w_j_set = ::std::vec![false; __A_shape1];
    let mut __w_j_list = ::std::vec![0usize; __A_shape1];
    let mut __w_j_count: usize = 0;
    let mut __compute_cursor: usize = 0;
    for __i in 0..__A_shape0
        .min(__B_l1_pos.len().saturating_sub(1))
        .min(__A_l1_pos.len().saturating_sub(1))
    {
        let __pB1_start: usize = __B_l1_pos[__i] as usize;
        ::sparse::__private::prefetch_ahead(__B_l1_crd, __pB1_start);
        ::sparse::__private::prefetch_ahead(__B_vals, __pB1_start);
        for __pB1 in __pB1_start..(__B_l1_pos[__i + 1] as usize).min(__B_l1_crd.len()) {
            let __k: usize = __B_l1_crd[__pB1] as usize;
            for __pC1 in __C_l1_pos[__k]
                as usize..(__C_l1_pos[__k + 1] as usize)
                .min(__C_l1_crd.len())
                .min(__C_vals.len())
            {
                let __j: usize = __C_l1_crd[__pC1] as usize;
                if !__w_j_set[__j] {
                    __w_j_set[__j] = true;
                    __w_j_list[__w_j_count] = __j;
                    __w_j_count += 1;
                }
                __w_j[__j] = <T as ::sparse::Scalar>::mul_add_contracted(
                    __B_vals[__pB1],
                    __C_vals[__pC1],
                    __w_j[__j],
                );
            }
        }
        __w_j_list[..__w_j_count].sort_unstable();
        for __k_1 in 0..__w_j_count {
            let __j_1: usize = __w_j_list[__k_1];
            if __A_l1_crd.len() <= __compute_cursor
                || __A_l1_crd[__compute_cursor] as usize != __j_1
            {
                return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
                    tensor: "A",
                });
            }
            __A_vals[__compute_cursor] = __w_j[__j_1];
            __compute_cursor += 1;
            __w_j[__j_1] = <T as ::sparse::Scalar>::ZERO;
            __w_j_set[__j_1] = false;
        }
        __w_j_count = 0;
        if __A_l1_pos.len() <= __i + 1
            || __A_l1_pos[__i + 1] as usize != __compute_cursor
        {
            return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
                tensor: "A",
            });
        }
    }
    if __compute_cursor != __A_vals.len() {
        return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
            tensor: "A",
        });
    }
    ::core::result::Result::Ok(())
}
