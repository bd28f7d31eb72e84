//! Collision detection and response of particles against radial fields,
//! on the CPU: the reference the GPU kernel (`shaders/shared/radial_collide.wgsl`)
//! mirrors operation for operation (Friston & Steed 2019, §6).
//!
//! The simulation hands over each particle's current position q and its
//! predicted position q₁ (position based dynamics, §6); the fields are
//! visited in order and each may move q₁:
//!
//! 1. **Broad phase** (§6.1): the motion is taken into field space, from
//!    q relative to the field's previous frame to q₁ relative to its
//!    current one (Fig. 2). A field whose cylinder (its z range, its
//!    radius) that segment misses is skipped.
//! 2. **Pseudo-continuous detection** (§6.2): the segment is walked in n
//!    substeps, points at t = j/n for j = 1…n; the first under its cell's
//!    surface plane ([`super::fields::surface`]) is the penetration, p its
//!    projection onto that plane.
//! 3. **Response** (§6.3.2, equations 5–11), in the field's current
//!    space: `V_p = q₁ − p`; the normal part `V_n = −n⟨V_p|n⟩` brings q₁
//!    back onto the plane. Friction removes tangential motion below the
//!    surface: `p_true` is where the particle's own motion `V_q = q₁ − q`
//!    crosses the plane (equations 8–9, clamped to [0, |V_q|]), and
//!    `V_t` opposes the tangential part of `V_p` with the length
//!    `μ·|tangential(q₁ − p_true)|` (equation 10): with μ = 1 the particle
//!    stops where its true path entered, whichever substep found the
//!    penetration. `q₁ += V_n + V_t` (equation 11).
//!
//! Equation 7 as printed (`V_t = μ(V_p − V_n)` added to q₁) would push the
//! particle further along its sliding direction; we read it, with
//! Fuhrmann et al.'s response it modifies, as friction opposing the
//! tangential motion, which is what the μ = 0 / μ = 1 tests check.

use glam::Vec3;

use super::fields::{FieldSet, FieldSetError, MAX_SUBSTEPS, Plane, from_field, surface, to_field};

/// No contact this step (in [`Collision::field`] and the GPU's contacts).
pub const NO_CONTACT: u32 = u32::MAX;

/// Below this a length counts as zero in the response.
const EPS: f32 = 1e-7;

/// Parameters of collision detection and response.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollideParams {
    /// pCCD substeps n (§6.2), 1 to [`MAX_SUBSTEPS`].
    pub substeps: u32,
    /// Friction coefficient μ in [0, 1] (§6.3.2).
    pub friction: f32,
}

impl Default for CollideParams {
    fn default() -> Self {
        CollideParams {
            substeps: 8,
            friction: 0.5,
        }
    }
}

impl CollideParams {
    pub fn validate(&self) -> Result<(), FieldSetError> {
        if !(1..=MAX_SUBSTEPS).contains(&self.substeps) {
            return Err(FieldSetError::Substeps(self.substeps));
        }
        if !(0.0..=1.0).contains(&self.friction) {
            return Err(FieldSetError::Friction(self.friction));
        }
        Ok(())
    }
}

/// One particle's outcome: its new predicted position and the last field
/// it hit ([`NO_CONTACT`] if none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Collision {
    pub predicted: Vec3,
    pub field: u32,
}

/// Whether the field-space segment s0→s1 can touch the field's cylinder
/// of `radius` and length `length` (§6.1): its z range overlaps [0,
/// length] and its (x, y) shadow comes within `radius` of the axis.
fn broad_phase(s0: Vec3, s1: Vec3, length: f32, radius: f32) -> bool {
    if s0.z.max(s1.z) < 0.0 || s0.z.min(s1.z) > length {
        return false;
    }
    let (a, d) = (s0.truncate(), (s1 - s0).truncate());
    let dd = d.dot(d);
    let t = if dd > 0.0 {
        (-a.dot(d) / dd).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + d * t).length() <= radius
}

/// The first of the n substep points on s0→s1 under its surface, with
/// that surface (§6.2).
fn first_penetration(
    set: &FieldSet,
    field: usize,
    s0: Vec3,
    s1: Vec3,
    substeps: u32,
) -> Option<(Vec3, Plane)> {
    let f = &set.frames[field];
    (1..=substeps).find_map(|j| {
        let s = s0 + (s1 - s0) * (j as f32 / substeps as f32);
        surface(f, &set.values, s)
            .filter(|plane| plane.distance(s) < 0.0)
            .map(|plane| (s, plane))
    })
}

/// The response of equations 5–11 in field space: q and q₁ are the
/// particle's current and predicted positions, `hit` the penetrating
/// substep point and `plane` its surface. Returns the new q₁.
fn respond(q: Vec3, q1: Vec3, hit: Vec3, plane: Plane, friction: f32) -> Vec3 {
    let n = plane.normal;
    let p = hit - n * plane.distance(hit);
    let vp = q1 - p;
    let vn = -n * vp.dot(n);
    // Equations 8–9: where the particle's own motion crosses the plane.
    let vq = q1 - q;
    let lq = vq.length();
    let p_true = if lq > EPS {
        let dir = vq / lq;
        let den = n.dot(dir);
        let dp = if den.abs() > EPS {
            n.dot(plane.origin - q) / den
        } else {
            lq
        };
        q + dir * dp.min(lq).max(0.0)
    } else {
        q
    };
    // Equation 10: friction along −tangential(V_p), as long as the true
    // motion below the surface.
    let below = q1 - p_true;
    let below_t = (below - n * below.dot(n)).length();
    let tangent = vp + vn;
    let lt = tangent.length();
    let vt = if lt > EPS {
        -tangent / lt * (friction * below_t)
    } else {
        Vec3::ZERO
    };
    q1 + vn + vt
}

/// Collides one particle (current `q`, predicted `q1`) with every field
/// in order (§6).
pub(crate) fn collide_particle(
    set: &FieldSet,
    params: &CollideParams,
    q: Vec3,
    q1: Vec3,
) -> Collision {
    let mut out = Collision {
        predicted: q1,
        field: NO_CONTACT,
    };
    for (field, (f, prev)) in set.frames.iter().zip(&set.prev).enumerate() {
        let s0 = to_field(prev, q);
        let s1 = to_field(f, out.predicted);
        if !broad_phase(s0, s1, f.length, set.radius[field]) {
            continue;
        }
        if let Some((hit, plane)) = first_penetration(set, field, s0, s1, params.substeps) {
            let qf = to_field(f, q);
            let moved = respond(qf, s1, hit, plane, params.friction);
            out.predicted = from_field(f, moved);
            out.field = field as u32;
        }
    }
    out
}

/// Collides every particle: `q[i]` and `q1[i]` as in `collide_particle`.
pub fn collide(
    set: &FieldSet,
    params: &CollideParams,
    q: &[Vec3],
    q1: &[Vec3],
) -> Result<Vec<Collision>, FieldSetError> {
    set.validate()?;
    params.validate()?;
    Ok(q.iter()
        .zip(q1)
        .map(|(&q, &q1)| collide_particle(set, params, q, q1))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::radial::{BoneFrame, FieldFrameGpu};

    /// One cylinder field of radius `r`, its axis along x from −2 to 2.
    fn horizontal_cylinder(r: f32) -> FieldSet {
        let frame = BoneFrame::new(Vec3::X * -2.0, Vec3::X * 2.0, Vec3::Y).unwrap();
        let f = FieldFrameGpu::new(&frame, 128, 16, 0);
        FieldSet::fixed(vec![f], vec![r * 1.5], vec![r; 128 * 16])
    }

    fn params(substeps: u32, friction: f32) -> CollideParams {
        CollideParams { substeps, friction }
    }

    #[test]
    fn a_particle_moving_into_the_cylinder_ends_on_its_surface() {
        let set = horizontal_cylinder(0.5);
        let c = collide_particle(
            &set,
            &params(8, 0.0),
            Vec3::new(0.3, 0.6, 0.0),
            Vec3::new(0.3, 0.2, 0.0),
        );
        assert_eq!(c.field, 0);
        let r = c.predicted.y.hypot(c.predicted.z);
        assert!(
            (r - 0.5).abs() < 2e-3,
            "stopped at r = {r}: {}",
            c.predicted
        );
        assert!((c.predicted.x - 0.3).abs() < 1e-5, "{}", c.predicted);
    }

    #[test]
    fn a_particle_that_stays_outside_is_left_alone() {
        let set = horizontal_cylinder(0.5);
        let (q, q1) = (Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.1, 0.7, 0.2));
        let c = collide_particle(&set, &params(8, 1.0), q, q1);
        assert_eq!(
            c,
            Collision {
                predicted: q1,
                field: NO_CONTACT
            }
        );
        // Beyond the end of the axis: no field there.
        let c = collide_particle(
            &set,
            &params(8, 1.0),
            Vec3::new(2.5, 0.6, 0.0),
            Vec3::new(2.5, 0.0, 0.0),
        );
        assert_eq!(c.field, NO_CONTACT);
    }

    #[test]
    fn friction_zero_slides_and_friction_one_sticks() {
        let set = horizontal_cylinder(0.5);
        // Diagonal motion: down and along the axis, entering at y = 0.5
        // when x = 0.1.
        let (q, q1) = (Vec3::new(0.0, 0.6, 0.0), Vec3::new(0.3, 0.3, 0.0));
        let slide = collide_particle(&set, &params(16, 0.0), q, q1);
        let stick = collide_particle(&set, &params(16, 1.0), q, q1);
        let half = collide_particle(&set, &params(16, 0.5), q, q1);
        for c in [slide, stick, half] {
            assert_eq!(c.field, 0);
            assert!(
                (c.predicted.y - 0.5).abs() < 1e-3,
                "on the surface: {}",
                c.predicted
            );
        }
        assert!(
            (slide.predicted.x - 0.3).abs() < 1e-4,
            "μ = 0 keeps the tangential motion: {}",
            slide.predicted
        );
        assert!(
            (stick.predicted.x - 0.1).abs() < 2e-3,
            "μ = 1 stops where it entered: {}",
            stick.predicted
        );
        assert!(
            (half.predicted.x - 0.2).abs() < 2e-3,
            "μ = ½ halves the sliding: {}",
            half.predicted
        );
    }

    #[test]
    fn substeps_stop_fast_particles_tunnelling() {
        let set = horizontal_cylinder(0.5);
        // From above to below the cylinder in one step.
        let (q, q1) = (Vec3::new(0.0, 0.8, 0.01), Vec3::new(0.0, -0.8, 0.01));
        let one = collide_particle(&set, &params(1, 0.0), q, q1);
        assert_eq!(
            one,
            Collision {
                predicted: q1,
                field: NO_CONTACT
            },
            "one substep tunnels"
        );
        let many = collide_particle(&set, &params(8, 0.0), q, q1);
        assert_eq!(many.field, 0);
        // On the facet under the first substep inside (its normal tilted
        // by one cell, so μ = 0 slides it along that facet a little).
        let r = many.predicted.y.hypot(many.predicted.z);
        assert!(
            (r - 0.5).abs() < 5e-3 && many.predicted.y > 0.45,
            "stopped on top: {}",
            many.predicted
        );
    }

    #[test]
    fn a_moving_field_pushes_a_resting_particle() {
        // The field rises by 0.3 under a particle that does not move.
        let r = 0.5;
        let before = BoneFrame::new(Vec3::X * -2.0, Vec3::X * 2.0, Vec3::Y).unwrap();
        let after =
            BoneFrame::new(Vec3::new(-2.0, 0.3, 0.0), Vec3::new(2.0, 0.3, 0.0), Vec3::Y).unwrap();
        let set = FieldSet {
            frames: vec![FieldFrameGpu::new(&after, 64, 8, 0)],
            prev: vec![FieldFrameGpu::new(&before, 64, 8, 0)],
            radius: vec![1.0],
            values: vec![r; 64 * 8],
        };
        let p = Vec3::new(0.0, 0.55, 0.0);
        let c = collide_particle(&set, &params(8, 1.0), p, p);
        assert_eq!(c.field, 0);
        assert!(
            (c.predicted.y - 0.8).abs() < 2e-3,
            "lifted onto the surface: {}",
            c.predicted
        );
    }

    #[test]
    fn bad_parameters_are_refused() {
        let set = horizontal_cylinder(0.5);
        let q = [Vec3::ZERO];
        assert_eq!(
            collide(&set, &params(0, 0.5), &q, &q),
            Err(FieldSetError::Substeps(0))
        );
        assert_eq!(
            collide(&set, &params(4, 1.5), &q, &q),
            Err(FieldSetError::Friction(1.5))
        );
    }
}
