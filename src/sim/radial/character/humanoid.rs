//! A procedural humanoid of capsule limbs: 21 bones (hips, spine, chest,
//! neck, head; per side clavicle, upper arm, forearm, hand, thigh, shin,
//! foot, toes), one capsule per bone, y up, facing +z, about 1.9 tall. A
//! capsule's vertices follow their bone, blending half-and-half into the
//! parent at the capsule's start, so joints bend smoothly under linear
//! blend skinning. Its 4-second loop has the extreme motions radial fields
//! must survive (Friston & Steed §10): deep knee bends with the feet
//! planted, the arms crossing in front of the body, the arms raised, and
//! a head that snaps between looks (step interpolation).

use std::f32::consts::{FRAC_PI_2, TAU};

use glam::{Mat4, Quat, Vec3};

use super::Character;
use super::animation::{Channel, Clip, Interpolation, Keys};
use super::skeleton::{Joint, Skeleton, Trs};
use super::skinning::Skin;

/// Capsule tessellation: segments around, rings along the straight part,
/// rings per hemispherical cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detail {
    pub around: u32,
    pub along: u32,
    pub cap: u32,
}

impl Detail {
    /// About 9K triangles: tests and the viewer.
    pub const LOW: Detail = Detail {
        around: 16,
        along: 6,
        cap: 4,
    };
    /// About 52K triangles: the benchmark's character (the paper's ~64K).
    pub const HIGH: Detail = Detail {
        around: 40,
        along: 16,
        cap: 8,
    };

    /// Triangles of one capsule.
    pub fn triangles_per_capsule(&self) -> usize {
        let rings = (self.cap + self.along + self.cap - 1) as usize;
        self.around as usize * (2 * (rings - 1) + 2)
    }
}

/// (name, parent, head, tail, radius) of every bone, parents first.
fn bones() -> Vec<(String, Option<usize>, Vec3, Vec3, f32)> {
    let v = Vec3::new;
    let mut out: Vec<(String, Option<usize>, Vec3, Vec3, f32)> = vec![
        (
            "hips".into(),
            None,
            v(0.0, 1.0, 0.0),
            v(0.0, 1.12, 0.0),
            0.13,
        ),
        (
            "spine".into(),
            Some(0),
            v(0.0, 1.12, 0.0),
            v(0.0, 1.3, 0.0),
            0.12,
        ),
        (
            "chest".into(),
            Some(1),
            v(0.0, 1.3, 0.0),
            v(0.0, 1.5, 0.0),
            0.14,
        ),
        (
            "neck".into(),
            Some(2),
            v(0.0, 1.5, 0.0),
            v(0.0, 1.62, 0.0),
            0.05,
        ),
        (
            "head".into(),
            Some(3),
            v(0.0, 1.66, 0.0),
            v(0.0, 1.84, 0.0),
            0.1,
        ),
    ];
    for (side, x) in [("l", 1.0f32), ("r", -1.0)] {
        let p = |x0: f32, y: f32, z: f32| v(x * x0, y, z);
        let chest = 2;
        let n = out.len();
        out.extend([
            (
                format!("clavicle.{side}"),
                Some(chest),
                p(0.04, 1.47, 0.0),
                p(0.18, 1.47, 0.0),
                0.05,
            ),
            (
                format!("upper_arm.{side}"),
                Some(n),
                p(0.2, 1.47, 0.0),
                p(0.47, 1.47, 0.0),
                0.055,
            ),
            (
                format!("forearm.{side}"),
                Some(n + 1),
                p(0.49, 1.47, 0.0),
                p(0.74, 1.47, 0.0),
                0.045,
            ),
            (
                format!("hand.{side}"),
                Some(n + 2),
                p(0.76, 1.47, 0.0),
                p(0.88, 1.47, 0.0),
                0.04,
            ),
        ]);
        let m = out.len();
        out.extend([
            (
                format!("thigh.{side}"),
                Some(0),
                p(0.1, 0.95, 0.0),
                p(0.1, 0.54, 0.0),
                0.08,
            ),
            (
                format!("shin.{side}"),
                Some(m),
                p(0.1, 0.52, 0.0),
                p(0.1, 0.1, 0.0),
                0.06,
            ),
            (
                format!("foot.{side}"),
                Some(m + 1),
                p(0.1, 0.08, 0.0),
                p(0.1, 0.05, 0.13),
                0.045,
            ),
            (
                format!("toes.{side}"),
                Some(m + 2),
                p(0.1, 0.05, 0.15),
                p(0.1, 0.04, 0.22),
                0.035,
            ),
        ]);
    }
    out
}

/// Appends a capsule from `head` to `tail` of `radius`, skinned to
/// `joint` and near its start half to `parent`.
fn capsule(
    (head, tail, radius): (Vec3, Vec3, f32),
    (joint, parent): (u32, Option<u32>),
    detail: Detail,
    positions: &mut Vec<Vec3>,
    triangles: &mut Vec<[u32; 3]>,
    skin: &mut Skin,
) {
    let d = (tail - head).normalize();
    let e1 = d.any_orthonormal_vector();
    let e2 = d.cross(e1);
    let length = (tail - head).length();
    // Ring profile (height along d, radius), poles excluded.
    let quarter = |j: u32| FRAC_PI_2 * j as f32 / detail.cap as f32;
    let mut rings: Vec<(f32, f32)> = (1..=detail.cap)
        .map(|j| {
            let a = quarter(j) - FRAC_PI_2;
            (radius * a.sin(), radius * a.cos())
        })
        .collect();
    rings.extend((1..=detail.along).map(|j| (length * j as f32 / detail.along as f32, radius)));
    rings.extend((1..detail.cap).map(|j| {
        (
            length + radius * quarter(j).sin(),
            radius * quarter(j).cos(),
        )
    }));
    let base = positions.len() as u32;
    let n = detail.around;
    let mut push = |p: Vec3, skin: &mut Skin| {
        let s = ((p - head).dot(d) / length).clamp(0.0, 1.0);
        let blend = parent.map_or(0.0, |_| 0.5 * (1.0 - s / 0.25).max(0.0));
        skin.joints.push([joint, parent.unwrap_or(0), 0, 0]);
        skin.weights.push([1.0 - blend, blend, 0.0, 0.0]);
        positions.push(p);
    };
    for &(h, rho) in &rings {
        for i in 0..n {
            let (s, c) = (TAU * i as f32 / n as f32).sin_cos();
            push(head + d * h + (e1 * c + e2 * s) * rho, skin);
        }
    }
    let bottom = base + rings.len() as u32 * n;
    push(head - d * radius, skin);
    push(tail + d * radius, skin);
    let top = bottom + 1;
    let at = |i: u32, k: u32| base + k * n + i % n;
    for k in 0..rings.len() as u32 - 1 {
        for i in 0..n {
            triangles.push([at(i, k), at(i + 1, k), at(i + 1, k + 1)]);
            triangles.push([at(i, k), at(i + 1, k + 1), at(i, k + 1)]);
        }
    }
    let last = rings.len() as u32 - 1;
    for i in 0..n {
        triangles.push([bottom, at(i + 1, 0), at(i, 0)]);
        triangles.push([at(i, last), at(i + 1, last), top]);
    }
}

/// Mirrors a rotation across the x = 0 plane (left side → right side).
fn mirror(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

/// The looping clip (see the module docs).
fn clip(skeleton: &Skeleton) -> Clip {
    let times = vec![0.0, 1.0, 2.0, 3.0, 4.0];
    let i = Quat::IDENTITY;
    let (rx, ry, rz) = (
        Quat::from_rotation_x,
        Quat::from_rotation_y,
        Quat::from_rotation_z,
    );
    let joint = |name: &str| skeleton.find(name).expect("humanoid joint");
    let rotation = |name: &str, keys: Vec<Quat>, interpolation| Channel {
        joint: joint(name),
        times: times.clone(),
        keys: Keys::Rotation(keys),
        interpolation,
    };
    let squat = Vec3::new(0.0, 0.48, -0.18);
    let stand = Vec3::new(0.0, 1.0, 0.0);
    let mut channels = vec![
        Channel {
            joint: joint("hips"),
            times: times.clone(),
            keys: Keys::Translation(vec![stand, squat, stand, squat, stand]),
            interpolation: Interpolation::Linear,
        },
        rotation(
            "spine",
            vec![i, rx(0.4), i, rx(0.4), i],
            Interpolation::Linear,
        ),
        rotation(
            "head",
            vec![i, ry(0.6), ry(-0.6), i, i],
            Interpolation::Step,
        ),
    ];
    let left: [(&str, Vec<Quat>); 5] = [
        ("thigh", vec![i, rx(-1.6), i, rx(-1.6), i]),
        ("shin", vec![i, rx(2.2), i, rx(2.2), i]),
        ("foot", vec![i, rx(-0.6), i, rx(-0.6), i]),
        (
            "upper_arm",
            vec![i, ry(-2.2) * rz(0.25), rz(1.3), ry(-2.0) * rz(-0.2), i],
        ),
        ("forearm", vec![i, ry(-0.9), i, ry(-0.9), i]),
    ];
    for (name, keys) in left {
        let right = keys.iter().copied().map(mirror).collect();
        channels.push(rotation(&format!("{name}.l"), keys, Interpolation::Linear));
        channels.push(rotation(&format!("{name}.r"), right, Interpolation::Linear));
    }
    Clip {
        name: "extremes".into(),
        channels,
    }
}

/// The humanoid at `detail` (see the module docs).
pub fn humanoid(detail: Detail) -> Character {
    let bones = bones();
    let mut skeleton = Skeleton::default();
    for (name, parent, head, _, _) in &bones {
        let from = parent.map_or(Vec3::ZERO, |p| bones[p].2);
        skeleton.joints.push(Joint {
            name: name.clone(),
            parent: *parent,
            rest: Trs::at(*head - from),
            inverse_bind: Mat4::IDENTITY,
        });
    }
    skeleton.bind_at_rest();
    let (mut positions, mut triangles, mut skin) = (Vec::new(), Vec::new(), Skin::default());
    for (j, (_, parent, head, tail, radius)) in bones.iter().enumerate() {
        let joints = (j as u32, parent.map(|p| p as u32));
        capsule(
            (*head, *tail, *radius),
            joints,
            detail,
            &mut positions,
            &mut triangles,
            &mut skin,
        );
    }
    let clip = clip(&skeleton);
    Character::new("humanoid", skeleton, positions, triangles, skin, Some(clip))
        .expect("the humanoid is well formed")
}
