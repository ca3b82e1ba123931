//! Typed scheduling commands (seed-schedules.md A.2): the AST's `name(args)` checked for arity
//! and argument kinds, with every name kept as an identifier so errors can point at it.

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::syntax::ast::{self, CommandArg};

/// Split direction: which of the two new loops has the constant size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// The inner loop has the constant size (strip-mining).
    Down,
    /// The outer loop has the constant size (a fixed number of blocks).
    Up,
}

/// The hardware a parallel loop maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Rayon tasks.
    CpuThread,
    /// `wide` SIMD lanes.
    CpuVector,
    /// CUDA thread blocks.
    GpuBlock,
    /// CUDA warps.
    GpuWarp,
    /// CUDA threads.
    GpuThread,
}

/// How a parallel loop's writes to shared output entries are made safe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Race {
    /// There are none (checked).
    NoRaces,
    /// The user asserts there are none.
    IgnoreRaces,
    /// Atomic adds.
    Atomics,
    /// Per-task temporaries reduced afterwards.
    Temporary,
    /// A reduction across lanes or tasks.
    ParallelReduction,
}

/// `bound` kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundKind {
    /// The loop runs exactly to the bound.
    MaxExact,
    /// The loop starts exactly at the bound.
    MinExact,
    /// The loop runs at most to the bound.
    MaxConstraint,
    /// The loop starts at least at the bound.
    MinConstraint,
}

/// A scheduling command with its arguments.
#[derive(Clone, Debug)]
pub enum Command {
    /// `pos(i, p, A)`.
    Pos {
        var: Ident,
        pos: Ident,
        tensor: Ident,
    },
    /// `coord(p, i)`.
    Coord { pos: Ident, coord: Ident },
    /// `collapse(i, j, f)` or `fuse(i, j, f)`.
    Collapse {
        outer: Ident,
        inner: Ident,
        fused: Ident,
    },
    /// `split(i, i0, i1, Down|Up, n)`.
    Split {
        var: Ident,
        outer: Ident,
        inner: Ident,
        direction: Direction,
        factor: (usize, Span),
    },
    /// `reorder(a, b, ...)`: the listed loops in this relative order.
    Reorder { vars: Vec<Ident> },
    /// `precompute(expr, i, iw, W)`.
    Precompute {
        expr: ast::Expr,
        var: Ident,
        workspace_var: Ident,
        workspace: Ident,
    },
    /// `bound(i, ib, n, kind)`.
    Bound {
        var: Ident,
        bound: Ident,
        value: (usize, Span),
        kind: BoundKind,
    },
    /// `unroll(i, n)`.
    Unroll { var: Ident, factor: (usize, Span) },
    /// `parallelize(i, unit, race)`.
    Parallelize { var: Ident, unit: Unit, race: Race },
    /// `assemble(T, Append|Insert)`.
    Assemble { tensor: Ident, insert: bool },
    /// `prefetch(x, d)`: a hint to fetch the element of `x` a gather reads `d` nonzeros ahead.
    Prefetch {
        tensor: Ident,
        distance: (usize, Span),
    },
}

/// Types one command of the AST.
pub fn parse_command(c: &ast::Command) -> Result<Command, Error> {
    let name = c.name.to_string();
    let args = &c.args;
    let wrong = |expected| {
        Error::new(
            c.span,
            ErrorKind::CommandArgs {
                command: name.clone(),
                expected,
            },
        )
    };
    let ident = |k: usize, expected| match args.get(k) {
        Some(CommandArg::Ident(i)) => Ok(i.clone()),
        _ => Err(wrong(expected)),
    };
    let int = |k: usize, expected| match args.get(k) {
        Some(CommandArg::Int(n, span)) => Ok((*n, *span)),
        _ => Err(wrong(expected)),
    };
    let count = |n: usize, expected| {
        if args.len() == n {
            Ok(())
        } else {
            Err(wrong(expected))
        }
    };
    match name.as_str() {
        "pos" => {
            const E: &str = "a variable, a new position variable and a tensor: `pos(i, p, A)`";
            count(3, E)?;
            let tensor = match &args[2] {
                CommandArg::Ident(t) => t.clone(),
                CommandArg::Expr(ast::Expr::Access(a)) => a.tensor.clone(),
                _ => return Err(wrong(E)),
            };
            Ok(Command::Pos {
                var: ident(0, E)?,
                pos: ident(1, E)?,
                tensor,
            })
        }
        "coord" => {
            const E: &str = "a position variable and a new coordinate variable: `coord(p, i)`";
            count(2, E)?;
            Ok(Command::Coord {
                pos: ident(0, E)?,
                coord: ident(1, E)?,
            })
        }
        "collapse" | "fuse" => {
            const E: &str = "two nested variables and a new one: `collapse(i, j, f)`";
            count(3, E)?;
            Ok(Command::Collapse {
                outer: ident(0, E)?,
                inner: ident(1, E)?,
                fused: ident(2, E)?,
            })
        }
        "split" | "divide" => {
            const E: &str = "a variable, two new variables, `Down` or `Up`, and a factor: `split(i, i0, i1, Down, 16)`";
            let (direction, factor) = match (name.as_str(), args.len()) {
                ("divide", 4) => (Direction::Up, int(3, E)?),
                (_, 5) => {
                    let d = match ident(3, E)?.to_string().as_str() {
                        "Down" => Direction::Down,
                        "Up" => Direction::Up,
                        _ => return Err(wrong(E)),
                    };
                    (d, int(4, E)?)
                }
                _ => return Err(wrong(E)),
            };
            if factor.0 == 0 {
                return Err(Error::new(factor.1, ErrorKind::ZeroFactor(name)));
            }
            Ok(Command::Split {
                var: ident(0, E)?,
                outer: ident(1, E)?,
                inner: ident(2, E)?,
                direction,
                factor,
            })
        }
        "reorder" => {
            const E: &str = "two or more variables: `reorder(j, i)`";
            let vars = (0..args.len())
                .map(|k| ident(k, E))
                .collect::<Result<Vec<_>, _>>()?;
            if vars.len() < 2 {
                return Err(wrong(E));
            }
            Ok(Command::Reorder { vars })
        }
        "precompute" => {
            const E: &str = "an expression, a variable, a new variable and a new workspace: `precompute(A(i,j)*x(j), i, iw, W)`";
            count(4, E)?;
            let expr = match &args[0] {
                CommandArg::Expr(e) => e.clone(),
                CommandArg::Ident(i) => ast::Expr::Access(ast::Access {
                    tensor: i.clone(),
                    indices: Vec::new(),
                    span: i.span(),
                }),
                CommandArg::Int(..) => return Err(wrong(E)),
            };
            Ok(Command::Precompute {
                expr,
                var: ident(1, E)?,
                workspace_var: ident(2, E)?,
                workspace: ident(3, E)?,
            })
        }
        "bound" => {
            const E: &str =
                "a variable, a new variable, a bound and a kind: `bound(i, ib, 64, MaxExact)`";
            count(4, E)?;
            let kind = match ident(3, E)?.to_string().as_str() {
                "MaxExact" => BoundKind::MaxExact,
                "MinExact" => BoundKind::MinExact,
                "MaxConstraint" => BoundKind::MaxConstraint,
                "MinConstraint" => BoundKind::MinConstraint,
                _ => return Err(wrong(E)),
            };
            Ok(Command::Bound {
                var: ident(0, E)?,
                bound: ident(1, E)?,
                value: int(2, E)?,
                kind,
            })
        }
        "unroll" => {
            const E: &str = "a variable and a factor: `unroll(i, 4)`";
            count(2, E)?;
            let factor = int(1, E)?;
            if factor.0 == 0 {
                return Err(Error::new(factor.1, ErrorKind::ZeroFactor(name)));
            }
            Ok(Command::Unroll {
                var: ident(0, E)?,
                factor,
            })
        }
        "parallelize" => {
            const E: &str = "a variable, a unit (`CpuThread`, `CpuVector`, `GpuBlock`, `GpuWarp`, \
                             `GpuThread`) and a race strategy (`NoRaces`, `IgnoreRaces`, `Atomics`, \
                             `Temporary`, `ParallelReduction`)";
            count(3, E)?;
            let unit = match ident(1, E)?.to_string().as_str() {
                "CpuThread" => Unit::CpuThread,
                "CpuVector" => Unit::CpuVector,
                "GpuBlock" => Unit::GpuBlock,
                "GpuWarp" => Unit::GpuWarp,
                "GpuThread" => Unit::GpuThread,
                _ => return Err(wrong(E)),
            };
            let race = match ident(2, E)?.to_string().as_str() {
                "NoRaces" => Race::NoRaces,
                "IgnoreRaces" => Race::IgnoreRaces,
                "Atomics" => Race::Atomics,
                "Temporary" => Race::Temporary,
                "ParallelReduction" => Race::ParallelReduction,
                _ => return Err(wrong(E)),
            };
            Ok(Command::Parallelize {
                var: ident(0, E)?,
                unit,
                race,
            })
        }
        "assemble" => {
            const E: &str = "a tensor and `Append` or `Insert`";
            count(2, E)?;
            let insert = match ident(1, E)?.to_string().as_str() {
                "Append" => false,
                "Insert" => true,
                _ => return Err(wrong(E)),
            };
            Ok(Command::Assemble {
                tensor: ident(0, E)?,
                insert,
            })
        }
        "prefetch" => {
            const E: &str = "a dense input and a distance in nonzeros: `prefetch(x, 64)`";
            count(2, E)?;
            let distance = int(1, E)?;
            if distance.0 == 0 {
                let expected = "a distance of at least one nonzero: `prefetch(x, 64)`";
                let kind = ErrorKind::CommandArgs {
                    command: name,
                    expected,
                };
                return Err(Error::new(distance.1, kind));
            }
            Ok(Command::Prefetch {
                tensor: ident(0, E)?,
                distance,
            })
        }
        _ => Err(Error::new(c.name.span(), ErrorKind::UnknownCommand(name))),
    }
}
