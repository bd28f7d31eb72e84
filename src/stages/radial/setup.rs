//! The geometry shader's work for one triangle in one field (§5.1–5.2),
//! written once in Rust for the CPU reference; `shaders/radial.wgsl`'s
//! `setup` mirrors it line by line, so both backends cull, wrap and
//! measure the same way.
//!
//! * **Field space** (eq. 1): `q = ((p−A)·u, (p−A)·v, (p−A)·w)`.
//! * **Axis crossing** (§5.2.2): the triangle projected on field space's
//!   xy-plane must not contain the origin (the axis). With the origin as the
//!   test point only the constant terms of the edge functions remain,
//!   `x_j y_{j+1} − y_j x_{j+1}`; all of one sign (zero included) culls.
//!   So does passing within [`NEAR_AXIS`] of the longest projected edge
//!   of the axis: there θ is ill-conditioned (a vertex on the axis has
//!   none) and the sign test hangs on rounding, so two backends — or two
//!   frames — would decide differently; with the margin the decision
//!   rests on a well-conditioned distance.
//! * **Facing** (§5.2.2): the unit normal (of the world winding,
//!   counter-clockwise seen from outside) against the unit radial direction
//!   at the centroid; below `min_facing` the triangle is back-facing (< 0)
//!   or nearly perpendicular to the rays (≈ 0) and is culled.
//! * **Seam** (§5.1.1, eq. 4, Tarini): a triangle that does not contain the
//!   axis subtends less than half a turn, so its θ span exceeds ½ exactly
//!   when it crosses the seam θ = 0. Such a triangle is rasterised shifted
//!   by half a turn, `θ₁ = frac(θ + ½)`; the fragment undoes the shift on
//!   its cell index (`wrapped`), which is eq. 4's `θ₂` at the cell centre.
//!   nθ is even, so the shift is a whole number of cells.
//! * **Distance** (§5.2): per cell, the ray from `(0, 0, z·|AB|)` along
//!   `(cos 2πθ, sin 2πθ, 0)` meets the triangle's plane at `t`; rays that
//!   meet the back of the plane or none are dropped. With `filter` on,
//!   `t` is clamped to the largest vertex distance `r_max` (§5.2.2): the
//!   distance to a line is convex, so no point of the triangle lies farther
//!   than its farthest vertex, and a larger `t` comes from a cell centre
//!   whose ray passes beside the true triangle (the rasteriser fills the
//!   straight-edged θ–z triangle, not the curved projection).

use glam::{Vec2, Vec3};

use super::frame::BoneFrame;

/// Distances at or beyond this (and +inf) are dropped; the shader has no
/// `isinf`, so both sides compare with this bound.
pub const MAX_DISTANCE: f32 = 3.4e38;

/// Triangles whose xy-projection comes closer to the axis than this
/// fraction of their longest projected edge are culled with those that
/// cross it (see the module docs).
pub const NEAR_AXIS: f32 = 1e-3;

/// One triangle set up for rasterising in one field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriangleSetup {
    /// Rasteriser θ of each corner, in turns (shifted by ½ when `wrapped`).
    pub theta: [f32; 3],
    /// z of each corner (0 at A, 1 at B).
    pub z: [f32; 3],
    /// The triangle crosses the seam and is drawn shifted (eq. 4).
    pub wrapped: bool,
    /// Unit normal in field space.
    pub normal: Vec3,
    /// `normal · q0`: the plane is `normal · q = offset`.
    pub offset: f32,
    /// The largest corner distance from the axis.
    pub r_max: f32,
}

/// θ of the field-space point `q` in turns, in [0, 1) (eq. 2).
pub(crate) fn theta_of(q: Vec3) -> f32 {
    let turns = q.y.atan2(q.x) / std::f32::consts::TAU;
    let t = turns - turns.floor();
    if t >= 1.0 { 0.0 } else { t }
}

/// `p` in field space (eq. 1): coordinates along u, v, w from A.
pub fn to_field(frame: &BoneFrame, p: Vec3) -> Vec3 {
    let d = p - frame.a;
    Vec3::new(d.dot(frame.u), d.dot(frame.v), d.dot(frame.w))
}

/// The set-up of triangle `corners` in `frame`, or `None` when it is culled
/// (see the module docs).
pub fn setup(frame: &BoneFrame, corners: [Vec3; 3], min_facing: f32) -> Option<TriangleSetup> {
    let q = corners.map(|p| to_field(frame, p));
    let xy = q.map(|p| Vec2::new(p.x, p.y));
    let e = [0, 1, 2].map(|j| xy[j].perp_dot(xy[(j + 1) % 3]));
    if (e[0] >= 0.0 && e[1] >= 0.0 && e[2] >= 0.0) || (e[0] <= 0.0 && e[1] <= 0.0 && e[2] <= 0.0) {
        return None;
    }
    let (near, longest) = (0..3).fold((f32::MAX, 0.0f32), |(near, longest), j| {
        let (a, b) = (xy[j], xy[(j + 1) % 3]);
        let ab = b - a;
        let len2 = ab.length_squared();
        let t = if len2 > 0.0 {
            (-a.dot(ab) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (near.min((a + ab * t).length()), longest.max(len2.sqrt()))
    });
    if near < NEAR_AXIS * longest {
        return None;
    }
    // (u, v, w) is left-handed (v = u × w), so the cross product of
    // field-space edges is the mirror of the world normal: swap the edges.
    let n = (q[2] - q[0]).cross(q[1] - q[0]);
    let centroid = (q[0] + q[1] + q[2]) / 3.0;
    let radial = Vec2::new(centroid.x, centroid.y);
    let (n_len, radial_len) = (n.length(), radial.length());
    if !(n_len > 0.0 && radial_len > 0.0) {
        return None;
    }
    let normal = n / n_len;
    let facing = (normal.x * radial.x + normal.y * radial.y) / radial_len;
    if facing.is_nan() || facing < min_facing {
        return None;
    }
    let theta = q.map(theta_of);
    let span = theta[0].max(theta[1]).max(theta[2]) - theta[0].min(theta[1]).min(theta[2]);
    let wrapped = span > 0.5;
    let theta = if wrapped {
        theta.map(|t| {
            let s = t + 0.5;
            s - s.floor()
        })
    } else {
        theta
    };
    Some(TriangleSetup {
        theta,
        z: q.map(|p| p.z / frame.length),
        wrapped,
        normal,
        offset: normal.dot(q[0]),
        r_max: xy[0].length().max(xy[1].length()).max(xy[2].length()),
    })
}

/// The distance along the ray through the centre of cell `(i, k)` (the
/// cell's own column, after undoing the seam shift) to the triangle's
/// plane, filtered; `None` when the ray meets the back of the plane or
/// misses it.
pub(crate) fn cell_distance(
    s: &TriangleSetup,
    length: f32,
    (i, k): (u32, u32),
    (n_theta, n_z): (u32, u32),
    filter: bool,
) -> Option<f32> {
    let theta = (i as f32 + 0.5) / n_theta as f32;
    let z = (k as f32 + 0.5) / n_z as f32 * length;
    let angle = theta * std::f32::consts::TAU;
    let denom = s.normal.x * angle.cos() + s.normal.y * angle.sin();
    let t = (s.offset - s.normal.z * z) / denom;
    if !(denom > 0.0 && t > 0.0 && t < MAX_DISTANCE) {
        return None;
    }
    Some(if filter { t.min(s.r_max) } else { t })
}
