// Expansion of: fn aat; G(i,j) = A(i,k) * A(j,k); formats<A: csr, G: csr>;
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
fn aat<T: ::sparse::Scalar>(
    G: &mut ::sparse::Tensor<T, ::sparse::Csr>,
    A: &::sparse::Tensor<T, ::sparse::Csr>,
) -> ::core::result::Result<(), ::sparse::KernelError> {
    let __G_shape0: usize = G.shape()[0];
    let __G_shape1: usize = G.shape()[1];
    let __A_shape0: usize = A.shape()[0];
    let __A_shape1: usize = A.shape()[1];
    if __A_shape0 != __G_shape0 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "i",
            tensor: "A",
            dim: 0,
            expected: __G_shape0,
            found: __A_shape0,
        });
    }
    if __A_shape0 != __G_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "A",
            dim: 0,
            expected: __G_shape1,
            found: __A_shape0,
        });
    }
    ::sparse::__private::check_fill(&*G, "G", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*A, "A", <T as ::sparse::Scalar>::ZERO)?;
    let __A_j_k_converted: ::sparse::Tensor<
        T,
        ::sparse::Custom<
            {
                ::sparse::encode_levels(
                    &[::sparse::LevelSpec::dense(1), ::sparse::LevelSpec::compressed(0)],
                )
            },
        >,
    > = A.convert()?;
    let __A_l1_pos: &[::sparse::Idx] = A.level(1).pos();
    let __A_l1_crd: &[::sparse::Idx] = A.level(1).crd();
    let __A_j_k_l1_pos: &[::sparse::Idx] = __A_j_k_converted.level(1).pos();
    let __A_j_k_l1_crd: &[::sparse::Idx] = __A_j_k_converted.level(1).crd();
    let __A_vals: &[T] = A.values();
    let __A_j_k_vals: &[T] = __A_j_k_converted.values();
    let mut __w_j = ::std::vec![< T as ::sparse::Scalar > ::ZERO; __G_shape1];
    let mut __w_j_set = ::std::vec![false; __G_shape1];
    let mut __w_j_list = ::std::vec![0usize; __G_shape1];
    let mut __w_j_count: usize = 0;
    let mut __asm = ::sparse::__private::begin_assembly(&mut *G);
    for __i in 0..__G_shape0.min(__A_l1_pos.len().saturating_sub(1)) {
        let __pA1_start: usize = __A_l1_pos[__i] as usize;
        ::sparse::__private::prefetch_ahead(__A_l1_crd, __pA1_start);
        ::sparse::__private::prefetch_ahead(__A_vals, __pA1_start);
        for __pA1 in __pA1_start..(__A_l1_pos[__i + 1] as usize).min(__A_l1_crd.len()) {
            let __k: usize = __A_l1_crd[__pA1] as usize;
            for __pA_j_k1 in __A_j_k_l1_pos[__k]
                as usize..(__A_j_k_l1_pos[__k + 1] as usize)
                .min(__A_j_k_l1_crd.len())
                .min(__A_j_k_vals.len())
            {
                let __j: usize = __A_j_k_l1_crd[__pA_j_k1] as usize;
                if !__w_j_set[__j] {
                    __w_j_set[__j] = true;
                    __w_j_list[__w_j_count] = __j;
                    __w_j_count += 1;
                }
                __w_j[__j] = <T as ::sparse::Scalar>::mul_add_contracted(
                    __A_vals[__pA1],
                    __A_j_k_vals[__pA_j_k1],
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
    ::sparse::__private::end_assembly(&mut *G, __asm)?;
    ::core::result::Result::Ok(())
}
/// Like [`aat`], but reuses the output's structure (assembled by an earlier call with inputs of the same structure) and computes only its values.
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
fn aat_compute<T: ::sparse::Scalar>(
    G: &mut ::sparse::Tensor<T, ::sparse::Csr>,
    A: &::sparse::Tensor<T, ::sparse::Csr>,
) -> ::core::result::Result<(), ::sparse::KernelError> {
    let __G_shape0: usize = G.shape()[0];
    let __G_shape1: usize = G.shape()[1];
    let __A_shape0: usize = A.shape()[0];
    let __A_shape1: usize = A.shape()[1];
    if __A_shape0 != __G_shape0 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "i",
            tensor: "A",
            dim: 0,
            expected: __G_shape0,
            found: __A_shape0,
        });
    }
    if __A_shape0 != __G_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "A",
            dim: 0,
            expected: __G_shape1,
            found: __A_shape0,
        });
    }
    ::sparse::__private::check_fill(&*G, "G", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*A, "A", <T as ::sparse::Scalar>::ZERO)?;
    let __A_j_k_converted: ::sparse::Tensor<
        T,
        ::sparse::Custom<
            {
                ::sparse::encode_levels(
                    &[::sparse::LevelSpec::dense(1), ::sparse::LevelSpec::compressed(0)],
                )
            },
        >,
    > = A.convert()?;
    let __A_l1_pos: &[::sparse::Idx] = A.level(1).pos();
    let __A_l1_crd: &[::sparse::Idx] = A.level(1).crd();
    let __A_j_k_l1_pos: &[::sparse::Idx] = __A_j_k_converted.level(1).pos();
    let __A_j_k_l1_crd: &[::sparse::Idx] = __A_j_k_converted.level(1).crd();
    let __A_vals: &[T] = A.values();
    let __A_j_k_vals: &[T] = __A_j_k_converted.values();
    let (__G_levels, __G_vals): (&[::sparse::Level], &mut [T]) = ::sparse::__private::levels_and_values_mut(
        &mut *G,
    );
    let __G_l1_pos: &[::sparse::Idx] = __G_levels[1].pos();
    let __G_l1_crd: &[::sparse::Idx] = __G_levels[1].crd();
    let mut __w_j = ::std::vec![< T as ::sparse::Scalar > ::ZERO; __G_shape1];
    let mut __w_j_set = ::std::vec![false; __G_shape1];
    let mut __w_j_list = ::std::vec![0usize; __G_shape1];
    let mut __w_j_count: usize = 0;
    let mut __compute_cursor: usize = 0;
    for __i in 0..__G_shape0
        .min(__A_l1_pos.len().saturating_sub(1))
        .min(__G_l1_pos.len().saturating_sub(1))
    {
        let __pA1_start: usize = __A_l1_pos[__i] as usize;
        ::sparse::__private::prefetch_ahead(__A_l1_crd, __pA1_start);
        ::sparse::__private::prefetch_ahead(__A_vals, __pA1_start);
        for __pA1 in __pA1_start..(__A_l1_pos[__i + 1] as usize).min(__A_l1_crd.len()) {
            let __k: usize = __A_l1_crd[__pA1] as usize;
            for __pA_j_k1 in __A_j_k_l1_pos[__k]
                as usize..(__A_j_k_l1_pos[__k + 1] as usize)
                .min(__A_j_k_l1_crd.len())
                .min(__A_j_k_vals.len())
            {
                let __j: usize = __A_j_k_l1_crd[__pA_j_k1] as usize;
                if !__w_j_set[__j] {
                    __w_j_set[__j] = true;
                    __w_j_list[__w_j_count] = __j;
                    __w_j_count += 1;
                }
                __w_j[__j] = <T as ::sparse::Scalar>::mul_add_contracted(
                    __A_vals[__pA1],
                    __A_j_k_vals[__pA_j_k1],
                    __w_j[__j],
                );
            }
        }
        __w_j_list[..__w_j_count].sort_unstable();
        for __k_1 in 0..__w_j_count {
            let __j_1: usize = __w_j_list[__k_1];
            if __G_l1_crd.len() <= __compute_cursor
                || __G_l1_crd[__compute_cursor] as usize != __j_1
            {
                return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
                    tensor: "G",
                });
            }
            __G_vals[__compute_cursor] = __w_j[__j_1];
            __compute_cursor += 1;
            __w_j[__j_1] = <T as ::sparse::Scalar>::ZERO;
            __w_j_set[__j_1] = false;
        }
        __w_j_count = 0;
        if __G_l1_pos.len() <= __i + 1
            || __G_l1_pos[__i + 1] as usize != __compute_cursor
        {
            return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
                tensor: "G",
            });
        }
    }
    if __compute_cursor != __G_vals.len() {
        return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
            tensor: "G",
        });
    }
    ::core::result::Result::Ok(())
}
