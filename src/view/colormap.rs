//! Colour maps for signed distances and other quantities.
//!
//! The two-sided maps are two ramps of five sRGB stops, one per side of the
//! surface, indexed by `u = clamp(|value| / range, 0, 1)` and interpolated
//! linearly in sRGB. The sign picks the ramp, so the zero crossing is a
//! visible jump. Over a range `lo..hi` ([`ColorMap::color_between`]) the
//! inside ramp saturates at `lo` and the outside one at `hi`.
//!
//! The sequential maps are nine stops from `lo` to `hi`, interpolated
//! linearly in sRGB; they are stored as the same two five-stop ramps split
//! at their middle stop (the inside ramp running from the middle down to
//! the low end), so the shader's table and the CPU's have one shape.
//!
//! * **Sundholm** — the map of Sundholm's thesis, §7.1.1 (figures 7.2–7.3):
//!   outside cells go blue → green → red with increasing distance, inside
//!   cells pink → yellow → cyan with increasing depth. (The thesis text says
//!   "depending on how close the cell is to the object"; we read blue as
//!   "at the surface", as in its figures' outer red shell.)
//! * **Diverging** — Moreland's "smooth cool–warm" map (2009): inside cool
//!   blue, outside warm red, both near-white at zero, lightness falling
//!   monotonically with |value| on each side. The two sides start at the
//!   table entries either side of the centre (a bluish and a warm white)
//!   rather than at the shared grey, so the sign still shows at the surface.
//!
//! * **Viridis** — van der Walt and Smith's perceptually uniform map
//!   (matplotlib 2015), dark purple → green → yellow, sampled at t = k/8.
//! * **Turbo** — Mikhailov's improved rainbow (Google 2019), dark blue →
//!   green → dark red, sampled at t = k/8; for telling many levels apart,
//!   not for lightness ordering.
//!
//! The same tables and interpolation are in `shaders/view.wgsl`
//! (`colormap`); tests/it/shader_layouts.rs checks its stops against
//! [`ColorMap::color`].

/// Stops per ramp.
const STOPS: usize = 5;

/// `[inside ramp, outside ramp]`, each from the surface outwards (u = 0) to
/// full saturation (u = 1).
const SUNDHOLM: [[[u8; 3]; STOPS]; 2] = [
    // inside: pink → yellow → cyan
    [
        [255, 105, 180],
        [255, 180, 90],
        [255, 255, 0],
        [128, 255, 128],
        [0, 255, 255],
    ],
    // outside: blue → green → red
    [
        [0, 0, 255],
        [0, 128, 128],
        [0, 255, 0],
        [128, 128, 0],
        [255, 0, 0],
    ],
];

/// Moreland's cool–warm table (CoolWarmUChar33 entries 15, 12, 8, 4, 0 and
/// 17, 20, 24, 28, 32).
const DIVERGING: [[[u8; 3]; STOPS]; 2] = [
    [
        [213, 219, 230],
        [184, 208, 249],
        [141, 176, 254],
        [98, 130, 234],
        [59, 76, 192],
    ],
    [
        [229, 216, 209],
        [245, 196, 173],
        [244, 154, 123],
        [222, 96, 77],
        [180, 4, 38],
    ],
];

/// Viridis at t = 0, 1/8, …, 1 (matplotlib's `_viridis_data`).
const VIRIDIS: [[u8; 3]; 2 * STOPS - 1] = [
    [68, 1, 84],
    [71, 45, 123],
    [59, 82, 139],
    [44, 114, 142],
    [33, 145, 140],
    [40, 174, 128],
    [94, 201, 98],
    [173, 220, 48],
    [253, 231, 37],
];

/// Turbo at t = 0, 1/8, …, 1 (Mikhailov 2019's lookup table).
const TURBO: [[u8; 3]; 2 * STOPS - 1] = [
    [48, 18, 59],
    [70, 107, 227],
    [41, 187, 236],
    [38, 236, 161],
    [164, 252, 60],
    [232, 212, 58],
    [251, 129, 34],
    [208, 47, 5],
    [122, 4, 3],
];

/// A sequential map of nine stops as two ramps from its middle stop: the
/// inside ramp runs down to the first stop, the outside one up to the last.
const fn split(seq: [[u8; 3]; 2 * STOPS - 1]) -> [[[u8; 3]; STOPS]; 2] {
    let mut out = [[[0; 3]; STOPS]; 2];
    let mut i = 0;
    while i < STOPS {
        out[0][i] = seq[STOPS - 1 - i];
        out[1][i] = seq[STOPS - 1 + i];
        i += 1;
    }
    out
}

/// How values become colours.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum ColorMap {
    /// Sundholm 2010 §7.1.1: outside blue→green→red, inside pink→yellow→cyan.
    #[default]
    Sundholm,
    /// Moreland cool–warm: inside blue, near-white at zero, outside red.
    Diverging,
    /// Viridis (sequential, perceptually uniform) from low to high.
    Viridis,
    /// Turbo (sequential rainbow) from low to high.
    Turbo,
}

impl ColorMap {
    pub const ALL: [ColorMap; 4] = [
        ColorMap::Sundholm,
        ColorMap::Diverging,
        ColorMap::Viridis,
        ColorMap::Turbo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ColorMap::Sundholm => "sundholm",
            ColorMap::Diverging => "diverging",
            ColorMap::Viridis => "viridis",
            ColorMap::Turbo => "turbo",
        }
    }

    pub fn from_name(name: &str) -> Option<ColorMap> {
        ColorMap::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The id the shader (`ramp_stop` in shaders/view.wgsl) switches on;
    /// the sequential maps are those from `SEQUENTIAL_FROM`.
    pub fn shader_id(self) -> u32 {
        match self {
            ColorMap::Sundholm => 0,
            ColorMap::Diverging => 1,
            ColorMap::Viridis => 2,
            ColorMap::Turbo => 3,
        }
    }

    /// One ramp from low to high rather than one per side of zero.
    pub fn is_sequential(self) -> bool {
        self.shader_id() >= SEQUENTIAL_FROM
    }

    fn table(self) -> [[[u8; 3]; STOPS]; 2] {
        match self {
            ColorMap::Sundholm => SUNDHOLM,
            ColorMap::Diverging => DIVERGING,
            ColorMap::Viridis => split(VIRIDIS),
            ColorMap::Turbo => split(TURBO),
        }
    }

    /// sRGB colour (alpha 255) of `value` on a range symmetric about
    /// zero, `color_between(value, −range, range)`: `range` is the |value|
    /// at which a two-sided map saturates (values beyond it are clamped).
    /// Negative values are inside. A non-positive or non-finite `range` is
    /// treated as tiny, so only the sign shows.
    pub fn color(self, value: f32, range: f32) -> [u8; 4] {
        let range = if range.is_finite() && range > 0.0 {
            range
        } else {
            f32::MIN_POSITIVE
        };
        self.color_between(value, -range, range)
    }

    /// sRGB colour of `value` on a bar from `lo` to `hi`. Sequential maps
    /// run from their first stop at `lo` to their last at `hi`. Two-sided
    /// maps keep zero as the surface: the inside ramp over `[lo, 0)` and
    /// the outside ramp over `[0, hi]` when the range straddles zero (each
    /// saturating at its own end); only the outside ramp from `lo` to `hi`
    /// when `lo ≥ 0` (a magnitude such as |Δ|), only the inside ramp from
    /// `hi` down to `lo` when `hi ≤ 0`. NaN takes the high end.
    pub fn color_between(self, value: f32, lo: f32, hi: f32) -> [u8; 4] {
        let table = self.table();
        let fraction = |v: f32, span: f32| {
            let u = (v / span.max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
            if u.is_nan() { 1.0 } else { u }
        };
        if self.is_sequential() {
            // Position along the nine stops, −1 (lo) to +1 (hi) around the middle.
            let t = 2.0 * fraction(value - lo, hi - lo) - 1.0;
            let side = usize::from(t >= 0.0);
            return ramp(&table[side], t.abs());
        }
        if lo < 0.0 && hi > 0.0 {
            if value < 0.0 {
                ramp(&table[0], fraction(-value, -lo))
            } else {
                ramp(&table[1], fraction(value, hi))
            }
        } else if lo >= 0.0 {
            ramp(&table[1], fraction(value - lo, hi - lo))
        } else {
            ramp(&table[0], fraction(hi - value, hi - lo))
        }
    }

    /// The colour as linear RGBA floats (for vertex colours and clear colours).
    pub fn color_linear(self, value: f32, range: f32) -> [f32; 4] {
        let c = self.color(value, range);
        [
            srgb_to_linear(c[0]),
            srgb_to_linear(c[1]),
            srgb_to_linear(c[2]),
            1.0,
        ]
    }
}

/// The first shader id of a sequential map.
const SEQUENTIAL_FROM: u32 = 2;

/// The colour at `u` (0..=1) along a ramp of [`STOPS`] stops.
fn ramp(ramp: &[[u8; 3]; STOPS], u: f32) -> [u8; 4] {
    let x = u * (STOPS - 1) as f32;
    let i = (x.floor() as usize).min(STOPS - 2);
    let f = x - i as f32;
    let c = |k: usize| (ramp[i][k] as f32 * (1.0 - f) + ramp[i + 1][k] as f32 * f).round() as u8;
    [c(0), c(1), c(2), 255]
}

/// sRGB byte → linear intensity.
pub fn srgb_to_linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear intensity → sRGB byte.
pub fn linear_to_srgb(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

/// CIE L* (0–100) of an sRGB colour, for the perceptual checks.
pub fn lightness(c: [u8; 4]) -> f32 {
    let y = 0.2126 * srgb_to_linear(c[0])
        + 0.7152 * srgb_to_linear(c[1])
        + 0.0722 * srgb_to_linear(c[2]);
    if y > 216.0 / 24389.0 {
        116.0 * y.cbrt() - 16.0
    } else {
        y * 24389.0 / 27.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_and_outside_differ_at_the_zero_crossing() {
        for map in ColorMap::ALL.into_iter().filter(|m| !m.is_sequential()) {
            let inside = map.color(-1e-6, 1.0);
            let outside = map.color(1e-6, 1.0);
            let diff: i32 = (0..3)
                .map(|k| (inside[k] as i32 - outside[k] as i32).abs())
                .sum();
            assert!(diff > 30, "{}: {inside:?} vs {outside:?} at ±ε", map.name());
            assert_eq!(
                map.color(0.0, 1.0),
                map.color(1e-6, 1.0),
                "{}: zero counts as outside",
                map.name()
            );
        }
    }

    #[test]
    fn diverging_lightness_is_monotone_on_each_side() {
        for sign in [-1.0f32, 1.0] {
            let mut last = f32::INFINITY;
            for step in 0..=100 {
                let l = lightness(ColorMap::Diverging.color(sign * step as f32 / 100.0, 1.0));
                // Tolerance: the colour is rounded to bytes (≈0.2 L* per step).
                assert!(
                    l <= last + 0.25,
                    "side {sign}: L* rises to {l} at step {step} (was {last})"
                );
                last = l;
            }
            assert!(
                last < 45.0,
                "side {sign}: saturated end is still light (L* {last})"
            );
            // Between stops, clearly falling: each stop darker than the one before.
            let stops: Vec<f32> = (0..STOPS)
                .map(|i| lightness(ColorMap::Diverging.color(sign * i as f32 / 4.0, 1.0)))
                .collect();
            assert!(
                stops.windows(2).all(|w| w[1] < w[0] - 3.0),
                "side {sign}: stops {stops:?}"
            );
        }
    }

    #[test]
    fn diverging_is_blue_inside_and_red_outside() {
        let deep = ColorMap::Diverging.color(-1.0, 1.0);
        let far = ColorMap::Diverging.color(1.0, 1.0);
        assert!(deep[2] > deep[0], "{deep:?}");
        assert!(far[0] > far[2], "{far:?}");
    }

    #[test]
    fn sundholm_follows_the_thesis_ramps() {
        let m = ColorMap::Sundholm;
        assert_eq!(m.color(0.0, 2.0), [0, 0, 255, 255], "outside starts blue");
        assert_eq!(m.color(1.0, 2.0), [0, 255, 0, 255], "then green");
        assert_eq!(m.color(2.0, 2.0), [255, 0, 0, 255], "far is red");
        assert_eq!(
            m.color(-1e-9, 2.0),
            [255, 105, 180, 255],
            "inside starts pink"
        );
        assert_eq!(m.color(-1.0, 2.0), [255, 255, 0, 255], "then yellow");
        assert_eq!(m.color(-2.0, 2.0), [0, 255, 255, 255], "deep is cyan");
    }

    #[test]
    fn values_beyond_the_range_clamp() {
        for map in ColorMap::ALL {
            assert_eq!(map.color(5.0, 1.0), map.color(1.0, 1.0));
            assert_eq!(map.color(-5.0, 1.0), map.color(-1.0, 1.0));
            assert_eq!(map.color(f32::INFINITY, 1.0), map.color(1.0, 1.0));
            // A degenerate range still gives the side's saturated colour.
            assert_eq!(map.color(0.5, 0.0), map.color(1.0, 1.0));
            let _ = map.color(f32::NAN, 1.0);
        }
    }

    #[test]
    fn sequential_maps_run_from_lo_to_hi_through_their_stops() {
        for (map, stops) in [(ColorMap::Viridis, VIRIDIS), (ColorMap::Turbo, TURBO)] {
            for (k, stop) in stops.iter().enumerate() {
                let v = -3.0 + 5.0 * k as f32 / 8.0;
                assert_eq!(
                    &map.color_between(v, -3.0, 2.0)[..3],
                    stop,
                    "{map:?} stop {k}"
                );
            }
            // No jump at zero, clamped beyond the ends.
            let (a, b) = (map.color(-1e-6, 1.0), map.color(1e-6, 1.0));
            assert!(
                (0..3).all(|k| (a[k] as i32 - b[k] as i32).abs() <= 1),
                "{a:?} {b:?}"
            );
            assert_eq!(
                map.color_between(9.0, 0.0, 1.0),
                map.color_between(1.0, 0.0, 1.0)
            );
            assert_eq!(
                map.color_between(-9.0, 0.0, 1.0),
                map.color_between(0.0, 0.0, 1.0)
            );
        }
        // Viridis gets lighter all the way up.
        let mut last = -1.0;
        for step in 0..=64 {
            let l = lightness(ColorMap::Viridis.color_between(step as f32, 0.0, 64.0));
            assert!(l > last, "viridis L* {l} at step {step} after {last}");
            last = l;
        }
    }

    #[test]
    fn two_sided_maps_saturate_at_their_own_ends() {
        let m = ColorMap::Sundholm;
        // Inside saturates at lo, outside at hi.
        assert_eq!(m.color_between(-0.5, -0.5, 2.0), m.color(-1.0, 1.0));
        assert_eq!(m.color_between(2.0, -0.5, 2.0), m.color(1.0, 1.0));
        assert_eq!(m.color_between(1.0, -0.5, 2.0), m.color(0.5, 1.0));
        // A magnitude range uses the outside ramp from lo.
        assert_eq!(m.color_between(0.1, 0.1, 0.3), m.color(0.0, 1.0));
        assert_eq!(m.color_between(0.2, 0.1, 0.3), m.color(0.5, 1.0));
        // An all-inside range uses the inside ramp down from hi.
        assert_eq!(m.color_between(-0.3, -0.3, -0.1), m.color(-1.0, 1.0));
        assert_eq!(m.color_between(-0.2, -0.3, -0.1), m.color(-0.5, 1.0));
    }

    #[test]
    fn srgb_round_trip() {
        for c in 0..=255u8 {
            assert_eq!(linear_to_srgb(srgb_to_linear(c)), c);
        }
    }
}
