//! Colour maps for signed distances.
//!
//! Both maps are two ramps of five sRGB stops, one per side of the surface,
//! indexed by `u = clamp(|value| / range, 0, 1)` and interpolated linearly in
//! sRGB. The sign picks the ramp, so the zero crossing is a visible jump.
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
//! The same tables and interpolation are in `shaders/view.wgsl`
//! (`colormap`); tests/shader_layouts.rs checks its stops against
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

/// How signed distances become colours.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum ColorMap {
    /// Sundholm 2010 §7.1.1: outside blue→green→red, inside pink→yellow→cyan.
    #[default]
    Sundholm,
    /// Moreland cool–warm: inside blue, near-white at zero, outside red.
    Diverging,
}

impl ColorMap {
    pub const ALL: [ColorMap; 2] = [ColorMap::Sundholm, ColorMap::Diverging];

    pub fn name(self) -> &'static str {
        match self {
            ColorMap::Sundholm => "sundholm",
            ColorMap::Diverging => "diverging",
        }
    }

    /// The id the shader (`ramp_stop` in shaders/view.wgsl) switches on.
    pub fn shader_id(self) -> u32 {
        match self {
            ColorMap::Sundholm => 0,
            ColorMap::Diverging => 1,
        }
    }

    /// sRGB colour (alpha 255) of `value`; `range` is the |value| at which
    /// the map saturates (values beyond it are clamped). Negative values are
    /// inside. A non-positive or non-finite `range` is treated as tiny, so
    /// only the sign shows.
    pub fn color(self, value: f32, range: f32) -> [u8; 4] {
        let table = match self {
            ColorMap::Sundholm => &SUNDHOLM,
            ColorMap::Diverging => &DIVERGING,
        };
        // NaN counts as outside, like the shader's select.
        let ramp = if value < 0.0 { &table[0] } else { &table[1] };
        let range = if range.is_finite() && range > 0.0 {
            range
        } else {
            f32::MIN_POSITIVE
        };
        let u = (value.abs() / range).clamp(0.0, 1.0);
        let u = if u.is_nan() { 1.0 } else { u };
        let x = u * (STOPS - 1) as f32;
        let i = (x.floor() as usize).min(STOPS - 2);
        let f = x - i as f32;
        let c =
            |k: usize| (ramp[i][k] as f32 * (1.0 - f) + ramp[i + 1][k] as f32 * f).round() as u8;
        [c(0), c(1), c(2), 255]
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
        for map in ColorMap::ALL {
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
    fn srgb_round_trip() {
        for c in 0..=255u8 {
            assert_eq!(linear_to_srgb(srgb_to_linear(c)), c);
        }
    }
}
