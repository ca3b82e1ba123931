//! [`GpuError`]: every way a GPU operation can fail, as a value. Nothing in this crate panics on
//! bad input, a missing library or a missing device.

use std::fmt;

use sparse_runtime::{FormatError, KernelError};

/// Why a GPU operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GpuError {
    /// No GPU can be used: the `cuda` feature is off, there is no driver or no device, or NVRTC
    /// could not be loaded. The text says which.
    Unavailable(String),
    /// A kernel refused its arguments (shapes that disagree, a structure that is not the one it
    /// computes, a downloaded structure that is not a valid tensor of its format).
    Kernel(KernelError),
    /// A call into the CUDA driver failed.
    Driver {
        /// What was being done (e.g. `"launching spmv"`).
        during: String,
        /// The CUDA error's name (e.g. `CUDA_ERROR_NO_DEVICE`).
        name: String,
        /// The CUDA error's number (`CUresult`), 0 where it is not known.
        code: u32,
    },
    /// NVRTC did not compile a CUDA source (or, for [`crate::Gpu::simulator`], the host C++
    /// compiler did not: `status` then names the compiler and `log` is its output).
    Nvrtc {
        /// The program's name, as passed to [`crate::compile_ptx`].
        program: String,
        /// What failed (e.g. `NVRTC_ERROR_COMPILATION`).
        status: String,
        /// NVRTC's full log, with the compiler's messages.
        log: String,
    },
    /// An argument that cannot be used: tensors of two different devices in one call, a
    /// structure copied into a tensor of another shape, an architecture that is not `sm_XY`,
    /// `compute_XY` or `XY`, a source with a NUL byte.
    Invalid(String),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::Unavailable(why) => write!(f, "GPU support unavailable: {why}"),
            GpuError::Kernel(e) => write!(f, "{e}"),
            GpuError::Driver { during, name, code } => {
                write!(f, "CUDA driver error {name} ({code}) while {during}")
            }
            GpuError::Nvrtc {
                program,
                status,
                log,
            } => {
                write!(f, "NVRTC failed on `{program}`: {status}")?;
                if !log.trim().is_empty() {
                    write!(f, "\n{}", log.trim_end())?;
                }
                Ok(())
            }
            GpuError::Invalid(why) => write!(f, "invalid GPU argument: {why}"),
        }
    }
}

impl std::error::Error for GpuError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GpuError::Kernel(e) => Some(e),
            _ => None,
        }
    }
}

impl From<KernelError> for GpuError {
    fn from(e: KernelError) -> Self {
        GpuError::Kernel(e)
    }
}

impl From<FormatError> for GpuError {
    fn from(e: FormatError) -> Self {
        GpuError::Kernel(KernelError::Format(e))
    }
}

impl GpuError {
    /// Whether this error only says that no GPU can be used, so that a caller (a test, an
    /// example) may skip its GPU part.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, GpuError::Unavailable(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_failure() {
        let e = GpuError::Driver {
            during: "allocating 8 bytes".into(),
            name: "OutOfMemory".into(),
            code: 2,
        };
        assert_eq!(
            e.to_string(),
            "CUDA driver error OutOfMemory (2) while allocating 8 bytes"
        );
        let e = GpuError::Nvrtc {
            program: "spmv.cu".into(),
            status: "NVRTC_ERROR_COMPILATION".into(),
            log: "spmv.cu(3): error: identifier \"y\" is undefined\n".into(),
        };
        assert!(e.to_string().ends_with("identifier \"y\" is undefined"));
        assert!(GpuError::Unavailable("x".into()).is_unavailable());
    }

    #[test]
    fn kernel_errors_are_wrapped_with_their_source() {
        let k = KernelError::StructureMismatch { tensor: "y" };
        let e = GpuError::from(k.clone());
        assert_eq!(e.to_string(), k.to_string());
        assert!(std::error::Error::source(&e).is_some());
    }
}
