//! One radial field per bone (Friston & Steed 2019, §4.1, §4.3, §5.1),
//! defined in the bind pose and carried by its joint.
//!
//! **Fitting.** A bone's field is fitted to the vertices skinned mainly to
//! it (largest weight): the axis is their principal direction (power
//! iteration on the covariance), oriented away from the parent joint; its
//! ends are the extreme projections, each pushed out by
//! `END_MARGIN` of the length so that closed ends (a fingertip, the
//! head) lie inside the field ("the axis should pass just beyond").
//! θ = 0 (the normal u) faces forward (+z), or up (+y) for bones along z.
//! The field rasterises the triangles with a vertex skinned mainly to the
//! bone ("we assign vertices to fields based on skinning weights").
//!
//! **Posing.** The field moves with its joint's skin matrix
//! `world · inverse_bind` (eq. 1a with `T_object` the bone's transform,
//! §4.3), so only deformation from neighbouring bones changes its values.

use glam::{Mat3, Mat4, Vec3};

use super::skinning::Skin;
use crate::stages::radial::{BoneFrame, FrameError};

/// How far each field end reaches past the extreme vertex, as a fraction
/// of the fitted length.
pub(crate) const END_MARGIN: f32 = 0.05;

/// One field in the bind pose, editable.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDef {
    /// The joint that carries the field.
    pub joint: usize,
    pub a: Vec3,
    pub b: Vec3,
    /// θ = 0 direction (made orthogonal to the axis).
    pub normal: Vec3,
    /// Triangles rasterised into the field; `None`: every triangle.
    pub faces: Option<Vec<u32>>,
}

impl FieldDef {
    /// The field's frame when its joint has skin matrix `m`.
    pub fn posed(&self, m: &Mat4) -> Result<BoneFrame, FrameError> {
        BoneFrame::new(
            m.transform_point3(self.a),
            m.transform_point3(self.b),
            m.transform_vector3(self.normal),
        )
    }
}

/// The unit principal direction of `points` about `centre`.
fn principal_axis(points: &[Vec3], centre: Vec3) -> Vec3 {
    let mut cov = Mat3::ZERO;
    for p in points {
        let d = *p - centre;
        cov += Mat3::from_cols(d * d.x, d * d.y, d * d.z);
    }
    // Start along the largest diagonal entry; power iteration converges to
    // the dominant eigenvector (a symmetric positive semi-definite matrix).
    let diag = Vec3::new(cov.x_axis.x, cov.y_axis.y, cov.z_axis.z);
    let mut x = if diag.x >= diag.y && diag.x >= diag.z {
        Vec3::X
    } else if diag.y >= diag.z {
        Vec3::Y
    } else {
        Vec3::Z
    };
    x += Vec3::splat(1e-3);
    for _ in 0..64 {
        let y = cov * x;
        if y.length_squared() == 0.0 {
            break;
        }
        x = y.normalize();
    }
    x.normalize()
}

/// One field per joint with at least four vertices skinned mainly to it
/// (see the module docs); `joint_at[j]` is joint j's bind position.
pub(crate) fn fit_fields(
    rest: &[Vec3],
    triangles: &[[u32; 3]],
    skin: &Skin,
    joint_at: &[Vec3],
) -> Vec<FieldDef> {
    let dominant: Vec<u32> = (0..rest.len()).map(|v| skin.dominant(v)).collect();
    let mut fields = Vec::new();
    for (joint, &at) in joint_at.iter().enumerate() {
        let points: Vec<Vec3> = rest
            .iter()
            .zip(&dominant)
            .filter(|&(_, &d)| d as usize == joint)
            .map(|(p, _)| *p)
            .collect();
        if points.len() < 4 {
            continue;
        }
        let centre = points.iter().copied().sum::<Vec3>() / points.len() as f32;
        let mut w = principal_axis(&points, centre);
        if w.dot(centre - at) < 0.0 {
            w = -w;
        }
        let (lo, hi) = points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
            let s = (*p - centre).dot(w);
            (lo.min(s), hi.max(s))
        });
        let margin = END_MARGIN * (hi - lo);
        let normal = if w.dot(Vec3::Z).abs() < 0.9 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let faces = triangles
            .iter()
            .enumerate()
            .filter(|(_, t)| t.iter().any(|&v| dominant[v as usize] as usize == joint))
            .map(|(i, _)| i as u32)
            .collect();
        fields.push(FieldDef {
            joint,
            a: centre + w * (lo - margin),
            b: centre + w * (hi + margin),
            normal,
            faces: Some(faces),
        });
    }
    fields
}
