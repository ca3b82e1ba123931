//! Kernel parameter lists read from PTX, so that a launch whose arguments do not match its kernel
//! (a missing argument, an `int` where the kernel takes a `double`) is refused with an error
//! instead of handing the driver the wrong bytes. Pointers and 64-bit integers look alike in PTX
//! (`.u64`), so that distinction stays the launcher's to get right.

use std::collections::HashMap;

use crate::GpuError;
use crate::launch::KernelArg;

/// Whether a parameter is read as an integer (or pointer) or as a floating-point value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParamClass {
    /// `.u*`, `.s*`, `.b*`: integers, pointers, opaque bytes.
    Int,
    /// `.f*`: `float`, `double`.
    Float,
}

/// One kernel parameter: its size in bytes and its class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Param {
    pub(crate) bytes: usize,
    pub(crate) class: ParamClass,
}

impl Param {
    fn describe(self) -> String {
        let class = match self.class {
            ParamClass::Int => "integer or pointer",
            ParamClass::Float => "floating-point",
        };
        format!("a {}-byte {class}", self.bytes)
    }
}

/// The parameter list of every `.entry` (kernel) in `ptx`, by kernel name. An entry whose list
/// cannot be read is left out (its launches are then not checked).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn entry_params(ptx: &str) -> HashMap<String, Vec<Param>> {
    let mut out = HashMap::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".entry ") {
        rest = &rest[at + ".entry ".len()..];
        let (Some(open), Some(close)) = (rest.find('('), rest.find(')')) else {
            break;
        };
        if open > close {
            continue;
        }
        let name = rest[..open].trim().to_string();
        let list = &rest[open + 1..close];
        let params: Option<Vec<Param>> = list
            .split(',')
            .filter(|d| !d.trim().is_empty())
            .map(parse_param)
            .collect();
        if let Some(params) = params {
            out.insert(name, params);
        }
        rest = &rest[close..];
    }
    out
}

/// `.param .u64 .ptr .global .align 8 name` or `.param .align 8 .b8 name[16]` -> its size and
/// class.
fn parse_param(decl: &str) -> Option<Param> {
    let tokens: Vec<&str> = decl.split_whitespace().collect();
    let name = *tokens.last()?;
    let ty = tokens.iter().find_map(|t| {
        let t = t.strip_prefix('.')?;
        let (class, bits) = t.split_at(1);
        let class = match class {
            "u" | "s" | "b" => ParamClass::Int,
            "f" => ParamClass::Float,
            _ => return None,
        };
        Some((class, bits.parse::<usize>().ok()?))
    })?;
    let count = match name.split_once('[') {
        Some((_, n)) => n.strip_suffix(']')?.parse::<usize>().ok()?,
        None => 1,
    };
    Some(Param {
        bytes: ty.1 / 8 * count,
        class: ty.0,
    })
}

/// An error unless `args` match `params` in number, size and class.
pub(crate) fn check_args(
    kernel: &str,
    params: &[Param],
    args: &[KernelArg<'_>],
) -> Result<(), GpuError> {
    if params.len() != args.len() {
        return Err(GpuError::Invalid(format!(
            "kernel `{kernel}` takes {} parameters, but the launch passes {}",
            params.len(),
            args.len()
        )));
    }
    for (k, (param, arg)) in params.iter().zip(args).enumerate() {
        let given = arg.param();
        if given != *param {
            return Err(GpuError::Invalid(format!(
                "parameter {k} of kernel `{kernel}` is {}, but the launch passes {} ({arg:?})",
                param.describe(),
                given.describe()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "
.version 9.0
.target sm_90
.address_size 64

.visible .entry spmv(
\t.param .u32 spmv_param_0,
\t.param .u64 .ptr .global .align 4 spmv_param_1,
\t.param .f64 spmv_param_2,
\t.param .align 8 .b8 spmv_param_3[16]
)
{
\tret;
}
.visible .entry nothing()
{
\tret;
}
";

    #[test]
    fn entries_and_their_parameters_are_read() {
        let entries = entry_params(PTX);
        let int = |bytes| Param {
            bytes,
            class: ParamClass::Int,
        };
        assert_eq!(
            entries["spmv"],
            vec![
                int(4),
                int(8),
                Param {
                    bytes: 8,
                    class: ParamClass::Float
                },
                int(16)
            ]
        );
        assert_eq!(entries["nothing"], vec![]);
    }

    #[test]
    fn mismatched_arguments_are_refused() {
        let params = &entry_params(PTX)["spmv"][..3];
        let ok = [
            KernelArg::I32(3),
            KernelArg::U64(0x1000),
            KernelArg::F64(1.0),
        ];
        assert!(check_args("spmv", params, &ok).is_ok());
        let e = check_args("spmv", params, &ok[..2]).unwrap_err();
        assert!(e.to_string().contains("takes 3 parameters"), "{e}");
        let wrong = [KernelArg::I32(3), KernelArg::U64(0), KernelArg::I64(1)];
        let e = check_args("spmv", params, &wrong).unwrap_err();
        assert!(e.to_string().contains("parameter 2"), "{e}");
        let narrow = [KernelArg::I64(3), KernelArg::U64(0), KernelArg::F64(1.0)];
        assert!(check_args("spmv", params, &narrow).is_err());
    }

    #[test]
    fn nvrtc_output_is_read_as_the_source_declares() {
        let source = r#"extern "C" __global__ void k(int m, const unsigned int *__restrict__ p,
                double *y, long long z, float f) { if (m) y[0] = p[0] + z + f; }"#;
        let ptx = match crate::nvrtc::compile_for_launch(source, "sm_90") {
            Ok((cubin, ptx)) => {
                assert_eq!(&cubin[..4], b"\x7fELF");
                ptx
            }
            Err(e) => {
                let required = ["SPARSE_REQUIRE_NVRTC", "SPARSE_REQUIRE_GPU"]
                    .iter()
                    .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty() && v != "0"));
                assert!(!required && e.is_unavailable(), "{e}");
                eprintln!("skipping: {e}");
                return;
            }
        };
        let args = [
            KernelArg::I32(1),
            KernelArg::U64(0),
            KernelArg::U64(0),
            KernelArg::I64(2),
            KernelArg::F32(0.5),
        ];
        let params = entry_params(&ptx);
        assert!(check_args("k", &params["k"], &args).is_ok(), "{ptx}");
    }
}
