//! Timing shared by the benchmarks: a warm-up that brings the GPU out of its
//! idle clocks, then the median of repeated runs.
//!
//! An idle GPU runs at a fraction of its clock. It ramps up under load,
//! but not at once: with runs that keep it busy only part of the time (a
//! field read back between runs, a CPU reference timed just before) it can
//! take seconds to reach its full clock, and drops back after a few
//! seconds of low load, so a fixed short warm-up can leave whole rows of a
//! table measured at a fraction of the clock (observations in
//! `docs/bench/design-measurements.md`). So a GPU measurement first repeats the measured
//! operation for at least [`GPU_WARM_UP`] (which also compiles pipelines
//! and fills caches) and then until [`STEADY_RUNS`] runs in a row agree
//! within [`STEADY_SPREAD`] — the clock has settled — or [`MAX_WARM_UP`]
//! has passed; the timed runs follow at once. Operations that read little
//! back between runs keep the GPU busy and so at its clock.

use std::time::{Duration, Instant};

/// How long a GPU measurement repeats its operation before timing it, at
/// least.
pub const GPU_WARM_UP: Duration = Duration::from_millis(500);
/// ... and at most, if its times do not settle.
pub const MAX_WARM_UP: Duration = Duration::from_secs(6);
/// Consecutive runs whose times must agree ...
pub const STEADY_RUNS: usize = 4;
/// ... within this ratio of the slowest to the fastest.
pub const STEADY_SPREAD: f64 = 1.05;

/// The medians of the timed runs and the last run's result.
pub struct Timed<T> {
    pub last: T,
    pub wall_ms: f64,
    /// `None` when some run had no GPU time (no timestamp queries, or a CPU
    /// backend).
    pub gpu_ms: Option<f64>,
}

/// Runs `run` (which returns its result and its GPU time) `repeats` times
/// (at least once) after a warm-up when `gpu` is set; reports medians.
pub fn timed<T>(
    repeats: usize,
    gpu: bool,
    mut run: impl FnMut() -> anyhow::Result<(T, Option<f64>)>,
) -> anyhow::Result<Timed<T>> {
    if gpu {
        warm_up(|| run().map(|(_, g)| g))?;
    }
    let mut wall = Vec::new();
    let mut gpu_ms = Vec::new();
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        let (result, g) = run()?;
        wall.push(start.elapsed().as_secs_f64() * 1e3);
        gpu_ms.extend(g);
        last = Some(result);
    }
    let runs = wall.len();
    Ok(Timed {
        last: last.expect("at least one run"),
        wall_ms: median(&mut wall),
        gpu_ms: (gpu_ms.len() == runs).then(|| median(&mut gpu_ms)),
    })
}

/// Whole runs timed for the wall-clock column of [`timed_gpu`].
pub const WALL_RUNS: usize = 3;

/// A GPU measurement in two parts: the GPU time from `gpu_run` — the
/// operation's GPU work alone, reading nothing back, so that back-to-back
/// runs keep the GPU at its clock — after a warm-up, median of `repeats`;
/// the wall time and the result from [`WALL_RUNS`] runs of `whole`, the
/// operation end to end.
pub fn timed_gpu<T>(
    repeats: usize,
    mut gpu_run: impl FnMut() -> anyhow::Result<Option<f64>>,
    mut whole: impl FnMut() -> anyhow::Result<T>,
) -> anyhow::Result<Timed<T>> {
    warm_up(&mut gpu_run)?;
    let mut gpu_ms = Vec::new();
    for _ in 0..repeats.max(1) {
        gpu_ms.extend(gpu_run()?);
    }
    let runs = gpu_ms.len();
    let t = timed(WALL_RUNS, false, || Ok((whole()?, None)))?;
    Ok(Timed {
        last: t.last,
        wall_ms: t.wall_ms,
        gpu_ms: (runs == repeats.max(1)).then(|| median(&mut gpu_ms)),
    })
}

/// Repeats `run` (at least once) until [`GPU_WARM_UP`] has passed and its
/// times have settled (see the module docs). `run` returns its GPU time;
/// without one its wall time is watched.
pub fn warm_up(run: impl FnMut() -> anyhow::Result<Option<f64>>) -> anyhow::Result<()> {
    let start = Instant::now();
    warm_up_on(|| start.elapsed(), run)
}

/// [`warm_up`] on the clock `elapsed` (the time since the warm-up began),
/// so that a test can run it on a clock of its own, not the machine's.
fn warm_up_on(
    mut elapsed: impl FnMut() -> Duration,
    mut run: impl FnMut() -> anyhow::Result<Option<f64>>,
) -> anyhow::Result<()> {
    let mut recent: Vec<f64> = Vec::new();
    loop {
        let t = elapsed();
        let gpu_ms = run()?;
        recent.push(gpu_ms.unwrap_or_else(|| (elapsed() - t).as_secs_f64() * 1e3));
        if recent.len() > STEADY_RUNS {
            recent.remove(0);
        }
        let elapsed = elapsed();
        if elapsed >= MAX_WARM_UP || (elapsed >= GPU_WARM_UP && settled(&recent)) {
            return Ok(());
        }
    }
}

/// Whether the last [`STEADY_RUNS`] times agree within [`STEADY_SPREAD`].
fn settled(recent: &[f64]) -> bool {
    let (lo, hi) = recent.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &t| {
        (lo.min(t), hi.max(t))
    });
    recent.len() == STEADY_RUNS && hi <= lo * STEADY_SPREAD
}

/// The median (upper median for an even count) of a non-empty slice.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_the_timed_runs_only() {
        let mut calls = 0;
        let t = timed(3, false, || {
            calls += 1;
            Ok((calls, Some(calls as f64)))
        })
        .unwrap();
        assert_eq!((calls, t.last, t.gpu_ms), (3, 3, Some(2.0)));
        let mut calls = 0;
        let t = timed(5, true, || {
            calls += 1;
            Ok(((), (calls % 2 == 0).then_some(1.0)))
        })
        .unwrap();
        assert!(calls > 5, "the warm-up repeats the run");
        assert_eq!(
            t.gpu_ms, None,
            "a run without GPU time drops the GPU median"
        );
        assert_eq!(median(&mut [3.0, 1.0, 2.0, 10.0]), 3.0);
    }

    #[test]
    fn the_warm_up_waits_for_steady_times() {
        assert!(settled(&[10.0, 10.2, 10.4, 10.1]));
        assert!(!settled(&[30.0, 10.2, 10.4, 10.1]), "still ramping up");
        assert!(!settled(&[10.0, 10.0]), "too few runs");
        // Times jumping between two clocks for 400 runs of 2 ms each (on a
        // clock of the test's own, so a loaded machine cannot end the
        // warm-up at MAX_WARM_UP first), then steady: the warm-up goes on
        // until they are.
        let calls = std::cell::Cell::new(0u32);
        warm_up_on(
            || Duration::from_millis(2 * u64::from(calls.get())),
            || {
                calls.set(calls.get() + 1);
                let c = calls.get();
                Ok(Some(if c < 400 && c.is_multiple_of(2) {
                    20.0
                } else {
                    10.0
                }))
            },
        )
        .unwrap();
        let calls = calls.get();
        // The last slow run is the 398th; the 399th to 402nd agree.
        assert_eq!(
            calls, 402,
            "stopped after {calls} runs, not when the times settled"
        );
    }
}
