//! Closing a triangle soup with a cap, so that its winding number is an
//! integer crossing count minus the cap's winding number.
//!
//! # The decomposition
//!
//! Read a triangle mesh `M` (open, non-manifold, with duplicated or
//! opposite faces: any soup) as a 2-chain, each triangle `(a, b, c)` with
//! coefficient 1. Its boundary `∂M` is the 1-chain of its directed edges
//! `a→b, b→c, c→a`, where an edge and its reverse cancel: what is left
//! after cancelling is the mesh's boundary, each edge with a net
//! multiplicity. The boundary of a boundary is zero (the classical
//! identity `∂∂ = 0` of simplicial homology), so `∂M` is a 1-cycle: at
//! every vertex as many boundary edges come in as go out. A greedy walk
//! along unused outgoing edges can therefore only stop where it started,
//! and repeating it splits `∂M` into closed loops ([`boundary_cap`]). For
//! each loop, the fan of triangles `(b, a, c)` over its edges `a→b`, with
//! `c` the mean of the loop's vertices, has boundary minus the loop (the
//! spokes `a→c`, `c→b` cancel around it). With `C` all the fans,
//! `Z = M + C` has no boundary: it is a closed 2-cycle.
//!
//! The generalised winding number (Barill et al. 2018 §2: the sum of the
//! triangles' signed solid angles over 4π) is additive over triangles, so
//! for any point `p` on neither `M` nor `C`
//!
//! ```text
//! w_M(p) = W_Z(p) − w_C(p)
//! ```
//!
//! and the winding number `W_Z` of a closed cycle is an integer: the
//! signed count of `Z`'s crossings with any ray from `p` to infinity
//! ([`ray_crossings`], the ray down −z: a triangle whose normal points
//! down, +1; up, −1). The GPU sign of `stages::sdf` counts `W_Z`
//! per grid column and evaluates `w_C` over the cap alone — a few
//! triangles for a scan with a few holes, none for a closed mesh.
//!
//! [`ray_crossings`] is the reference in f64 for tests: its tie rule (a
//! point exactly on a projected edge) is the symbolic perturbation of the
//! point by `(ε, ε²)`, so that a ray through a shared edge or vertex counts
//! as one through a point beside it.
//!
//! # Where the cap cannot matter
//!
//! `W_Z` is an integer, so wherever `|w_C| < ½` it alone decides the
//! inside test `|w_M| > ½`: `W_Z = 0` gives `|w_M| = |w_C| < ½`, and
//! `|W_Z| ≥ 1` gives `|w_M| ≥ 1 − |w_C| > ½`. A bound on `|w_C|` needs no
//! expansion: a triangle's signed solid angle is `∫ n·(x − p)/|x − p|³ dA`,
//! at most `∫ dA/|x − p|²` in magnitude, so any set of triangles of total
//! (unsigned) area `A` within a ball of centre `c` and radius `r` has
//!
//! ```text
//! |Ω(p)| ≤ A / (|c − p| − r)²        (|c − p| > r)
//! ```
//!
//! whatever their orientation, folds or overlaps; and a single plane
//! triangle is seen within a half sphere, `|Ω| ≤ 2π`.
//! [`cap_solid_angle_bound`] sums these over a cut of the cap's tree, and
//! the GPU sign (`stages::sdf`'s cap pass, its shader `cap_bound`,
//! which this function mirrors operation for operation) walks the cap's
//! tree only where that sum is not below 2π (`|w_C|` may reach ½): near
//! the cap, where its `|w_C| = ½` sheet can be.
//!
//! # Whole bricks at once
//!
//! The ball bound holds for every point within the walk's `slack` of `p`,
//! so one walk can bound a whole brick of grid cells ([`cap_brick_bound`]):
//! the cells' centres, computed as `(origin + ijk · h) − frame` in float32,
//! are monotone in each index (every float operation rounds monotonically),
//! so every computed centre of the brick lies in the box spanned by its
//! first and last computed centres `f` and `l`, and that box lies in the
//! ball of centre `m = (f + l)/2` and radius `ρ = |l − f|/2`. The walk at
//! the rounded `m` with slack grown by `ρ` (itself grown by its rounding
//! and `m`'s) bounds `|Ω_C|` within the original slack of every cell
//! centre of the brick: where it is below 2π, no cell of the brick needs
//! its own bound.

use glam::{DVec2, DVec3, Vec3};
use rayon::prelude::*;

use super::{LEAF_BIT, PackedWinding};

/// The cap bound's budget in solid angle (`CAP_BUDGET` of
/// shaders/shared/winding_cap.wgsl): 2π, `|w_C| = ½`, less room for the
/// float32 rounding of the bound's sum.
pub const CAP_BUDGET: f32 = 6.2769;
/// A node's bound is taken whole when it is at most this share of
/// [`CAP_BUDGET`]; larger ones are opened (`CAP_NODE_SHARE`).
const CAP_NODE_SHARE: f32 = 0.125;
/// Relative rounding of one evaluation and of a stored coordinate, as
/// shaders/shared/winding.wgsl's `WINDING_EVAL` and `WINDING_EPS`.
const EVAL: f32 = 2e-5;
const EPS: f32 = 1e-6;

/// `A / (|c − p| − r)²` for a ball of triangles (module docs), with `p`
/// off by `s` and the evaluation's rounding; `None` where `p` may lie in
/// the ball.
fn ball_bound(centre: Vec3, radius: f32, area: f32, p: Vec3, s: f32) -> Option<f32> {
    let gap = (centre - p).length() * (1.0 - EVAL) - s - radius;
    (gap > 0.0).then(|| area / (gap * gap) * (1.0 + EVAL))
}

/// An upper bound on `|Ω_C(p)|`, the solid angle of the triangles of
/// `packed` (a cap's [`crate::geom::FastWinding`] tree, any soup in fact)
/// at `p`, in `packed`'s frame with `p` off by up to `slack`, when it is
/// below [`CAP_BUDGET`]; `None` otherwise (`|w_C|` may reach ½). The tree
/// is walked taking each node's ball bound (module docs) when it is a
/// small share of the budget and opening the node otherwise; a leaf's
/// triangles each get the smaller of their own ball bound and 2π. The walk
/// stops once the sum reaches the budget.
pub fn cap_solid_angle_bound(packed: &PackedWinding, p: Vec3, slack: f32) -> Option<f32> {
    let half_sphere = 2.0 * std::f32::consts::PI;
    let corner = |k: u32| Vec3::from_slice(&packed.corners[k as usize][..3]);
    let mut sum = 0.0f32;
    let mut stack = vec![0u32];
    while let Some(i) = stack.pop() {
        if sum >= CAP_BUDGET {
            break;
        }
        let n = &packed.nodes[i as usize];
        let centroid = Vec3::from(n.centroid);
        let s = slack + EPS * (centroid.length() + p.length());
        match ball_bound(centroid, n.radius, n.area, p, s) {
            Some(whole) if whole <= CAP_NODE_SHARE * CAP_BUDGET => sum += whole,
            _ if n.b & LEAF_BIT != 0 => {
                for t in n.a..n.a + (n.b & !LEAF_BIT) {
                    let [a, b, c] = [0, 1, 2].map(|k| corner(3 * t + k));
                    let m = (a + b + c) / 3.0;
                    // Grown by the centre's rounding, as the packed radii.
                    let r = (a - m).length().max((b - m).length()).max((c - m).length())
                        * (1.0 + EVAL)
                        + EPS * m.length();
                    // The cross product's cancellation is at most a few
                    // ulps of |u||v|.
                    let (u, v) = (b - a, c - a);
                    let area = 0.5 * (u.cross(v).length() + EVAL * u.length() * v.length());
                    sum += ball_bound(m, r, area, p, s).map_or(half_sphere, |b| b.min(half_sphere));
                }
            }
            _ => stack.extend([n.a, n.b]),
        }
    }
    (sum < CAP_BUDGET).then_some(sum)
}

/// [`cap_solid_angle_bound`] for every cell of a brick at once (module
/// docs): `first` and `last` are the brick's first and last cell centres as
/// computed (lowest and highest index on every axis), each off by up to
/// `slack`. The bound, where it is one, holds at every cell centre of the
/// brick (the shader's `cap_bricks` mirrors it).
pub fn cap_brick_bound(packed: &PackedWinding, first: Vec3, last: Vec3, slack: f32) -> Option<f32> {
    let (centre, radius) = brick_ball(first, last);
    cap_solid_angle_bound(packed, centre, slack + radius)
}

/// The ball around every point of the box spanned by `first` and `last`,
/// its radius grown by its own rounding and the centre's.
fn brick_ball(first: Vec3, last: Vec3) -> (Vec3, f32) {
    let centre = 0.5 * (first + last);
    let radius =
        0.5 * (last - first).length() * (1.0 + EVAL) + EPS * (first.length() + last.length());
    (centre, radius)
}

/// The cap of a mesh's boundary: triangles over their own vertex list (the
/// boundary's vertices, then one centre per loop).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cap {
    pub positions: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
    /// Closed loops the boundary split into.
    pub loops: usize,
}

/// The boundary chain of `triangles`: each directed edge `a→b` whose net
/// multiplicity `m` (its count minus its reverse's) is positive, `m` times,
/// sorted. Edges of a repeated index (`a→a`) are no boundary.
pub fn boundary_edges(triangles: &[[u32; 3]]) -> Vec<(u32, u32)> {
    // (low, high, ±1): +1 for low→high.
    let mut edges: Vec<(u32, u32, i32)> = triangles
        .iter()
        .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)])
        .filter(|(a, b)| a != b)
        .map(|(a, b)| if a < b { (a, b, 1) } else { (b, a, -1) })
        .collect();
    edges.par_sort_unstable_by_key(|&(a, b, _)| (a, b));
    let mut out = Vec::new();
    for run in edges.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
        let (a, b) = (run[0].0, run[0].1);
        let net: i32 = run.iter().map(|e| e.2).sum();
        let edge = if net > 0 { (a, b) } else { (b, a) };
        out.extend(std::iter::repeat_n(edge, net.unsigned_abs() as usize));
    }
    out.sort_unstable();
    out
}

/// The cap `C` of the module docs: the boundary of `triangles` split into
/// closed loops by a greedy walk, each closed by the fan over its edges
/// from its vertices' mean. Empty for a closed, consistently oriented mesh
/// (and for any other mesh whose edges all cancel).
pub fn boundary_cap(positions: &[Vec3], triangles: &[[u32; 3]]) -> Cap {
    let edges = boundary_edges(triangles);
    let mut cap = Cap::default();
    if edges.is_empty() {
        return cap;
    }
    // The boundary's vertices, renumbered, and each one's outgoing edges
    // (sorted by source, so each vertex's edges are one run).
    let mut local = std::collections::HashMap::new();
    for &(a, _) in &edges {
        local.entry(a).or_insert_with(|| {
            cap.positions.push(positions[a as usize]);
            cap.positions.len() as u32 - 1
        });
    }
    let mut next_out = vec![0usize; cap.positions.len()];
    let mut first_out = vec![usize::MAX; cap.positions.len()];
    for (k, &(a, _)) in edges.iter().enumerate().rev() {
        first_out[local[&a] as usize] = k;
    }
    let mut taken = 0;
    for start in 0..cap.positions.len() {
        loop {
            // A new loop from `start` while it has an unused outgoing edge.
            let k = first_out[start] + next_out[start];
            if k >= edges.len() || local[&edges[k].0] as usize != start {
                break;
            }
            let mut walk = Vec::new();
            let mut v = start;
            loop {
                let k = first_out[v] + next_out[v];
                next_out[v] += 1;
                let to = local[&edges[k].1] as usize;
                walk.push((v as u32, to as u32));
                v = to;
                if v == start {
                    break;
                }
            }
            taken += walk.len();
            let centre = walk
                .iter()
                .map(|&(a, _)| cap.positions[a as usize].as_dvec3())
                .sum::<DVec3>()
                / walk.len() as f64;
            cap.positions.push(centre.as_vec3());
            let c = cap.positions.len() as u32 - 1;
            cap.triangles.extend(walk.iter().map(|&(a, b)| [b, a, c]));
            cap.loops += 1;
        }
    }
    debug_assert_eq!(taken, edges.len(), "every boundary edge is in a loop");
    cap
}

/// `W_Z(p)` for a closed cycle `Z` (a mesh and its [`boundary_cap`]): the
/// signed count of its triangles crossed by the ray from `p` down −z, +1
/// where the triangle's normal points down. A point exactly on a projected
/// edge counts as if moved by `(ε, ε²)` in xy (module docs); `p` must not
/// lie on `Z` itself.
pub fn ray_crossings(positions: &[Vec3], triangles: &[[u32; 3]], p: Vec3) -> i64 {
    let p = p.as_dvec3();
    triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| positions[i as usize].as_dvec3() - p);
            let side = |u: DVec3, v: DVec3| edge_side(u.truncate(), v.truncate());
            let s = [side(a, b), side(b, c), side(c, a)];
            if s[0] != s[1] || s[1] != s[2] {
                return 0;
            }
            // Barycentric weights of the column's foot (the cross products
            // opposite each corner), all of one sign here.
            let cross = |u: DVec3, v: DVec3| u.x * v.y - u.y * v.x;
            let l = [cross(b, c), cross(c, a), cross(a, b)];
            let z = (l[0] * a.z + l[1] * b.z + l[2] * c.z) / (l[0] + l[1] + l[2]);
            if z < 0.0 { -s[0] } else { 0 }
        })
        .sum()
}

/// The side of the origin, perturbed by `(ε, ε²)`, of the line `u→v`:
/// +1 when the origin is to its left (`u × v > 0`).
fn edge_side(u: DVec2, v: DVec2) -> i64 {
    let e = u.perp_dot(v);
    let d = v - u;
    // (u − δ) × (v − δ) = u × v − δ × d, δ = (ε, ε²): −ε d.y + ε² d.x.
    let tie = if d.y != 0.0 { -d.y } else { d.x };
    let e = if e != 0.0 { e } else { tie };
    if e > 0.0 { 1 } else { -1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::winding_number_exact;
    use proptest::prelude::*;

    /// The net multiplicity of every undirected edge of `triangles`.
    fn net_edges(triangles: &[[u32; 3]]) -> std::collections::HashMap<(u32, u32), i32> {
        let mut net = std::collections::HashMap::new();
        for &[a, b, c] in triangles {
            for (u, v) in [(a, b), (b, c), (c, a)].into_iter().filter(|(u, v)| u != v) {
                *net.entry((u.min(v), u.max(v))).or_insert(0) += if u < v { 1 } else { -1 };
            }
        }
        net.retain(|_, m| *m != 0);
        net
    }

    /// `mesh` and its cap as one soup over one vertex list.
    fn closed(positions: &[Vec3], triangles: &[[u32; 3]]) -> (Vec<Vec3>, Vec<[u32; 3]>, Cap) {
        let cap = boundary_cap(positions, triangles);
        // Cap vertices that are mesh vertices keep the mesh's index, so
        // the cycle's edges cancel by index.
        let index_of = |p: Vec3| positions.iter().position(|&q| q == p);
        let mut all = positions.to_vec();
        let remap: Vec<u32> = cap
            .positions
            .iter()
            .map(|&p| match index_of(p) {
                Some(i) => i as u32,
                None => {
                    all.push(p);
                    all.len() as u32 - 1
                }
            })
            .collect();
        let mut tris = triangles.to_vec();
        tris.extend(cap.triangles.iter().map(|t| t.map(|i| remap[i as usize])));
        (all, tris, cap)
    }

    /// The upper half of a UV sphere of radius 1 (`rings` × `segments`
    /// quads), outward, open at z = 0.
    fn hemisphere(rings: u32, segments: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut positions = vec![Vec3::Z];
        for r in 1..=rings {
            let theta = std::f32::consts::FRAC_PI_2 * r as f32 / rings as f32;
            for s in 0..segments {
                let phi = std::f32::consts::TAU * s as f32 / segments as f32;
                positions.push(Vec3::new(
                    theta.sin() * phi.cos(),
                    theta.sin() * phi.sin(),
                    if r == rings { 0.0 } else { theta.cos() },
                ));
            }
        }
        let ring = |r: u32, s: u32| 1 + (r - 1) * segments + s % segments;
        let mut triangles = Vec::new();
        for s in 0..segments {
            triangles.push([0, ring(1, s), ring(1, s + 1)]);
            for r in 1..rings {
                let (a, b) = (ring(r, s), ring(r, s + 1));
                let (c, d) = (ring(r + 1, s), ring(r + 1, s + 1));
                triangles.extend([[a, c, d], [a, d, b]]);
            }
        }
        (positions, triangles)
    }

    /// The cube [-1, 1]³ as 12 outward triangles.
    fn cube() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let positions = (0..8)
            .map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32) * 2.0 - 1.0)
            .collect();
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let triangles = quads
            .iter()
            .flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]])
            .collect();
        (positions, triangles)
    }

    /// `w_M = W_Z − w_C` at `p`, against the exact sum.
    fn assert_decomposition(positions: &[Vec3], triangles: &[[u32; 3]], p: Vec3) {
        let (all, tris, cap) = closed(positions, triangles);
        let w = winding_number_exact(positions, triangles, p);
        let w_cap = winding_number_exact(&cap.positions, &cap.triangles, p);
        let count = ray_crossings(&all, &tris, p);
        assert!(
            (w - (count as f64 - w_cap)).abs() < 1e-6,
            "at {p}: w = {w}, W_Z = {count}, w_C = {w_cap}"
        );
    }

    #[test]
    fn an_open_hemisphere_gets_one_loop_that_closes_it() {
        let (positions, triangles) = hemisphere(4, 12);
        let cap = boundary_cap(&positions, &triangles);
        assert_eq!((cap.loops, cap.triangles.len()), (1, 12));
        let (_, tris, _) = closed(&positions, &triangles);
        assert!(net_edges(&tris).is_empty(), "M + C is closed");
        // The cap is the equator's disk, facing down (outward of the half
        // ball): inside the half ball W_Z = 1.
        for p in [
            Vec3::new(0.1, 0.2, 0.3),
            Vec3::new(0.3, -0.2, -0.4),
            Vec3::splat(2.0),
        ] {
            assert_decomposition(&positions, &triangles, p);
        }
        let (all, _, _) = closed(&positions, &triangles);
        assert_eq!(ray_crossings(&all, &tris, Vec3::new(0.1, 0.2, 0.3)), 1);
    }

    #[test]
    fn a_cube_with_two_holes_gets_two_loops() {
        let (positions, mut triangles) = cube();
        // Leave out the top and the bottom face.
        triangles.retain(|t| {
            let z = t.map(|i| positions[i as usize].z);
            !(z.iter().all(|&z| z > 0.0) || z.iter().all(|&z| z < 0.0))
        });
        let cap = boundary_cap(&positions, &triangles);
        assert_eq!((cap.loops, cap.triangles.len()), (2, 8));
        let (_, tris, _) = closed(&positions, &triangles);
        assert!(net_edges(&tris).is_empty());
        for p in [
            Vec3::ZERO,
            Vec3::new(0.5, 0.1, 1.5),
            Vec3::new(3.0, 0.1, 0.2),
        ] {
            assert_decomposition(&positions, &triangles, p);
        }
    }

    #[test]
    fn a_closed_mesh_and_opposite_duplicates_have_no_cap() {
        let (positions, mut triangles) = cube();
        assert_eq!(boundary_cap(&positions, &triangles), Cap::default());
        assert_eq!(
            ray_crossings(&positions, &triangles, Vec3::new(0.1, 0.2, 0.3)),
            1
        );
        // A face stored once more each way: the pair cancels.
        let [a, b, c] = triangles[0];
        triangles.extend([[a, b, c], [a, c, b]]);
        assert_eq!(boundary_cap(&positions, &triangles), Cap::default());
        // A face stored twice the same way is no cycle any more: its
        // boundary is a loop of multiplicity one.
        triangles.push([a, b, c]);
        let cap = boundary_cap(&positions, &triangles);
        assert_eq!((cap.loops, cap.triangles.len()), (1, 3));
        assert_decomposition(&positions, &triangles, Vec3::new(-0.5, -0.6, -0.2));
    }

    #[test]
    fn a_non_manifold_edge_is_walked_through() {
        // Three open fins sharing the edge (0, 1): two boundary loops meet
        // at both its ends, and it is itself a boundary edge once.
        let positions = vec![
            Vec3::ZERO,
            Vec3::Z,
            Vec3::X,
            Vec3::Y,
            Vec3::new(-1.0, -1.0, 0.3),
        ];
        let triangles = vec![[0, 1, 2], [1, 0, 3], [0, 1, 4]];
        let cap = boundary_cap(&positions, &triangles);
        let (_, tris, _) = closed(&positions, &triangles);
        assert!(net_edges(&tris).is_empty(), "{cap:?}");
        for p in [
            Vec3::new(0.2, 0.1, 0.5),
            Vec3::new(-0.3, 0.2, 0.4),
            Vec3::new(0.4, 0.4, 0.1),
        ] {
            assert_decomposition(&positions, &triangles, p);
        }
    }

    #[test]
    fn ties_on_shared_edges_and_vertices_count_once() {
        // The cube's corners and edges project onto the columns x, y ∈
        // {−1, 0, 1}: a column through a shared edge or vertex still gives
        // the integer winding number (the points themselves off the cube).
        let (positions, triangles) = cube();
        for (x, y) in [
            (0.0f32, 0.0f32),
            (-1.0, 0.3),
            (1.0, 1.0),
            (0.0, -1.0),
            (-1.0, -1.0),
        ] {
            let interior = x.abs() < 1.0 && y.abs() < 1.0;
            let mut points = vec![(-2.0, 0), (2.0, 0)];
            if interior {
                points.push((0.5, 1));
            }
            for (z, w) in points {
                let p = Vec3::new(x, y, z);
                assert_eq!(ray_crossings(&positions, &triangles, p), w, "at {p}");
            }
        }
    }

    /// A random open soup: `n` triangles with corners on a 5×5×5 lattice
    /// (shared vertices, so the boundary has long loops) jittered by
    /// `jitter`.
    fn random_soup(seed: u64, n: usize, jitter: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let positions: Vec<Vec3> = (0..125u64)
            .map(|i| {
                let r = next();
                let j = Vec3::new(
                    (r & 255) as f32,
                    ((r >> 8) & 255) as f32,
                    ((r >> 16) & 255) as f32,
                ) / 255.0
                    - 0.5;
                Vec3::new((i % 5) as f32, ((i / 5) % 5) as f32, (i / 25) as f32) * 0.5 - 1.0
                    + j * jitter
            })
            .collect();
        let triangles = (0..n)
            .map(|_| {
                let a = (next() % 125) as u32;
                // Neighbours on the lattice, so that triangles share edges.
                let step = |r: u64| [1u32, 5, 25][(r % 3) as usize];
                let b = (a + step(next())) % 125;
                let c = (b + step(next())) % 125;
                [a, b, c]
            })
            .collect();
        (positions, triangles)
    }

    /// The packed tree of a soup, in the frame of the origin.
    fn packed(positions: &[Vec3], triangles: &[[u32; 3]]) -> PackedWinding {
        crate::geom::FastWinding::new(positions, triangles).packed(DVec3::ZERO)
    }

    /// A random soup's cap and the soup itself, each with its packed tree,
    /// where it has triangles.
    fn cap_and_soup(
        seed: u64,
        n: usize,
        jitter: f32,
    ) -> Vec<(Vec<Vec3>, Vec<[u32; 3]>, PackedWinding)> {
        let (positions, triangles) = random_soup(seed, n, jitter);
        let cap = boundary_cap(&positions, &triangles);
        [(cap.positions, cap.triangles), (positions, triangles)]
            .into_iter()
            .filter(|(_, triangles)| !triangles.is_empty())
            .map(|(positions, triangles)| {
                let tree = packed(&positions, &triangles);
                (positions, triangles, tree)
            })
            .collect()
    }

    #[test]
    fn the_cap_bound_decides_away_from_the_cap_and_not_near_it() {
        // The hemisphere's cap: the unit disk at z = 0, twelve triangles.
        let (positions, triangles) = hemisphere(4, 12);
        let cap = boundary_cap(&positions, &triangles);
        let tree = packed(&cap.positions, &cap.triangles);
        for p in [
            Vec3::new(3.0, 0.0, 0.0),
            Vec3::new(0.0, -2.0, 1.5),
            Vec3::new(0.0, 0.0, 2.0),
            Vec3::splat(40.0),
        ] {
            let bound = cap_solid_angle_bound(&tree, p, 0.0)
                .unwrap_or_else(|| panic!("no bound below ½ at {p}"));
            let w = winding_number_exact(&cap.positions, &cap.triangles, p);
            assert!((w * 4.0 * std::f64::consts::PI).abs() <= bound as f64);
        }
        // Just above the disk |w_C| is near ½: the cap must be walked.
        for p in [Vec3::new(0.1, 0.1, 0.02), Vec3::new(0.0, 0.0, -0.05)] {
            assert_eq!(cap_solid_angle_bound(&tree, p, 0.0), None, "at {p}");
        }
        // A brick beside the disk is decided whole; one across it is not.
        let beside = cap_brick_bound(
            &tree,
            Vec3::new(2.5, 0.0, 0.0),
            Vec3::new(2.8, 0.3, 0.3),
            0.0,
        );
        assert!(beside.is_some_and(|b| b < CAP_BUDGET), "{beside:?}");
        let across = cap_brick_bound(
            &tree,
            Vec3::new(0.0, 0.0, -0.1),
            Vec3::new(0.3, 0.3, 0.2),
            0.0,
        );
        assert_eq!(across, None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// On random caps of random open soups, and on the soups
        /// themselves (folded, overlapping, opposite triangles: any
        /// triangles), [`cap_solid_angle_bound`] is at least the exact
        /// solid angle's magnitude wherever it gives a bound, at random
        /// points, off the triangles and far away (where it always gives
        /// one: a soup may leave every other point undecided).
        #[test]
        fn the_cap_bound_is_an_upper_bound(
            seed in 1u64..u64::MAX,
            n in 1usize..40,
            jitter in 0.0f32..0.6,
            points in proptest::collection::vec((-3.0f32..3.0, -3.0f32..3.0, -3.0f32..3.0), 40),
        ) {
            for (positions, triangles, tree) in &cap_and_soup(seed, n, jitter) {
                // Just off each triangle and a little farther, where the
                // bound is tightest while still deciding.
                let off = triangles.iter().flat_map(|t| {
                    let [a, b, c] = t.map(|i| positions[i as usize]);
                    let normal = (b - a).cross(c - a);
                    let centre = (a + b + c) / 3.0;
                    [0.2, 1.5].map(|d| (normal.length() > 1e-3).then(|| centre + normal.normalize() * d))
                });
                // Far away the bound always decides, so every case checks
                // at least one point.
                let far = Vec3::new(60.0, -50.0, 45.0);
                prop_assert!(cap_solid_angle_bound(tree, far, 0.0).is_some());
                let random = points.iter().map(|&(x, y, z)| Vec3::new(x, y, z));
                for p in random.chain(off.flatten()).chain([far]) {
                    let Some(bound) = cap_solid_angle_bound(tree, p, 0.0) else {
                        continue;
                    };
                    let omega = winding_number_exact(positions, triangles, p) * 4.0 * std::f64::consts::PI;
                    prop_assert!(
                        omega.abs() <= bound as f64,
                        "at {}: |Ω| = {} > bound {}", p, omega.abs(), bound
                    );
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// On random caps (and the soups themselves), a brick's bound
        /// [`cap_brick_bound`], where it is one, is at least the exact
        /// solid angle's magnitude at every cell centre of the brick,
        /// for bricks of 1 to 8 cells a side placed anywhere (across the
        /// cap too), cell sizes from a fraction of the cap to its size.
        #[test]
        fn a_bricks_cap_bound_bounds_every_cell_in_it(
            seed in 1u64..u64::MAX,
            n in 1usize..30,
            jitter in 0.0f32..0.6,
            bricks in proptest::collection::vec(
                ((-2.5f32..2.5, -2.5f32..2.5, -2.5f32..2.5), (1u32..9, 1u32..9, 1u32..9), 0.01f32..0.4),
                12,
            ),
        ) {
            for (positions, triangles, tree) in &cap_and_soup(seed, n, jitter) {
                for (b, &((x, y, z), (nx, ny, nz), h)) in bricks.iter().enumerate() {
                    let origin = Vec3::new(x, y, z);
                    let centre = |i: u32, j: u32, k: u32| origin + Vec3::new(i as f32, j as f32, k as f32) * h;
                    let Some(bound) = cap_brick_bound(tree, centre(0, 0, 0), centre(nx - 1, ny - 1, nz - 1), 0.0)
                    else {
                        continue;
                    };
                    for (i, j, k) in (0..nx).flat_map(|i| (0..ny).flat_map(move |j| (0..nz).map(move |k| (i, j, k)))) {
                        let p = centre(i, j, k);
                        let omega = winding_number_exact(positions, triangles, p) * 4.0 * std::f64::consts::PI;
                        prop_assert!(
                            omega.abs() <= bound as f64,
                            "brick {b}, cell {:?} at {p}: |Ω| = {} > brick bound {bound}",
                            (i, j, k), omega.abs()
                        );
                    }
                }
                // A far brick is bounded, and decided.
                let far = Vec3::new(60.0, -50.0, 45.0);
                prop_assert!(cap_brick_bound(tree, far, far + Vec3::splat(0.3), 0.0).is_some());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// On random open soups, `M + C` is closed, and `W_Z − w_C` is
        /// the exact winding number at random points, near the surface and
        /// near w = ½ (the points where the exact sum is closest to ½ are
        /// kept among a sample).
        #[test]
        fn the_cap_decomposition_is_the_exact_winding_number(
            seed in 1u64..u64::MAX,
            n in 1usize..40,
            jitter in 0.0f32..0.3,
            points in proptest::collection::vec((-1.2f32..1.2, -1.2f32..1.2, -1.2f32..1.2), 40),
        ) {
            let (positions, triangles) = random_soup(seed, n, jitter);
            let (_, tris, _) = closed(&positions, &triangles);
            prop_assert!(net_edges(&tris).is_empty());
            let mut sample: Vec<(f64, Vec3)> = points
                .iter()
                .map(|&(x, y, z)| {
                    let p = Vec3::new(x, y, z);
                    ((winding_number_exact(&positions, &triangles, p).abs() - 0.5).abs(), p)
                })
                .collect();
            sample.sort_by(|a, b| a.0.total_cmp(&b.0));
            // Points near the surface: just off random triangles' centroids.
            let near = triangles.iter().take(8).filter_map(|t| {
                let [a, b, c] = t.map(|i| positions[i as usize]);
                let normal = (b - a).cross(c - a);
                (normal.length() > 1e-3).then(|| (a + b + c) / 3.0 + normal.normalize() * 1e-3)
            });
            for p in sample.iter().take(12).map(|s| s.1).chain(near) {
                let (all, tris, cap) = closed(&positions, &triangles);
                let w = winding_number_exact(&positions, &triangles, p);
                let w_cap = winding_number_exact(&cap.positions, &cap.triangles, p);
                let count = ray_crossings(&all, &tris, p);
                prop_assert!(
                    (w - (count as f64 - w_cap)).abs() < 1e-4,
                    "at {}: w = {}, W_Z = {}, w_C = {}", p, w, count, w_cap
                );
            }
        }
    }
}
