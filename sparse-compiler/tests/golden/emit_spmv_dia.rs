// Emitted by sparse-compiler from a kernel built by hand in the IR (src/emit/tests.rs).
// Regenerate with SPARSE_BLESS=1 cargo test -p sparse-compiler --lib emit.
/// `spmv_dia`, emitted from a hand-built IR.
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
pub fn spmv_dia<T: ::sparse::Scalar>(
    y: &mut ::sparse::Tensor<T, ::sparse::Dense<1>>,
    A: &::sparse::Tensor<T, ::sparse::Dia>,
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
    let __A_l0_size: usize = A.level(0).size();
    let __A_l1_size: usize = A.level(1).size();
    let __A_l1_offsets: &[i64] = A.level(1).offsets();
    let __A_vals: &[T] = A.values();
    let __x_vals: &[T] = x.values();
    let __y_vals: &mut [T] = y.values_mut();
    __y_vals.fill(<T as ::sparse::Scalar>::ZERO);
    for __d in 0..__A_l0_size.min(__A_l1_offsets.len()) {
        let __p_row = __A_vals.get(__d * __A_l1_size..).unwrap_or_default();
        for __i in ::core::cmp::max(-__A_l1_offsets[__d], 0)
            as usize..(::core::cmp::min(
            __A_shape1 as i64 - __A_l1_offsets[__d],
            __A_l1_size as i64,
        ) as usize)
            .min(__y_vals.len())
            .min(__p_row.len())
        {
            let __p: usize = __d * __A_l1_size + __i;
            let __j: usize = (__i as i64 + __A_l1_offsets[__d]) as usize;
            __y_vals[__i] = <T as ::sparse::Scalar>::mul_add_contracted(
                __p_row[__i],
                __x_vals[__j],
                __y_vals[__i],
            );
        }
    }
    ::core::result::Result::Ok(())
}
