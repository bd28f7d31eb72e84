//! CPU backends: every pair (`cpu-ref`) or pairs pruned by B's BVH (`cpu`),
//! both with the exact predicate on world coordinates and rayon over A's
//! triangles. Mirrors `shaders/tritri.wgsl`.

use std::time::Instant;

use glam::{DAffine3, DVec3, Vec3};
use rayon::prelude::*;

use super::{Backend, Contact, Predicate, TriModel, TritriParams, TritriResult};
use crate::geom::{
    Aabb, Bvh, Triangle, f32_decision_margin, intersect_triangle_triangle,
    intersect_triangle_triangle_tutorial,
};
use crate::timing::Timings;

/// Relative padding of a moved triangle's box in B's frame: covers the
/// rounding between the f64 move used for pruning and the f32 world
/// coordinates the predicate sees.
const PRUNE_PAD: f64 = 1e-5;

/// The pair test of both CPU backends: zero-area and box rejects, then the
/// predicate (the shader's `collide`).
fn collide(ta: Triangle, tb: Triangle, predicate: Predicate) -> bool {
    let (ba, bb) = (Aabb::of_triangle(ta), Aabb::of_triangle(tb));
    if ba.max.cmplt(bb.min).any() || bb.max.cmplt(ba.min).any() {
        return false;
    }
    match predicate {
        Predicate::Exact => intersect_triangle_triangle(ta, tb),
        Predicate::Tutorial => intersect_triangle_triangle_tutorial(ta, tb, false),
    }
}

/// World triangles of both models and what pruning needs.
struct Scene<'a> {
    a: &'a TriModel,
    b: &'a TriModel,
    wa: Vec<Triangle>,
    wb: Vec<Triangle>,
    b_from_world: DAffine3,
    pad: f64,
    predicate: Predicate,
}

impl<'a> Scene<'a> {
    fn new(
        a: &'a TriModel,
        pose_a: super::Pose,
        b: &'a TriModel,
        pose_b: super::Pose,
        predicate: Predicate,
    ) -> Self {
        let scale = super::coordinate_scale(a, pose_a, b, pose_b);
        Scene {
            a,
            b,
            wa: a.world_triangles(pose_a),
            wb: b.world_triangles(pose_b),
            b_from_world: pose_b.world_from_object().inverse(),
            pad: PRUNE_PAD * scale.max(f64::MIN_POSITIVE),
            predicate,
        }
    }

    /// Calls `visit(j)` for every B triangle that may meet A's triangle `i`
    /// (all of them, or those whose BVH leaves the moved box reaches);
    /// stops when `visit` returns false.
    fn candidates(&self, i: usize, pruned: bool, mut visit: impl FnMut(usize) -> bool) {
        if !pruned {
            for j in 0..self.wb.len() {
                if !visit(j) {
                    return;
                }
            }
            return;
        }
        let nodes = &self.b.bvh.nodes;
        if nodes.is_empty() {
            return;
        }
        let moved = self.wa[i].map(|p| self.b_from_world.transform_point3(p.as_dvec3()));
        let lo = moved[0].min(moved[1]).min(moved[2]) - DVec3::splat(self.pad);
        let hi = moved[0].max(moved[1]).max(moved[2]) + DVec3::splat(self.pad);
        let (lo, hi) = (lo.as_vec3(), hi.as_vec3());
        let mut stack = Vec::with_capacity(64);
        stack.push(0u32);
        while let Some(n) = stack.pop() {
            let node = &nodes[n as usize];
            let (nmin, nmax) = (Vec3::from_array(node.min), Vec3::from_array(node.max));
            if hi.cmplt(nmin).any() || nmax.cmplt(lo).any() {
                continue;
            }
            if Bvh::is_leaf(node) {
                for slot in Bvh::leaf_range(node) {
                    if !visit(self.b.bvh.order[slot] as usize) {
                        return;
                    }
                }
            } else {
                stack.push(node.b);
                stack.push(node.a);
            }
        }
    }

    fn hits(&self, i: usize, j: usize) -> bool {
        !self.a.degenerate[i]
            && !self.b.degenerate[j]
            && collide(self.wa[i], self.wb[j], self.predicate)
    }
}

/// Yes/no only (used by batches).
pub(crate) fn collides_cpu(
    a: &TriModel,
    pose_a: super::Pose,
    b: &TriModel,
    pose_b: super::Pose,
    params: &TritriParams,
    pruned: bool,
) -> bool {
    let scene = Scene::new(a, pose_a, b, pose_b, params.predicate);
    (0..scene.wa.len()).into_par_iter().any(|i| {
        let mut found = false;
        scene.candidates(i, pruned, |j| {
            found = scene.hits(i, j);
            !found
        });
        found
    })
}

/// One query on the CPU (`pruned`: the `cpu` backend, else `cpu-ref`).
pub fn query_cpu(
    a: &TriModel,
    pose_a: super::Pose,
    b: &TriModel,
    pose_b: super::Pose,
    params: &TritriParams,
    pruned: bool,
) -> TritriResult {
    puffin::profile_function!();
    let mut timings = Timings::default();
    let start = Instant::now();
    let scene = Scene::new(a, pose_a, b, pose_b, params.predicate);
    timings.push("poses", start.elapsed().as_secs_f64() * 1e3, None);
    let backend = if pruned {
        Backend::Cpu
    } else {
        Backend::CpuReference
    };
    let start = Instant::now();
    if !params.all_pairs {
        let collides = (0..scene.wa.len()).into_par_iter().any(|i| {
            let mut found = false;
            scene.candidates(i, pruned, |j| {
                found = scene.hits(i, j);
                !found
            });
            found
        });
        timings.push("pairs", start.elapsed().as_secs_f64() * 1e3, None);
        return TritriResult {
            backend,
            params: *params,
            collides,
            contacts: Vec::new(),
            near_touching: None,
            timings,
        };
    }
    let coord_error = 4.0 * f64::from(f32::EPSILON) * super::coordinate_scale(a, pose_a, b, pose_b);
    let per_a: Vec<(Vec<Contact>, usize)> = (0..scene.wa.len())
        .into_par_iter()
        .map(|i| {
            let mut contacts = Vec::new();
            let mut near = 0;
            scene.candidates(i, pruned, |j| {
                let (ta, tb) = (scene.wa[i], scene.wb[j]);
                let boxes_meet = {
                    let (ba, bb) = (Aabb::of_triangle(ta), Aabb::of_triangle(tb));
                    !(ba.max.cmplt(bb.min).any() || bb.max.cmplt(ba.min).any())
                };
                if boxes_meet
                    && !scene.a.degenerate[i]
                    && !scene.b.degenerate[j]
                    && f32_decision_margin(ta, tb, coord_error) < 1.0
                {
                    near += 1;
                }
                if scene.hits(i, j) {
                    contacts.push(Contact {
                        pair: [i as u32, j as u32],
                        segment: intersection_segment_f64(ta, tb),
                    });
                }
                true
            });
            (contacts, near)
        })
        .collect();
    let mut contacts = Vec::new();
    let mut near_touching = 0;
    for (c, n) in per_a {
        contacts.extend(c);
        near_touching += n;
    }
    contacts.sort_by_key(|c| c.pair);
    timings.push("pairs", start.elapsed().as_secs_f64() * 1e3, None);
    TritriResult {
        backend,
        params: *params,
        collides: !contacts.is_empty(),
        contacts,
        near_touching: Some(near_touching),
        timings,
    }
}

/// The intersection segment of two colliding triangles in f64 (the shader's
/// `intersection_segment`): the extreme edge crossings along the planes'
/// common line, or for a coplanar overlap the overlap's extremes along A's
/// first edge.
pub fn intersection_segment_f64(ta: Triangle, tb: Triangle) -> [Vec3; 2] {
    let a = ta.map(Vec3::as_dvec3);
    let b = tb.map(Vec3::as_dvec3);
    let na = (a[1] - a[0]).cross(a[2] - a[0]);
    let nb = (b[1] - b[0]).cross(b[2] - b[0]);
    let mut dir = na.cross(nb);
    let mut ext = Extent::default();
    let inside = |x: DVec3, t: &[DVec3; 3], n: DVec3| {
        let tol = -1e-9 * n.length_squared();
        (0..3).all(|k| (t[(k + 1) % 3] - t[k]).cross(x - t[k]).dot(n) >= tol)
    };
    if dir.length_squared() > 1e-20 * na.length_squared() * nb.length_squared() {
        for (tri, other, n) in [(&a, &b, nb), (&b, &a, na)] {
            for k in 0..3 {
                let (p, q) = (tri[k], tri[(k + 1) % 3]);
                let sp = (p - other[0]).dot(n);
                let sq = (q - other[0]).dot(n);
                if sp * sq > 0.0 || sp == sq {
                    continue;
                }
                let x = p + (sp / (sp - sq)) * (q - p);
                if inside(x, other, n) {
                    ext.extend(x, dir);
                }
            }
        }
    }
    if ext.is_empty() {
        dir = a[1] - a[0];
        for k in 0..3 {
            if inside(a[k], &b, nb) {
                ext.extend(a[k], dir);
            }
            if inside(b[k], &a, na) {
                ext.extend(b[k], dir);
            }
            for l in 0..3 {
                let (p, q) = (a[k], a[(k + 1) % 3]);
                let (r, s) = (b[l], b[(l + 1) % 3]);
                let (u, w) = (q - p, s - r);
                let nn = u.cross(w);
                let den = nn.length_squared();
                if den <= 0.0 {
                    continue;
                }
                let t = (r - p).cross(w).dot(nn) / den;
                let v = (r - p).cross(u).dot(nn) / den;
                if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&v) {
                    ext.extend(p + t * u, dir);
                }
            }
        }
    }
    match ext.ends {
        Some((lo, hi)) => [lo.1.as_vec3(), hi.1.as_vec3()],
        None => {
            let c = ((a[0] + a[1] + a[2]) / 3.0).as_vec3();
            [c, c]
        }
    }
}

#[derive(Default)]
struct Extent {
    ends: Option<((f64, DVec3), (f64, DVec3))>,
}

impl Extent {
    fn extend(&mut self, x: DVec3, dir: DVec3) {
        let t = x.dot(dir);
        let (lo, hi) = self.ends.get_or_insert(((t, x), (t, x)));
        if t < lo.0 {
            *lo = (t, x);
        }
        if t > hi.0 {
            *hi = (t, x);
        }
    }

    fn is_empty(&self) -> bool {
        self.ends.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::torus;
    use crate::stages::tritri::Pose;
    use glam::Quat;

    /// Two tori linked like chain links: the worst case (no contact, boxes
    /// overlapping) and, pushed together, a colliding case.
    fn links(gap: f32) -> (TriModel, Pose, TriModel, Pose) {
        let t = TriModel::new(&torus(24, 12, 1.0, 0.25)).expect("torus");
        let pb = Pose::new(
            Vec3::new(1.0 + gap, 0.0, 0.0),
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        );
        (t.clone(), Pose::IDENTITY, t, pb)
    }

    #[test]
    fn linked_tori_do_not_touch_and_pushed_tori_do() {
        let all = TritriParams {
            all_pairs: true,
            predicate: Predicate::Exact,
        };
        let (a, pa, b, pb) = links(0.0);
        for pruned in [false, true] {
            let r = query_cpu(&a, pa, &b, pb, &all, pruned);
            assert!(!r.collides, "pruned {pruned}");
            assert!(!collides_cpu(&a, pa, &b, pb, &all, pruned));
        }
        let (a, pa, b, pb) = links(-0.6);
        let brute = query_cpu(&a, pa, &b, pb, &all, false);
        let pruned = query_cpu(&a, pa, &b, pb, &all, true);
        assert!(brute.collides);
        assert_eq!(brute.pairs(), pruned.pairs());
        // Segments lie on both triangles.
        for c in &brute.contacts {
            for p in c.segment {
                let [i, j] = c.pair;
                for (m, pose, t) in [(&a, pa, i), (&b, pb, j)] {
                    let tri = m.world_triangles(pose)[t as usize];
                    let d = crate::geom::closest_point_triangle(p, tri)
                        .distance_squared
                        .sqrt();
                    assert!(d < 1e-4, "{c:?} is {d} from its triangle");
                }
            }
        }
    }

    #[test]
    fn coplanar_segment_spans_the_overlap() {
        let a = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let b = [
            Vec3::new(0.5, -0.5, 0.0),
            Vec3::new(0.5, 0.5, 0.0),
            Vec3::new(-0.5, 0.5, 0.0),
        ];
        let s = intersection_segment_f64(a, b);
        assert!(
            (s[0].x - 0.0).abs() < 1e-6 && (s[1].x - 0.5).abs() < 1e-6,
            "{s:?}"
        );
    }
}
