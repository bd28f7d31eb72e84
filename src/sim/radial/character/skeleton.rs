//! Joints, their rest transforms and inverse bind matrices, and the
//! matrices of a pose: world transforms down the hierarchy and the skin
//! matrices `world · inverse_bind` that linear blend skinning applies.

use glam::{Mat4, Quat, Vec3};

/// A local transform: scale, then rotate, then translate (glTF's TRS).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trs {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Trs {
    pub const IDENTITY: Trs = Trs {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    pub fn at(translation: Vec3) -> Trs {
        Trs {
            translation,
            ..Trs::IDENTITY
        }
    }

    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// One joint: its parent (earlier in the list), its rest local transform
/// and its inverse bind matrix (mesh space → joint space at bind time).
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    pub name: String,
    pub parent: Option<usize>,
    pub rest: Trs,
    pub inverse_bind: Mat4,
}

/// Joints ordered parents first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skeleton {
    pub joints: Vec<Joint>,
}

/// Why a skeleton cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SkeletonError {
    #[error("joint {joint} ('{name}') has parent {parent}, which does not come before it")]
    ParentOrder {
        joint: usize,
        name: String,
        parent: usize,
    },
}

impl Skeleton {
    /// Checks that every parent comes before its children.
    pub fn validate(&self) -> Result<(), SkeletonError> {
        for (j, joint) in self.joints.iter().enumerate() {
            if let Some(p) = joint.parent.filter(|&p| p >= j) {
                return Err(SkeletonError::ParentOrder {
                    joint: j,
                    name: joint.name.clone(),
                    parent: p,
                });
            }
        }
        Ok(())
    }

    /// The rest pose: every joint's rest local transform.
    pub fn rest_pose(&self) -> Vec<Trs> {
        self.joints.iter().map(|j| j.rest).collect()
    }

    /// World (mesh-space) matrices of `local` transforms, parents first.
    pub fn world(&self, local: &[Trs]) -> Vec<Mat4> {
        let mut world: Vec<Mat4> = Vec::with_capacity(self.joints.len());
        for (joint, l) in self.joints.iter().zip(local) {
            let m = l.matrix();
            world.push(match joint.parent {
                Some(p) => world[p] * m,
                None => m,
            });
        }
        world
    }

    /// The skin matrices `world · inverse_bind` of `local` transforms.
    pub fn skin_matrices(&self, local: &[Trs]) -> Vec<Mat4> {
        self.world(local)
            .iter()
            .zip(&self.joints)
            .map(|(w, j)| *w * j.inverse_bind)
            .collect()
    }

    /// Sets every inverse bind matrix from the rest pose (for skeletons
    /// built in code, bound where they stand).
    pub fn bind_at_rest(&mut self) {
        let world = self.world(&self.rest_pose());
        for (j, w) in self.joints.iter_mut().zip(world) {
            j.inverse_bind = w.inverse();
        }
    }

    /// The index of the joint called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain() -> Skeleton {
        let joint = |name: &str, parent, at| Joint {
            name: name.into(),
            parent,
            rest: Trs::at(at),
            inverse_bind: Mat4::IDENTITY,
        };
        let mut s = Skeleton {
            joints: vec![
                joint("root", None, Vec3::new(0.0, 1.0, 0.0)),
                joint("mid", Some(0), Vec3::new(1.0, 0.0, 0.0)),
                joint("tip", Some(1), Vec3::new(1.0, 0.0, 0.0)),
            ],
        };
        s.bind_at_rest();
        s
    }

    #[test]
    fn rest_pose_skin_matrices_are_identity_and_rotations_chain() {
        let s = chain();
        for m in s.skin_matrices(&s.rest_pose()) {
            assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-6), "{m}");
        }
        let mut pose = s.rest_pose();
        pose[1].rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let world = s.world(&pose);
        let tip = world[2].transform_point3(Vec3::ZERO);
        assert!(tip.abs_diff_eq(Vec3::new(1.0, 2.0, 0.0), 1e-6), "{tip}");
        let skin = s.skin_matrices(&pose);
        // The tip's rest position (2, 1, 0) follows its joint.
        let moved = skin[2].transform_point3(Vec3::new(2.0, 1.0, 0.0));
        assert!(moved.abs_diff_eq(tip, 1e-6), "{moved}");
    }

    #[test]
    fn parents_must_come_first() {
        let mut s = chain();
        s.joints[0].parent = Some(2);
        assert!(matches!(
            s.validate(),
            Err(SkeletonError::ParentOrder { joint: 0, .. })
        ));
        assert!(chain().validate().is_ok());
    }
}
