//! `collidoscope check FIELD.npy --mesh MESH.obj --out report.json`: anyone's
//! signed distance field against the exact one (`crate::stages::check`).

use std::path::PathBuf;

use anyhow::Context;
use glam::Vec3;
use serde_json::json;

use super::BackendArg;
use crate::gpu::GpuContext;
use crate::io::{Format, OutputPlan};
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::stages::check::{self, AxisOrder, ReadOptions};
use crate::stages::sdf::{Backend, SdfGpu};

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub load: super::LoadOpts,
    /// The field: a .npy grid (with collidoscope's sidecar, or with --origin,
    /// --cell-size and --axis-order) or an .npz point set (`centers` or
    /// `points`, and `values`).
    pub field: PathBuf,
    /// The mesh the field is of (OBJ, PLY, STL or OFF; an OBJ's objects merged).
    #[arg(long)]
    pub mesh: PathBuf,
    /// The report (JSON).
    #[arg(long)]
    pub out: PathBuf,
    /// Grid without a sidecar: world position of the value [0, 0, 0].
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true)]
    pub origin: Option<Vec3>,
    /// Grid without a sidecar: the spacing; point sets: the length errors
    /// are counted in as cells.
    #[arg(long)]
    pub cell_size: Option<f32>,
    /// Grid without a sidecar: `zyx` is field[k][j][i], `xyz` field[i][j][k]
    /// (cell (i, j, k) at origin + (i, j, k)·h).
    #[arg(long, value_enum)]
    pub axis_order: Option<AxisArg>,
    /// Who computes the exact grid (point sets: the CPU).
    #[arg(long, value_enum, default_value = "gpu")]
    pub backend: BackendArg,
    /// List at most this many sign disagreements.
    #[arg(long, default_value_t = 10_000)]
    pub max_list: usize,
    /// Check a field whose sidecar records another mesh's hash (a slightly
    /// different mesh) against this one; the report says so.
    #[arg(long)]
    pub ignore_mesh_hash: bool,
    /// Read a field whose data no longer matches its sidecar's checksum
    /// (an edited .npy); the report says so.
    #[arg(long)]
    pub ignore_checksum: bool,
}

/// `--axis-order` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum AxisArg {
    Zyx,
    Xyz,
}

fn parse_vec3(s: &str) -> Result<Vec3, String> {
    let parts: Vec<f32> = s
        .split(',')
        .map(|p| p.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{s:?} is not x,y,z"))?;
    match parts[..] {
        [x, y, z] if parts.iter().all(|v| v.is_finite()) => Ok(Vec3::new(x, y, z)),
        _ => Err(format!("{s:?} is not x,y,z (three finite numbers)")),
    }
}

pub fn run(args: CheckArgs) -> anyhow::Result<()> {
    OutputPlan::new()
        .input("the field", &args.field)
        .input("the field's sidecar", args.field.with_extension("json"))
        .input("--mesh", &args.mesh)
        .output("--out", &args.out, Format::JSON)
        .check()?;
    let options = ReadOptions {
        origin: args.origin,
        cell_size: args.cell_size,
        axis_order: args.axis_order.map(|a| match a {
            AxisArg::Zyx => AxisOrder::Zyx,
            AxisArg::Xyz => AxisOrder::Xyz,
        }),
        ignore_checksum: args.ignore_checksum,
    };
    let mut samples = check::read_samples(&args.field, &options)?;
    let raw = super::load_mesh(&args.mesh, args.load)?;
    let mesh = PreparedMesh::new(&raw)?;
    samples
        .accept_mesh(&mesh, args.ignore_mesh_hash)
        .with_context(|| format!("{} and {}", args.field.display(), args.mesh.display()))?;
    for note in &samples.overrides {
        eprintln!("warning: {note}");
    }
    let wanted = Backend::from(args.backend);
    let ctx = wanted.is_gpu().then(GpuContext::headless).transpose()?;
    let gpu = ctx.as_ref().map(SdfGpu::new);
    let mut report = check::check_report(
        &mesh,
        &samples,
        wanted,
        gpu.as_ref(),
        args.max_list,
        &Progress::default(),
    )?;
    report["field"] = json!(args.field.display().to_string());
    report["mesh"] = json!(args.mesh.display().to_string());
    let text = serde_json::to_string_pretty(&report)?;
    crate::io::write_set(&[(&args.out, text.as_bytes())])
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let number = |key: &str| report[key].as_f64().unwrap_or(f64::NAN);
    let cells = report["max_abs_error_cells"]
        .as_f64()
        .map(|c| format!(" ({c:.3} cells)"))
        .unwrap_or_default();
    println!(
        "{} samples of {} against the exact field of {} ({}, {:.0} ms): max |Δ| {:.3e}{cells}, mean {:.3e}; {} sign disagreements → {}",
        report["points"],
        args.field.display(),
        args.mesh.display(),
        report["reference"]["backend"].as_str().unwrap_or_default(),
        report["reference"]["ms"].as_f64().unwrap_or(f64::NAN),
        number("max_abs_error"),
        number("mean_abs_error"),
        report["sign_disagreements"],
        args.out.display()
    );
    Ok(())
}
