//! Random statements over up to three indices, with transposed and broadcast accesses, random
//! formats and random schedules, for `tests/statements_random.rs` in the root package, which runs
//! each against a dense evaluation of the statement. A second list draws intrinsics, comparisons,
//! casts and boolean connectives too, whose rules make loops intersect, unite or cover every
//! coordinate.
//!
//! Statements like these found partial sums summed the wrong number of times, producers that lost
//! their loops or read operands no loop iterated, and schedules applied to the wrong producer.
//! `SPARSE_BLESS=1 cargo test -p sparse-compiler --test statement_fuzz` draws the list again
//! (from a fixed seed); otherwise every listed kernel must still compile, so a change that makes
//! one illegal fails here with its message rather than in the root package's build.

mod chains;

use std::path::{Path, PathBuf};

use chains::{Kernel, chain_of, compile, transforms};
use sparse_compiler::notation::Rule;

/// Statements kept in `tests/statements_random/statements.rs`.
const STATEMENTS: usize = 60;

/// Statements kept in `tests/statements_random/operators.rs`.
const OPERATOR_STATEMENTS: usize = 30;

/// Statements kept in `tests/statements_random/scatter.rs`: sparse outputs whose loops do not
/// follow them (a sum outside their loops, a transposed operand, `+=`).
const SCATTER_STATEMENTS: usize = 20;

/// Functions of one argument the operator statements call: defined everywhere, so the dense
/// evaluation never meets a NaN.
const UNARY_CALLS: &[&str] = &["abs", "square", "sin", "cos", "atan", "tanh", "exp"];

/// Functions of two arguments, and `pow` with the exponent 2.
const BINARY_CALLS: &[&str] = &["max", "min", "atan2", "heaviside", "pow"];

const COMPARISONS: &[&str] = &["<", "<=", ">", ">=", "==", "!="];

/// Of them, at most this many without a schedule.
const UNSCHEDULED: usize = 15;

const INDICES: [&str; 3] = ["i", "j", "k"];
const INPUTS: [&str; 5] = ["B", "C", "D", "E", "G"];
const MATRICES: &[&str] = &[
    "csr",
    "csc",
    "dcsr",
    "dcsc",
    "coo",
    "dense",
    "ell",
    "hash",
    "dia",
    "bcsr<2,2>",
];
const ORDER_3: &[&str] = &[
    "csf",
    "coo",
    "dense",
    "(dense, compressed, compressed)",
    "(compressed, dense, compressed)",
    "(dense, dense, compressed)",
    "(compressed, compressed, dense)",
];
const VECTORS: &[&str] = &["dense", "sparse", "hash"];
const MATRIX_OUTPUTS: &[&str] = &["csr", "csc", "dcsr", "coo", "dense", "hash"];

/// A small deterministic generator (xorshift64), so the list is the same on every machine.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.below(options.len())]
    }

    fn byte(&mut self) -> u8 {
        self.below(256) as u8
    }
}

/// A right-hand side: accesses of distinct tensors, the constant 2, negation, `+ - *`, and in
/// operator statements calls, comparisons, casts, `!`, `&&` and `||`.
enum Node {
    Access(&'static str, Vec<&'static str>),
    Two,
    Neg(Box<Node>),
    Binary(&'static str, Box<Node>, Box<Node>),
    /// A call, or a prefix `!` or a cast (`as i32`) written around its operand.
    Call(&'static str, Vec<Node>),
}

impl Node {
    fn draw(
        d: &mut Draw,
        depth: usize,
        names: &mut Vec<&'static str>,
        indices: &[&'static str],
        operators: bool,
    ) -> Node {
        if names.is_empty() {
            return Node::Two;
        }
        if depth == 0 || names.len() == 1 || d.below(10) < 3 {
            // One access in eight is a scalar (an order-0 tensor, written without parentheses).
            let order = match d.below(8) {
                0 => 0,
                _ => 1 + d.below(indices.len()),
            };
            let mut left = indices.to_vec();
            let vars = (0..order)
                .map(|_| left.remove(d.below(left.len())))
                .collect();
            return Node::Access(names.remove(0), vars);
        }
        let mut operand = |d: &mut Draw| Node::draw(d, depth - 1, names, indices, operators);
        match d.below(if operators { 10 } else { 6 }) {
            0 => Node::Neg(Box::new(operand(d))),
            op @ 1..=5 => {
                let (a, b) = (operand(d), operand(d));
                Node::Binary(["+", "-", "*", "*", "*"][op - 1], Box::new(a), Box::new(b))
            }
            6 => Node::Call(d.pick(UNARY_CALLS), vec![operand(d)]),
            7 => match d.pick(BINARY_CALLS) {
                "pow" => Node::Call("pow", vec![operand(d), Node::Two]),
                f => Node::Call(f, vec![operand(d), operand(d)]),
            },
            8 => {
                let (a, b) = (operand(d), operand(d));
                Node::Binary(d.pick(COMPARISONS), Box::new(a), Box::new(b))
            }
            _ => match d.below(5) {
                0 => Node::Call("!", vec![operand(d)]),
                1 => Node::Call("as i32", vec![operand(d)]),
                2 => Node::Call("as bool", vec![operand(d)]),
                op => {
                    let (a, b) = (operand(d), operand(d));
                    Node::Binary(["&&", "||"][op - 3], Box::new(a), Box::new(b))
                }
            },
        }
    }

    fn text(&self) -> String {
        match self {
            Node::Access(t, vars) if vars.is_empty() => t.to_string(),
            Node::Access(t, vars) => format!("{t}({})", vars.join(",")),
            Node::Two => "2".into(),
            Node::Neg(e) => format!("-({})", e.text()),
            Node::Binary(op, a, b) => format!("({}) {op} ({})", a.text(), b.text()),
            Node::Call("!", args) => format!("!({})", args[0].text()),
            Node::Call(cast, args) if cast.starts_with("as ") => {
                format!("({}) {cast}", args[0].text())
            }
            Node::Call(f, args) => {
                let args: Vec<String> = args.iter().map(Node::text).collect();
                format!("{f}({})", args.join(", "))
            }
        }
    }

    fn accesses<'n>(&'n self, out: &mut Vec<(&'static str, &'n [&'static str])>) {
        match self {
            Node::Access(t, vars) => out.push((t, vars)),
            Node::Two => {}
            Node::Neg(e) => e.accesses(out),
            Node::Binary(_, a, b) => {
                a.accesses(out);
                b.accesses(out);
            }
            Node::Call(_, args) => {
                for a in args {
                    a.accesses(out);
                }
            }
        }
    }

    /// What `precompute` may name: every access, and every product of two accesses.
    fn terms(&self, out: &mut Vec<String>) {
        match self {
            Node::Access(..) => out.push(self.text()),
            Node::Two => {}
            Node::Neg(e) => e.terms(out),
            Node::Binary(op, a, b) => {
                if let ("*", Node::Access(..), Node::Access(..)) = (*op, &**a, &**b) {
                    out.push(format!("{} * {}", a.text(), b.text()));
                }
                a.terms(out);
                b.terms(out);
            }
            Node::Call(_, args) => {
                for a in args {
                    a.terms(out);
                }
            }
        }
    }
}

/// One drawn statement: the kernel's head (without schedule) as the proptest's kernels have it,
/// and the macro arguments of `tests/statements_random.rs` except the schedule.
struct Statement {
    kernel: Kernel,
    statement: String,
    formats: String,
    output: String,
    inputs: Vec<String>,
}

fn leak(words: Vec<String>) -> &'static [&'static str] {
    let words: Vec<&'static str> = words.into_iter().map(|w| &*w.leak()).collect();
    words.leak()
}

fn draw_statement(d: &mut Draw, operators: bool) -> Option<Statement> {
    let indices = &INDICES[..1 + d.below(3)];
    let mut names: Vec<&'static str> = INPUTS[..1 + d.below(4)].to_vec();
    let rhs = Node::draw(d, 3, &mut names, indices, operators);
    let mut accesses = Vec::new();
    rhs.accesses(&mut accesses);
    let mut used: Vec<&str> = accesses
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .collect();
    used.sort_unstable();
    used.dedup();
    // A single access is a copy, which the format tests cover.
    if accesses.len() < 2 || used.is_empty() {
        return None;
    }
    let mut left = used.clone();
    let out_order = [0, 1, 2, 2, 3][d.below(5)].min(used.len());
    let out_vars: Vec<&str> = (0..out_order)
        .map(|_| left.remove(d.below(left.len())))
        .collect();
    let (name, lhs) = match out_vars.is_empty() {
        true => ("a", "a".to_string()),
        false => ("A", format!("A({})", out_vars.join(","))),
    };
    let op = if d.below(100) < 15 { "+=" } else { "=" };
    let statement = format!("{lhs} {op} {}", rhs.text());
    let mut formats: Vec<String> = (accesses.iter())
        .filter(|(_, vars)| !vars.is_empty())
        .map(|(t, vars)| {
            let options = [VECTORS, MATRICES, ORDER_3][vars.len() - 1];
            format!("{t}: {}", d.pick(options))
        })
        .collect();
    if !out_vars.is_empty() {
        let options = [VECTORS, MATRIX_OUTPUTS, ORDER_3][out_vars.len() - 1];
        formats.push(format!("{name}: {}", d.pick(options)));
    }
    let formats = match formats.is_empty() {
        true => String::new(),
        false => format!("formats<{}>;", formats.join(", ")),
    };
    let mut terms = Vec::new();
    rhs.terms(&mut terms);
    let tensors =
        std::iter::once(name.to_string()).chain(accesses.iter().map(|(t, _)| t.to_string()));
    let kernel = Kernel {
        head: format!("fn k; {statement}; {formats}").leak(),
        family: None,
        vars: leak(used.iter().map(|v| v.to_string()).collect()),
        tensors: leak(tensors.collect()),
        exprs: leak(terms),
    };
    let inputs = accesses
        .iter()
        .map(|(t, vars)| format!("{t}[{}]", vars.join(", ")));
    Some(Statement {
        kernel,
        statement,
        formats,
        output: format!("{name}[{}]", out_vars.join(", ")),
        inputs: inputs.collect(),
    })
}

/// Where the root package lists the statements it runs: `statements.rs`, or `operators.rs`.
fn statements_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/statements_random/{name}"))
}

/// Which statements a list keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    /// `+ - *`, implicit sums and literals.
    Plain,
    /// Intrinsics, comparisons, casts and boolean connectives too.
    Operators,
    /// Only statements into sparse outputs that the kernel assembles from scattered triples or
    /// through an operand transposed for the row-wise product (`+ - *` only).
    Scatter,
}

/// Whether `source` assembles its sparse output from scattered triples (a sum outside the
/// output's loops, loops against its level order, `+=`) or transposes an operand so the sums
/// run inside them.
fn scatters(source: &str) -> bool {
    let Ok(tokens) = source.parse() else {
        return false;
    };
    sparse_compiler::lower_to_ir(tokens).is_ok_and(|kernel| {
        let text = sparse_compiler::ir::print_kernel(&kernel);
        let row_wise =
            sparse_compiler::planned_copies(source.parse().expect("tokens")).is_ok_and(|p| {
                p.copies
                    .iter()
                    .any(|(_, c)| c.rules.contains(&Rule::RowWise))
            });
        text.contains("begin_entries") || row_wise
    })
}

/// A statements file: `count` distinct kernels that compile, most of them scheduled, drawn from
/// `seed`, of the kind `list` keeps.
fn draw_statements(seed: u64, count: usize, list: List) -> String {
    let operators = list == List::Operators;
    let mut d = Draw(seed);
    let mut text = String::from(
        "// Written by `SPARSE_BLESS=1 cargo test -p sparse-compiler --test statement_fuzz`.\n\n",
    );
    let (mut kept, mut unscheduled, mut seen) = (0, 0, Vec::new());
    for _ in 0..100_000 {
        if kept == count {
            break;
        }
        let Some(s) = draw_statement(&mut d, operators) else {
            continue;
        };
        // Hashed outputs always collected their entries; the list is for the other formats.
        let hashed = s.formats.contains("A: hash");
        if list == List::Scatter && (hashed || !scatters(s.kernel.head)) {
            continue;
        }
        let commands = d.below(5);
        let draws: Vec<(u8, [u8; 5])> = (0..commands)
            .map(|_| (d.byte(), std::array::from_fn(|_| d.byte())))
            .collect();
        let chain = chain_of(&s.kernel, draws);
        let schedule = match chain.is_empty() {
            true => String::new(),
            false => format!("schedule<{chain}>;"),
        };
        let source = format!("{} {schedule}", s.kernel.head);
        // Upper bounds promise extents the test inputs do not keep; a schedule that only
        // unrolls, assembles or prefetches leaves the loops alone; a GPU kernel takes device
        // tensors.
        let compiles = !chain.contains("Max")
            && !chain.contains("Gpu")
            && (chain.is_empty() || transforms(&chain) > 0)
            && compile(&source).is_ok();
        if !compiles || seen.contains(&source) || (chain.is_empty() && unscheduled == UNSCHEDULED) {
            continue;
        }
        unscheduled += usize::from(chain.is_empty());
        text += &format!(
            "random_statement!(s{kept}, [{}], [{}], [{schedule}], {}, [{}]);\n",
            s.statement,
            s.formats,
            s.output,
            s.inputs.join(", ")
        );
        seen.push(source);
        kept += 1;
    }
    text
}

#[test]
fn random_statements_of_the_root_tests_compile() {
    let statements = || draw_statements(0x9E37_79B9_7F4A_7C15, STATEMENTS, List::Plain);
    listed_statements_compile("statements.rs", STATEMENTS, statements);
}

#[test]
fn random_operator_statements_of_the_root_tests_compile() {
    let statements =
        || draw_statements(0xD1B5_4A32_D192_ED03, OPERATOR_STATEMENTS, List::Operators);
    listed_statements_compile("operators.rs", OPERATOR_STATEMENTS, statements);
}

#[test]
fn random_scatter_statements_of_the_root_tests_compile() {
    let statements = || draw_statements(0x5851_F42D_4C95_7F2D, SCATTER_STATEMENTS, List::Scatter);
    listed_statements_compile("scatter.rs", SCATTER_STATEMENTS, statements);
}

/// Every statement of the list `name` compiles (drawn again first with `SPARSE_BLESS`).
fn listed_statements_compile(name: &str, count: usize, draw: impl Fn() -> String) {
    if std::env::var_os("SPARSE_BLESS").is_some() {
        std::fs::write(statements_file(name), draw()).expect("writable statements file");
    }
    let text = std::fs::read_to_string(statements_file(name)).expect("the statements file exists");
    let mut listed = 0;
    for line in text.lines().filter(|l| l.starts_with("random_statement!(")) {
        let parts: Vec<&str> = line.splitn(4, '[').collect();
        let statement = parts[1].rsplit_once(']').expect("[statement]").0;
        let formats = parts[2].split_once("], ").expect("[formats]").0;
        let schedule = parts[3].split_once("], ").expect("[schedule]").0;
        let source = format!("fn k; {statement}; {formats} {schedule}");
        if let Err(e) = compile(&source) {
            panic!("{source}\n{e}");
        }
        listed += 1;
    }
    assert_eq!(listed, count, "{name} lists {listed}");
}

/// `schedule<auto>` never turns a statement that compiles into one that does not. It used to
/// split the first loop even where that loop iterates a sparse level (a sparse vector, DCSR's
/// rows), which only `pos` can tile.
#[test]
fn auto_keeps_every_statement_that_compiles() {
    let mut d = Draw(0x2545_F491_4F6C_DD1D);
    let mut compiled = 0;
    for _ in 0..3000 {
        let Some(s) = draw_statement(&mut d, compiled % 2 == 1) else {
            continue;
        };
        if compile(s.kernel.head).is_ok() {
            compiled += 1;
            let source = format!("{} schedule<auto>;", s.kernel.head);
            if let Err(e) = compile(&source) {
                panic!("{source}\n{e}");
            }
        }
    }
    assert!(compiled > 500, "only {compiled} statements compile");
}
