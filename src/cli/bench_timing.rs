//! Timing shared by the benchmarks: a warm-up that brings the GPU out of its
//! idle clocks, then the median of repeated runs.
//!
//! An idle GPU runs at a fraction of its clock (the H100 at 345 of
//! 1,980 MHz) and ramps up only after some tens of milliseconds of work. One
//! warm-up run of a sub-millisecond query is not enough: the first rows of a
//! table came out up to three times too slow. So a GPU measurement first
//! repeats the measured operation for at least [`GPU_WARM_UP`] (which also
//! compiles pipelines and fills caches), and the timed runs follow at once.

use std::time::{Duration, Instant};

/// How long a GPU measurement repeats its operation before timing it.
pub const GPU_WARM_UP: Duration = Duration::from_millis(500);

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
        warm_up(|| run().map(|_| ()))?;
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

/// Repeats `run` (at least once) until [`GPU_WARM_UP`] has passed.
pub fn warm_up(mut run: impl FnMut() -> anyhow::Result<()>) -> anyhow::Result<()> {
    let start = Instant::now();
    loop {
        run()?;
        if start.elapsed() >= GPU_WARM_UP {
            return Ok(());
        }
    }
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
}
