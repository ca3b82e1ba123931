//! Iteration lattices (merge lattices, Kjolstad 2020 and Chou et al. 2018): for the
//! loop over one index variable, which level iterators are coiterated, which are located, and
//! which sub-regions of the iteration space the loop's cases cover.
//!
//! A lattice is built bottom-up over the loop body's expression: an access contributes its
//! iterator, and each operator combines its operands' lattices by the rule `algebra` derives
//! from its value at the operands' fills: operands whose fill alone decides the result are
//! intersected, the others joined as optional (co-iterated where present); an operator that no
//! single operand decides unites them. Each lattice covers where its expression may differ from
//! its own value at the fills; where the whole expression's value there is not the one the loop
//! may skip (the identity of its reduction, the output's fill), the loop adds the whole
//! dimension. Literal operands take part in the rule but are not iterated. Two optimizations from the level
//! properties: a full (dense) level in a point makes the point iterate the dimension and
//! *locate* into its dense levels instead of coiterating them, and once the top point iterates the
//! whole dimension, points that lack it are dropped (nothing is left to iterate after a full
//! iterator is exhausted).

use std::collections::BTreeSet;

use crate::algebra::Iteration;
use crate::notation::Expr;

/// How an access's level is visited by the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IterKind {
    /// A full level with locate (dense): the loop iterates the dimension and locates into it.
    Full,
    /// A level iterated by position (compressed, singleton), ordered and unique.
    Position,
}

/// One access's level that the loop's index variable reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Iterator {
    /// The access's number.
    pub access: usize,
    /// The level.
    pub level: usize,
}

/// A lattice point: the position iterators that are all non-exhausted in the region it covers, and
/// whether the region is dense (the dimension iterator is part of it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    /// Position iterators, merged by minimum coordinate.
    pub iterators: BTreeSet<Iterator>,
    /// Whether the point iterates the whole dimension.
    pub dense: bool,
}

/// A merge lattice: points ordered from the top (every iterator) down.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lattice {
    /// The points, top first.
    pub points: Vec<Point>,
}

impl Lattice {
    /// Builds the lattice of `expr` for one loop that may skip the coordinates where `expr` is
    /// `skip`; `iterator_of(access)` gives the access's iterator at this loop, if its next level
    /// is reached by the loop's variable.
    pub fn build(
        expr: &Expr,
        iterator_of: &dyn Fn(usize) -> Option<(Iterator, IterKind)>,
        skip: f64,
    ) -> Lattice {
        let mut lattice = build(expr, iterator_of);
        if !expr.fill().is_some_and(|f| crate::algebra::same(f, skip)) {
            lattice = union(&lattice, &everywhere());
        }
        lattice.optimized()
    }

    /// The points covered by `point`'s loop: those whose iterators are a subset of its own.
    pub fn sub_points(&self, point: &Point) -> Vec<&Point> {
        self.points
            .iter()
            .filter(|q| q.iterators.is_subset(&point.iterators) && (point.dense || !q.dense))
            .collect()
    }

    /// Every position iterator of the lattice.
    pub fn iterators(&self) -> BTreeSet<Iterator> {
        self.points
            .iter()
            .flat_map(|p| p.iterators.iter().copied())
            .collect()
    }

    fn optimized(mut self) -> Lattice {
        if self.points.first().is_some_and(|p| p.dense) {
            self.points.retain(|p| p.dense);
        }
        let mut seen: Vec<Point> = Vec::new();
        self.points.retain(|p| {
            let new = !seen.contains(p);
            seen.push(p.clone());
            new
        });
        self.points
            .sort_by_key(|p| std::cmp::Reverse((p.iterators.len(), p.dense)));
        self
    }
}

fn point(iterators: BTreeSet<Iterator>, dense: bool) -> Lattice {
    Lattice {
        points: vec![Point { iterators, dense }],
    }
}

fn build(expr: &Expr, iterator_of: &dyn Fn(usize) -> Option<(Iterator, IterKind)>) -> Lattice {
    match expr {
        Expr::Access { id, .. } => match iterator_of(*id) {
            Some((it, IterKind::Position)) => point(BTreeSet::from([it]), false),
            Some((_, IterKind::Full)) | None => point(BTreeSet::new(), true),
        },
        Expr::Temp(_) | Expr::Literal(_) => everywhere(),
        Expr::Op(..) if expr.constant().is_some() => everywhere(),
        Expr::Op(_, args) => {
            // Literal operands are part of the rule; only the others are iterated.
            let operands: Vec<(usize, Lattice)> = (args.iter().enumerate())
                .filter(|(_, a)| a.constant().is_none())
                .map(|(k, a)| (k, build(a, iterator_of)))
                .collect();
            match expr.iteration() {
                Some(Iteration::Sparse { required }) if required.contains(&true) => {
                    let (needed, optional): (Vec<_>, Vec<_>) =
                        operands.into_iter().partition(|(k, _)| required[*k]);
                    let needed = needed.into_iter().map(|(_, l)| l);
                    let optional = optional.into_iter().map(|(_, l)| union(&l, &everywhere()));
                    fold(needed.chain(optional), intersect)
                }
                Some(Iteration::Sparse { .. }) => fold(operands.into_iter().map(|(_, l)| l), union),
                Some(Iteration::Dense) | None => {
                    let all = fold(operands.into_iter().map(|(_, l)| l), union);
                    union(&all, &everywhere())
                }
            }
        }
    }
}

/// The whole dimension with no iterator: a literal, a dense operand, a temporary.
fn everywhere() -> Lattice {
    point(BTreeSet::new(), true)
}

/// The operands' lattices combined left to right (a constant's, the whole dimension, if none).
fn fold(
    lattices: impl std::iter::Iterator<Item = Lattice>,
    combine: fn(&Lattice, &Lattice) -> Lattice,
) -> Lattice {
    lattices
        .reduce(|a, b| combine(&a, &b))
        .unwrap_or_else(everywhere)
}

/// Conjunction: a point per pair; the region is dense only where both are.
fn intersect(a: &Lattice, b: &Lattice) -> Lattice {
    let mut points = Vec::new();
    for p in &a.points {
        for q in &b.points {
            let iterators = p.iterators.union(&q.iterators).copied().collect();
            points.push(Point {
                iterators,
                dense: p.dense && q.dense,
            });
        }
    }
    Lattice { points }
}

/// Disjunction: the pairs (both present), then each side alone; dense if either is.
fn union(a: &Lattice, b: &Lattice) -> Lattice {
    let mut points = Vec::new();
    for p in &a.points {
        for q in &b.points {
            let iterators = p.iterators.union(&q.iterators).copied().collect();
            points.push(Point {
                iterators,
                dense: p.dense || q.dense,
            });
        }
    }
    points.extend(a.points.iter().cloned());
    points.extend(b.points.iter().cloned());
    Lattice { points }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algebra::Op;
    use crate::notation::Access;

    fn access(id: usize) -> Expr {
        Expr::Access {
            id,
            access: Access {
                tensor: id,
                indices: vec![0],
                level_vars: vec![0],
                fill: crate::notation::Fill(0.0),
            },
        }
    }

    fn sparse(ids: &[usize]) -> impl Fn(usize) -> Option<(Iterator, IterKind)> + '_ {
        move |id| {
            let kind = if ids.contains(&id) {
                IterKind::Position
            } else {
                IterKind::Full
            };
            Some((
                Iterator {
                    access: id,
                    level: 0,
                },
                kind,
            ))
        }
    }

    fn its(ids: &[usize]) -> BTreeSet<Iterator> {
        ids.iter()
            .map(|&access| Iterator { access, level: 0 })
            .collect()
    }

    fn bin(op: Op, a: Expr, b: Expr) -> Expr {
        Expr::Op(op, vec![a, b])
    }

    #[test]
    fn sparse_union_has_three_points() {
        let l = Lattice::build(&bin(Op::Add, access(1), access(2)), &sparse(&[1, 2]), 0.0);
        let sets: Vec<_> = l.points.iter().map(|p| p.iterators.clone()).collect();
        assert_eq!(sets, vec![its(&[1, 2]), its(&[1]), its(&[2])]);
    }

    #[test]
    fn sparse_intersection_has_one_point() {
        let l = Lattice::build(&bin(Op::Mul, access(1), access(2)), &sparse(&[1, 2]), 0.0);
        assert_eq!(
            l.points,
            vec![Point {
                iterators: its(&[1, 2]),
                dense: false
            }]
        );
    }

    #[test]
    fn dense_plus_sparse_drops_the_sparse_only_point() {
        let l = Lattice::build(&bin(Op::Add, access(1), access(2)), &sparse(&[2]), 0.0);
        assert_eq!(
            l.points,
            vec![
                Point {
                    iterators: its(&[2]),
                    dense: true
                },
                Point {
                    iterators: its(&[]),
                    dense: true
                }
            ]
        );
    }

    #[test]
    fn sum_of_product_matches_the_digest() {
        // b + c*d, all sparse: [{b,c,d}, {c,d}, {b}].
        let e = bin(Op::Add, access(1), bin(Op::Mul, access(2), access(3)));
        let l = Lattice::build(&e, &sparse(&[1, 2, 3]), 0.0);
        let sets: Vec<_> = l.points.iter().map(|p| p.iterators.clone()).collect();
        assert_eq!(sets, vec![its(&[1, 2, 3]), its(&[2, 3]), its(&[1])]);
    }

    #[test]
    fn product_with_dense_operand_iterates_the_sparse_one() {
        let l = Lattice::build(&bin(Op::Mul, access(1), access(2)), &sparse(&[1]), 0.0);
        assert_eq!(
            l.points,
            vec![Point {
                iterators: its(&[1]),
                dense: false
            }]
        );
    }

    fn lit(n: i64) -> Expr {
        Expr::Literal(crate::syntax::ast::LiteralValue::Int(n))
    }

    #[test]
    fn a_function_nonzero_at_zero_iterates_the_whole_dimension() {
        // exp(x), x sparse: x's entries, then the rest of the dimension.
        let l = Lattice::build(&Expr::Op(Op::Exp, vec![access(1)]), &sparse(&[1]), 0.0);
        let points: Vec<_> = l
            .points
            .iter()
            .map(|p| (p.iterators.clone(), p.dense))
            .collect();
        assert_eq!(points, vec![(its(&[1]), true), (its(&[]), true)]);
    }

    #[test]
    fn a_function_zero_at_zero_iterates_its_operand() {
        let l = Lattice::build(&Expr::Op(Op::Sqrt, vec![access(1)]), &sparse(&[1]), 0.0);
        assert_eq!(
            l.points,
            vec![Point {
                iterators: its(&[1]),
                dense: false
            }]
        );
    }

    #[test]
    fn literals_decide_between_intersection_and_the_whole_dimension() {
        let max = |c| Expr::Op(Op::Max, vec![access(1), Expr::Op(Op::Neg, vec![lit(c)])]);
        let l = Lattice::build(&max(1), &sparse(&[1]), 0.0);
        assert_eq!(
            l.points,
            vec![Point {
                iterators: its(&[1]),
                dense: false
            }]
        );
        let l = Lattice::build(&max(-1), &sparse(&[1]), 0.0);
        assert!(l.points.iter().all(|p| p.dense), "{l:?}");
    }

    #[test]
    fn a_comparison_that_is_false_at_zero_unites() {
        let l = Lattice::build(&bin(Op::Lt, access(1), access(2)), &sparse(&[1, 2]), 0.0);
        let sets: Vec<_> = l.points.iter().map(|p| p.iterators.clone()).collect();
        assert_eq!(sets, vec![its(&[1, 2]), its(&[1]), its(&[2])]);
    }
}
