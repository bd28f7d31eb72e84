//! `collidoscope sdf MESH.obj --res N --out field.npy`, or with
//! `--adaptive --depth 10 --out field.npz` the exact adaptive (octree) field.

use std::path::PathBuf;

use anyhow::Context;

use super::{BackendArg, SignArg};
use crate::gpu::GpuContext;
use crate::io::{Format, OutputPlan};
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::stages::adaptive::export::{sidecar, write_adaptive_field};
use crate::stages::adaptive::{self, AdaptiveBvh, AdaptiveGpu, AdaptiveParams};
use crate::stages::sdf::export::{FieldSource, sidecar_path, write_field};
use crate::stages::sdf::{self, Backend, CacheOutcome, FieldCache, SdfGpu, SdfParams, SignMode};

#[derive(clap::Args, Debug)]
pub struct SdfArgs {
    #[command(flatten)]
    pub load: super::LoadOpts,
    /// Mesh file: OBJ, PLY, STL or OFF (an OBJ's objects merged).
    pub mesh: PathBuf,
    /// Cells along the longest axis (8–512).
    #[arg(long, default_value_t = 64)]
    pub res: u32,
    /// Where the field is computed.
    #[arg(long, value_enum, default_value = "gpu")]
    pub backend: BackendArg,
    /// Grid thickness: padding on every side, as a fraction of the longest side.
    #[arg(long, default_value_t = 0.1)]
    pub pad: f32,
    /// Field thickness: exact distances only within this many cells of the surface.
    #[arg(long)]
    pub band: Option<f32>,
    /// Sign mode; default: pseudo-normal when the mesh is closed and consistently
    /// oriented, winding otherwise.
    #[arg(long, value_enum)]
    pub sign: Option<SignArg>,
    /// Output .npy file; the JSON sidecar goes beside it.
    #[arg(long)]
    pub out: PathBuf,
    /// Neither read nor write the field cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Cache directory (default: ~/.cache/collidoscope).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Exact adaptive field on an octree (Liu & Kim 2014) instead of a grid;
    /// `--out` is then an .npz (centers, half_sizes, values, depth, parent,
    /// first_child, closest). Backends: gpu, or cpu / cpu-ref (the reference).
    #[arg(long)]
    pub adaptive: bool,
    /// Adaptive: maximum octree depth m (at most 10).
    #[arg(long, default_value_t = 10)]
    pub depth: u32,
    /// Adaptive: start depth l (the 8^l roots).
    #[arg(long, default_value_t = 3)]
    pub start_depth: u32,
    /// Adaptive: a node holding more than this many triangles is subdivided.
    #[arg(long, default_value_t = 1)]
    pub alpha: u32,
    #[command(flatten)]
    pub adaptive_opts: AdaptiveOpts,
}

/// The adaptive stage's switches, shared by `sdf --adaptive` and `bench
/// adaptive`.
#[derive(clap::Args, Debug, Clone)]
pub struct AdaptiveOpts {
    /// Adaptive: start each query from the mesh's first triangle instead of
    /// the parent's closest triangle (the paper's arbitrary-bound ablation).
    #[arg(long)]
    pub no_parent_bound: bool,
    /// Adaptive: the BVH the queries traverse.
    #[arg(long, value_enum, default_value_t = AdaptiveParams::default().bvh)]
    pub bvh: AdaptiveBvh,
    /// Adaptive: multi-BVH groups are the occupied cells of this octree depth.
    #[arg(long, default_value_t = AdaptiveParams::default().group_level)]
    pub group_level: u32,
    /// Adaptive: BVH nodes with fewer triangles are built by one invocation.
    #[arg(long, default_value_t = AdaptiveParams::default().small_node)]
    pub small_node: u32,
    /// Adaptive: small BVH nodes compute their own axes instead of reusing
    /// their subtree root's.
    #[arg(long)]
    pub no_axis_approximation: bool,
    /// Adaptive, GPU, RSS BVHs: depths with fewer nodes than this query one
    /// node per workgroup, its BVHs spread over the invocations (0: never)
    #[arg(long, default_value_t = 8_192)]
    pub wide_below: u32,
}

impl AdaptiveOpts {
    /// The parameters with these switches and the given depths.
    pub fn params(
        &self,
        start_depth: u32,
        max_depth: u32,
        alpha: u32,
        padding: f32,
    ) -> AdaptiveParams {
        AdaptiveParams {
            start_depth,
            max_depth,
            alpha,
            padding,
            parent_bound: !self.no_parent_bound,
            bvh: self.bvh,
            group_level: self.group_level,
            small_node: self.small_node,
            axis_approximation: !self.no_axis_approximation,
            wide_below: self.wide_below,
            sign_mode: SignMode::PseudoNormal,
        }
    }
}

pub fn run(args: SdfArgs) -> anyhow::Result<()> {
    // Both kinds of field put their sidecar at `--out` with extension .json.
    OutputPlan::new()
        .input("the mesh", &args.mesh)
        .output(
            "--out",
            &args.out,
            if args.adaptive {
                Format::NPZ
            } else {
                Format::NPY
            },
        )
        .output("--out's sidecar", sidecar_path(&args.out), Format::JSON)
        .check()?;
    if args.adaptive {
        return run_adaptive(args);
    }
    let raw = super::load_mesh(&args.mesh, args.load)?;
    let mesh = PreparedMesh::new(&raw)?;
    let (sign_mode, why) = match args.sign {
        Some(s) => (SignMode::from(s), "as requested".to_string()),
        None => sdf::default_sign_mode(&mesh.report),
    };
    let params = SdfParams {
        resolution: args.res,
        padding: args.pad,
        band: args.band,
        sign_mode,
    };
    params.validate()?;
    let backend = Backend::from(args.backend);
    if sign_mode == SignMode::PseudoNormal {
        warn_pseudo_normal(&mesh, " (try --sign winding)");
    }

    let cache = (!args.no_cache).then(|| {
        FieldCache::new(
            args.cache_dir
                .clone()
                .unwrap_or_else(FieldCache::default_dir),
        )
    });
    let mut cache_state = "off".to_string();
    let mut field = None;
    if let Some(cache) = &cache {
        match cache.load(mesh.source_hash, &params, backend) {
            CacheOutcome::Hit(f) => {
                cache_state = "hit".into();
                field = Some(*f);
            }
            CacheOutcome::Miss => cache_state = "miss".into(),
            CacheOutcome::Rejected(reason) => {
                eprintln!("warning: cache entry rejected and rebuilt: {reason}");
                cache_state = format!("rejected: {reason}");
            }
        }
    }
    let mut adapter = None;
    let field = match field {
        Some(f) => f,
        None => {
            let gpu = if backend.is_gpu() {
                let ctx = GpuContext::headless()?;
                adapter = Some(ctx.describe());
                Some(SdfGpu::new(&ctx))
            } else {
                None
            };
            let f = sdf::compute(&mesh, &params, backend, gpu.as_ref(), &Progress::default())?;
            if let Some(cache) = &cache
                && let Err(e) = cache.store(mesh.source_hash, &f)
            {
                eprintln!("warning: could not write the field cache: {e}");
            }
            f
        }
    };
    let source = FieldSource {
        mesh_file: &args.mesh.display().to_string(),
        cache: &cache_state,
        adapter,
    };
    write_field(&args.out, &field, &mesh, &source)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    note_repairs(&mesh);
    let d = field.grid.dims;
    println!(
        "{}×{}×{} field of {} ({} triangles) by {} in {:.1} ms{}; sign: {} ({why}); {} inside, {} far → {}",
        d.x,
        d.y,
        d.z,
        args.mesh.display(),
        mesh.triangle_count(),
        field.backend.name(),
        field.timings.total_wall_ms(),
        if cache_state == "hit" {
            " (from cache)"
        } else {
            ""
        },
        sign_mode.name(),
        field.inside_cells(),
        field.far_cells(),
        args.out.display(),
    );
    Ok(())
}

fn run_adaptive(args: SdfArgs) -> anyhow::Result<()> {
    let params = args
        .adaptive_opts
        .params(args.start_depth, args.depth, args.alpha, args.pad);
    params.validate()?;
    if args.band.is_some() {
        anyhow::bail!("--band applies to grids; the adaptive field is exact everywhere");
    }
    let raw = super::load_mesh(&args.mesh, args.load)?;
    let mesh = PreparedMesh::new(&raw)?;
    let (sign_mode, why) = match args.sign {
        Some(s) => (SignMode::from(s), "as requested".to_string()),
        None => sdf::default_sign_mode(&mesh.report),
    };
    let params = AdaptiveParams {
        sign_mode,
        ..params
    };
    if sign_mode == SignMode::PseudoNormal {
        warn_pseudo_normal(&mesh, " (try --sign winding)");
    }
    // The reference is printed as "cpu-ref", as the grid names it.
    let (stage_backend, backend) = match args.backend {
        BackendArg::Gpu | BackendArg::GpuBrute => (adaptive::Backend::Gpu, "gpu"),
        BackendArg::Cpu | BackendArg::CpuRef => (adaptive::Backend::Cpu, "cpu-ref"),
    };
    let ctx = (stage_backend == adaptive::Backend::Gpu)
        .then(GpuContext::headless)
        .transpose()?;
    let stage = ctx.as_ref().map(AdaptiveGpu::new);
    let field = adaptive::run(&mesh, &params, stage_backend, stage.as_ref())?;
    let adapter = ctx.map(|c| c.describe());
    let mesh_file = args.mesh.display().to_string();
    let json = sidecar(&field, &mesh, &mesh_file, backend, adapter);
    write_adaptive_field(&args.out, &field, &json)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    note_repairs(&mesh);
    let inside = field.values.iter().filter(|&&v| v < 0.0).count();
    println!(
        "adaptive field of {} ({} triangles): {} nodes, depths {}..={}, by {backend} in {:.1} ms; sign: {} ({why}); {inside} inside → {}",
        mesh_file,
        mesh.triangle_count(),
        field.octree.nodes.len(),
        params.start_depth,
        params.max_depth,
        field.timings.total_wall_ms(),
        sign_mode.name(),
        args.out.display(),
    );
    Ok(())
}

/// What is wrong with the mesh for the pseudo-normal sign, on stderr.
fn warn_pseudo_normal(mesh: &PreparedMesh, hint: &str) {
    if let Some(problem) = mesh.report.pseudo_normal_problem() {
        eprintln!(
            "warning: pseudo-normal sign on a mesh that is {problem}; signs near those defects are arbitrary{hint}"
        );
    }
}

/// What the written field did about the defects it repairs, on stderr
/// (after the field is written, so a failed run prints its error alone).
fn note_repairs(mesh: &PreparedMesh) {
    if mesh.shells_flipped > 0 {
        let (shells, they, their) = if mesh.shells_flipped == 1 {
            ("closed shell", "it was", "its")
        } else {
            ("closed shells", "they were", "their")
        };
        eprintln!(
            "note: {} {shells} faced inward (negative signed volume); {they} flipped, so {their} inside is inside",
            mesh.shells_flipped
        );
    }
    if mesh.duplicates_removed > 0 {
        eprintln!(
            "note: {} duplicate faces left out of the field (pairs wound opposite ways cancel; repeats count once)",
            mesh.duplicates_removed
        );
    }
}
