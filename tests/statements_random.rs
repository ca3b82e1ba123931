//! Random statements with random formats and schedules, each checked against a dense evaluation
//! of its own text on the edge-case inputs of `common::cases` and extents where every index
//! differs; and each again, under the default loops, with every input's fill value 1.5 instead
//! of zero (so products unite, sums visit every coordinate, and the fill is what an input reads
//! where it stores nothing).
//!
//! The statements in `statements_random/statements.rs` and `statements_random/operators.rs` (the
//! latter with intrinsics, comparisons, casts and boolean connectives) and
//! `statements_random/scatter.rs` (sparse outputs whose loops do not follow them) are drawn, and kept when
//! they compile, by `SPARSE_BLESS=1 cargo test -p sparse-compiler --test statement_fuzz`. Statements like these
//! found partial sums summed the wrong number of times, producers that lost their loops or read
//! operands no loop iterated, and schedules applied to the wrong producer.
mod common;

use std::collections::BTreeMap;

use common::*;
use sparse::prelude::*;

/// One kernel, its twin under `schedule<auto>`, and a test that runs both on every extent and
/// input case: `$statement`, `$formats` and `$schedule` make the kernel; the output and the
/// inputs, in parameter order, with their indices, make its arguments.
macro_rules! random_statement {
    ($name:ident, [$($statement:tt)*], [$($formats:tt)*], [$($schedule:tt)*],
     $out:ident [$($o:ident),*], [$($t:ident [$($ix:ident),*]),*]) => {
        // Kernels into sparse outputs come with a `_compute` twin, which this test leaves alone.
        #[allow(non_snake_case, dead_code)]
        mod $name {
            use super::*;

            tensor_kernel! { pub fn kernel; $($statement)*; $($formats)* $($schedule)* }
            tensor_kernel! { pub fn auto; $($statement)*; $($formats)* schedule<auto>; }
            // Every input holding FILL where it stores nothing, under the default loops.
            tensor_kernel! { pub fn filled; $($statement)*; $($formats)* fills< $($t: 1.5),* >; }

            #[test]
            fn agrees_with_the_dense_evaluation() {
                let statement = Statement::parse(stringify!($($statement)*));
                for extents in EXTENTS {
                    let ext = |v: &str| extent(&extents, v);
                    for case in 0..CASES {
                        let mut dense = Operands::new();
                        $( let $t = dense.input(stringify!($t), [$(ext(stringify!($ix))),*], case); )*
                        let shape = [$(ext(stringify!($o))),*];
                        let len = shape.iter().product::<usize>();
                        let want = statement.evaluate(&|v| ext(v), &dense);
                        let mut $out = Tensor::from_dense(shape, &vec![INITIAL; len]).unwrap();
                        if let Err(e) = kernel(&mut $out, $(&$t),*) {
                            panic!("listed schedule, {extents:?}, case {case}: {e}");
                        }
                        assert_close(&$out.to_dense(), &want);
                        let mut $out = Tensor::from_dense(shape, &vec![INITIAL; len]).unwrap();
                        if let Err(e) = auto(&mut $out, $(&$t),*) {
                            panic!("schedule<auto>, {extents:?}, case {case}: {e}");
                        }
                        assert_close(&$out.to_dense(), &want);

                        let mut dense = Operands::new();
                        $( let $t = dense.filled(stringify!($t), [$(ext(stringify!($ix))),*], case); )*
                        let want = statement.evaluate(&|v| ext(v), &dense);
                        let mut $out = Tensor::from_dense(shape, &vec![INITIAL; len]).unwrap();
                        if let Err(e) = filled(&mut $out, $(&$t),*) {
                            panic!("inputs of fill {FILL}, {extents:?}, case {case}: {e}");
                        }
                        assert_close(&$out.to_dense(), &want);
                    }
                }
            }
        }
    };
}

include!("statements_random/statements.rs");

/// The statements with operators beyond `+ - *`, in a module of their own (their names repeat).
mod operators {
    use super::*;

    include!("statements_random/operators.rs");
}

/// Statements into sparse outputs whose loops do not follow them: a sum outside the output's
/// loops, loops against its level order, an operand transposed for the row-wise product, `+=`.
mod scatter {
    use super::*;

    include!("statements_random/scatter.rs");
}

/// Extents of `i`, `j` and `k`: empty, single, and sizes where every index differs.
const EXTENTS: [[usize; 3]; 5] = [[0, 0, 0], [1, 1, 1], [4, 3, 2], [5, 4, 3], [7, 2, 5]];

/// Input cases per extent: each input takes a different one of `common::cases` in each.
const CASES: usize = 4;

/// What the output holds before the kernel runs: `=` overwrites it, `+=` adds to it.
const INITIAL: f64 = 7.5;

/// The fill of every input of each statement's `filled` twin (the `fills<...>` it writes).
const FILL: f64 = 1.5;

fn extent(extents: &[usize; 3], var: &str) -> usize {
    match var {
        "i" => extents[0],
        "j" => extents[1],
        "k" => extents[2],
        other => panic!("the statements use i, j and k, not {other}"),
    }
}

/// The dense arrays of the inputs, by tensor name, with their shapes.
struct Operands(BTreeMap<String, (Vec<usize>, Vec<f64>)>);

impl Operands {
    fn new() -> Self {
        Operands(BTreeMap::new())
    }

    /// Input `name` of `shape`, from the case `case` selects for it, in the format the kernel's
    /// parameter asks for.
    fn input<F: Format, const N: usize>(
        &mut self,
        name: &str,
        shape: [usize; N],
        case: usize,
    ) -> Tensor<f64, F> {
        let seed = 17 + self.0.len() as u64;
        let mut all = cases(shape, seed);
        let entries = all.swap_remove((case + self.0.len()) % all.len());
        (self.0).insert(name.to_string(), (shape.to_vec(), dense(shape, &entries)));
        tensor(shape, &entries)
    }

    /// Like [`Operands::input`], the tensor holding [`FILL`] where it stores nothing: the dense
    /// array holds the summed entries where they are not the fill, the fill elsewhere.
    fn filled<F: Format, const N: usize>(
        &mut self,
        name: &str,
        shape: [usize; N],
        case: usize,
    ) -> Tensor<f64, F> {
        let seed = 17 + self.0.len() as u64;
        let mut all = cases(shape, seed);
        let entries = all.swap_remove((case + self.0.len()) % all.len());
        let mut values = vec![FILL; shape.iter().product()];
        let mut stored = vec![false; values.len()];
        for (c, v) in &entries {
            let at = (0..N).fold(0, |o, k| o * shape[k] + c[k]);
            values[at] = if stored[at] { values[at] + v } else { *v };
            stored[at] = true;
        }
        (self.0).insert(name.to_string(), (shape.to_vec(), values));
        Tensor::from_entries_with_fill(shape, entries.iter().copied(), FILL).expect("valid input")
    }
}

/// A right-hand side, parsed from the statement's tokens: a literal, an access, or an operator
/// (`+`, `<`, `&&`, `!`, `-` for negation as `neg`, `as i32`, a function's name) on operands.
enum Node {
    Literal(f64),
    Access(String, Vec<String>),
    Op(String, Vec<Node>),
}

/// `lhs (= | +=) rhs`, evaluated densely. An implicit sum covers the smallest term that `+` and
/// `-` separate and that uses its variable (the kernel language's rule): the sum over `v` is
/// taken at the node that holds every access using `v` while no single child of it does, widened
/// up to the nearest operand of `+` or `-`.
struct Statement {
    lhs: Vec<String>,
    accumulate: bool,
    rhs: Node,
}

impl Statement {
    fn parse(text: &str) -> Statement {
        let tokens = tokenize(text);
        let mut at = 0;
        let Node::Access(_, lhs) = primary(&tokens, &mut at) else {
            panic!("the left-hand side is an access: {text}");
        };
        let accumulate = match tokens[at].as_str() {
            "=" => false,
            "+=" => true,
            other => panic!("`=` or `+=` after the output, not {other}"),
        };
        at += 1;
        let rhs = binary(&tokens, &mut at, 0);
        assert_eq!(at, tokens.len(), "all of {text} parsed");
        Statement {
            lhs,
            accumulate,
            rhs,
        }
    }

    /// The output's dense array, row-major over the left-hand side's indices.
    fn evaluate(&self, extent: &dyn Fn(&str) -> usize, operands: &Operands) -> Vec<f64> {
        let shape: Vec<usize> = self.lhs.iter().map(|v| extent(v)).collect();
        let len = shape.iter().product();
        (0..len)
            .map(|mut flat| {
                let mut env = BTreeMap::new();
                for (v, n) in self.lhs.iter().zip(&shape).rev() {
                    env.insert(v.clone(), flat % n);
                    flat /= n;
                }
                let value = Evaluation {
                    statement: self,
                    extent,
                    operands,
                }
                .value(&self.rhs, &mut env);
                if self.accumulate {
                    INITIAL + value
                } else {
                    value
                }
            })
            .collect()
    }

    /// Whether `node` is where the sum over `v` is taken.
    fn home(&self, node: &Node, v: &str) -> bool {
        self.home_of(v).is_some_and(|home| std::ptr::eq(home, node))
    }

    /// The node the sum over `v` covers: down to the lowest node holding every access using `v`,
    /// then up while its parent is not `+` or `-`.
    fn home_of(&self, v: &str) -> Option<&Node> {
        let total = self.rhs.uses(v);
        if total == 0 {
            return None;
        }
        let mut path = vec![&self.rhs];
        while let Some(child) = path[path.len() - 1]
            .children()
            .iter()
            .find(|c| c.uses(v) == total)
        {
            path.push(child);
        }
        while path.len() > 1
            && !matches!(path[path.len() - 2], Node::Op(op, _) if op == "+" || op == "-")
        {
            path.pop();
        }
        path.pop()
    }
}

/// One evaluation of a statement: its extents and operands.
struct Evaluation<'a> {
    statement: &'a Statement,
    extent: &'a dyn Fn(&str) -> usize,
    operands: &'a Operands,
}

impl Evaluation<'_> {
    fn value(&self, node: &Node, env: &mut BTreeMap<String, usize>) -> f64 {
        // One variable at a time: the others summed here are summed inside, at the same node.
        let summed = ["i", "j", "k"]
            .into_iter()
            .find(|v| !env.contains_key(*v) && self.statement.home(node, v));
        let Some(v) = summed else {
            return self.apply(node, env);
        };
        let mut total = 0.0;
        for x in 0..(self.extent)(v) {
            env.insert(v.to_string(), x);
            total += self.value(node, env);
        }
        env.remove(v);
        total
    }

    fn apply(&self, node: &Node, env: &mut BTreeMap<String, usize>) -> f64 {
        match node {
            Node::Literal(x) => *x,
            Node::Access(t, vars) => {
                let (shape, values) = &self.operands.0[t];
                let at = (vars.iter().zip(shape)).fold(0, |o, (v, n)| o * n + env[v]);
                values[at]
            }
            Node::Op(op, args) => {
                let x: Vec<f64> = args.iter().map(|a| self.value(a, env)).collect();
                operate(op, &x)
            }
        }
    }
}

/// The operator `op` on values, with booleans as 1 and 0 and nonzero as true.
fn operate(op: &str, x: &[f64]) -> f64 {
    let truth = |c: bool| if c { 1.0 } else { 0.0 };
    let (a, b) = (x[0], x.get(1).copied().unwrap_or(0.0));
    match op {
        "neg" => -a,
        "+" => a + b,
        "-" => a - b,
        "*" => a * b,
        "<" => truth(a < b),
        "<=" => truth(a <= b),
        ">" => truth(a > b),
        ">=" => truth(a >= b),
        "==" => truth(a == b),
        "!=" => truth(a != b),
        "&&" => truth(a != 0.0 && b != 0.0),
        "||" => truth(a != 0.0 || b != 0.0),
        "!" => truth(a == 0.0),
        "as i32" => (a as i32) as f64,
        "as bool" => truth(a != 0.0),
        "abs" => a.abs(),
        "square" => a * a,
        "sin" => a.sin(),
        "cos" => a.cos(),
        "atan" => a.atan(),
        "tanh" => a.tanh(),
        "exp" => a.exp(),
        "max" => {
            if a >= b {
                a
            } else {
                b
            }
        }
        "min" => {
            if a <= b {
                a
            } else {
                b
            }
        }
        "atan2" => a.atan2(b),
        "pow" => a.powf(b),
        "heaviside" => {
            if a > 0.0 {
                1.0
            } else if a == 0.0 {
                b
            } else {
                0.0
            }
        }
        other => panic!("the evaluator has no operator {other}"),
    }
}

impl Node {
    /// How many accesses use `v`.
    fn uses(&self, v: &str) -> usize {
        match self {
            Node::Literal(_) => 0,
            Node::Access(_, vars) => usize::from(vars.iter().any(|x| x == v)),
            Node::Op(_, args) => args.iter().map(|a| a.uses(v)).sum(),
        }
    }

    fn children(&self) -> &[Node] {
        match self {
            Node::Op(_, args) => args,
            Node::Literal(_) | Node::Access(..) => &[],
        }
    }
}

fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '+' | '<' | '>' | '=' | '!' if chars.peek() == Some(&'=') => {
                chars.next();
                tokens.push(format!("{c}="));
            }
            '&' | '|' if chars.peek() == Some(&c) => {
                chars.next();
                tokens.push(format!("{c}{c}"));
            }
            c if c.is_alphanumeric() || c == '.' || c == '_' => {
                let mut word = c.to_string();
                while let Some(&n) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '.') {
                    word.push(n);
                    chars.next();
                }
                tokens.push(word);
            }
            c => tokens.push(c.to_string()),
        }
    }
    tokens
}

/// The binary operators, loosest first (Rust's precedence).
const LEVELS: [&[&str]; 5] = [
    &["||"],
    &["&&"],
    &["<", "<=", ">", ">=", "==", "!="],
    &["+", "-"],
    &["*"],
];

/// Operands joined by the operators of `LEVELS[level]` and tighter, folded to the left.
fn binary(tokens: &[String], at: &mut usize, level: usize) -> Node {
    if level == LEVELS.len() {
        return cast(tokens, at);
    }
    let mut node = binary(tokens, at, level + 1);
    while let Some(op) = tokens
        .get(*at)
        .filter(|t| LEVELS[level].contains(&t.as_str()))
    {
        *at += 1;
        let rhs = binary(tokens, at, level + 1);
        node = Node::Op(op.clone(), vec![node, rhs]);
    }
    node
}

fn cast(tokens: &[String], at: &mut usize) -> Node {
    let mut node = unary(tokens, at);
    while tokens.get(*at).is_some_and(|t| t == "as") {
        let ty = &tokens[*at + 1];
        *at += 2;
        node = Node::Op(format!("as {ty}"), vec![node]);
    }
    node
}

fn unary(tokens: &[String], at: &mut usize) -> Node {
    let op = match tokens[*at].as_str() {
        "-" => "neg",
        "!" => "!",
        _ => return primary(tokens, at),
    };
    *at += 1;
    Node::Op(op.to_string(), vec![unary(tokens, at)])
}

fn primary(tokens: &[String], at: &mut usize) -> Node {
    let token = &tokens[*at];
    *at += 1;
    if token == "(" {
        let node = binary(tokens, at, 0);
        assert_eq!(tokens[*at], ")");
        *at += 1;
        return node;
    }
    if let Ok(x) = token.parse::<f64>() {
        return Node::Literal(x);
    }
    if [
        "abs",
        "square",
        "sin",
        "cos",
        "atan",
        "tanh",
        "exp",
        "max",
        "min",
        "atan2",
        "pow",
        "heaviside",
    ]
    .contains(&token.as_str())
    {
        return call(token, tokens, at);
    }
    let mut vars = Vec::new();
    if tokens.get(*at).is_some_and(|t| t == "(") {
        *at += 1;
        while tokens[*at] != ")" {
            if tokens[*at] != "," {
                vars.push(tokens[*at].clone());
            }
            *at += 1;
        }
        *at += 1;
    }
    Node::Access(token.clone(), vars)
}

/// `f(arg, ..)` after the function's name.
fn call(f: &str, tokens: &[String], at: &mut usize) -> Node {
    assert_eq!(tokens[*at], "(", "a call of {f}");
    *at += 1;
    let mut args = vec![binary(tokens, at, 0)];
    while tokens[*at] == "," {
        *at += 1;
        args.push(binary(tokens, at, 0));
    }
    assert_eq!(tokens[*at], ")");
    *at += 1;
    Node::Op(f.to_string(), args)
}

/// The evaluator itself, on values worked out by hand: `b(i) - A(i,j)*x(j)` sums only the product
/// over `j`; in `a = B(i,j) - D(j)` the sum over `i` covers `B` alone, and the one over `j` both.
#[test]
fn the_evaluation_places_sums_on_the_smallest_term() {
    let mut operands = Operands::new();
    let put = |o: &mut Operands, name: &str, shape: Vec<usize>, values: Vec<f64>| {
        o.0.insert(name.to_string(), (shape, values));
    };
    put(&mut operands, "b", vec![2], vec![10.0, 20.0]);
    put(
        &mut operands,
        "A",
        vec![2, 3],
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    );
    put(&mut operands, "x", vec![3], vec![1.0, 0.0, -1.0]);
    let extent = |v: &str| if v == "i" { 2 } else { 3 };
    let residual = Statement::parse("r(i) = b(i) - A(i,j) * x(j)");
    // Row 0: 10 - (1 - 3) = 12; row 1: 20 - (4 - 6) = 22.
    assert_eq!(residual.evaluate(&extent, &operands), vec![12.0, 22.0]);
    put(
        &mut operands,
        "B",
        vec![2, 3],
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    );
    put(&mut operands, "D", vec![3], vec![1.0, 1.0, 1.0]);
    let partial = Statement::parse("a = B(i,j) - D(j)");
    // sum_j (sum_i B(i,j) - D(j)) = (5 - 1) + (7 - 1) + (9 - 1) = 18.
    assert_eq!(partial.evaluate(&extent, &operands), vec![18.0]);
    let accumulated = Statement::parse("a += (B(i,j) - D(j)) * 2");
    // The same sums, doubled and added to what the output held: 7.5 + 2 * 18 = 43.5.
    assert_eq!(accumulated.evaluate(&extent, &operands), vec![43.5]);
    // A call is part of its term: sum_j b(i) * x(j)^2 = 2 b(i), not b(i) * (sum_j x(j))^2 = 0.
    let squares = Statement::parse("r(i) = b(i) * square(x(j))");
    assert_eq!(squares.evaluate(&extent, &operands), vec![20.0, 40.0]);
    // A comparison too, and `+` separates it from `b(i)`: b(i) + (one x(j) above 0).
    let count = Statement::parse("r(i) = b(i) + (x(j) > 0)");
    assert_eq!(count.evaluate(&extent, &operands), vec![11.0, 21.0]);
    // Rust's precedence: `!` before `as`, `as` before `*`, `*` before `<`, `<` before `&&`.
    let mixed = Statement::parse("r(i) = !x(j) as i32 * 2 < b(i) && max(b(i), 15) > 12");
    // Per i, summed over j: (!x(j) * 2 < b(i)) && max(b(i), 15) > 12: 3 and 3.
    assert_eq!(mixed.evaluate(&extent, &operands), vec![3.0, 3.0]);
}
