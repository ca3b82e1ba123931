// Emitted by sparse-compiler from a kernel built by hand in the IR (src/emit/tests.rs).
// Regenerate with SPARSE_BLESS=1 cargo test -p sparse-compiler --lib emit.
/// `sub_csr`, emitted from a hand-built IR.
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
pub fn sub_csr<T: ::sparse::Scalar>(
    C: &mut ::sparse::Tensor<T, ::sparse::Csr>,
    A: &::sparse::Tensor<T, ::sparse::Csr>,
    B: &::sparse::Tensor<T, ::sparse::Csr>,
) -> ::core::result::Result<(), ::sparse::KernelError> {
    let __C_shape0: usize = C.shape()[0];
    let __C_shape1: usize = C.shape()[1];
    let __A_shape0: usize = A.shape()[0];
    let __A_shape1: usize = A.shape()[1];
    let __B_shape0: usize = B.shape()[0];
    let __B_shape1: usize = B.shape()[1];
    if __A_shape0 != __C_shape0 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "i",
            tensor: "A",
            dim: 0,
            expected: __C_shape0,
            found: __A_shape0,
        });
    }
    if __B_shape0 != __C_shape0 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "i",
            tensor: "B",
            dim: 0,
            expected: __C_shape0,
            found: __B_shape0,
        });
    }
    if __A_shape1 != __C_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "A",
            dim: 1,
            expected: __C_shape1,
            found: __A_shape1,
        });
    }
    if __B_shape1 != __C_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "j",
            tensor: "B",
            dim: 1,
            expected: __C_shape1,
            found: __B_shape1,
        });
    }
    ::sparse::__private::check_fill(&*C, "C", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*A, "A", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*B, "B", <T as ::sparse::Scalar>::ZERO)?;
    let __A_l1_pos: &[::sparse::Idx] = A.level(1).pos();
    let __A_l1_crd: &[::sparse::Idx] = A.level(1).crd();
    let __B_l1_pos: &[::sparse::Idx] = B.level(1).pos();
    let __B_l1_crd: &[::sparse::Idx] = B.level(1).crd();
    let __A_vals: &[T] = A.values();
    let __B_vals: &[T] = B.values();
    let mut __asm = ::sparse::__private::begin_assembly(&mut *C);
    for __i in 0..__C_shape0
        .min(__A_l1_pos.len().saturating_sub(1))
        .min(__B_l1_pos.len().saturating_sub(1))
    {
        let mut __pa: usize = __A_l1_pos[__i] as usize;
        let __pa_end: usize = __A_l1_pos[__i + 1] as usize;
        let mut __pb: usize = __B_l1_pos[__i] as usize;
        let __pb_end: usize = __B_l1_pos[__i + 1] as usize;
        while __pa < __pa_end && __pb < __pb_end {
            let __ja: usize = __A_l1_crd[__pa] as usize;
            let __jb: usize = __B_l1_crd[__pb] as usize;
            let __j: usize = ::core::cmp::min(__ja, __jb);
            let __at_a: bool = __ja == __j;
            let __at_b: bool = __jb == __j;
            __asm.append(1, __j);
            if __at_a && __at_b {
                __asm
                    .append_value(
                        __A_vals[__pa]
                            - <T as ::sparse::Scalar>::from_f64(2.5) * __B_vals[__pb],
                    );
            } else if __at_a {
                __asm.append_value(__A_vals[__pa]);
            } else {
                __asm
                    .append_value(
                        -(<T as ::sparse::Scalar>::from_f64(2.5) * __B_vals[__pb]),
                    );
            }
            __pa += if __at_a { 1 } else { 0 };
            __pb += if __at_b { 1 } else { 0 };
        }
        while __pa < __pa_end {
            __asm.append(1, __A_l1_crd[__pa] as usize);
            __asm.append_value(__A_vals[__pa]);
            __pa += 1;
        }
        while __pb < __pb_end {
            __asm.append(1, __B_l1_crd[__pb] as usize);
            __asm
                .append_value(
                    -(<T as ::sparse::Scalar>::from_f64(2.5) * __B_vals[__pb]),
                );
            __pb += 1;
        }
        __asm.finish_segment(1, __i);
    }
    ::sparse::__private::end_assembly(&mut *C, __asm)?;
    ::core::result::Result::Ok(())
}
