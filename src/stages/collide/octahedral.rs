//! The contact normal's 32-bit code: octahedral, two 16-bit snorms
//! (Cigolle et al., "A Survey of Efficient Representations for Independent
//! Unit Vectors", JCGT 2014). The GPU encodes (`oct_encode` in
//! `shaders/collide.wgsl`), the host decodes.
//!
//! # Decoding in blocks
//! A decode costs a square root and three divisions, whose latency is
//! much of a contact's decode when one code is decoded after another
//! (about half of it, `docs/bench/design-measurements.md`). The
//! host therefore decodes the codes of a block of [`BLOCK`] records at a
//! time ([`decode_block`]): every step is a branch-free select, written
//! over arrays of the block's lanes, so the compiler evaluates several
//! lanes per instruction (SSE's `sqrtps`, `divps`). Square root and
//! division are correctly rounded in every lane, so a block decodes each
//! code exactly as [`decode_normal`] does.

use glam::Vec3;

/// The encoding of a zero normal (a zero-length segment's): the snorm
/// value −32768, which the encoding of a unit vector never produces.
pub const ZERO_NORMAL: u32 = 0x8000_8000;

/// Largest angle (radians) between a unit vector and its decoded encoding.
/// Rounding moves the point in the octahedron's square by at most
/// √2·0.5/32767; the unnormalised vector (x, y, 1 − |x| − |y|) moves by at
/// most √3 times that and is at least 1/√3 long, so the direction turns by
/// at most 3·√2·0.5/32767 ≈ 6.5e-5. The tests check this bound.
pub const NORMAL_MAX_ERROR: f32 = 1.0e-4;

/// Codes decoded together by [`decode_block`].
pub(crate) const BLOCK: usize = 16;

/// 1 for `v ≥ 0` (+0 and −0 included), else −1.
#[inline(always)]
fn sign_not_zero(v: f32) -> f32 {
    if v >= 0.0 { 1.0 } else { -1.0 }
}

/// WGSL's `unpack2x16snorm` of one half.
#[inline(always)]
fn snorm(half: u32) -> f32 {
    (f32::from(half as u16 as i16) / 32767.0).clamp(-1.0, 1.0)
}

/// The unit vectors of `codes` (`pack2x16snorm` layout: x in the low 16
/// bits; [`ZERO_NORMAL`] gives the zero vector), as three lanes' arrays.
#[inline]
pub(crate) fn decode_block(codes: &[u32; BLOCK]) -> [[f32; BLOCK]; 3] {
    let mut x = [0.0f32; BLOCK];
    let mut y = [0.0f32; BLOCK];
    let mut z = [0.0f32; BLOCK];
    for i in 0..BLOCK {
        let (px, py) = (snorm(codes[i] & 0xffff), snorm(codes[i] >> 16));
        let pz = 1.0 - px.abs() - py.abs();
        // The lower half of the octahedron is folded over the upper.
        let folded = pz < 0.0;
        x[i] = if folded {
            (1.0 - py.abs()) * sign_not_zero(px)
        } else {
            px
        };
        y[i] = if folded {
            (1.0 - px.abs()) * sign_not_zero(py)
        } else {
            py
        };
        z[i] = pz;
    }
    for i in 0..BLOCK {
        let scale = 1.0 / (x[i] * x[i] + y[i] * y[i] + z[i] * z[i]).sqrt();
        // The zero code's lanes are +0 (not ±0 times an infinite scale).
        let zero = codes[i] == ZERO_NORMAL;
        x[i] = if zero { 0.0 } else { x[i] * scale };
        y[i] = if zero { 0.0 } else { y[i] * scale };
        z[i] = if zero { 0.0 } else { z[i] * scale };
    }
    [x, y, z]
}

/// The unit vector of one code: `decode_block`'s lane.
pub fn decode_normal(code: u32) -> Vec3 {
    let mut codes = [ZERO_NORMAL; BLOCK];
    codes[0] = code;
    let [x, y, z] = decode_block(&codes);
    Vec3::new(x[0], y[0], z[0])
}

/// The encoding the shader's `oct_encode` computes (WGSL's
/// `pack2x16snorm`: round half up of 32767·x).
pub fn encode_normal(n: Vec3) -> u32 {
    let l1 = n.x.abs() + n.y.abs() + n.z.abs();
    if l1 <= 0.0 {
        return ZERO_NORMAL;
    }
    let (mut px, mut py) = (n.x / l1, n.y / l1);
    if n.z < 0.0 {
        (px, py) = (
            (1.0 - py.abs()) * sign_not_zero(px),
            (1.0 - px.abs()) * sign_not_zero(py),
        );
    }
    let pack = |x: f32| ((0.5 + 32767.0 * x.clamp(-1.0, 1.0)).floor() as i16 as u16) as u32;
    pack(px) | (pack(py) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The decode one code at a time, with a branch per step.
    fn decode_one_by_one(code: u32) -> Vec3 {
        if code == ZERO_NORMAL {
            return Vec3::ZERO;
        }
        let (px, py) = (snorm(code & 0xffff), snorm(code >> 16));
        let pz = 1.0 - px.abs() - py.abs();
        let (x, y) = if pz < 0.0 {
            (
                (1.0 - py.abs()) * sign_not_zero(px),
                (1.0 - px.abs()) * sign_not_zero(py),
            )
        } else {
            (px, py)
        };
        Vec3::new(x, y, pz).normalize()
    }

    proptest! {
        /// Every lane of a block of random codes (any 32 bits, the zero
        /// code among them) decodes bit for bit as one code alone does.
        #[test]
        fn a_block_decodes_each_code_as_one_alone(
            codes in prop::array::uniform16(prop_oneof![Just(ZERO_NORMAL), any::<u32>()]),
        ) {
            let [x, y, z] = decode_block(&codes);
            for (i, &code) in codes.iter().enumerate() {
                let one = decode_one_by_one(code);
                prop_assert_eq!(
                    [x[i].to_bits(), y[i].to_bits(), z[i].to_bits()],
                    one.to_array().map(f32::to_bits),
                    "lane {} of code {:#010x}", i, code
                );
            }
        }
    }

    #[test]
    fn the_zero_code_and_the_axes() {
        assert_eq!(decode_normal(ZERO_NORMAL), Vec3::ZERO);
        for axis in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z] {
            assert_eq!(decode_normal(encode_normal(axis)), axis);
        }
    }
}
