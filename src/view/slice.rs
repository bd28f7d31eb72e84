//! Axis-aligned slices of a field as images, with iso-lines.
//!
//! A slice at `index` along an axis is the 2D array of cell values with that
//! coordinate. Its image axes (u, v) are (Y, Z) for [`Axis::X`], (X, Z) for
//! [`Axis::Y`] and (X, Y) for [`Axis::Z`]; rows are flipped so +v is up.
//!
//! Each cell is a `scale × scale` block of its colour-map colour (nearest
//! neighbour, so the cell structure stays visible). Iso-lines are drawn on
//! top from the *bilinear* interpolation of the cell-centre values: a pixel
//! is on level L when |f − L| / |∇f| (its distance to the level in pixels,
//! to first order) is under half the line width, which gives lines of
//! constant width whatever the slope. Levels fall every `range / 5`, drawn
//! darker; the zero level set is black and thicker. Far cells of a narrow
//! band are drawn with the colour of ±range and get no iso-lines (their
//! values are ±band, not their distance).
//!
//! [`slice_values`] reads the slice of any per-cell quantity of the grid
//! (the field, a difference |Δ|) as rows of values for the viewer's image
//! widget, and [`slice_extents`] gives its world-unit axes.

use glam::{UVec3, Vec2};

use super::colormap::ColorMap;
use crate::stages::sdf::{FAR, SdfField};

/// The axis a slice is perpendicular to.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Axis {
    X,
    Y,
    #[default]
    Z,
}

impl Axis {
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }

    /// (slice axis, u axis, v axis) as component indices.
    fn components(self) -> (usize, usize, usize) {
        match self {
            Axis::X => (0, 1, 2),
            Axis::Y => (1, 0, 2),
            Axis::Z => (2, 0, 1),
        }
    }
}

/// Iso-levels per `range`.
const LEVELS_PER_RANGE: f32 = 5.0;
/// Full widths in pixels of the zero line and the other iso-lines.
const ZERO_LINE_WIDTH: f32 = 2.5;
const ISO_LINE_WIDTH: f32 = 1.0;
/// Iso-lines scale the cell colour by this.
const ISO_DARKEN: f32 = 0.55;

/// (cells along u, cells along v, cells along the slice axis).
pub fn slice_dims(field: &SdfField, axis: Axis) -> (u32, u32, u32) {
    let d = field.grid.dims.to_array();
    let (a, u, v) = axis.components();
    (d[u], d[v], d[a])
}

/// The grid cell (i, j, k) at (u, v) of slice `index` along `axis`.
pub fn slice_cell(axis: Axis, index: u32, u: u32, v: u32) -> UVec3 {
    let (a, cu, cv) = axis.components();
    let mut ijk = [0u32; 3];
    ijk[a] = index;
    ijk[cu] = u;
    ijk[cv] = v;
    UVec3::from(ijk)
}

/// Where cell `ijk` lies in the slices along `axis`: (slice index, u, v).
pub fn slice_place(axis: Axis, ijk: UVec3) -> (u32, u32, u32) {
    let (a, cu, cv) = axis.components();
    let c = ijk.to_array();
    (c[a], c[cu], c[cv])
}

/// The world extents of the slice's image: [(u axis name, left edge,
/// right edge), (v axis name, bottom edge, top edge)] — the cells' outer
/// faces — and the world coordinate of slice `index`'s centre.
pub fn slice_extents(
    field: &SdfField,
    axis: Axis,
    index: u32,
) -> ([(&'static str, f32, f32); 2], f32) {
    let (a, cu, cv) = axis.components();
    let b = field.grid.bounds();
    let (lo, hi) = (b.min.to_array(), b.max.to_array());
    let names = ["x", "y", "z"];
    let centre = field.grid.origin.to_array()[a] + index as f32 * field.grid.cell_size;
    (
        [(names[cu], lo[cu], hi[cu]), (names[cv], lo[cv], hi[cv])],
        centre,
    )
}

/// Slice `index` of `values` (one per cell of `field`'s grid) as rows
/// from the top (+v up), `nu` values each; non-finite values become NaN.
/// Empty when `values` does not match the grid or `index` is out of range.
pub fn slice_values(field: &SdfField, values: &[f32], axis: Axis, index: u32) -> Vec<f32> {
    let (nu, nv, na) = slice_dims(field, axis);
    if index >= na || values.len() != field.grid.num_cells() {
        return Vec::new();
    }
    (0..nv)
        .rev()
        .flat_map(|v| (0..nu).map(move |u| (u, v)))
        .map(|(u, v)| {
            let d = values[cell_index(field, axis, index, u, v)];
            if d.is_finite() { d } else { f32::NAN }
        })
        .collect()
}

/// Cell index of (u, v) in slice `index` (all in range).
fn cell_index(field: &SdfField, axis: Axis, index: u32, u: u32, v: u32) -> usize {
    field.grid.index(slice_cell(axis, index, u, v))
}

/// The slice `index` (clamped to the grid) as an image of
/// `(cells along u) · scale × (cells along v) · scale` pixels, coloured
/// over `lo..hi` ([`ColorMap::color_between`]). See the module docs for
/// what is drawn. An empty field gives a 1×1 image.
pub fn slice_image(
    field: &SdfField,
    axis: Axis,
    index: u32,
    map: ColorMap,
    lo: f32,
    hi: f32,
    scale: u32,
) -> image::RgbaImage {
    let (nu, nv, na) = slice_dims(field, axis);
    let scale = scale.max(1);
    if nu == 0 || nv == 0 || na == 0 || field.values.len() < field.grid.num_cells() {
        return image::RgbaImage::from_pixel(1, 1, image::Rgba([0, 0, 0, 255]));
    }
    let index = index.min(na - 1);
    let range = lo.abs().max(hi.abs());
    let range = if range.is_finite() && range > 0.0 {
        range
    } else {
        1.0
    };
    let step = range / LEVELS_PER_RANGE;
    let value = |u: u32, v: u32| field.values[cell_index(field, axis, index, u, v)];
    let far =
        |u: u32, v: u32| field.closest.get(cell_index(field, axis, index, u, v)) == Some(&FAR);
    let colour = |u: u32, v: u32| {
        let d = value(u, v);
        let d = if far(u, v) {
            if d < 0.0 { lo } else { hi }
        } else {
            d
        };
        map.color_between(d, lo, hi)
    };

    let (width, height) = (nu * scale, nv * scale);
    let mut img = image::RgbaImage::new(width, height);
    for py in 0..height {
        let y_up = height - 1 - py;
        let cv = y_up / scale;
        // Sample position in cell-centre coordinates (centre of cell i at i).
        let sv = ((y_up as f32 + 0.5) / scale as f32 - 0.5).clamp(0.0, (nv - 1) as f32);
        for px in 0..width {
            let cu = px / scale;
            let mut c = colour(cu, cv);
            let su = ((px as f32 + 0.5) / scale as f32 - 0.5).clamp(0.0, (nu - 1) as f32);
            if let Some((f, grad)) = bilinear(&value, &far, su, sv, nu, nv) {
                // Value change per pixel, so distances to levels are in pixels.
                let per_pixel = (grad.length() / scale as f32).max(1e-12);
                let zero_px = f.abs() / per_pixel;
                let level = (f / step).round() * step;
                let level_px = (f - level).abs() / per_pixel;
                if zero_px < 0.5 * ZERO_LINE_WIDTH {
                    c = [0, 0, 0, 255];
                } else if level != 0.0 && level_px < 0.5 * ISO_LINE_WIDTH && !far(cu, cv) {
                    c = [darken(c[0]), darken(c[1]), darken(c[2]), 255];
                }
            }
            img.put_pixel(px, py, image::Rgba(c));
        }
    }
    img
}

fn darken(c: u8) -> u8 {
    (c as f32 * ISO_DARKEN).round() as u8
}

/// Bilinear value and gradient (per cell) at (su, sv) in cell-centre
/// coordinates; `None` when a corner is a far cell (no real distance there).
fn bilinear(
    value: &impl Fn(u32, u32) -> f32,
    far: &impl Fn(u32, u32) -> bool,
    su: f32,
    sv: f32,
    nu: u32,
    nv: u32,
) -> Option<(f32, Vec2)> {
    let u0 = (su.floor() as u32).min(nu.saturating_sub(2));
    let v0 = (sv.floor() as u32).min(nv.saturating_sub(2));
    let u1 = (u0 + 1).min(nu - 1);
    let v1 = (v0 + 1).min(nv - 1);
    let corners = [(u0, v0), (u1, v0), (u0, v1), (u1, v1)];
    if corners.iter().any(|&(u, v)| far(u, v)) {
        return None;
    }
    let [f00, f10, f01, f11] = corners.map(|(u, v)| value(u, v));
    let a = (su - u0 as f32).clamp(0.0, 1.0);
    let b = (sv - v0 as f32).clamp(0.0, 1.0);
    let f = f00 * (1.0 - a) * (1.0 - b) + f10 * a * (1.0 - b) + f01 * (1.0 - a) * b + f11 * a * b;
    // A single row or column has no slope across it.
    let du = if u1 > u0 {
        (f10 - f00) * (1.0 - b) + (f11 - f01) * b
    } else {
        0.0
    };
    let dv = if v1 > v0 {
        (f01 - f00) * (1.0 - a) + (f11 - f10) * a
    } else {
        0.0
    };
    f.is_finite().then_some((f, Vec2::new(du, dv)))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::stages::sdf::{Backend, GridSpec, SdfParams};

    /// The analytic field of a sphere of radius `r` at the origin on an n³ grid.
    fn sphere_field(n: u32, r: f32) -> SdfField {
        let cell_size = 2.0 / n as f32;
        let grid = GridSpec {
            origin: Vec3::splat(-1.0 + 0.5 * cell_size),
            cell_size,
            dims: UVec3::splat(n),
        };
        let values: Vec<f32> = (0..grid.num_cells())
            .map(|i| grid.center_of(i).length() - r)
            .collect();
        SdfField {
            grid,
            params: SdfParams::default(),
            backend: Backend::CpuReference,
            closest: vec![0; values.len()],
            values,
            distance_evaluations: 0,
            timings: Default::default(),
        }
    }

    #[test]
    fn sphere_slice_has_a_black_zero_line_and_both_sides() {
        let field = sphere_field(16, 0.6);
        let img = slice_image(&field, Axis::Z, 8, ColorMap::Sundholm, -0.5, 0.5, 8);
        assert_eq!(img.dimensions(), (128, 128));
        let black = img.pixels().filter(|p| p.0 == [0, 0, 0, 255]).count();
        assert!(black > 100, "only {black} zero-level pixels");
        // The centre is inside (pink→cyan family: bright), the corner outside.
        let centre = img.get_pixel(64, 64).0;
        let corner = img.get_pixel(2, 2).0;
        assert_ne!(centre, corner);
        assert_eq!(corner, ColorMap::Sundholm.color(field.values[0], 0.5));
        // Zero-level pixels lie near the circle of radius 0.6 (64 · 0.6 ≈ 38 px).
        for (x, y, p) in img.enumerate_pixels() {
            if p.0 == [0, 0, 0, 255] {
                let r = ((x as f32 + 0.5 - 64.0).powi(2) + (y as f32 + 0.5 - 64.0).powi(2)).sqrt();
                assert!(
                    (r - 38.4).abs() < 4.0,
                    "zero pixel ({x}, {y}) at radius {r}"
                );
            }
        }
        // Darker iso-line pixels too: neither black nor their cell's colour.
        let iso = img
            .enumerate_pixels()
            .filter(|(x, y, p)| {
                let (u, v) = (x / 8, (127 - y) / 8);
                let cell = field.values[field.grid.index(UVec3::new(u, v, 8))];
                p.0 != [0, 0, 0, 255] && p.0 != ColorMap::Sundholm.color(cell, 0.5)
            })
            .count();
        assert!(iso > 50, "only {iso} iso-line pixels");
    }

    #[test]
    fn out_of_range_index_is_clamped_and_values_read_out() {
        let field = sphere_field(8, 0.5);
        for axis in Axis::ALL {
            let img = slice_image(&field, axis, 1000, ColorMap::Diverging, -1.0, 1.0, 2);
            assert_eq!(img.dimensions(), (16, 16));
            assert_eq!(
                img,
                slice_image(&field, axis, 7, ColorMap::Diverging, -1.0, 1.0, 2)
            );
        }
        // Scale 0 counts as 1.
        assert_eq!(
            slice_image(&field, Axis::X, 0, ColorMap::Sundholm, -1.0, 1.0, 0).dimensions(),
            (8, 8)
        );
    }

    #[test]
    fn slice_values_run_from_the_top_row_and_places_round_trip() {
        let field = sphere_field(6, 0.5);
        for axis in Axis::ALL {
            let values = slice_values(&field, &field.values, axis, 2);
            assert_eq!(values.len(), 36);
            for (k, &d) in values.iter().enumerate() {
                let (u, v) = (k as u32 % 6, 5 - k as u32 / 6);
                let ijk = slice_cell(axis, 2, u, v);
                assert_eq!(d, field.values[field.grid.index(ijk)]);
                assert_eq!(slice_place(axis, ijk), (2, u, v));
            }
            assert!(slice_values(&field, &field.values, axis, 6).is_empty());
            assert!(slice_values(&field, &field.values[1..], axis, 0).is_empty());
        }
        let ([(u, u0, u1), (v, v0, v1)], at) = slice_extents(&field, Axis::Y, 0);
        assert_eq!((u, v), ("x", "z"));
        assert!((u0 + 1.0).abs() < 1e-6 && (u1 - 1.0).abs() < 1e-6);
        assert!((v0 + 1.0).abs() < 1e-6 && (v1 - 1.0).abs() < 1e-6);
        assert!((at - (-1.0 + 1.0 / 6.0)).abs() < 1e-6, "{at}");
    }

    #[test]
    fn far_cells_take_the_saturated_colour() {
        let mut field = sphere_field(8, 0.5);
        let corner = field.grid.index(UVec3::new(0, 0, 4));
        field.closest[corner] = FAR;
        field.values[corner] = 0.1; // ±band, not the distance
        let img = slice_image(&field, Axis::Z, 4, ColorMap::Sundholm, -0.4, 0.4, 4);
        // Cell (0, 0) is the bottom-left block.
        assert_eq!(img.get_pixel(1, 30).0, ColorMap::Sundholm.color(0.4, 0.4));
    }
}
