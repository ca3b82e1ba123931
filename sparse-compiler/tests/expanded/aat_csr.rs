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
    let __A_l1_pos: &[::sparse::Idx] = A.level(1).pos();
    let __A_l1_crd: &[::sparse::Idx] = A.level(1).crd();
    let __A_vals: &[T] = A.values();
    let mut __asm = ::sparse::__private::begin_assembly(&mut *G);
    for __i in 0..__G_shape0 {
        for __j in 0..__G_shape1.min(__A_l1_pos.len()) {
            let mut __t: T = <T as ::sparse::Scalar>::ZERO;
            let mut __t_written: bool = false;
            let mut __pA1: usize = __A_l1_pos[__i] as usize;
            let __pA1_end: usize = __A_l1_pos[__i + 1] as usize;
            let mut __pA1_1: usize = __A_l1_pos[__j] as usize;
            let __pA1_end_1: usize = __A_l1_pos[__j + 1] as usize;
            while __pA1 < __pA1_end && __pA1_1 < __pA1_end_1 {
                let __pA1_crd: usize = __A_l1_crd[__pA1] as usize;
                let __pA1_1_crd: usize = __A_l1_crd[__pA1_1] as usize;
                let __k: usize = ::core::cmp::min(__pA1_crd, __pA1_1_crd);
                let __pA1_here: bool = __pA1_crd == __k;
                let __pA1_1_here: bool = __pA1_1_crd == __k;
                if __pA1_here && __pA1_1_here {
                    __t += __A_vals[__pA1] * __A_vals[__pA1_1];
                    __t_written = true;
                }
                if __pA1_here {
                    __pA1 = __pA1 + 1;
                }
                if __pA1_1_here {
                    __pA1_1 = __pA1_1 + 1;
                }
            }
            if __t_written {
                __asm.append(1, __j);
                __asm.append_value(__t);
            }
        }
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
    let __A_l1_pos: &[::sparse::Idx] = A.level(1).pos();
    let __A_l1_crd: &[::sparse::Idx] = A.level(1).crd();
    let __A_vals: &[T] = A.values();
    let (__G_levels, __G_vals): (&[::sparse::Level], &mut [T]) = ::sparse::__private::levels_and_values_mut(
        &mut *G,
    );
    let __G_l1_pos: &[::sparse::Idx] = __G_levels[1].pos();
    let __G_l1_crd: &[::sparse::Idx] = __G_levels[1].crd();
    let mut __compute_cursor: usize = 0;
    for __i in 0..__G_shape0 {
        for __j in 0..__G_shape1.min(__A_l1_pos.len()) {
            let mut __t: T = <T as ::sparse::Scalar>::ZERO;
            let mut __t_written: bool = false;
            let mut __pA1: usize = __A_l1_pos[__i] as usize;
            let __pA1_end: usize = __A_l1_pos[__i + 1] as usize;
            let mut __pA1_1: usize = __A_l1_pos[__j] as usize;
            let __pA1_end_1: usize = __A_l1_pos[__j + 1] as usize;
            while __pA1 < __pA1_end && __pA1_1 < __pA1_end_1 {
                let __pA1_crd: usize = __A_l1_crd[__pA1] as usize;
                let __pA1_1_crd: usize = __A_l1_crd[__pA1_1] as usize;
                let __k: usize = ::core::cmp::min(__pA1_crd, __pA1_1_crd);
                let __pA1_here: bool = __pA1_crd == __k;
                let __pA1_1_here: bool = __pA1_1_crd == __k;
                if __pA1_here && __pA1_1_here {
                    __t += __A_vals[__pA1] * __A_vals[__pA1_1];
                    __t_written = true;
                }
                if __pA1_here {
                    __pA1 = __pA1 + 1;
                }
                if __pA1_1_here {
                    __pA1_1 = __pA1_1 + 1;
                }
            }
            if __t_written {
                if __G_l1_crd.len() <= __compute_cursor
                    || __G_l1_crd[__compute_cursor] as usize != __j
                {
                    return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
                        tensor: "G",
                    });
                }
                __G_vals[__compute_cursor] = __t;
                __compute_cursor += 1;
            }
        }
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
