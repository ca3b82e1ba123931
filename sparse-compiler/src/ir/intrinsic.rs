//! The functions of values the IR calls: the kernel language's intrinsics, the remainder and the
//! conversions of its casts.

/// A function of values (the kernel language's intrinsics and casts), of the kernel's value type
/// `T`. `abs`, `min`, `max`, `square`, `cube` and `heaviside` compute in `T`; the remainder
/// follows `Scalar::remainder`; a conversion converts as `as` does and converts back into `T`; the
/// other functions compute in `f64` and convert back as `as` converts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    /// Square root.
    Sqrt,
    /// Absolute value.
    Abs,
    /// `x * x`.
    Square,
    /// `x * x * x`.
    Cube,
    /// Cube root.
    Cbrt,
    /// `e^x`.
    Exp,
    /// Natural logarithm.
    Log,
    /// Base-10 logarithm.
    Log10,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Tangent.
    Tan,
    /// Arcsine.
    Asin,
    /// Arccosine.
    Acos,
    /// Arctangent.
    Atan,
    /// Hyperbolic sine.
    Sinh,
    /// Hyperbolic cosine.
    Cosh,
    /// Hyperbolic tangent.
    Tanh,
    /// Inverse hyperbolic sine.
    Asinh,
    /// Inverse hyperbolic cosine.
    Acosh,
    /// Inverse hyperbolic tangent.
    Atanh,
    /// `x^y`.
    Pow,
    /// `atan2(y, x)`.
    Atan2,
    /// The smaller of two values.
    Min,
    /// The larger of two values.
    Max,
    /// 0 below zero, the second argument at zero, 1 above.
    Heaviside,
    /// The remainder of a division, with the sign of the dividend; zero for an integer divisor of
    /// zero.
    Remainder,
    /// The value converted to `f64` (`as f64`), held in `T`.
    ToF64,
    /// The value converted to `f32`, held in `T`.
    ToF32,
    /// The value converted to `i64`, held in `T`.
    ToI64,
    /// The value converted to `i32`, held in `T`.
    ToI32,
}

impl Intrinsic {
    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            Intrinsic::Pow
            | Intrinsic::Atan2
            | Intrinsic::Min
            | Intrinsic::Max
            | Intrinsic::Heaviside
            | Intrinsic::Remainder => 2,
            _ => 1,
        }
    }

    /// Its name, as the printers write it (and the C math library names it, where it has it).
    pub fn name(self) -> &'static str {
        match self {
            Intrinsic::Sqrt => "sqrt",
            Intrinsic::Abs => "abs",
            Intrinsic::Square => "square",
            Intrinsic::Cube => "cube",
            Intrinsic::Cbrt => "cbrt",
            Intrinsic::Exp => "exp",
            Intrinsic::Log => "log",
            Intrinsic::Log10 => "log10",
            Intrinsic::Sin => "sin",
            Intrinsic::Cos => "cos",
            Intrinsic::Tan => "tan",
            Intrinsic::Asin => "asin",
            Intrinsic::Acos => "acos",
            Intrinsic::Atan => "atan",
            Intrinsic::Sinh => "sinh",
            Intrinsic::Cosh => "cosh",
            Intrinsic::Tanh => "tanh",
            Intrinsic::Asinh => "asinh",
            Intrinsic::Acosh => "acosh",
            Intrinsic::Atanh => "atanh",
            Intrinsic::Pow => "pow",
            Intrinsic::Atan2 => "atan2",
            Intrinsic::Min => "min",
            Intrinsic::Max => "max",
            Intrinsic::Heaviside => "heaviside",
            Intrinsic::Remainder => "remainder",
            Intrinsic::ToF64 => "to_f64",
            Intrinsic::ToF32 => "to_f32",
            Intrinsic::ToI64 => "to_i64",
            Intrinsic::ToI32 => "to_i32",
        }
    }

    /// The method of `f64` that computes it, for the functions computed in `f64`.
    pub fn f64_method(self) -> Option<&'static str> {
        match self {
            Intrinsic::Log => Some("ln"),
            Intrinsic::Pow => Some("powf"),
            Intrinsic::Abs
            | Intrinsic::Square
            | Intrinsic::Cube
            | Intrinsic::Min
            | Intrinsic::Max
            | Intrinsic::Heaviside
            | Intrinsic::Remainder
            | Intrinsic::ToF64
            | Intrinsic::ToF32
            | Intrinsic::ToI64
            | Intrinsic::ToI32 => None,
            f => Some(f.name()),
        }
    }
}
