//! The named formats of the `formats<...>` clause, by name: what the compiler looks up when a user
//! writes `A: csr`. Level lists come from the format types themselves, so a name and its type can
//! never disagree; level lists that no name covers are encoded in the type [`Custom`].

use crate::format::*;
use crate::level::{Coord, LevelKind, LevelSpec};

/// The highest tensor order the named any-order formats (`dense`, `coo`, `csf`) are instantiated for.
pub const MAX_ORDER: usize = 8;

/// A named format resolved for a tensor of a given order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedFormat {
    /// The runtime type's name in `sparse_runtime` (`"Csr"`, `"Coo"`, `"Bcsr"`).
    pub type_name: &'static str,
    /// The type's const generic arguments (`Coo<3>` has `[3]`).
    pub type_args: Vec<usize>,
    /// The type's level list.
    pub levels: Vec<LevelSpec>,
}

/// Why a name did not resolve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedFormatError {
    /// No format has this name.
    Unknown,
    /// The format takes other arguments; the text says which.
    Arguments(&'static str),
    /// The format does not store tensors of this order; the text says which it stores.
    Order(&'static str),
}

macro_rules! any_order {
    ($ty:ident, $order:expr) => {
        match $order {
            0 => Some(<$ty<0> as Format>::LEVELS),
            1 => Some(<$ty<1> as Format>::LEVELS),
            2 => Some(<$ty<2> as Format>::LEVELS),
            3 => Some(<$ty<3> as Format>::LEVELS),
            4 => Some(<$ty<4> as Format>::LEVELS),
            5 => Some(<$ty<5> as Format>::LEVELS),
            6 => Some(<$ty<6> as Format>::LEVELS),
            7 => Some(<$ty<7> as Format>::LEVELS),
            8 => Some(<$ty<8> as Format>::LEVELS),
            _ => None,
        }
    };
}

/// Resolves `name(args)` for a tensor of `order` dimensions.
pub fn named_format(
    name: &str,
    order: usize,
    args: &[usize],
) -> Result<NamedFormat, NamedFormatError> {
    let fixed = |type_name, levels: &'static [LevelSpec], orders| {
        if !args.is_empty() {
            return Err(NamedFormatError::Arguments("no arguments"));
        }
        if levels.is_empty() || order_of(levels) != order {
            return Err(NamedFormatError::Order(orders));
        }
        Ok(NamedFormat {
            type_name,
            type_args: Vec::new(),
            levels: levels.to_vec(),
        })
    };
    let any = |type_name, levels: Option<&'static [LevelSpec]>, lowest: usize| {
        if !args.is_empty() {
            return Err(NamedFormatError::Arguments("no arguments"));
        }
        match levels {
            Some(levels) if order >= lowest => Ok(NamedFormat {
                type_name,
                type_args: vec![order],
                levels: levels.to_vec(),
            }),
            _ if lowest == 0 => Err(NamedFormatError::Order("0 to 8")),
            _ => Err(NamedFormatError::Order("1 to 8")),
        }
    };
    match name {
        "dense" => any("Dense", any_order!(Dense, order), 0),
        "coo" => any("Coo", any_order!(Coo, order), 1),
        "csf" => any("Csf", any_order!(Csf, order), 1),
        "sparse" => fixed("SparseVec", SparseVec::LEVELS, "1"),
        "csr" => fixed("Csr", Csr::LEVELS, "2"),
        "csc" => fixed("Csc", Csc::LEVELS, "2"),
        "dcsr" => fixed("Dcsr", Dcsr::LEVELS, "2"),
        "dcsc" => fixed("Dcsc", Dcsc::LEVELS, "2"),
        "ell" => fixed("Ell", Ell::LEVELS, "2"),
        "dia" => fixed("Dia", Dia::LEVELS, "2"),
        "hash" if order == 1 => fixed("HashVec", HashVec::LEVELS, "1 or 2"),
        "hash" => fixed("HashMat", HashMat::LEVELS, "1 or 2"),
        "bitvec" => fixed("BitVec", BitVec::LEVELS, "1"),
        "bcsr" => bcsr(order, args),
        _ => Err(NamedFormatError::Unknown),
    }
}

/// BCSR's level list for any block size (the runtime type `Bcsr<R, C>` has the same list).
fn bcsr(order: usize, args: &[usize]) -> Result<NamedFormat, NamedFormatError> {
    let &[r, c] = args else {
        return Err(NamedFormatError::Arguments(
            "two nonzero block sizes, as in `bcsr(4, 4)`",
        ));
    };
    if r == 0 || c == 0 {
        return Err(NamedFormatError::Arguments(
            "two nonzero block sizes, as in `bcsr(4, 4)`",
        ));
    }
    if order != 2 {
        return Err(NamedFormatError::Order("2"));
    }
    let levels = vec![
        LevelSpec::dense(0).with_coord(Coord::BlockOuter { dim: 0, block: r }),
        LevelSpec::compressed(1).with_coord(Coord::BlockOuter { dim: 1, block: c }),
        LevelSpec::dense(0).with_coord(Coord::BlockInner { dim: 0, block: r }),
        LevelSpec::dense(1).with_coord(Coord::BlockInner { dim: 1, block: c }),
    ];
    Ok(NamedFormat {
        type_name: "Bcsr",
        type_args: vec![r, c],
        levels,
    })
}

/// The number of logical dimensions a level list stores.
pub fn order_of(levels: &[LevelSpec]) -> usize {
    levels
        .iter()
        .filter_map(|l| match l.coord {
            Coord::Dim(d) | Coord::BlockOuter { dim: d, .. } => Some(d + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// A format given by an explicit level list, every level storing a whole logical dimension
/// (`(dense, compressed(unordered)) order(1, 0)` in a `formats<...>` clause). The list is encoded in
/// the const parameter by [`encode_levels`], so two writings of the same list are the same type.
///
/// ```
/// use sparse_format::{encode_levels, Custom, Format, LevelSpec};
///
/// type Csc2 = Custom<{ encode_levels(&[LevelSpec::dense(1), LevelSpec::compressed(0).unordered()]) }>;
/// assert_eq!(Csc2::LEVELS, &[LevelSpec::dense(1), LevelSpec::compressed(0).unordered()]);
/// assert_eq!(Csc2::ORDER, 2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Custom<const CODE: u128>;

impl<const CODE: u128> Custom<CODE> {
    const ALL: [LevelSpec; MAX_ORDER] = decode_levels(CODE);
    const ALL_REF: &'static [LevelSpec; MAX_ORDER] = &Self::ALL;
}

impl<const CODE: u128> Format for Custom<CODE> {
    const NAME: &'static str = "custom";
    const ORDER: usize = level_count(CODE);
    const LEVELS: &'static [LevelSpec] = Self::ALL_REF.split_at(level_count(CODE)).0;
}

const KINDS: [LevelKind; LevelKind::ALL.len()] = LevelKind::ALL;

/// Encodes up to [`MAX_ORDER`] levels that each store a whole dimension below 8 into a `u128`:
/// 16 bits per level (kind + 1, ordered, unique, dimension), 0 for "no level".
///
/// # Panics
/// At compile time when used in a const argument: more than 8 levels, or a level that stores a
/// block or slot coordinate or a dimension of 8 or more.
pub const fn encode_levels(levels: &[LevelSpec]) -> u128 {
    assert!(
        levels.len() <= MAX_ORDER,
        "a custom format has at most 8 levels"
    );
    let mut code = 0u128;
    let mut k = 0;
    while k < levels.len() {
        let l = levels[k];
        let Coord::Dim(dim) = l.coord else {
            panic!("a custom format's levels each store a whole dimension");
        };
        assert!(
            dim < MAX_ORDER,
            "a custom format stores at most 8 dimensions"
        );
        let kind = match l.kind {
            LevelKind::Dense => 1,
            LevelKind::Compressed => 2,
            LevelKind::Singleton => 3,
            LevelKind::Range => 4,
            LevelKind::Offset => 5,
            LevelKind::Hashed => 6,
            LevelKind::Bitmap => 7,
        };
        let bits = kind | (l.ordered as u128) << 3 | (l.unique as u128) << 4 | (dim as u128) << 5;
        code |= bits << (16 * k);
        k += 1;
    }
    code
}

const fn level_count(code: u128) -> usize {
    let mut k = 0;
    while k < MAX_ORDER && (code >> (16 * k)) & 7 != 0 {
        k += 1;
    }
    k
}

const fn decode_levels(code: u128) -> [LevelSpec; MAX_ORDER] {
    let mut levels = [LevelSpec::dense(0); MAX_ORDER];
    let mut k = 0;
    while k < level_count(code) {
        let bits = (code >> (16 * k)) & 0xffff;
        let kind = KINDS[(bits & 7) as usize - 1];
        let mut l = LevelSpec::new(kind, ((bits >> 5) & 7) as usize);
        l.ordered = (bits >> 3) & 1 == 1;
        l.unique = (bits >> 4) & 1 == 1;
        levels[k] = l;
        k += 1;
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_the_types_level_lists() {
        assert_eq!(named_format("csr", 2, &[]).unwrap().levels, Csr::LEVELS);
        assert_eq!(
            named_format("coo", 3, &[]).unwrap().levels,
            Coo::<3>::LEVELS
        );
        assert_eq!(named_format("dense", 0, &[]).unwrap().type_args, vec![0]);
        assert_eq!(
            named_format("bcsr", 2, &[2, 3]).unwrap().levels,
            Bcsr::<2, 3>::LEVELS
        );
        assert_eq!(named_format("hash", 1, &[]).unwrap().type_name, "HashVec");
        assert_eq!(
            named_format("bitvec", 1, &[]).unwrap().levels,
            BitVec::LEVELS
        );
    }

    #[test]
    fn wrong_names_orders_and_arguments_are_reported() {
        assert_eq!(named_format("csx", 2, &[]), Err(NamedFormatError::Unknown));
        assert_eq!(
            named_format("csr", 1, &[]),
            Err(NamedFormatError::Order("2"))
        );
        assert!(matches!(
            named_format("bcsr", 2, &[4]),
            Err(NamedFormatError::Arguments(_))
        ));
        assert!(matches!(
            named_format("csr", 2, &[4]),
            Err(NamedFormatError::Arguments(_))
        ));
        assert!(matches!(
            named_format("csf", 9, &[]),
            Err(NamedFormatError::Order(_))
        ));
    }

    #[test]
    fn custom_levels_round_trip_through_the_code() {
        let levels = [
            LevelSpec::hashed(2),
            LevelSpec::compressed(0).non_unique(),
            LevelSpec::singleton(1),
            LevelSpec::bitmap(3),
        ];
        assert_eq!(&decode_levels(encode_levels(&levels))[..4], &levels);
        assert_eq!(level_count(encode_levels(&levels)), 4);
        assert_eq!(level_count(encode_levels(&[])), 0);
    }
}
