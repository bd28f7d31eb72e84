//! The frame of one radial field and its cylindrical space (Friston & Steed
//! 2019, §4.1–4.2, equations 1–3), and the layout of a set of fields as the
//! GPU holds it.
//!
//! A field lies along the axis A→B with the unit normal u:
//!
//! ```text
//!   w = (B − A) / |B − A|          along the axis
//!   u ⟂ w                           θ = 0
//!   v = u × w                       θ = ¼
//!   z = (p − A)·w / |B − A|         0 at A, 1 at B
//!   θ = atan2((p − A)·v, (p − A)·u) / 2π, wrapped to [0, 1)
//!   r = |(p − A) − ((p − A)·w) w|   distance from the axis
//! ```
//!
//! A field of `nθ × nz` cells stores, per cell, the distance from the axis
//! to the nearest surface along the ray through the cell centre
//! `((i + ½)/nθ, (k + ½)/nz)`; `+inf` where no face covers the cell. Values
//! are row-major by z: cell `(i, k)` is at `k * nθ + i`.
//!
//! ```text
//!   values: [ field 0: nz rows of nθ ][ field 1 … ]   f32, +inf = empty
//!   frames: [ FieldFrameGpu ] one per field, `offset` = its first value
//! ```

use glam::Vec3;

/// Why a frame cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FrameError {
    #[error("the field axis is degenerate: A and B are {0:e} apart")]
    DegenerateAxis(f32),
    #[error("the field normal is parallel to the axis (or zero or not finite)")]
    NormalAlongAxis,
    #[error("the field axis or normal is not finite")]
    NotFinite,
    #[error(
        "the field axis is {0:.3e} long, beyond float32 (its length, basis or cells would be infinite)"
    )]
    TooLong(f64),
}

/// A field's axis and orthonormal basis (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneFrame {
    pub a: Vec3,
    pub b: Vec3,
    /// Unit normal, θ = 0.
    pub u: Vec3,
    /// Unit tangent u × w, θ = ¼.
    pub v: Vec3,
    /// Unit axis direction.
    pub w: Vec3,
    /// |B − A|.
    pub length: f32,
}

/// A point in cylindrical space: θ in [0, 1), z (0 at A, 1 at B, not
/// clamped) and r, the distance from the axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cylindrical {
    pub theta: f32,
    pub z: f32,
    pub r: f32,
}

impl BoneFrame {
    /// The frame of the axis A→B with the normal `normal`, which is made
    /// orthogonal to the axis (its component along w is removed).
    pub fn new(a: Vec3, b: Vec3, normal: Vec3) -> Result<Self, FrameError> {
        if !(a.is_finite() && b.is_finite() && normal.is_finite()) {
            return Err(FrameError::NotFinite);
        }
        let axis = b - a;
        let length = axis.length();
        // A and B finite but far apart overflow the difference or the
        // length; every later product would be infinite or NaN.
        if !(axis.is_finite() && length.is_finite()) {
            return Err(FrameError::TooLong((b.as_dvec3() - a.as_dvec3()).length()));
        }
        let scale = a.abs().max(b.abs()).max_element().max(1.0);
        if length <= scale * 1e-6 {
            return Err(FrameError::DegenerateAxis(length));
        }
        let w = axis / length;
        // Only the normal's direction matters: a huge one is brought near
        // unit length so that its products do not overflow.
        let largest = normal.abs().max_element();
        let normal = if largest > 1e18 {
            normal / largest
        } else {
            normal
        };
        let n = normal - normal.dot(w) * w;
        if n.length() <= 1e-6 * normal.length() {
            return Err(FrameError::NormalAlongAxis);
        }
        let u = n.normalize();
        let v = u.cross(w);
        Ok(Self {
            a,
            b,
            u,
            v,
            w,
            length,
        })
    }

    /// `p` in cylindrical space (equations 1–2).
    pub fn to_cylindrical(&self, p: Vec3) -> Cylindrical {
        let d = p - self.a;
        let along = d.dot(self.w);
        let (x, y) = (d.dot(self.u), d.dot(self.v));
        let turns = y.atan2(x) / std::f32::consts::TAU;
        let theta = turns - turns.floor();
        Cylindrical {
            theta: if theta >= 1.0 { 0.0 } else { theta },
            z: along / self.length,
            r: (x * x + y * y).sqrt(),
        }
    }

    /// The world point at cylindrical coordinates `c` (equation 3).
    pub fn from_cylindrical(&self, c: Cylindrical) -> Vec3 {
        let angle = c.theta * std::f32::consts::TAU;
        self.a + self.w * (c.z * self.length) + (self.u * angle.cos() + self.v * angle.sin()) * c.r
    }
}

/// One frame as the shaders read it (`shaders/radial*.wgsl` mirror it).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FieldFrameGpu {
    pub a: [f32; 3],
    pub length: f32,
    pub u: [f32; 3],
    /// Columns (θ cells).
    pub n_theta: u32,
    pub v: [f32; 3],
    /// Rows (z cells).
    pub n_z: u32,
    pub w: [f32; 3],
    /// Index of the field's first value in the values buffer.
    pub offset: u32,
}

impl FieldFrameGpu {
    pub fn new(frame: &BoneFrame, n_theta: u32, n_z: u32, offset: u32) -> Self {
        Self {
            a: frame.a.into(),
            length: frame.length,
            u: frame.u.into(),
            n_theta,
            v: frame.v.into(),
            n_z,
            w: frame.w.into(),
            offset,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_zero_lies_along_u_and_a_quarter_along_v() {
        let f = BoneFrame::new(Vec3::ZERO, Vec3::Z * 2.0, Vec3::X).unwrap();
        let c = f.to_cylindrical(Vec3::new(3.0, 0.0, 1.0));
        assert!(c.theta.abs() < 1e-6 && (c.z - 0.5).abs() < 1e-6 && (c.r - 3.0).abs() < 1e-6);
        let c = f.to_cylindrical(f.v * 2.0);
        assert!((c.theta - 0.25).abs() < 1e-6, "θ along v = {}", c.theta);
        let c = f.to_cylindrical(-f.v);
        assert!((c.theta - 0.75).abs() < 1e-6, "θ along −v = {}", c.theta);
    }

    #[test]
    fn cylindrical_round_trips() {
        let f =
            BoneFrame::new(Vec3::new(1.0, 2.0, 3.0), Vec3::new(2.0, 4.0, 3.5), Vec3::Z).unwrap();
        for &(t, z, r) in &[(0.1, 0.2, 0.5), (0.9, -0.3, 2.0), (0.5, 1.4, 0.01)] {
            let c = Cylindrical { theta: t, z, r };
            let back = f.to_cylindrical(f.from_cylindrical(c));
            assert!((back.theta - t).abs() < 1e-5, "θ {t} → {}", back.theta);
            assert!((back.z - z).abs() < 1e-5 && (back.r - r).abs() < 1e-5);
        }
    }

    #[test]
    fn axes_beyond_float32_are_refused_and_huge_normals_kept() {
        let e = BoneFrame::new(Vec3::ZERO, Vec3::X * 3e38, Vec3::Y).unwrap_err();
        assert!(
            matches!(e, FrameError::TooLong(l) if (l - 3e38).abs() < 1e33),
            "{e}"
        );
        let e = BoneFrame::new(Vec3::X * -2e38, Vec3::X * 2e38, Vec3::Y).unwrap_err();
        assert!(e.to_string().contains("4.000e38 long"), "{e}");
        let f = BoneFrame::new(Vec3::ZERO, Vec3::Z, Vec3::new(3e38, 3e38, 0.0)).unwrap();
        assert!(
            f.u.is_finite() && (f.u.length() - 1.0).abs() < 1e-6,
            "{}",
            f.u
        );
    }

    #[test]
    fn degenerate_axes_and_normals_are_refused() {
        assert!(matches!(
            BoneFrame::new(Vec3::ONE, Vec3::ONE, Vec3::X),
            Err(FrameError::DegenerateAxis(_))
        ));
        assert_eq!(
            BoneFrame::new(Vec3::ZERO, Vec3::Y, Vec3::Y * 3.0),
            Err(FrameError::NormalAlongAxis)
        );
        assert_eq!(
            BoneFrame::new(Vec3::ZERO, Vec3::Y, Vec3::ZERO),
            Err(FrameError::NormalAlongAxis)
        );
        assert_eq!(
            BoneFrame::new(Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0), Vec3::X),
            Err(FrameError::NotFinite)
        );
    }
}
