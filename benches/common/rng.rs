//! The benchmarks' random numbers: xorshift64, a few lines, deterministic, and plenty random for
//! matrix structure, so every run measures the same seeded inputs.

/// A xorshift64 generator; the seed must be nonzero.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in `0..n` (multiply-shift, so no modulo bias worth measuring).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `(0, 1]`.
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// A value in `[1, 2)`: never an explicit zero, and no sum of them cancels.
    pub fn value(&mut self) -> f64 {
        1.0 + (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
