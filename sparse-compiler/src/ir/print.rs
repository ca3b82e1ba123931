//! A readable text form of the IR, for golden tests and the code viewer (written by the emit
//! engineer).

use super::Kernel;

/// The kernel as text.
pub fn print_kernel(kernel: &Kernel) -> String {
    format!("{kernel:#?}")
}
