//! The `schedule<...>` clause: its grammar, then the typing of each command's arguments.
//!
//! The two happen in turn, not together: the grammar of the whole invocation is matched first, so
//! a token out of place anywhere is reported before a command given the wrong arguments, and
//! only then are the commands typed, each checked for its arity, its keywords (`Down`,
//! `CpuThread`, `MaxExact`, ...) and nonzero factors. What the names refer to is left to
//! `schedule`.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, Token, parenthesized, token};

use super::ast::{
    Access, BoundKind, Command, CommandKind, Direction, Expr, Literal, LiteralValue, Race,
    Schedule, Unit,
};
use super::expr::parse_expr;
use super::parse::{close_angle, error_after_operand, error_at_next, join, kw, open_angle};
use crate::error::{Error, ErrorKind};

/// The clause as written: commands whose arguments are not typed yet.
pub(super) enum Written {
    /// `schedule<auto>`.
    Auto(Span),
    /// A method chain of commands, in order.
    Commands(Vec<WrittenCommand>),
}

/// One command as written: a name and its arguments.
pub(super) struct WrittenCommand {
    name: Ident,
    args: Vec<Arg>,
    /// The span of the whole command.
    span: Span,
}

/// An argument as written.
enum Arg {
    /// A bare identifier: an index variable, a tensor, or a keyword such as `Down` or `CpuThread`.
    Ident(Ident),
    /// An integer.
    Int(usize, Span),
    /// An access or expression with parentheses: `A(i, j)` or `A(i,j) * x(j)` (for `precompute`).
    Expr(Expr),
}

/// `<auto>` or `<cmd(...).cmd(...)>`, after the `schedule` keyword.
pub(super) fn parse_schedule(input: ParseStream) -> syn::Result<Written> {
    open_angle(input, "schedule")?;
    if input.peek(kw::auto) && !input.peek2(token::Paren) {
        let keyword = input.parse::<kw::auto>()?;
        close_angle(input, "`>` after `auto`, which stands alone")?;
        return Ok(Written::Auto(keyword.span));
    }
    let mut commands = vec![input.parse::<WrittenCommand>()?];
    while input.peek(Token![.]) {
        input.parse::<Token![.]>()?;
        commands.push(input.parse()?);
    }
    close_angle(input, "`.` and another command, or `>` to end the schedule")?;
    Ok(Written::Commands(commands))
}

impl Parse for WrittenCommand {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if !input.peek(Ident::peek_any) {
            let expected = "`auto` or a scheduling command such as `split(i, i0, i1, Down, 16)`";
            return Err(error_at_next(input, expected));
        }
        let name = input.call(Ident::parse_any)?;
        if !input.peek(token::Paren) {
            return Err(error_at_next(input, &format!("`(` after `{name}`")));
        }
        let content;
        let paren = parenthesized!(content in input);
        let mut args = Vec::new();
        while !content.is_empty() {
            args.push(content.parse::<Arg>()?);
            if content.is_empty() {
                break;
            }
            if !content.peek(Token![,]) {
                return Err(error_after_operand(
                    &content,
                    "`,` or `)` after an argument",
                ));
            }
            content.parse::<Token![,]>()?;
        }
        let span = join(name.span(), paren.span.join());
        Ok(WrittenCommand { name, args, span })
    }
}

impl Parse for Arg {
    /// An expression, kept as an identifier or an integer when it is no more than that.
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let expr = parse_expr(input)?;
        if let Some((n, span)) = as_index_integer(&expr) {
            return Ok(Arg::Int(n, span));
        }
        Ok(match expr {
            Expr::Access(access) if access.indices.is_empty() => Arg::Ident(access.tensor),
            expr => Arg::Expr(expr),
        })
    }
}

/// The value of an integer literal that fits a `usize`.
fn as_index_integer(expr: &Expr) -> Option<(usize, Span)> {
    match expr {
        Expr::Literal(Literal {
            value: LiteralValue::Int(n),
            span,
        }) => usize::try_from(*n).ok().map(|n| (n, *span)),
        _ => None,
    }
}

impl Written {
    /// The clause with every command typed; the first command given the wrong arguments is an
    /// error.
    pub(super) fn typed(self) -> Result<Schedule, Error> {
        match self {
            Written::Auto(span) => Ok(Schedule::Auto(span)),
            Written::Commands(commands) => {
                let typed = commands.iter().map(WrittenCommand::typed);
                Ok(Schedule::Commands(typed.collect::<Result<_, _>>()?))
            }
        }
    }
}

impl WrittenCommand {
    fn typed(&self) -> Result<Command, Error> {
        let args = Args { command: self };
        let kind = match self.name.to_string().as_str() {
            "pos" => args.pos()?,
            "coord" => args.coord()?,
            "collapse" | "fuse" => args.collapse()?,
            "split" | "divide" => args.split()?,
            "reorder" => args.reorder()?,
            "precompute" => args.precompute()?,
            "bound" => args.bound()?,
            "unroll" => args.unroll()?,
            "parallelize" => args.parallelize()?,
            "assemble" => args.assemble()?,
            "prefetch" => args.prefetch()?,
            name => {
                let kind = ErrorKind::UnknownCommand(name.to_string());
                return Err(Error::new(self.name.span(), kind));
            }
        };
        Ok(Command {
            kind,
            span: self.span,
        })
    }
}

/// The arguments of one command, read by position. Each command's reader names, in `expected`,
/// everything it takes: a mistake in any argument gets that one message, spanned on the whole
/// command.
struct Args<'c> {
    command: &'c WrittenCommand,
}

impl Args<'_> {
    fn name(&self) -> String {
        self.command.name.to_string()
    }

    fn wrong(&self, expected: &'static str) -> Error {
        let kind = ErrorKind::CommandArgs {
            command: self.name(),
            expected,
        };
        Error::new(self.command.span, kind)
    }

    fn count(&self, n: usize, expected: &'static str) -> Result<(), Error> {
        if self.command.args.len() == n {
            Ok(())
        } else {
            Err(self.wrong(expected))
        }
    }

    fn ident(&self, k: usize, expected: &'static str) -> Result<Ident, Error> {
        match self.command.args.get(k) {
            Some(Arg::Ident(i)) => Ok(i.clone()),
            _ => Err(self.wrong(expected)),
        }
    }

    fn int(&self, k: usize, expected: &'static str) -> Result<(usize, Span), Error> {
        match self.command.args.get(k) {
            Some(Arg::Int(n, span)) => Ok((*n, *span)),
            _ => Err(self.wrong(expected)),
        }
    }

    /// Argument `k` as one of the keywords of `table`.
    fn keyword<T: Copy>(
        &self,
        k: usize,
        expected: &'static str,
        table: &[(&str, T)],
    ) -> Result<T, Error> {
        let word = self.ident(k, expected)?.to_string();
        let found = table.iter().find(|(w, _)| *w == word);
        found
            .map(|&(_, value)| value)
            .ok_or_else(|| self.wrong(expected))
    }

    /// A factor of at least 1, spanned on itself when it is 0.
    fn factor(&self, k: usize, expected: &'static str) -> Result<(usize, Span), Error> {
        let factor = self.int(k, expected)?;
        if factor.0 == 0 {
            return Err(Error::new(factor.1, ErrorKind::ZeroFactor(self.name())));
        }
        Ok(factor)
    }

    fn pos(&self) -> Result<CommandKind, Error> {
        const E: &str = "a variable, a new position variable and a tensor: `pos(i, p, A)`";
        self.count(3, E)?;
        let tensor = match &self.command.args[2] {
            Arg::Ident(t) => t.clone(),
            Arg::Expr(Expr::Access(a)) => a.tensor.clone(),
            _ => return Err(self.wrong(E)),
        };
        Ok(CommandKind::Pos {
            var: self.ident(0, E)?,
            pos: self.ident(1, E)?,
            tensor,
        })
    }

    fn coord(&self) -> Result<CommandKind, Error> {
        const E: &str = "a position variable and a new coordinate variable: `coord(p, i)`";
        self.count(2, E)?;
        Ok(CommandKind::Coord {
            pos: self.ident(0, E)?,
            coord: self.ident(1, E)?,
        })
    }

    fn collapse(&self) -> Result<CommandKind, Error> {
        const E: &str = "two nested variables and a new one: `collapse(i, j, f)`";
        self.count(3, E)?;
        Ok(CommandKind::Collapse {
            outer: self.ident(0, E)?,
            inner: self.ident(1, E)?,
            fused: self.ident(2, E)?,
        })
    }

    /// `split(i, i0, i1, Down|Up, n)`, or `divide(i, i0, i1, n)`, which is `split` with `Up`.
    fn split(&self) -> Result<CommandKind, Error> {
        const E: &str = "a variable, two new variables, `Down` or `Up`, and a factor: `split(i, i0, i1, Down, 16)`";
        const DIRECTIONS: &[(&str, Direction)] =
            &[("Down", Direction::Down), ("Up", Direction::Up)];
        let (direction, factor) = match (self.name().as_str(), self.command.args.len()) {
            ("divide", 4) => (Direction::Up, self.factor(3, E)?),
            (_, 5) => (self.keyword(3, E, DIRECTIONS)?, self.factor(4, E)?),
            _ => return Err(self.wrong(E)),
        };
        Ok(CommandKind::Split {
            var: self.ident(0, E)?,
            outer: self.ident(1, E)?,
            inner: self.ident(2, E)?,
            direction,
            factor,
        })
    }

    fn reorder(&self) -> Result<CommandKind, Error> {
        const E: &str = "two or more variables: `reorder(j, i)`";
        let vars = (0..self.command.args.len())
            .map(|k| self.ident(k, E))
            .collect::<Result<Vec<_>, _>>()?;
        if vars.len() < 2 {
            return Err(self.wrong(E));
        }
        Ok(CommandKind::Reorder { vars })
    }

    fn precompute(&self) -> Result<CommandKind, Error> {
        const E: &str = "an expression, a variable, a new variable and a new workspace: `precompute(A(i,j)*x(j), i, iw, W)`";
        self.count(4, E)?;
        let expr = match &self.command.args[0] {
            Arg::Expr(e) => e.clone(),
            // A bare name is a scalar tensor, which the expression grammar reads as an access.
            Arg::Ident(i) => Expr::Access(Access {
                tensor: i.clone(),
                indices: Vec::new(),
                span: i.span(),
            }),
            Arg::Int(..) => return Err(self.wrong(E)),
        };
        Ok(CommandKind::Precompute {
            expr,
            var: self.ident(1, E)?,
            workspace_var: self.ident(2, E)?,
            workspace: self.ident(3, E)?,
        })
    }

    fn bound(&self) -> Result<CommandKind, Error> {
        const E: &str =
            "a variable, a new variable, a bound and a kind: `bound(i, ib, 64, MaxExact)`";
        const KINDS: &[(&str, BoundKind)] = &[
            ("MaxExact", BoundKind::MaxExact),
            ("MinExact", BoundKind::MinExact),
            ("MaxConstraint", BoundKind::MaxConstraint),
            ("MinConstraint", BoundKind::MinConstraint),
        ];
        self.count(4, E)?;
        let kind = self.keyword(3, E, KINDS)?;
        Ok(CommandKind::Bound {
            var: self.ident(0, E)?,
            bound: self.ident(1, E)?,
            value: self.int(2, E)?,
            kind,
        })
    }

    fn unroll(&self) -> Result<CommandKind, Error> {
        const E: &str = "a variable and a factor: `unroll(i, 4)`";
        self.count(2, E)?;
        let factor = self.factor(1, E)?;
        Ok(CommandKind::Unroll {
            var: self.ident(0, E)?,
            factor,
        })
    }

    fn parallelize(&self) -> Result<CommandKind, Error> {
        const E: &str = "a variable, a unit (`CpuThread`, `CpuVector`, `GpuBlock`, `GpuWarp`, \
                         `GpuThread`) and a race strategy (`NoRaces`, `IgnoreRaces`, `Atomics`, \
                         `Temporary`, `ParallelReduction`)";
        const UNITS: &[(&str, Unit)] = &[
            ("CpuThread", Unit::CpuThread),
            ("CpuVector", Unit::CpuVector),
            ("GpuBlock", Unit::GpuBlock),
            ("GpuWarp", Unit::GpuWarp),
            ("GpuThread", Unit::GpuThread),
        ];
        const RACES: &[(&str, Race)] = &[
            ("NoRaces", Race::NoRaces),
            ("IgnoreRaces", Race::IgnoreRaces),
            ("Atomics", Race::Atomics),
            ("Temporary", Race::Temporary),
            ("ParallelReduction", Race::ParallelReduction),
        ];
        self.count(3, E)?;
        let unit = self.keyword(1, E, UNITS)?;
        let race = self.keyword(2, E, RACES)?;
        Ok(CommandKind::Parallelize {
            var: self.ident(0, E)?,
            unit,
            race,
        })
    }

    fn assemble(&self) -> Result<CommandKind, Error> {
        const E: &str = "a tensor and `Append` or `Insert`";
        self.count(2, E)?;
        let insert = self.keyword(1, E, &[("Append", false), ("Insert", true)])?;
        Ok(CommandKind::Assemble {
            tensor: self.ident(0, E)?,
            insert,
        })
    }

    fn prefetch(&self) -> Result<CommandKind, Error> {
        const E: &str = "a dense input and a distance in nonzeros: `prefetch(x, 64)`";
        self.count(2, E)?;
        let distance = self.int(1, E)?;
        if distance.0 == 0 {
            let kind = ErrorKind::CommandArgs {
                command: self.name(),
                expected: "a distance of at least one nonzero: `prefetch(x, 64)`",
            };
            return Err(Error::new(distance.1, kind));
        }
        Ok(CommandKind::Prefetch {
            tensor: self.ident(0, E)?,
            distance,
        })
    }
}
