// A custom format must store every dimension exactly once: building a tensor of one that stores
// dimension 0 twice (and dimension 1 never) fails the level check at compile time.
use sparse::LevelSpec;
use sparse::prelude::*;

#[derive(Clone, Copy, Debug, Default)]
struct RowsTwice;

impl Format for RowsTwice {
    const NAME: &'static str = "rows-twice";
    const ORDER: usize = 2;
    const LEVELS: &'static [LevelSpec] = &[LevelSpec::dense(0), LevelSpec::compressed(0)];
}

fn main() {
    let _ = Tensor::<f64, RowsTwice>::zeros([2, 3]);
}
