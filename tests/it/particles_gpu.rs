//! The particle stage's GPU path (compute + point rendering into impact
//! maps + asynchronous read-back) against the CPU reference, on the sample
//! hail scene.

use crate::common;

use std::collections::HashMap;

use collidoscope::stages::particles::gpu::{GpuScene, ParticlesGpu};
use collidoscope::stages::particles::points::{LivePoints, PointsGpu};
use collidoscope::stages::particles::ring::{FrameResult, FrameRing, Window};
use collidoscope::stages::particles::{Backend, Event, ParticleParams, ParticleScene, Particles};

fn hail(count: u64) -> ParticleScene {
    let text = include_str!("../../assets/hail.json");
    ParticleScene::from_json(text, "hail.json")
        .unwrap()
        .with_particle_count(count)
}

type Key = (u32, u32, u32);

fn by_flight(events: &[Event]) -> HashMap<Key, &Event> {
    events
        .iter()
        .map(|e| ((e.start.particle, e.start.generation, e.start.flight), e))
        .collect()
}

#[test]
fn gpu_events_and_maps_match_the_cpu_reference() {
    let ctx = common::gpu();
    let state = Particles::gpu(&ctx).unwrap();
    let scene = hail(3000);
    let params = ParticleParams {
        frames: 36,
        dt: 1.0 / 30.0,
        start: 0.0,
        map_res: 32,
        flights: true,
    };
    let [cpu, gpu] = common::run_each([Backend::Cpu, Backend::Gpu], |b, p| {
        Particles::run(&scene, &params, b, Some(&state), p)
    });
    assert!(cpu.events.len() > 300, "{} CPU events", cpu.events.len());
    let stream = gpu.stream.unwrap();
    assert!(
        stream.reruns > 0 || stream.max_latency_frames <= 3,
        "{stream:?}"
    );

    // Every GPU map counts exactly the GPU's events of its collider.
    for (c, m) in gpu.maps.iter().enumerate() {
        let n = gpu.events.iter().filter(|e| e.collider == c as u32).count() as u64;
        assert_eq!(m.total(), n, "GPU collider {c}: map counts vs events");
    }

    // Events: the same flights hit the same colliders at the same time and
    // place, but for f32 rounding at a window's or life's edge or a graze.
    let (c_map, g_map) = (by_flight(&cpu.events), by_flight(&gpu.events));
    let mut unmatched = Vec::new();
    for (k, c) in &c_map {
        match g_map.get(k) {
            None => unmatched.push(format!(
                "CPU event of particle {} gen {} flight {} (t = {:.6}) missing on the GPU",
                k.0, k.1, k.2, c.t
            )),
            Some(g) => {
                let close = g.collider == c.collider
                    && (g.t - c.t).abs() < 2e-4
                    && (g.p - c.p).length() < 2e-3
                    && (g.n - c.n).length() < 1e-2
                    && (g.speed - c.speed).abs() < 1e-3 * c.speed.max(1.0);
                if !close {
                    unmatched.push(format!(
                        "particle {} gen {} flight {}: CPU {c:?} vs GPU {g:?}",
                        k.0, k.1, k.2
                    ));
                }
            }
        }
    }
    unmatched.extend(g_map.keys().filter(|k| !c_map.contains_key(*k)).map(|k| {
        format!(
            "GPU-only event of particle {} gen {} flight {}",
            k.0, k.1, k.2
        )
    }));
    let allowed = cpu.events.len() / 200 + 1;
    assert!(
        unmatched.len() <= allowed,
        "{} of {} events differ (allowed {allowed}); first: {:?}",
        unmatched.len(),
        cpu.events.len(),
        &unmatched[..unmatched.len().min(5)]
    );

    // Flights: same count within the same tolerance.
    let df = cpu.flights.len().abs_diff(gpu.flights.len());
    assert!(
        df <= cpu.flights.len() / 200 + 1,
        "flights: CPU {} GPU {}",
        cpu.flights.len(),
        gpu.flights.len()
    );

    // Maps: texel by texel, counts differ only by the unmatched events and
    // impacts on a texel edge; earliest times and speeds agree where the
    // counts do.
    for (c, (cm, gm)) in cpu.maps.iter().zip(&gpu.maps).enumerate() {
        let diff: u32 = cm
            .count
            .iter()
            .zip(&gm.count)
            .map(|(a, b)| a.abs_diff(*b))
            .sum();
        assert!(
            diff as usize <= 2 * unmatched.len() + cm.total() as usize / 100 + 1,
            "collider {c}: texel counts differ by {diff}"
        );
        for (i, ((&a, &b), (&ta, &tb))) in cm
            .count
            .iter()
            .zip(&gm.count)
            .zip(cm.earliest.iter().zip(&gm.earliest))
            .enumerate()
        {
            if a == b && a > 0 {
                assert!(
                    (ta - tb).abs() < 1e-3,
                    "collider {c} texel {i}: earliest CPU {ta} GPU {tb}"
                );
                let (sa, sb) = (cm.max_speed[i], gm.max_speed[i]);
                assert!(
                    (sa - sb).abs() < 1e-2 * sa.max(1.0),
                    "collider {c} texel {i}: speed CPU {sa} GPU {sb}"
                );
            }
        }
    }
}

#[test]
fn overflowing_windows_run_again_with_room() {
    let ctx = common::gpu();
    let state = Particles::gpu(&ctx).unwrap();
    // Many particles, long frames: far more impacts per window than the
    // first buffers hold.
    let scene = hail(2000);
    let params = ParticleParams {
        frames: 4,
        dt: 0.5,
        start: 0.0,
        map_res: 16,
        flights: false,
    };
    let [cpu, gpu] = common::run_each([Backend::Cpu, Backend::Gpu], |b, p| {
        Particles::run(&scene, &params, b, Some(&state), p)
    });
    assert!(gpu.stream.unwrap().reruns > 0, "{:?}", gpu.stream);
    assert!(
        cpu.events.len().abs_diff(gpu.events.len()) <= cpu.events.len() / 200 + 1,
        "CPU {} GPU {}",
        cpu.events.len(),
        gpu.events.len()
    );
}

#[test]
fn every_phase_is_timed() {
    let ctx = common::gpu();
    let state = Particles::gpu(&ctx).unwrap();
    let params = ParticleParams {
        frames: 12,
        dt: 1.0 / 30.0,
        start: 0.5,
        map_res: 32,
        flights: false,
    };
    let [gpu] = common::run_each([Backend::Gpu], |b, p| {
        Particles::run(&hail(3000), &params, b, Some(&state), p)
    });
    assert!(!gpu.events.is_empty());
    let s = gpu.stream.unwrap();
    let p = s.phases;
    assert_eq!(p.windows, 12, "one per window kept: {s:?}");
    assert!(
        (1..=collidoscope::stages::particles::gpu::RING).contains(&s.max_in_flight),
        "{s:?}"
    );
    assert!(
        p.cpu.recording > 0.0 && p.cpu.unpacking > 0.0 && p.decoding_ms > 0.0,
        "{p:?}"
    );
    match p.gpu {
        Some(g) => {
            assert!(ctx.has_timestamps);
            assert!(
                g.scan > 0.0 && g.solve > 0.0 && g.readback_copy > 0.0,
                "{g:?}"
            );
            assert!(g.map_rendering >= 0.0, "{g:?}");
        }
        None => assert!(!ctx.has_timestamps, "timestamps missing: {p:?}"),
    }
    let t = p.timings();
    assert_eq!(t.phases.len(), 7);
    assert_eq!(t.total_gpu_ms().is_some(), ctx.has_timestamps);
}

/// Windows through one ring over `scene`, each drained before the next
/// (so each sees the state its predecessors kept); impacts and flights
/// sorted by particle, generation and flight.
fn windows_on(
    ctx: &collidoscope::gpu::GpuContext,
    pipes: &ParticlesGpu,
    scene: &GpuScene,
    windows: &[Window],
) -> Vec<FrameResult> {
    let mut ring = FrameRing::new(scene, 1 << 14, 1 << 15);
    let mut out = Vec::new();
    for &w in windows {
        ring.submit(ctx, pipes, scene, w, true, &mut out).unwrap();
        out.extend(ring.drain(ctx).unwrap());
    }
    for r in &mut out {
        assert!(!r.overflowed(), "window {:?} overflowed", r.window);
        r.impacts
            .sort_by_key(|i| (i.particle, i.generation, i.flight));
        r.flights
            .sort_by_key(|f| (f.particle, f.generation, f.flight));
    }
    out
}

#[test]
fn kept_state_gives_the_windows_solved_from_birth() {
    let ctx = common::gpu();
    let (_, pipes) = Particles::gpu(&ctx).unwrap();
    let scene = hail(3000);
    let n = scene.particle_count() as u32;
    let window = |frame: u32| Window {
        frame,
        t_begin: 0.25 + f64::from(frame) / 30.0,
        dt: 1.0 / 30.0,
    };
    // Two lives and more, then a jump back and a repeated window, as the
    // viewer's clock and the overflow reruns do.
    let mut order: Vec<Window> = (0..60).map(window).collect();
    order.extend([window(20), window(21), window(21), window(59)]);
    let warm_scene = GpuScene::new(&ctx, &scene, 32).unwrap();
    let warm = windows_on(&ctx, &pipes, &warm_scene, &order);
    let mut impacts = 0;
    for (k, w) in warm.iter().enumerate() {
        // The same window on a scene with no kept state: every particle
        // listed and solved from birth.
        let cold_scene = GpuScene::new(&ctx, &scene, 32).unwrap();
        let [cold] =
            <[FrameResult; 1]>::try_from(windows_on(&ctx, &pipes, &cold_scene, &[w.window]))
                .unwrap();
        assert_eq!(
            cold.solved, n,
            "a scene's first window solves every particle"
        );
        let at = format!("window {k} ({:?})", w.window);
        assert_eq!(w.impacts, cold.impacts, "{at}: impacts");
        assert_eq!(w.flights, cold.flights, "{at}: flights");
        assert_eq!(w.maps, cold.maps, "{at}: maps");
        impacts += w.impacts.len();
        if (1..60).contains(&k) {
            assert!(
                w.solved < n / 8,
                "{at}: {} of {n} particles solved with the state kept",
                w.solved
            );
        }
    }
    assert!(impacts > 500, "only {impacts} impacts");
}

/// How the impact windows' cover moves before the points at a time are
/// drawn.
#[derive(Clone, Copy, PartialEq)]
enum Cover {
    /// Windows up to the time + look-ahead + one window, as the viewer
    /// submits them.
    Ahead,
    /// None: the state stays where it was.
    Keep,
    /// Windows from the time on, the earlier cover forgotten.
    Restart,
}

/// The live points at `t` from `points` and the particles solved from
/// birth.
fn points_at(
    ctx: &collidoscope::gpu::GpuContext,
    pipes: &PointsGpu,
    points: &LivePoints,
    t: f64,
) -> (Vec<[f32; 4]>, u32) {
    points.evaluate(ctx, pipes, t).unwrap();
    points.read(ctx).unwrap()
}

/// Tolerance of a point from the kept state against the same point solved
/// from birth (coordinates and speed, relative above 1): the kept flight
/// was computed by the windows' shader, the point from birth by the points
/// shader, the same f32 code compiled twice (multiply-adds may fuse
/// differently), and a bounce carries a hit time's rounding into the next
/// flight.
const POINT_TOLERANCE: f32 = 1e-4;

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= POINT_TOLERANCE * a.abs().max(1.0)
}

/// Pairs every point of `got` with a point of `want` equal within
/// [`POINT_TOLERANCE`] (the lists hold the same particles in no particular
/// order); the number of pairs equal bit for bit.
fn assert_same_points(got: &[[f32; 4]], want: &[[f32; 4]], at: &str) -> usize {
    assert_eq!(got.len(), want.len(), "{at}: live particles");
    let mut want = want.to_vec();
    want.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let mut used = vec![false; want.len()];
    let mut exact = 0;
    for g in got {
        let reach = POINT_TOLERANCE * g[0].abs().max(1.0);
        let from = want.partition_point(|w| w[0] < g[0] - reach);
        let to = want.partition_point(|w| w[0] <= g[0] + reach);
        let Some(k) = (from..to).find(|&k| !used[k] && (0..4).all(|c| close(g[c], want[k][c])))
        else {
            let d = |w: &[f32; 4]| (0..3).map(|c| (w[c] - g[c]).powi(2)).sum::<f32>();
            let nearest = want.iter().min_by(|a, b| d(a).total_cmp(&d(b)));
            panic!(
                "{at}: point {g:?} from the kept state is no point solved from birth (nearest {nearest:?})"
            );
        };
        used[k] = true;
        exact += usize::from(*g == want[k]);
    }
    exact
}

#[test]
fn live_points_from_the_kept_state_match_solving_from_birth() {
    let ctx = common::gpu();
    let (_, pipes) = Particles::gpu(&ctx).unwrap();
    let points_gpu = PointsGpu::new(&ctx);
    let scene = hail(3000);
    let n = scene.particle_count() as u32;
    let dt = 1.0 / 30.0;
    // The viewer's order: the windows ahead of the drawn time T by the
    // look-ahead are submitted first, then the points at T are drawn.
    let look_ahead = 2.0 * dt;
    let warm_scene = GpuScene::new(&ctx, &scene, 16).unwrap();
    let warm = LivePoints::new(&ctx, &points_gpu, &warm_scene).unwrap();
    let mut ring = FrameRing::new(&warm_scene, 1 << 14, 1);
    let mut covered: Option<f64> = None;
    let mut frame = 0;
    let (mut shown_from_kept, mut exact, mut drawn) = (0, 0, 0);
    // Two lives and more, a jump back with the state still ahead, then
    // the windows again from the earlier time (the viewer's reset).
    let mut steps: Vec<(f64, Cover)> = (0..60)
        .map(|k| (0.25 + f64::from(k) * dt, Cover::Ahead))
        .collect();
    steps.extend([(0.6, Cover::Keep), (0.6, Cover::Restart)]);
    steps.extend((1..4).map(|k| (0.6 + f64::from(k) * dt, Cover::Ahead)));
    for (k, &(t, cover)) in steps.iter().enumerate() {
        if cover == Cover::Restart {
            covered = None;
        }
        if cover != Cover::Keep {
            let mut from = covered.filter(|&c| c >= t).unwrap_or(t);
            while from + 0.5 * dt < t + look_ahead + dt {
                let w = Window {
                    frame,
                    t_begin: from,
                    dt,
                };
                ring.submit(&ctx, &pipes, &warm_scene, w, false, &mut Vec::new())
                    .unwrap();
                ring.drain(&ctx).unwrap();
                frame += 1;
                from += dt;
            }
            covered = Some(from);
        }
        let (got, from_birth) = points_at(&ctx, &points_gpu, &warm, t);
        // The same time on a scene with no kept state: every particle
        // solved from birth.
        let cold_scene = GpuScene::new(&ctx, &scene, 16).unwrap();
        let cold = LivePoints::new(&ctx, &points_gpu, &cold_scene).unwrap();
        let (want, cold_from_birth) = points_at(&ctx, &points_gpu, &cold, t);
        assert_eq!(cold_from_birth, n, "t = {t}: no state, all from birth");
        assert!(want.len() as u32 > n / 2, "t = {t}: {} live", want.len());
        exact += assert_same_points(&got, &want, &format!("frame {k}, t = {t}"));
        drawn += got.len();
        if cover == Cover::Keep {
            assert!(from_birth > 0, "t = {t}: the kept flights start after it");
        } else if k > 0 {
            assert!(
                from_birth < n / 4,
                "frame {k}, t = {t}: {from_birth} of {n} solved from birth with the state kept"
            );
        }
        shown_from_kept += n - from_birth;
    }
    assert!(shown_from_kept > 50 * n, "{shown_from_kept}");
    // Rounding differences are rare (counts in
    // docs/bench/design-measurements.md): almost every point is the same
    // bits.
    assert!(
        exact * 100 > drawn * 99,
        "{exact} of {drawn} points bit for bit"
    );
}
