//! Position-based particles colliding with radial fields, on the CPU: the
//! reference `shaders/radial_particles.wgsl` mirrors, and the free
//! particle stream that falls on the character (Friston & Steed 2019, §6,
//! §8).
//!
//! A step (fixed dt) is the PBD loop of §8 without constraints:
//!
//! 1. **predict**: `v += g·dt`, `q₁ = q + v·dt` (pinned particles, inverse
//!    mass 0, stay where they are);
//! 2. **collide**: q₁ moved out of the fields (`super::collide`);
//! 3. **update**: `v = damping·(q₁ − q)/dt`, `q = q₁`. A particle that
//!    falls below `floor` starts again from its spawn point, at rest, so a
//!    stream keeps falling.
//!
//! The cloth ([`super::cloth`]) runs its constraints between 1 and 2.

use glam::{Vec3, Vec4};

use super::collide::{CollideParams, NO_CONTACT, collide_particle};
use super::fields::{FieldSet, FieldSetError};

/// Parameters of one step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepParams {
    pub dt: f32,
    pub gravity: Vec3,
    /// Particles below this height respawn; `f32::MIN` for never.
    pub floor: f32,
    /// Velocity kept per step (1 = no damping).
    pub damping: f32,
    pub collide: CollideParams,
}

impl Default for StepParams {
    fn default() -> Self {
        StepParams {
            dt: 1.0 / 60.0,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            floor: f32::MIN,
            damping: 1.0,
            collide: CollideParams::default(),
        }
    }
}

/// Particle state as the GPU holds it: positions and predictions as
/// (x, y, z, inverse mass), velocities, spawn points and the field each
/// particle last touched.
#[derive(Debug, Clone, PartialEq)]
pub struct Particles {
    pub pos: Vec<Vec4>,
    pub pred: Vec<Vec4>,
    pub vel: Vec<Vec3>,
    pub spawn: Vec<Vec4>,
    /// Field index of the last contact, [`NO_CONTACT`] if none.
    pub contacts: Vec<u32>,
}

impl Particles {
    /// Particles at rest at `spawn` (w = inverse mass).
    pub fn at(spawn: Vec<Vec4>) -> Self {
        let n = spawn.len();
        Particles {
            pos: spawn.clone(),
            pred: spawn.clone(),
            vel: vec![Vec3::ZERO; n],
            spawn,
            contacts: vec![NO_CONTACT; n],
        }
    }

    pub fn len(&self) -> usize {
        self.pos.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    /// Step 1, predict.
    pub fn predict(&mut self, params: &StepParams) {
        for i in 0..self.len() {
            let p = self.pos[i];
            if p.w == 0.0 {
                self.pred[i] = p;
                continue;
            }
            let v = self.vel[i] + params.gravity * params.dt;
            self.vel[i] = v;
            self.pred[i] = (p.truncate() + v * params.dt).extend(p.w);
        }
    }

    /// Step 2, collide with `fields`.
    pub fn collide(&mut self, fields: &FieldSet, params: &CollideParams) {
        for i in 0..self.len() {
            let (q, q1) = (self.pos[i], self.pred[i]);
            if q.w == 0.0 {
                self.contacts[i] = NO_CONTACT;
                continue;
            }
            let c = collide_particle(fields, params, q.truncate(), q1.truncate());
            self.pred[i] = c.predicted.extend(q1.w);
            self.contacts[i] = c.field;
        }
    }

    /// Step 3, update.
    pub fn update(&mut self, params: &StepParams) {
        for i in 0..self.len() {
            let (q, q1) = (self.pos[i], self.pred[i]);
            if q1.y < params.floor {
                self.pos[i] = self.spawn[i];
                self.pred[i] = self.spawn[i];
                self.vel[i] = Vec3::ZERO;
                continue;
            }
            self.vel[i] = (q1.truncate() - q.truncate()) / params.dt * params.damping;
            self.pos[i] = q1;
        }
    }

    /// One whole step against `fields`.
    pub fn step(&mut self, fields: &FieldSet, params: &StepParams) -> Result<(), FieldSetError> {
        fields.validate()?;
        params.collide.validate()?;
        self.predict(params);
        self.collide(fields, &params.collide);
        self.update(params);
        Ok(())
    }
}

/// Spawn points of a stream of `count` particles falling from a disc of
/// radius `spread` around `centre`, staggered in height over `depth` so
/// they arrive one after another (a golden-angle spiral: even cover,
/// deterministic).
pub fn stream(count: usize, centre: Vec3, spread: f32, depth: f32) -> Vec<Vec4> {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    (0..count)
        .map(|i| {
            let t = (i as f32 + 0.5) / count.max(1) as f32;
            let r = spread * t.sqrt();
            let a = golden * i as f32;
            let h = depth * ((i * 7919) % count.max(1)) as f32 / count.max(1) as f32;
            (centre + Vec3::new(r * a.cos(), h, r * a.sin())).extend(1.0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::radial::{BoneFrame, FieldFrameGpu};

    #[test]
    fn particles_fall_onto_a_cylinder_and_rest_at_its_radius() {
        let r = 0.3;
        let frame =
            BoneFrame::new(Vec3::new(0.0, 0.0, -1.0), Vec3::new(0.0, 0.0, 1.0), Vec3::Y).unwrap();
        let f = FieldFrameGpu::new(&frame, 64, 8, 0);
        let fields = FieldSet::fixed(vec![f], vec![0.5], vec![r; 64 * 8]);
        // Straight above the axis, at several heights.
        let spawn: Vec<Vec4> = (0..8)
            .map(|i| Vec4::new(0.001, 0.5 + 0.1 * i as f32, -0.7 + 0.2 * i as f32, 1.0))
            .collect();
        let mut particles = Particles::at(spawn);
        let params = StepParams {
            floor: -2.0,
            ..StepParams::default()
        };
        for _ in 0..120 {
            particles.step(&fields, &params).unwrap();
        }
        for (i, p) in particles.pos.iter().enumerate() {
            let radial = p.y.hypot(p.x);
            assert!(
                (radial - r).abs() < 2e-3,
                "particle {i} rests at r = {radial}: {p}"
            );
            assert!(p.y > 0.29, "particle {i} stays on top: {p}");
            assert_eq!(particles.contacts[i], 0, "particle {i} touches the field");
        }
    }

    #[test]
    fn particles_below_the_floor_respawn() {
        let fields = FieldSet::fixed(vec![], vec![], vec![]);
        let mut particles = Particles::at(vec![Vec4::new(0.0, 0.0, 0.0, 1.0)]);
        let params = StepParams {
            floor: -0.5,
            ..StepParams::default()
        };
        let mut lowest = f32::MAX;
        for _ in 0..30 {
            particles.step(&fields, &params).unwrap();
            lowest = lowest.min(particles.pos[0].y);
        }
        assert!(lowest > -0.5 && lowest < -0.3, "fell to {lowest}");
        assert!(
            particles.pos[0].y > lowest,
            "it came back up to its spawn point"
        );
    }

    #[test]
    fn a_stream_covers_its_disc() {
        let s = stream(500, Vec3::new(1.0, 2.0, 3.0), 0.5, 1.0);
        assert_eq!(s.len(), 500);
        for p in &s {
            let off = p.truncate() - Vec3::new(1.0, 2.0, 3.0);
            assert!(
                off.x.hypot(off.z) <= 0.5 + 1e-5 && (0.0..1.0).contains(&off.y),
                "{p}"
            );
        }
        let far = s
            .iter()
            .filter(|p| (p.x - 1.0).hypot(p.z - 3.0) > 0.35)
            .count();
        assert!(
            far > 100 && far < 300,
            "{far} of 500 in the outer half of the disc area"
        );
    }
}
