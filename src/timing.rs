//! Per-phase timings shared by every stage product, the profiler overlay and
//! the benchmark tables.

use serde::Serialize;

/// One phase of a stage run: wall-clock time on the CPU side and, for GPU
/// phases on an adapter with timestamp queries, the GPU's own time.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PhaseTiming {
    pub name: String,
    pub wall_ms: f64,
    pub gpu_ms: Option<f64>,
}

/// The phases of one run, in order.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Timings {
    pub phases: Vec<PhaseTiming>,
}

impl Timings {
    pub fn push(&mut self, name: impl Into<String>, wall_ms: f64, gpu_ms: Option<f64>) {
        self.phases.push(PhaseTiming {
            name: name.into(),
            wall_ms,
            gpu_ms,
        });
    }

    pub fn total_wall_ms(&self) -> f64 {
        self.phases.iter().map(|p| p.wall_ms).sum()
    }

    /// Sum of the GPU times, if any phase has one.
    pub fn total_gpu_ms(&self) -> Option<f64> {
        let gpu: Vec<f64> = self.phases.iter().filter_map(|p| p.gpu_ms).collect();
        (!gpu.is_empty()).then(|| gpu.iter().sum())
    }
}
