//! Tokens -> [`ast::Kernel`]: the only module that knows the surface syntax of `tensor_kernel!`
//! (the README), schedule commands included.

pub mod ast;
pub mod cin;
mod expr;
mod format;
mod ops;
mod parse;
mod schedule;
#[cfg(test)]
mod tests;

pub use parse::parse_kernel;
