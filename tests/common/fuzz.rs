//! What the fuzz tests share: a small seeded generator and the case count
//! and seed read from the environment (`COLLIDOSCOPE_FUZZ_CASES`,
//! `COLLIDOSCOPE_FUZZ_SEED`).

/// SplitMix64: small, seeded, and the same on every platform.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The number in environment variable `name`, or `default`.
pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v:?} is not a number"))
        })
        .unwrap_or(default)
}

/// `COLLIDOSCOPE_FUZZ_CASES` (or `default`) and `COLLIDOSCOPE_FUZZ_SEED`
/// (or `seed`).
pub fn cases_and_seed(default: u64, seed: u64) -> (u64, u64) {
    (
        env_number("COLLIDOSCOPE_FUZZ_CASES", default),
        env_number("COLLIDOSCOPE_FUZZ_SEED", seed),
    )
}
