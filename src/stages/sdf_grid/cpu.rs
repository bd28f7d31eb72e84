//! CPU backends: the reference (every cell against every triangle, one
//! thread) and the fast one (BVH + rayon over bricks, mirroring the GPU
//! accelerated backend's structure).

use std::time::Instant;

use glam::{UVec3, Vec3};
use rayon::prelude::*;

use super::grid::BRICK;
use super::{Backend, FAR, GridSpec, PreparedMesh, SdfField, SdfParams};
use crate::geom::closest_point_triangle;
use crate::progress::Progress;
use crate::timing::Timings;

/// Relative slack on a brick's band reach, so rounding can never mark a
/// brick far that holds a cell within the band; shared with the shader.
pub(super) const REACH_SLACK: f32 = 1.0 + 1e-4;

/// Signed value and packed closest `(triangle << 3) | feature` of a cell
/// whose closest triangle is `tri` at squared distance `d2` — the sign is the
/// side of the closest feature's pseudo-normal. Mirrors `write_cell` in
/// shaders/sdf_grid.wgsl.
pub(crate) fn signed_cell(mesh: &PreparedMesh, p: Vec3, tri: u32, d2: f32) -> (f32, u32) {
    let c = closest_point_triangle(p, mesh.mesh.corners(tri as usize));
    let feature = c.feature as u32;
    let n = mesh.feature_normals[tri as usize][feature as usize];
    let sign = if (p - c.point).dot(n) < 0.0 {
        -1.0
    } else {
        1.0
    };
    (sign * d2.sqrt(), (tri << 3) | feature)
}

fn far_value(params: &SdfParams, grid: &GridSpec) -> f32 {
    params.band.map_or(f32::INFINITY, |b| b * grid.cell_size)
}

fn band2(params: &SdfParams, grid: &GridSpec) -> f32 {
    params
        .band
        .map_or(f32::INFINITY, |b| (b * grid.cell_size).powi(2))
}

/// The nearest triangle to `p` strictly closer than `sqrt(bound2)`, by BVH
/// traversal; a triangle whose own box is not closer than the best so far
/// is skipped without the exact test. `evals` counts exact tests.
pub(crate) fn nearest_triangle(
    mesh: &PreparedMesh,
    p: Vec3,
    bound2: f32,
    evals: &mut u64,
) -> Option<(u32, f32)> {
    let mut best = bound2;
    mesh.bvh.nearest(p, bound2, |t| {
        if mesh.triangle_bounds[t as usize].distance_squared_to_point(p) >= best {
            return f32::INFINITY;
        }
        *evals += 1;
        let d2 = closest_point_triangle(p, mesh.corners[t as usize]).distance_squared;
        best = best.min(d2);
        d2
    })
}

/// One cell of the reference: every triangle in order, the first of equally
/// close ones wins; `None` when nothing is within the band.
pub fn reference_cell(mesh: &PreparedMesh, p: Vec3, band2: f32) -> Option<(f32, u32)> {
    let mut best = band2;
    let mut best_tri = FAR;
    for t in 0..mesh.triangle_count() {
        let d2 = closest_point_triangle(p, mesh.mesh.corners(t)).distance_squared;
        if d2 < best {
            best = d2;
            best_tri = t as u32;
        }
    }
    (best_tri != FAR).then(|| signed_cell(mesh, p, best_tri, best))
}

/// Every cell against every triangle, single-threaded, in triangle order
/// (the first of equally close triangles wins, as in the GPU brute force).
pub fn compute_cpu_reference(
    mesh: &PreparedMesh,
    params: &SdfParams,
    progress: &Progress,
) -> SdfField {
    let grid = GridSpec::around(mesh.mesh.bounds(), params.resolution, params.padding);
    let n = grid.num_cells();
    progress.start(n as u64);
    let start = Instant::now();
    let mut values = vec![far_value(params, &grid); n];
    let mut closest = vec![FAR; n];
    let band2 = band2(params, &grid);
    for cell in 0..n {
        if cell % 4096 == 0 {
            if progress.is_cancelled() {
                break;
            }
            progress.advance(4096.min((n - cell) as u64));
        }
        if let Some(v) = reference_cell(mesh, grid.center_of(cell), band2) {
            (values[cell], closest[cell]) = v;
        }
    }
    let mut timings = Timings::default();
    timings.push("distance", start.elapsed().as_secs_f64() * 1e3, None);
    SdfField {
        grid,
        params: *params,
        backend: Backend::CpuReference,
        values,
        closest,
        distance_evaluations: (n * mesh.triangle_count()) as u64,
        timings,
    }
}

/// BVH queries over 4³ bricks in parallel. Each brick first finds its
/// centre's closest triangle; each cell then starts from the better of that
/// triangle and the previous cell's, whose distance bounds the traversal
/// (see the module docs). The GPU backend uses the centre's triangle only.
pub fn compute_cpu_fast(mesh: &PreparedMesh, params: &SdfParams, progress: &Progress) -> SdfField {
    let grid = GridSpec::around(mesh.mesh.bounds(), params.resolution, params.padding);
    let bricks = grid.bricks();
    let num_bricks = (bricks.x * bricks.y * bricks.z) as usize;
    progress.start(num_bricks as u64);
    let start = Instant::now();
    let band2 = band2(params, &grid);
    let far = far_value(params, &grid);
    let dist2 =
        |p: Vec3, t: u32| closest_point_triangle(p, mesh.corners[t as usize]).distance_squared;
    let brick_radius = 1.5 * 3f32.sqrt() * grid.cell_size;
    // Each brick yields its cells as (index, value, closest) and its count of
    // distance evaluations.
    type BrickCells = (Vec<(usize, f32, u32)>, u64);
    let per_brick: Vec<BrickCells> = (0..num_bricks)
        .into_par_iter()
        .map(|b| {
            if progress.is_cancelled() {
                return (Vec::new(), 0);
            }
            let bc = UVec3::new(
                b as u32 % bricks.x,
                (b as u32 / bricks.x) % bricks.y,
                b as u32 / (bricks.x * bricks.y),
            );
            let center = grid.brick_center(bc);
            let mut evals = 0u64;
            // In a band, nothing within the band's reach of the centre means
            // every cell of the brick is far.
            let seed_bound = if params.band.is_some() {
                (band2.sqrt() + brick_radius).powi(2) * REACH_SLACK
            } else {
                f32::INFINITY
            };
            let seed = nearest_triangle(mesh, center, seed_bound, &mut evals);
            let mut cells = Vec::with_capacity(64);
            let mut previous: Option<u32> = None;
            for dz in 0..BRICK {
                for dy in 0..BRICK {
                    for dx in 0..BRICK {
                        let ijk = bc * BRICK + UVec3::new(dx, dy, dz);
                        if !ijk.cmplt(grid.dims).all() {
                            continue;
                        }
                        let cell = grid.index(ijk);
                        let p = grid.center(ijk);
                        let Some((seed_t, _)) = seed else {
                            cells.push((cell, far, FAR));
                            continue;
                        };
                        let (mut best_t, mut best_d2) = (seed_t, dist2(p, seed_t));
                        evals += 1;
                        if let Some(t) = previous.filter(|&t| t != seed_t) {
                            evals += 1;
                            let d2 = dist2(p, t);
                            if d2 < best_d2 {
                                (best_t, best_d2) = (t, d2);
                            }
                        }
                        let found = nearest_triangle(mesh, p, best_d2.min(band2), &mut evals);
                        if let Some((t, d2)) = found {
                            (best_t, best_d2) = (t, d2);
                        }
                        if best_d2 < band2 {
                            let (v, c) = signed_cell(mesh, p, best_t, best_d2);
                            previous = Some(best_t);
                            cells.push((cell, v, c));
                        } else {
                            cells.push((cell, far, FAR));
                        }
                    }
                }
            }
            progress.advance(1);
            (cells, evals)
        })
        .collect();
    let mut values = vec![far; grid.num_cells()];
    let mut closest = vec![FAR; grid.num_cells()];
    let mut evaluations = 0;
    for (cells, evals) in per_brick {
        evaluations += evals;
        for (cell, v, c) in cells {
            values[cell] = v;
            closest[cell] = c;
        }
    }
    let mut timings = Timings::default();
    timings.push("distance", start.elapsed().as_secs_f64() * 1e3, None);
    SdfField {
        grid,
        params: *params,
        backend: Backend::CpuFast,
        values,
        closest,
        distance_evaluations: evaluations,
        timings,
    }
}
