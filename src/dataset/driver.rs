//! A dataset run: many meshes, one after the other, on one device.
//!
//! # The pipeline
//!
//! A worker thread takes the jobs in order and, for each, checks whether
//! its files are already complete ([`super::files::verified`]), loads the
//! mesh, normalises it, prepares it (weld, report, BVH, winding tree) and
//! draws its sample points. Prepared meshes go to the calling thread
//! through a bounded channel (`prefetch` meshes deep): it computes the
//! distances (on the GPU when one is given) and writes the files. Loading
//! and preparing the next meshes thus overlaps the device's work on the
//! current one, and memory stays bounded by the channel.
//!
//! # Failures and limits
//!
//! A mesh that cannot be read, has no faces or a non-finite coordinate, or
//! makes the library panic is recorded with its error and skipped; the run
//! goes on. The time limit covers one mesh's load, preparation and
//! distances: it is checked after loading, after preparing and before
//! each chunk of points ([`super::compute::CHUNK`]), so the mesh stops
//! there and is recorded as timed out (its files are not written).
//!
//! # The results manifest
//!
//! One JSON line per job ([`MeshResult`]), appended and flushed as each
//! mesh ends: written, skipped (complete from an earlier run, its stored
//! result repeated) or failed.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use glam::Vec3;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::compute::{check_deadline, sample_mesh};
use super::files::{self, Extra};
use super::manifest::Job;
use super::points::{Normalized, sample_points};
use super::{DatasetError, SampleParams};
use crate::io::{Format, OutputPlan};
use crate::mesh::{MeshReport, PreparedMesh};
use crate::progress::Progress;
use crate::stages::sdf::export::{FieldSource, sidecar as grid_sidecar};
use crate::stages::sdf::{self, Backend, SdfGpu, SdfParams};

/// How a run goes (what each mesh gives is in [`SampleParams`]).
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub params: SampleParams,
    /// Also write the field on a grid of this many cells along the longest
    /// side (as `collidoscope sdf --res`).
    pub grid: Option<u32>,
    /// Also write the mesh report.
    pub report: bool,
    /// Seconds one mesh may take.
    pub time_limit: Option<f64>,
    /// The results manifest; `None`: none written.
    pub results: Option<PathBuf>,
    /// Meshes prepared ahead of the device.
    pub prefetch: usize,
    /// Files the run reads besides the meshes (a list file): no output
    /// may be one of them.
    pub inputs: Vec<PathBuf>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            params: SampleParams::default(),
            grid: None,
            report: false,
            time_limit: None,
            results: None,
            prefetch: 2,
            inputs: Vec::new(),
        }
    }
}

/// What became of one mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Written,
    /// Complete and verified from an earlier run.
    Skipped,
    Failed,
}

/// Milliseconds one mesh spent in each step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepTimes {
    pub load: f64,
    pub prepare: f64,
    /// The distances (and the grid), on the GPU or the CPU.
    pub gpu: f64,
    pub write: f64,
}

/// One line of the results manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshResult {
    pub path: String,
    /// The `.npz` written (or that would have been).
    pub output: String,
    pub status: Status,
    pub error: Option<String>,
    pub timed_out: bool,
    /// Why files found from an earlier run were written again.
    pub redone: Option<String>,
    pub points: usize,
    pub near: usize,
    pub uniform: usize,
    pub triangles: usize,
    pub sign: Option<String>,
    pub backend: Option<String>,
    /// The mesh report's findings: "open", "inward", "inconsistent",
    /// "non-manifold", "self-intersecting", "duplicate-faces".
    pub flags: Vec<String>,
    pub timings_ms: StepTimes,
}

impl MeshResult {
    fn new(job: &Job) -> Self {
        MeshResult {
            path: job.mesh.display().to_string(),
            output: job.file(".npz").display().to_string(),
            status: Status::Failed,
            error: None,
            timed_out: false,
            redone: None,
            points: 0,
            near: 0,
            uniform: 0,
            triangles: 0,
            sign: None,
            backend: None,
            flags: Vec::new(),
            timings_ms: StepTimes::default(),
        }
    }

    fn fail(mut self, e: DatasetError) -> Self {
        self.timed_out = matches!(e, DatasetError::TimeLimit { .. });
        self.status = Status::Failed;
        self.error = Some(e.to_string());
        self
    }
}

/// The report's findings as flags (see [`MeshResult::flags`]).
pub fn report_flags(r: &MeshReport) -> Vec<String> {
    [
        (!r.closed, "open"),
        (r.inward_shells > 0, "inward"),
        (!r.consistently_oriented, "inconsistent"),
        (r.non_manifold_edges > 0, "non-manifold"),
        (r.self_intersecting_pairs > 0, "self-intersecting"),
        (r.duplicate_faces > 0, "duplicate-faces"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| name.to_string())
    .collect()
}

/// The whole run's numbers.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub results: Vec<MeshResult>,
    pub wall_s: f64,
    /// Seconds the calling thread spent computing distances.
    pub gpu_s: f64,
}

impl Summary {
    pub fn count(&self, status: Status) -> usize {
        self.results.iter().filter(|r| r.status == status).count()
    }
}

/// A mesh ready for the device.
struct Prepared {
    result: MeshResult,
    mesh: PreparedMesh,
    report: MeshReport,
    normalized: Normalized,
    points: Vec<Vec3>,
    /// Seconds already spent on the mesh.
    spent_s: f64,
}

enum Ready {
    Device(Box<Prepared>),
    Done(Box<MeshResult>),
}

/// The time limit's deadline for work that has already taken `spent_s`.
fn deadline(limit: Option<f64>, spent_s: f64) -> Option<(Instant, f64)> {
    limit.map(|l| {
        let left = std::time::Duration::from_secs_f64((l - spent_s).max(0.0));
        (Instant::now() + left, l)
    })
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// A panic's message, for the results.
fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// The worker's part of one job: resume check, load, prepare, sample.
fn get_ready(job: &Job, opts: &RunOptions) -> Ready {
    let mut result = MeshResult::new(job);
    let settings = files::settings(job, &opts.params, opts.grid, opts.report);
    match files::verified(job, &settings) {
        Ok(Some(meta)) => {
            if let Ok(mut stored) = serde_json::from_value::<MeshResult>(meta["result"].clone()) {
                stored.status = Status::Skipped;
                stored.redone = None;
                return Ready::Done(Box::new(stored));
            }
            result.redone = Some("the sidecar holds no result".into());
        }
        Ok(None) => {}
        Err(why) => result.redone = Some(why),
    }
    if let Err(e) = check_plan(job, opts) {
        return Ready::Done(Box::new(result.fail(e)));
    }
    let started = Instant::now();
    let limit = deadline(opts.time_limit, 0.0);
    let loaded = catch_unwind(AssertUnwindSafe(|| -> Result<Prepared, DatasetError> {
        let (raw, _problems) = crate::mesh::load_file_merged(&job.mesh)?;
        raw.validate()?;
        result.timings_ms.load = ms(started);
        check_deadline(limit, || "while loading".into())?;
        let at = Instant::now();
        let normalized = Normalized::of(&raw, opts.params.normalization);
        let moved = normalized.apply(&raw);
        let mesh = PreparedMesh::new(&moved)?;
        // The trees the distances need, built here rather than on the device's thread.
        mesh.local().winding();
        let points = sample_points(&moved, &opts.params, job.seed);
        let mut report = mesh.report.clone();
        report.name = job.mesh.display().to_string();
        report.bounds_min = raw.bounds().min.to_array();
        report.bounds_max = raw.bounds().max.to_array();
        result.timings_ms.prepare = ms(at);
        check_deadline(limit, || "while preparing".into())?;
        Ok(Prepared {
            result: result.clone(),
            mesh,
            report,
            normalized,
            points,
            spent_s: started.elapsed().as_secs_f64(),
        })
    }));
    match loaded {
        Ok(Ok(p)) => Ready::Device(Box::new(p)),
        Ok(Err(e)) => Ready::Done(Box::new(result.fail(e))),
        Err(p) => Ready::Done(Box::new(result.fail(DatasetError::Manifest(format!(
            "the library failed on this mesh ({}); please report it",
            panic_text(p)
        ))))),
    }
}

/// Refuses outputs of `job` that are one of its inputs (the mesh, a list
/// file) or cannot be written ([`crate::io::OutputPlan`]).
fn check_plan(job: &Job, opts: &RunOptions) -> Result<(), DatasetError> {
    let mut plan = OutputPlan::new();
    plan.input("the mesh", &job.mesh);
    for input in &opts.inputs {
        plan.input("the manifest", input);
    }
    if let Some(dir) = job.output.parent() {
        plan.folder("the output folder", dir);
    }
    plan.output("the samples", job.file(".npz"), Format::NPZ);
    plan.output("the sidecar", job.file(".json"), Format::JSON);
    if opts.grid.is_some() {
        plan.output("the grid", job.file(".grid.npy"), Format::NPY);
        plan.output("the grid's sidecar", job.file(".grid.json"), Format::JSON);
    }
    if opts.report {
        plan.output("the report", job.file(".report.json"), Format::JSON);
    }
    Ok(plan.check()?)
}

/// The device's part: distances, the grid, the files.
fn finish(p: Prepared, job: &Job, opts: &RunOptions, gpu: Option<&SdfGpu>) -> MeshResult {
    let Prepared {
        mut result,
        mesh,
        report,
        normalized,
        points,
        spent_s,
    } = p;
    result.triangles = report.triangles;
    result.flags = report_flags(&report);
    let limit = deadline(opts.time_limit, spent_s);
    let done = catch_unwind(AssertUnwindSafe(|| -> Result<(), DatasetError> {
        let at = Instant::now();
        let samples = sample_mesh(&mesh, points, normalized, &opts.params, gpu, limit)?;
        let mut extra: Vec<Extra> = Vec::new();
        if let Some(res) = opts.grid {
            check_deadline(limit, || "before the grid".into())?;
            extra.extend(grid_files(job, &mesh, res, &samples, gpu)?);
        }
        result.timings_ms.gpu = ms(at);
        let at = Instant::now();
        if opts.report {
            let text = serde_json::to_string_pretty(&report).map_err(std::io::Error::other);
            let text = text.map_err(|e| io(job, e))?;
            extra.push((job.file(".report.json"), text.into_bytes()));
        }
        result.points = samples.points.len();
        result.near = opts.params.near;
        result.uniform = opts.params.uniform;
        result.sign = Some(samples.sign.name().to_string());
        result.backend = Some(samples.backend.to_string());
        result.status = Status::Written;
        let npz = files::encode_samples(&samples).map_err(|e| io(job, std::io::Error::other(e)))?;
        // The stored result carries the write time up to here.
        result.timings_ms.write = ms(at);
        let meta = json!({
            "format": files::FORMAT,
            "settings": files::settings(job, &opts.params, opts.grid, opts.report),
            "normalization": samples.normalized,
            "result": result,
        });
        if let Some(dir) = job.output.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io(job, e))?;
        }
        files::write_mesh(job, &npz, &extra, meta).map_err(|e| io(job, e))?;
        result.timings_ms.write = ms(at);
        Ok(())
    }));
    match done {
        Ok(Ok(())) => result,
        Ok(Err(e)) => result.fail(e),
        Err(p) => result.fail(DatasetError::Manifest(format!(
            "the library failed on this mesh ({}); please report it",
            panic_text(p)
        ))),
    }
}

fn io(job: &Job, source: std::io::Error) -> DatasetError {
    DatasetError::Io {
        path: job.file(".npz").display().to_string(),
        source,
    }
}

/// The grid field of `mesh` (normalised) as `.grid.npy` and its sidecar.
fn grid_files(
    job: &Job,
    mesh: &PreparedMesh,
    res: u32,
    samples: &super::MeshSamples,
    gpu: Option<&SdfGpu>,
) -> Result<Vec<Extra>, DatasetError> {
    let params = SdfParams {
        resolution: res,
        padding: 0.1,
        band: None,
        sign_mode: samples.sign,
    };
    params.validate()?;
    let backend = if gpu.is_some() {
        Backend::Gpu
    } else {
        Backend::CpuFast
    };
    let field = sdf::compute(mesh, &params, backend, gpu, &Progress::default())?;
    let source = FieldSource {
        mesh_file: &job.mesh.display().to_string(),
        cache: "off",
        adapter: None,
    };
    let d = field.grid.dims;
    let bytes =
        crate::io::encode_npy_f32(&[d.z as usize, d.y as usize, d.x as usize], &field.values);
    let mut meta = grid_sidecar(&field, mesh, &source);
    meta[crate::io::CHECKSUM_KEY] = crate::io::checksum_hex(&bytes).into();
    meta["normalization"] = json!(samples.normalized);
    let text =
        serde_json::to_string_pretty(&meta).map_err(|e| io(job, std::io::Error::other(e)))?;
    Ok(vec![
        (job.file(".grid.npy"), bytes),
        (job.file(".grid.json"), text.into_bytes()),
    ])
}

/// Runs `jobs` (module docs): distances on `gpu` when given, on the CPU
/// otherwise; `on_result` sees each mesh's result as it ends. Fails only
/// when the results manifest cannot be written; a mesh's failure is in
/// its result.
pub fn run(
    jobs: &[Job],
    opts: &RunOptions,
    gpu: Option<&SdfGpu>,
    on_result: &mut dyn FnMut(&MeshResult),
) -> Result<Summary, DatasetError> {
    opts.params.validate()?;
    let started = Instant::now();
    let mut log = match &opts.results {
        Some(path) => {
            let target = |e| DatasetError::Io {
                path: path.display().to_string(),
                source: e,
            };
            crate::io::check_targets(&[path]).map_err(target)?;
            Some((path, std::fs::File::create(path).map_err(target)?))
        }
        None => None,
    };
    let mut summary = Summary::default();
    let (tx, rx) = sync_channel::<(usize, Ready)>(opts.prefetch.max(1));
    std::thread::scope(|scope| -> Result<(), DatasetError> {
        scope.spawn(move || {
            for (i, job) in jobs.iter().enumerate() {
                if tx.send((i, get_ready(job, opts))).is_err() {
                    break;
                }
            }
        });
        for (i, ready) in rx {
            let result = match ready {
                Ready::Done(r) => *r,
                Ready::Device(p) => {
                    let r = finish(*p, &jobs[i], opts, gpu);
                    summary.gpu_s += r.timings_ms.gpu / 1e3;
                    r
                }
            };
            if let Some((path, file)) = &mut log {
                let line = serde_json::to_string(&result).unwrap_or_default();
                writeln!(file, "{line}")
                    .and_then(|()| file.flush())
                    .map_err(|e| DatasetError::Io {
                        path: path.display().to_string(),
                        source: e,
                    })?;
            }
            on_result(&result);
            summary.results.push(result);
        }
        Ok(())
    })?;
    summary.wall_s = started.elapsed().as_secs_f64();
    Ok(summary)
}
