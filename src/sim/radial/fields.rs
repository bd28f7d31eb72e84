//! The set of radial fields particles collide with, as the collision
//! kernels read it, and the surface approximation of one cell (Friston &
//! Steed 2019, §6.3.1).
//!
//! A [`FieldSet`] holds every field's current frame, its frame one step
//! earlier (pCCD walks the motion relative to both, §6.2), the broad-phase
//! radius of each field's cylinder (§6.1) and the cell values (layout of
//! [`crate::stages::radial::frame`]).
//!
//! # Field space
//!
//! Points are compared with a field in its *field space*, the world
//! translated by −A and rotated into (u, v, w), in world units: x along u,
//! y along v, z along the axis (0 at A, `length` at B). The frame is
//! orthonormal, so normals need no separate transform (the paper's fields
//! carry a non-uniform scale and hence `T_normalToWorldSpace`).
//!
//! # Surface approximation
//!
//! The cell corners around a point are the four samples whose centres
//! surround it in (θ, z): columns wrap around the seam, and the first and
//! last rows extend half a cell beyond the centres with the row's own
//! values, so the whole of z ∈ [0, 1] is covered. Each corner becomes a
//! field-space point at its sample's distance along its ray. The quad is
//! split along its diagonal into two triangles; the one holding the point
//! (which side of `fx = fz` it lies on, in the cell's local coordinates)
//! gives the plane, its normal turned away from the axis. A point under
//! that plane is inside. A corner that is empty (+inf) or zero makes the
//! whole cell empty, so open per-field surfaces leave no artefacts at
//! their edges (§6.3.1).

use glam::Vec3;

use crate::stages::radial::FieldFrameGpu;

/// Most pCCD substeps per step (§6.2): bounds a particle's work.
pub const MAX_SUBSTEPS: u32 = 256;

/// Why a field set or its parameters cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FieldSetError {
    #[error(
        "the field set has {frames} current frames, {prev} previous frames and {radii} radii: one of each per field"
    )]
    Counts {
        frames: usize,
        prev: usize,
        radii: usize,
    },
    #[error(
        "field {field}: {n_theta}×{n_z} cells from offset {offset} pass the {len} values given"
    )]
    Values {
        field: usize,
        n_theta: u32,
        n_z: u32,
        offset: u32,
        len: usize,
    },
    #[error("field {field}: the resolution {n_theta}×{n_z} needs at least 2 θ and 1 z cells")]
    Resolution {
        field: usize,
        n_theta: u32,
        n_z: u32,
    },
    #[error("field {field}: the length {length} is not positive and finite")]
    Length { field: usize, length: f32 },
    #[error("field {field}: the broad-phase radius {radius} is not positive and finite")]
    Radius { field: usize, radius: f32 },
    #[error("substeps = {0}: must be from 1 to {MAX_SUBSTEPS}")]
    Substeps(u32),
    #[error("friction = {0}: must be in [0, 1]")]
    Friction(f32),
}

/// Radial fields, their previous frames and broad-phase radii.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSet {
    pub frames: Vec<FieldFrameGpu>,
    /// Each field's frame at the start of the step.
    pub prev: Vec<FieldFrameGpu>,
    /// Radius of each field's broad-phase cylinder (§6.1).
    pub radius: Vec<f32>,
    /// Every field's cells, `+inf` = empty.
    pub values: Vec<f32>,
}

impl FieldSet {
    /// Static fields: the previous frames are the current ones.
    pub fn fixed(frames: Vec<FieldFrameGpu>, radius: Vec<f32>, values: Vec<f32>) -> Self {
        FieldSet {
            prev: frames.clone(),
            frames,
            radius,
            values,
        }
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Moves the fields to `frames` for the next step; the frames they
    /// leave become the previous ones.
    pub fn advance(&mut self, frames: Vec<FieldFrameGpu>) {
        self.prev = std::mem::replace(&mut self.frames, frames);
    }

    /// Checks counts, resolutions and that every field's cells lie in
    /// `values`, naming the field at fault.
    pub fn validate(&self) -> Result<(), FieldSetError> {
        let n = self.frames.len();
        if self.prev.len() != n || self.radius.len() != n {
            return Err(FieldSetError::Counts {
                frames: n,
                prev: self.prev.len(),
                radii: self.radius.len(),
            });
        }
        for (field, (f, &radius)) in self.frames.iter().zip(&self.radius).enumerate() {
            if f.n_theta < 2 || f.n_z < 1 {
                return Err(FieldSetError::Resolution {
                    field,
                    n_theta: f.n_theta,
                    n_z: f.n_z,
                });
            }
            let end = f.offset as u64 + f.n_theta as u64 * f.n_z as u64;
            if end > self.values.len() as u64 {
                return Err(FieldSetError::Values {
                    field,
                    n_theta: f.n_theta,
                    n_z: f.n_z,
                    offset: f.offset,
                    len: self.values.len(),
                });
            }
            for length in [f.length, self.prev[field].length] {
                if !(length.is_finite() && length > 0.0) {
                    return Err(FieldSetError::Length { field, length });
                }
            }
            if !(radius.is_finite() && radius > 0.0) {
                return Err(FieldSetError::Radius { field, radius });
            }
        }
        Ok(())
    }
}

/// `p` in the field space of `f`.
pub fn to_field(f: &FieldFrameGpu, p: Vec3) -> Vec3 {
    let d = p - Vec3::from(f.a);
    Vec3::new(d.dot(f.u.into()), d.dot(f.v.into()), d.dot(f.w.into()))
}

/// The world point at field-space `s` of `f`.
pub(crate) fn from_field(f: &FieldFrameGpu, s: Vec3) -> Vec3 {
    Vec3::from(f.a) + Vec3::from(f.u) * s.x + Vec3::from(f.v) * s.y + Vec3::from(f.w) * s.z
}

/// A plane in field space: a point on it and its unit normal, away from
/// the axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    pub origin: Vec3,
    pub normal: Vec3,
}

impl Plane {
    /// Signed distance of `s` from the plane: negative under it.
    pub fn distance(&self, s: Vec3) -> f32 {
        self.normal.dot(s - self.origin)
    }
}

/// The field-space position of sample (column `i`, row `k`) of `f`: `i`
/// wraps, `k` may be −1 or `n_z` (the half cells beyond the end rows,
/// which take the end row's value). `None` when the sample is empty or 0.
fn corner(f: &FieldFrameGpu, values: &[f32], i: i32, k: i32) -> Option<Vec3> {
    let (nt, nz) = (f.n_theta as i32, f.n_z as i32);
    let col = i.rem_euclid(nt);
    let row = k.clamp(0, nz - 1);
    let d = values[(f.offset as i32 + row * nt + col) as usize];
    if !(d.is_finite() && d > 0.0) {
        return None;
    }
    let angle = std::f32::consts::TAU * (col as f32 + 0.5) / nt as f32;
    let z = (k as f32 + 0.5) / nz as f32 * f.length;
    Some(Vec3::new(d * angle.cos(), d * angle.sin(), z))
}

/// The surface approximation under field-space point `s` (see the module
/// docs), or `None` where `s` is beyond the field's ends or its cell is
/// empty.
pub fn surface(f: &FieldFrameGpu, values: &[f32], s: Vec3) -> Option<Plane> {
    let zn = s.z / f.length;
    if !(0.0..=1.0).contains(&zn) {
        return None;
    }
    let turns = s.y.atan2(s.x) / std::f32::consts::TAU;
    let theta = turns - turns.floor();
    let gx = theta * f.n_theta as f32 - 0.5;
    let gz = zn * f.n_z as f32 - 0.5;
    let (i0, k0) = (gx.floor(), gz.floor());
    let (fx, fz) = (gx - i0, gz - k0);
    let (i0, k0) = (i0 as i32, k0 as i32);
    let c00 = corner(f, values, i0, k0)?;
    let c10 = corner(f, values, i0 + 1, k0)?;
    let c01 = corner(f, values, i0, k0 + 1)?;
    let c11 = corner(f, values, i0 + 1, k0 + 1)?;
    let (a, b, c) = if fx >= fz {
        (c00, c10, c11)
    } else {
        (c00, c11, c01)
    };
    let n = (b - a).cross(c - a);
    let centroid = (a + b + c) / 3.0;
    let outward = Vec3::new(centroid.x, centroid.y, 0.0);
    let len = n.length();
    if len <= 0.0 {
        return None;
    }
    let n = (if n.dot(outward) < 0.0 { -n } else { n }) / len;
    Some(Plane {
        origin: a,
        normal: n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::radial::BoneFrame;

    fn cylinder(r: f32, n_theta: u32, n_z: u32) -> (FieldFrameGpu, Vec<f32>) {
        let frame = BoneFrame::new(Vec3::ZERO, Vec3::Z * 2.0, Vec3::X).unwrap();
        let f = FieldFrameGpu::new(&frame, n_theta, n_z, 0);
        (f, vec![r; (n_theta * n_z) as usize])
    }

    #[test]
    fn field_space_round_trips() {
        let frame =
            BoneFrame::new(Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.0, 4.0, 3.5), Vec3::Z).unwrap();
        let f = FieldFrameGpu::new(&frame, 8, 4, 0);
        let p = Vec3::new(-0.3, 1.7, 2.2);
        assert!((from_field(&f, to_field(&f, p)) - p).length() < 1e-5);
        let s = to_field(&f, frame.b);
        assert!(
            (s - Vec3::new(0.0, 0.0, frame.length)).length() < 1e-5,
            "{s}"
        );
    }

    #[test]
    fn a_cylinder_field_has_planes_at_its_radius() {
        let (f, values) = cylinder(0.5, 64, 8);
        for &(x, y, z) in &[
            (1.0, 0.2, 0.3),
            (-0.4, 0.9, 1.0),
            (0.1, -1.0, 1.99),
            (0.7, 0.0, 0.0),
        ] {
            let s = Vec3::new(x, y, z);
            let plane = surface(&f, &values, s).expect("inside the field's z range");
            // The facet lies between r·cos(π/nθ) and r from the axis.
            let radial = Vec3::new(x, y, 0.0).normalize();
            assert!(
                plane.normal.dot(radial) > 0.99,
                "{s}: normal {}",
                plane.normal
            );
            let at = plane.distance(radial * 0.5);
            assert!(at.abs() < 0.5 * (1.0 - (std::f32::consts::PI / 64.0).cos()) + 1e-6);
            assert!(plane.distance(s) > 0.0 && plane.distance(radial * 0.4) < 0.0);
        }
        assert_eq!(surface(&f, &values, Vec3::new(1.0, 0.0, -0.01)), None);
        assert_eq!(surface(&f, &values, Vec3::new(1.0, 0.0, 2.01)), None);
    }

    #[test]
    fn an_empty_corner_empties_the_cell() {
        let (f, mut values) = cylinder(0.5, 8, 4);
        // Column 0 of row 1: cell centres at θ = 1/16, z = 3/8.
        values[8] = f32::INFINITY;
        let near = |theta: f32, zn: f32| {
            let a = theta * std::f32::consts::TAU;
            Vec3::new(a.cos(), a.sin(), zn * 2.0)
        };
        assert_eq!(surface(&f, &values, near(0.0, 0.3)), None);
        assert_eq!(surface(&f, &values, near(0.1, 0.3)), None);
        assert!(surface(&f, &values, near(0.5, 0.3)).is_some());
        values[8] = 0.0;
        assert_eq!(surface(&f, &values, near(0.1, 0.3)), None);
    }

    #[test]
    fn bad_field_sets_name_the_field() {
        let (f, values) = cylinder(0.5, 8, 4);
        let beyond = FieldFrameGpu { offset: 16, ..f };
        let set = FieldSet::fixed(vec![f, beyond], vec![1.0, 1.0], values.clone());
        assert!(matches!(
            set.validate(),
            Err(FieldSetError::Values { field: 1, .. })
        ));
        let mut g = f;
        g.n_theta = 1;
        let set = FieldSet::fixed(vec![f, g], vec![1.0, 1.0], values.clone());
        assert!(matches!(
            set.validate(),
            Err(FieldSetError::Resolution { field: 1, .. })
        ));
        let set = FieldSet::fixed(vec![f], vec![0.0], values.clone());
        assert_eq!(
            set.validate(),
            Err(FieldSetError::Radius {
                field: 0,
                radius: 0.0
            })
        );
        let set = FieldSet::fixed(vec![f], vec![], values);
        assert!(matches!(set.validate(), Err(FieldSetError::Counts { .. })));
    }
}
