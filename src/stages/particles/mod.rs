//! Closed-form particles against implicit colliders, and impact maps
//! (Knott 2003, "CInDeR", chapter 3).
//!
//! # Method
//!
//! * **Particles** (§3.2.1) have periodic lives; a hash of the generation
//!   count varies each life's start position and velocity, so a particle's
//!   state at any time is a function of time alone ([`flight`]). Flights
//!   are of order 1 (p₀ + v₀τ, eq. 3.7) or 2 (p₀ + v₀τ + ½gτ², eq. 3.4).
//! * **Colliders** (§3.2.2–3.2.4) are implicit surfaces f(p) = pᵀQp with
//!   constraints c(p) > 0: planes (eq. 3.5) bounded to rectangles or discs,
//!   and quadrics (eq. 3.8) — sphere, ellipsoid, cylinder, cone, or any Q —
//!   bounded by slabs ([`collider`]).
//! * **The hit** (eq. 3.3, 3.6, 3.9) is the first sign change of the
//!   polynomial h(τ) = f(g(τ)) of degree ≤ 4 whose point meets the
//!   constraints, solved in closed form and robustly for grazing paths
//!   (`poly` says how); the earliest over all colliders wins.
//! * **Response** (§3.3): with `bounces` = 0 a particle is eliminated at its
//!   first impact (§3.3.1); otherwise up to `bounces` times it starts a new
//!   closed-form flight from the hit with its velocity reflected and its
//!   normal part scaled by the restitution (§3.3.2).
//! * **Impact maps** (§3.4): each collider's surface has a 2D
//!   parameterisation; each impact adds to one texel its count, the
//!   earliest time and the largest speed ([`map`]).
//! * **Time per phase** ([`phases`]): GPU timestamps for evaluation, map
//!   rendering and the read-back copy; CPU time for recording, read-back
//!   waits and decoding.
//!
//! A run covers `frames` windows [start + k·dt, start + (k+1)·dt): an impact
//! belongs to the window holding its time, a flight to the window holding
//! its start. The CPU reference ([`cpu`]) solves every life overlapping
//! the run in f64.

pub mod collider;
pub mod cpu;
pub mod flight;
pub mod gpu;
pub mod map;
pub mod phases;
pub mod points;
pub(crate) mod poly;
pub mod ring;
pub mod scene;
pub mod stream;

pub use map::ImpactMap;
pub use scene::ParticleScene;

use glam::DVec3;

use crate::gpu::GpuContext;
use crate::progress::Progress;

/// Largest impact-map side.
pub const MAX_MAP_RES: u32 = 4096;

/// Most frame windows in one run. Every window is listed before the run
/// starts and gets its own events, so the count is bounded before anything
/// is allocated.
pub const MAX_FRAMES: u32 = 1_000_000;

/// Most lives one particle may start during a run (the run's span over its
/// emitter's lifetime). Both backends visit every life of every particle,
/// so a lifetime far shorter than the run would keep them busy for ever.
pub const MAX_LIVES_PER_PARTICLE: f64 = 1e6;
/// Lives the GPU evaluates per particle per window (`MAX_LIVES` of
/// shaders/shared/particles.wgsl), past the first.
pub const GPU_MAX_LIVES: u32 = 64;

/// Refuses a GPU run whose windows would span more lives of a particle
/// than the GPU evaluates ([`GPU_MAX_LIVES`]): the lives past them would
/// be dropped with their impacts. A window of `dt` overlaps at most
/// `⌈dt / lifetime⌉ + 1` lives; one lifetime of margin covers the f32
/// rounding of the generation count.
pub fn check_gpu_lives(
    scene: &ParticleScene,
    params: &ParticleParams,
) -> Result<(), ParticleError> {
    let most = f64::from(GPU_MAX_LIVES - 1);
    for (i, e) in scene.emitters.iter().enumerate() {
        let lives = params.dt / e.lifetime;
        if e.count > 0 && lives > most {
            return Err(ParticleError::Params(format!(
                "a window of dt = {} s spans {lives:.0} lifetimes of emitters[{i}] (lifetime {} s); the GPU evaluates at most {most} per particle per window and would drop the rest: use dt <= {} s or the cpu backend",
                params.dt,
                e.lifetime,
                most * e.lifetime
            )));
        }
    }
    Ok(())
}

/// Errors of the particle stage. Each message is one readable line.
#[derive(Debug, thiserror::Error)]
pub enum ParticleError {
    /// A scene file that does not parse or check; names the field.
    #[error("{0}")]
    Scene(String),
    #[error("invalid parameter: {0}")]
    Params(String),
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
}

/// What one run computes.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ParticleParams {
    /// Number of frame windows (≥ 1).
    pub frames: u32,
    /// Window length, seconds (> 0).
    pub dt: f64,
    /// Start of the first window, seconds (≥ 0).
    pub start: f64,
    /// Impact-map side, texels.
    pub map_res: u32,
    /// Also list the flights started in the run.
    pub flights: bool,
}

impl Default for ParticleParams {
    fn default() -> Self {
        ParticleParams {
            frames: 60,
            dt: 1.0 / 60.0,
            start: 0.0,
            map_res: 256,
            flights: false,
        }
    }
}

impl ParticleParams {
    pub fn validate(&self) -> Result<(), ParticleError> {
        let bad = |m: String| Err(ParticleError::Params(m));
        if self.frames == 0 {
            return bad("frames is 0; at least one frame".into());
        }
        if self.frames > MAX_FRAMES {
            return bad(format!(
                "frames is {}; a run is at most {MAX_FRAMES} frames",
                self.frames
            ));
        }
        if !(self.dt.is_finite() && self.dt > 0.0) {
            return bad(format!("dt is {}; it must be finite and > 0", self.dt));
        }
        if !(self.start.is_finite() && self.start >= 0.0) {
            return bad(format!(
                "start is {}; it must be finite and >= 0",
                self.start
            ));
        }
        if self.map_res == 0 || self.map_res > MAX_MAP_RES {
            return bad(format!(
                "map resolution is {}; it must be in 1..={MAX_MAP_RES}",
                self.map_res
            ));
        }
        Ok(())
    }

    /// [`Self::validate`], and that no particle of `scene` starts more than
    /// [`MAX_LIVES_PER_PARTICLE`] lives during the run.
    pub fn validate_for(&self, scene: &ParticleScene) -> Result<(), ParticleError> {
        self.validate()?;
        let (begin, end) = self.span();
        for (i, e) in scene.emitters.iter().enumerate() {
            // Lives overlapping [begin, end): the span over the lifetime,
            // plus the one alive at the start.
            let lives = (end - begin) / e.lifetime + 1.0;
            if lives.is_nan() || lives > MAX_LIVES_PER_PARTICLE {
                return Err(ParticleError::Params(format!(
                    "emitters[{i}]: a lifetime of {} s over a run of {} s gives {lives:.3e} lives per particle, over the limit of {MAX_LIVES_PER_PARTICLE:e}; lengthen the lifetime or shorten the run (fewer frames or a smaller dt)",
                    e.lifetime,
                    end - begin
                )));
            }
        }
        Ok(())
    }

    /// The run's time span [begin, end).
    pub fn span(&self) -> (f64, f64) {
        (self.start, self.start + f64::from(self.frames) * self.dt)
    }
}

/// A flight's identity and start conditions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlightStart {
    /// Index over all emitters, in scene order.
    pub particle: u32,
    pub generation: u32,
    /// Bounce index: 0 from birth.
    pub flight: u32,
    pub t0: f64,
    pub p0: DVec3,
    pub v0: DVec3,
}

/// One impact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event {
    pub frame: u32,
    /// The flight that hit.
    pub start: FlightStart,
    pub collider: u32,
    /// Impact time (global), position, unit normal facing the particle and speed.
    pub t: f64,
    pub p: DVec3,
    pub n: DVec3,
    pub speed: f64,
}

impl Event {
    /// The order events are listed in.
    pub fn key(&self) -> (u32, u32, u32, u32) {
        (
            self.frame,
            self.start.particle,
            self.start.generation,
            self.start.flight,
        )
    }
}

/// One flight started in the run, with the collider that ends it (−1: none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlightRecord {
    pub frame: u32,
    pub start: FlightStart,
    pub hit: i32,
}

/// Events, flights and maps of a run, as both backends return them.
pub type RunOutputs = (Vec<Event>, Vec<FlightRecord>, Vec<ImpactMap>);

crate::stages::backend::backends! {
    /// Which implementation answers.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum Backend {
        /// f64 on all cores ([`cpu`]).
        Cpu { name: "cpu", gpu: false },
        /// f32 compute + render pipelines, windows streamed ([`gpu`], [`stream`]).
        Gpu { name: "gpu", gpu: true },
    }
}

/// The answer of a run.
#[derive(Clone, Debug)]
pub struct ParticleRun {
    /// Sorted by frame, particle, generation, flight.
    pub events: Vec<Event>,
    /// Flights started in the run (when asked), same order.
    pub flights: Vec<FlightRecord>,
    /// One per collider, over the whole run (global earliest times).
    pub maps: Vec<ImpactMap>,
    pub backend: Backend,
    /// The GPU's frames in flight; `None` on the CPU.
    pub stream: Option<stream::StreamStats>,
    pub wall_ms: f64,
}

/// The stage's marker type.
pub struct Particles;

impl Particles {
    /// The stage's GPU state on this device (create it once).
    pub fn gpu(ctx: &GpuContext) -> Result<(GpuContext, gpu::ParticlesGpu), ParticleError> {
        Ok((ctx.clone(), gpu::ParticlesGpu::new(ctx)?))
    }

    /// Not interruptible: `progress` is not used.
    pub fn run(
        scene: &ParticleScene,
        params: &ParticleParams,
        backend: Backend,
        gpu_state: Option<&(GpuContext, gpu::ParticlesGpu)>,
        _progress: &Progress,
    ) -> Result<ParticleRun, ParticleError> {
        params.validate_for(scene)?;
        let started = std::time::Instant::now();
        let (events, flights, maps, stream) = match backend {
            Backend::Cpu => {
                let (e, f, m) = cpu::simulate(scene, params);
                (e, f, m, None)
            }
            Backend::Gpu => {
                check_gpu_lives(scene, params)?;
                let (ctx, pipes) = gpu_state.ok_or_else(crate::stages::no_gpu)?;
                let ((e, f, m), s) = stream::simulate(ctx, pipes, scene, params)?;
                (e, f, m, Some(s))
            }
        };
        Ok(ParticleRun {
            events,
            flights,
            maps,
            backend,
            stream,
            wall_ms: started.elapsed().as_secs_f64() * 1e3,
        })
    }
}

#[cfg(test)]
mod tests;
