//! A radial field's unwrap (Friston & Steed 2019, §4–5) as an image: θ
//! across (column i = θ cell i, θ = 0 along the field's normal u at the
//! left edge, the seam), z down (row k = z cell k, A at the top), each
//! cell's distance from the axis in false colour (the outside ramp of
//! [`ColorMap::Sundholm`], `lo` blue to `hi` red, clamped),
//! empty cells (`+inf`: no face covers them) in a checker of greys so they
//! read as "nothing" and never as a distance.

use super::ColorMap;

/// The two greys of the empty-cell checker.
pub const EMPTY_COLORS: [[u8; 4]; 2] = [[70, 70, 70, 255], [105, 105, 105, 255]];

/// The largest finite value of `values` (0 when there is none): the
/// colour range that shows the whole field.
pub fn finite_max(values: &[f32]) -> f32 {
    values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0, f32::max)
}

/// The smallest finite value of `values` (0 when there is none).
pub fn finite_min(values: &[f32]) -> f32 {
    let min = values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(f32::INFINITY, f32::min);
    if min.is_finite() { min } else { 0.0 }
}

/// The colour of one cell `(i, k)` holding `value`, on the scale `lo..hi`.
pub fn cell_color(value: f32, (lo, hi): (f32, f32), (i, k): (u32, u32)) -> [u8; 4] {
    if value.is_finite() {
        ColorMap::Sundholm.color((value - lo).max(0.0), hi - lo)
    } else {
        EMPTY_COLORS[((i / 4 + k / 4) % 2) as usize]
    }
}

/// One field's cells (row-major by z, `n_theta` per row) as RGBA pixels in
/// the same order.
pub fn unwrap_rgba(values: &[f32], n_theta: u32, scale: (f32, f32)) -> Vec<[u8; 4]> {
    values
        .iter()
        .enumerate()
        .map(|(j, &v)| {
            let (i, k) = (j as u32 % n_theta, j as u32 / n_theta);
            cell_color(v, scale, (i, k))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_cells_are_grey_and_distances_are_coloured() {
        let px = unwrap_rgba(&[f32::INFINITY, 0.1, 1.0, 2.0], 2, (0.0, 1.0));
        assert!(EMPTY_COLORS.contains(&px[0]), "{:?}", px[0]);
        for c in &px[1..] {
            assert!(!EMPTY_COLORS.contains(c), "{c:?}");
        }
        assert_ne!(px[1], px[2], "near and far differ");
        assert_eq!(px[2], px[3], "beyond the range saturates");
        assert_eq!(finite_max(&[f32::INFINITY, 0.5, 2.0]), 2.0);
        assert_eq!(finite_min(&[f32::INFINITY, 0.5, 2.0]), 0.5);
    }
}
