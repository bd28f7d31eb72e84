//! Impact maps (§3.4.2–3.4.3): per collider a square image of its surface
//! parameterisation where each impact lands on one texel and adds to it.
//!
//! A texel carries what the GPU blends into three channels: the number of
//! impacts (additive blend), the earliest impact time (min blend) and the
//! largest impact speed (max blend). The GPU writes the time within the
//! frame; the maps of a run hold global times, so frames merge with the
//! same three operations.

/// One collider's map, `res`×`res`, row-major with v down the rows.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpactMap {
    pub res: u32,
    pub count: Vec<u32>,
    /// Earliest impact time (global seconds), +∞ where none.
    pub earliest: Vec<f32>,
    /// Largest impact speed, 0 where none.
    pub max_speed: Vec<f32>,
}

impl ImpactMap {
    pub fn new(res: u32) -> Self {
        let n = (res * res) as usize;
        ImpactMap {
            res,
            count: vec![0; n],
            earliest: vec![f32::INFINITY; n],
            max_speed: vec![0.0; n],
        }
    }

    /// Adds `count` impacts at `texel`, the earliest at `t`, the fastest at `speed`.
    pub fn add(&mut self, texel: usize, count: u32, t: f32, speed: f32) {
        self.count[texel] += count;
        self.earliest[texel] = self.earliest[texel].min(t);
        self.max_speed[texel] = self.max_speed[texel].max(speed);
    }

    /// All impacts in the map.
    pub fn total(&self) -> u64 {
        self.count.iter().map(|&c| u64::from(c)).sum()
    }

    /// The three channels as one `(3, res, res)` float array: count,
    /// earliest time (NaN where none), max speed.
    pub fn channels(&self) -> Vec<f32> {
        let mut out: Vec<f32> = self.count.iter().map(|&c| c as f32).collect();
        out.extend(
            self.earliest
                .iter()
                .map(|&t| if t.is_finite() { t } else { f32::NAN }),
        );
        out.extend_from_slice(&self.max_speed);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texels_blend_add_min_max() {
        let mut m = ImpactMap::new(2);
        m.add(3, 1, 0.5, 2.0);
        m.add(3, 2, 0.25, 1.0);
        assert_eq!((m.count[3], m.earliest[3], m.max_speed[3]), (3, 0.25, 2.0));
        assert_eq!(m.total(), 3);
        let c = m.channels();
        assert_eq!(c.len(), 12);
        assert!(c[4].is_nan() && c[7] == 0.25 && c[11] == 2.0);
    }
}
