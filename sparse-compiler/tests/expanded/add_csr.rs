// Expansion of: fn add; A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: csr, C: csr>;
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
fn add<T: ::sparse::Scalar>(
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
    if __C_shape1 != __A_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "C",
            dim: 1,
            expected: __A_shape1,
            found: __C_shape1,
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
    let mut __asm = ::sparse::__private::begin_assembly(&mut *A);
    for __i in 0..__A_shape0
        .min(__B_l1_pos.len().saturating_sub(1))
        .min(__C_l1_pos.len().saturating_sub(1))
    {
        let mut __pB1: usize = __B_l1_pos[__i] as usize;
        let __pB1_end: usize = __B_l1_pos[__i + 1] as usize;
        let mut __pC1: usize = __C_l1_pos[__i] as usize;
        let __pC1_end: usize = __C_l1_pos[__i + 1] as usize;
        while __pB1 < __pB1_end && __pC1 < __pC1_end {
            let __pB1_crd: usize = __B_l1_crd[__pB1] as usize;
            let __pC1_crd: usize = __C_l1_crd[__pC1] as usize;
            let __j: usize = ::core::cmp::min(__pB1_crd, __pC1_crd);
            let __pB1_here: bool = __pB1_crd == __j;
            let __pC1_here: bool = __pC1_crd == __j;
            if __pB1_here && __pC1_here {
                __asm.append(1, __j);
                __asm.append_value(__B_vals[__pB1] + __C_vals[__pC1]);
            } else if __pB1_here {
                __asm.append(1, __j);
                __asm.append_value(__B_vals[__pB1]);
            } else if __pC1_here {
                __asm.append(1, __j);
                __asm.append_value(__C_vals[__pC1]);
            }
            if __pB1_here {
                __pB1 = __pB1 + 1;
            }
            if __pC1_here {
                __pC1 = __pC1 + 1;
            }
        }
        while __pB1 < __pB1_end {
            let __pB1_crd_1: usize = __B_l1_crd[__pB1] as usize;
            let __j_1: usize = __pB1_crd_1;
            let __pB1_here_1: bool = __pB1_crd_1 == __j_1;
            if __pB1_here_1 {
                __asm.append(1, __j_1);
                __asm.append_value(__B_vals[__pB1]);
            }
            if __pB1_here_1 {
                __pB1 = __pB1 + 1;
            }
        }
        while __pC1 < __pC1_end {
            let __pC1_crd_1: usize = __C_l1_crd[__pC1] as usize;
            let __j_2: usize = __pC1_crd_1;
            let __pC1_here_1: bool = __pC1_crd_1 == __j_2;
            if __pC1_here_1 {
                __asm.append(1, __j_2);
                __asm.append_value(__C_vals[__pC1]);
            }
            if __pC1_here_1 {
                __pC1 = __pC1 + 1;
            }
        }
        __asm.finish_segment(1, __i);
    }
    ::sparse::__private::end_assembly(&mut *A, __asm)?;
    ::core::result::Result::Ok(())
}
/// Like [`add`], but reuses the output's structure (assembled by an earlier call with inputs of the same structure) and computes only its values.
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
fn add_compute<T: ::sparse::Scalar>(
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
    if __C_shape1 != __A_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "C",
            dim: 1,
            expected: __A_shape1,
            found: __C_shape1,
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
    let mut __compute_cursor: usize = 0;
    for __i in 0..__A_shape0
        .min(__B_l1_pos.len().saturating_sub(1))
        .min(__C_l1_pos.len().saturating_sub(1))
        .min(__A_l1_pos.len().saturating_sub(1))
    {
        let mut __pB1: usize = __B_l1_pos[__i] as usize;
        let __pB1_end: usize = __B_l1_pos[__i + 1] as usize;
        let mut __pC1: usize = __C_l1_pos[__i] as usize;
        let __pC1_end: usize = __C_l1_pos[__i + 1] as usize;
        while __pB1 < __pB1_end && __pC1 < __pC1_end {
            let __pB1_crd: usize = __B_l1_crd[__pB1] as usize;
            let __pC1_crd: usize = __C_l1_crd[__pC1] as usize;
            let __j: usize = ::core::cmp::min(__pB1_crd, __pC1_crd);
            let __pB1_here: bool = __pB1_crd == __j;
            let __pC1_here: bool = __pC1_crd == __j;
            if __pB1_here && __pC1_here {
                if __A_l1_crd.len() <= __compute_cursor
                    || __A_l1_crd[__compute_cursor] as usize != __j
                {
                    return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
                        tensor: "A",
                    });
                }
                __A_vals[__compute_cursor] = __B_vals[__pB1] + __C_vals[__pC1];
                __compute_cursor += 1;
            } else if __pB1_here {
                if __A_l1_crd.len() <= __compute_cursor
                    || __A_l1_crd[__compute_cursor] as usize != __j
                {
                    return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
                        tensor: "A",
                    });
                }
                __A_vals[__compute_cursor] = __B_vals[__pB1];
                __compute_cursor += 1;
            } else if __pC1_here {
                if __A_l1_crd.len() <= __compute_cursor
                    || __A_l1_crd[__compute_cursor] as usize != __j
                {
                    return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
                        tensor: "A",
                    });
                }
                __A_vals[__compute_cursor] = __C_vals[__pC1];
                __compute_cursor += 1;
            }
            if __pB1_here {
                __pB1 = __pB1 + 1;
            }
            if __pC1_here {
                __pC1 = __pC1 + 1;
            }
        }
        while __pB1 < __pB1_end {
            let __pB1_crd_1: usize = __B_l1_crd[__pB1] as usize;
            let __j_1: usize = __pB1_crd_1;
            let __pB1_here_1: bool = __pB1_crd_1 == __j_1;
            if __pB1_here_1 {
                if __A_l1_crd.len() <= __compute_cursor
                    || __A_l1_crd[__compute_cursor] as usize != __j_1
                {
                    return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
                        tensor: "A",
                    });
                }
                __A_vals[__compute_cursor] = __B_vals[__pB1];
                __compute_cursor += 1;
            }
            if __pB1_here_1 {
                __pB1 = __pB1 + 1;
            }
        }
        while __pC1 < __pC1_end {
            let __pC1_crd_1: usize = __C_l1_crd[__pC1] as usize;
            let __j_2: usize = __pC1_crd_1;
            let __pC1_here_1: bool = __pC1_crd_1 == __j_2;
            if __pC1_here_1 {
                if __A_l1_crd.len() <= __compute_cursor
                    || __A_l1_crd[__compute_cursor] as usize != __j_2
                {
                    return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch {
                        tensor: "A",
                    });
                }
                __A_vals[__compute_cursor] = __C_vals[__pC1];
                __compute_cursor += 1;
            }
            if __pC1_here_1 {
                __pC1 = __pC1 + 1;
            }
        }
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
