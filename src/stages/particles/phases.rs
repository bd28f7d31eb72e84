//! Time per phase of the GPU path, as the profiler and `bench particles`
//! report it.
//!
//! * **GPU** (timestamp queries, when the adapter has them): particle
//!   evaluation in its two compute passes — the scan (every particle's
//!   kept state checked) and the solve (the listed particles' flights) —,
//!   map rendering (the point pass) and the read-back copy (impacts,
//!   flights and maps into the staging buffer). Each window's slot writes
//!   eight timestamps — the three passes' own begin and end writes and two
//!   encoder timestamps around the copies — and
//!   resolves them into its staging buffer, so they come back with the
//!   window's read-back and never cost a wait of their own.
//! * **CPU** (wall clock): recording and submitting a window, waiting for
//!   a read-back (only when every slot of the ring is in flight, §3.5.1),
//!   and decoding (unpacking the mapped staging buffer, then turning
//!   impacts into events and merging the maps).

use eframe::egui_wgpu::wgpu;

use crate::gpu::GpuContext;
use crate::timing::Timings;

/// Timestamps one window writes.
pub(crate) const TIMESTAMPS: u32 = 8;
/// Bytes of the resolved timestamps.
pub(crate) const TIMESTAMP_BYTES: u64 = TIMESTAMPS as u64 * 8;

/// One window's GPU time per phase, milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuPhaseMs {
    /// The evaluation's scan of every particle's kept state.
    pub scan: f64,
    /// The evaluation's solve of the particles the scan listed.
    pub solve: f64,
    pub map_rendering: f64,
    pub readback_copy: f64,
}

impl GpuPhaseMs {
    /// From the eight resolved timestamps (begin, end of each phase) and the
    /// queue's timestamp period (ns per tick). A pair that runs backwards
    /// (a driver resetting its counter) reads 0.
    pub(crate) fn from_ticks(ticks: &[u64], period_ns: f32) -> Self {
        let ms = |k: usize| {
            ticks[2 * k + 1].saturating_sub(ticks[2 * k]) as f64 * f64::from(period_ns) * 1e-6
        };
        GpuPhaseMs {
            scan: ms(0),
            solve: ms(1),
            map_rendering: ms(2),
            readback_copy: ms(3),
        }
    }

    /// The particle evaluation: scan plus solve.
    pub fn evaluation(&self) -> f64 {
        self.scan + self.solve
    }

    /// Evaluation plus map rendering: the per-frame GPU budget.
    pub fn compute_ms(&self) -> f64 {
        self.evaluation() + self.map_rendering
    }

    fn add(&mut self, o: &GpuPhaseMs) {
        self.scan += o.scan;
        self.solve += o.solve;
        self.map_rendering += o.map_rendering;
        self.readback_copy += o.readback_copy;
    }
}

/// A slot's timestamp queries and the buffer they resolve into.
pub(crate) struct PhaseQueries {
    set: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    /// Nanoseconds per tick.
    pub period_ns: f32,
}

impl PhaseQueries {
    /// `None` when the adapter has no timestamp queries (inside encoders).
    pub fn new(gpu: &GpuContext) -> Option<Self> {
        if !gpu.has_timestamps {
            return None;
        }
        let set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("particles::timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: TIMESTAMPS,
        });
        let resolved = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles::timestamps_resolved"),
            size: TIMESTAMP_BYTES,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Some(PhaseQueries {
            set,
            resolved,
            period_ns: gpu.queue.get_timestamp_period(),
        })
    }

    fn compute(&self, phase: u32) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(2 * phase),
            end_of_pass_write_index: Some(2 * phase + 1),
        }
    }

    /// The scan pass's writes.
    pub fn scan(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        self.compute(0)
    }

    /// The solve pass's writes.
    pub fn solve(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        self.compute(1)
    }

    /// The map pass's writes.
    pub fn map_rendering(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(4),
            end_of_pass_write_index: Some(5),
        }
    }

    /// Records `copies` between two timestamps, then resolves all eight
    /// into `staging` at `offset`.
    pub(crate) fn around_copies(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        staging: &wgpu::Buffer,
        offset: u64,
        copies: impl FnOnce(&mut wgpu::CommandEncoder),
    ) {
        encoder.write_timestamp(&self.set, 6);
        copies(encoder);
        encoder.write_timestamp(&self.set, 7);
        encoder.resolve_query_set(&self.set, 0..TIMESTAMPS, &self.resolved, 0);
        encoder.copy_buffer_to_buffer(&self.resolved, 0, staging, offset, TIMESTAMP_BYTES);
    }
}

/// CPU wall time the ring spends, summed over windows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuPhaseMs {
    /// Recording and submitting windows.
    pub recording: f64,
    /// Waiting for a read-back: a full ring at submission, or the drain.
    pub readback_wait: f64,
    /// Unpacking mapped staging buffers.
    pub unpacking: f64,
}

/// The phases of a run (or of the windows so far), summed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTotals {
    pub windows: u64,
    /// Summed GPU times; `None` when some window had none.
    pub gpu: Option<GpuPhaseMs>,
    pub cpu: CpuPhaseMs,
    /// Turning impacts into events and merging maps.
    pub decoding_ms: f64,
}

impl PhaseTotals {
    /// Adds one window's GPU times (`None`: no timestamps).
    pub(crate) fn add_window(&mut self, gpu: Option<GpuPhaseMs>) {
        self.gpu = match (self.windows, self.gpu, gpu) {
            (0, _, Some(g)) => Some(g),
            (_, Some(mut sum), Some(g)) => {
                sum.add(&g);
                Some(sum)
            }
            _ => None,
        };
        self.windows += 1;
    }

    /// As profiler phases, in pipeline order: GPU phases carry no CPU
    /// time (the profiler shows "–"), CPU phases no GPU time.
    pub fn timings(&self) -> Timings {
        let mut t = Timings::default();
        let g = self.gpu;
        t.push("recording", self.cpu.recording, None);
        t.push("evaluation: scan", 0.0, g.map(|g| g.scan));
        t.push("evaluation: solve", 0.0, g.map(|g| g.solve));
        t.push("map rendering", 0.0, g.map(|g| g.map_rendering));
        t.push("read-back copy", 0.0, g.map(|g| g.readback_copy));
        t.push("read-back wait", self.cpu.readback_wait, None);
        t.push("decoding", self.cpu.unpacking + self.decoding_ms, None);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_become_milliseconds_per_phase() {
        let g = GpuPhaseMs::from_ticks(&[100, 350, 400, 1_150, 1_150, 1_650, 2_000, 1_900], 1000.0);
        assert_eq!(
            g,
            GpuPhaseMs {
                scan: 0.25,
                solve: 0.75,
                map_rendering: 0.5,
                readback_copy: 0.0,
            }
        );
        assert_eq!(g.evaluation(), 1.0);
        assert_eq!(g.compute_ms(), 1.5);
    }

    #[test]
    fn totals_sum_windows_and_drop_gpu_time_when_one_lacks_it() {
        let w = GpuPhaseMs {
            scan: 0.25,
            solve: 0.75,
            map_rendering: 2.0,
            readback_copy: 3.0,
        };
        let mut t = PhaseTotals::default();
        t.add_window(Some(w));
        t.add_window(Some(w));
        assert_eq!(t.gpu.map(|g| g.map_rendering), Some(4.0));
        t.cpu.unpacking = 1.0;
        t.decoding_ms = 0.5;
        let timings = t.timings();
        let names: Vec<&str> = timings.phases.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "recording",
                "evaluation: scan",
                "evaluation: solve",
                "map rendering",
                "read-back copy",
                "read-back wait",
                "decoding"
            ]
        );
        assert_eq!(timings.phases[6].wall_ms, 1.5);
        assert_eq!(timings.total_gpu_ms(), Some(12.0));
        t.add_window(None);
        assert_eq!((t.windows, t.gpu), (3, None));
        let mut late = PhaseTotals::default();
        late.add_window(None);
        late.add_window(Some(w));
        assert_eq!(late.gpu, None, "a window without timestamps stays counted");
    }
}
