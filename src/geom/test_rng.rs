//! xorshift64*: deterministic test data without a `rand` dependency, for
//! the geometry modules' tests.

use glam::Vec3;

/// The generator's state (any nonzero value; [`Rng::new`] mixes a seed).
pub(crate) struct Rng(pub u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in [0, 1).
    pub(crate) fn f32(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in the box [lo, hi)³.
    pub(crate) fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.f32(), self.f32(), self.f32()) * (hi - lo) + Vec3::splat(lo)
    }
}
