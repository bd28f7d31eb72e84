//! Table 1's per-bone distance fields (Friston & Steed 2019, §9): a
//! uniform grid of signed distances per bone, in the bone's bind-pose
//! frame, rebuilt every frame from the skinned triangles mainly skinned
//! to that bone — the CPU reference of [`super::bone_sdf_gpu`].
//!
//! * Grid: `res`³ cells over the box of the bone's triangles at rest,
//!   padded by `pad`; cell (i, j, k) has its centre at
//!   `lo + (i + ½, j + ½, k + ½)·h`, `h = (hi − lo)/res`. Posed, the centre
//!   is carried into the world by the bone's skin matrix M.
//! * Build: each cell the signed distance from its posed centre to the
//!   nearest of the bone's skinned triangles (brute force over them; the
//!   sign is the side of that triangle's plane, negative inside).
//! * Query: a point is carried into each bone's frame by M⁻¹ and, where it
//!   lies between the grid's first and last cell centres, the cells are
//!   interpolated trilinearly; the answer of least magnitude over the
//!   bones (the nearest surface), when within `reach`, is the point's
//!   signed distance — the question [`super::alternatives`] answers.
//!
//! The fields are the radial fields' bones ([`FieldDef`]): one grid per
//! field, over that field's faces.

use glam::{Mat4, UVec3, Vec3};
use rayon::prelude::*;

use crate::geom::{Aabb, closest_point_triangle};
use crate::sim::radial::character::fields::FieldDef;

/// Cells per axis allowed.
pub const MAX_RES: u32 = 256;

/// Why the grids cannot be made.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum BoneSdfError {
    #[error("per-bone SDF resolution {0}: must be 2 to {MAX_RES} cells per axis")]
    Resolution(u32),
    #[error("per-bone SDF padding {0}: must be a finite distance ≥ 0")]
    Padding(f32),
}

/// One bone's grid: its joint (skin matrix), box at rest and triangles.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneGrid {
    pub joint: usize,
    pub lo: Vec3,
    pub hi: Vec3,
    pub triangles: Vec<u32>,
}

impl BoneGrid {
    fn spacing(&self, res: u32) -> Vec3 {
        (self.hi - self.lo) / res as f32
    }
}

/// Every bone's grid at one resolution.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneSdfs {
    pub res: u32,
    pub bones: Vec<BoneGrid>,
}

impl BoneSdfs {
    /// One grid per field with faces, over the box of its faces at rest
    /// (`rest`) padded by `pad`.
    pub fn fit(
        rest: &[Vec3],
        triangles: &[[u32; 3]],
        fields: &[FieldDef],
        res: u32,
        pad: f32,
    ) -> Result<Self, BoneSdfError> {
        if !(2..=MAX_RES).contains(&res) {
            return Err(BoneSdfError::Resolution(res));
        }
        if !(pad.is_finite() && pad >= 0.0) {
            return Err(BoneSdfError::Padding(pad));
        }
        let bones = fields
            .iter()
            .filter_map(|f| {
                let faces: Vec<u32> = match &f.faces {
                    Some(faces) => faces.clone(),
                    None => (0..triangles.len() as u32).collect(),
                };
                let corners: Vec<Vec3> = (faces.iter())
                    .flat_map(|&t| triangles[t as usize].map(|v| rest[v as usize]))
                    .collect();
                (!corners.is_empty()).then(|| {
                    let b = Aabb::from_points(&corners);
                    BoneGrid {
                        joint: f.joint,
                        lo: b.min - pad,
                        hi: b.max + pad,
                        triangles: faces,
                    }
                })
            })
            .collect();
        Ok(BoneSdfs { res, bones })
    }

    pub fn cells_per_bone(&self) -> usize {
        (self.res as usize).pow(3)
    }

    /// Bytes of the cells and the bones' triangle lists.
    pub fn memory_bytes(&self) -> usize {
        let lists: usize = self.bones.iter().map(|b| b.triangles.len()).sum();
        4 * (self.cells_per_bone() * self.bones.len() + lists)
    }

    /// The bind-pose centre of cell `c` of bone `b`.
    pub fn cell_centre(&self, b: usize, c: UVec3) -> Vec3 {
        let g = &self.bones[b];
        g.lo + (c.as_vec3() + 0.5) * g.spacing(self.res)
    }

    /// Every bone's cells (bone after bone, x fastest) for the skinned
    /// `positions` in the pose of `skin_matrices`.
    pub fn build(
        &self,
        positions: &[Vec3],
        triangles: &[[u32; 3]],
        skin_matrices: &[Mat4],
    ) -> Vec<f32> {
        let n = self.res;
        let per_bone = self.cells_per_bone();
        (0..per_bone * self.bones.len())
            .into_par_iter()
            .map(|idx| {
                let b = idx / per_bone;
                let c = (idx % per_bone) as u32;
                let cell = UVec3::new(c % n, (c / n) % n, c / (n * n));
                let p =
                    skin_matrices[self.bones[b].joint].transform_point3(self.cell_centre(b, cell));
                let tri = |t: u32| triangles[t as usize].map(|v| positions[v as usize]);
                let nearest = (self.bones[b].triangles.iter())
                    .map(|&t| (t, closest_point_triangle(p, tri(t)).distance_squared))
                    .min_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
                nearest.map_or(f32::MAX, |(t, _)| signed_distance(p, tri(t)))
            })
            .collect()
    }

    /// Each point's signed distance within `reach` by the grids' `cells`
    /// in the pose of `skin_matrices`.
    pub fn query(
        &self,
        cells: &[f32],
        skin_matrices: &[Mat4],
        points: &[Vec3],
        reach: f32,
    ) -> Vec<Option<f32>> {
        let inverse: Vec<Mat4> = (self.bones.iter())
            .map(|g| skin_matrices[g.joint].inverse())
            .collect();
        points
            .par_iter()
            .map(|&p| {
                (0..self.bones.len())
                    .filter_map(|b| self.sample(cells, b, inverse[b].transform_point3(p)))
                    .min_by(|x, y| x.abs().total_cmp(&y.abs()))
                    .filter(|d| d.abs() <= reach)
            })
            .collect()
    }

    /// Bone `b`'s trilinear value at bind-pose point `local`, `None` outside
    /// its cell centres.
    fn sample(&self, cells: &[f32], b: usize, local: Vec3) -> Option<f32> {
        let g = &self.bones[b];
        let n = self.res;
        let at = (local - g.lo) / g.spacing(n) - 0.5;
        let last = (n - 1) as f32;
        if !(at.cmpge(Vec3::ZERO).all() && at.cmple(Vec3::splat(last)).all()) {
            return None;
        }
        let i0 = at.floor().as_uvec3().min(UVec3::splat(n - 2));
        let f = at - i0.as_vec3();
        let base = b * self.cells_per_bone();
        let cell = |d: UVec3| {
            let c = i0 + d;
            cells[base + ((c.z * n + c.y) * n + c.x) as usize]
        };
        let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
        let x00 = lerp(cell(UVec3::new(0, 0, 0)), cell(UVec3::new(1, 0, 0)), f.x);
        let x10 = lerp(cell(UVec3::new(0, 1, 0)), cell(UVec3::new(1, 1, 0)), f.x);
        let x01 = lerp(cell(UVec3::new(0, 0, 1)), cell(UVec3::new(1, 0, 1)), f.x);
        let x11 = lerp(cell(UVec3::new(0, 1, 1)), cell(UVec3::new(1, 1, 1)), f.x);
        Some(lerp(lerp(x00, x10, f.y), lerp(x01, x11, f.y), f.z))
    }
}

/// The signed distance from `p` to `tri` (negative behind its plane).
fn signed_distance(p: Vec3, tri: [Vec3; 3]) -> f32 {
    let c = closest_point_triangle(p, tri);
    let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
    let d = c.distance_squared.sqrt();
    if (p - c.point).dot(n) < 0.0 { -d } else { d }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One field over a closed cylinder of radius 0.5 along y.
    fn cylinder_grid(res: u32) -> (crate::mesh::Mesh, BoneSdfs) {
        let mesh = crate::mesh::cylinder(48);
        let field = FieldDef {
            joint: 0,
            a: Vec3::new(0.0, -0.5, 0.0),
            b: Vec3::new(0.0, 0.5, 0.0),
            normal: Vec3::X,
            faces: None,
        };
        let sdfs = BoneSdfs::fit(&mesh.positions, &mesh.triangles, &[field], res, 0.1).unwrap();
        (mesh, sdfs)
    }

    #[test]
    fn a_moved_cylinder_answers_like_its_surface() {
        let (mesh, sdfs) = cylinder_grid(24);
        assert_eq!(sdfs.bones[0].lo, Vec3::splat(-0.6));
        // The bone moved and turned: cells and queries follow it.
        let m = Mat4::from_rotation_translation(
            glam::Quat::from_rotation_z(0.7),
            Vec3::new(1.0, 2.0, -0.5),
        );
        let posed: Vec<Vec3> = mesh
            .positions
            .iter()
            .map(|&p| m.transform_point3(p))
            .collect();
        let cells = sdfs.build(&posed, &mesh.triangles, &[m]);
        assert_eq!(cells.len(), 24 * 24 * 24);
        // Cell centres at rest between the caps' planes: the distance to
        // the wall or the nearer cap, whichever is nearer (48 facets: within
        // 0.005 of the round cylinder).
        let mut checked = 0;
        for (c, &d) in cells.iter().enumerate() {
            let c = c as u32;
            let p = sdfs.cell_centre(0, UVec3::new(c % 24, (c / 24) % 24, c / 576));
            let r = p.x.hypot(p.z);
            if p.y.abs() < 0.5 {
                let expected = (r - 0.5).max(p.y.abs() - 0.5);
                assert!(
                    (d - expected).abs() < 0.005,
                    "cell {c} at {p}: {d}, not {expected}"
                );
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked} cells checked");
        let reach = 0.05;
        let points: Vec<Vec3> = [0.47, 0.52, 0.56, 0.3]
            .iter()
            .map(|&r| m.transform_point3(Vec3::new(r, 0.1, 0.0)))
            .collect();
        let got = sdfs.query(&cells, &[m], &points, reach);
        for (j, (&r, g)) in [0.47f32, 0.52, 0.56, 0.3].iter().zip(&got).enumerate() {
            let expected = r - 0.5;
            if expected.abs() <= reach - 0.01 {
                let g = g.unwrap_or_else(|| panic!("point {j} (r {r}) has no answer"));
                assert!((g - expected).abs() < 0.005, "point {j} (r {r}): {g}");
            } else if expected.abs() > reach + 0.01 {
                assert_eq!(*g, None, "point {j} (r {r}) is beyond reach");
            }
        }
    }

    #[test]
    fn bad_resolutions_and_paddings_are_refused() {
        let mesh = crate::mesh::cylinder(8);
        let fit = |res, pad| BoneSdfs::fit(&mesh.positions, &mesh.triangles, &[], res, pad);
        assert_eq!(fit(1, 0.0), Err(BoneSdfError::Resolution(1)));
        assert_eq!(
            fit(MAX_RES + 1, 0.0),
            Err(BoneSdfError::Resolution(MAX_RES + 1))
        );
        assert!(matches!(fit(8, f32::NAN), Err(BoneSdfError::Padding(_))));
    }
}
