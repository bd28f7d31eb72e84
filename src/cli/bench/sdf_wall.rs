//! `bench sdf`'s end-to-end accounting: a GPU row's wall time
//! split by phase, the field's PCIe copy time, and the target
//! `wall ≤ GPU + 2 × copy + 5 ms`, for a cold and a warm call.
//!
//! A wall run is one [`crate::stages::sdf::compute_with`] call for
//! the values ([`crate::stages::sdf::FieldOutputs::VALUES`]: what the
//! CLI's `.npy` and the colliders use; no closest triangles) from a
//! [`crate::mesh::PreparedMesh`] (whose preparation — welding, topology,
//! normals, the CPU BVH — is timed once per model, column `prepare`, not
//! in the wall time). A **cold** call has nothing on the GPU (released
//! before its clock starts): it builds the GPU tree, uploads the mesh and
//! creates the run's buffers, records and submits the kernels, waits for
//! them, reads the field back and finishes it on the host. A **warm** call
//! repeats the call with the mesh and the run's buffers resident (the
//! viewer's slider, a batch): parameters written, kernels, read-back. The
//! GPU column times the same request's GPU work (values only in the copy
//! out). The phases are the stage's own [`Timings`] of the last call of
//! each kind, grouped:
//!
//! | group | stage phases |
//! |---|---|
//! | `bvh` | `bvh` (the GPU tree collapsed from the mesh's BVH; its slabs are the GPU's pass `slabs`, in `kernels`) |
//! | `upload` | `upload` (what the upload adds after the tree's build: the triangles are gathered into the uploads' staging memory beside the build; the tree copied there, and beside them the buffers the kernels write created or reused; the parameters written) |
//! | `kernels` | the GPU run's phases (recording, submission, the uploads' copies, on a cold call the tree's slabs, and the kernels, until the GPU is done; meanwhile, on the host, the read-back's staging ring and the host memory of the field, every page touched) |
//! | `readback` | `readback` (the field's copies through the staging ring, each chunk mapped and copied out in parallel while the GPU copies the next) |
//! | `host` | `convert`, `to world`, `sign`, the winding sign's CPU fallback |
//!
//! and `other` is the wall time no phase accounts for.
//!
//! The copy time is the field's bytes (4 per cell) over the bandwidth of a
//! device-to-host-visible buffer copy measured once per run of the bench
//! ([`copy_bandwidth`]: timestamps around one 64 MiB copy, median of five
//! after a warm-up; the wall time of submission to completion where the
//! adapter has no timestamps).

use serde::Serialize;

use super::report::{Column, Row, or_dash};
use super::timing::{median, warm_up};
use crate::gpu::{BufferCheck, GpuContext, GpuRun, staging_buffer, storage_buffer_zeroed};
use crate::stages::sdf::FALLBACK_PHASE;
use crate::timing::Timings;

/// A GPU row's wall time by phase group, ms (see the module docs).
#[derive(Serialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct WallSplit {
    pub bvh: f64,
    pub upload: f64,
    pub kernels: f64,
    pub readback: f64,
    pub host: f64,
    /// Wall time outside every phase.
    pub other: f64,
}

impl WallSplit {
    /// Column names of the split, in [`WallSplit::values`] order.
    pub const NAMES: [&'static str; 6] = ["bvh", "upload", "kernels", "readback", "host", "other"];

    /// Groups `timings`' phases; `wall_ms` is the run's whole wall time.
    pub fn of(timings: &Timings, wall_ms: f64) -> Self {
        let mut split = WallSplit::default();
        for p in &timings.phases {
            let group = match p.name.as_str() {
                "bvh" => &mut split.bvh,
                "upload" => &mut split.upload,
                "readback" => &mut split.readback,
                "convert" | "to world" | "sign" | FALLBACK_PHASE => &mut split.host,
                _ => &mut split.kernels,
            };
            *group += p.wall_ms;
        }
        split.other = (wall_ms - timings.total_wall_ms()).max(0.0);
        split
    }

    pub fn values(&self) -> [f64; 6] {
        [
            self.bvh,
            self.upload,
            self.kernels,
            self.readback,
            self.host,
            self.other,
        ]
    }
}

/// What the wall table's rows include, printed after it and written above
/// it in `sdf.md`.
pub const WALL_NOTE: &str = "A cold call has nothing of the mesh or of the run on the GPU \
(released before its clock starts); a warm call repeats it with both resident. Not in a cold \
call: the process's GPU device and pipelines, and the first host-visible memory block of \
wgpu's allocator (64 MiB, pinned by the driver), which the bench's copy probe creates and the \
allocator keeps; the read-back's staging ring (2 × 16 MiB) is carved from it. A one-shot CLI \
process pays that block once, while its kernels run.";

/// The end-to-end target for a field: its GPU time, twice its
/// PCIe copy and 5 ms.
pub fn wall_target_ms(gpu_ms: f64, copy_ms: f64) -> f64 {
    gpu_ms + 2.0 * copy_ms + 5.0
}

/// Bytes of the probe copy.
const PROBE_BYTES: u64 = 64 << 20;

/// The measured bandwidth of a copy from a device buffer to a host-visible
/// one (GB/s), and whether timestamps timed it (else wall time).
pub fn copy_bandwidth(gpu: &GpuContext) -> anyhow::Result<(f64, bool)> {
    let src = storage_buffer_zeroed(
        gpu,
        BufferCheck {
            label: "bench::copy_probe",
            bytes: PROBE_BYTES,
        },
    )?;
    let dst = staging_buffer(&gpu.device, "bench::copy_probe_staging", PROBE_BYTES);
    let copy = || -> anyhow::Result<f64> {
        let mut run = GpuRun::new(gpu, "bench::copy_probe")?;
        run.encoder_work("copy", |e| {
            e.copy_buffer_to_buffer(&src, 0, &dst, 0, PROBE_BYTES)
        });
        let (phases, wall_ms) = run.finish()?;
        Ok(phases.first().and_then(|p| p.gpu_ms).unwrap_or(wall_ms))
    };
    warm_up(|| copy().map(Some))?;
    let mut ms: Vec<f64> = (0..5).map(|_| copy()).collect::<anyhow::Result<_>>()?;
    let ms = median(&mut ms);
    Ok((PROBE_BYTES as f64 / (ms * 1e6), gpu.has_timestamps))
}

/// One GPU row of the wall-time table (`bench sdf` prints it after the
/// main table and writes it to `sdf.md`, ready for the book).
#[derive(Serialize)]
pub struct WallRow {
    pub model: String,
    pub resolution: u32,
    pub backend: &'static str,
    pub sign: &'static str,
    /// `cold` (nothing on the GPU) or `warm` (a repeated call: the mesh and
    /// the run's buffers resident).
    pub call: &'static str,
    pub gpu_ms: Option<f64>,
    pub wall_ms: f64,
    pub split: WallSplit,
    pub copy_ms: f64,
    pub prepare_ms: f64,
}

impl WallRow {
    /// The target, if the row has a GPU time.
    pub fn target_ms(&self) -> Option<f64> {
        self.gpu_ms.map(|g| wall_target_ms(g, self.copy_ms))
    }
}

impl Row for WallRow {
    fn csv_header() -> Vec<&'static str> {
        // The CSV is the main table's; this one is printed and written as
        // Markdown only.
        Vec::new()
    }

    fn csv_cells(&self) -> Vec<String> {
        Vec::new()
    }

    fn table_columns() -> Vec<Column> {
        [
            Column::left("model", 24),
            Column::right("res", 5),
            Column::left("backend", 9),
            Column::left("sign", 13),
            Column::left("call", 5),
            Column::right("prepare", 8),
        ]
        .into_iter()
        .chain(WallSplit::NAMES.map(|n| Column::right(n, 8)))
        .chain([
            Column::right("wall ms", 9),
            Column::right("gpu ms", 9),
            Column::right("copy ms", 8),
            Column::right("target", 8),
            Column::left("met", 4),
        ])
        .collect()
    }

    fn table_cells(&self) -> Vec<String> {
        let target = self.target_ms();
        [
            self.model.clone(),
            self.resolution.to_string(),
            self.backend.to_string(),
            self.sign.to_string(),
            self.call.to_string(),
            format!("{:.1}", self.prepare_ms),
        ]
        .into_iter()
        .chain(self.split.values().map(|v| format!("{v:.2}")))
        .chain([
            format!("{:.2}", self.wall_ms),
            or_dash(self.gpu_ms, |v| format!("{v:.2}")),
            format!("{:.2}", self.copy_ms),
            or_dash(target, |v| format!("{v:.1}")),
            or_dash(target, |t| {
                if self.wall_ms <= t { "yes" } else { "no" }.to_string()
            }),
        ])
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_fall_into_their_groups_and_the_rest_is_other() {
        let mut t = Timings::default();
        for (name, ms) in [
            ("bvh", 1.0),
            ("upload", 2.0),
            ("cells", 10.0),
            ("finish", 0.5),
            ("copy out", 0.25),
            ("readback", 4.0),
            ("convert", 3.0),
            ("to world", 0.5),
            (FALLBACK_PHASE, 1.5),
            ("sign", 2.0),
        ] {
            t.push(name, ms, None);
        }
        let split = WallSplit::of(&t, 30.0);
        assert_eq!(
            split,
            WallSplit {
                bvh: 1.0,
                upload: 2.0,
                kernels: 10.75,
                readback: 4.0,
                host: 7.0,
                other: 30.0 - 24.75,
            }
        );
        assert_eq!(split.values().iter().sum::<f64>(), 30.0);
        assert_eq!(wall_target_ms(25.0, 4.0), 38.0);
    }
}
