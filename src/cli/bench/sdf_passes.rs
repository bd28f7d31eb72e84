//! `bench sdf`'s per-pass account: how far each GPU pass of a run is from
//! the device's limits (printed as a second table, written as
//! `sdf-passes.json` and `sdf-passes.csv`).
//!
//! For every GPU pass with a timestamp time (the last call of each GPU
//! row): its share of the run (its time over the sum of the run's
//! passes), the cells it works on, the point–triangle distance
//! evaluations it makes where they are known, per cell of the grid and
//! per second, the bytes it moves and the bandwidth that gives, beside
//! the device's FP32 rate and memory bandwidth from [`DEVICES`] (by the
//! adapter's name; "unknown" for any other).
//!
//! What is known of each pass ([`account`]):
//!
//! | pass | cells | evaluations | bytes |
//! |---|---|---|---|
//! | `cells` | all | counted by the kernel (BVH), cells × triangles (brute force) | a triangle's corners per evaluation, 4 a cell written |
//! | `finish` | all | one a cell (its nearest triangle's closest point) | 4 a cell read and written, a triangle's corners |
//! | `cap winding` | all (each signed by its brick's or its own bound on the cap) | — | — |
//! | `cap walk` | those that walked the cap's tree | — | — |
//! | `winding refine β12 …`, `β32 …` | those that reached the walk | — | — |
//! | `winding refine exact` | those that reached the exact sum | cells × triangles (every triangle, in blocks) | a triangle's corners per evaluation |
//! | `copy out` | all | — | 4 a cell read and written |
//!
//! The bytes are the loads the kernels issue, not the memory's traffic:
//! neighbouring cells share triangles through the caches, so the achieved
//! "bandwidth" of a pass can exceed what the memory gives; where it is
//! far below it, the pass waits on something else. An evaluation is
//! counted as [`FLOPS_PER_EVALUATION`] FP32 operations (the closest point
//! on a triangle, Ericson's regions) for the share of the FP32 rate.

use serde::Serialize;

use super::report::{self, Column, or_dash, or_empty};

/// FP32 operations of one point–triangle distance evaluation (Ericson's
/// closest point: the edge vectors, six dot products, the region tests
/// and the distance), roughly.
pub const FLOPS_PER_EVALUATION: f64 = 60.0;

/// Bytes of one triangle's corners as the kernels load them (three
/// `vec4f`).
const TRIANGLE_BYTES: u64 = 48;

/// Known adapters by a part of their name, first match wins: FP32 rate
/// (TFLOP/s, without tensor cores) and memory bandwidth (GB/s), from
/// NVIDIA's data sheets.
pub const DEVICES: [(&str, f64, f64); 5] = [
    ("H100 PCIe", 51.2, 2000.0),
    ("H100 NVL", 60.0, 3900.0),
    ("H100", 66.9, 3350.0),
    ("H200 NVL", 60.0, 4800.0),
    ("H200", 66.9, 4800.0),
];

/// The FP32 rate (TFLOP/s) and bandwidth (GB/s) of the adapter named
/// `adapter`, if it is one of [`DEVICES`].
pub fn device_limits(adapter: &str) -> Option<(f64, f64)> {
    DEVICES
        .iter()
        .find(|(name, ..)| adapter.contains(name))
        .map(|&(_, tflops, gb_s)| (tflops, gb_s))
}

/// What a GPU row of `bench sdf` says about its run.
pub struct Run<'a> {
    pub model: &'a str,
    pub backend: &'static str,
    pub resolution: u32,
    pub sign: &'static str,
    pub cells: usize,
    pub triangles: usize,
    /// The distance kernels' evaluations (`SdfField::distance_evaluations`).
    pub evaluations: u64,
    /// The run's GPU passes and their times (ms).
    pub phases: &'a [(String, f64)],
    /// The winding sign's cells that walked the cap's tree, reached the
    /// refining pass, and of those, were decided by the β = 12 and 32 walks.
    pub walked: Option<usize>,
    pub refined: Option<usize>,
    pub by_step: Option<[usize; 3]>,
}

/// One pass of one run.
#[derive(Serialize, Clone, Debug)]
pub struct PassRow {
    model: String,
    backend: &'static str,
    resolution: u32,
    sign: &'static str,
    pass: String,
    gpu_ms: f64,
    /// Of the run's GPU time (the sum of its passes).
    share: f64,
    /// Cells the pass works on, where known.
    cells: Option<usize>,
    /// Point–triangle evaluations, where known.
    evaluations: Option<u64>,
    evaluations_per_cell: Option<f64>,
    g_evaluations_per_s: Option<f64>,
    /// The FP32 rate that is, at [`FLOPS_PER_EVALUATION`], of the device's.
    of_fp32: Option<f64>,
    /// Bytes the pass loads and stores, where known.
    bytes: Option<u64>,
    gb_per_s: Option<f64>,
    /// That bandwidth, of the device's.
    of_bandwidth: Option<f64>,
    device_fp32_tflops: Option<f64>,
    device_gb_per_s: Option<f64>,
}

/// The cells, evaluations and bytes of pass `name` of `run`, where known
/// (the module docs' table).
fn account(run: &Run<'_>, name: &str) -> (Option<usize>, Option<u64>, Option<u64>) {
    let cells = run.cells as u64;
    let walk12 = run.refined;
    let walk32 = run.refined.zip(run.by_step).map(|(r, s)| r - s[0]);
    let exact = run.refined.zip(run.by_step).map(|(r, s)| r - s[0] - s[1]);
    match name {
        "cells" => (
            Some(run.cells),
            Some(run.evaluations),
            Some(run.evaluations * TRIANGLE_BYTES + 4 * cells),
        ),
        "finish" => (
            Some(run.cells),
            Some(cells),
            Some(cells * (8 + TRIANGLE_BYTES)),
        ),
        "copy out" => (Some(run.cells), None, Some(8 * cells)),
        "cap winding" => (Some(run.cells), None, None),
        "cap walk" => (run.walked, None, None),
        "winding refine exact" => {
            let evaluations = exact.map(|c| (c * run.triangles) as u64);
            (exact, evaluations, evaluations.map(|e| e * TRIANGLE_BYTES))
        }
        n if n.starts_with("winding refine β12") => (walk12, None, None),
        n if n.starts_with("winding refine β32") => (walk32, None, None),
        _ => (None, None, None),
    }
}

/// Every pass of `runs` on the adapter named `adapter`.
pub fn passes(runs: &[Run<'_>], adapter: &str) -> Vec<PassRow> {
    let limits = device_limits(adapter);
    let mut out = Vec::new();
    for run in runs {
        let total: f64 = run.phases.iter().map(|(_, ms)| ms).sum();
        for (name, ms) in run.phases {
            let (cells, evaluations, bytes) = account(run, name);
            let per_s = |count: u64| (*ms > 0.0).then(|| count as f64 / (ms * 1e-3) / 1e9);
            let g_evaluations_per_s = evaluations.and_then(per_s);
            let gb_per_s = bytes.and_then(per_s);
            out.push(PassRow {
                model: run.model.to_string(),
                backend: run.backend,
                resolution: run.resolution,
                sign: run.sign,
                pass: name.clone(),
                gpu_ms: *ms,
                share: if total > 0.0 { ms / total } else { 0.0 },
                cells,
                evaluations,
                evaluations_per_cell: evaluations.map(|e| e as f64 / run.cells.max(1) as f64),
                g_evaluations_per_s,
                of_fp32: g_evaluations_per_s
                    .zip(limits)
                    .map(|(g, (tflops, _))| g * FLOPS_PER_EVALUATION / (tflops * 1e3)),
                bytes,
                gb_per_s,
                of_bandwidth: gb_per_s.zip(limits).map(|(g, (_, peak))| g / peak),
                device_fp32_tflops: limits.map(|l| l.0),
                device_gb_per_s: limits.map(|l| l.1),
            });
        }
    }
    out
}

/// The line above the table: the device's limits, or that they are
/// unknown.
pub fn limits_line(adapter: &str) -> String {
    match device_limits(adapter) {
        Some((tflops, gb_s)) => format!(
            "device limits: FP32 {tflops} TFLOP/s ({:.0} G evaluations/s at {FLOPS_PER_EVALUATION} flops each), memory {gb_s} GB/s",
            tflops * 1e3 / FLOPS_PER_EVALUATION
        ),
        None => "device limits: unknown (not in the table of known adapters)".to_string(),
    }
}

fn percent(v: f64) -> String {
    format!("{:.1}%", 100.0 * v)
}

impl report::Row for PassRow {
    fn csv_header() -> Vec<&'static str> {
        vec![
            "model",
            "backend",
            "resolution",
            "sign",
            "pass",
            "gpu_ms",
            "share",
            "cells",
            "evaluations",
            "evaluations_per_cell",
            "g_evaluations_per_s",
            "of_fp32",
            "bytes",
            "gb_per_s",
            "of_bandwidth",
            "device_fp32_tflops",
            "device_gb_per_s",
        ]
    }

    fn csv_cells(&self) -> Vec<String> {
        let f4 = |v: Option<f64>| or_empty(v, |v| format!("{v:.4}"));
        vec![
            self.model.replace(',', ";"),
            self.backend.to_string(),
            self.resolution.to_string(),
            self.sign.to_string(),
            self.pass.clone(),
            format!("{:.4}", self.gpu_ms),
            format!("{:.4}", self.share),
            or_empty(self.cells, |v| v.to_string()),
            or_empty(self.evaluations, |v| v.to_string()),
            f4(self.evaluations_per_cell),
            f4(self.g_evaluations_per_s),
            f4(self.of_fp32),
            or_empty(self.bytes, |v| v.to_string()),
            f4(self.gb_per_s),
            f4(self.of_bandwidth),
            f4(self.device_fp32_tflops),
            f4(self.device_gb_per_s),
        ]
    }

    fn table_columns() -> Vec<Column> {
        vec![
            Column::left("model", 20),
            Column::left("backend", 9),
            Column::right("res", 4),
            Column::left("sign", 13),
            Column::left("pass", 26),
            Column::right("gpu ms", 9),
            Column::right("share", 6),
            Column::right("cells", 9),
            Column::right("evals/cell", 10),
            Column::right("G evals/s", 9),
            Column::right("of FP32", 7),
            Column::right("MB", 9),
            Column::right("GB/s", 8),
            Column::right("of BW", 6),
        ]
    }

    fn table_cells(&self) -> Vec<String> {
        vec![
            self.model.clone(),
            self.backend.to_string(),
            self.resolution.to_string(),
            self.sign.to_string(),
            self.pass.clone(),
            format!("{:.3}", self.gpu_ms),
            percent(self.share),
            or_dash(self.cells, |v| v.to_string()),
            or_dash(self.evaluations_per_cell, |v| format!("{v:.1}")),
            or_dash(self.g_evaluations_per_s, |v| format!("{v:.2}")),
            or_dash(self.of_fp32, percent),
            or_dash(self.bytes, |v| format!("{:.1}", v as f64 / 1e6)),
            or_dash(self.gb_per_s, |v| format!("{v:.1}")),
            or_dash(self.of_bandwidth, percent),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_adapters_have_limits_and_others_none() {
        assert_eq!(
            device_limits("NVIDIA H100 80GB HBM3 (Vulkan, 580)"),
            Some((66.9, 3350.0))
        );
        assert_eq!(
            device_limits("NVIDIA H100 PCIe (Vulkan)"),
            Some((51.2, 2000.0))
        );
        assert_eq!(device_limits("NVIDIA H200 (Vulkan)"), Some((66.9, 4800.0)));
        assert_eq!(device_limits("llvmpipe (LLVM 15.0.7, 256 bits)"), None);
        assert!(limits_line("llvmpipe").contains("unknown"));
    }

    #[test]
    fn passes_share_the_run_and_count_what_is_known() {
        let phases = [
            ("cells".to_string(), 3.0),
            ("finish".to_string(), 0.5),
            ("winding refine β32 parts".to_string(), 0.25),
            ("winding refine exact".to_string(), 0.25),
        ];
        let run = Run {
            model: "m",
            backend: "gpu",
            resolution: 10,
            sign: "winding",
            cells: 1000,
            triangles: 50,
            evaluations: 30_000,
            phases: &phases,
            walked: Some(40),
            refined: Some(20),
            by_step: Some([12, 5, 3]),
        };
        let rows = passes(&[run], "NVIDIA H200");
        let share: f64 = rows.iter().map(|r| r.share).sum();
        assert!((share - 1.0).abs() < 1e-12);
        assert_eq!(rows[0].evaluations, Some(30_000));
        assert_eq!(rows[0].evaluations_per_cell, Some(30.0));
        // 30,000 evaluations in 3 ms: 0.01 G/s.
        assert!((rows[0].g_evaluations_per_s.unwrap() - 0.01).abs() < 1e-12);
        assert_eq!(rows[0].bytes, Some(30_000 * 48 + 4000));
        assert_eq!(rows[1].evaluations, Some(1000));
        assert_eq!((rows[2].cells, rows[2].evaluations), (Some(8), None));
        assert_eq!((rows[3].cells, rows[3].evaluations), (Some(3), Some(150)));
        assert_eq!(rows[3].device_gb_per_s, Some(4800.0));
    }
}
