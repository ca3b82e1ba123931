// Expansion of: fn axpy(y, x, alpha); y(i) = alpha * x(i) + y(i); scalars<alpha>;
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
fn axpy<T: ::sparse::Scalar>(
    y: &mut ::sparse::Tensor<T, ::sparse::Dense<1>>,
    x: &::sparse::Tensor<T, ::sparse::Dense<1>>,
    alpha: T,
) -> ::core::result::Result<(), ::sparse::KernelError> {
    let __y_shape0: usize = y.shape()[0];
    let __x_shape0: usize = x.shape()[0];
    if __x_shape0 != __y_shape0 {
        return ::core::result::Result::Err(::sparse::KernelError::ShapeMismatch {
            index: "i",
            tensor: "x",
            dim: 0,
            expected: __y_shape0,
            found: __x_shape0,
        });
    }
    ::sparse::__private::check_fill(&*y, "y", <T as ::sparse::Scalar>::ZERO)?;
    ::sparse::__private::check_fill(&*x, "x", <T as ::sparse::Scalar>::ZERO)?;
    let __alpha_vals: &[T] = ::core::slice::from_ref(&alpha);
    let __x_vals: &[T] = x.values();
    let __y_vals: &mut [T] = y.values_mut();
    for __i in 0..__y_shape0.min(__y_vals.len()).min(__x_vals.len()) {
        __y_vals[__i] = __alpha_vals[0] * __x_vals[__i] + __y_vals[__i];
    }
    ::core::result::Result::Ok(())
}
