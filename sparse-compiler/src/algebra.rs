//! The operators of index notation and their algebra, in one table every stage reads: the parser
//! (names, arities), concretization (which operators an implicit sum distributes over), the
//! lattices (which operands a loop must iterate), lowering (what an operator gives where an operand
//! stores nothing) and the schedule's preconditions (which accesses annihilate an expression).
//!
//! Every operand has a fill value, the value it holds where it stores nothing (zero unless
//! `fills<...>` says otherwise), and so does every expression: its value with every operand at
//! its fill. An operator's iteration space follows from its value at the fills (Kjolstad 2020,
//! merge lattices; the operator-driven lattices of Henry et al., "Compilation of Sparse Array
//! Programming Models"): where an operand's fill alone decides the result whatever the other
//! operands hold (zero for `*`, infinity for `+` and `min`), the loop needs that operand present
//! and intersects its iteration space ([`Op::absorbs`]); otherwise it visits the union of the
//! operands. Where the expression's fill is not the value a loop may skip (the identity of the
//! reduction it feeds, or the output's fill), the loop visits every coordinate. Literal operands
//! are folded in: `max(x, -1)` is zero where `x` is, `max(x, 1)` nowhere.
//!
//! Infinities absorb `+` and `-` the way zero absorbs `*`: `inf + x` is `inf` for every `x` the
//! algebra reasons about, as `0 * x` is `0`, although IEEE gives NaN for `inf + -inf` and `0 *
//! inf`. A kernel skips such terms where the absorbing operand is absent, as a sparse product
//! skips the terms of an absent factor.
//!
//! Values follow the kernel's value type `T` (f32, f64, i32 or i64). A boolean result is `T`'s one
//! or zero, and a boolean operand is true where nonzero. The table evaluates operators in `f64`,
//! which decides zero exactly for every value type: a result it finds nonzero may round to zero in
//! an integer type, which only costs iterations, never a value.

/// The type a cast converts to; the result is held in the kernel's value type again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastType {
    /// `as f64`.
    F64,
    /// `as f32`: rounds to the nearest `f32`.
    F32,
    /// `as i64`: truncates toward zero, saturates, NaN becomes 0.
    I64,
    /// `as i32`: like `as i64`, into the range of `i32` (an `i64` value wraps, as `as` does).
    I32,
    /// `as bool`: one where the value is nonzero.
    Bool,
}

impl CastType {
    /// Every cast, with the type name written after `as`.
    pub const ALL: [(&'static str, CastType); 5] = [
        ("f64", CastType::F64),
        ("f32", CastType::F32),
        ("i64", CastType::I64),
        ("i32", CastType::I32),
        ("bool", CastType::Bool),
    ];

    /// The type name written after `as`.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("", |(n, _)| n)
    }
}

/// An operator of index notation: the arithmetic of the README, the intrinsics, comparisons,
/// boolean connectives and casts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `-x`.
    Neg,
    /// `x + y`.
    Add,
    /// `x - y`.
    Sub,
    /// `x * y`.
    Mul,
    /// `x / y`; where a sparse divisor stores nothing the quotient is zero (it iterates like `*`).
    /// Integer division by zero gives zero.
    Div,
    /// `x % y`, the remainder with the sign of `x`; iterates like `/`. Integer remainder by zero
    /// gives zero.
    Rem,
    /// `x < y`.
    Lt,
    /// `x <= y`.
    Le,
    /// `x > y`.
    Gt,
    /// `x >= y`.
    Ge,
    /// `x == y`.
    Eq,
    /// `x != y`.
    Ne,
    /// `x && y`.
    And,
    /// `x || y`.
    Or,
    /// `!x`.
    Not,
    /// `x as TYPE`.
    Cast(CastType),
    /// `sqrt(x)`.
    Sqrt,
    /// `abs(x)`.
    Abs,
    /// `square(x)`: `x * x`.
    Square,
    /// `cube(x)`: `x * x * x`.
    Cube,
    /// `cbrt(x)`.
    Cbrt,
    /// `exp(x)`.
    Exp,
    /// `log(x)`, the natural logarithm.
    Log,
    /// `log10(x)`.
    Log10,
    /// `sin(x)`.
    Sin,
    /// `cos(x)`.
    Cos,
    /// `tan(x)`.
    Tan,
    /// `asin(x)`.
    Asin,
    /// `acos(x)`.
    Acos,
    /// `atan(x)`.
    Atan,
    /// `sinh(x)`.
    Sinh,
    /// `cosh(x)`.
    Cosh,
    /// `tanh(x)`.
    Tanh,
    /// `asinh(x)`.
    Asinh,
    /// `acosh(x)`.
    Acosh,
    /// `atanh(x)`.
    Atanh,
    /// `pow(x, y)`: `x` to the power `y`.
    Pow,
    /// `atan2(y, x)`: the angle of the point `(x, y)`.
    Atan2,
    /// `max(x, y)`.
    Max,
    /// `min(x, y)`.
    Min,
    /// `heaviside(x, h)`: 0 below zero, `h` at zero, 1 above (`heaviside(x)` is `h = 0`).
    Heaviside,
    /// `select(c, a, b)`: `a` where `c` is nonzero, else `b`. Not written by users: a call of a
    /// user operator (`ops<...>`) is inlined as selects over its operands' presence.
    Select,
    /// A user operator of `ops<...>` named in `reduce<...>` (calls of one are inlined as
    /// [`Op::Select`]s): its position in the clause and its identity, as `f64::to_bits`. Lowering
    /// builds its combine from the definition.
    User {
        /// The definition's position in `ops<...>`.
        index: u16,
        /// The identity's bits.
        identity: u64,
    },
}

/// The functions written as calls, by name.
pub const FUNCTIONS: [(&str, Op); 25] = [
    ("sqrt", Op::Sqrt),
    ("abs", Op::Abs),
    ("square", Op::Square),
    ("cube", Op::Cube),
    ("cbrt", Op::Cbrt),
    ("exp", Op::Exp),
    ("log", Op::Log),
    ("log10", Op::Log10),
    ("sin", Op::Sin),
    ("cos", Op::Cos),
    ("tan", Op::Tan),
    ("asin", Op::Asin),
    ("acos", Op::Acos),
    ("atan", Op::Atan),
    ("sinh", Op::Sinh),
    ("cosh", Op::Cosh),
    ("tanh", Op::Tanh),
    ("asinh", Op::Asinh),
    ("acosh", Op::Acosh),
    ("atanh", Op::Atanh),
    ("pow", Op::Pow),
    ("atan2", Op::Atan2),
    ("max", Op::Max),
    ("min", Op::Min),
    ("heaviside", Op::Heaviside),
];

/// An operand as the iteration rule sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    /// A literal (or an expression of literals only).
    Constant(f64),
    /// An operand that reads tensors, with its fill: its value where they store nothing
    /// (`None` where that is not known).
    Varying {
        /// The value where its tensors store nothing.
        fill: Option<f64>,
    },
}

impl Operand {
    fn varies(&self) -> bool {
        matches!(self, Operand::Varying { .. })
    }

    /// The value it takes where its tensors store nothing.
    pub fn value(&self) -> Option<f64> {
        match self {
            Operand::Constant(v) => Some(*v),
            Operand::Varying { fill } => *fill,
        }
    }
}

/// Whether two values are the same value (NaN is itself; `0.0` and `-0.0` are the same).
pub fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// The reduction operators `reduce< j: op >` accepts, as written.
pub const REDUCTIONS: [(&str, Op); 6] = [
    ("+", Op::Add),
    ("*", Op::Mul),
    ("min", Op::Min),
    ("max", Op::Max),
    ("||", Op::Or),
    ("&&", Op::And),
];

/// Which coordinates a loop visits for an operator applied to its operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Iteration {
    /// The result is nonzero where every operand is zero: every coordinate of the index space.
    Dense,
    /// The result is zero where every operand is zero; `required[k]` says that operand `k`'s zero
    /// alone makes it zero (the loop intersects with that operand). With none required, the loop
    /// visits the union of the operands.
    Sparse {
        /// Per operand: whether its zero annihilates the result.
        required: Vec<bool>,
    },
}

impl Op {
    /// The function called `name`.
    pub fn function(name: &str) -> Option<Op> {
        FUNCTIONS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, op)| *op)
    }

    /// How many operands it takes (`heaviside` is also written with one: its second is then 0).
    pub fn arity(self) -> usize {
        match self {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem => 2,
            Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne | Op::And | Op::Or => 2,
            Op::Pow | Op::Atan2 | Op::Max | Op::Min | Op::Heaviside => 2,
            Op::Select => 3,
            Op::User { .. } => 2,
            _ => 1,
        }
    }

    /// How it is written: the symbol of an operator, the name of a function, `as TYPE` of a cast.
    pub fn symbol(self) -> String {
        let symbol = match self {
            Op::Neg | Op::Sub => "-",
            Op::Add => "+",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Rem => "%",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::And => "&&",
            Op::Or => "||",
            Op::Not => "!",
            Op::Cast(ty) => return format!("as {}", ty.name()),
            Op::Select => "select",
            Op::User { .. } => "a user operator",
            f => FUNCTIONS
                .iter()
                .find(|(_, op)| *op == f)
                .map_or("", |(n, _)| n),
        };
        symbol.to_string()
    }

    /// Whether it is written as a call `name(x, ..)`.
    pub fn is_function(self) -> bool {
        FUNCTIONS.iter().any(|(_, op)| *op == self)
    }

    /// The value `e` with `op(x, e) == op(e, x) == x` for every `x`, where there is one.
    pub fn identity(self) -> Option<f64> {
        match self {
            Op::User { identity, .. } => Some(f64::from_bits(identity)),
            Op::Add => Some(0.0),
            Op::Mul => Some(1.0),
            Op::Max => Some(f64::NEG_INFINITY),
            Op::Min => Some(f64::INFINITY),
            _ => None,
        }
    }

    /// The value `z` with `op(x, z) == op(z, x) == z` for every `x`, where there is one.
    pub fn annihilator(self) -> Option<f64> {
        match self {
            Op::Mul | Op::And => Some(0.0),
            Op::Or => Some(1.0),
            Op::Max => Some(f64::INFINITY),
            Op::Min => Some(f64::NEG_INFINITY),
            _ => None,
        }
    }

    /// Whether operand `k` at value `v` leaves the other operand unchanged (`x + 0`, `0 + x`,
    /// `x - 0`, `x * 1`): an absent operand there can be dropped instead of computed with. `min`
    /// and `max` are not listed: `min(NaN, inf)` is `inf`, not NaN.
    pub fn is_identity_at(self, k: usize, v: f64) -> bool {
        match self {
            Op::Add => v == 0.0,
            Op::Sub => k == 1 && v == 0.0,
            Op::Mul => v == 1.0,
            _ => false,
        }
    }

    /// Whether a zero operand `k` leaves the other operand unchanged (`x + 0`, `0 + x`, `x - 0`).
    pub fn zero_is_identity_at(self, k: usize) -> bool {
        self.is_identity_at(k, 0.0)
    }

    /// The result when operand `k` holds `v`, where that alone decides it whatever the other
    /// operands hold: `0` for a zero factor of `*` or `&&`, `1` for a true operand of `||`, an
    /// infinity of `+` or `-` (see the module documentation), `inf` in `max` and `-inf` in `min`,
    /// `1` for a zero exponent. `/` and `%` give zero where either operand is zero (where a
    /// divisor stores nothing, the kernel gives zero). An operator of one operand is decided by
    /// it.
    pub fn absorbs(self, k: usize, v: f64) -> Option<f64> {
        match self {
            _ if self.arity() == 1 => Some(self.eval(&[v])),
            Op::Mul | Op::And | Op::Div | Op::Rem if v == 0.0 => Some(0.0),
            Op::Or if v != 0.0 => Some(1.0),
            Op::Max if v == f64::INFINITY => Some(v),
            Op::Min if v == f64::NEG_INFINITY => Some(v),
            Op::Add if v.is_infinite() => Some(v),
            Op::Sub if v.is_infinite() => Some(if k == 0 { v } else { -v }),
            Op::Pow if k == 1 && v == 0.0 => Some(1.0),
            _ => None,
        }
    }

    /// The operator at operand values that may be fills: as [`Op::eval`], except that an
    /// absorbing operand decides the result ([`Op::absorbs`]; `0 * inf` is `0`, `x / 0` is `0`
    /// where the divisor stores nothing), as the kernel computes it by skipping.
    pub fn eval_fill(self, x: &[f64]) -> f64 {
        (0..x.len())
            .find_map(|k| self.absorbs(k, x[k]))
            .unwrap_or_else(|| self.eval(x))
    }

    /// The identity a reduction with this operator starts from (`reduce< j: op >`): `0` for `+`
    /// and `||`, `1` for `*` and `&&`, `inf` for `min`, `-inf` for `max`; `None` for an operator
    /// that cannot reduce (it has no identity, or is not associative and commutative).
    pub fn reduction_identity(self) -> Option<f64> {
        match self {
            Op::User { identity, .. } => Some(f64::from_bits(identity)),
            Op::Add | Op::Or => Some(0.0),
            Op::Mul | Op::And => Some(1.0),
            Op::Min => Some(f64::INFINITY),
            Op::Max => Some(f64::NEG_INFINITY),
            _ => None,
        }
    }

    /// Whether combining a value with itself leaves it unchanged (`min`, `max`, `||`, `&&`): a
    /// reduction of one value repeated is that value.
    pub fn is_idempotent(self) -> bool {
        matches!(self, Op::Min | Op::Max | Op::Or | Op::And)
    }

    /// Whether a sum over operand `k` may be taken outside the operator when no other operand
    /// uses the summed variable (the operator is linear in that operand).
    pub fn is_linear_in(self, k: usize) -> bool {
        matches!((self, k), (Op::Neg, 0) | (Op::Mul, _) | (Op::Div, 0))
    }

    /// Whether a reduction with `reduction` over values combined by this operator may combine
    /// them once after reducing the others, `Σ_k f·g = f·Σ_k g` when `f` does not use `k`: `*`
    /// over `+`, equal up to rounding and overflow (and NaN for a non-finite `f` times an empty
    /// sum). Not listed: `+` over `min` and `max`, exact in rounding but not where `inf + -inf`
    /// is NaN or the reduction is empty (its identity `inf` plus `f`); `&&` over `||`, which
    /// stops early instead; user operators, whose algebra is not known.
    pub fn distributes_over(self, reduction: Op) -> bool {
        matches!((self, reduction), (Op::Mul, Op::Add))
    }

    /// Whether it separates the terms of a sum (`+` and `-`): an implicit sum covers the smallest
    /// term that these separate.
    pub fn separates_terms(self) -> bool {
        matches!(self, Op::Add | Op::Sub)
    }

    /// The iteration space of the operator over operands whose values are known where they are
    /// literals (`Some`) and vary where they read tensors (`None`), each operand's fill zero.
    pub fn iteration(self, operands: &[Option<f64>]) -> Iteration {
        let operands: Vec<Operand> = (operands.iter())
            .map(|c| match c {
                Some(v) => Operand::Constant(*v),
                None => Operand::Varying { fill: Some(0.0) },
            })
            .collect();
        self.iteration_at(&operands, Some(0.0))
    }

    /// The iteration space of the operator over its operands. Operand `k` is required (the loop
    /// intersects with it) where its fill alone decides the result, or where it is the only
    /// operand that varies; the others are joined. With `skip`, the space is that of a loop that
    /// may skip only the coordinates where the result is `skip`: where the result at the
    /// operands' fills is another value (or not known), the loop visits every coordinate.
    /// Without, it is where the result may differ from its own value at the fills.
    pub fn iteration_at(self, operands: &[Operand], skip: Option<f64>) -> Iteration {
        let varying = operands.iter().filter(|o| o.varies()).count();
        let required: Vec<bool> = (operands.iter().enumerate())
            .map(|(k, o)| match o {
                Operand::Constant(_) => false,
                Operand::Varying { fill } => {
                    varying == 1
                        || fill.is_some_and(|f| self.absorbs(k, f).is_some())
                        || self.selects_at_fill(k, operands)
                }
            })
            .collect();
        if let Some(skip) = skip
            && !self.fill_of(operands).is_some_and(|f| same(f, skip))
        {
            return Iteration::Dense;
        }
        Iteration::Sparse { required }
    }

    /// Whether operand `k` is the condition of a select that is false at its fill and whose
    /// alternative is a constant: where the condition's tensors store nothing the select gives
    /// that constant, its own fill, so the loop may intersect with the condition.
    fn selects_at_fill(self, k: usize, operands: &[Operand]) -> bool {
        self == Op::Select
            && k == 0
            && operands[0].value() == Some(0.0)
            && matches!(operands.get(2), Some(Operand::Constant(_)))
    }

    /// The result where every varying operand holds its fill, if every fill is known (or an
    /// absorbing one decides it).
    pub fn fill_of(self, operands: &[Operand]) -> Option<f64> {
        let values: Vec<Option<f64>> = operands.iter().map(Operand::value).collect();
        let absorbed =
            (values.iter().enumerate()).find_map(|(k, v)| v.and_then(|v| self.absorbs(k, v)));
        match absorbed {
            Some(v) => Some(v),
            None => values
                .into_iter()
                .collect::<Option<Vec<f64>>>()
                .map(|v| self.eval(&v)),
        }
    }

    /// The operator on `f64` values (booleans as 1 and 0), as a float kernel computes it.
    pub fn eval(self, x: &[f64]) -> f64 {
        let a = x.first().copied().unwrap_or(0.0);
        let b = x.get(1).copied().unwrap_or(0.0);
        let c = x.get(2).copied().unwrap_or(0.0);
        let truth = |c: bool| if c { 1.0 } else { 0.0 };
        match self {
            Op::Neg => -a,
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / b,
            Op::Rem => a % b,
            Op::Lt => truth(a < b),
            Op::Le => truth(a <= b),
            Op::Gt => truth(a > b),
            Op::Ge => truth(a >= b),
            Op::Eq => truth(a == b),
            Op::Ne => truth(a != b),
            Op::And => truth(a != 0.0 && b != 0.0),
            Op::Or => truth(a != 0.0 || b != 0.0),
            Op::Not => truth(a == 0.0),
            Op::Cast(ty) => cast(ty, a),
            Op::Pow => a.powf(b),
            Op::Atan2 => a.atan2(b),
            Op::Max => pick(a >= b, a, b),
            Op::Min => pick(a <= b, a, b),
            Op::Heaviside => heaviside(a, b),
            Op::Select => pick(a != 0.0, b, c),
            f => unary(f, a),
        }
    }
}

fn pick(keep_a: bool, a: f64, b: f64) -> f64 {
    if keep_a { a } else { b }
}

/// 0 below zero, `h` at zero, 1 above (NaN gives 0).
pub fn heaviside(x: f64, h: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x == 0.0 {
        h
    } else {
        0.0
    }
}

fn cast(ty: CastType, a: f64) -> f64 {
    match ty {
        CastType::F64 => a,
        CastType::F32 => a as f32 as f64,
        CastType::I64 => a as i64 as f64,
        CastType::I32 => a as i32 as f64,
        CastType::Bool => f64::from(u8::from(a != 0.0)),
    }
}

fn unary(f: Op, a: f64) -> f64 {
    match f {
        Op::Sqrt => a.sqrt(),
        Op::Abs => a.abs(),
        Op::Square => a * a,
        Op::Cube => a * a * a,
        Op::Cbrt => a.cbrt(),
        Op::Exp => a.exp(),
        Op::Log => a.ln(),
        Op::Log10 => a.log10(),
        Op::Sin => a.sin(),
        Op::Cos => a.cos(),
        Op::Tan => a.tan(),
        Op::Asin => a.asin(),
        Op::Acos => a.acos(),
        Op::Atan => a.atan(),
        Op::Sinh => a.sinh(),
        Op::Cosh => a.cosh(),
        Op::Tanh => a.tanh(),
        Op::Asinh => a.asinh(),
        Op::Acosh => a.acosh(),
        Op::Atanh => a.atanh(),
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sparse(required: &[bool]) -> Iteration {
        Iteration::Sparse {
            required: required.to_vec(),
        }
    }

    #[test]
    fn products_intersect_and_sums_unite() {
        assert_eq!(Op::Mul.iteration(&[None, None]), sparse(&[true, true]));
        assert_eq!(Op::Div.iteration(&[None, None]), sparse(&[true, true]));
        assert_eq!(Op::And.iteration(&[None, None]), sparse(&[true, true]));
        assert_eq!(Op::Add.iteration(&[None, None]), sparse(&[false, false]));
        assert_eq!(Op::Max.iteration(&[None, None]), sparse(&[false, false]));
        assert_eq!(Op::Lt.iteration(&[None, None]), sparse(&[false, false]));
        assert_eq!(Op::Or.iteration(&[None, None]), sparse(&[false, false]));
        assert_eq!(Op::Atan2.iteration(&[None, None]), sparse(&[false, false]));
    }

    #[test]
    fn functions_zero_at_zero_intersect() {
        for op in [Op::Sqrt, Op::Abs, Op::Sin, Op::Tanh, Op::Cube, Op::Neg] {
            assert_eq!(op.iteration(&[None]), sparse(&[true]), "{op:?}");
        }
        assert_eq!(Op::Cast(CastType::I32).iteration(&[None]), sparse(&[true]));
        assert_eq!(
            Op::Heaviside.iteration(&[None, Some(0.0)]),
            sparse(&[true, false])
        );
    }

    #[test]
    fn nonzero_at_the_fill_is_dense() {
        for op in [Op::Exp, Op::Cos, Op::Log, Op::Acos, Op::Not] {
            assert_eq!(op.iteration(&[None]), Iteration::Dense, "{op:?}");
        }
        assert_eq!(Op::Eq.iteration(&[None, None]), Iteration::Dense);
        assert_eq!(Op::Gt.iteration(&[None, Some(-1.0)]), Iteration::Dense);
        assert_eq!(
            Op::Heaviside.iteration(&[None, Some(1.0)]),
            Iteration::Dense
        );
        assert_eq!(Op::Pow.iteration(&[None, Some(0.0)]), Iteration::Dense);
        assert_eq!(Op::Pow.iteration(&[None, None]), Iteration::Dense);
    }

    #[test]
    fn literals_decide_the_rule() {
        assert_eq!(
            Op::Max.iteration(&[None, Some(-1.0)]),
            sparse(&[true, false])
        );
        assert_eq!(Op::Max.iteration(&[None, Some(1.0)]), Iteration::Dense);
        assert_eq!(
            Op::Pow.iteration(&[None, Some(2.0)]),
            sparse(&[true, false])
        );
        assert_eq!(Op::Add.iteration(&[None, Some(1.0)]), Iteration::Dense);
        assert_eq!(
            Op::Mul.iteration(&[Some(2.0), None]),
            sparse(&[false, true])
        );
        assert_eq!(Op::Gt.iteration(&[None, Some(0.5)]), sparse(&[true, false]));
    }

    #[test]
    fn identities_and_annihilators() {
        assert_eq!(Op::Add.identity(), Some(0.0));
        assert_eq!(Op::Mul.annihilator(), Some(0.0));
        assert_eq!(Op::Min.identity(), Some(f64::INFINITY));
        assert_eq!(Op::Or.annihilator(), Some(1.0));
        assert_eq!(Op::Sub.identity(), None);
        assert!(Op::Sub.zero_is_identity_at(1) && !Op::Sub.zero_is_identity_at(0));
    }

    #[test]
    fn only_products_leave_sums() {
        assert!(Op::Mul.distributes_over(Op::Add));
        assert!(!Op::Mul.distributes_over(Op::Max));
        assert!(!Op::Add.distributes_over(Op::Min));
        assert!(!Op::And.distributes_over(Op::Or));
        let user = Op::User {
            index: 0,
            identity: 0f64.to_bits(),
        };
        assert!(!Op::Mul.distributes_over(user));
    }

    #[test]
    fn names_round_trip() {
        for (name, op) in FUNCTIONS {
            assert_eq!(Op::function(name), Some(op));
            assert_eq!(op.symbol(), name);
            assert!(op.is_function());
        }
        assert_eq!(Op::Cast(CastType::I32).symbol(), "as i32");
        assert_eq!(Op::Heaviside.eval(&[0.0, 0.5]), 0.5);
        assert!(Op::Sqrt.eval(&[-1.0]).is_nan());
    }

    #[test]
    fn selects_intersect_with_a_condition_false_at_its_fill() {
        let varying = |fill| Operand::Varying { fill: Some(fill) };
        let constant = Operand::Constant(0.0);
        let select = |c, e| Op::Select.iteration_at(&[varying(c), varying(0.0), e], None);
        assert_eq!(select(0.0, constant), sparse(&[true, false, false]));
        assert_eq!(select(1.0, constant), sparse(&[false, false, false]));
        assert_eq!(select(0.0, varying(0.0)), sparse(&[false, false, false]));
        assert_eq!(Op::Select.eval(&[1.0, 2.0, 3.0]), 2.0);
        assert_eq!(Op::Select.eval(&[0.0, 2.0, 3.0]), 3.0);
    }
}
