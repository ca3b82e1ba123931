//! `sparse-codegen`: prints what the compiler makes of a kernel, the first thing to reach for when
//! a `tensor_kernel!` does not do what you expect (docs/architecture.md, like taco's command line).
//!
//! ```text
//! sparse-codegen [--rust | --ir | --cin | --plan | --schedule] [FILE | -]
//! ```
//!
//! The input (FILE, or standard input when FILE is absent or `-`) is either the body of one
//! `tensor_kernel!` invocation:
//!
//! ```text
//! $ echo 'pub fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>;' | sparse-codegen
//! ```
//!
//! or Rust source containing invocations (`tensor_kernel! { ... }`, at any depth), each of which is
//! expanded in order, so `sparse-codegen tests/kernels_spmv.rs` shows every kernel of a file.
//!
//! Each option prints one stage of the compiler: `--rust` (the default) the generated function,
//! pretty-printed; `--ir` the imperative IR it is emitted from; `--cin` the concrete index
//! notation before scheduling; `--plan` the run-time copies of inputs the kernel makes (each
//! copied input, the format the user gave it, the format the kernel iterates, and the rule that
//! asked for it); `--schedule` the schedule `schedule<auto>` chose and the scheduled concrete
//! index notation with its loop tags. Errors are printed to standard error as
//! `FILE:LINE:COLUMN: message`, one per line, and the exit status is 1; a usage error or an
//! unreadable file exits with 2.

use std::io::Read;
use std::process::ExitCode;

use proc_macro2::{Span, TokenStream, TokenTree};
use sparse_compiler::Errors;

/// Renders one kernel's tokens as the text of a view.
type Render = fn(TokenStream) -> Result<String, Errors>;

/// The views, by flag; the first is the default. Showing another stage is one more row.
const VIEWS: &[(&str, &str, Render)] = &[
    (
        "--rust",
        "the generated Rust function (default)",
        render_rust,
    ),
    ("--ir", "the imperative IR it is emitted from", render_ir),
    (
        "--cuda",
        "the CUDA C source of a kernel with GPU units",
        render_cuda,
    ),
    (
        "--cin",
        "the concrete index notation, before scheduling",
        render_cin,
    ),
    (
        "--plan",
        "the run-time copies of inputs, with their formats and rules",
        render_plan,
    ),
    (
        "--schedule",
        "the schedule chosen and the scheduled notation",
        render_schedule,
    ),
];

fn render_rust(input: TokenStream) -> Result<String, Errors> {
    let schedule = chosen(input.clone())?;
    sparse_compiler::compile(input).map(|tokens| schedule + &pretty(tokens))
}

fn render_ir(input: TokenStream) -> Result<String, Errors> {
    let schedule = chosen(input.clone())?;
    let ir = sparse_compiler::lower_to_ir(input)?;
    Ok(schedule + &sparse_compiler::ir::print_kernel(&ir))
}

fn render_cuda(input: TokenStream) -> Result<String, Errors> {
    let name = kernel_name(input.clone())?;
    let source = sparse_compiler::cuda_source(input)?;
    Ok(format!(
        "// {name}: CUDA source (the launcher puts `typedef <value type> T;` first)\n{source}"
    ))
}

fn render_cin(input: TokenStream) -> Result<String, Errors> {
    let name = kernel_name(input.clone())?;
    let (program, cin) = sparse_compiler::concrete_notation(input)?;
    let cin = sparse_compiler::notation::print_cin(&program, &cin);
    Ok(format!("// {name}: concrete index notation\n{cin}\n"))
}

fn render_plan(input: TokenStream) -> Result<String, Errors> {
    let name = kernel_name(input.clone())?;
    let program = sparse_compiler::planned_copies(input)?;
    let plan = sparse_compiler::notation::print_plan(&program);
    Ok(format!("// {name}: copies planned\n{plan}"))
}

/// The commands `schedule<auto>` chose (when it was asked), the scheduled statement, and one line
/// per loop the schedule tagged.
fn render_schedule(input: TokenStream) -> Result<String, Errors> {
    let name = kernel_name(input.clone())?;
    let (program, scheduled) = sparse_compiler::scheduled(input)?;
    let mut out = format!("// {name}: scheduled concrete index notation\n");
    if !scheduled.chosen.is_empty() {
        out.push_str(&format!(
            "// schedule<auto> chose: {}\n",
            scheduled.chosen.join(".")
        ));
    }
    if let Some(cin) = &scheduled.cin {
        out.push_str(&sparse_compiler::notation::print_cin(&program, cin));
        out.push('\n');
    }
    for (v, p) in &scheduled.parallel {
        let var = &program.vars[*v];
        out.push_str(&format!("parallel {var}: {:?}, {:?}\n", p.unit, p.race));
    }
    for (v, factor) in &scheduled.unroll {
        out.push_str(&format!("unroll {}: {factor}\n", program.vars[*v]));
    }
    Ok(out)
}

/// The kernel's name, for the views whose text does not show it.
fn kernel_name(input: TokenStream) -> Result<String, Errors> {
    let kernel = sparse_compiler::syntax::parse_kernel(input).map_err(|e| vec![e])?;
    Ok(kernel.name.to_string())
}

/// `// schedule<auto> chose: ...` when the kernel asked the autoscheduler, else nothing.
fn chosen(input: TokenStream) -> Result<String, Errors> {
    let commands = sparse_compiler::chosen_schedule(input)?;
    Ok(match commands.is_empty() {
        true => String::new(),
        false => format!("// schedule<auto> chose: {}\n", commands.join(".")),
    })
}

/// Formatted Rust, or the raw tokens if they are not a file of items (which the compiler never
/// produces, but the viewer should still show).
fn pretty(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => format!("{tokens}\n"),
    }
}

fn usage() -> String {
    let mut text = String::from(
        "usage: sparse-codegen [OPTION] [FILE | -]\n\n\
         Prints what a tensor_kernel! invocation expands to. The input (FILE, or standard input)\n\
         is the body of one invocation, or Rust source whose `tensor_kernel! { .. }`\n\
         invocations are each expanded in order.\n\noptions:\n",
    );
    for (flag, what, _) in VIEWS {
        text.push_str(&format!("  {flag:<10} {what}\n"));
    }
    text.push_str("  -h, --help print this help\n\n");
    text.push_str(
        "Errors are printed as FILE:LINE:COLUMN: message; the exit status is 1 when the kernel\n\
         has errors, 2 for a usage error or an unreadable file.\n",
    );
    text
}

/// The command line, parsed.
struct Args {
    /// The view, an index into [`VIEWS`].
    view: usize,
    /// The input file; `None` for standard input.
    file: Option<String>,
}

/// What to do instead of running: print the help, or a usage error.
enum Stop {
    Help,
    Usage(String),
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, Stop> {
    let mut view = 0;
    let mut file = None;
    for arg in args {
        if arg == "-h" || arg == "--help" {
            return Err(Stop::Help);
        }
        if let Some(k) = VIEWS.iter().position(|(flag, _, _)| *flag == arg) {
            view = k;
        } else if arg.starts_with('-') && arg != "-" {
            return Err(Stop::Usage(format!("unknown option `{arg}`")));
        } else if file.is_some() {
            return Err(Stop::Usage("more than one input file".into()));
        } else if arg != "-" {
            file = Some(arg);
        }
    }
    Ok(Args { view, file })
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(Stop::Help) => {
            print!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Err(Stop::Usage(problem)) => {
            eprint!("sparse-codegen: {problem}\n\n{}", usage());
            return ExitCode::from(2);
        }
    };
    let (name, text) = match read_input(args.file.as_deref()) {
        Ok(input) => input,
        Err(problem) => {
            eprintln!("sparse-codegen: {problem}");
            return ExitCode::from(2);
        }
    };
    let (output, diagnostics) = run(&name, &text, VIEWS[args.view].2);
    print!("{output}");
    for line in &diagnostics {
        eprintln!("{line}");
    }
    if diagnostics.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The input's name for messages, and its text.
fn read_input(file: Option<&str>) -> Result<(String, String), String> {
    match file {
        Some(path) => std::fs::read_to_string(path)
            .map(|text| (path.to_string(), text))
            .map_err(|e| format!("cannot read `{path}`: {e}")),
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            Ok(("<stdin>".to_string(), text))
        }
    }
}

/// Renders every kernel of `text`: the output, and one `FILE:LINE:COLUMN: message` per error.
fn run(name: &str, text: &str, render: Render) -> (String, Vec<String>) {
    let tokens: TokenStream = match text.parse() {
        Ok(tokens) => tokens,
        Err(e) => {
            return (
                String::new(),
                vec![diagnostic(name, e.span(), &e.to_string())],
            );
        }
    };
    let mut kernels = Vec::new();
    find_invocations(tokens.clone(), &mut kernels);
    if kernels.is_empty() {
        kernels.push(tokens);
    }
    let mut outputs = Vec::new();
    let mut diagnostics = Vec::new();
    for kernel in kernels {
        match render(kernel) {
            Ok(text) => outputs.push(text),
            Err(errors) => diagnostics.extend(
                errors
                    .iter()
                    .map(|e| diagnostic(name, e.span, &e.message())),
            ),
        }
    }
    (outputs.join("\n"), diagnostics)
}

/// The bodies of every `tensor_kernel! { .. }` (or `( .. )`, `[ .. ]`) in `tokens`, in order,
/// however deeply nested (a kernel inside a function or a module).
fn find_invocations(tokens: TokenStream, found: &mut Vec<TokenStream>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (k, token) in tokens.iter().enumerate() {
        match (token, tokens.get(k + 1), tokens.get(k + 2)) {
            (
                TokenTree::Ident(name),
                Some(TokenTree::Punct(bang)),
                Some(TokenTree::Group(body)),
            ) if name == "tensor_kernel" && bang.as_char() == '!' => {
                found.push(body.stream());
            }
            (TokenTree::Group(group), _, _) => find_invocations(group.stream(), found),
            _ => {}
        }
    }
}

/// `FILE:LINE:COLUMN: message`, with a 1-based column; just `FILE: message` for a span that has
/// no place in the input.
fn diagnostic(name: &str, span: Span, message: &str) -> String {
    let start = span.start();
    if start.line == 0 {
        format!("{name}: {message}")
    } else {
        format!("{name}:{}:{}: {message}", start.line, start.column + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invocations_are_found_at_any_depth_in_order() {
        let source: TokenStream = "
            use sparse::prelude::*;
            tensor_kernel! { fn a; y(i) = x(i); }
            mod m { fn f() { sparse::tensor_kernel!(fn b; y(i) = x(i);); } }
            macro_call! { tensor_kernel }
        "
        .parse()
        .unwrap();
        let mut found = Vec::new();
        find_invocations(source, &mut found);
        let names: Vec<String> = found
            .iter()
            .map(|k| k.clone().into_iter().nth(1).unwrap().to_string())
            .collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn a_lexing_error_points_at_its_line() {
        let (output, diagnostics) = run("k.txt", "fn f;\ny(i) = (x(i);\n", render_rust);
        assert!(output.is_empty());
        assert_eq!(diagnostics.len(), 1);
        assert!(diagnostics[0].starts_with("k.txt:2:"), "{diagnostics:?}");
    }

    #[test]
    fn options_select_the_view_and_the_file() {
        let args = |list: &[&str]| parse_args(list.iter().map(|s| s.to_string()));
        let Ok(parsed) = args(&["--ir", "k.txt"]) else {
            panic!("valid arguments")
        };
        assert_eq!(parsed.file.as_deref(), Some("k.txt"));
        assert_eq!(VIEWS[parsed.view].0, "--ir");
        let Ok(parsed) = args(&["--plan"]) else {
            panic!("valid arguments")
        };
        assert_eq!(VIEWS[parsed.view].0, "--plan");
        let Ok(parsed) = args(&["-"]) else {
            panic!("valid arguments")
        };
        assert!(parsed.file.is_none());
        assert_eq!(VIEWS[parsed.view].0, "--rust");
        assert!(matches!(args(&["--help"]), Err(Stop::Help)));
        assert!(matches!(args(&["--bogus"]), Err(Stop::Usage(_))));
        assert!(matches!(args(&["a", "b"]), Err(Stop::Usage(_))));
    }
}
