//! Command-line interface: headless access to every stage.
//!
//! `collidoscope` alone opens the viewer; subcommands run the same stages
//! without a window. Errors print one line and exit non-zero. Every
//! subcommand that writes files lists what it reads and writes in one
//! [`crate::io::OutputPlan`] and checks it before any work, so an output
//! that would overwrite an input, another output, a missing folder or a
//! wrong extension fails at once and destroys nothing.

mod bench;
mod check;
mod collide;
mod dataset;
mod info;
mod interfere;
mod particles;
mod radial;
mod render;
mod render_legend;
mod sdf;
mod simulate;
mod tritri;
mod usage;

pub use usage::one_line as usage_error_line;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::stages::sdf::{Backend, SignMode};

#[derive(Parser, Debug)]
#[command(
    name = "collidoscope",
    version,
    about = "GPU collision-detection pipelines: viewer and headless tools",
    after_long_help = format!(
        "Input files: each must be a regular file (not a FIFO, device or folder), at most\n{}",
        crate::io::limits_help()
    ),
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Files to open in the viewer (without a subcommand): meshes (.obj,
    /// .ply, .stl, .off), fields (.npy, .npz), particle scenes (.json),
    /// characters (.glb, .gltf).
    pub files: Vec<PathBuf>,
    /// A scripted viewer session, e.g. "open:spot; compute; filter:inside;
    /// screenshot:shot.png; quit" (`--script help` lists the steps).
    #[arg(long)]
    pub script: Option<String>,
    /// Start the viewer with this camera (JSON, as "copy camera" or the
    /// `save-camera:` step writes it) instead of the saved one.
    #[arg(long)]
    pub camera: Option<PathBuf>,
    /// The layout of a bare .npy grid opened (no sidecar): the value [0,0,0]
    /// at X,Y,Z, spacing H, the array's axis order; default: prefilled from
    /// the mesh and the array's shape (cell size 1 at the origin with no mesh).
    #[arg(long, value_name = "X,Y,Z,H,zyx|xyz", allow_hyphen_values = true)]
    pub field_layout: Option<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands with numeric flags take negative values as values
/// (`--iso -0.05`), not as unknown flags.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Mesh report: counts, welding, boundary and non-manifold edges, orientation.
    Info(info::InfoArgs),
    /// Signed distance field of a mesh on a uniform grid, written as .npy + .json.
    #[command(allow_negative_numbers = true)]
    Sdf(sdf::SdfArgs),
    /// Benchmarks: print a table, write JSON, CSV and a PNG plot
    /// (`bench <target> --help` for a target's flags).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Contact points between meshes (and planes, lines, spheres, boxes), as JSON + CSV.
    #[command(allow_negative_numbers = true)]
    Collide(collide::CollideArgs),
    /// Render a mesh, its field's cells or a field slice offscreen to a PNG.
    #[command(allow_negative_numbers = true)]
    Render(render::RenderArgs),
    /// Exact triangle–triangle collision of two posed models, written as JSON.
    Tritri(tritri::TritriArgs),
    /// Image-space interference detection of many models by stencil ray
    /// counting: interfering pairs as JSON, stencil images as PNG + .npy.
    #[command(allow_negative_numbers = true)]
    Interfere(interfere::InterfereArgs),
    /// Check a signed distance field from any tool (.npy grid, .npz points)
    /// against the exact one: errors, sign disagreements, a JSON report.
    #[command(allow_negative_numbers = true)]
    Check(check::CheckArgs),
    /// Radial field (Friston & Steed 2019) of a mesh around one axis:
    /// float32 (nz, nθ) .npy + .json sidecar (+ false-colour PNG).
    #[command(allow_negative_numbers = true)]
    Radial(radial::RadialArgs),
    /// Many meshes falling, colliding and settling (broad phase, narrow
    /// phase, response every frame): a trajectory as JSON.
    #[command(allow_negative_numbers = true)]
    Simulate(simulate::SimulateArgs),
    /// Particles (Knott 2003) flying against analytic colliders: each
    /// impact as a CSV row, impact maps as .npy and PNG.
    #[command(allow_negative_numbers = true)]
    Particles(particles::ParticlesArgs),
    /// Exact signed distances sampled near and around every mesh of a folder,
    /// glob or list (.npz per mesh, a JSON line per mesh), resumable, shardable.
    Dataset(dataset::DatasetArgs),
}

crate::stages::backend::backends! {
    /// `--backend` values.
    #[derive(Clone, Copy, Debug)]
    pub enum BackendArg {
        Gpu { name: "gpu", gpu: true, help: "GPU, BVH-accelerated (exact)" },
        GpuBrute {
            name: "gpu-brute",
            gpu: true,
            help: "GPU brute force: every cell against every triangle",
        },
        Cpu { name: "cpu", gpu: false, help: "CPU, BVH-accelerated, all cores" },
        CpuRef {
            name: "cpu-ref",
            gpu: false,
            help: "CPU reference: every cell against every triangle, one thread",
        },
    }
}

impl From<BackendArg> for Backend {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Gpu => Backend::Gpu,
            BackendArg::GpuBrute => Backend::GpuBrute,
            BackendArg::Cpu => Backend::CpuFast,
            BackendArg::CpuRef => Backend::CpuReference,
        }
    }
}

/// `--sign` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SignArg {
    /// Angle-weighted pseudo-normal of the closest feature (closed meshes).
    PseudoNormal,
    /// Generalised winding number (open or broken meshes).
    Winding,
}

impl From<SignArg> for SignMode {
    fn from(s: SignArg) -> Self {
        match s {
            SignArg::PseudoNormal => SignMode::PseudoNormal,
            SignArg::Winding => SignMode::Winding,
        }
    }
}

/// Runs a subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Info(args) => info::run(args),
        Command::Sdf(args) => sdf::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Render(args) => render::run(args),
        Command::Tritri(args) => tritri::run(args),
        Command::Collide(args) => collide::run(args),
        Command::Simulate(args) => simulate::run(args),
        Command::Interfere(args) => interfere::run(args),
        Command::Check(args) => check::run(args),
        Command::Radial(args) => radial::run(args),
        Command::Particles(args) => particles::run(args),
        Command::Dataset(args) => dataset::run(args),
    }
}

/// How strictly a subcommand loads its OBJ files (the other formats have
/// no face statements to skip).
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct LoadOpts {
    /// Refuse a file with face statements that cannot be loaded as written
    /// (a face of fewer than 3 vertices, a file cut off inside a face)
    /// instead of warning and loading the rest.
    #[arg(long)]
    pub strict: bool,
}

/// Loads a mesh file (OBJ, PLY, STL, OFF) as one mesh (objects merged),
/// with the path in errors.
/// Face statements that were not loaded as written are warnings on stderr,
/// or with `--strict` the error.
pub fn load_mesh(path: &std::path::Path, opts: LoadOpts) -> anyhow::Result<crate::mesh::Mesh> {
    let (mesh, problems) = crate::mesh::load_file_merged(path)?;
    face_problems_ok(path, &problems, opts)?;
    Ok(mesh)
}

/// Warns of each face problem on stderr, or refuses them all with `--strict`.
pub fn face_problems_ok(
    path: &std::path::Path,
    problems: &[crate::mesh::FaceProblem],
    opts: LoadOpts,
) -> anyhow::Result<()> {
    if opts.strict && !problems.is_empty() {
        let listed: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        anyhow::bail!(
            "{}: {} (refused by --strict)",
            path.display(),
            listed.join("; ")
        );
    }
    for p in problems {
        eprintln!("warning: {}: {p}", path.display());
    }
    Ok(())
}
