//! A whole run on the GPU: windows streamed through a [`FrameRing`],
//! decoded into events and flights, their maps merged (see [`super::gpu`]'s
//! docs for the frames in flight).

use glam::Vec3;

use super::gpu::{GpuScene, ParticlesGpu};
use super::phases::PhaseTotals;
use super::ring::{FrameResult, FrameRing, Window};
use super::scene::ParticleScene;
use super::{Event, FlightRecord, FlightStart, ImpactMap, ParticleParams, RunOutputs};
use crate::gpu::{GpuContext, GpuError};

/// What the GPU's frames in flight did during a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StreamStats {
    /// Largest read-back latency, in windows submitted meanwhile.
    pub max_latency_frames: u64,
    /// Submissions that waited for a free slot.
    pub stalls: u64,
    /// Windows run again after their buffers overflowed.
    pub reruns: u64,
    /// Mean wall-clock time from submission to arrival.
    pub mean_readback_ms: f64,
    /// Most windows in flight at once (the ring depth used).
    pub max_in_flight: usize,
    /// CPU and GPU time per phase, summed over the windows kept (GPU) and
    /// the whole run (CPU, reruns included).
    pub phases: PhaseTotals,
}

/// Decodes one window's impacts into events and its flights into records
/// (global times in f64).
pub fn decode(r: &FrameResult) -> (Vec<Event>, Vec<FlightRecord>) {
    let w = r.window;
    let v3 = |a: [f32; 3]| Vec3::from_array(a).as_dvec3();
    let start = |particle, generation, flight, t0: f32, p0, v0| FlightStart {
        particle,
        generation,
        flight,
        t0: w.t_begin + f64::from(t0),
        p0: v3(p0),
        v0: v3(v0),
    };
    let events = r
        .impacts
        .iter()
        .map(|i| Event {
            frame: w.frame,
            start: start(i.particle, i.generation, i.flight, i.t0, i.p0, i.v0),
            collider: i.collider,
            t: w.t_begin + f64::from(i.t),
            p: v3(i.p),
            n: v3(i.n),
            speed: f64::from(i.speed),
        })
        .collect();
    let flights = r
        .flights
        .iter()
        .map(|f| FlightRecord {
            frame: w.frame,
            start: start(f.particle, f.generation, f.flight, f.t0, f.p0, f.v0),
            hit: f.hit,
        })
        .collect();
    (events, flights)
}

/// Adds one window's atlas to the run's maps (earliest times made global).
pub(crate) fn merge_maps(maps: &mut [ImpactMap], r: &FrameResult) {
    for (c, map) in maps.iter_mut().enumerate() {
        let n = (map.res * map.res) as usize;
        let at = c * n;
        for k in 0..n {
            let count = r.maps[0][at + k];
            if count > 0.0 {
                let t = r.window.t_begin + f64::from(r.maps[1][at + k]) * r.window.dt;
                map.add(k, count as u32, t as f32, r.maps[2][at + k]);
            }
        }
    }
}

/// The whole run on the GPU: windows streamed through a [`FrameRing`],
/// overflowing windows run again with room for all their impacts.
pub fn simulate(
    gpu: &GpuContext,
    pipes: &ParticlesGpu,
    scene: &ParticleScene,
    params: &ParticleParams,
) -> Result<(RunOutputs, StreamStats), GpuError> {
    let gs = GpuScene::new(gpu, scene, params.map_res)?;
    let n = scene.particle_count() as u32;
    let mut ring = FrameRing::new(&gs, n / 16, if params.flights { n / 8 } else { 1 });
    let mut stats = StreamStats::default();
    let mut results = Vec::new();
    let mut todo: Vec<Window> = (0..params.frames)
        .rev()
        .map(|k| Window {
            frame: k,
            t_begin: params.start + f64::from(k) * params.dt,
            dt: params.dt,
        })
        .collect();
    let mut done = Vec::new();
    while !todo.is_empty() || ring.in_flight() > 0 {
        if let Some(w) = todo.pop() {
            ring.submit(gpu, pipes, &gs, w, params.flights, &mut results)?;
            results.extend(ring.poll(gpu)?);
        } else {
            results.extend(ring.drain(gpu)?);
        }
        for r in results.drain(..) {
            if r.overflowed() {
                ring.capacity = ring.capacity.max(r.impact_count.next_power_of_two());
                ring.flight_capacity = ring.flight_capacity.max(r.flight_count.next_power_of_two());
                stats.reruns += 1;
                todo.push(r.window);
            } else {
                done.push(r);
            }
        }
    }
    stats.stalls = ring.stalls;
    stats.max_in_flight = ring.max_in_flight;
    stats.phases.cpu = ring.cpu;
    let decoding = std::time::Instant::now();
    let mut maps = vec![ImpactMap::new(params.map_res); scene.colliders.len()];
    let mut events = Vec::new();
    let mut flights = Vec::new();
    for r in &done {
        let (e, f) = decode(r);
        events.extend(e);
        flights.extend(f);
        merge_maps(&mut maps, r);
        stats.max_latency_frames = stats.max_latency_frames.max(r.latency_frames);
        stats.mean_readback_ms += r.readback_ms / done.len() as f64;
        stats.phases.add_window(r.gpu_ms);
    }
    events.sort_by_key(|e| e.key());
    flights.sort_by_key(|f| {
        (
            f.frame,
            f.start.particle,
            f.start.generation,
            f.start.flight,
        )
    });
    stats.phases.decoding_ms = decoding.elapsed().as_secs_f64() * 1e3;
    Ok(((events, flights, maps), stats))
}
