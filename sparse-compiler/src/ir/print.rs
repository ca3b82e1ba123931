//! A readable text form of the IR, for golden tests and the code viewer: C-like, one statement per
//! line, four spaces per block, deterministic (nothing depends on addresses or hash order).
//!
//! ```text
//! kernel spmv(out y: Dense<1>, A: Csr, x: Dense<1>) {
//!     extent i: y.shape[0] == A.shape[0];
//!     extent j: A.shape[1] == x.shape[0];
//!     for __i in 0..y.shape[0] {
//!         let mut __t: value = T(0);
//!         for __p in A.l1.pos[__i]..A.l1.pos[__i + 1] {
//!             __t += A.vals[__p] * x.vals[A.l1.crd[__p]];
//!         }
//!         y.vals[__i] = __t;
//!     }
//! }
//! ```
//!
//! Arrays are named after their tensor (`A.l1.pos` is `pos` of level 1 of `A`); value literals are
//! written `T(..)` to tell them from index literals; `A: Csc as Csr` is an input the kernel reads
//! through a converted copy; `extent` lines are the shape checks (every
//! listed dimension must be equal); other level arrays print by their name (`A.l1.offsets`,
//! `x.l0.present`), signed literals end in `i` (`0i`) and casts read `e as signed` / `e as index`;
//! assembly statements and queries are calls (`append(C.l1, __j);`, `appended_len(C.l1)`), and so
//! is the binary search `count_up_to(A.l1.pos, __p)`; scheduled loops read
//! `parallel(exclusive) for`, `parallel(atomic) for` and `vector for`.
//! Parentheses follow C precedence, with `?:` for [`Expr::Select`]. A malformed kernel still
//! prints (a missing parameter shows as `#7`), since looking at a broken IR is what the printer
//! is for.

use super::{
    Array, BinOp, Expr, Kernel, Literal, ParallelWrites, ShapeCheck, Stmt, TempType, Type,
};
use crate::format::{FormatType, LevelSpec, level_of};

/// The kernel as text.
pub fn print_kernel(kernel: &Kernel) -> String {
    let mut printer = Printer {
        kernel,
        out: String::new(),
        depth: 0,
    };
    printer.kernel();
    printer.out
}

struct Printer<'k> {
    kernel: &'k Kernel,
    out: String,
    depth: usize,
}

impl Printer<'_> {
    fn kernel(&mut self) {
        let params: Vec<String> = self
            .kernel
            .params
            .iter()
            .map(|p| {
                let out = if p.output { "out " } else { "" };
                let converted = match &p.convert_to {
                    Some(format) => format!(" as {}", format_type(format)),
                    None => String::new(),
                };
                format!("{out}{}: {}{converted}", p.name, format_type(&p.format))
            })
            .collect();
        self.out.push_str(&format!(
            "kernel {}({}) {{\n",
            self.kernel.name,
            params.join(", ")
        ));
        self.depth = 1;
        for check in &self.kernel.shape_checks {
            let line = self.shape_check(check);
            self.line(&line);
        }
        self.stmts(&self.kernel.body);
        self.out.push_str("}\n");
    }

    fn shape_check(&self, check: &ShapeCheck) -> String {
        let dims: Vec<String> = check
            .dims
            .iter()
            .map(|&(param, dim)| format!("{}.shape[{dim}]", self.param(param)))
            .collect();
        format!("extent {}: {};", check.index, dims.join(" == "))
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn block(&mut self, head: &str, body: &[Stmt]) {
        self.line(&format!("{head} {{"));
        self.depth += 1;
        self.stmts(body);
        self.depth -= 1;
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let {
                var,
                ty,
                init,
                mutable,
            } => {
                let mutability = if *mutable { "mut " } else { "" };
                let line = format!(
                    "let {mutability}{}: {} = {};",
                    var.0,
                    type_name(*ty),
                    self.expr(init)
                );
                self.line(&line);
            }
            Stmt::Assign {
                var,
                value,
                accumulate,
            } => {
                let line = format!("{} {} {};", var.0, assign_op(*accumulate), self.expr(value));
                self.line(&line);
            }
            Stmt::Store {
                array,
                index,
                value,
                accumulate,
            } => {
                let line = format!(
                    "{}[{}] {} {};",
                    self.array(array),
                    self.expr(index),
                    assign_op(*accumulate),
                    self.expr(value)
                );
                self.line(&line);
            }
            Stmt::Workspace { var, ty, len } => {
                let ty = match ty {
                    TempType::Value => "value",
                    TempType::Index => "index",
                    TempType::Bool => "bool",
                };
                let line = format!("workspace {}: {ty}[{}];", var.0, self.expr(len));
                self.line(&line);
            }
            Stmt::SortPrefix { array, len } => {
                let line = format!("sort({}[0..{}]);", array.0, self.expr(len));
                self.line(&line);
            }
            Stmt::For { var, lo, hi, body } => {
                let head = format!("for {} in {}..{}", var.0, self.expr(lo), self.expr(hi));
                self.block(&head, body);
                self.line("}");
            }
            Stmt::ParallelFor {
                var,
                lo,
                hi,
                body,
                writes,
            } => {
                let how = match writes {
                    ParallelWrites::Atomic => "atomic".to_string(),
                    ParallelWrites::Exclusive => "exclusive".to_string(),
                    ParallelWrites::Partials => "partials".to_string(),
                    ParallelWrites::Rows { chunk } => format!("rows of {}", self.expr(chunk)),
                    ParallelWrites::AssembleRows { level } => {
                        format!("assembling l{level} by rows")
                    }
                };
                let head = format!(
                    "parallel({how}) for {} in {}..{}",
                    var.0,
                    self.expr(lo),
                    self.expr(hi)
                );
                self.block(&head, body);
                self.line("}");
            }
            Stmt::VectorFor { var, lo, hi, body } => {
                let head = format!(
                    "vector for {} in {}..{}",
                    var.0,
                    self.expr(lo),
                    self.expr(hi)
                );
                self.block(&head, body);
                self.line("}");
            }
            Stmt::While { cond, body } => {
                let head = format!("while {}", self.expr(cond));
                self.block(&head, body);
                self.line("}");
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => self.if_chain(cond, then, otherwise),
            Stmt::ZeroOutput { parallel } => {
                let how = if *parallel {
                    "zero_in_parallel"
                } else {
                    "zero"
                };
                let line = format!("{how}({}.vals);", self.param(0));
                self.line(&line);
            }
            Stmt::CopyStructure { from } => {
                let line = format!("copy_structure({}, {});", self.param(0), self.param(*from));
                self.line(&line);
            }
            Stmt::BeginAssembly => {
                let line = format!("begin_assembly({});", self.param(0));
                self.line(&line);
            }
            Stmt::Append { level, coord } => {
                let line = format!("append({}.l{level}, {});", self.param(0), self.expr(coord));
                self.line(&line);
            }
            Stmt::AppendValue(value) => {
                let line = format!("append_value({}, {});", self.param(0), self.expr(value));
                self.line(&line);
            }
            Stmt::FinishSegment { level, parent } => {
                let line = format!(
                    "finish_segment({}.l{level}, {});",
                    self.param(0),
                    self.expr(parent)
                );
                self.line(&line);
            }
            Stmt::EndAssembly => {
                let line = format!("end_assembly({});", self.param(0));
                self.line(&line);
            }
            Stmt::BeginEntries => {
                let line = format!("begin_entries({});", self.param(0));
                self.line(&line);
            }
            Stmt::AppendEntry { coords, value } => {
                let coords: Vec<String> = coords.iter().map(|c| self.expr(c)).collect();
                let line = format!(
                    "push_entry({}, [{}], {});",
                    self.param(0),
                    coords.join(", "),
                    self.expr(value)
                );
                self.line(&line);
            }
            Stmt::EndEntries => {
                let line = format!("end_entries({});", self.param(0));
                self.line(&line);
            }
            Stmt::FailStructureMismatch => self.line("fail(structure mismatch);"),
            Stmt::Prefetch { array, from } => {
                let line = format!("prefetch({}, {});", self.array(array), self.expr(from));
                self.line(&line);
            }
            Stmt::PrefetchGather {
                array,
                crd,
                at,
                offset,
                stride,
            } => {
                let (array, crd) = (self.array(array), self.array(crd));
                let (at, stride) = (self.expr(at), self.expr(stride));
                let offset = match offset {
                    Expr::Index(0) => String::new(),
                    offset => format!("{} + ", self.expr(offset)),
                };
                self.line(&format!(
                    "prefetch_gather({array}, {offset}{crd}[{at}] * {stride});"
                ));
            }
            Stmt::CheckBound {
                index,
                extent,
                bound,
                exact,
            } => {
                let op = if *exact { "==" } else { "<=" };
                let line = format!("check_bound({index}: {} {op} {bound});", self.expr(extent));
                self.line(&line);
            }
        }
    }

    /// `if`, with an `else` holding only another `if` printed as `} else if`.
    fn if_chain(&mut self, cond: &Expr, then: &[Stmt], otherwise: &[Stmt]) {
        let head = format!("if {}", self.expr(cond));
        self.block(&head, then);
        let mut otherwise = otherwise;
        while let [
            Stmt::If {
                cond,
                then,
                otherwise: rest,
            },
        ] = otherwise
        {
            let head = format!("}} else if {}", self.expr(cond));
            self.block(&head, then);
            otherwise = rest;
        }
        if !otherwise.is_empty() {
            self.block("} else", otherwise);
        }
        self.line("}");
    }

    fn param(&self, param: usize) -> String {
        match self.kernel.params.get(param) {
            Some(p) => p.name.clone(),
            None => format!("#{param}"),
        }
    }

    fn array(&self, array: &Array) -> String {
        match array {
            Array::Pos { param, level } => format!("{}.l{level}.pos", self.param(*param)),
            Array::Crd { param, level } => format!("{}.l{level}.crd", self.param(*param)),
            Array::Level {
                param, level, name, ..
            } => format!("{}.l{level}.{name}", self.param(*param)),
            Array::Vals { param } => format!("{}.vals", self.param(*param)),
            Array::Temp(var) => var.0.clone(),
        }
    }

    fn expr(&self, expr: &Expr) -> String {
        self.operand(expr).0
    }

    /// The text of `expr` and its precedence.
    fn operand(&self, expr: &Expr) -> (String, Prec) {
        match expr {
            Expr::Var(var) => (var.0.clone(), Prec::Postfix),
            Expr::Index(n) => (n.to_string(), Prec::Postfix),
            Expr::Value(Literal::Int(n)) => (format!("T({n})"), Prec::Postfix),
            Expr::Value(Literal::Float(f)) => (format!("T({f:?})"), Prec::Postfix),
            Expr::Bool(b) => (b.to_string(), Prec::Postfix),
            Expr::CountUpTo { array, target } => (
                format!("count_up_to({}, {})", self.array(array), self.expr(target)),
                Prec::Postfix,
            ),
            Expr::Load(array, index) => (
                format!("{}[{}]", self.array(array), self.expr(index)),
                Prec::Postfix,
            ),
            Expr::Dim { param, dim } => (
                format!("{}.shape[{dim}]", self.param(*param)),
                Prec::Postfix,
            ),
            Expr::LevelSize { param, level } => (
                format!("{}.l{level}.size", self.param(*param)),
                Prec::Postfix,
            ),
            Expr::Len(array) => (format!("len({})", self.array(array)), Prec::Postfix),
            Expr::AppendedLen { level } => (
                format!("appended_len({}.l{level})", self.param(0)),
                Prec::Postfix,
            ),
            Expr::Binary(op, a, b) => self.binary(*op, a, b),
            Expr::Neg(a) => (format!("-{}", self.at(a, Prec::Unary)), Prec::Unary),
            Expr::Not(a) => (format!("!{}", self.at(a, Prec::Unary)), Prec::Unary),
            Expr::Signed(n) => (format!("{n}i"), Prec::Postfix),
            Expr::Cast(ty, a) => (
                format!("{} as {}", self.at(a, Prec::Cast), type_name(*ty)),
                Prec::Cast,
            ),
            Expr::Select(c, a, b) => (
                format!(
                    "{} ? {} : {}",
                    self.at(c, Prec::Or),
                    self.at(a, Prec::Or),
                    self.at(b, Prec::Select)
                ),
                Prec::Select,
            ),
        }
    }

    /// `expr`, parenthesized unless it binds at least as tightly as `min`.
    fn at(&self, expr: &Expr, min: Prec) -> String {
        let (text, prec) = self.operand(expr);
        if prec < min {
            format!("({text})")
        } else {
            text
        }
    }

    fn binary(&self, op: BinOp, a: &Expr, b: &Expr) -> (String, Prec) {
        let (symbol, prec) = match op {
            BinOp::Min | BinOp::Max => {
                let f = if op == BinOp::Min { "min" } else { "max" };
                return (
                    format!("{f}({}, {})", self.expr(a), self.expr(b)),
                    Prec::Postfix,
                );
            }
            BinOp::Add => ("+", Prec::Sum),
            BinOp::Sub => ("-", Prec::Sum),
            BinOp::Mul => ("*", Prec::Product),
            BinOp::Div | BinOp::Quotient => ("/", Prec::Product),
            BinOp::Lt => ("<", Prec::Compare),
            BinOp::Le => ("<=", Prec::Compare),
            BinOp::Eq => ("==", Prec::Compare),
            BinOp::Ne => ("!=", Prec::Compare),
            BinOp::And => ("&&", Prec::And),
            BinOp::Or => ("||", Prec::Or),
        };
        // Left-associative, and comparisons never chain: a comparison operand of a comparison
        // is parenthesized.
        let left = if prec == Prec::Compare {
            Prec::Sum
        } else {
            prec
        };
        let right = prec.tighter();
        let text = format!("{} {symbol} {}", self.at(a, left), self.at(b, right));
        (text, prec)
    }
}

/// C operator precedence, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Select,
    Or,
    And,
    Compare,
    Sum,
    Product,
    Cast,
    Unary,
    Postfix,
}

impl Prec {
    fn tighter(self) -> Prec {
        match self {
            Prec::Select => Prec::Or,
            Prec::Or => Prec::And,
            Prec::And => Prec::Compare,
            Prec::Compare => Prec::Sum,
            Prec::Sum => Prec::Product,
            Prec::Product => Prec::Cast,
            Prec::Cast => Prec::Unary,
            Prec::Unary | Prec::Postfix => Prec::Postfix,
        }
    }
}

fn assign_op(accumulate: bool) -> &'static str {
    if accumulate { "+=" } else { "=" }
}

fn type_name(ty: Type) -> &'static str {
    match ty {
        Type::Index => "index",
        Type::Signed => "signed",
        Type::Value => "value",
        Type::Bool => "bool",
    }
}

/// `Csr`, `Bcsr<4, 4>`, or `custom[dense(d1), compressed(d0, unordered)]`.
fn format_type(format: &FormatType) -> String {
    match format {
        FormatType::Named {
            type_name,
            type_args,
        } if type_args.is_empty() => (*type_name).to_string(),
        FormatType::Named {
            type_name,
            type_args,
        } => {
            let args: Vec<String> = type_args.iter().map(usize::to_string).collect();
            format!("{type_name}<{}>", args.join(", "))
        }
        FormatType::Custom(levels) => {
            let levels: Vec<String> = levels.iter().map(level_spec).collect();
            format!("custom[{}]", levels.join(", "))
        }
    }
}

fn level_spec(spec: &LevelSpec) -> String {
    let mut parts = vec![match spec.coord.dim() {
        Some(d) => format!("d{d}"),
        None => "slot".to_string(),
    }];
    let default_ordered = level_of(spec).can_be_ordered();
    if spec.ordered != default_ordered {
        parts.push(if spec.ordered { "ordered" } else { "unordered" }.to_string());
    }
    if !spec.unique {
        parts.push("nonunique".to_string());
    }
    format!("{}({})", spec.kind.name(), parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Param, Var};

    fn var(name: &str) -> Expr {
        Expr::Var(Var(name.to_string()))
    }

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    fn load(array: Array, index: Expr) -> Expr {
        Expr::Load(array, Box::new(index))
    }

    fn kernel(body: Vec<Stmt>) -> Kernel {
        let param = |name: &str, output, order, type_name, type_args: &[usize]| Param {
            name: name.to_string(),
            output,
            order,
            format: FormatType::Named {
                type_name,
                type_args: type_args.to_vec(),
            },
            convert_to: None,
        };
        Kernel {
            name: "spmv".into(),
            params: vec![
                param("y", true, 1, "Dense", &[1]),
                param("A", false, 2, "Csr", &[]),
                param("x", false, 1, "Dense", &[1]),
            ],
            shape_checks: vec![
                ShapeCheck {
                    index: "i".into(),
                    dims: vec![(0, 0), (1, 0)],
                },
                ShapeCheck {
                    index: "j".into(),
                    dims: vec![(1, 1), (2, 0)],
                },
            ],
            body,
        }
    }

    #[test]
    fn spmv_prints_as_in_the_module_docs() {
        let pos = || Array::Pos { param: 1, level: 1 };
        let body = vec![Stmt::For {
            var: Var("__i".into()),
            lo: Expr::Index(0),
            hi: Expr::Dim { param: 0, dim: 0 },
            body: vec![
                Stmt::Let {
                    var: Var("__t".into()),
                    ty: Type::Value,
                    init: Expr::Value(Literal::Int(0)),
                    mutable: true,
                },
                Stmt::For {
                    var: Var("__p".into()),
                    lo: load(pos(), var("__i")),
                    hi: load(pos(), bin(BinOp::Add, var("__i"), Expr::Index(1))),
                    body: vec![Stmt::Assign {
                        var: Var("__t".into()),
                        value: bin(
                            BinOp::Mul,
                            load(Array::Vals { param: 1 }, var("__p")),
                            load(
                                Array::Vals { param: 2 },
                                load(Array::Crd { param: 1, level: 1 }, var("__p")),
                            ),
                        ),
                        accumulate: true,
                    }],
                },
                Stmt::Store {
                    array: Array::Vals { param: 0 },
                    index: var("__i"),
                    value: var("__t"),
                    accumulate: false,
                },
            ],
        }];
        let expected = "\
kernel spmv(out y: Dense<1>, A: Csr, x: Dense<1>) {
    extent i: y.shape[0] == A.shape[0];
    extent j: A.shape[1] == x.shape[0];
    for __i in 0..y.shape[0] {
        let mut __t: value = T(0);
        for __p in A.l1.pos[__i]..A.l1.pos[__i + 1] {
            __t += A.vals[__p] * x.vals[A.l1.crd[__p]];
        }
        y.vals[__i] = __t;
    }
}
";
        assert_eq!(print_kernel(&kernel(body)), expected);
    }

    #[test]
    fn every_statement_form_prints_on_its_own_line() {
        let w = Var("__w".into());
        let body = vec![
            Stmt::Workspace {
                var: w.clone(),
                ty: TempType::Index,
                len: Expr::Len(Array::Crd { param: 1, level: 1 }),
            },
            Stmt::SortPrefix {
                array: w.clone(),
                len: Expr::Index(3),
            },
            Stmt::ZeroOutput { parallel: false },
            Stmt::BeginAssembly,
            Stmt::While {
                cond: Expr::Not(Box::new(Expr::Bool(false))),
                body: vec![
                    Stmt::Append {
                        level: 1,
                        coord: load(Array::Temp(w), Expr::Index(0)),
                    },
                    Stmt::AppendValue(Expr::Neg(Box::new(Expr::Value(Literal::Float(2.5))))),
                    Stmt::Assign {
                        var: Var("__n".into()),
                        value: Expr::AppendedLen { level: 1 },
                        accumulate: false,
                    },
                ],
            },
            Stmt::If {
                cond: var("__a"),
                then: vec![Stmt::FinishSegment {
                    level: 1,
                    parent: Expr::LevelSize { param: 1, level: 0 },
                }],
                otherwise: vec![Stmt::If {
                    cond: var("__b"),
                    then: vec![],
                    otherwise: vec![Stmt::EndAssembly],
                }],
            },
        ];
        let text = print_kernel(&kernel(body));
        let expected = "
    workspace __w: index[len(A.l1.crd)];
    sort(__w[0..3]);
    zero(y.vals);
    begin_assembly(y);
    while !false {
        append(y.l1, __w[0]);
        append_value(y, -T(2.5));
        __n = appended_len(y.l1);
    }
    if __a {
        finish_segment(y.l1, A.l0.size);
    } else if __b {
    } else {
        end_assembly(y);
    }
}
";
        assert!(text.ends_with(expected), "{text}");
    }

    #[test]
    fn parentheses_follow_precedence() {
        let (a, b, c) = (var("a"), var("b"), var("c"));
        let offset = || {
            let offsets = Array::Level {
                param: 1,
                level: 1,
                name: "offsets",
                elem: Type::Signed,
            };
            load(offsets, var("d"))
        };
        let signed = |e: Expr| Expr::Cast(Type::Signed, Box::new(e));
        let cases = [
            (
                bin(BinOp::Mul, bin(BinOp::Add, a.clone(), b.clone()), c.clone()),
                "(a + b) * c",
            ),
            (
                bin(BinOp::Sub, a.clone(), bin(BinOp::Sub, b.clone(), c.clone())),
                "a - (b - c)",
            ),
            (
                bin(BinOp::Sub, bin(BinOp::Sub, a.clone(), b.clone()), c.clone()),
                "a - b - c",
            ),
            (
                bin(BinOp::Eq, bin(BinOp::Lt, a.clone(), b.clone()), c.clone()),
                "(a < b) == c",
            ),
            (
                bin(
                    BinOp::Or,
                    bin(BinOp::And, a.clone(), b.clone()),
                    bin(BinOp::Min, a.clone(), c.clone()),
                ),
                "a && b || min(a, c)",
            ),
            (
                Expr::Select(
                    Box::new(a.clone()),
                    Box::new(b.clone()),
                    Box::new(Expr::Select(Box::new(c.clone()), Box::new(a), Box::new(b))),
                ),
                "a ? b : c ? a : b",
            ),
            (
                Expr::Cast(
                    Type::Index,
                    Box::new(bin(BinOp::Add, signed(c.clone()), offset())),
                ),
                "(c as signed + A.l1.offsets[d]) as index",
            ),
            (
                bin(
                    BinOp::Min,
                    bin(BinOp::Sub, signed(Expr::Dim { param: 9, dim: 1 }), offset()),
                    bin(BinOp::Max, Expr::Neg(Box::new(c)), Expr::Signed(-1)),
                ),
                "min(#9.shape[1] as signed - A.l1.offsets[d], max(-c, -1i))",
            ),
        ];
        let printer = Printer {
            kernel: &kernel(vec![]),
            out: String::new(),
            depth: 0,
        };
        for (expr, expected) in cases {
            assert_eq!(printer.expr(&expr), expected);
        }
    }

    #[test]
    fn scheduled_loops_and_searches_are_marked() {
        let lo = || Expr::Index(0);
        let hi = || Expr::Dim { param: 0, dim: 0 };
        let search = Expr::CountUpTo {
            array: Array::Pos { param: 1, level: 1 },
            target: Box::new(var("__p")),
        };
        let body = vec![
            Stmt::ParallelFor {
                var: Var("__i".into()),
                lo: lo(),
                hi: hi(),
                body: vec![],
                writes: ParallelWrites::Atomic,
            },
            Stmt::ParallelFor {
                var: Var("__k".into()),
                lo: lo(),
                hi: search,
                body: vec![],
                writes: ParallelWrites::Exclusive,
            },
            Stmt::VectorFor {
                var: Var("__j".into()),
                lo: lo(),
                hi: hi(),
                body: vec![],
            },
        ];
        let text = print_kernel(&kernel(body));
        let expected = "
    parallel(atomic) for __i in 0..y.shape[0] {
    }
    parallel(exclusive) for __k in 0..count_up_to(A.l1.pos, __p) {
    }
    vector for __j in 0..y.shape[0] {
    }
}
";
        assert!(text.ends_with(expected), "{text}");
    }

    #[test]
    fn converted_inputs_show_both_formats() {
        let mut k = kernel(vec![]);
        k.params[1].convert_to = Some(FormatType::Named {
            type_name: "Csc",
            type_args: vec![],
        });
        assert!(print_kernel(&k).starts_with("kernel spmv(out y: Dense<1>, A: Csr as Csc, x: "));
    }

    #[test]
    fn custom_formats_list_their_levels() {
        let format = FormatType::Custom(vec![
            LevelSpec::dense(1),
            LevelSpec::compressed(0).unordered().non_unique(),
            LevelSpec::hashed(2),
        ]);
        assert_eq!(
            format_type(&format),
            "custom[dense(d1), compressed(d0, unordered, nonunique), hashed(d2)]"
        );
    }
}
