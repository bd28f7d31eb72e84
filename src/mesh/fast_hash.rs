//! A small multiplicative hasher for integer keys (edges, grid cells).
//!
//! The std SipHash is DoS-resistant but several times slower on the millions
//! of `u64` keys that subdivision and welding insert; the keys here come from
//! our own index arithmetic, so a fast non-cryptographic mix is enough.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// FxHash-style: rotate, xor in the word, multiply by an odd constant.
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        // A final avalanche so the low bits hashbrown uses depend on all input bits.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }

    fn write_i64(&mut self, word: i64) {
        self.write_u64(word as u64);
    }
}
