//! The frame the distance fields are computed in.
//!
//! float32 holds 24 bits relative to the largest coordinate, so a mesh a
//! million units from the origin keeps only 1/16 of a unit of detail in
//! world coordinates, and the distance code's products of four coordinate
//! differences overflow beyond about 1e9. Every field stage therefore works
//! on a copy of the mesh in a *local frame* ([`super::PreparedMesh::local`]):
//! `local = (world − centre) · scale`, subtracted in f64 and rounded to
//! float32 once, with
//!
//! * `scale = 2⁻ᵉ`, `2ᵉ` the power of two at or above the longest side, so
//!   the local mesh's longest side lies in (½, 1] whatever the mesh's size,
//!   and scaling is exact (no rounding, only the exponent moves);
//! * `centre` the bounding box's centre rounded to a multiple of `2ᵉ⁺¹`:
//!   0 for a mesh that touches the origin's neighbourhood, so such meshes are
//!   only rescaled, exactly; and for a mesh far away a point whose bits
//!   stop above the mesh's detail, so `world − centre` is exact too whenever
//!   the mesh's vertices are resolved at all.
//!
//! Grids, octree cubes and sample points go into the frame the same way and
//! values come back divided by `scale` (exact). A mesh moved by `t` thus
//! gets the local mesh of the original moved by the difference of the two
//! rounded centres, a multiple of `2ᵉ⁺¹` that is itself exact, and a mesh
//! scaled by `s` the original's local mesh up to one rounding per
//! coordinate: the fields agree up to float32 rounding relative to the
//! mesh, not to its distance from the origin.

use glam::{DVec3, Vec3};

use crate::geom::Aabb;

/// `local = (world − centre) · scale`; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub centre: DVec3,
    /// A power of two.
    pub scale: f64,
}

impl Frame {
    /// The world itself.
    pub const IDENTITY: Frame = Frame {
        centre: DVec3::ZERO,
        scale: 1.0,
    };

    /// The frame of a mesh with these bounds (not empty, longest side > 0).
    pub fn around(bounds: Aabb) -> Frame {
        let side = f64::from(bounds.size().max_element()).max(f64::from(f32::MIN_POSITIVE));
        let e = side.log2().ceil() as i32;
        let unit = 2f64.powi(e + 1);
        let centre = (bounds.min.as_dvec3() + bounds.max.as_dvec3()) * 0.5;
        Frame {
            centre: (centre / unit).round() * unit,
            scale: 2f64.powi(-e),
        }
    }

    pub fn is_identity(&self) -> bool {
        *self == Frame::IDENTITY
    }

    /// A world point in the frame.
    pub fn to_local(&self, p: Vec3) -> Vec3 {
        self.to_local_f64(p.as_dvec3())
    }

    /// A world point given in float64 in the frame: subtracted and scaled
    /// in float64, rounded to float32 once, so a point far from the origin
    /// keeps the bits float32 world coordinates would lose.
    pub fn to_local_f64(&self, p: DVec3) -> Vec3 {
        ((p - self.centre) * self.scale).as_vec3()
    }

    /// A point of the frame in the world, in float64 (exact for the
    /// frames [`Frame::around`] makes: no bits are lost).
    pub fn to_world_f64(&self, p: Vec3) -> DVec3 {
        p.as_dvec3() / self.scale + self.centre
    }

    /// A point of the frame in the world (rounded to float32 once).
    pub fn to_world(&self, p: Vec3) -> Vec3 {
        (p.as_dvec3() / self.scale + self.centre).as_vec3()
    }

    /// A world length in the frame (exact: `scale` is a power of two).
    pub fn length_to_local(&self, l: f32) -> f32 {
        (f64::from(l) * self.scale) as f32
    }

    /// A length of the frame in the world (exact).
    pub fn length_to_world(&self, l: f32) -> f32 {
        (f64::from(l) / self.scale) as f32
    }

    /// The factor of [`Self::length_to_world`] in float32: `1 / scale`, a
    /// power of two that float32 holds (the mesh size limits keep the
    /// exponent within ±64), so `l · world_factor()` in float32 equals
    /// `length_to_world(l)` bit for bit (both round the exact product
    /// once) and vectorises, for millions of values.
    pub fn world_factor(&self) -> f32 {
        (1.0 / self.scale) as f32
    }

    /// A box of the world in the frame. The map is monotone, so a box that
    /// holds a point holds it in the frame too.
    pub fn box_to_local(&self, b: Aabb) -> Aabb {
        Aabb {
            min: self.to_local(b.min),
            max: self.to_local(b.max),
        }
    }
}

/// Spacing of float32 numbers near `x` (its ulp).
pub fn f32_spacing(x: f32) -> f32 {
    let x = x.abs();
    (f32::from_bits(x.to_bits() + 1) - x).max(f32::from_bits(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(min: [f32; 3], max: [f32; 3]) -> Aabb {
        Aabb {
            min: Vec3::from_array(min),
            max: Vec3::from_array(max),
        }
    }

    #[test]
    fn a_mesh_near_the_origin_is_only_rescaled() {
        let f = Frame::around(bounds([0.0, 0.0, 0.0], [3.0, 1.0, 1.0]));
        assert_eq!(f.centre, DVec3::ZERO);
        assert_eq!(f.scale, 0.25);
        let p = Vec3::new(0.1, 2.7, -1.3);
        assert_eq!(f.to_local(p), p * 0.25);
        assert_eq!(f.to_world(f.to_local(p)), p);
        assert!(Frame::around(bounds([-0.5; 3], [0.5; 3])).is_identity());
    }

    #[test]
    fn a_moved_mesh_gets_the_original_local_mesh() {
        let original = Frame::around(bounds([0.0; 3], [1.0; 3]));
        let moved = Frame::around(bounds([1e6; 3], [1e6 + 1.0; 3]));
        assert_eq!(moved.centre - original.centre, DVec3::splat(1e6));
        for p in [[0.25f32, 0.5, 0.75], [1.0, 0.0, 0.5]] {
            let p = Vec3::from_array(p);
            let q = p + Vec3::splat(1e6);
            assert_eq!(moved.to_local(q), original.to_local(p), "{p}");
        }
        let tiny = Frame::around(bounds([1e-6; 3], [3e-6; 3]));
        assert!(tiny.scale > 1e5 && tiny.scale.log2().fract() == 0.0);
        let local = tiny.to_local(Vec3::splat(3e-6));
        assert!(
            local.max_element() <= 1.5 && local.max_element() > 0.0,
            "{local}"
        );
    }

    proptest::proptest! {
        /// The float32 factor gives `length_to_world` bit for bit, for any
        /// value (subnormal, huge, negative) and any scale a mesh can get.
        #[test]
        fn world_factor_gives_length_to_world_exactly(
            bits in proptest::prelude::any::<u32>(),
            e in -60i32..=64,
        ) {
            let l = f32::from_bits(bits);
            proptest::prop_assume!(!l.is_nan());
            let f = Frame { centre: DVec3::ZERO, scale: 2f64.powi(-e) };
            proptest::prop_assert_eq!((l * f.world_factor()).to_bits(), f.length_to_world(l).to_bits());
        }
    }

    #[test]
    fn spacing_is_the_ulp() {
        assert_eq!(f32_spacing(1.0), f32::EPSILON);
        assert_eq!(f32_spacing(-1e6), 0.0625);
        assert_eq!(f32_spacing(0.0), f32::from_bits(1));
    }
}
