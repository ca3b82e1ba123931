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
    Array, BinOp, Expr, HostStep, Kernel, Literal, OutputAccess, Place, ReduceOp, Region, Scope,
    ShapeCheck, Space, Stmt, Sync, TempType, Type, Unit, UpdateOp,
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
        let params: Vec<String> = (self.kernel.signature.iter())
            .map(|&k| &self.kernel.params[k])
            .map(|p| {
                if p.by_value {
                    return format!("{}: T", p.name);
                }
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
        for p in &self.kernel.params {
            if let (Some(source), Some(format)) = (p.copy_of, &p.convert_to) {
                let source = &self.kernel.params[source].name;
                let line = format!(
                    "local {}: copy of {source} as {};",
                    p.name,
                    format_type(format)
                );
                self.line(&line);
            }
        }
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
            Stmt::Update { .. } | Stmt::Workspace { .. } => {
                let line = self.write(stmt);
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
            Stmt::RowDots {
                op,
                vals,
                crd,
                weights,
                pos,
                rows,
            } => {
                let assign = if *op == UpdateOp::Set { "=" } else { "+=" };
                let line = format!(
                    "{}[{}..{}] {assign} dots({}, {}[{}], {});",
                    self.array(&Array::Vals { param: 0 }),
                    self.expr(&rows.0),
                    self.expr(&rows.1),
                    self.array(weights),
                    self.array(vals),
                    self.array(crd),
                    self.array(pos),
                );
                self.line(&line);
            }
            Stmt::RowAxpys {
                width,
                vals,
                crd,
                weights,
                pos,
                at,
                out_at,
                rows,
                ahead,
            } => {
                let hint = if *ahead > 0 {
                    format!(", ahead {ahead}")
                } else {
                    String::new()
                };
                let line = format!(
                    "{}[r * {} + {}, 0..{width}] = axpys({}, {}[{}[p] * {} + {}], {}, r in {}..{}{hint});",
                    self.array(&Array::Vals { param: 0 }),
                    self.expr(&out_at.0),
                    self.expr(&out_at.1),
                    self.array(weights),
                    self.array(vals),
                    self.array(crd),
                    self.expr(&at.0),
                    self.expr(&at.1),
                    self.array(pos),
                    self.expr(&rows.0),
                    self.expr(&rows.1),
                );
                self.line(&line);
            }
            Stmt::GatherAxpy {
                acc,
                width,
                vals,
                crd,
                weights,
                stride,
                offset,
                range,
                ahead,
            } => {
                let hint = if *ahead > 0 {
                    format!(", ahead {ahead}")
                } else {
                    String::new()
                };
                let line = format!(
                    "{}[0..{width}] += axpy({}, {}[{}[p] * {} + {}], {}..{}{hint});",
                    acc.0,
                    self.array(weights),
                    self.array(vals),
                    self.array(crd),
                    self.expr(stride),
                    self.expr(offset),
                    self.expr(&range.0),
                    self.expr(&range.1),
                );
                self.line(&line);
            }
            Stmt::Tile { var, width, body } => {
                let head = format!("tile {} in 0..{width}", var.0);
                self.block(&head, body);
                self.line("}");
            }
            Stmt::Parallel(region) => {
                let head = self.region_head(region);
                self.block(&head, &region.body);
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
            Stmt::Host(step) => {
                let line = self.host(step);
                self.line(&line);
            }
            Stmt::Append { .. }
            | Stmt::AppendValue(_)
            | Stmt::FinishSegment { .. }
            | Stmt::CountEntry
            | Stmt::CloseRow { .. }
            | Stmt::FillCoord(_)
            | Stmt::FillValue(_)
            | Stmt::AppendEntry { .. } => {
                let line = self.assembly(stmt);
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
        }
    }

    /// An update or a workspace declaration.
    fn write(&self, stmt: &Stmt) -> String {
        match stmt {
            Stmt::Update {
                place,
                op,
                value,
                sync,
            } => {
                let place = match place {
                    Place::Var(var) => var.0.clone(),
                    Place::Elem(array, index) => {
                        format!("{}[{}]", self.array(array), self.expr(index))
                    }
                };
                let sync = match sync {
                    Sync::Owned => "",
                    Sync::Atomic => "atomic ",
                };
                format!("{sync}{place} {} {};", update_op(*op), self.expr(value))
            }
            Stmt::Workspace {
                var,
                ty,
                len,
                init,
                space,
            } => {
                let ty = match ty {
                    TempType::Value => "value",
                    TempType::Index => "index",
                    TempType::Bool => "bool",
                };
                let space = match space {
                    Space::Local => "",
                    Space::Shared => "shared ",
                };
                format!(
                    "{space}workspace {}: {ty}[{}] = {};",
                    var.0,
                    self.expr(len),
                    self.expr(init)
                )
            }
            other => format!("{other:?}"),
        }
    }

    /// A statement that builds the output.
    fn assembly(&self, stmt: &Stmt) -> String {
        match stmt {
            Stmt::Append { level, coord } => {
                format!("append({}.l{level}, {});", self.param(0), self.expr(coord))
            }
            Stmt::AppendValue(value) => {
                format!("append_value({}, {});", self.param(0), self.expr(value))
            }
            Stmt::FinishSegment { level, parent } => {
                format!(
                    "finish_segment({}.l{level}, {});",
                    self.param(0),
                    self.expr(parent)
                )
            }
            Stmt::CountEntry => "count_entry;".to_string(),
            Stmt::CloseRow { parent } => {
                format!("close_row({});", self.expr(parent))
            }
            Stmt::FillCoord(coord) => {
                format!("fill_coord({});", self.expr(coord))
            }
            Stmt::FillValue(value) => {
                format!("fill_value({});", self.expr(value))
            }
            Stmt::AppendEntry { coords, value } => {
                let coords: Vec<String> = coords.iter().map(|c| self.expr(c)).collect();
                format!(
                    "push_entry({}, [{}], {});",
                    self.param(0),
                    coords.join(", "),
                    self.expr(value)
                )
            }
            other => format!("{other:?}"),
        }
    }

    /// `parallel(UNIT, OUTPUT[, reduce OP VAR over SCOPE][, serial below work W]) for v in lo..hi`.
    fn region_head(&self, region: &Region) -> String {
        let unit = match region.unit {
            Unit::CpuThread => "threads",
            Unit::CpuVector => "lanes",
            Unit::GpuBlock => "blocks",
            Unit::GpuWarp => "warps",
            Unit::GpuThread => "gpu threads",
        };
        let mut how = vec![unit.to_string()];
        match &region.output {
            OutputAccess::Untouched => {}
            OutputAccess::Blocks { chunk, balance } => {
                how.push(format!("owns blocks of {}", self.expr(chunk)));
                if let Some((pos, rows)) = balance {
                    how.push(format!("balanced by {} every {rows} rows", self.array(pos)));
                }
            }
            OutputAccess::Scattered => how.push("shared".into()),
            OutputAccess::Runs { pos, start } => how.push(format!(
                "shared, own rows of {} from {}",
                self.array(pos),
                self.expr(start)
            )),
            OutputAccess::Reduced { op, scope } => {
                how.push(format!(
                    "reduced {} over {}",
                    reduce_op(*op),
                    scope_name(*scope)
                ));
            }
            OutputAccess::AppendRows { level } => how.push(format!("appends rows of l{level}")),
            OutputAccess::AppendParts => how.push("appends parts".into()),
            OutputAccess::EntryParts => how.push("pushes entry parts".into()),
            OutputAccess::CountRows { level } => how.push(format!("counts rows of l{level}")),
            OutputAccess::FillRows { level } => how.push(format!("fills rows of l{level}")),
        }
        for r in &region.reductions {
            how.push(format!(
                "reduce {} {} over {}",
                reduce_op(r.op),
                r.var.0,
                scope_name(r.scope)
            ));
        }
        if let Some(work) = &region.work {
            how.push(format!("serial below work {}", self.expr(work)));
        }
        format!(
            "parallel({}) for {} in {}..{}",
            how.join(", "),
            region.var.0,
            self.expr(&region.lo),
            self.expr(&region.hi)
        )
    }

    fn host(&self, step: &HostStep) -> String {
        let out = self.param(0);
        match step {
            HostStep::ZeroOutput { parallel: true } => format!("zero_in_parallel({out}.vals);"),
            HostStep::ZeroOutput { parallel: false } => format!("zero({out}.vals);"),
            HostStep::FillOutput {
                value,
                parallel: true,
            } => format!(
                "fill_in_parallel({out}.vals, {});",
                self.expr(&Expr::Value(*value))
            ),
            HostStep::FillOutput {
                value,
                parallel: false,
            } => format!("fill({out}.vals, {});", self.expr(&Expr::Value(*value))),
            HostStep::CopyStructure { from } => {
                format!("copy_structure({out}, {});", self.param(*from))
            }
            HostStep::CheckBound {
                index,
                extent,
                bound,
                exact,
            } => {
                let op = if *exact { "==" } else { "<=" };
                format!("check_bound({index}: {} {op} {bound});", self.expr(extent))
            }
            HostStep::BeginAssembly => format!("begin_assembly({out});"),
            HostStep::LayoutRows { level } => format!("layout_rows({out}.l{level});"),
            HostStep::EndAssembly => format!("end_assembly({out});"),
            HostStep::BeginEntries { merge: false } => {
                format!("begin_entries({out}); // scatter assembly: triples, sorted and summed")
            }
            HostStep::BeginEntries { merge: true } => format!(
                "begin_entries_merged({out}); // scatter assembly: the stored entries, then \
                 the new triples, sorted and summed"
            ),
            HostStep::EndEntries => format!("end_entries({out});"),
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
            Expr::Gather { vals, crd, at } => {
                let load = Expr::Load(crd.clone(), at.clone());
                let index = self.operand(&load).0;
                (format!("{}[{index}]", self.array(vals)), Prec::Postfix)
            }
            Expr::GatherDot {
                vals,
                crd,
                weights,
                range,
            } => (
                format!(
                    "dot({}, {}[{}], {}..{})",
                    self.array(weights),
                    self.array(vals),
                    self.array(crd),
                    self.expr(&range.0),
                    self.expr(&range.1)
                ),
                Prec::Postfix,
            ),
            Expr::DenseDot { a, b, at, len } => (
                format!(
                    "dense_dot({}[{}..], {}[{}..], {})",
                    self.array(a),
                    self.expr(&at.0),
                    self.array(b),
                    self.expr(&at.1),
                    self.expr(len)
                ),
                Prec::Postfix,
            ),
            Expr::CountUpTo { array, target } => (
                format!("count_up_to({}, {})", self.array(array), self.expr(target)),
                Prec::Postfix,
            ),
            Expr::BinarySearchAfter {
                array,
                lo,
                hi,
                target,
            } => (
                format!(
                    "binary_search_after({}, {}, {}, {})",
                    self.array(array),
                    self.expr(lo),
                    self.expr(hi),
                    self.expr(target)
                ),
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
            Expr::ParallelMinWork => ("parallel_min_work".to_string(), Prec::Postfix),
            Expr::UnsplitBelow => ("unsplit_below".to_string(), Prec::Postfix),
            Expr::Hinted(array) => (format!("hinted({})", self.array(array)), Prec::Postfix),
            Expr::Cast(ty, a) => (
                format!("{} as {}", self.at(a, Prec::Cast), type_name(*ty)),
                Prec::Cast,
            ),
            Expr::Call(f, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                (format!("{}({})", f.name(), args.join(", ")), Prec::Postfix)
            }
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

fn update_op(op: UpdateOp) -> &'static str {
    match op {
        UpdateOp::Set => "=",
        UpdateOp::Reduce(ReduceOp::Add) => "+=",
        UpdateOp::Reduce(ReduceOp::Mul) => "*=",
        UpdateOp::Reduce(ReduceOp::Min) => "min=",
        UpdateOp::Reduce(ReduceOp::Max) => "max=",
        UpdateOp::Reduce(ReduceOp::Or) => "||=",
        UpdateOp::Reduce(ReduceOp::And) => "&&=",
        UpdateOp::Reduce(ReduceOp::User { .. }) => "combine=",
    }
}

fn reduce_op(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Add => "+",
        ReduceOp::Mul => "*",
        ReduceOp::Min => "min",
        ReduceOp::Max => "max",
        ReduceOp::Or => "||",
        ReduceOp::And => "&&",
        ReduceOp::User { .. } => "combine",
    }
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Lanes => "lanes",
        Scope::Tasks => "tasks",
        Scope::Warp => "warp",
        Scope::Block => "block",
    }
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
pub fn format_type(format: &FormatType) -> String {
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
mod tests;
