//! An animated, skinned character carrying one radial field per bone
//! (Friston & Steed 2019, §4.3): the skeleton ([`skeleton`]), animation
//! clips ([`animation`]), linear blend skinning on the CPU and the GPU
//! ([`skinning`]), the per-bone fields ([`fields`]) and a procedural
//! humanoid that needs no asset ([`humanoid`]). An OBJ file becomes a rigid
//! character with the fields the user places ([`Character::rigid`]).
//!
//! Per frame: [`Character::pose`] samples the clip into skin matrices;
//! skinning moves the vertices ([`skinning::skin_cpu`], or
//! [`skinning::SkinningGpu`] straight into the rasteriser's positions
//! buffer); [`Character::field_specs`] poses the fields for
//! [`crate::stages::radial`].

pub mod animation;
pub mod fields;
pub mod gltf;
pub mod gltf_mesh;
pub mod humanoid;
pub mod skeleton;
pub mod skinning;

use glam::{Mat4, Vec3};

use animation::{AnimationError, Clip};
use fields::FieldDef;
use skeleton::{Joint, Skeleton, SkeletonError, Trs};
use skinning::Skin;

use crate::stages::radial::{BoneFrame, FieldSpec, FrameError};

/// Why a character cannot be built or posed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CharacterError {
    #[error(transparent)]
    Skeleton(#[from] SkeletonError),
    #[error(transparent)]
    Animation(#[from] AnimationError),
    #[error("the skin has {skin} entries for {vertices} vertices")]
    SkinLength { skin: usize, vertices: usize },
    #[error("vertex {vertex} is skinned to joint {joint}, but the skeleton has {joints}")]
    SkinJoint {
        vertex: usize,
        joint: u32,
        joints: usize,
    },
    #[error("triangle {triangle} names vertex {vertex}, but the mesh has {vertices}")]
    VertexIndex {
        triangle: usize,
        vertex: u32,
        vertices: usize,
    },
    #[error("field {field}: {source}")]
    Field { field: usize, source: FrameError },
}

/// A skinned mesh, its skeleton, an optional looping clip and its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Character {
    pub name: String,
    pub skeleton: Skeleton,
    /// Bind-pose positions.
    pub rest: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
    pub skin: Skin,
    pub clip: Option<Clip>,
    /// One per fitted bone (or per user axis), editable.
    pub fields: Vec<FieldDef>,
}

/// A pose: each joint's local transform and its skin matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    pub local: Vec<Trs>,
    pub skin_matrices: Vec<Mat4>,
}

impl Character {
    /// Checks the parts and fits one field per bone (`fields::fit_fields`).
    pub fn new(
        name: impl Into<String>,
        skeleton: Skeleton,
        rest: Vec<Vec3>,
        triangles: Vec<[u32; 3]>,
        skin: Skin,
        clip: Option<Clip>,
    ) -> Result<Self, CharacterError> {
        skeleton.validate()?;
        let joints = skeleton.joints.len();
        if let Some(c) = &clip {
            c.validate(joints)?;
        }
        if skin.joints.len() != rest.len() || skin.weights.len() != rest.len() {
            return Err(CharacterError::SkinLength {
                skin: skin.joints.len().min(skin.weights.len()),
                vertices: rest.len(),
            });
        }
        for (vertex, (j, w)) in skin.joints.iter().zip(&skin.weights).enumerate() {
            if let Some(k) = (0..4).find(|&k| w[k] != 0.0 && j[k] as usize >= joints) {
                return Err(CharacterError::SkinJoint {
                    vertex,
                    joint: j[k],
                    joints,
                });
            }
        }
        for (triangle, t) in triangles.iter().enumerate() {
            if let Some(&vertex) = t.iter().find(|&&v| v as usize >= rest.len()) {
                return Err(CharacterError::VertexIndex {
                    triangle,
                    vertex,
                    vertices: rest.len(),
                });
            }
        }
        let bind_at: Vec<Vec3> = skeleton
            .joints
            .iter()
            .map(|j| j.inverse_bind.inverse().transform_point3(Vec3::ZERO))
            .collect();
        let fields = fields::fit_fields(&rest, &triangles, &skin, &bind_at);
        Ok(Character {
            name: name.into(),
            skeleton,
            rest,
            triangles,
            skin,
            clip,
            fields,
        })
    }

    /// A rigid, unanimated character (an OBJ file): one joint, and one
    /// field per user axis `(A, B, normal)` over every triangle.
    pub fn rigid(
        name: impl Into<String>,
        rest: Vec<Vec3>,
        triangles: Vec<[u32; 3]>,
        axes: &[(Vec3, Vec3, Vec3)],
    ) -> Result<Self, CharacterError> {
        let skeleton = Skeleton {
            joints: vec![Joint {
                name: "root".into(),
                parent: None,
                rest: Trs::IDENTITY,
                inverse_bind: Mat4::IDENTITY,
            }],
        };
        let skin = Skin::rigid(rest.len());
        let mut c = Character::new(name, skeleton, rest, triangles, skin, None)?;
        c.fields = axes
            .iter()
            .map(|&(a, b, normal)| FieldDef {
                joint: 0,
                a,
                b,
                normal,
                faces: None,
            })
            .collect();
        c.field_frames(&[Mat4::IDENTITY])?;
        Ok(c)
    }

    /// The pose at time `t` (seconds, looped); the rest pose without a clip.
    pub fn pose(&self, t: f32) -> Pose {
        let rest = self.skeleton.rest_pose();
        let local = match &self.clip {
            Some(c) => c.sample(&rest, t),
            None => rest,
        };
        let skin_matrices = self.skeleton.skin_matrices(&local);
        Pose {
            local,
            skin_matrices,
        }
    }

    /// The skinned positions of `pose` (CPU reference).
    pub fn skinned(&self, pose: &Pose) -> Vec<Vec3> {
        skinning::skin_cpu(&self.rest, &self.skin, &pose.skin_matrices)
    }

    /// Every field's frame in `skin_matrices`' pose.
    pub fn field_frames(&self, skin_matrices: &[Mat4]) -> Result<Vec<BoneFrame>, CharacterError> {
        self.fields
            .iter()
            .enumerate()
            .map(|(field, f)| {
                f.posed(&skin_matrices[f.joint])
                    .map_err(|source| CharacterError::Field { field, source })
            })
            .collect()
    }

    /// The fields of `pose` for the radial-field stage.
    pub fn field_specs(&self, pose: &Pose) -> Result<Vec<FieldSpec>, CharacterError> {
        Ok(self
            .field_frames(&pose.skin_matrices)?
            .into_iter()
            .zip(&self.fields)
            .map(|(frame, f)| FieldSpec {
                frame,
                faces: f.faces.clone(),
            })
            .collect())
    }

    /// The name of the joint carrying field `f`.
    pub fn field_name(&self, f: usize) -> &str {
        &self.skeleton.joints[self.fields[f].joint].name
    }
}

#[cfg(test)]
mod tests {
    use super::humanoid::{Detail, humanoid};
    use super::*;

    #[test]
    fn the_humanoid_has_a_field_along_every_bone() {
        let c = humanoid(Detail::LOW);
        assert_eq!(c.skeleton.joints.len(), 21);
        assert_eq!(c.fields.len(), 21, "one field per bone");
        assert_eq!(c.triangles.len(), 21 * Detail::LOW.triangles_per_capsule());
        let upper = c.skeleton.find("upper_arm.l").unwrap();
        let f = c.fields.iter().find(|f| f.joint == upper).unwrap();
        // The left upper arm runs along +x at y = 1.47 from x = 0.2 to 0.47.
        let w = (f.b - f.a).normalize();
        assert!(w.abs_diff_eq(Vec3::X, 1e-3), "axis {w}");
        assert!(
            (f.a.y - 1.47).abs() < 1e-3 && f.a.x < 0.2 - 0.04 && f.b.x > 0.47 + 0.04,
            "{} → {}",
            f.a,
            f.b
        );
        for f in &c.fields {
            assert!(
                !f.faces.as_ref().unwrap().is_empty(),
                "{}",
                c.skeleton.joints[f.joint].name
            );
        }
    }

    #[test]
    fn the_animation_bends_the_knees_and_keeps_the_feet_down() {
        let c = humanoid(Detail::LOW);
        let rest = c.skinned(&c.pose(0.0));
        for (p, q) in rest.iter().zip(&c.rest) {
            assert!(
                p.abs_diff_eq(*q, 1e-5),
                "t = 0 is the bind pose: {p} vs {q}"
            );
        }
        let squat = c.pose(1.0);
        let world = c.skeleton.world(&squat.local);
        let hips = world[0].transform_point3(Vec3::ZERO);
        let ankle = world[c.skeleton.find("foot.l").unwrap()].transform_point3(Vec3::ZERO);
        assert!(hips.y < 0.55, "hips at {hips}");
        assert!(ankle.y > 0.0 && ankle.y < 0.2, "ankle at {ankle}");
        let hand_l = world[c.skeleton.find("hand.l").unwrap()].transform_point3(Vec3::ZERO);
        assert!(
            hand_l.x < 0.0 && hand_l.z > 0.1,
            "left hand crosses in front: {hand_l}"
        );
        let frames = c.field_frames(&squat.skin_matrices).unwrap();
        assert_eq!(frames.len(), 21);
    }

    #[test]
    fn rigid_characters_take_user_axes_and_refuse_bad_ones() {
        let rest = vec![Vec3::X, Vec3::Y, Vec3::Z];
        let c = Character::rigid(
            "tri",
            rest.clone(),
            vec![[0, 1, 2]],
            &[(Vec3::ZERO, Vec3::Y, Vec3::X)],
        )
        .unwrap();
        assert_eq!(c.fields.len(), 1);
        assert_eq!(c.field_specs(&c.pose(3.0)).unwrap()[0].faces, None);
        let e = Character::rigid(
            "tri",
            rest,
            vec![[0, 1, 2]],
            &[(Vec3::ZERO, Vec3::ZERO, Vec3::X)],
        )
        .unwrap_err();
        assert!(matches!(e, CharacterError::Field { field: 0, .. }), "{e}");
    }
}
