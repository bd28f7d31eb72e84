//! The samples' random numbers: xoshiro256** (Blackman & Vigna 2018),
//! seeded through SplitMix64, so that one seed gives the same samples on
//! every machine and in every order the meshes are processed.
//!
//! Uniform floats take the top 53 bits of a draw; Gaussians come from the
//! Box–Muller transform, both of its values used.

/// A seeded generator (see the module docs).
#[derive(Clone, Debug)]
pub struct SampleRng {
    state: [u64; 4],
    spare: Option<f64>,
}

/// One step of SplitMix64: the seed expander xoshiro's authors recommend.
fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SampleRng {
    pub fn new(seed: u64) -> Self {
        let mut x = seed;
        SampleRng {
            state: std::array::from_fn(|_| splitmix(&mut x)),
            spare: None,
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal.
    pub fn gaussian(&mut self) -> f64 {
        if let Some(g) = self.spare.take() {
            return g;
        }
        // 1 − u is in (0, 1]: its logarithm is finite.
        let r = (-2.0 * (1.0 - self.uniform()).ln()).sqrt();
        let theta = std::f64::consts::TAU * self.uniform();
        self.spare = Some(r * theta.sin());
        r * theta.cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_one_sequence_and_two_seeds_two() {
        let draw = |seed| {
            let mut r = SampleRng::new(seed);
            (0..8).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
    }

    #[test]
    fn gaussians_have_unit_variance() {
        let mut r = SampleRng::new(1);
        let n = 200_000;
        let g: Vec<f64> = (0..n).map(|_| r.gaussian()).collect();
        let mean = g.iter().sum::<f64>() / n as f64;
        let var = g.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "variance {var}");
    }
}
