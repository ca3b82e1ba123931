//! The generated function's parameters: their order (the explicit list on the `fn` line, or the
//! output first and the inputs in order of first appearance), and which order-0 inputs
//! `scalars<...>` passes as plain values. Tensors keep their numbers (output first, inputs by
//! first appearance) whatever the order: only the signature follows the list.

use std::collections::BTreeSet;

use super::Tensor;
use crate::error::{Error, ErrorKind, Errors};
use crate::format::TensorFormat;
use crate::syntax::ast;

/// The tensor numbers in the order the function takes them, checked against the statement's
/// tensors: every one listed exactly once, the output first.
pub(super) fn signature(
    kernel: &ast::Kernel,
    tensors: &[Tensor],
    errors: &mut Errors,
) -> Vec<usize> {
    let Some(list) = &kernel.params else {
        return (0..tensors.len()).collect();
    };
    let mut order = Vec::new();
    for name in &list.names {
        let text = name.to_string();
        match tensors.iter().position(|t| t.name == text) {
            None => errors.push(Error::new(name.span(), ErrorKind::UnknownParam(text))),
            Some(k) if order.contains(&k) => {
                errors.push(Error::new(name.span(), ErrorKind::DuplicateParam(text)));
            }
            Some(k) => order.push(k),
        }
    }
    for (k, tensor) in tensors.iter().enumerate() {
        if !order.contains(&k) {
            let kind = ErrorKind::MissingParam(tensor.name.clone());
            errors.push(Error::new(list.span, kind));
        }
    }
    if let (Some(first), Some(&k)) = (list.names.first(), order.first())
        && k != 0
    {
        let kind = ErrorKind::OutputNotFirst {
            output: tensors[0].name.clone(),
            first: first.to_string(),
        };
        errors.push(Error::new(first.span(), kind));
    }
    order
}

/// Marks the inputs `scalars<...>` names as passed by value, checking that each is an order-0
/// input named once and given no format.
pub(super) fn mark_scalars(kernel: &ast::Kernel, tensors: &mut [Tensor], errors: &mut Errors) {
    let mut seen = BTreeSet::new();
    for name in &kernel.scalars {
        let text = name.to_string();
        let error = |kind| Error::new(name.span(), kind);
        let Some(k) = tensors.iter().position(|t| t.name == text) else {
            errors.push(error(ErrorKind::UnknownScalar(text)));
            continue;
        };
        if !seen.insert(k) {
            errors.push(error(ErrorKind::DuplicateScalar(text)));
        } else if k == 0 {
            errors.push(error(ErrorKind::ScalarOutput(text)));
        } else if tensors[k].order != 0 {
            let order = tensors[k].order;
            errors.push(error(ErrorKind::ScalarWithIndices {
                tensor: text,
                order,
            }));
        } else {
            tensors[k].by_value = true;
        }
    }
    for decl in &kernel.formats {
        if kernel.scalars.contains(&decl.tensor) {
            let kind = ErrorKind::ScalarFormat(decl.tensor.to_string());
            errors.push(Error::new(decl.tensor.span(), kind));
        }
    }
}

/// Gives the tensors `fills<...>` names their fill values, checking that each names a tensor of
/// the statement (not a scalar passed by value) once.
pub(super) fn mark_fills(kernel: &ast::Kernel, tensors: &mut [Tensor], errors: &mut Errors) {
    for decl in &kernel.fills {
        let text = decl.tensor.to_string();
        let error = |kind| Error::new(decl.tensor.span(), kind);
        let Some(k) = tensors.iter().position(|t| t.name == text) else {
            errors.push(error(ErrorKind::UnknownFill(text)));
            continue;
        };
        if tensors[k].fill.is_some() {
            errors.push(error(ErrorKind::DuplicateFill(text)));
        } else if tensors[k].by_value {
            errors.push(error(ErrorKind::ScalarFill(text)));
        } else {
            tensors[k].fill = Some(decl.value);
        }
    }
}

/// The tensors of the kernel, its signature, and the errors of its parameter list, scalars and
/// fills.
pub(super) fn tensors_of(
    kernel: &ast::Kernel,
    formats: &[(syn::Ident, TensorFormat)],
) -> (Vec<Tensor>, Vec<usize>, Errors) {
    let mut tensors: Vec<Tensor> = formats
        .iter()
        .map(|(name, f)| Tensor {
            name: name.to_string(),
            order: sparse_format::named::order_of(&f.levels),
            levels: f.levels.clone(),
            format: f.rust_type.clone(),
            span: name.span(),
            by_value: false,
            copy_of: None,
            fill: None,
        })
        .collect();
    let mut errors = Vec::new();
    let signature = signature(kernel, &tensors, &mut errors);
    mark_scalars(kernel, &mut tensors, &mut errors);
    mark_fills(kernel, &mut tensors, &mut errors);
    (tensors, signature, errors)
}
