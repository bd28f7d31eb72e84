//! Colliders as implicit surfaces f(p) = pᵀQp = 0 (eq. 3.2, 3.8) with
//! constraints c(p) > 0 (§3.2.3), and their impact-map parameterisations
//! (§3.4.2, §3.5.1).
//!
//! Every shape becomes one symmetric 4×4 Q in world space, so one solve
//! serves all of them:
//!
//! * a plane N·(p − p₀) = 0 (eq. 3.5) is the quadric whose quadratic block
//!   is zero and whose last row and column are (N/2, −N·p₀); rectangles are
//!   two slab constraints |u·(p−q)| < a, |v·(p−q)| < b, discs the ball
//!   constraint r − |p − q| > 0 (§3.2.4);
//! * sphere and ellipsoid: diag(1/a², 1/b², 1/c², −1) moved to the centre;
//! * cylinder and cone: x² + y² − r² and x² + y² − tan²α·z² in a frame whose
//!   z is the axis, cut to 0 < z < h by a slab (which also keeps one nappe
//!   of the cone);
//! * a general quadric: its matrix, cut by its bounding box (three slabs).
//!
//! A local quadric Q_l in the frame x_l = M·x becomes Q = Mᵀ·Q_l·M.
//!
//! Maps take a point to (u, v) ∈ [0, 1)²: **linear** on planes (the
//! rectangle or the disc's square scaled to the map, so resolution is
//! constant, §3.5.1; an unbounded plane maps the square of half-size
//! [`UNBOUNDED_MAP_HALF`] around its point and clamps impacts beyond it to
//! the border texels so that no impact is lost from the counts),
//! **angle × height** on cylinders and cones, **spherical** (azimuth ×
//! polar angle about the frame's z) on spheres, ellipsoids and general
//! quadrics (about the bounding box centre).

use glam::{DMat4, DVec3, DVec4};

use super::scene::{ColliderShape, PlaneBound};

/// Half-size of the square an unbounded plane's impact map covers.
pub const UNBOUNDED_MAP_HALF: f64 = 10.0;

/// One constraint c(p) > 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constraint {
    /// `|dir·p − centre| < half`.
    Slab { dir: DVec3, centre: f64, half: f64 },
    /// `|p − centre| < radius`.
    Ball { centre: DVec3, radius: f64 },
}

impl Constraint {
    pub fn holds(&self, p: DVec3) -> bool {
        match *self {
            Constraint::Slab { dir, centre, half } => (dir.dot(p) - centre).abs() < half,
            Constraint::Ball { centre, radius } => (p - centre).length_squared() < radius * radius,
        }
    }
}

/// How a collider's surface is laid out in its impact map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapKind {
    /// u, v = local x, y scaled from [−s, s] to [0, 1].
    Linear = 0,
    /// u = angle about local z, v = local z / height.
    AngleHeight = 1,
    /// u = azimuth about local z, v = polar angle from +z, of the scaled
    /// local point.
    Spherical = 2,
}

/// The frame of a map: local coordinates are `axes[i]·(p − origin) / scale[i]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapFrame {
    pub kind: MapKind,
    pub origin: DVec3,
    pub axes: [DVec3; 3],
    pub scale: DVec3,
}

impl MapFrame {
    /// The map coordinates of `p`, in [0, 1) (clamped).
    pub fn uv(&self, p: DVec3) -> [f64; 2] {
        let d = p - self.origin;
        let q = DVec3::new(
            self.axes[0].dot(d) / self.scale.x,
            self.axes[1].dot(d) / self.scale.y,
            self.axes[2].dot(d) / self.scale.z,
        );
        let azimuth = || q.y.atan2(q.x) / std::f64::consts::TAU + 0.5;
        let (u, v) = match self.kind {
            MapKind::Linear => (0.5 * (q.x + 1.0), 0.5 * (q.y + 1.0)),
            MapKind::AngleHeight => (azimuth(), q.z),
            MapKind::Spherical => {
                let len = q.length();
                let polar = if len > 0.0 {
                    (q.z / len).clamp(-1.0, 1.0).acos()
                } else {
                    0.0
                };
                (azimuth(), polar / std::f64::consts::PI)
            }
        };
        let top = 1.0 - f64::EPSILON;
        [u.clamp(0.0, top), v.clamp(0.0, top)]
    }

    /// The texel of `p` in a `res`×`res` map (row-major, v down the rows).
    pub fn texel(&self, p: DVec3, res: u32) -> usize {
        let [u, v] = self.uv(p);
        let x = ((u * f64::from(res)) as u32).min(res - 1);
        let y = ((v * f64::from(res)) as u32).min(res - 1);
        (y * res + x) as usize
    }
}

/// A collider ready for the solve.
#[derive(Clone, Debug, PartialEq)]
pub struct Collider {
    /// Symmetric, world space: f(p) = \[p,1\]ᵀ·Q·\[p,1\].
    pub q: DMat4,
    /// At most three.
    pub constraints: Vec<Constraint>,
    pub map: MapFrame,
}

/// An orthonormal frame (e1, e2, axis) around `axis`.
fn frame(axis: DVec3) -> [DVec3; 3] {
    let (e1, e2) = axis.any_orthonormal_pair();
    [e1, e2, axis]
}

/// The homogeneous world-to-local matrix of a frame at `origin`.
fn world_to_local(origin: DVec3, axes: [DVec3; 3]) -> DMat4 {
    let rows = axes.map(|a| DVec4::new(a.x, a.y, a.z, -a.dot(origin)));
    DMat4::from_cols(rows[0], rows[1], rows[2], DVec4::W).transpose()
}

fn moved(local: DMat4, origin: DVec3, axes: [DVec3; 3]) -> DMat4 {
    let m = world_to_local(origin, axes);
    m.transpose() * local * m
}

fn slab(dir: DVec3, from: DVec3, lo: f64, hi: f64) -> Constraint {
    Constraint::Slab {
        dir,
        centre: dir.dot(from) + 0.5 * (lo + hi),
        half: 0.5 * (hi - lo),
    }
}

impl Collider {
    pub fn new(shape: &ColliderShape) -> Collider {
        let xyz = [DVec3::X, DVec3::Y, DVec3::Z];
        // Spherical maps take y (up in the scenes) as their pole.
        let y_up = [DVec3::Z, DVec3::X, DVec3::Y];
        match *shape {
            ColliderShape::Plane {
                point,
                normal,
                bound,
            } => {
                let h = 0.5 * normal;
                let q = DMat4::from_cols(
                    DVec4::new(0.0, 0.0, 0.0, h.x),
                    DVec4::new(0.0, 0.0, 0.0, h.y),
                    DVec4::new(0.0, 0.0, 0.0, h.z),
                    DVec4::new(h.x, h.y, h.z, -normal.dot(point)),
                );
                let (e1, e2) = normal.any_orthonormal_pair();
                let (constraints, axes, scale) = match bound {
                    PlaneBound::None => {
                        (vec![], [e1, e2, normal], DVec3::splat(UNBOUNDED_MAP_HALF))
                    }
                    PlaneBound::Disc(r) => (
                        vec![Constraint::Ball {
                            centre: point,
                            radius: r,
                        }],
                        [e1, e2, normal],
                        DVec3::splat(r),
                    ),
                    PlaneBound::Rect { u, v, half } => (
                        vec![
                            slab(u, point, -half[0], half[0]),
                            slab(v, point, -half[1], half[1]),
                        ],
                        [u, v, normal],
                        DVec3::new(half[0], half[1], 1.0),
                    ),
                };
                Collider {
                    q,
                    constraints,
                    map: MapFrame {
                        kind: MapKind::Linear,
                        origin: point,
                        axes,
                        scale,
                    },
                }
            }
            ColliderShape::Sphere { centre, radius } => {
                Self::ellipsoid(centre, DVec3::splat(radius), xyz, y_up)
            }
            ColliderShape::Ellipsoid { centre, radii } => Self::ellipsoid(centre, radii, xyz, y_up),
            ColliderShape::Cylinder {
                base,
                axis,
                radius,
                height,
            } => {
                let axes = frame(axis);
                let k = 1.0 / (radius * radius);
                let local = DMat4::from_diagonal(DVec4::new(k, k, 0.0, -1.0));
                Collider {
                    q: moved(local, base, axes),
                    constraints: vec![slab(axis, base, 0.0, height)],
                    map: MapFrame {
                        kind: MapKind::AngleHeight,
                        origin: base,
                        axes,
                        scale: DVec3::new(1.0, 1.0, height),
                    },
                }
            }
            ColliderShape::Cone {
                apex,
                axis,
                half_angle,
                height,
            } => {
                let axes = frame(axis);
                let t = half_angle.tan();
                // Scaled so that f is a distance-like quantity near the base.
                let k = 1.0 / (t * height).powi(2);
                let local = DMat4::from_diagonal(DVec4::new(k, k, -t * t * k, 0.0));
                Collider {
                    q: moved(local, apex, axes),
                    constraints: vec![slab(axis, apex, 0.0, height)],
                    map: MapFrame {
                        kind: MapKind::AngleHeight,
                        origin: apex,
                        axes,
                        scale: DVec3::new(1.0, 1.0, height),
                    },
                }
            }
            ColliderShape::Quadric { matrix, min, max } => {
                let q = DMat4::from_cols_array(&matrix).transpose();
                let centre = 0.5 * (min + max);
                let half = 0.5 * (max - min);
                Collider {
                    q,
                    constraints: (0..3)
                        .map(|i| Constraint::Slab {
                            dir: xyz[i],
                            centre: centre[i],
                            half: half[i],
                        })
                        .collect(),
                    map: MapFrame {
                        kind: MapKind::Spherical,
                        origin: centre,
                        axes: y_up,
                        scale: DVec3::new(half.z, half.x, half.y),
                    },
                }
            }
        }
    }

    fn ellipsoid(centre: DVec3, radii: DVec3, xyz: [DVec3; 3], y_up: [DVec3; 3]) -> Collider {
        let r2 = radii * radii;
        let local = DMat4::from_diagonal(DVec4::new(1.0 / r2.x, 1.0 / r2.y, 1.0 / r2.z, -1.0));
        Collider {
            q: moved(local, centre, xyz),
            constraints: vec![],
            map: MapFrame {
                kind: MapKind::Spherical,
                origin: centre,
                axes: y_up,
                scale: DVec3::new(radii.z, radii.x, radii.y),
            },
        }
    }

    /// f(p).
    pub fn f(&self, p: DVec3) -> f64 {
        let h = p.extend(1.0);
        h.dot(self.q * h)
    }

    /// ∇f(p) = 2·(Q·\[p,1\])_xyz.
    pub fn gradient(&self, p: DVec3) -> DVec3 {
        2.0 * (self.q * p.extend(1.0)).truncate()
    }

    /// True where every constraint holds.
    pub fn accepts(&self, p: DVec3) -> bool {
        self.constraints.iter().all(|c| c.holds(p))
    }

    /// h(τ) = f(p0 + v0·τ + ½·a·τ²) as coefficients in τ (eq. 3.6, 3.9).
    pub(crate) fn poly(&self, p0: DVec3, v0: DVec3, acc: DVec3) -> super::poly::Poly {
        let p = [p0.extend(1.0), v0.extend(0.0), (0.5 * acc).extend(0.0)];
        let qp = p.map(|x| self.q * x);
        let b = |i: usize, j: usize| p[i].dot(qp[j]);
        [
            b(0, 0),
            2.0 * b(0, 1),
            b(1, 1) + 2.0 * b(0, 2),
            2.0 * b(1, 2),
            b(2, 2),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::particles::poly::eval;

    fn shapes() -> Vec<ColliderShape> {
        vec![
            ColliderShape::Plane {
                point: DVec3::new(0.0, 1.0, 0.0),
                normal: DVec3::Y,
                bound: PlaneBound::Rect {
                    u: DVec3::X,
                    v: DVec3::Z,
                    half: [2.0, 1.0],
                },
            },
            ColliderShape::Sphere {
                centre: DVec3::new(1.0, 2.0, 3.0),
                radius: 1.5,
            },
            ColliderShape::Ellipsoid {
                centre: DVec3::ZERO,
                radii: DVec3::new(1.0, 2.0, 3.0),
            },
            ColliderShape::Cylinder {
                base: DVec3::new(0.0, -1.0, 0.0),
                axis: DVec3::new(1.0, 1.0, 0.0).normalize(),
                radius: 0.5,
                height: 2.0,
            },
            ColliderShape::Cone {
                apex: DVec3::new(0.0, 2.0, 0.0),
                axis: -DVec3::Y,
                half_angle: 0.5,
                height: 2.0,
            },
        ]
    }

    /// Points known to lie on each surface give f = 0; points off it don't.
    #[test]
    fn surfaces_pass_through_their_defining_points() {
        let on = [
            DVec3::new(0.3, 1.0, -0.4),
            DVec3::new(1.0, 3.5, 3.0),
            DVec3::new(0.0, 0.0, 3.0),
            DVec3::new(0.0, -1.0, 0.0)
                + DVec3::new(1.0, 1.0, 0.0).normalize() * 1.2
                + DVec3::Z * 0.5,
            DVec3::new(0.5f64.tan(), 1.0, 0.0),
        ];
        for (s, p) in shapes().iter().zip(on) {
            let c = Collider::new(s);
            assert!(c.f(p).abs() < 1e-12, "{} f({p}) = {}", s.kind(), c.f(p));
            assert!(
                c.f(p * 1.3 + DVec3::splat(0.1)).abs() > 1e-3,
                "{}",
                s.kind()
            );
            assert!(c.accepts(p), "{} constraints at {p}", s.kind());
            let [u, v] = c.map.uv(p);
            assert!((0.0..1.0).contains(&u) && (0.0..1.0).contains(&v));
        }
    }

    /// The polynomial in τ equals f along the flight.
    #[test]
    fn hit_polynomial_matches_f_along_the_flight() {
        let (p0, v0, a) = (
            DVec3::new(0.1, 4.0, -0.2),
            DVec3::new(0.3, -1.0, 0.7),
            DVec3::new(0.0, -9.81, 0.0),
        );
        for s in shapes() {
            let c = Collider::new(&s);
            let h = c.poly(p0, v0, a);
            for t in [0.0, 0.25, 0.5, 1.7] {
                let p = p0 + v0 * t + 0.5 * a * t * t;
                let (want, got) = (c.f(p), eval(&h, t));
                assert!(
                    (want - got).abs() < 1e-9 * want.abs().max(1.0),
                    "{}: {want} {got}",
                    s.kind()
                );
            }
        }
    }

    #[test]
    fn linear_maps_are_uniform_on_rectangles() {
        let c = Collider::new(&shapes()[0]);
        assert_eq!(c.map.uv(DVec3::new(-2.0, 1.0, -1.0)), [0.0, 0.0]);
        let [u, v] = c.map.uv(DVec3::new(1.0, 1.0, 0.5));
        assert!((u - 0.75).abs() < 1e-12 && (v - 0.75).abs() < 1e-12);
        assert_eq!(c.map.texel(DVec3::new(1.0, 1.0, 0.5), 4), 3 * 4 + 3);
    }

    #[test]
    fn the_cone_slab_keeps_one_nappe() {
        let c = Collider::new(&shapes()[4]);
        let mirror = DVec3::new(0.5f64.tan(), 3.0, 0.0);
        assert!(c.f(mirror).abs() < 1e-12 && !c.accepts(mirror));
    }
}
