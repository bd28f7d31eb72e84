//! The benchmark's scene: the procedural humanoid
//! ([`crate::sim::radial::character::humanoid`]) tessellated to about
//! `--triangles`, its fields' broad-phase radii, and a square cloth held
//! by its corners above the head.

use glam::Vec3;

use crate::sim::radial::Cloth;
use crate::sim::radial::character::Character;
use crate::sim::radial::character::humanoid::{Detail, humanoid};

/// Capsule rings along and per cap of the benchmark's character (as
/// [`Detail::HIGH`]), and of small test characters.
const FINE: (u32, u32) = (16, 8);
const COARSE: (u32, u32) = (4, 2);

/// The tessellation giving the humanoid's 21 capsules about `triangles`
/// triangles in all: [`Detail::HIGH`]'s rings with as many segments
/// around as it takes (49 for 64K), coarser rings for small characters.
pub fn detail_for(triangles: usize) -> Detail {
    let per_segment = |(along, cap): (u32, u32)| {
        Detail {
            around: 1,
            along,
            cap,
        }
        .triangles_per_capsule()
            * BONES
    };
    let (along, cap) = if triangles >= 8 * per_segment(FINE) {
        FINE
    } else {
        COARSE
    };
    let around = (triangles as f64 / per_segment((along, cap)) as f64).round() as u32;
    Detail {
        around: around.max(4),
        along,
        cap,
    }
}

/// Bones (and capsules) of the procedural humanoid.
pub const BONES: usize = 21;

/// The humanoid with about `triangles` triangles.
pub fn character(triangles: usize) -> Character {
    humanoid(detail_for(triangles))
}

/// Each field's broad-phase radius (§6.1): how far from its axis its own
/// faces' bind-pose vertices reach, with a quarter more for the blending
/// near joints and the cloth's thickness.
pub fn field_radii(c: &Character) -> Vec<f32> {
    c.fields
        .iter()
        .map(|f| {
            let w = (f.b - f.a).normalize();
            let faces = f.faces.iter().flatten();
            let reach = faces
                .flat_map(|&t| c.triangles[t as usize])
                .map(|v| {
                    let d = c.rest[v as usize] - f.a;
                    (d - d.dot(w) * w).length()
                })
                .fold(0.0f32, f32::max);
            reach.max(1e-3) * 1.25
        })
        .collect()
}

/// A square cloth of about `count` particles held by its four corners
/// (the paper's attachment points) above the head, sagging onto the head,
/// shoulders and arms.
pub fn cloth(count: usize) -> anyhow::Result<Cloth> {
    let side = ((count as f32).sqrt().round() as u32).max(2);
    Ok(Cloth::grid(
        side,
        side,
        Vec3::new(-0.8, 2.05, -0.8),
        Vec3::X * 1.6,
        Vec3::Z * 1.6,
        |i, j| (i == 0 || i == side - 1) && (j == 0 || j == side - 1),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_character_reaches_its_triangle_count_with_a_field_per_bone() {
        for (target, lo, hi) in [(64_000, 62_000, 66_000), (2_000, 1_500, 2_500)] {
            let d = detail_for(target);
            let n = d.triangles_per_capsule() * BONES;
            assert!((lo..=hi).contains(&n), "{target}: {n} triangles ({d:?})");
        }
        let c = character(2_000);
        assert_eq!(c.skeleton.joints.len(), BONES);
        assert_eq!(c.fields.len(), BONES);
        // Every vertex of a field's faces lies inside its broad phase.
        let radii = field_radii(&c);
        for (f, (def, &r)) in c.fields.iter().zip(&radii).enumerate() {
            let frame = def.posed(&glam::Mat4::IDENTITY).unwrap();
            for &t in def.faces.as_ref().unwrap() {
                for v in c.triangles[t as usize] {
                    let cyl = frame.to_cylindrical(c.rest[v as usize]);
                    assert!(cyl.r < r, "field {f}: vertex {v} at r {} ≥ {r}", cyl.r);
                }
            }
        }
        assert_eq!(cloth(13_090).unwrap().particles.len(), 114 * 114);
    }
}
