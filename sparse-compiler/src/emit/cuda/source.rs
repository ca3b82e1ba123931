//! IR -> CUDA C: the `__global__` function of a kernel's GPU region (Senanayake et al. §5.5's
//! index mapping).
//!
//! - a `GpuBlock` region's variable is `lo + blockIdx.x`: the grid has one block per iteration;
//! - a `GpuWarp` region's is `lo + threadIdx.x / 32`, a `GpuThread` region's `lo + threadIdx.x % 32`
//!   inside a warp region and `lo + threadIdx.x` without one; iterations from `hi` up to the
//!   region's fixed number of units idle (a guard);
//! - every statement runs on each thread that reaches it, so the output is written at the level
//!   of a warp or block by one thread only (lane 0, thread 0): the others computed the same value;
//! - a reduction over a warp combines each thread's partial with shuffles after the region, where
//!   every lane arrives (the guard only wraps the region's body);
//! - `Atomic` updates are `atomicAdd`s.
//!
//! Indices are `idx_t` and values `T`, both `typedef`s the launcher puts before this source:
//! `idx_t` is `unsigned int` when every array length and dimension of the call is below 2^31
//! (32-bit arithmetic is a GPU's native width; every index the kernel computes stays below a
//! length or dimension plus a split factor), `unsigned long long` otherwise. `pos`/`crd` arrays are
//! `unsigned int`. Names that begin with `__` are
//! reserved in C++ (`__thread` is a keyword of GCC's), so the IR's locals print as `v_...`, the
//! parameters as `p_...`, and the printer's own as `w_...`. Every kernel parameter is printed on
//! the signature's one line, which the host simulator of `sparse-gpu` relies on.

use std::fmt::Write;

use crate::ir::{
    Array, BinOp, Expr, HostStep, Kernel, Literal, Place, ReduceOp, Region, Scope, Stmt, Sync,
    TempType, Type, Unit, UpdateOp, Var,
};

/// The largest workspace a thread keeps in registers (a `precompute` into a few values).
const REGISTER_WORKSPACE_MAX: usize = 64;

/// Helpers every kernel may call, after the launcher's `typedef`s of `T` and `idx_t`.
const PRELUDE: &str = r#"template <typename A> __device__ __forceinline__ A sparse_abs(A a) { return a < (A)0 ? (A)0 - a : a; }
template <typename A, typename B> __device__ __forceinline__ auto sparse_min(A a, B b) -> decltype(a + b) { return a < b ? a : b; }
template <typename A, typename B> __device__ __forceinline__ auto sparse_max(A a, B b) -> decltype(a + b) { return a < b ? b : a; }
__device__ __forceinline__ float sparse_divide(float a, float b) { return a / b; }
__device__ __forceinline__ double sparse_divide(double a, double b) { return a / b; }
__device__ __forceinline__ int sparse_divide(int a, int b) { return b == 0 ? 0 : (b == -1 ? (int)(0u - (unsigned)a) : a / b); }
__device__ __forceinline__ long long sparse_divide(long long a, long long b) { return b == 0 ? 0 : (b == -1 ? (long long)(0ull - (unsigned long long)a) : a / b); }
__device__ __forceinline__ void sparse_atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void sparse_atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void sparse_atomic_add(int* p, int v) { atomicAdd(p, v); }
__device__ __forceinline__ void sparse_atomic_add(long long* p, long long v) { atomicAdd((unsigned long long*)p, (unsigned long long)v); }
__device__ __forceinline__ T sparse_warp_sum(T v) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}
__device__ __forceinline__ idx_t sparse_count_up_to(const unsigned int* a, idx_t n, idx_t target) {
    idx_t lo = 0, hi = n;
    while (lo < hi) { idx_t mid = lo + (hi - lo) / 2; if ((idx_t)a[mid] <= target) lo = mid + 1; else hi = mid; }
    return lo;
}
"#;

/// The combination of partial results for a reduction other than `+` (`sparse_combine<OP>`, its
/// warp shuffle and its compare-and-swap update), added to kernels that reduce with one.
const COMBINE_PRELUDE: &str = r#"template <int OP, typename A> __device__ __forceinline__ A sparse_combine(A acc, A v) {
    if (OP == 1) return acc * v;
    if (OP == 2) return v < acc ? v : acc;
    if (OP == 3) return v > acc ? v : acc;
    if (OP == 4) return (acc != (A)0 || v != (A)0) ? (A)1 : (A)0;
    return (acc != (A)0 && v != (A)0) ? (A)1 : (A)0;
}
template <int OP> __device__ __forceinline__ T sparse_warp_combine(T v) {
    for (int d = 16; d > 0; d >>= 1) v = sparse_combine<OP>(v, __shfl_xor_sync(0xffffffffu, v, d));
    return v;
}
template <typename A, typename B> __device__ __forceinline__ B sparse_bits(A v) { union { A a; B b; } u; u.a = v; return u.b; }
template <int OP> __device__ __forceinline__ void sparse_atomic_combine(double* p, double v) {
    unsigned long long* a = (unsigned long long*)p;
    unsigned long long old = *a, seen;
    do {
        seen = old;
        unsigned long long next = sparse_bits<double, unsigned long long>(sparse_combine<OP>(sparse_bits<unsigned long long, double>(seen), v));
        if (next == seen) return;
        old = atomicCAS(a, seen, next);
    } while (old != seen);
}
template <int OP> __device__ __forceinline__ void sparse_atomic_combine(float* p, float v) {
    unsigned int* a = (unsigned int*)p;
    unsigned int old = *a, seen;
    do {
        seen = old;
        unsigned int next = sparse_bits<float, unsigned int>(sparse_combine<OP>(sparse_bits<unsigned int, float>(seen), v));
        if (next == seen) return;
        old = atomicCAS(a, seen, next);
    } while (old != seen);
}
template <int OP> __device__ __forceinline__ void sparse_atomic_combine(int* p, int v) {
    int old = *p, seen;
    do {
        seen = old;
        int next = sparse_combine<OP>(seen, v);
        if (next == seen) return;
        old = atomicCAS(p, seen, next);
    } while (old != seen);
}
template <int OP> __device__ __forceinline__ void sparse_atomic_combine(long long* p, long long v) {
    unsigned long long* a = (unsigned long long*)p;
    unsigned long long old = *a, seen;
    do {
        seen = old;
        unsigned long long next = (unsigned long long)sparse_combine<OP>((long long)seen, v);
        if (next == seen) return;
        old = atomicCAS(a, seen, next);
    } while (old != seen);
}
"#;

/// The binary search that starts a coordinate tile (`Expr::BinarySearchAfter`), added to kernels
/// that call it.
const SEARCH_PRELUDE: &str = r#"__device__ __forceinline__ idx_t sparse_binary_search_after(const unsigned int* a, idx_t lo, idx_t hi, idx_t target) {
    while (lo < hi) { idx_t mid = lo + (hi - lo) / 2; if ((idx_t)a[mid] < target) lo = mid + 1; else hi = mid; }
    return lo;
}
"#;

/// A kernel parameter: an array, or a size the host passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// An array of a tensor parameter.
    Array(Array),
    /// The length of an array.
    Len(Array),
    /// A dimension of a tensor parameter.
    Dim(usize, usize),
    /// The stored size of a level.
    LevelSize(usize, usize),
    /// A scalar input passed by value (`scalars<...>`): a `T`, not an array.
    Scalar(usize),
}

/// The CUDA source of a kernel's GPU region, and what its launch needs.
pub struct Source {
    /// The text, without the `typedef` of `T`.
    pub text: String,
    /// The `__global__` function's name.
    pub entry: String,
    /// Its parameters, in order.
    pub args: Vec<Arg>,
    /// Threads per block.
    pub threads: usize,
}

/// The source of `region`, the `GpuBlock` region of `kernel`.
pub fn print(kernel: &Kernel, region: &Region) -> Result<Source, String> {
    let mut printer = Printer {
        kernel,
        args: Vec::new(),
        out: String::new(),
        depth: 1,
        level: Level::Block,
        calls_math: false,
        calls_search: false,
        calls_combine: false,
    };
    let threads = threads_per_block(region)?;
    printer.region(region)?;
    let body = std::mem::take(&mut printer.out);
    let params: Vec<String> = printer.args.iter().map(|a| printer.param(a)).collect();
    let entry = kernel.name.clone();
    let mut text = String::from(PRELUDE);
    if printer.calls_math {
        text.push_str(super::math::MATH_PRELUDE);
    }
    if printer.calls_search {
        text.push_str(SEARCH_PRELUDE);
    }
    if printer.calls_combine {
        text.push_str(COMBINE_PRELUDE);
    }
    let _ = writeln!(
        text,
        "extern \"C\" __global__ void {entry}({}) {{",
        params.join(", ")
    );
    text.push_str(&body);
    text.push_str("}\n");
    Ok(Source {
        text,
        entry,
        args: printer.args,
        threads,
    })
}

/// Warps times 32, or the thread region's units, or 1.
fn threads_per_block(block: &Region) -> Result<usize, String> {
    let mut warps = None;
    let mut threads = None;
    find_units(&block.body, &mut warps, &mut threads);
    let threads = match (warps, threads) {
        (Some(w), _) => w * 32,
        (None, Some(t)) => t,
        (None, None) => 1,
    };
    if threads > 1024 {
        return Err(format!("{threads} threads per block (at most 1024)"));
    }
    Ok(threads)
}

fn find_units(stmts: &[Stmt], warps: &mut Option<usize>, threads: &mut Option<usize>) {
    for stmt in stmts {
        if let Stmt::Parallel(r) = stmt {
            match r.unit {
                Unit::GpuWarp => *warps = r.units,
                Unit::GpuThread => *threads = r.units,
                _ => {}
            }
        }
        for body in stmt.bodies() {
            find_units(body, warps, threads);
        }
    }
}

/// Which threads run the statements being printed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    /// Every thread of the block, redundantly.
    Block,
    /// Every lane of a warp, redundantly.
    Warp,
    /// Each thread its own iteration.
    Thread,
}

struct Printer<'k> {
    kernel: &'k Kernel,
    args: Vec<Arg>,
    out: String,
    depth: usize,
    level: Level,
    /// Whether the kernel calls an intrinsic (it then needs `math.rs`'s helpers).
    calls_math: bool,
    /// Whether the kernel starts a coordinate tile (it then needs the search's helper).
    calls_search: bool,
    /// Whether the kernel reduces with an operator other than `+` (it then needs the combine
    /// helpers).
    calls_combine: bool,
}

impl Printer<'_> {
    /// The prelude's code for reduction operator `op`, noting that the kernel needs the combine
    /// helpers.
    fn combine_code(&mut self, op: ReduceOp) -> u8 {
        self.calls_combine = true;
        combine_code(op)
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn block(&mut self, head: &str, body: &[Stmt]) -> Result<(), String> {
        self.line(&format!("{head} {{"));
        self.depth += 1;
        let result = self.stmts(body);
        self.depth -= 1;
        self.line("}");
        result
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> Result<(), String> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, stmt: &Stmt) -> Result<(), String> {
        match stmt {
            Stmt::Let {
                var,
                ty,
                init,
                mutable,
            } => {
                let constness = if *mutable { "" } else { "const " };
                let line = format!(
                    "{constness}{} {} = {};",
                    c_type(*ty),
                    local(var),
                    self.expr(init)?
                );
                self.line(&line);
            }
            Stmt::Update {
                place,
                op,
                value,
                sync,
            } => self.update(place, *op, value, *sync)?,
            Stmt::Workspace {
                var, ty, len, init, ..
            } => {
                let Expr::Index(n) = len else {
                    return Err("a workspace whose length is not a constant".into());
                };
                if *n > REGISTER_WORKSPACE_MAX {
                    return Err(format!("a workspace of {n} elements per thread"));
                }
                let ty = match ty {
                    TempType::Value => "T",
                    TempType::Index => "idx_t",
                    TempType::Bool => "bool",
                };
                let init = self.expr(init)?;
                let var = local(var);
                self.line(&format!("{ty} {var}[{n}];"));
                self.line(&format!(
                    "for (int w_k = 0; w_k < {n}; w_k++) {var}[w_k] = {init};"
                ));
            }
            Stmt::For { var, lo, hi, body } => {
                let head = format!(
                    "for (idx_t {v} = {}; {v} < {}; {v}++)",
                    self.expr(lo)?,
                    self.expr(hi)?,
                    v = local(var)
                );
                self.block(&head, body)?;
            }
            Stmt::Tile { var, width, body } => {
                let head = format!("for (idx_t {v} = 0; {v} < {width}; {v}++)", v = local(var));
                self.block(&head, body)?;
            }
            Stmt::While { cond, body } => {
                let head = format!("while ({})", self.expr(cond)?);
                self.block(&head, body)?;
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let head = format!("if ({})", self.expr(cond)?);
                self.block(&head, then)?;
                if !otherwise.is_empty() {
                    self.block("else", otherwise)?;
                }
            }
            Stmt::Parallel(region) => self.region(region)?,
            // Hints for the CPU's caches.
            Stmt::Prefetch { .. } | Stmt::PrefetchGather { .. } => {}
            other => return Err(format!("{} in a GPU kernel", describe(other))),
        }
        Ok(())
    }

    /// A region: its variable from the block, warp or thread index, its body behind a guard,
    /// then its reductions, which every lane reaches.
    fn region(&mut self, region: &Region) -> Result<(), String> {
        let (lo, hi) = (self.expr(&region.lo)?, self.expr(&region.hi)?);
        let v = local(&region.var);
        let saved = self.level;
        let index = match region.unit {
            Unit::GpuBlock => "blockIdx.x",
            Unit::GpuWarp => "threadIdx.x / 32",
            Unit::GpuThread if saved == Level::Warp => "threadIdx.x % 32",
            Unit::GpuThread => "threadIdx.x",
            Unit::CpuThread | Unit::CpuVector => {
                return Err("a CPU region in a GPU kernel".into());
            }
        };
        self.level = match region.unit {
            Unit::GpuBlock => Level::Block,
            Unit::GpuWarp => Level::Warp,
            _ => Level::Thread,
        };
        self.line("{");
        self.depth += 1;
        self.line(&format!("const idx_t {v} = {lo} + (idx_t)({index});"));
        let result = match region.unit {
            Unit::GpuBlock => self.stmts(&region.body),
            _ => self.block(&format!("if ({v} < {hi})"), &region.body),
        };
        self.level = saved;
        result?;
        for reduction in &region.reductions {
            self.reduction(&reduction.var, reduction.op, reduction.scope)?;
        }
        self.depth -= 1;
        self.line("}");
        Ok(())
    }

    fn reduction(&mut self, var: &Var, op: ReduceOp, scope: Scope) -> Result<(), String> {
        match (op, scope) {
            (ReduceOp::Add, Scope::Warp) => {
                self.line(&format!("{v} = sparse_warp_sum({v});", v = local(var)));
                Ok(())
            }
            (op, Scope::Warp) => {
                let k = self.combine_code(op);
                self.line(&format!(
                    "{v} = sparse_warp_combine<{k}>({v});",
                    v = local(var)
                ));
                Ok(())
            }
            (_, scope) => Err(format!("a reduction over a {scope:?} in a GPU kernel")),
        }
    }

    fn update(
        &mut self,
        place: &Place,
        op: UpdateOp,
        value: &Expr,
        sync: Sync,
    ) -> Result<(), String> {
        let value = self.expr(value)?;
        let (target, output) = match place {
            Place::Var(var) => (local(var), false),
            Place::Elem(array, index) => {
                let output = matches!(array, Array::Vals { param: 0 });
                (
                    format!("{}[{}]", self.array(array)?, self.expr(index)?),
                    output,
                )
            }
        };
        let statement = match (op, sync) {
            (UpdateOp::Set, _) => format!("{target} = {value};"),
            (UpdateOp::Reduce(ReduceOp::Add), Sync::Owned) => format!("{target} += {value};"),
            (UpdateOp::Reduce(ReduceOp::Add), Sync::Atomic) => {
                format!("sparse_atomic_add(&{target}, {value});")
            }
            (UpdateOp::Reduce(op), Sync::Owned) => {
                let k = self.combine_code(op);
                format!("{target} = sparse_combine<{k}>({target}, (T)({value}));")
            }
            (UpdateOp::Reduce(op), Sync::Atomic) => {
                let k = self.combine_code(op);
                format!("sparse_atomic_combine<{k}>(&{target}, (T)({value}));")
            }
        };
        // Above the threads, every thread computed the same value: one of them writes it.
        let leader = match self.level {
            Level::Block if output => Some("threadIdx.x == 0"),
            Level::Warp if output => Some("threadIdx.x % 32 == 0"),
            _ => None,
        };
        match leader {
            Some(cond) => self.line(&format!("if ({cond}) {statement}")),
            None => self.line(&statement),
        }
        Ok(())
    }

    /// The C name of an array, registering it as a parameter.
    fn array(&mut self, array: &Array) -> Result<String, String> {
        match array {
            Array::Temp(var) => Ok(local(var)),
            Array::Level {
                name: "offsets", ..
            } => Ok(self.arg(Arg::Array(array.clone()))),
            Array::Level { name, .. } => Err(format!("the level array `{name}` in a GPU kernel")),
            _ => Ok(self.arg(Arg::Array(array.clone()))),
        }
    }

    fn arg(&mut self, arg: Arg) -> String {
        if !self.args.contains(&arg) {
            self.args.push(arg.clone());
        }
        self.arg_name(&arg)
    }

    fn arg_name(&self, arg: &Arg) -> String {
        let name = |p: usize| &self.kernel.params[p].name;
        match arg {
            Arg::Array(Array::Pos { param, level }) => format!("p_{}_l{level}_pos", name(*param)),
            Arg::Array(Array::Crd { param, level }) => format!("p_{}_l{level}_crd", name(*param)),
            Arg::Array(Array::Vals { param }) => format!("p_{}_vals", name(*param)),
            Arg::Array(Array::Level {
                param,
                level,
                name: array,
                ..
            }) => format!("p_{}_l{level}_{array}", name(*param)),
            Arg::Array(other) => format!("p_{other:?}"),
            Arg::Len(array) => format!("{}_len", self.arg_name(&Arg::Array(array.clone()))),
            Arg::Dim(p, d) => format!("p_{}_shape{d}", name(*p)),
            Arg::LevelSize(p, l) => format!("p_{}_l{l}_size", name(*p)),
            Arg::Scalar(p) => format!("p_{}", name(*p)),
        }
    }

    fn param(&self, arg: &Arg) -> String {
        let ty = match arg {
            Arg::Array(Array::Pos { .. } | Array::Crd { .. }) => "const unsigned int* __restrict__",
            Arg::Array(Array::Vals { param: 0 }) => "T* __restrict__",
            Arg::Array(Array::Level { .. }) => "const long long* __restrict__",
            Arg::Array(_) => "const T* __restrict__",
            Arg::Len(_) | Arg::Dim(..) | Arg::LevelSize(..) => "idx_t",
            Arg::Scalar(_) => "const T",
        };
        format!("{ty} {}", self.arg_name(arg))
    }

    fn expr(&mut self, expr: &Expr) -> Result<String, String> {
        Ok(match expr {
            Expr::Var(var) => local(var),
            Expr::Index(n) => format!("{n}u"),
            Expr::Signed(n) => format!("({n}ll)"),
            Expr::Cast(ty, a) => format!("(({})({}))", c_type(*ty), self.expr(a)?),
            Expr::Value(Literal::Int(n)) => format!("((T){n})"),
            Expr::Value(Literal::Float(f)) => format!("((T){})", c_float(*f)),
            Expr::Bool(b) => b.to_string(),
            // A scalar passed by value is the one element of its values array.
            Expr::Load(Array::Vals { param }, _) if self.kernel.params[*param].by_value => {
                self.arg(Arg::Scalar(*param))
            }
            Expr::Gather { vals, crd, at } => {
                let coord = Expr::Load(crd.clone(), at.clone());
                self.expr(&Expr::Load(vals.clone(), Box::new(coord)))?
            }
            Expr::Load(array, index) => {
                let (array_name, index) = (self.array(array)?, self.expr(index)?);
                match array {
                    Array::Pos { .. } | Array::Crd { .. } => {
                        format!("((idx_t){array_name}[{index}])")
                    }
                    Array::Level {
                        elem: Type::Index, ..
                    } => format!("((idx_t){array_name}[{index}])"),
                    _ => format!("{array_name}[{index}]"),
                }
            }
            Expr::Dim { param, dim } => self.arg(Arg::Dim(*param, *dim)),
            Expr::LevelSize { param, level } => self.arg(Arg::LevelSize(*param, *level)),
            Expr::Len(array) => {
                self.array(array)?;
                self.arg(Arg::Len(array.clone()))
            }
            Expr::Binary(op, a, b) => self.binary(*op, a, b)?,
            Expr::Neg(a) => format!("(-{})", self.expr(a)?),
            Expr::Not(a) => format!("(!{})", self.expr(a)?),
            Expr::Call(f, args) => self.call(*f, args)?,
            Expr::Select(c, a, b) => {
                format!(
                    "({} ? {} : {})",
                    self.expr(c)?,
                    self.expr(a)?,
                    self.expr(b)?
                )
            }
            Expr::CountUpTo { array, target } => {
                let name = self.array(array)?;
                let len = self.arg(Arg::Len(array.clone()));
                format!("sparse_count_up_to({name}, {len}, {})", self.expr(target)?)
            }
            Expr::BinarySearchAfter {
                array,
                lo,
                hi,
                target,
            } => {
                let name = self.array(array)?;
                let (lo, hi, target) = (self.expr(lo)?, self.expr(hi)?, self.expr(target)?);
                self.calls_search = true;
                format!("sparse_binary_search_after({name}, {lo}, {hi}, {target})")
            }
            other => return Err(format!("the expression {other:?} in a GPU kernel")),
        })
    }

    /// An intrinsic (`math.rs`); the kernel then gets the helpers intrinsics call.
    fn call(&mut self, f: crate::ir::Intrinsic, args: &[Expr]) -> Result<String, String> {
        let args = (args.iter())
            .map(|a| self.expr(a))
            .collect::<Result<Vec<String>, String>>()?;
        self.calls_math = true;
        super::math::call(f, &args)
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Result<String, String> {
        let (a, b) = (self.expr(a)?, self.expr(b)?);
        let symbol = match op {
            BinOp::Min => return Ok(format!("sparse_min({a}, {b})")),
            BinOp::Max => return Ok(format!("sparse_max({a}, {b})")),
            BinOp::Quotient => return Ok(format!("sparse_divide({a}, {b})")),
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        };
        Ok(format!("({a} {symbol} {b})"))
    }
}

/// An IR local's C name: the IR's `__i` is `v_i`.
fn local(var: &Var) -> String {
    format!("v_{}", var.0.strip_prefix("__").unwrap_or(&var.0))
}

fn c_type(ty: Type) -> &'static str {
    match ty {
        Type::Index => "idx_t",
        Type::Signed => "long long",
        Type::Value => "T",
        Type::Bool => "bool",
    }
}

/// A double literal C reads back exactly.
fn c_float(f: f64) -> String {
    if f.is_nan() {
        "(0.0/0.0)".into()
    } else if f.is_infinite() {
        if f > 0.0 { "(1.0/0.0)" } else { "(-1.0/0.0)" }.into()
    } else {
        format!("{f:?}")
    }
}

fn describe(stmt: &Stmt) -> String {
    match stmt {
        Stmt::Host(HostStep::CheckBound { .. }) => "a bound check".into(),
        Stmt::Host(step) => format!("the host step {step:?}"),
        other => format!("{other:?}"),
    }
}

/// The prelude's code for a reduction operator other than `+` (`sparse_combine<OP>`).
fn combine_code(op: ReduceOp) -> u8 {
    match op {
        ReduceOp::Add | ReduceOp::And => 5,
        ReduceOp::Mul => 1,
        ReduceOp::Min => 2,
        ReduceOp::Max => 3,
        ReduceOp::Or => 4,
        // Refused before emission: lowering reports a user operator's reduction on a GPU.
        ReduceOp::User { .. } => 0,
    }
}
