//! The `formats<...>` clause -> one [`TensorFormat`] per tensor of the statement.
//!
//! Takes the parsed kernel, whose names are unresolved, and returns the tensors in the order that
//! numbers them (the generated function's unless a parameter list reorders it): the output first,
//! then the inputs in order of first appearance on the right-hand side (the output is not
//! repeated where the right-hand side reads it). Each tensor's order comes
//! from its accesses; a tensor the clause does not name is dense. Named formats resolve through
//! [`sparse_format::named_format`] (so a name and its runtime type never disagree), explicit level
//! lists to [`FormatType::Custom`] after the same checks the runtime makes
//! ([`sparse_format::level_list_problem`]), so a level list that passes here is a valid format type.
//!
//! Every independent mistake is reported, each spanned on its own tokens (the tensor name in
//! `formats<...>`, the format name, the level name, the property, the `order(...)` clause); a
//! tensor whose format has an error contributes nothing else. Chou et al. 2018.

use proc_macro2::Span;
use sparse_format::named::MAX_ORDER;
use sparse_format::{NamedFormatError, level_list_problem, named_format};
use syn::Ident;

use super::{FormatType, LevelKind, LevelSpec, TensorFormat};
use crate::error::{Error, ErrorKind, Errors};
use crate::syntax::ast::{Access, Assignment, Expr, FormatExpr, Kernel, LevelDecl};

/// Resolves every tensor's format: the output first, then the inputs in order of first appearance.
pub fn resolve_formats(kernel: &Kernel) -> Result<Vec<(Ident, TensorFormat)>, Errors> {
    let mut errors = Vec::new();
    let tensors = collect_tensors(&kernel.assignment, &mut errors);
    let mut formats: Vec<Option<TensorFormat>> = vec![None; tensors.len()];
    let mut declared = vec![false; tensors.len()];
    for decl in &kernel.formats {
        let name = decl.tensor.to_string();
        let Some(k) = tensors.iter().position(|t| *t.name == decl.tensor) else {
            errors.push(Error::new(
                decl.tensor.span(),
                ErrorKind::UnknownTensor(name),
            ));
            continue;
        };
        if declared[k] {
            errors.push(Error::new(
                decl.tensor.span(),
                ErrorKind::DuplicateFormat(name),
            ));
            continue;
        }
        declared[k] = true;
        if tensors[k].consistent {
            let tensor = Target {
                name: &name,
                order: tensors[k].order,
                is_output: k == 0,
            };
            keep(
                resolve_format(&tensor, &decl.format),
                &mut formats[k],
                &mut errors,
            );
        }
    }
    for (k, tensor) in tensors.iter().enumerate() {
        if !declared[k] && tensor.consistent {
            keep(default_format(tensor), &mut formats[k], &mut errors);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let resolved = tensors
        .into_iter()
        .zip(formats)
        .filter_map(|(t, f)| Some((t.name.clone(), f?)));
    Ok(resolved.collect())
}

/// Stores a resolved format, or collects its errors.
fn keep(
    result: Result<TensorFormat, Errors>,
    slot: &mut Option<TensorFormat>,
    errors: &mut Errors,
) {
    match result {
        Ok(format) => *slot = Some(format),
        Err(more) => errors.extend(more),
    }
}

/// A tensor of the statement as its accesses show it.
struct TensorUse<'k> {
    /// Its name.
    name: &'k Ident,
    /// The number of indices of its first access.
    order: usize,
    /// The span of its first access.
    span: Span,
    /// Whether every access has the same number of indices (it gets no format otherwise).
    consistent: bool,
}

/// The tensors of the statement, output first, reporting a tensor accessed with two orders.
fn collect_tensors<'k>(assignment: &'k Assignment, errors: &mut Errors) -> Vec<TensorUse<'k>> {
    let mut tensors = Vec::new();
    note_access(&assignment.lhs, &mut tensors, errors);
    note_accesses(&assignment.rhs, &mut tensors, errors);
    tensors
}

/// Notes the accesses of `expr` from left to right.
fn note_accesses<'k>(expr: &'k Expr, tensors: &mut Vec<TensorUse<'k>>, errors: &mut Errors) {
    match expr {
        Expr::Access(access) => note_access(access, tensors, errors),
        Expr::Literal(_) => {}
        Expr::Op { args, .. } | Expr::Call { args, .. } => {
            for a in args {
                note_accesses(a, tensors, errors);
            }
        }
    }
}

/// Adds the tensor of `access` if it is new; reports its first access of another order.
fn note_access<'k>(access: &'k Access, tensors: &mut Vec<TensorUse<'k>>, errors: &mut Errors) {
    let order = access.indices.len();
    match tensors.iter_mut().find(|t| *t.name == access.tensor) {
        None => tensors.push(TensorUse {
            name: &access.tensor,
            order,
            span: access.span,
            consistent: true,
        }),
        Some(tensor) if tensor.consistent && tensor.order != order => {
            tensor.consistent = false;
            let kind = ErrorKind::InconsistentOrder(access.tensor.to_string());
            errors.push(Error::new(access.span, kind));
        }
        Some(_) => {}
    }
}

/// The tensor a format is resolved for.
struct Target<'a> {
    /// Its name, for messages.
    name: &'a str,
    /// Its order.
    order: usize,
    /// Whether it is the output, which must be assemblable.
    is_output: bool,
}

/// A tensor the clause does not name is dense.
fn default_format(tensor: &TensorUse) -> Result<TensorFormat, Errors> {
    let target = Target {
        name: &tensor.name.to_string(),
        order: tensor.order,
        is_output: false,
    };
    resolve_named(&target, "dense", &[], tensor.span)
}

/// Resolves one written format for `tensor`.
fn resolve_format(tensor: &Target, format: &FormatExpr) -> Result<TensorFormat, Errors> {
    match format {
        FormatExpr::Named { name, args, span } => {
            let args: Vec<usize> = args.iter().map(|&(a, _)| a).collect();
            let mut resolved = resolve_named(tensor, &name.to_string(), &args, name.span())?;
            resolved.span = *span;
            Ok(resolved)
        }
        FormatExpr::Levels {
            levels,
            order,
            span,
        } => resolve_level_list(tensor, levels, order.as_ref(), *span),
    }
}

/// A named format (`csr`, `bcsr(4, 4)`), with errors spanned on its name.
fn resolve_named(
    tensor: &Target,
    name: &str,
    args: &[usize],
    span: Span,
) -> Result<TensorFormat, Errors> {
    let named = named_format(name, tensor.order, args).map_err(|e| {
        let kind = match e {
            NamedFormatError::Unknown => ErrorKind::UnknownFormat(name.to_owned()),
            NamedFormatError::Arguments(expected) => ErrorKind::FormatArguments {
                format: name.to_owned(),
                expected,
            },
            NamedFormatError::Order(expected) => ErrorKind::FormatOrder {
                tensor: tensor.name.to_owned(),
                format: name.to_owned(),
                expected,
                found: tensor.order,
            },
        };
        vec![Error::new(span, kind)]
    })?;
    if tensor.is_output {
        let spans = vec![span; named.levels.len()];
        check_assemblable(tensor, &named.levels, &spans)?;
    }
    Ok(TensorFormat {
        levels: named.levels,
        rust_type: FormatType::Named {
            type_name: named.type_name,
            type_args: named.type_args,
        },
        span,
    })
}

/// An output's levels must each support insert or append: range and offset levels do not.
fn check_assemblable(tensor: &Target, levels: &[LevelSpec], spans: &[Span]) -> Result<(), Errors> {
    let errors: Errors = levels
        .iter()
        .zip(spans)
        .find(|(level, _)| super::level_of(level).assembly() == super::Assembly::None)
        .map(|(level, &span)| {
            let kind = ErrorKind::OutputNotAssemblable {
                tensor: tensor.name.to_owned(),
                level: level.kind.name(),
            };
            Error::new(span, kind)
        })
        .into_iter()
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// An explicit level list with an optional mode order: `(dense, compressed(unordered)) order(1, 0)`.
fn resolve_level_list(
    tensor: &Target,
    levels: &[LevelDecl],
    order: Option<&(Vec<(usize, Span)>, Span)>,
    span: Span,
) -> Result<TensorFormat, Errors> {
    let mut errors = Vec::new();
    let kinds: Vec<Option<LevelKind>> = levels
        .iter()
        .map(|level| resolve_level(level, &mut errors))
        .collect();
    if levels.len() != tensor.order {
        let kind = ErrorKind::LevelCount {
            tensor: tensor.name.to_owned(),
            order: tensor.order,
            levels: levels.len(),
        };
        errors.push(Error::new(span, kind));
    } else if tensor.order > MAX_ORDER {
        let why = "an explicit level list has at most 8 levels";
        errors.push(Error::new(span, ErrorKind::InvalidLevels(why)));
    }
    let dims = mode_order(tensor, order, levels.len(), &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    // Without errors every level resolved, so `flatten` keeps the kinds aligned with the levels.
    let specs: Vec<LevelSpec> = levels
        .iter()
        .zip(kinds.into_iter().flatten())
        .zip(dims)
        .map(|((level, kind), dim)| level_spec(level, kind, dim))
        .collect();
    if let Some(why) = level_list_problem(tensor.order, &specs) {
        return Err(vec![Error::new(span, ErrorKind::InvalidLevels(why))]);
    }
    if tensor.is_output {
        let spans: Vec<Span> = levels.iter().map(|l| l.kind.span()).collect();
        check_assemblable(tensor, &specs, &spans)?;
    }
    Ok(TensorFormat {
        levels: specs.clone(),
        rust_type: FormatType::Custom(specs),
        span,
    })
}

/// The dimension each level stores: the `order(...)` clause, checked to be a permutation of the
/// tensor's dimensions, or the identity.
fn mode_order(
    tensor: &Target,
    order: Option<&(Vec<(usize, Span)>, Span)>,
    levels: usize,
    errors: &mut Errors,
) -> Vec<usize> {
    let Some((dims, span)) = order else {
        return (0..levels).collect();
    };
    let dims: Vec<usize> = dims.iter().map(|&(d, _)| d).collect();
    if !is_permutation(&dims, tensor.order) {
        let kind = ErrorKind::NotPermutation {
            tensor: tensor.name.to_owned(),
            order: tensor.order,
        };
        errors.push(Error::new(*span, kind));
    }
    dims
}

/// Whether `dims` lists each of `0..n` exactly once.
fn is_permutation(dims: &[usize], n: usize) -> bool {
    let mut seen = vec![false; n];
    for &d in dims {
        match seen.get_mut(d) {
            Some(slot) if !*slot => *slot = true,
            _ => return false,
        }
    }
    dims.len() == n
}

/// The properties each level format takes: a dense, range or offset level is ordered and unique by
/// construction, and a hashed level is unordered by construction and unique (its probing finds one
/// slot per coordinate), so writing `unordered` there changes nothing.
fn allowed_properties(kind: LevelKind) -> &'static [&'static str] {
    match kind {
        LevelKind::Compressed | LevelKind::Singleton => &["unordered", "nonunique"],
        LevelKind::Hashed => &["unordered"],
        LevelKind::Dense | LevelKind::Range | LevelKind::Offset | LevelKind::Bitmap => &[],
    }
}

/// The level format a name denotes, with its properties checked; `None` after an error.
fn resolve_level(level: &LevelDecl, errors: &mut Errors) -> Option<LevelKind> {
    let name = level.kind.to_string();
    let Some(kind) = level_kind(&name) else {
        errors.push(Error::new(level.kind.span(), ErrorKind::UnknownLevel(name)));
        return None;
    };
    let allowed = allowed_properties(kind);
    for property in &level.properties {
        let property_name = property.to_string();
        if !allowed.contains(&property_name.as_str()) {
            let error = ErrorKind::UnknownProperty {
                property: property_name,
                level: kind.name(),
                allowed,
            };
            errors.push(Error::new(property.span(), error));
        }
    }
    Some(kind)
}

/// The level format named `name` in a level list.
fn level_kind(name: &str) -> Option<LevelKind> {
    LevelKind::ALL.into_iter().find(|kind| kind.name() == name)
}

/// The spec of a checked level storing dimension `dim`.
fn level_spec(level: &LevelDecl, kind: LevelKind, dim: usize) -> LevelSpec {
    let mut spec = LevelSpec::new(kind, dim);
    for property in &level.properties {
        if property == "unordered" {
            spec = spec.unordered();
        } else if property == "nonunique" {
            spec = spec.non_unique();
        }
    }
    spec
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_kernel;
    use proc_macro2::TokenStream;
    use quote::quote;

    fn resolve(tokens: TokenStream) -> Result<Vec<(String, TensorFormat)>, Vec<ErrorKind>> {
        let kernel = parse_kernel(tokens).expect("parses");
        match resolve_formats(&kernel) {
            Ok(formats) => Ok(formats
                .into_iter()
                .map(|(name, f)| (name.to_string(), f))
                .collect()),
            Err(errors) => Err(errors.into_iter().map(|e| e.kind).collect()),
        }
    }

    fn errors(tokens: TokenStream) -> Vec<ErrorKind> {
        resolve(tokens).expect_err("an error was expected")
    }

    fn named(type_name: &'static str, type_args: &[usize]) -> FormatType {
        FormatType::Named {
            type_name,
            type_args: type_args.to_vec(),
        }
    }

    #[test]
    fn tensors_come_output_first_then_by_first_appearance() {
        let formats = resolve(quote! {
            fn k; y(i) += b(i) * A(i,j) * x(j) + y(i) * A(i,j) * c(j);
        })
        .expect("resolves");
        let names: Vec<&str> = formats.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["y", "b", "A", "x", "c"]);
    }

    #[test]
    fn an_unnamed_tensor_is_dense_of_its_order() {
        let formats =
            resolve(quote! { fn k; s = B(i,j) * C(i,j); formats<C: csr>; }).expect("resolves");
        let (name, s) = &formats[0];
        assert_eq!(name, "s");
        assert!(s.levels.is_empty());
        assert_eq!(s.rust_type, named("Dense", &[0]));
        let b = &formats[1].1;
        assert_eq!(b.levels, [LevelSpec::dense(0), LevelSpec::dense(1)]);
        assert_eq!(b.rust_type, named("Dense", &[2]));
    }

    #[test]
    fn named_formats_resolve_to_runtime_types() {
        let formats = resolve(quote! {
            fn k; y(i) = A(i,j) * x(j) + B(i,j) * z(j) + T(i,j,k) * w(j) * w2(k);
            formats<A: csr, x: sparse, B: bcsr(4, 2), z: hash, T: coo>;
        })
        .expect("resolves");
        let by_name = |n: &str| &formats.iter().find(|(m, _)| m == n).expect("tensor").1;
        assert_eq!(by_name("A").rust_type, named("Csr", &[]));
        assert_eq!(
            by_name("A").levels,
            [LevelSpec::dense(0), LevelSpec::compressed(1)]
        );
        assert_eq!(by_name("x").rust_type, named("SparseVec", &[]));
        assert_eq!(by_name("x").levels, [LevelSpec::compressed(0)]);
        assert_eq!(by_name("B").rust_type, named("Bcsr", &[4, 2]));
        assert_eq!(by_name("B").levels.len(), 4);
        assert_eq!(by_name("z").rust_type, named("HashVec", &[]));
        assert_eq!(by_name("T").rust_type, named("Coo", &[3]));
        assert_eq!(
            by_name("T").levels,
            [
                LevelSpec::compressed(0).non_unique(),
                LevelSpec::singleton(1).non_unique(),
                LevelSpec::singleton(2),
            ]
        );
    }

    #[test]
    fn level_lists_resolve_to_custom_formats_with_their_mode_order() {
        let formats = resolve(quote! {
            fn k; y(i) = B(i,j) * x(j) + H(i,j) * x(j);
            formats<B: (dense, compressed(unordered)) order(1, 0), H: (compressed(nonunique), hashed(unordered))>;
        })
        .expect("resolves");
        let b = vec![LevelSpec::dense(1), LevelSpec::compressed(0).unordered()];
        assert_eq!(formats[1].1.levels, b);
        assert_eq!(formats[1].1.rust_type, FormatType::Custom(b));
        let h = vec![LevelSpec::compressed(0).non_unique(), LevelSpec::hashed(1)];
        assert_eq!(formats[3].1.rust_type, FormatType::Custom(h));
    }

    #[test]
    fn unknown_and_twice_named_tensors_are_reported() {
        assert_eq!(
            errors(quote! { fn k; y(i) = a(i); formats<a: sparse, b: sparse, a: dense>; }),
            [
                ErrorKind::UnknownTensor("b".into()),
                ErrorKind::DuplicateFormat("a".into())
            ]
        );
    }

    #[test]
    fn unknown_levels_and_properties_are_reported() {
        assert_eq!(
            errors(quote! { fn k; y(i) = A(i,j); formats<A: (dense, compresed)>; }),
            [ErrorKind::UnknownLevel("compresed".into())]
        );
        assert_eq!(
            errors(quote! {
                fn k; y(i) = A(i,j) + B(i,j);
                formats<A: (dense(unordered), compressed(sorted)), B: (dense, hashed(nonunique))>;
            }),
            [
                ErrorKind::UnknownProperty {
                    property: "unordered".into(),
                    level: "dense",
                    allowed: &[]
                },
                ErrorKind::UnknownProperty {
                    property: "sorted".into(),
                    level: "compressed",
                    allowed: &["unordered", "nonunique"]
                },
                ErrorKind::UnknownProperty {
                    property: "nonunique".into(),
                    level: "hashed",
                    allowed: &["unordered"]
                },
            ]
        );
    }

    #[test]
    fn property_messages_say_what_the_level_takes() {
        let message = |property: &str, level, allowed| {
            let kind = ErrorKind::UnknownProperty {
                property: property.into(),
                level,
                allowed,
            };
            Error::new(Span::call_site(), kind).message()
        };
        assert_eq!(
            message("unordered", "dense", &[]),
            "property `unordered` does not apply to a dense level, which takes no properties"
        );
        assert_eq!(
            message("sorted", "compressed", &["unordered", "nonunique"]),
            "unknown property `sorted` for a compressed level; expected `unordered` or `nonunique`"
        );
        assert_eq!(
            message("nonunique", "hashed", &["unordered"]),
            "property `nonunique` does not apply to a hashed level; expected `unordered`"
        );
    }

    #[test]
    fn named_format_mistakes_are_reported() {
        assert_eq!(
            errors(quote! { fn k; y(i) = A(i,j); formats<A: csx>; }),
            [ErrorKind::UnknownFormat("csx".into())]
        );
        let bcsr = || ErrorKind::FormatArguments {
            format: "bcsr".into(),
            expected: "two nonzero block sizes, as in `bcsr(4, 4)`",
        };
        assert_eq!(
            errors(quote! { fn k; y(i) = A(i,j); formats<A: bcsr(4)>; }),
            [bcsr()]
        );
        assert_eq!(
            errors(quote! { fn k; y(i) = A(i,j); formats<A: bcsr(4, 0)>; }),
            [bcsr()]
        );
        assert_eq!(
            errors(quote! { fn k; y(i) = A(i,j); formats<A: csr(2)>; }),
            [ErrorKind::FormatArguments {
                format: "csr".into(),
                expected: "no arguments"
            }]
        );
        assert_eq!(
            errors(quote! { fn k; y(i) = x(i); formats<x: csr>; }),
            [ErrorKind::FormatOrder {
                tensor: "x".into(),
                format: "csr".into(),
                expected: "2",
                found: 1
            }]
        );
    }

    #[test]
    fn level_counts_and_mode_orders_are_checked() {
        assert_eq!(
            errors(quote! { fn k; y(i) = A(i,j); formats<A: (dense, compressed, dense)>; }),
            [ErrorKind::LevelCount {
                tensor: "A".into(),
                order: 2,
                levels: 3
            }]
        );
        let not_permutation = || ErrorKind::NotPermutation {
            tensor: "A".into(),
            order: 2,
        };
        for tokens in [
            quote! { fn k; y(i) = A(i,j); formats<A: (dense, compressed) order(1, 1)>; },
            quote! { fn k; y(i) = A(i,j); formats<A: (dense, compressed) order(0, 2)>; },
            quote! { fn k; y(i) = A(i,j); formats<A: (dense, compressed) order(1, 0, 2)>; },
            quote! { fn k; y(i) = A(i,j); formats<A: (dense, compressed) order(0)>; },
        ] {
            assert_eq!(errors(tokens), [not_permutation()]);
        }
    }

    #[test]
    fn level_lists_the_runtime_would_reject_are_reported() {
        assert_eq!(
            errors(quote! { fn k; y(i) = A(i,j); formats<A: (dense, range)>; }),
            [ErrorKind::InvalidLevels(
                "a range level must be directly followed by an offset level"
            )]
        );
        assert_eq!(
            errors(quote! { fn k; y(i) = A(i,j); formats<A: (offset, dense)>; }),
            [ErrorKind::InvalidLevels(
                "an offset level must directly follow a range level"
            )]
        );
        assert_eq!(
            errors(quote! {
                fn k; y(i) = A(a,b,c,d,e,f,g,h,i);
                formats<A: (dense, dense, dense, dense, dense, dense, dense, dense, dense)>;
            }),
            [ErrorKind::InvalidLevels(
                "an explicit level list has at most 8 levels"
            )]
        );
    }

    #[test]
    fn an_output_must_be_assemblable() {
        assert_eq!(
            errors(quote! { fn k; Y(i,j) = A(i,j); formats<Y: dia>; }),
            [ErrorKind::OutputNotAssemblable {
                tensor: "Y".into(),
                level: "range"
            }]
        );
        assert_eq!(
            errors(quote! { fn k; Y(i,j,k) = A(i,j,k); formats<Y: (dense, range, offset)>; }),
            [ErrorKind::OutputNotAssemblable {
                tensor: "Y".into(),
                level: "range"
            }]
        );
        assert!(
            resolve(quote! { fn k; y(i) = A(i,j,k) * x(k); formats<A: (dense, range, offset)>; })
                .is_ok()
        );
    }

    #[test]
    fn a_tensor_used_with_two_orders_is_reported_once() {
        assert_eq!(
            errors(quote! { fn k; y(i) = A(i,j) * x(j) + A(i) + A(i, j, k) + x(j); }),
            [ErrorKind::InconsistentOrder("A".into())]
        );
        assert_eq!(
            errors(quote! { fn k; y(i) += y(i, j); }),
            [ErrorKind::InconsistentOrder("y".into())]
        );
    }

    #[test]
    fn independent_errors_are_all_reported_in_written_order() {
        let found = errors(quote! {
            fn k; y(i) = A(i,j) * x(j) + B(i,j) * x(i, j);
            formats<A: (dense, compresed), z: csr, B: (dense, compressed) order(0, 0), y: dia>;
        });
        assert_eq!(
            found,
            [
                ErrorKind::InconsistentOrder("x".into()),
                ErrorKind::UnknownLevel("compresed".into()),
                ErrorKind::UnknownTensor("z".into()),
                ErrorKind::NotPermutation {
                    tensor: "B".into(),
                    order: 2
                },
                ErrorKind::FormatOrder {
                    tensor: "y".into(),
                    format: "dia".into(),
                    expected: "2",
                    found: 1
                },
            ]
        );
    }

    #[test]
    fn a_tensor_above_the_highest_dense_order_is_reported() {
        assert_eq!(
            errors(quote! { fn k; y(i) = A(a,b,c,d,e,f,g,h,i); }),
            [ErrorKind::FormatOrder {
                tensor: "A".into(),
                format: "dense".into(),
                expected: "0 to 8",
                found: 9
            }]
        );
    }
}
