//! Morton codes (Z-order) of points in a cube: 10 bits per axis, 30 bits in
//! all, x in the lowest bit of each triple. The first `3j` bits of a code
//! (`code >> 3·(10 − j)`) name the octree cell of depth `j` that holds the
//! point, which is what the adaptive octree compares (Liu & Kim 2014, §3.2).
//!
//! `morton_code` in shaders/adaptive.wgsl writes the quantisation with
//! the same f32 operations in the same order, so CPU and GPU codes agree bit
//! for bit (tests/it/adaptive.rs compares the two backends' octrees).

use glam::Vec3;

/// Bits per axis; the deepest octree level a code can name.
pub const MORTON_BITS_PER_AXIS: u32 = 10;
/// Cells per axis at the deepest level.
pub const MORTON_CELLS: u32 = 1 << MORTON_BITS_PER_AXIS;

/// Spreads the low 10 bits of `v` so that bit i moves to bit 3i.
pub fn expand_bits_10(v: u32) -> u32 {
    let mut x = v & 0x3ff;
    x = (x | (x << 16)) & 0x0300_00ff;
    x = (x | (x << 8)) & 0x0300_f00f;
    x = (x | (x << 4)) & 0x030c_30c3;
    x = (x | (x << 2)) & 0x0924_9249;
    x
}

/// The code of integer cell coordinates (each < 1024).
pub fn morton_encode(cell: [u32; 3]) -> u32 {
    expand_bits_10(cell[0]) | (expand_bits_10(cell[1]) << 1) | (expand_bits_10(cell[2]) << 2)
}

/// Inverse of [`morton_encode`].
pub fn morton_decode(code: u32) -> [u32; 3] {
    let compact = |mut x: u32| {
        x &= 0x0924_9249;
        x = (x | (x >> 2)) & 0x030c_30c3;
        x = (x | (x >> 4)) & 0x0300_f00f;
        x = (x | (x >> 8)) & 0x0300_00ff;
        x = (x | (x >> 16)) & 0x3ff;
        x
    };
    [compact(code), compact(code >> 1), compact(code >> 2)]
}

/// A cube the codes are taken in: `origin` is its minimum corner, `size` its
/// edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MortonCube {
    pub origin: Vec3,
    pub size: f32,
}

impl MortonCube {
    /// `MORTON_CELLS / size`: the quantisation scale (also the shader's).
    pub fn scale(&self) -> f32 {
        MORTON_CELLS as f32 / self.size
    }

    /// The deepest-level cell holding `p`, clamped into the cube.
    pub fn cell_of(&self, p: Vec3) -> [u32; 3] {
        let q = (p - self.origin) * self.scale();
        let max = (MORTON_CELLS - 1) as f32;
        [q.x, q.y, q.z].map(|c| c.floor().clamp(0.0, max) as u32)
    }

    /// The 30-bit code of `p`.
    pub fn code_of(&self, p: Vec3) -> u32 {
        morton_encode(self.cell_of(p))
    }
}

/// The prefix of a 30-bit code at octree depth `depth` (0..=10).
pub fn morton_prefix(code: u32, depth: u32) -> u32 {
    code >> (3 * (MORTON_BITS_PER_AXIS - depth))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn interleave_by_bits(c: [u32; 3]) -> u32 {
        let mut code = 0;
        for bit in 0..10 {
            for (axis, v) in c.iter().enumerate() {
                code |= ((v >> bit) & 1) << (3 * bit + axis as u32);
            }
        }
        code
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        #[test]
        fn encode_matches_bitwise_interleave_and_decodes(x in 0u32..1024, y in 0u32..1024, z in 0u32..1024) {
            let code = morton_encode([x, y, z]);
            prop_assert_eq!(code, interleave_by_bits([x, y, z]));
            prop_assert_eq!(morton_decode(code), [x, y, z]);
        }

        #[test]
        fn prefix_names_the_cell_of_that_depth(x in 0u32..1024, y in 0u32..1024, z in 0u32..1024, depth in 0u32..=10) {
            let code = morton_encode([x, y, z]);
            let s = 10 - depth;
            prop_assert_eq!(morton_prefix(code, depth), morton_encode([x >> s, y >> s, z >> s]));
        }
    }

    #[test]
    fn points_are_clamped_into_the_cube() {
        let cube = MortonCube {
            origin: Vec3::ZERO,
            size: 2.0,
        };
        assert_eq!(cube.cell_of(Vec3::splat(-1.0)), [0, 0, 0]);
        assert_eq!(cube.cell_of(Vec3::splat(5.0)), [1023, 1023, 1023]);
        assert_eq!(cube.cell_of(Vec3::new(1.0, 0.0, 2.0)), [512, 0, 1023]);
    }
}
