//! The CPU reference: every particle's lives overlapping the run, each
//! life's flight chain solved in f64 ([`super::flight::chain`]), impacts
//! sorted into frames and rasterised into the maps. Rayon over particles.

use rayon::prelude::*;

use super::collider::Collider;
use super::flight::{birth, chain, first_flight, generation_at, particle_key, phase};
use super::map::ImpactMap;
use super::{Event, FlightRecord, FlightStart, ParticleParams, ParticleScene, RunOutputs};

/// Events (sorted by frame, particle, generation, flight), flights started
/// in the run when asked (same order) and the maps of the whole run.
pub fn simulate(scene: &ParticleScene, params: &ParticleParams) -> RunOutputs {
    let colliders: Vec<Collider> = scene.colliders.iter().map(Collider::new).collect();
    let (t_begin, t_end) = params.span();
    let frame_of =
        |t: f64| (((t - t_begin) / params.dt).floor().max(0.0) as u32).min(params.frames - 1);
    let mut offset = 0u32;
    let mut events = Vec::new();
    let mut flights = Vec::new();
    for e in &scene.emitters {
        let per_particle: Vec<(Vec<Event>, Vec<FlightRecord>)> = (0..e.count)
            .into_par_iter()
            .map(|i| {
                let mut ev = Vec::new();
                let mut fl = Vec::new();
                let phi = phase(particle_key(e.seed, i));
                let mut g = generation_at(t_begin, e.lifetime, phi).max(0);
                while birth(g, e.lifetime, phi) < t_end {
                    let first = first_flight(scene, e, i, g as u32);
                    for (f, hit) in chain(scene, &colliders, first) {
                        let start = FlightStart {
                            particle: offset + i,
                            generation: g as u32,
                            flight: f.index,
                            t0: f.t0,
                            p0: f.p0,
                            v0: f.v0,
                        };
                        if params.flights && (t_begin..t_end).contains(&f.t0) {
                            fl.push(FlightRecord {
                                frame: frame_of(f.t0),
                                start,
                                hit: hit.map_or(-1, |h| h.collider as i32),
                            });
                        }
                        if let Some(h) = hit.filter(|h| (t_begin..t_end).contains(&h.t)) {
                            ev.push(Event {
                                frame: frame_of(h.t),
                                start,
                                collider: h.collider,
                                t: h.t,
                                p: h.p,
                                n: h.n,
                                speed: h.v.length(),
                            });
                        }
                    }
                    g += 1;
                }
                (ev, fl)
            })
            .collect();
        for (ev, fl) in per_particle {
            events.extend(ev);
            flights.extend(fl);
        }
        offset += e.count;
    }
    events.sort_by_key(|e| e.key());
    let maps = rasterise(&colliders, &events, params.map_res);
    (events, flights, maps)
}

/// The impact maps of `events` (global times).
pub fn rasterise(colliders: &[Collider], events: &[Event], res: u32) -> Vec<ImpactMap> {
    let mut maps = vec![ImpactMap::new(res); colliders.len()];
    for e in events {
        let c = e.collider as usize;
        maps[c].add(
            colliders[c].map.texel(e.p, res),
            1,
            e.t as f32,
            e.speed as f32,
        );
    }
    maps
}
