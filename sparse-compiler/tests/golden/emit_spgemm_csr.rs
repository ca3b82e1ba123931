// Emitted by sparse-compiler from a kernel built by hand in the IR (src/emit/tests.rs).
// Regenerate with SPARSE_BLESS=1 cargo test -p sparse-compiler --lib emit.
/// `spgemm_csr`, emitted from a hand-built IR.
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
pub fn spgemm_csr<T: ::sparse::Scalar>(
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
    if __B_shape0 != __A_shape1 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "k",
            tensor: "B",
            dim: 0,
            expected: __A_shape1,
            found: __B_shape0,
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
    let mut __w = ::std::vec![< T as ::sparse::Scalar > ::ZERO; __C_shape1];
    let mut __seen = ::std::vec![false; __C_shape1];
    let mut __list = ::std::vec![0usize; __C_shape1];
    let mut __asm = ::sparse::__private::begin_assembly(&mut *C);
    for __i in 0..__C_shape0.min(__A_l1_pos.len().saturating_sub(1)) {
        let mut __n: usize = 0;
        for __pa in __A_l1_pos[__i]
            as usize..(__A_l1_pos[__i + 1] as usize).min(__A_l1_crd.len())
        {
            let __k: usize = __A_l1_crd[__pa] as usize;
            for __pb in __B_l1_pos[__k]
                as usize..(__B_l1_pos[__k + 1] as usize)
                .min(__B_l1_crd.len())
                .min(__B_vals.len())
            {
                let __j: usize = __B_l1_crd[__pb] as usize;
                if !__seen[__j] {
                    __seen[__j] = true;
                    __list[__n] = __j;
                    __n += 1;
                }
                __w[__j] = <T as ::sparse::Scalar>::mul_add_contracted(
                    __A_vals[__pa],
                    __B_vals[__pb],
                    __w[__j],
                );
            }
        }
        __list[..__n].sort_unstable();
        for __q in 0..__n {
            let __jc: usize = __list[__q];
            __asm.append(1, __jc);
            __asm.append_value(__w[__jc]);
            __w[__jc] = <T as ::sparse::Scalar>::ZERO;
            __seen[__jc] = false;
        }
        __asm.finish_segment(1, __i);
    }
    ::sparse::__private::end_assembly(&mut *C, __asm)?;
    ::core::result::Result::Ok(())
}
