// Expansion of: fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>;
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
fn spmv<T: ::sparse::Scalar>(
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
    __x_at_A_l1
        .dot_rows(__A_l1_crd, __A_vals, __A_l1_pos, 0..__y_shape0, &mut *__y_vals, 0);
    ::core::result::Result::Ok(())
}
