//! The exact narrow phase for chosen bodies: a pair with a body flagged
//! exact ([`Pipeline::set_exact`], `"exact": true` in a scene file) gets
//! its contacts from the triangle–triangle stage
//! ([`crate::stages::tritri`]) on the two posed meshes instead of from the
//! sampling points against the fields — the CPU reference on the `cpu`
//! backend, the GPU stage on `gpu-detect`. The resident GPU step has no
//! triangle–triangle pass and refuses exact bodies
//! ([`PipelineError::ResidentExact`]).
//!
//! # Contacts from intersection segments
//!
//! Every intersecting triangle pair `(ta of A, tb of B)` gives one
//! intersection segment; its midpoint `p` is the contact point, and it
//! gives up to two contacts, one per direction (as the field phase tests
//! A's samples in B and B's in A):
//!
//! - **Normal**: the other body's triangle normal (for A in B: `tb`'s),
//!   turned to agree with the other body's field gradient at `p` — the
//!   convention the solver expects, pointing out of the other body into
//!   this one, whatever the mesh's winding.
//! - **Depth**: the other body's field (trilinear, [`FieldView`]) at the
//!   corners of this body's triangle, the deepest one inside. The point
//!   `p` itself lies on both surfaces, where the field is zero up to its
//!   interpolation error, so it carries no depth; the crossing triangle's
//!   corners are where this body reaches into the other (the same points
//!   the field phase's vertex samples test). A direction whose triangle
//!   has no corner inside gives no contact: for a small box on a large
//!   one, A's side faces cross B's top face and give contacts of A in B
//!   with B's face normal and the overlap as depth, while B's top face,
//!   whose corners are outside A, gives none with A's side normals.
//! - **Agreement**: the contact is kept only where the crossed face's
//!   normal is within 60° of the other field's gradient at the deepest
//!   corner, the way that corner is pushed out. Where they disagree the
//!   crossing is at the rim of the overlap and the penetration is across
//!   another face — whose own crossings give the contact. For a small box
//!   sunk into a larger one's top with one of the larger box's top-face
//!   vertices under it, that vertex is inside the small box, but the
//!   small box's side faces it crosses would push it sideways; dropping
//!   those keeps only the face normal along which the boxes overlap.
//!
//! On the GPU, each exact pair is one query (with every colliding pair and
//! its segment read back): exact bodies are the few chosen ones, not the
//! pile.

use glam::{Mat4, Vec3};

use super::{Pipeline, PipelineError, ms};
use crate::stages::collide::{BodyShape, Contact, FieldView};
use crate::stages::sampling::FeatureKind;
use crate::stages::tritri::{self, Backend, Pose, TritriGpu, TritriParams};
use crate::timing::Timings;

/// One intersection segment of an exact pair, world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactSegment {
    /// The two bodies, in pair order.
    pub bodies: (u32, u32),
    pub segment: [Vec3; 2],
}

impl ExactSegment {
    /// True when `body` is one of the pair.
    pub fn touches(&self, body: usize) -> bool {
        self.bodies.0 as usize == body || self.bodies.1 as usize == body
    }
}

/// The exact pairs' contacts and segments.
#[derive(Clone, Debug, Default)]
pub struct ExactContacts {
    pub contacts: Vec<Contact>,
    pub segments: Vec<ExactSegment>,
}

impl Pipeline {
    /// Marks body `body` for the exact narrow phase (or back to the
    /// fields). Out-of-range bodies are ignored.
    pub fn set_exact(&mut self, body: usize, on: bool) {
        if let Some(e) = self.exact.get_mut(body) {
            *e = on;
        }
    }

    pub fn is_exact(&self, body: usize) -> bool {
        self.exact.get(body).copied().unwrap_or(false)
    }

    /// True when some body is exact.
    pub fn has_exact(&self) -> bool {
        self.exact.contains(&true)
    }

    /// True when the pair goes to the exact narrow phase: two meshes, one
    /// of them exact.
    pub(super) fn is_exact_pair(&self, (i, j): (usize, usize)) -> bool {
        (self.is_exact(i) || self.is_exact(j))
            && self.mesh_of(i).is_some()
            && self.mesh_of(j).is_some()
    }

    fn mesh_of(&self, body: usize) -> Option<usize> {
        match self.bodies[body].shape {
            BodyShape::Mesh(m) => Some(m),
            _ => None,
        }
    }

    /// Contacts and segments of the exact `pairs`, on the GPU with `gpu`.
    pub(super) fn exact_narrow(
        &self,
        pairs: &[(usize, usize)],
        gpu: Option<&TritriGpu>,
        timings: &mut Timings,
    ) -> Result<ExactContacts, PipelineError> {
        let start = std::time::Instant::now();
        let params = TritriParams {
            all_pairs: true,
            ..TritriParams::default()
        };
        let backend = if gpu.is_some() {
            Backend::Gpu
        } else {
            Backend::Cpu
        };
        let mut out = ExactContacts::default();
        // The stage's GPU time, summed over the queries.
        let mut gpu_ms: Option<f64> = None;
        for &(i, j) in pairs {
            let (Some(mi), Some(mj)) = (self.mesh_of(i), self.mesh_of(j)) else {
                continue;
            };
            let (a, b) = (&self.tri_models[mi], &self.tri_models[mj]);
            let pose = |k: usize| {
                let s = &self.bodies[k].state;
                Pose::new(s.position, s.rotation)
            };
            let found = tritri::query(a, pose(i), b, pose(j), &params, backend, gpu)?;
            for g in found.timings.phases.iter().filter_map(|t| t.gpu_ms) {
                *gpu_ms.get_or_insert(0.0) += g;
            }
            let side_i = Side::of(self, i, mi);
            let side_j = Side::of(self, j, mj);
            for (k, c) in found.contacts.iter().enumerate() {
                let p = 0.5 * (c.segment[0] + c.segment[1]);
                let [ta, tb] = c.pair.map(|t| t as usize);
                out.contacts
                    .extend(contact(&side_i, ta, &side_j, tb, p, k as u32));
                out.contacts
                    .extend(contact(&side_j, tb, &side_i, ta, p, k as u32));
                out.segments.push(ExactSegment {
                    bodies: (i as u32, j as u32),
                    segment: c.segment,
                });
            }
        }
        timings.push("narrow exact", ms(start), gpu_ms);
        Ok(out)
    }
}

/// Least cosine between the crossed face's normal and the other field's
/// gradient at the deepest corner for a contact (module docs).
const MIN_AGREEMENT: f32 = 0.5;

/// One body of an exact pair as the contacts need it.
struct Side<'a> {
    body: u32,
    world_from_object: Mat4,
    object_from_world: Mat4,
    field: FieldView<'a>,
    triangles: &'a [crate::geom::Triangle],
}

impl<'a> Side<'a> {
    fn of(p: &'a Pipeline, body: usize, mesh: usize) -> Self {
        let world_from_object = p.bodies[body].world_from_object();
        Side {
            body: body as u32,
            world_from_object,
            object_from_world: world_from_object.inverse(),
            field: FieldView::of(&p.shapes[mesh]),
            triangles: &p.tri_models[mesh].triangles,
        }
    }

    /// The field at world point `w` (trilinear; negative inside).
    fn field_at(&self, w: Vec3) -> f32 {
        self.field
            .trilinear(self.object_from_world.transform_point3(w))
    }

    /// The field's gradient at world point `w`, world frame (zero outside
    /// the grid).
    fn gradient_at(&self, w: Vec3) -> Vec3 {
        let o = self.object_from_world.transform_point3(w);
        self.field.cell_of(o).map_or(Vec3::ZERO, |c| {
            self.world_from_object
                .transform_vector3(self.field.gradient(c, o))
        })
    }
}

/// The contact of `this`'s triangle `t` in `other`'s triangle `u` at `p`,
/// if a corner of `t` is inside `other` (module docs).
fn contact(this: &Side, t: usize, other: &Side, u: usize, p: Vec3, index: u32) -> Option<Contact> {
    let (depth, deepest) = this.triangles[t]
        .iter()
        .map(|&c| {
            let w = this.world_from_object.transform_point3(c);
            (-other.field_at(w), w)
        })
        .fold((0.0, Vec3::ZERO), |a, b| if b.0 > a.0 { b } else { a });
    if depth <= 0.0 {
        return None;
    }
    let [a, b, c] = other.triangles[u];
    let face = other
        .world_from_object
        .transform_vector3((b - a).cross(c - a))
        .normalize_or_zero();
    let normal = if face.dot(other.gradient_at(p)) < 0.0 {
        -face
    } else {
        face
    };
    let pushes_out = other.gradient_at(deepest).normalize_or_zero();
    (normal.dot(pushes_out) >= MIN_AGREEMENT).then_some(Contact {
        position: p,
        normal,
        depth,
        depth_cell: depth,
        body: this.body,
        other: other.body,
        feature: FeatureKind::Face,
        sample: index,
    })
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Quat, Vec3};

    use super::super::{BodySpec, FieldParams, Pipeline, PipelineBackend, PipelineParams};
    use crate::mesh::box_mesh;
    use crate::stages::sdf::SdfParams;
    use crate::timing::Timings;

    const OVERLAP: f32 = 0.1;

    /// A unit box (body 0, exact) sunk `OVERLAP` into the top of a static
    /// box of side 2 (body 1, top face at y = 1).
    fn sunk_box() -> Pipeline {
        let big = box_mesh(2).transformed(Mat4::from_scale(Vec3::splat(2.0)));
        let spec = |mesh, y, is_static| BodySpec {
            mesh,
            position: Vec3::new(0.0, y, 0.0),
            orientation: Quat::IDENTITY,
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            density: 1000.0,
            is_static,
        };
        let fields = FieldParams {
            sdf: SdfParams {
                resolution: 16,
                ..SdfParams::default()
            },
            ..FieldParams::default()
        };
        let specs = [spec(0, 1.5 - OVERLAP, false), spec(1, 0.0, true)];
        let mut p =
            Pipeline::new(&[box_mesh(2), big], &specs, None, &fields, None).expect("pipeline");
        p.set_exact(0, true);
        p
    }

    #[test]
    fn two_overlapping_boxes_get_contacts_on_the_intersection_curve() {
        let p = sunk_box();
        let params = PipelineParams {
            backend: PipelineBackend::Cpu,
            ..PipelineParams::default()
        };
        let d = p
            .detect_phases(&params, &mut Timings::default())
            .expect("detect");
        assert_eq!(d.pairs, vec![(0, 1)]);
        assert!(!d.segments.is_empty(), "no intersection segments");
        // The curve: the unit box's sides crossing the top face, the square
        // |x|, |z| ≤ 0.5 at y = 1.
        for s in &d.segments {
            for q in s.segment {
                let rim = q.x.abs().max(q.z.abs());
                assert!(
                    (q.y - 1.0).abs() < 1e-4 && (rim - 0.5).abs() < 1e-4,
                    "{q} is off the intersection curve"
                );
            }
        }
        let cell = p.shapes[1].field.grid.cell_size;
        let contacts = &d.contacts.contacts;
        assert!(!contacts.is_empty(), "no contacts");
        for (k, c) in contacts.iter().enumerate() {
            assert!(
                (c.position.y - 1.0).abs() < 1e-4,
                "contact {k} at {}",
                c.position
            );
            // Out of the other body into this one: up into the unit box.
            let want = if c.body == 0 { Vec3::Y } else { -Vec3::Y };
            assert!(
                c.normal.dot(want) > 5f32.to_radians().cos(),
                "contact {k} (body {}): normal {}",
                c.body,
                c.normal
            );
            assert!(
                (c.depth - OVERLAP).abs() < cell,
                "contact {k}: depth {} for an overlap of {OVERLAP} (cell {cell})",
                c.depth
            );
        }
        assert!(contacts.iter().any(|c| c.body == 0));
    }

    #[test]
    fn the_field_phase_keeps_pairs_without_an_exact_body() {
        let mut p = sunk_box();
        p.set_exact(0, false);
        let params = PipelineParams {
            backend: PipelineBackend::Cpu,
            ..PipelineParams::default()
        };
        let d = p
            .detect_phases(&params, &mut Timings::default())
            .expect("detect");
        assert!(d.segments.is_empty());
        assert!(!d.contacts.contacts.is_empty());
    }

    #[test]
    fn the_resident_step_refuses_an_exact_body() {
        let mut p = sunk_box();
        let e = p
            .step(&PipelineParams::default())
            .expect_err("resident step with an exact body");
        assert!(e.to_string().contains("body 0 is exact"), "{e}");
    }
}
