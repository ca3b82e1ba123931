//! Tokens -> [`ast::Kernel`]: the only module that knows the surface syntax of `tensor_kernel!`
//! (DESIGN.md §1).

pub mod ast;
mod parse;

pub use parse::parse_kernel;
