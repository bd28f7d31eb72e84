//! The CPU reference rasteriser: the GPU's rules (see [`super::setup`]) with
//! the hardware's coverage rule written out, so both fill the same cells.
//!
//! A triangle's corners go to the θ–z image at `(θ₁·nθ, z·nz)` (y down,
//! row k = z cell k), snapped to 1/2⁸ of a cell as Vulkan rasterisers snap
//! (lavapipe's `subPixelPrecisionBits` is 8). A cell is covered when its
//! centre lies inside the triangle by integer edge functions, a centre on
//! an edge belonging to the triangle only for top and left edges (the
//! top-left rule), so two triangles sharing an edge never both cover a
//! cell. Each covered cell keeps the smaller distance (the GPU's
//! `atomicMin`, §5.2.1 depth masking).

use rayon::prelude::*;

use super::frame::BoneFrame;
use super::setup::{TriangleSetup, cell_distance, setup};
use super::{RadialInput, RadialParams};

/// Sub-cell bits of the snapped corner positions.
pub const SUBPIXEL_BITS: u32 = 8;

/// Every field of `input`, values row-major by z, field after field.
pub fn rasterise(input: RadialInput<'_>, params: &RadialParams) -> Vec<f32> {
    input
        .fields
        .par_iter()
        .flat_map_iter(|field| {
            let mut values = vec![f32::INFINITY; params.cells_per_field()];
            let mut draw = |t: u32| {
                let [a, b, c] = input.triangles[t as usize];
                let corners = [a, b, c].map(|v| input.positions[v as usize]);
                if let Some(s) = setup(&field.frame, corners, params.min_facing) {
                    fill(&s, &field.frame, params, &mut values);
                }
            };
            match &field.faces {
                Some(faces) => faces.iter().copied().for_each(&mut draw),
                None => (0..input.triangles.len() as u32).for_each(&mut draw),
            }
            values
        })
        .collect()
}

/// Fills the cells `s` covers in one field's `values`.
fn fill(s: &TriangleSetup, frame: &BoneFrame, params: &RadialParams, values: &mut [f32]) {
    let (w, h) = (params.n_theta, params.n_z);
    let one = (1i64 << SUBPIXEL_BITS) as f32;
    let snap = |x: f32| (x * one).round() as i64;
    let mut p = [0, 1, 2].map(|j| (snap(s.theta[j] * w as f32), snap(s.z[j] * h as f32)));
    let area = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[1].1 - p[0].1) * (p[2].0 - p[0].0);
    if area == 0 {
        return;
    }
    if area < 0 {
        p.swap(1, 2);
    }
    let cell = 1i64 << SUBPIXEL_BITS;
    let range = |lo: i64, hi: i64, n: u32| {
        let first = (lo - cell / 2).div_euclid(cell).max(0);
        let last = (hi - cell / 2).div_euclid(cell).min(n as i64 - 1);
        first..=last
    };
    let (x, y) = (p.map(|c| c.0), p.map(|c| c.1));
    let xs = range(x[0].min(x[1]).min(x[2]), x[0].max(x[1]).max(x[2]), w);
    let ys = range(y[0].min(y[1]).min(y[2]), y[0].max(y[1]).max(y[2]), h);
    let shift = w / 2;
    for y in ys {
        for x in xs.clone() {
            let centre = (x * cell + cell / 2, y * cell + cell / 2);
            if !(0..3).all(|j| inside(p[j], p[(j + 1) % 3], centre)) {
                continue;
            }
            let (x, y) = (x as u32, y as u32);
            let i = if s.wrapped { (x + shift) % w } else { x };
            if let Some(d) = cell_distance(s, frame.length, (i, y), (w, h), params.filter) {
                let v = &mut values[(y * w + i) as usize];
                *v = v.min(d);
            }
        }
    }
}

/// Whether `c` is on the inner side of the edge `a → b` of a triangle of
/// positive area (y down), a point on the edge counting for top edges
/// (horizontal, going right) and left edges (going up).
fn inside(a: (i64, i64), b: (i64, i64), c: (i64, i64)) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let e = dx * (c.1 - a.1) - dy * (c.0 - a.0);
    e > 0 || (e == 0 && ((dy == 0 && dx > 0) || dy < 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_edges_cover_each_centre_once() {
        // Two triangles of a square split along its diagonal, the diagonal
        // through cell centres: each centre belongs to exactly one.
        let sq = [(0, 0), (1024, 0), (1024, 1024), (0, 1024)].map(|(x, y)| (x + 128, y + 128));
        let tris = [[sq[0], sq[1], sq[2]], [sq[0], sq[2], sq[3]]];
        for y in 0..6i64 {
            for x in 0..6i64 {
                let c = (x * 256 + 128, y * 256 + 128);
                let n = tris
                    .iter()
                    .filter(|t| (0..3).all(|j| inside(t[j], t[(j + 1) % 3], c)))
                    .count();
                let interior = (0..=4).contains(&x) && (0..=4).contains(&y);
                let on_right_or_bottom = x == 4 || y == 4;
                let expected = usize::from(interior && !on_right_or_bottom);
                assert_eq!(n, expected, "cell ({x}, {y}) covered {n} times");
            }
        }
    }
}
