//! CPU backends: the reference (every cell against every triangle, one
//! thread) and the fast one (rayon over bricks, a SIMD brute force over each
//! brick's candidate triangles; the module docs of `sdf` describe it).

use std::time::Instant;

use glam::{UVec3, Vec3};
use rayon::prelude::*;

use super::grid::BRICK;
use super::{Backend, FAR, GridSpec, SdfField, SdfParams};
use crate::geom::{Aabb, ClosestPoint, LANES, TriangleBatch, closest_point_triangle, with_simd};
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::timing::Timings;

/// Relative slack on a brick's band reach, so rounding can never mark a
/// brick far that holds a cell within the band.
const REACH_SLACK: f32 = 1.0 + 1e-4;

/// Signed value and packed closest `(triangle << 3) | feature` of a cell
/// whose closest triangle is `tri` at squared distance `d2` — the sign is the
/// side of the closest feature's pseudo-normal. Mirrors `write_cell` in
/// shaders/sdf.wgsl.
pub(crate) fn signed_cell(mesh: &PreparedMesh, p: Vec3, tri: u32, d2: f32) -> (f32, u32) {
    let c = closest_point_triangle(p, mesh.mesh.corners(tri as usize));
    let (sign, packed) = feature_sign(mesh, p, tri, &c);
    (sign * d2.sqrt(), packed)
}

/// The sign (±1) of `p` by the pseudo-normal of the feature of its closest
/// point `c` on triangle `tri`, and the packed `(tri << 3) | feature`.
fn feature_sign(mesh: &PreparedMesh, p: Vec3, tri: u32, c: &ClosestPoint) -> (f32, u32) {
    let feature = c.feature as u32;
    let n = mesh.feature_normals[tri as usize][feature as usize];
    let sign = if (p - c.point).dot(n) < 0.0 {
        -1.0
    } else {
        1.0
    };
    (sign, (tri << 3) | feature)
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
pub(super) fn reference_on(
    mesh: &PreparedMesh,
    grid: GridSpec,
    params: &SdfParams,
    progress: &Progress,
) -> SdfField {
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

/// Relative slack on squared distances between the batch kernel and the
/// exact one: every triangle whose batch value is within this of the
/// smallest value seen gets the exact test, so rounding differences between
/// the two kernels (about 1e-6, see the batch kernel's tests) cannot hide the
/// closest triangle.
const TIE_SLACK: f32 = 1e-4;

/// Absolute slack on the same, in cell sizes: for cells within rounding of
/// the surface, where a relative slack is no slack.
const TIE_FLOOR: f32 = 1e-3;

/// The search of one cell over its brick's candidates. Batch values bound it
/// and pick the triangles that need the exact test: those within
/// [`TIE_SLACK`] of the smallest value seen, tested once the scan is over.
struct CellSearch<'a> {
    /// The smallest squared distance seen, batch or exact.
    bound2: f32,
    /// `min(bound2, band²) · (1 + TIE_SLACK) + floor2`: no triangle with a
    /// batch value above this is the closest.
    threshold2: f32,
    band2: f32,
    floor2: f32,
    /// Triangles with their batch value, if it was within the threshold when
    /// seen.
    near: &'a mut Vec<(u32, f32)>,
}

impl<'a> CellSearch<'a> {
    /// A search bounded by a triangle at exact squared distance `start2`.
    fn new(start2: f32, band2: f32, floor2: f32, near: &'a mut Vec<(u32, f32)>) -> Self {
        near.clear();
        let mut search = CellSearch {
            bound2: f32::INFINITY,
            threshold2: 0.0,
            band2,
            floor2,
            near,
        };
        search.bound_by(start2);
        search
    }

    fn bound_by(&mut self, d2: f32) {
        self.bound2 = self.bound2.min(d2);
        self.threshold2 = self.bound2.min(self.band2) * (1.0 + TIE_SLACK) + self.floor2;
    }

    /// Takes in one batch's values.
    #[inline(always)]
    fn offer(&mut self, d2: &[f32; LANES], triangles: &[u32; LANES]) {
        // Most batches have no lane within the threshold: one vector compare.
        if d2.iter().all(|&d| d > self.threshold2) {
            return;
        }
        for (&d, &t) in d2.iter().zip(triangles) {
            if d <= self.threshold2 {
                self.near.push((t, d));
                self.bound_by(d);
            }
        }
    }

    /// The triangles that need the exact test once the scan is over (a
    /// batch's padding lanes may repeat one).
    fn finalists(&self) -> impl Iterator<Item = u32> {
        self.near
            .iter()
            .filter(|&&(_, d)| d <= self.threshold2)
            .map(|&(t, _)| t)
    }
}

/// The mesh's triangles in batches of [`LANES`] consecutive slots of the
/// BVH order, so that a batch's triangles are neighbours in space, with each
/// batch's triangle indices and the union of their boxes.
struct BatchedMesh {
    batches: Vec<TriangleBatch>,
    triangles: Vec<[u32; LANES]>,
    bounds: Vec<Aabb>,
}

impl BatchedMesh {
    fn new(mesh: &PreparedMesh) -> Self {
        let chunks = || mesh.bvh.order.par_chunks(LANES);
        BatchedMesh {
            batches: chunks()
                .map(|chunk| {
                    let corners: Vec<[Vec3; 3]> =
                        chunk.iter().map(|&t| mesh.corners[t as usize]).collect();
                    TriangleBatch::pack(&corners)
                })
                .collect(),
            // Padding lanes repeat the first triangle, as in the batch.
            triangles: chunks()
                .map(|chunk| std::array::from_fn(|l| *chunk.get(l).unwrap_or(&chunk[0])))
                .collect(),
            bounds: chunks()
                .map(|chunk| {
                    chunk.iter().fold(Aabb::EMPTY, |b, &t| {
                        b.union(mesh.triangle_bounds[t as usize])
                    })
                })
                .collect(),
        }
    }

    /// Calls `f` with each batch holding a BVH leaf within `reach` of `p`,
    /// once each, ascending.
    fn for_each_within(&self, mesh: &PreparedMesh, p: Vec3, reach: f32, mut f: impl FnMut(u32)) {
        let mut last = None;
        mesh.bvh.for_each_leaf_within(p, reach * reach, |slots| {
            for b in slots.start / LANES..=(slots.end - 1) / LANES {
                if last != Some(b) {
                    last = Some(b);
                    f(b as u32);
                }
            }
        });
    }
}

/// Per-worker buffers of [`fast_on`], reused across bricks.
#[derive(Default)]
struct BrickScratch {
    /// The brick's candidate batches.
    candidates: Vec<u32>,
    /// [`CellSearch::near`].
    near: Vec<(u32, f32)>,
}

/// Rayon over 4³ bricks, each a brute force over its candidate triangles
/// with the batch kernel; see the module docs.
pub(super) fn fast_on(
    mesh: &PreparedMesh,
    grid: GridSpec,
    params: &SdfParams,
    progress: &Progress,
) -> SdfField {
    let bricks = grid.bricks();
    let num_bricks = (bricks.x * bricks.y * bricks.z) as usize;
    progress.start(num_bricks as u64);
    let start = Instant::now();
    let band2 = band2(params, &grid);
    let far = far_value(params, &grid);
    let batched = BatchedMesh::new(mesh);
    // Each brick yields its cells as (index, value, closest) and its count of
    // distance evaluations.
    type BrickCells = (Vec<(usize, f32, u32)>, u64);
    let per_brick: Vec<BrickCells> = (0..num_bricks)
        .into_par_iter()
        .map_init(BrickScratch::default, |scratch, b| {
            if progress.is_cancelled() {
                return (Vec::new(), 0);
            }
            let bc = UVec3::new(
                b as u32 % bricks.x,
                (b as u32 / bricks.x) % bricks.y,
                b as u32 / (bricks.x * bricks.y),
            );
            let brick = Brick {
                mesh,
                batched: &batched,
                grid: &grid,
                far,
                band2,
                banded: params.band.is_some(),
            };
            let cells = with_simd(
                #[inline(always)]
                || brick.fill(bc, scratch),
            );
            progress.advance(1);
            cells
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

/// What every brick of [`fast_on`] reads.
struct Brick<'a> {
    mesh: &'a PreparedMesh,
    batched: &'a BatchedMesh,
    grid: &'a GridSpec,
    /// Value of a far cell, and the band's squared half-width (infinite
    /// without a band).
    far: f32,
    band2: f32,
    banded: bool,
}

impl Brick<'_> {
    /// The cells of brick `bc` as `(cell index, value, closest)`, and the
    /// number of distance evaluations (batch lanes and exact tests).
    #[inline(always)]
    fn fill(&self, bc: UVec3, scratch: &mut BrickScratch) -> (Vec<(usize, f32, u32)>, u64) {
        let (mesh, grid) = (self.mesh, self.grid);
        let h = grid.cell_size;
        let center = grid.brick_center(bc);
        // The farthest cell centre of the brick from its centre.
        let radius = 1.5 * 3f32.sqrt() * h;
        let band = self.band2.sqrt();
        let mut evals = 0u64;
        // In a band, nothing within the band's reach of the centre means
        // every cell of the brick is far.
        let seed_bound = if self.banded {
            (band + radius).powi(2) * REACH_SLACK
        } else {
            f32::INFINITY
        };
        let seed = nearest_triangle(mesh, center, seed_bound, &mut evals);
        let mut cells = Vec::with_capacity(64);
        let cell_range = |d: u32| (0..BRICK).map(move |i| d * BRICK + i);
        let in_grid = cell_range(bc.z)
            .flat_map(|z| {
                cell_range(bc.y)
                    .flat_map(move |y| cell_range(bc.x).map(move |x| UVec3::new(x, y, z)))
            })
            .filter(|ijk| ijk.cmplt(grid.dims).all());
        let Some((seed_t, seed_d2)) = seed else {
            cells.extend(in_grid.map(|ijk| (grid.index(ijk), self.far, FAR)));
            return (cells, evals);
        };

        // Every cell p has a triangle within d(c) + |p − c| ≤ d(c) + radius
        // (the seed) and needs none beyond the band, so its closest triangle
        // is within `reach` of p, and within `reach + radius` of c.
        let reach = (seed_d2.sqrt() + radius).min(band) * REACH_SLACK;
        scratch.candidates.clear();
        self.batched
            .for_each_within(mesh, center, (reach + radius) * REACH_SLACK, |b| {
                scratch.candidates.push(b);
            });

        let closest = |p: Vec3, t: u32| closest_point_triangle(p, mesh.corners[t as usize]);
        let floor2 = (TIE_FLOOR * h).powi(2);
        let mut previous = seed_t;
        for ijk in in_grid {
            let p = grid.center(ijk);
            // The previous cell's closest triangle is usually this one's too.
            let mut best = (previous, closest(p, previous));
            evals += 1;
            let mut search = CellSearch::new(
                best.1.distance_squared,
                self.band2,
                floor2,
                &mut scratch.near,
            );
            for &b in &scratch.candidates {
                let b = b as usize;
                if self.batched.bounds[b].distance_squared_to_point(p) > search.threshold2 {
                    continue;
                }
                evals += LANES as u64;
                search.offer(
                    &self.batched.batches[b].distance_squared(p),
                    &self.batched.triangles[b],
                );
            }
            for t in search.finalists() {
                if t != best.0 {
                    evals += 1;
                    let c = closest(p, t);
                    if c.distance_squared < best.1.distance_squared {
                        best = (t, c);
                    }
                }
            }
            let (t, c) = best;
            if c.distance_squared < self.band2 {
                let (sign, packed) = feature_sign(mesh, p, t, &c);
                previous = t;
                cells.push((grid.index(ijk), sign * c.distance_squared.sqrt(), packed));
            } else {
                cells.push((grid.index(ijk), self.far, FAR));
            }
        }
        (cells, evals)
    }
}
