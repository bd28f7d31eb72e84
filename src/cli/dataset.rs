//! `collidoscope dataset MANIFEST --out DIR`: sampled exact signed
//! distances for every mesh of a folder, a glob or a list file (the
//! method and the files are in [`crate::dataset`]'s docs).

use std::path::PathBuf;

use anyhow::Context;
use clap::ValueEnum;

use crate::dataset::progress_line::ProgressLine;
use crate::dataset::setup::{inputs, results_name, start};
use crate::dataset::{
    Manifest, Normalization, RunOptions, SampleParams, Shard, SignChoice, Status,
};
use crate::gpu::GpuContext;
use crate::stages::sdf::SdfGpu;

#[derive(clap::Args, Debug)]
pub struct DatasetArgs {
    /// The meshes: a folder (every .obj/.ply/.stl/.off under it), a glob
    /// (quote it: 'shapes/*/model.obj', ** for any folders) or a text file
    /// of paths, one a line.
    pub manifest: PathBuf,
    /// Output folder (created): NAME.npz and NAME.json per mesh, keeping
    /// the meshes' folders below the manifest's root.
    #[arg(long)]
    pub out: PathBuf,
    /// Points near the surface per mesh.
    #[arg(long, default_value_t = SampleParams::default().near)]
    pub near: usize,
    /// Points uniform in the padded bounding box per mesh.
    #[arg(long, default_value_t = SampleParams::default().uniform)]
    pub uniform: usize,
    /// Variances σ² of the near points' Gaussian displacement, comma-separated,
    /// in normalised units (the near points are split evenly between them).
    #[arg(long, value_delimiter = ',', default_values_t = SampleParams::default().variances)]
    pub variances: Vec<f64>,
    /// Padding of the uniform points' box on every side, a fraction of the longest side.
    #[arg(long, default_value_t = SampleParams::default().pad)]
    pub pad: f64,
    /// How each mesh is moved and scaled before sampling (recorded in the .npz).
    #[arg(long, value_enum, default_value = "unit-sphere")]
    pub normalize: NormalizeArg,
    /// Sign: auto is the winding number on the GPU, the mesh report's choice on the CPU.
    #[arg(long, value_enum, default_value = "auto")]
    pub sign: SignChoiceArg,
    /// Seed of the samples (each mesh's own seed comes from it and the mesh's name).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Also write each sample's closest surface point (`closest` in the .npz).
    #[arg(long)]
    pub closest: bool,
    /// Also write the field's unit gradient at each sample (`normals` in the .npz).
    #[arg(long)]
    pub normals: bool,
    /// Also write the field on a grid of this many cells along the longest side
    /// (NAME.grid.npy + NAME.grid.json, as `sdf` writes them).
    #[arg(long)]
    pub grid: Option<u32>,
    /// Also write each mesh's report (NAME.report.json, as `info --json` prints it).
    #[arg(long)]
    pub report: bool,
    /// Take only shard i of N (0 ≤ i < N): meshes i, i+N, i+2N… of the sorted list.
    #[arg(long)]
    pub shard: Option<Shard>,
    /// Seconds one mesh may take (load, prepare, distances); past it the mesh is
    /// recorded as timed out and skipped.
    #[arg(long)]
    pub time_limit: Option<f64>,
    /// Where the distances are computed.
    #[arg(long, value_enum, default_value = "gpu")]
    pub backend: DeviceArg,
    /// Meshes loaded and prepared ahead of the device.
    #[arg(long, default_value_t = 2)]
    pub prefetch: usize,
    /// The results manifest, one JSON line per mesh (default: OUT/results.jsonl,
    /// or OUT/results-I-of-N.jsonl with --shard).
    #[arg(long)]
    pub results: Option<PathBuf>,
}

/// `--normalize` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum NormalizeArg {
    /// Bounding-box centre at the origin, farthest vertex at distance 1.
    UnitSphere,
    /// Bounding-box centre at the origin, longest side 1 ([-½, ½]³).
    UnitCube,
    /// The mesh as it is.
    None,
}

/// `--sign` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SignChoiceArg {
    /// Winding number on the GPU; on the CPU pseudo-normal where the mesh is closed.
    Auto,
    /// Generalised winding number (exact on any mesh).
    Winding,
    /// Angle-weighted pseudo-normal (closed meshes; computed on the CPU).
    PseudoNormal,
}

/// `--backend` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DeviceArg {
    /// The GPU (an error when there is none).
    Gpu,
    /// All CPU cores.
    Cpu,
}

impl DatasetArgs {
    fn params(&self) -> SampleParams {
        SampleParams {
            near: self.near,
            uniform: self.uniform,
            variances: self.variances.clone(),
            pad: self.pad,
            normalization: match self.normalize {
                NormalizeArg::UnitSphere => Normalization::UnitSphere,
                NormalizeArg::UnitCube => Normalization::UnitCube,
                NormalizeArg::None => Normalization::None,
            },
            sign: match self.sign {
                SignChoiceArg::Auto => SignChoice::Auto,
                SignChoiceArg::Winding => SignChoice::Winding,
                SignChoiceArg::PseudoNormal => SignChoice::PseudoNormal,
            },
            seed: self.seed,
            closest: self.closest,
            normals: self.normals,
        }
    }
}

pub fn run(args: DatasetArgs) -> anyhow::Result<()> {
    let params = args.params();
    params.validate().map_err(|e| anyhow::anyhow!("--{e}"))?;
    if let Some(t) = args.time_limit
        && !(t.is_finite() && t > 0.0)
    {
        anyhow::bail!("--time-limit {t}: must be a positive number of seconds");
    }
    let results = args
        .results
        .clone()
        .unwrap_or_else(|| args.out.join(results_name(args.shard)));
    let manifest = Manifest::read(&args.manifest)?;
    let source = Some(args.manifest.as_path());
    let jobs = start(
        &manifest,
        source,
        &args.out,
        args.shard,
        args.seed,
        Some(&results),
    )?;
    let gpu = match args.backend {
        DeviceArg::Gpu => {
            let ctx = GpuContext::headless()
                .context("no GPU for --backend gpu (pass --backend cpu to compute on the CPU)")?;
            Some((SdfGpu::new(&ctx), ctx))
        }
        DeviceArg::Cpu => None,
    };
    let opts = RunOptions {
        params,
        grid: args.grid,
        report: args.report,
        time_limit: args.time_limit,
        results: Some(results.clone()),
        prefetch: args.prefetch,
        inputs: inputs(source),
    };
    let mut line = ProgressLine::new(jobs.len());
    let summary = crate::dataset::run(&jobs, &opts, gpu.as_ref().map(|g| &g.0), &mut |r| {
        line.advance(r)
    })?;
    println!(
        "{} meshes: {} written, {} skipped (complete), {} failed in {:.1} s ({:.2} meshes/s, distances {:.0}% of the time); results → {}",
        jobs.len(),
        summary.count(Status::Written),
        summary.count(Status::Skipped),
        summary.count(Status::Failed),
        summary.wall_s,
        jobs.len() as f64 / summary.wall_s.max(1e-9),
        100.0 * summary.gpu_s / summary.wall_s.max(1e-9),
        results.display(),
    );
    Ok(())
}
