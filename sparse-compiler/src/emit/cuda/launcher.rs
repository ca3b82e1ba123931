//! The Rust launcher of a GPU kernel: safe code over the facade's `gpu` module, generic over the
//! value type.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Visibility};

use super::super::bindings::{ident, lit};
use super::super::root::Root;
use super::super::signature::put_format_type;
use super::{Arg, Layout, Source};
use crate::ir::{Array, BinOp, Expr, HostStep, Kernel, Stmt};

/// The launcher function.
pub(super) fn put_launcher(
    kernel: &Kernel,
    layout: &Layout,
    source: &Source,
    attrs: &[Attribute],
    vis: &Visibility,
    root: &Root,
) -> Result<TokenStream, String> {
    let name = ident(&kernel.name);
    let gpu = quote! { #root::gpu };
    let params = kernel.signature.iter().map(|&k| {
        let p = &kernel.params[k];
        let (name, format) = (ident(&p.name), put_format_type(&p.format, root));
        let tensor = quote! { #gpu::DeviceTensor<T, #format> };
        match (p.output, p.by_value) {
            (true, _) => quote! { #name: &mut #tensor },
            (false, true) => quote! { #name: T },
            (false, false) => quote! { #name: &#tensor },
        }
    });
    let output = ident(&kernel.params[0].name);
    let tensors = || kernel.params.iter().filter(|p| !p.by_value);
    let devices = tensors().skip(1).map(|p| {
        let name = ident(&p.name);
        quote! { #name.check_device(&__gpu)?; }
    });
    let shapes = tensors().map(|p| {
        let (name, shape) = (ident(&p.name), shape_local(&p.name));
        quote! { let #shape: ::std::vec::Vec<usize> = #name.shape().to_vec(); }
    });
    let checks = put_shape_checks(kernel, root);
    let prologue = (layout.prologue.iter())
        .map(|s| put_host(kernel, s, root))
        .collect::<Result<TokenStream, String>>()?;
    let zero = match (layout.zero, layout.fill) {
        (true, _) => Some(quote! { #output.zero_values()?; }),
        (false, Some(value)) => {
            let value = crate::emit::expr::put_value(value, root);
            Some(quote! { #output.fill_values(#value)?; })
        }
        (false, None) => None,
    };
    let blocks = host_expr(
        kernel,
        &crate::ir::bin(
            BinOp::Sub,
            layout.region.hi.clone(),
            layout.region.lo.clone(),
        ),
    )?;
    let args = put_args(kernel, &source.args, root)?;
    let sizes = put_sizes(kernel, &source.args)?;
    let (text, entry) = (&source.text, &source.entry);
    let threads = u32::try_from(source.threads).map_err(|_| "too many threads per block")?;
    let constant = ident(&format!("{}_CUDA", kernel.name.to_uppercase()));
    let doc = format!(
        " The CUDA source [`{}`] launches, without the `typedef <value type> T;` it puts first.",
        kernel.name
    );
    Ok(quote! {
        #[doc = #doc]
        #[allow(non_upper_case_globals)]
        #vis const #constant: &str = #text;

        #(#attrs)*
        #[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
        #vis fn #name<T: #gpu::GpuScalar>(#(#params),*)
            -> ::core::result::Result<(), #gpu::GpuError>
        {
            let __gpu = #output.gpu().clone();
            #(#devices)*
            #(#shapes)*
            #checks
            #prologue
            #zero
            let __blocks: usize = #blocks;
            let __grid = u32::try_from(__blocks).map_err(|_| {
                #gpu::GpuError::Invalid(::std::format!(
                    "`{}` needs {} blocks, more than a launch takes", #entry, __blocks
                ))
            })?;
            let __output: &#gpu::DeviceTensor<T, _> = &*#output;
            // 32-bit indices where every length and dimension allows them.
            let __narrow = [#(#sizes),*].into_iter().all(|n: usize| n < (1usize << 31));
            let __index = |n: usize| match __narrow {
                true => #gpu::KernelArg::from(n as u32),
                false => #gpu::KernelArg::from(n as u64),
            };
            let __source = ::std::format!(
                "typedef {} T;\ntypedef {} idx_t;\n{}",
                <T as #gpu::GpuScalar>::CUDA_TYPE,
                if __narrow { "unsigned int" } else { "unsigned long long" },
                #constant
            );
            let __args = [#(#args),*];
            __gpu.launch(&__source, #entry, #gpu::LaunchShape::linear(__grid, #threads), &__args)
        }
    })
}

fn shape_local(tensor: &str) -> proc_macro2::Ident {
    ident(&format!("__{tensor}_shape"))
}

/// One `if` per dimension after the first of each index variable: it must equal the first.
fn put_shape_checks(kernel: &Kernel, root: &Root) -> TokenStream {
    let mut out = TokenStream::new();
    for check in &kernel.shape_checks {
        let Some((&(first_param, first_dim), rest)) = check.dims.split_first() else {
            continue;
        };
        let expected = dim(kernel, first_param, first_dim);
        for &(param, d) in rest {
            let found = dim(kernel, param, d);
            let (index, tensor, d) = (&check.index, &kernel.params[param].name, lit(d));
            out.extend(quote! {
                if #found != #expected {
                    return ::core::result::Result::Err(#root::KernelError::ShapeMismatch {
                        index: #index,
                        tensor: #tensor,
                        dim: #d,
                        expected: #expected,
                        found: #found,
                    }.into());
                }
            });
        }
    }
    out
}

fn dim(kernel: &Kernel, param: usize, d: usize) -> TokenStream {
    let (shape, d) = (shape_local(&kernel.params[param].name), lit(d));
    quote! { #shape[#d] }
}

/// A prologue step on the host.
fn put_host(kernel: &Kernel, stmt: &Stmt, root: &Root) -> Result<TokenStream, String> {
    let output = ident(&kernel.params[0].name);
    match stmt {
        Stmt::Host(HostStep::CopyStructure { from }) => {
            let from = ident(&kernel.params[*from].name);
            Ok(quote! { #output.copy_structure_from(#from)?; })
        }
        Stmt::Host(HostStep::CheckBound {
            index,
            extent,
            bound,
            exact,
        }) => {
            let extent = host_expr(kernel, extent)?;
            let bound = lit(*bound);
            let broken = match exact {
                true => quote! { __extent != #bound },
                false => quote! { __extent > #bound },
            };
            Ok(quote! {
                let __extent: usize = #extent;
                if #broken {
                    return ::core::result::Result::Err(#root::KernelError::BoundViolated {
                        index: #index,
                        bound: #bound,
                        extent: __extent,
                        exact: #exact,
                    }.into());
                }
            })
        }
        other => Err(format!("{other:?} before a GPU launch")),
    }
}

/// An index expression of the IR computed on the host, from the tensors' shapes, array lengths and
/// `pos` entries.
fn host_expr(kernel: &Kernel, expr: &Expr) -> Result<TokenStream, String> {
    Ok(match expr {
        Expr::Index(n) => {
            let n = lit(*n);
            quote! { #n }
        }
        Expr::Dim { param, dim: d } => dim(kernel, *param, *d),
        Expr::LevelSize { param, level } => {
            let (name, level) = (ident(&kernel.params[*param].name), lit(*level));
            quote! { #name.level_size(#level) }
        }
        Expr::Len(array) => {
            let array = put_array(kernel, array)?;
            quote! { #array.len() }
        }
        // A segment bound read back from the device (the grid of a position loop over a sparse
        // vector depends on it).
        Expr::Load(Array::Pos { param, level }, index) => {
            let (name, level) = (ident(&kernel.params[*param].name), lit(*level));
            let index = host_expr(kernel, index)?;
            quote! { #name.pos_value(#level, #index)? }
        }
        Expr::Binary(op, a, b) => {
            let (a, b) = (host_expr(kernel, a)?, host_expr(kernel, b)?);
            match op {
                BinOp::Add => quote! { (#a + #b) },
                BinOp::Sub => quote! { (#a - #b) },
                BinOp::Mul => quote! { (#a * #b) },
                BinOp::Div => quote! { (#a / #b) },
                BinOp::Min => quote! { ::core::cmp::min(#a, #b) },
                BinOp::Max => quote! { ::core::cmp::max(#a, #b) },
                other => return Err(format!("{other:?} in a host index expression")),
            }
        }
        other => return Err(format!("{other:?} in a host index expression")),
    })
}

/// A tensor array as the runtime's `DeviceArray`; the output's through `__output`, a shared
/// reborrow of the `&mut` parameter (the kernel writes its values: the exclusive borrow the
/// launcher holds makes that sound).
fn put_array(kernel: &Kernel, array: &Array) -> Result<TokenStream, String> {
    let tensor = |param: usize| match param {
        0 => quote! { __output },
        p => {
            let name = ident(&kernel.params[p].name);
            quote! { #name }
        }
    };
    Ok(match array {
        Array::Pos { param, level } => {
            let (t, level) = (tensor(*param), lit(*level));
            quote! { #t.pos_array(#level) }
        }
        Array::Crd { param, level } => {
            let (t, level) = (tensor(*param), lit(*level));
            quote! { #t.crd_array(#level) }
        }
        Array::Vals { param } => {
            let t = tensor(*param);
            quote! { #t.values_array() }
        }
        Array::Level {
            param,
            level,
            name: "offsets",
            ..
        } => {
            let (t, level) = (tensor(*param), lit(*level));
            quote! { #t.offsets_array(#level) }
        }
        other => return Err(format!("{other:?} as a GPU kernel argument")),
    })
}

/// The size an argument stands for on the host: an array's length, a dimension, a level's
/// size.
fn put_size(kernel: &Kernel, arg: &Arg) -> Result<TokenStream, String> {
    Ok(match arg {
        Arg::Array(array) | Arg::Len(array) => {
            let array = put_array(kernel, array)?;
            quote! { #array.len() }
        }
        Arg::Dim(p, d) => dim(kernel, *p, *d),
        Arg::LevelSize(p, l) => {
            let level = Expr::LevelSize {
                param: *p,
                level: *l,
            };
            host_expr(kernel, &level)?
        }
        Arg::Scalar(_) => return Err("a scalar as a size".into()),
    })
}

/// Every length and dimension the kernel sees: its size arguments, the lengths of its array
/// arguments, and every tensor's shape.
fn put_sizes(kernel: &Kernel, args: &[Arg]) -> Result<Vec<TokenStream>, String> {
    let mut sizes = (args.iter())
        .filter(|arg| !matches!(arg, Arg::Scalar(_)))
        .map(|arg| put_size(kernel, arg))
        .collect::<Result<Vec<_>, String>>()?;
    for p in kernel.params.iter().filter(|p| !p.by_value) {
        let shape = shape_local(&p.name);
        sizes.push(quote! { #shape.iter().copied().max().unwrap_or(0) });
    }
    Ok(sizes)
}

/// The kernel's arguments, in the order of its parameters: arrays as device pointers, scalars
/// by value, sizes as `idx_t` (`__index`).
fn put_args(kernel: &Kernel, args: &[Arg], root: &Root) -> Result<Vec<TokenStream>, String> {
    args.iter()
        .map(|arg| match arg {
            Arg::Array(array) => {
                let array = put_array(kernel, array)?;
                Ok(quote! { #root::gpu::KernelArg::from(#array) })
            }
            Arg::Scalar(p) => {
                let name = ident(&kernel.params[*p].name);
                Ok(quote! { #root::gpu::GpuScalar::kernel_arg(#name) })
            }
            size => {
                let value = put_size(kernel, size)?;
                Ok(quote! { __index(#value) })
            }
        })
        .collect()
}
