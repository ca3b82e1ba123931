// Twin of `format-dimension-twice.rs`: the same custom format storing each dimension once.
use sparse::LevelSpec;
use sparse::prelude::*;

#[derive(Clone, Copy, Debug, Default)]
struct RowsThenColumns;

impl Format for RowsThenColumns {
    const NAME: &'static str = "rows-then-columns";
    const ORDER: usize = 2;
    const LEVELS: &'static [LevelSpec] = &[LevelSpec::dense(0), LevelSpec::compressed(1)];
}

fn main() {
    let t = Tensor::<f64, RowsThenColumns>::from_entries([2, 3], [([1, 2], 4.0)]).unwrap();
    assert_eq!(t.to_dense(), vec![0.0, 0.0, 0.0, 0.0, 0.0, 4.0]);
}
