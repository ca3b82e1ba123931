//! The mistakes of concrete index notation written directly (`forall`, `where`, `sequence`,
//! `multi` and `temporaries<...>`), each a spanned error on the offending name or statement.

/// A mistake in a statement written in concrete index notation.
#[derive(Clone, Debug, PartialEq)]
pub enum CinMistake {
    /// An index variable used where no enclosing `forall` binds it.
    Unbound(String),
    /// `forall(i, ..)` inside another `forall(i, ..)`.
    Rebound(String),
    /// A `forall` whose variable no tensor access inside it uses: its extent is unknown.
    NoExtent(String),
    /// A temporary read where no `where` that produces it encloses the read.
    ReadBeforeWrite(String),
    /// A temporary that is produced but that no consumer reads.
    Unread(String),
    /// A `where` producer that assigns something other than a declared temporary.
    Undeclared(String),
    /// A temporary accessed with the wrong number of indices for its declaration.
    TempIndices {
        /// The temporary.
        name: String,
        /// Whether it is declared `dense`.
        dense: bool,
    },
    /// A dense temporary read with another index than the one its producer writes it with.
    TempIndex {
        /// The temporary.
        name: String,
        /// The index its producer uses.
        expected: String,
    },
    /// An assignment with `=` inside a `forall` over a variable its left side does not use: each
    /// iteration would overwrite the last.
    Overwrite {
        /// The place written.
        place: String,
        /// The variable.
        var: String,
    },
    /// An assignment with `=` to the output after an earlier assignment to it.
    SecondOverwrite(String),
    /// A loop order that visits a sparse level before the levels above it.
    Order {
        /// The tensor.
        tensor: String,
        /// The variable of the sparse level.
        inner: String,
        /// The variable of a level above it, whose loop must enclose the other's.
        outer: String,
    },
    /// An assignment to a tensor that is neither the output nor a temporary.
    SecondOutput {
        /// The first output.
        output: String,
        /// The other tensor.
        other: String,
    },
    /// Two assignments to the output with different indices.
    OutputIndices(String),
    /// A `where` whose producer does not end in an assignment to a temporary.
    ProducerWritesOutput,
    /// A temporary assigned outside the producer of a `where`.
    OutsideProducer(String),
    /// Two statements of one `multi(..)` that assign the same output.
    MultiSameOutput(String),
    /// A statement of a `multi(..)` that reads another statement's output.
    MultiReadsOutput {
        /// The output read.
        read: String,
        /// The output the reading statement computes.
        reader: String,
    },
}

impl CinMistake {
    /// The message shown to the user.
    pub fn message(&self) -> String {
        match self {
            CinMistake::Unbound(i) => format!(
                "index `{i}` is used outside any `forall({i}, ..)`: wrap the statement that \
                 uses it in one"
            ),
            CinMistake::Rebound(i) => {
                format!(
                    "`forall({i}, ..)` inside another `forall({i}, ..)`: `{i}` is already bound"
                )
            }
            CinMistake::NoExtent(i) => format!(
                "no tensor inside `forall({i}, ..)` is indexed by `{i}`, so its extent is unknown"
            ),
            CinMistake::ReadBeforeWrite(t) => format!(
                "temporary `{t}` is read before any producer writes it: read it in the consumer \
                 of a `where(.., producer)` whose producer assigns `{t}`"
            ),
            CinMistake::Unread(t) => format!(
                "temporary `{t}` is produced but never read: the consumer of its `where` must \
                 use it"
            ),
            CinMistake::Undeclared(t) => format!(
                "`{t}` is assigned by the producer of a `where` but is not a temporary: declare \
                 it in `temporaries< {t} >` (or `temporaries< {t}: dense >` for a vector)"
            ),
            CinMistake::TempIndices { name, dense: true } => format!(
                "dense temporary `{name}` is a vector: access it with one index, `{name}(j)`"
            ),
            CinMistake::TempIndices { name, dense: false } => format!(
                "temporary `{name}` is a scalar: write it without indices, or declare it \
                 `{name}: dense`"
            ),
            CinMistake::TempIndex { name, expected } => format!(
                "dense temporary `{name}` is written at `{name}({expected})` and must be read there"
            ),
            CinMistake::Overwrite { place, var } => format!(
                "`{place} = ..` inside `forall({var}, ..)` overwrites `{place}` for every `{var}`; \
                 write `+=` to reduce over `{var}`"
            ),
            CinMistake::SecondOverwrite(t) => format!(
                "`{t}` is already written by an earlier assignment: only the first assignment to \
                 the output may use `=`; write `+=` to add to it"
            ),
            CinMistake::Order {
                tensor,
                inner,
                outer,
            } => format!(
                "the loop over `{inner}` visits `{tensor}` out of its storage order: \
                 `forall({outer}, ..)` must enclose `forall({inner}, ..)` (a sparse level is \
                 iterated below its parent level); reorder the foralls or change `{tensor}`'s \
                 format"
            ),
            CinMistake::SecondOutput { output, other } => format!(
                "`{other}` is assigned but `{output}` is the output: a kernel computing several \
                 outputs is written `multi(..)`; a workspace is declared in `temporaries<...>`"
            ),
            CinMistake::OutputIndices(t) => {
                format!("every assignment to `{t}` must use the same indices, in the same order")
            }
            CinMistake::ProducerWritesOutput => "the producer of a `where` (its second statement) \
                 must assign a temporary that the consumer reads"
                .to_string(),
            CinMistake::OutsideProducer(t) => format!(
                "temporary `{t}` is assigned outside the producer of a `where`: compute it in \
                 `where(consumer, producer)`, where the consumer reads it"
            ),
            CinMistake::MultiSameOutput(t) => format!(
                "`{t}` is assigned by two statements of `multi(..)`, which computes a different \
                 output in each: write the statements that compute `{t}` in `sequence(..)`"
            ),
            CinMistake::MultiReadsOutput { read, reader } => format!(
                "the statement computing `{reader}` reads `{read}`, another output of this \
                 `multi(..)`: each statement of a `multi` reads only inputs (compute `{read}` in \
                 a kernel of its own and pass it in)"
            ),
        }
    }
}
