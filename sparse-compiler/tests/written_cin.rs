//! Concrete index notation written by hand compiles to the code the compiler makes from the same
//! computation in index notation, where the hand-written loops and temporaries are the ones
//! concretization and scalar promotion would choose.

use quote::quote;

fn expand(tokens: proc_macro2::TokenStream) -> String {
    match sparse_compiler::compile(tokens) {
        Ok(tokens) => tokens.to_string(),
        Err(errors) => panic!(
            "{:?}",
            errors.iter().map(|e| e.message()).collect::<Vec<_>>()
        ),
    }
}

#[test]
fn spmv_with_a_scalar_temporary() {
    let written = expand(quote! {
        fn spmv;
        forall(i, where(y(i) = t, forall(j, t += A(i,j) * x(j))));
        formats< A: csr >;
        temporaries< t >;
    });
    let index = expand(quote! { fn spmv; y(i) = A(i,j) * x(j); formats< A: csr >; });
    assert_eq!(written, index);
}

#[test]
fn accumulating_spmv_is_promoted_to_a_scalar_too() {
    let written = expand(quote! {
        fn spmv; forall(i, forall(j, y(i) += A(i,j) * x(j))); formats< A: csr >;
    });
    let index = expand(quote! { fn spmv; y(i) += A(i,j) * x(j); formats< A: csr >; });
    assert_eq!(written, index);
}

#[test]
fn spgemm_with_a_dense_workspace() {
    let written = expand(quote! {
        fn spgemm;
        forall(i, where(forall(j, A(i,j) = w(j)), forall(k, forall(j, w(j) += B(i,k) * C(k,j)))));
        formats< A: csr, B: csr, C: csr >;
        temporaries< w: dense >;
    });
    let index = expand(quote! {
        fn spgemm; A(i,j) = B(i,k) * C(k,j); formats< A: csr, B: csr, C: csr >;
    });
    assert_eq!(written, index);
}

#[test]
fn the_written_order_is_kept() {
    let rows = expand(quote! { fn k; forall(i, forall(j, y(i) += A(i,j) * x(j))); });
    let columns = expand(quote! { fn k; forall(j, forall(i, y(i) += A(i,j) * x(j))); });
    assert_ne!(rows, columns);
}

#[test]
fn each_output_of_a_multi_is_the_kernel_written_alone() {
    let multi = expand(quote! {
        fn pair;
        forall(i, multi(
            where(y(i) = t, forall(j, t += A(i,j) * x(j))),
            forall(j, z(i) += A(i,j) * w(j))
        ));
        formats< A: csr >;
        temporaries< t >;
    });
    let y = expand(quote! {
        fn __sparse_part_0;
        forall(i, where(y(i) = t, forall(j, t += A(i,j) * x(j))));
        formats< A: csr >;
        temporaries< t >;
    });
    let z = expand(quote! {
        fn __sparse_part_1; forall(i, forall(j, z(i) += A(i,j) * w(j))); formats< A: csr >;
    });
    assert!(multi.contains(&y), "{multi}");
    assert!(multi.contains(&z), "{multi}");
}

#[test]
fn a_multi_takes_its_outputs_first_in_the_order_they_are_assigned() {
    let multi = expand(quote! {
        fn pair; multi(forall(i, z(i) = b(i)), forall(i, y(i) = c(i) + b(i)));
    });
    let header = &multi[..multi.find('{').expect("a body")];
    let at = |param: &str| {
        header
            .find(param)
            .unwrap_or_else(|| panic!("{param} in {header}"))
    };
    assert!(at("z : & mut") < at("y : & mut"), "{header}");
    assert!(at("y : & mut") < at("b : &"), "{header}");
    assert!(at("b : &") < at("c : &"), "{header}");
}
