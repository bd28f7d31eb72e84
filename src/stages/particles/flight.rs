//! Closed-form flights (eq. 3.4, 3.7), periodic lives and the bounce chain
//! (§3.2.1, §3.3).
//!
//! **Lives.** Particle i of an emitter with lifetime L lives periodically
//! with a phase φᵢ ∈ [0, 1) drawn from its hash: at time t it is in
//! generation g = ⌊t/L + φᵢ⌋, born at s_g = (g − φᵢ)·L and dying at s_g + L.
//! The generation count keys a hash (PCG, Jarzynski & Olano 2020) that
//! jitters the start position and velocity, so a particle's whole history
//! is a function of (seed, i, t): nothing is stored or updated, and the
//! shader evaluates exactly the same numbers (the start conditions are
//! made in f32, as on the GPU).
//!
//! **Chains.** A flight starts at (t₀, p₀, v₀) and moves as
//! p₀ + v₀τ + ½aτ² (a = g for order 2, 0 for order 1). It ends at the
//! earliest accepted sign change of h(τ) over all colliders (ties: the
//! lower collider id), or when the life ends. At a hit with bounces left, a
//! new flight starts at the hit with the velocity reflected about the
//! normal and its normal part scaled by the restitution e:
//! v′ = v − (1 + e)(v·n)n (§3.3.2, "recomputed with the new parameters").
//! Its start lies on the collider it left, so that collider's h has the
//! exact root τ = 0: we drop it by deflation, h(τ)/τ, instead of nudging
//! the start off the surface — no tolerance, and a particle can still
//! come back to the same collider (a ball falling back onto a roof).

use glam::{DVec3, Vec3};

use super::collider::Collider;
use super::poly::first_crossing;
use super::scene::{Emitter, Order, ParticleScene};

/// PCG hash (Jarzynski & Olano, "Hash functions for GPU rendering", 2020).
pub(crate) fn pcg(v: u32) -> u32 {
    let state = v.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
    (word >> 22) ^ word
}

/// A hash's top 24 bits as a float in [0, 1).
pub fn unit(h: u32) -> f32 {
    (h >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// A particle's key: the hash of its emitter's seed and its index there.
pub(crate) fn particle_key(seed: u32, index: u32) -> u32 {
    pcg(pcg(seed) ^ index)
}

/// The phase φ of a particle's life, in [0, 1).
pub fn phase(key: u32) -> f64 {
    f64::from(unit(key))
}

/// The generation alive at time `t`.
pub(crate) fn generation_at(t: f64, lifetime: f64, phase: f64) -> i64 {
    (t / lifetime + phase).floor() as i64
}

/// The birth time of generation `g`.
pub fn birth(g: i64, lifetime: f64, phase: f64) -> f64 {
    (g as f64 - phase) * lifetime
}

/// Start position and velocity of generation `g`, in f32 like the shader.
pub(crate) fn start_conditions(e: &Emitter, key: u32, g: u32) -> (Vec3, Vec3) {
    let gk = pcg(key ^ pcg(g));
    let r = |k: u32| 2.0 * unit(pcg(gk.wrapping_add(k))) - 1.0;
    let jitter = |k: u32| Vec3::new(r(k), r(k + 1), r(k + 2));
    let pos = e.position.as_vec3() + e.position_jitter as f32 * jitter(0);
    let vel = e.velocity.as_vec3() + e.velocity_jitter as f32 * jitter(3);
    (pos, vel)
}

/// One closed-form flight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flight {
    /// Start time (global).
    pub t0: f64,
    pub p0: DVec3,
    pub v0: DVec3,
    pub acc: DVec3,
    /// When the life ends (global).
    pub end: f64,
    /// Bounce index: 0 for the flight from birth.
    pub index: u32,
    /// The collider this flight starts on (after a bounce).
    pub from: Option<u32>,
}

impl Flight {
    pub fn position(&self, tau: f64) -> DVec3 {
        self.p0 + self.v0 * tau + 0.5 * self.acc * tau * tau
    }

    pub fn velocity(&self, tau: f64) -> DVec3 {
        self.v0 + self.acc * tau
    }
}

/// Where and how a flight hits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub collider: u32,
    /// Global time.
    pub t: f64,
    pub p: DVec3,
    /// Unit, facing the incoming particle.
    pub n: DVec3,
    pub v: DVec3,
}

/// The first accepted crossing of `c` by `f` in (0, end − t0].
pub(crate) fn hit_time(c: &Collider, id: u32, f: &Flight) -> Option<f64> {
    let mut h = c.poly(f.p0, f.v0, f.acc);
    if f.from == Some(id) {
        // The start is on this surface: deflate the root τ = 0.
        h = [h[1], h[2], h[3], h[4], 0.0];
    }
    first_crossing(&h, 0.0, f.end - f.t0, |tau| c.accepts(f.position(tau)))
}

/// The earliest hit of `f` over all colliders.
pub(crate) fn earliest_hit(colliders: &[Collider], f: &Flight) -> Option<Hit> {
    let mut best: Option<(f64, u32)> = None;
    for (id, c) in colliders.iter().enumerate() {
        if let Some(tau) = hit_time(c, id as u32, f)
            && best.is_none_or(|(b, _)| tau < b)
        {
            best = Some((tau, id as u32));
        }
    }
    best.map(|(tau, id)| {
        let (p, v) = (f.position(tau), f.velocity(tau));
        let g = colliders[id as usize].gradient(p);
        let n = if g.length_squared() > 0.0 {
            g.normalize()
        } else {
            -v.normalize_or_zero()
        };
        Hit {
            collider: id,
            t: f.t0 + tau,
            p,
            n: if n.dot(v) > 0.0 { -n } else { n },
            v,
        }
    })
}

/// The flight after a bounce at `hit`.
pub fn bounce(f: &Flight, hit: &Hit, restitution: f64) -> Flight {
    let vn = hit.v.dot(hit.n);
    Flight {
        t0: hit.t,
        p0: hit.p,
        v0: hit.v - (1.0 + restitution) * vn * hit.n,
        acc: f.acc,
        end: f.end,
        index: f.index + 1,
        from: Some(hit.collider),
    }
}

/// The first flight of generation `g` of particle `index` of `e`.
pub(crate) fn first_flight(scene: &ParticleScene, e: &Emitter, index: u32, g: u32) -> Flight {
    let key = particle_key(e.seed, index);
    let (p, v) = start_conditions(e, key, g);
    let t0 = birth(i64::from(g), e.lifetime, phase(key));
    Flight {
        t0,
        p0: p.as_dvec3(),
        v0: v.as_dvec3(),
        acc: match e.order {
            Order::First => DVec3::ZERO,
            Order::Second => scene.gravity,
        },
        end: t0 + e.lifetime,
        index: 0,
        from: None,
    }
}

/// Every flight of one life with the hit that ends it (up to
/// `scene.bounces` bounces; after the last hit the particle is eliminated,
/// §3.3.1).
pub fn chain(
    scene: &ParticleScene,
    colliders: &[Collider],
    first: Flight,
) -> Vec<(Flight, Option<Hit>)> {
    let mut out = Vec::new();
    let mut f = first;
    loop {
        let hit = earliest_hit(colliders, &f);
        out.push((f, hit));
        match hit {
            Some(h) if f.index < scene.bounces => f = bounce(&f, &h, scene.restitution),
            _ => return out,
        }
    }
}
