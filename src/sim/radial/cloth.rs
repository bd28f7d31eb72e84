//! Position-based cloth colliding with radial fields, on the CPU: the
//! reference `shaders/radial_cloth.wgsl` mirrors (Friston & Steed 2019,
//! §8).
//!
//! A step is the PBD loop of §8: predict every particle under gravity
//! ([`Particles::predict`]), project the constraints for a few
//! iterations, collide the predictions with the fields
//! (`super::collide`) and take the new velocities from the change of
//! position ([`Particles::update`]).
//!
//! # Constraints
//!
//! A rectangular grid of particles carries *distance* constraints along
//! its edges and both diagonals of each quad (stretch and shear, rest
//! length = the grid's spacing) and *bending* constraints between
//! particles two apart in each direction (the usual distance
//! approximation of bending stiffness). Each constraint has its stiffness
//! k in [0, 1] (stretch or bend).
//!
//! Constraints are projected Jacobi-style, which runs on the GPU with one
//! invocation per particle and no atomics: every particle gathers, over
//! the constraints it belongs to, the move that would restore each one
//! alone (`k · w_i/(w_i + w_j) · (|d| − rest) · d̂`, d towards the other
//! particle, w the inverse masses), and applies their average — the
//! "smart averaging" of §8 (after Bouaziz et al. and Weiler et al.).
//! Pinned particles (w = 0) do not move. The constraints are kept per
//! particle ([`Cloth::offsets`], [`Cloth::links`]: each constraint once
//! from each end) so both sides sum in the same order.

use glam::{Vec3, Vec4};

use super::fields::{FieldSet, FieldSetError};
use super::particles::{Particles, StepParams};

/// A stretch or shear constraint ([`Link::kind`]).
pub(crate) const LINK_STRETCH: u32 = 0;
/// A bending constraint ([`Link::kind`]).
pub const LINK_BEND: u32 = 1;

/// One end of a constraint, as the GPU reads it: the particle at the
/// other end, the rest length and the kind.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Link {
    pub other: u32,
    pub rest: f32,
    pub kind: u32,
    pub _pad: u32,
}

/// Why a cloth cannot be made or stepped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClothError {
    #[error("the cloth grid {nx}×{ny} needs at least 2 particles each way")]
    Grid { nx: u32, ny: u32 },
    #[error("{name} = {value}: must be in [0, 1]")]
    Stiffness { name: &'static str, value: f32 },
    #[error("iterations = {0}: must be from 1 to 64")]
    Iterations(u32),
    #[error(transparent)]
    Fields(#[from] FieldSetError),
}

/// Constraint parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClothParams {
    /// Stiffness of the distance constraints.
    pub stretch: f32,
    /// Stiffness of the bending constraints.
    pub bend: f32,
    /// Constraint iterations per step.
    pub iterations: u32,
}

impl Default for ClothParams {
    fn default() -> Self {
        ClothParams {
            stretch: 1.0,
            bend: 0.2,
            iterations: 8,
        }
    }
}

impl ClothParams {
    pub fn validate(&self) -> Result<(), ClothError> {
        for (name, value) in [("stretch", self.stretch), ("bend", self.bend)] {
            if !(0.0..=1.0).contains(&value) {
                return Err(ClothError::Stiffness { name, value });
            }
        }
        if !(1..=64).contains(&self.iterations) {
            return Err(ClothError::Iterations(self.iterations));
        }
        Ok(())
    }
}

/// A cloth: its particles and its constraints, per particle.
#[derive(Debug, Clone, PartialEq)]
pub struct Cloth {
    pub particles: Particles,
    /// Particle i's links are `links[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<u32>,
    pub links: Vec<Link>,
    /// Grid size (particles along the two edges).
    pub nx: u32,
    pub ny: u32,
}

impl Cloth {
    /// An `nx × ny` grid from `origin` spanning `ex` (along x) and `ey`;
    /// particles for which `pinned(i, j)` holds do not move.
    pub fn grid(
        nx: u32,
        ny: u32,
        origin: Vec3,
        ex: Vec3,
        ey: Vec3,
        pinned: impl Fn(u32, u32) -> bool,
    ) -> Result<Self, ClothError> {
        if nx < 2 || ny < 2 {
            return Err(ClothError::Grid { nx, ny });
        }
        let at = |i: u32, j: u32| {
            origin + ex * (i as f32 / (nx - 1) as f32) + ey * (j as f32 / (ny - 1) as f32)
        };
        let spawn: Vec<Vec4> = (0..ny)
            .flat_map(|j| (0..nx).map(move |i| (i, j)))
            .map(|(i, j)| at(i, j).extend(if pinned(i, j) { 0.0 } else { 1.0 }))
            .collect();
        // Neighbour offsets of each particle: stretch and shear, bending.
        let stretch = [
            (1, 0),
            (-1, 0),
            (0, 1),
            (0, -1),
            (1, 1),
            (-1, -1),
            (1, -1),
            (-1, 1),
        ];
        let bend = [(2, 0), (-2, 0), (0, 2), (0, -2)];
        let (mut offsets, mut links) = (vec![0u32], Vec::new());
        for j in 0..ny as i32 {
            for i in 0..nx as i32 {
                let kinds = stretch
                    .iter()
                    .map(|d| (d, LINK_STRETCH))
                    .chain(bend.iter().map(|d| (d, LINK_BEND)));
                for (&(di, dj), kind) in kinds {
                    let (oi, oj) = (i + di, j + dj);
                    if oi < 0 || oj < 0 || oi >= nx as i32 || oj >= ny as i32 {
                        continue;
                    }
                    let rest = (at(oi as u32, oj as u32) - at(i as u32, j as u32)).length();
                    links.push(Link {
                        other: oj as u32 * nx + oi as u32,
                        rest,
                        kind,
                        _pad: 0,
                    });
                }
                offsets.push(links.len() as u32);
            }
        }
        Ok(Cloth {
            particles: Particles::at(spawn),
            offsets,
            links,
            nx,
            ny,
        })
    }

    /// Triangle indices of the grid (two per quad), for drawing.
    pub fn triangles(&self) -> Vec<[u32; 3]> {
        let nx = self.nx;
        (0..self.ny - 1)
            .flat_map(|j| (0..nx - 1).map(move |i| j * nx + i))
            .flat_map(|a| [[a, a + 1, a + nx + 1], [a, a + nx + 1, a + nx]])
            .collect()
    }

    /// One Jacobi projection of every constraint: `src` → the result.
    pub fn project(&self, src: &[Vec4], params: &ClothParams) -> Vec<Vec4> {
        (0..src.len())
            .map(|i| {
                let p = src[i];
                let links = &self.links[self.offsets[i] as usize..self.offsets[i + 1] as usize];
                if p.w == 0.0 || links.is_empty() {
                    return p;
                }
                let mut sum = Vec3::ZERO;
                for link in links {
                    let o = src[link.other as usize];
                    let total = p.w + o.w;
                    let d = o.truncate() - p.truncate();
                    let len = d.length();
                    if len > 0.0 {
                        let k = if link.kind == LINK_BEND {
                            params.bend
                        } else {
                            params.stretch
                        };
                        sum += d / len * (k * (p.w / total) * (len - link.rest));
                    }
                }
                (p.truncate() + sum / links.len() as f32).extend(p.w)
            })
            .collect()
    }

    /// One whole step against `fields`.
    pub fn step(
        &mut self,
        fields: &FieldSet,
        step: &StepParams,
        params: &ClothParams,
    ) -> Result<(), ClothError> {
        fields.validate()?;
        step.collide.validate()?;
        params.validate()?;
        self.particles.predict(step);
        for _ in 0..params.iterations {
            self.particles.pred = self.project(&self.particles.pred, params);
        }
        self.particles.collide(fields, &step.collide);
        self.particles.update(step);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::radial::fields::{surface, to_field};
    use crate::stages::radial::{BoneFrame, FieldFrameGpu};

    fn no_fields() -> FieldSet {
        FieldSet::fixed(vec![], vec![], vec![])
    }

    #[test]
    fn the_grid_links_each_constraint_from_both_ends() {
        let cloth =
            Cloth::grid(4, 3, Vec3::ZERO, Vec3::X * 3.0, Vec3::Z * 2.0, |_, _| false).unwrap();
        assert_eq!(cloth.offsets.len(), 13);
        assert_eq!(cloth.triangles().len(), 12);
        for i in 0..12 {
            for l in &cloth.links[cloth.offsets[i] as usize..cloth.offsets[i + 1] as usize] {
                let j = l.other as usize;
                let back = &cloth.links[cloth.offsets[j] as usize..cloth.offsets[j + 1] as usize];
                assert!(
                    back.iter().any(|b| b.other == i as u32 && b.rest == l.rest),
                    "{i}–{j}"
                );
            }
        }
        // Corner (0, 0): 3 stretch/shear and 2 bending links.
        assert_eq!(cloth.offsets[1], 5);
        assert!(Cloth::grid(1, 5, Vec3::ZERO, Vec3::X, Vec3::Z, |_, _| false).is_err());
    }

    #[test]
    fn a_hanging_cloth_keeps_its_length() {
        // Pinned along its top edge, hanging in the x–y plane.
        let mut cloth =
            Cloth::grid(8, 8, Vec3::ZERO, Vec3::X, Vec3::Y * -1.0, |_, j| j == 0).unwrap();
        let step = StepParams::default();
        let params = ClothParams {
            iterations: 32,
            ..ClothParams::default()
        };
        for _ in 0..200 {
            cloth.step(&no_fields(), &step, &params).unwrap();
        }
        let pos = &cloth.particles.pos;
        assert_eq!(pos[3], cloth.particles.spawn[3], "pinned particles stay");
        for (i, p) in pos.iter().enumerate() {
            for l in &cloth.links[cloth.offsets[i] as usize..cloth.offsets[i + 1] as usize] {
                if l.kind == LINK_STRETCH {
                    let len = (pos[l.other as usize] - *p).truncate().length();
                    assert!(
                        (len - l.rest).abs() < 0.15 * l.rest,
                        "{i}–{}: {len} vs {}",
                        l.other,
                        l.rest
                    );
                }
            }
        }
        let bottom = pos[63].y;
        assert!(bottom < -0.9 && bottom > -1.15, "bottom at {bottom}");
    }

    #[test]
    fn cloth_draped_on_a_cylinder_stays_outside() {
        let r = 0.25;
        let frame =
            BoneFrame::new(Vec3::new(0.0, 0.0, -1.0), Vec3::new(0.0, 0.0, 1.0), Vec3::Y).unwrap();
        let f = FieldFrameGpu::new(&frame, 64, 16, 0);
        let fields = FieldSet::fixed(vec![f], vec![0.4], vec![r; 64 * 16]);
        let mut cloth = Cloth::grid(
            16,
            16,
            Vec3::new(-0.6, 0.4, -0.6),
            Vec3::X * 1.2,
            Vec3::Z * 1.2,
            |_, _| false,
        )
        .unwrap();
        let step = StepParams::default();
        for _ in 0..90 {
            cloth.step(&fields, &step, &ClothParams::default()).unwrap();
        }
        let pos = &cloth.particles.pos;
        for (i, p) in pos.iter().enumerate() {
            let s = to_field(&f, p.truncate());
            if let Some(plane) = surface(&f, &fields.values, s) {
                assert!(plane.distance(s) > -1e-3, "particle {i} inside: {p}");
            }
        }
        let lowest = pos.iter().map(|p| p.y).fold(f32::MAX, f32::min);
        let top = pos.iter().map(|p| p.y).fold(f32::MIN, f32::max);
        assert!(lowest < -0.1, "the cloth hangs over the sides ({lowest})");
        assert!((top - r).abs() < 0.02, "and rests on top ({top})");
    }

    #[test]
    fn bad_parameters_are_named() {
        let p = ClothParams {
            bend: 2.0,
            ..ClothParams::default()
        };
        assert_eq!(
            p.validate(),
            Err(ClothError::Stiffness {
                name: "bend",
                value: 2.0
            })
        );
        let p = ClothParams {
            iterations: 0,
            ..ClothParams::default()
        };
        assert_eq!(p.validate(), Err(ClothError::Iterations(0)));
    }
}
