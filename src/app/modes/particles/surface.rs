//! The colliders drawn as shaded surfaces with their impact maps on them
//! as decals ("splats", Knott 2003 §3.5).
//!
//! Each implicit surface is tessellated within its bounds from its own
//! parameters: a rectangle over its two half-sizes, a disc in polar
//! coordinates, an ellipsoid over azimuth × polar angle about y, a
//! cylinder or cone over angle × height, a general quadric by casting a
//! ray from its bounding box's centre in every direction of that grid and
//! keeping the nearest root of the ray's quadratic. A triangle is kept
//! only when its three corners meet the collider's constraints (with a
//! tolerance for corners on the boundary) and it has an area, so poles,
//! apexes and the parts of a quadric outside its box drop out.
//!
//! Decals: every vertex carries its impact-map coordinates (the
//! collider's own parameterisation, §3.4.2); the map's counts, summed
//! into a grid as fine as the tessellation, are interpolated at them and
//! coloured over the surface's grey where impacts landed.

use glam::{DVec3, Vec3};

use crate::stages::particles::ImpactMap;
use crate::stages::particles::collider::{Collider, Constraint, UNBOUNDED_MAP_HALF};
use crate::stages::particles::scene::{ColliderShape, PlaneBound};
use crate::view::{ColorMap, srgb_to_linear};

/// One collider's triangles, with each vertex's impact-map coordinates.
#[derive(Clone, Debug, Default)]
pub struct Surface {
    pub positions: Vec<Vec3>,
    /// Map coordinates in [0, 1)², per vertex.
    pub uv: Vec<[f32; 2]>,
    pub triangles: Vec<[u32; 3]>,
}

/// Relative slack for corners on a constraint's boundary.
const BOUNDARY_SLACK: f64 = 1e-6;

/// Whether `p` meets the constraints of `c`, boundary included.
fn within(c: &Collider, p: DVec3) -> bool {
    c.constraints.iter().all(|k| match *k {
        Constraint::Slab { dir, centre, half } => {
            (dir.dot(p) - centre).abs() <= half * (1.0 + BOUNDARY_SLACK) + 1e-9
        }
        Constraint::Ball { centre, radius } => {
            (p - centre).length() <= radius * (1.0 + BOUNDARY_SLACK) + 1e-9
        }
    })
}

/// The nearest point of a general quadric along `centre + s·dir`, s > 0.
fn quadric_ray(c: &Collider, centre: DVec3, dir: DVec3) -> Option<DVec3> {
    let (o, d) = (centre.extend(1.0), dir.extend(0.0));
    let a = d.dot(c.q * d);
    let b = 2.0 * d.dot(c.q * o);
    let k = o.dot(c.q * o);
    let roots: Vec<f64> = if a.abs() < 1e-12 * (b.abs() + k.abs()).max(1e-300) {
        vec![-k / b]
    } else {
        let disc = b * b - 4.0 * a * k;
        if disc < 0.0 {
            return None;
        }
        let q = -0.5 * (b + b.signum() * disc.sqrt());
        vec![q / a, k / q]
    };
    roots
        .into_iter()
        .filter(|s| s.is_finite() && *s > 0.0)
        .min_by(f64::total_cmp)
        .map(|s| centre + s * dir)
}

/// The point of the surface at parameters (s, t) ∈ [0, 1]², if any.
fn point(shape: &ColliderShape, c: &Collider, s: f64, t: f64) -> Option<DVec3> {
    let angle = std::f64::consts::TAU * s;
    let ring = |axis: DVec3, r: f64| {
        let (e1, e2) = axis.any_orthonormal_pair();
        r * (angle.cos() * e1 + angle.sin() * e2)
    };
    let polar = std::f64::consts::PI * t;
    let sphere = DVec3::new(
        polar.sin() * angle.cos(),
        polar.cos(),
        polar.sin() * angle.sin(),
    );
    Some(match *shape {
        ColliderShape::Plane {
            point,
            normal,
            bound,
        } => match bound {
            PlaneBound::Rect { u, v, half } => {
                point + u * half[0] * (2.0 * s - 1.0) + v * half[1] * (2.0 * t - 1.0)
            }
            PlaneBound::Disc(r) => point + ring(normal, r * t),
            PlaneBound::None => {
                let (e1, e2) = normal.any_orthonormal_pair();
                point + UNBOUNDED_MAP_HALF * (e1 * (2.0 * s - 1.0) + e2 * (2.0 * t - 1.0))
            }
        },
        ColliderShape::Sphere { centre, radius } => centre + radius * sphere,
        ColliderShape::Ellipsoid { centre, radii } => centre + radii * sphere,
        ColliderShape::Cylinder {
            base,
            axis,
            radius,
            height,
        } => base + ring(axis, radius) + axis * height * t,
        ColliderShape::Cone {
            apex,
            axis,
            half_angle,
            height,
        } => {
            let z = height * t;
            apex + ring(axis, z * half_angle.tan()) + axis * z
        }
        ColliderShape::Quadric { min, max, .. } => {
            let centre = 0.5 * (min + max);
            return quadric_ray(c, centre, 0.5 * (max - min) * sphere);
        }
    })
}

/// Tessellates `shape` (whose solved form is `c`) on an `n`×`n` grid of
/// its parameters, within its bounds.
pub fn tessellate(shape: &ColliderShape, c: &Collider, n: u32) -> Surface {
    let n = n.max(2);
    let side = n + 1;
    let points: Vec<Option<DVec3>> = (0..side * side)
        .map(|k| {
            let (i, j) = (k % side, k / side);
            point(
                shape,
                c,
                f64::from(i) / f64::from(n),
                f64::from(j) / f64::from(n),
            )
            .filter(|&p| within(c, p))
        })
        .collect();
    let mut surface = Surface::default();
    let mut index = vec![u32::MAX; points.len()];
    let mut vertex = |k: usize, surface: &mut Surface| -> u32 {
        if index[k] == u32::MAX {
            let p = points[k].expect("only kept points are indexed");
            index[k] = surface.positions.len() as u32;
            surface.positions.push(p.as_vec3());
            surface.uv.push(c.map.uv(p).map(|x| x as f32));
        }
        index[k]
    };
    for j in 0..n {
        for i in 0..n {
            let k = |di: u32, dj: u32| ((j + dj) * side + i + di) as usize;
            for tri in [[k(0, 0), k(1, 0), k(1, 1)], [k(0, 0), k(1, 1), k(0, 1)]] {
                let Some(p) = tri
                    .map(|k| points[k])
                    .into_iter()
                    .collect::<Option<Vec<_>>>()
                else {
                    continue;
                };
                let area = (p[1] - p[0]).cross(p[2] - p[0]).length();
                let scale = (p[1] - p[0])
                    .length_squared()
                    .max((p[2] - p[0]).length_squared());
                if area <= 1e-9 * scale || scale == 0.0 {
                    continue;
                }
                let t = tri.map(|k| vertex(k, &mut surface));
                surface.triangles.push(t);
            }
        }
    }
    surface
}

/// The surface's grey where no impact landed.
pub const SURFACE_GREY: [f32; 4] = [0.42, 0.43, 0.46, 1.0];

/// A map's counts summed into a `grid`×`grid` image of its coordinates.
pub fn coarse_counts(map: &ImpactMap, grid: u32) -> Vec<f32> {
    let mut out = vec![0.0f32; (grid * grid) as usize];
    let res = map.res as usize;
    for (k, &count) in map.count.iter().enumerate() {
        if count > 0 {
            let (x, y) = (k % res, k / res);
            let gx = x * grid as usize / res;
            let gy = y * grid as usize / res;
            out[gy * grid as usize + gx] += count as f32;
        }
    }
    out
}

/// Bilinear sample of a `grid`×`grid` image at map coordinates `uv`
/// (cell centres at (i + ½)/grid, clamped at the borders).
pub fn sample(image: &[f32], grid: u32, uv: [f32; 2]) -> f32 {
    let g = grid as f32;
    let at = |x: i64, y: i64| {
        let c = |v: i64| v.clamp(0, i64::from(grid) - 1) as usize;
        image[c(y) * grid as usize + c(x)]
    };
    let (fx, fy) = (uv[0] * g - 0.5, uv[1] * g - 0.5);
    let (x0, y0) = (fx.floor(), fy.floor());
    let (ax, ay) = (fx - x0, fy - y0);
    let (x0, y0) = (x0 as i64, y0 as i64);
    let top = at(x0, y0) * (1.0 - ax) + at(x0 + 1, y0) * ax;
    let bottom = at(x0, y0 + 1) * (1.0 - ax) + at(x0 + 1, y0 + 1) * ax;
    top * (1.0 - ay) + bottom * ay
}

/// The key of [`decal_colors`] up to `max` impacts per patch.
pub fn decal_key(max: f32) -> crate::plot::figure::BarKey {
    let top = (1.0 + max.max(1.0)).ln();
    let steps = 48;
    let colors = (0..steps)
        .map(|i| {
            let level = 1.0 - (i as f32 + 0.5) / steps as f32;
            ColorMap::Turbo.color_between(0.25 + 0.75 * level, 0.0, 1.0)
        })
        .collect();
    // Impacts at a quarter, half and all of the log scale.
    let ticks = [0.0f32, 0.5, 1.0]
        .into_iter()
        .map(|t| {
            let v = ((1.0 - t) * top).exp() - 1.0;
            (t, crate::plot::legend::sig_figs(v as f64, 2))
        })
        .collect();
    crate::plot::figure::BarKey {
        title: "decals: impacts per patch (log)".into(),
        colors,
        ticks,
        empty: Some((SURFACE_GREY.map(crate::view::linear_to_srgb), "none".into())),
        ..Default::default()
    }
}

/// Each vertex's colour: grey, with the decal of `counts` (a
/// [`coarse_counts`] image) over it, coloured on a log scale up to `max`.
pub fn decal_colors(surface: &Surface, counts: &[f32], grid: u32, max: f32) -> Vec<[f32; 4]> {
    let top = (1.0 + max.max(1.0)).ln();
    surface
        .uv
        .iter()
        .map(|&uv| {
            let v = sample(counts, grid, uv);
            if v <= 0.0 {
                return SURFACE_GREY;
            }
            let level = ((1.0 + v).ln() / top).clamp(0.0, 1.0);
            let heat = ColorMap::Turbo
                .color_between(0.25 + 0.75 * level, 0.0, 1.0)
                .map(srgb_to_linear);
            let a = (0.35 + 0.65 * level).min(1.0) * (v / 0.5).min(1.0);
            [0, 1, 2, 3].map(|i| {
                if i == 3 {
                    1.0
                } else {
                    SURFACE_GREY[i] * (1.0 - a) + heat[i] * a
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes() -> Vec<ColliderShape> {
        let hail = crate::stages::particles::ParticleScene::from_json(
            include_str!("../../../../assets/hail.json"),
            "hail.json",
        )
        .expect("the hail scene parses");
        let mut all = hail.colliders;
        all.push(ColliderShape::Sphere {
            centre: DVec3::new(1.0, 2.0, 3.0),
            radius: 1.5,
        });
        // A one-sheet hyperboloid x² + z² − y² = 1 cut to |y| < 1.
        let mut m = [0.0; 16];
        (m[0], m[5], m[10], m[15]) = (1.0, -1.0, 1.0, -1.0);
        all.push(ColliderShape::Quadric {
            matrix: m,
            min: DVec3::new(-3.0, -1.0, -3.0),
            max: DVec3::new(3.0, 1.0, 3.0),
        });
        all
    }

    fn area(s: &Surface) -> f64 {
        s.triangles
            .iter()
            .map(|t| {
                let p = t.map(|i| s.positions[i as usize].as_dvec3());
                0.5 * (p[1] - p[0]).cross(p[2] - p[0]).length()
            })
            .sum()
    }

    /// Every vertex lies on its surface and within its bounds, and the
    /// triangles cover the surface's area.
    #[test]
    fn tessellations_lie_on_their_surfaces_within_bounds() {
        for shape in shapes() {
            let c = Collider::new(&shape);
            let s = tessellate(&shape, &c, 48);
            assert!(
                s.triangles.len() > 100,
                "{}: {}",
                shape.kind(),
                s.triangles.len()
            );
            for p in &s.positions {
                let p = p.as_dvec3();
                let scale = c.gradient(p).length().max(1e-9);
                assert!(
                    c.f(p).abs() / scale < 1e-5,
                    "{} vertex {p} off the surface: f = {}",
                    shape.kind(),
                    c.f(p)
                );
                assert!(
                    within(&c, p),
                    "{} vertex {p} outside its bounds",
                    shape.kind()
                );
            }
            for uv in &s.uv {
                assert!(uv.iter().all(|x| (0.0..=1.0).contains(x)), "{uv:?}");
            }
            let want = match shape {
                ColliderShape::Plane {
                    bound: PlaneBound::Rect { half, .. },
                    ..
                } => Some(4.0 * half[0] * half[1]),
                ColliderShape::Plane {
                    bound: PlaneBound::Disc(r),
                    ..
                } => Some(std::f64::consts::PI * r * r),
                ColliderShape::Sphere { radius, .. } => {
                    Some(4.0 * std::f64::consts::PI * radius * radius)
                }
                ColliderShape::Cylinder { radius, height, .. } => {
                    Some(std::f64::consts::TAU * radius * height)
                }
                ColliderShape::Cone {
                    half_angle, height, ..
                } => {
                    let r = height * half_angle.tan();
                    Some(std::f64::consts::PI * r * (r * r + height * height).sqrt())
                }
                _ => None,
            };
            if let Some(want) = want {
                let got = area(&s);
                assert!(
                    (got - want).abs() < 0.01 * want,
                    "{}: area {got}, analytic {want}",
                    shape.kind()
                );
            }
        }
    }

    /// Points of the hyperboloid outside its box are dropped: only its part
    /// inside |y| < 1 is drawn, up to the grid's step from the box's faces.
    #[test]
    fn a_quadric_is_cut_to_its_box() {
        let shape = shapes().pop().expect("the hyperboloid");
        let c = Collider::new(&shape);
        let s = tessellate(&shape, &c, 32);
        assert!(s.positions.iter().all(|p| p.y.abs() <= 1.0 + 1e-5));
        assert!(s.positions.iter().any(|p| p.y > 0.7) && s.positions.iter().any(|p| p.y < -0.7));
    }

    /// A decal is where the map's impacts are, and nowhere else.
    #[test]
    fn decals_colour_the_vertices_under_impacts() {
        let shape = shapes().remove(0);
        let c = Collider::new(&shape);
        let s = tessellate(&shape, &c, 16);
        let mut map = ImpactMap::new(64);
        let hit = s.positions[s.positions.len() / 2].as_dvec3();
        for _ in 0..5 {
            map.add(c.map.texel(hit, 64), 1, 0.5, 3.0);
        }
        let counts = coarse_counts(&map, 16);
        assert_eq!(counts.iter().sum::<f32>(), 5.0);
        let colors = decal_colors(&s, &counts, 16, 5.0);
        let coloured: Vec<usize> = (0..colors.len())
            .filter(|&i| colors[i] != SURFACE_GREY)
            .collect();
        assert!(coloured.contains(&(s.positions.len() / 2)));
        for &i in &coloured {
            let d = s.positions[i].as_dvec3().distance(hit);
            assert!(d < 0.5, "vertex {i} coloured {d} away from the impact");
        }
    }
}
