//! Table 1's alternatives (Friston & Steed 2019, §9) bound to one skinned
//! mesh and one set of points, for `bench radial` and the radial viewer
//! mode alike: [`AltKernels`] (the pipelines, made once per device),
//! [`bind`] (each chosen technique built on the mesh and points) and
//! [`measure_once`] (one structure update and one query of each, timed).
//!
//! The techniques themselves: [`super::bone_sdf_gpu`] (per-bone distance
//! grids), [`super::hash_gpu`] (uniform spatial hash) and
//! [`super::bvh_gpu`] (BVH refit); their shared interface is
//! [`super::techniques::GpuTechnique`].

use glam::Mat4;

use super::alternatives::BVH_LEAF;
use super::bone_sdf::BoneSdfs;
use super::bone_sdf_gpu::{BoneSdfKernels, GpuBoneSdfs};
use super::bvh_gpu::{BvhKernels, GpuBvh};
use super::hash_gpu::{GpuHash, HashKernels};
use super::techniques::{GpuMesh, GpuTechnique, Points, read_distances};
use crate::gpu::{GpuContext, GpuPhase, GpuRun};
use crate::sim::radial::character::Character;

/// Table 1's techniques beside the radial fields (`--alternatives`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Technique {
    Sdf,
    Hash,
    Bvh,
}

/// The alternatives' pipelines, made once per device.
pub struct AltKernels {
    sdf: BoneSdfKernels,
    hash: HashKernels,
    bvh: BvhKernels,
}

impl AltKernels {
    pub fn new(ctx: &GpuContext) -> Self {
        AltKernels {
            sdf: BoneSdfKernels::new(ctx),
            hash: HashKernels::new(ctx),
            bvh: BvhKernels::new(ctx),
        }
    }
}

/// What the alternatives are set up with.
pub struct AltSetup<'a> {
    pub techniques: &'a [Technique],
    /// Cells per axis of the per-bone grids, one technique each.
    pub sdf_res: &'a [u32],
    /// Contact distance of the queries (m).
    pub reach: f32,
    /// Cell size of the spatial hash (m, at least `reach`).
    pub hash_cell: f32,
}

/// One technique bound to the scene, with its table label and structure.
pub struct Bound<'k> {
    pub technique: String,
    pub structure: String,
    pub gpu: Box<dyn GpuTechnique + 'k>,
}

/// Every technique of `setup` on `character`'s skinned `mesh`, queried by
/// `points`.
pub fn bind<'k>(
    ctx: &GpuContext,
    k: &'k AltKernels,
    setup: &AltSetup<'_>,
    character: &Character,
    mesh: &GpuMesh,
    points: Points<'_>,
) -> anyhow::Result<Vec<Bound<'k>>> {
    let mut out: Vec<Bound<'k>> = Vec::new();
    let rest = &character.rest;
    for &t in setup.techniques {
        match t {
            Technique::Sdf => {
                for &res in setup.sdf_res {
                    let grids = BoneSdfs::fit(
                        rest,
                        &character.triangles,
                        &character.fields,
                        res,
                        setup.reach,
                    )?;
                    let structure = format!("{res}³ × {}", grids.bones.len());
                    let gpu = GpuBoneSdfs::new(&k.sdf, ctx, mesh, grids, points, setup.reach)?;
                    out.push(Bound {
                        technique: "per-bone SDF".into(),
                        structure,
                        gpu: Box::new(gpu),
                    });
                }
            }
            Technique::Hash => {
                let gpu = GpuHash::new(
                    &k.hash,
                    ctx,
                    mesh,
                    rest,
                    points,
                    setup.hash_cell,
                    setup.reach,
                )?;
                out.push(Bound {
                    technique: "spatial hash".into(),
                    structure: format!("cell {} cm", setup.hash_cell * 100.0),
                    gpu: Box::new(gpu),
                });
            }
            Technique::Bvh => {
                let gpu = GpuBvh::new(&k.bvh, ctx, mesh, rest, points, setup.reach)?;
                out.push(Bound {
                    technique: "BVH (refit)".into(),
                    structure: format!("{BVH_LEAF}-triangle leaves"),
                    gpu: Box::new(gpu),
                });
            }
        }
    }
    Ok(out)
}

/// Points the technique found within reach in its last query.
pub fn contacts(ctx: &GpuContext, gpu: &dyn GpuTechnique) -> anyhow::Result<usize> {
    gpu.check(ctx)?;
    Ok(read_distances(ctx, gpu)?.iter().flatten().count())
}

/// One technique's single update and query.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub technique: String,
    pub structure: String,
    /// The structure's rebuild or refit (ms).
    pub update_ms: f64,
    /// Every point's query (ms).
    pub query_ms: f64,
    /// The times are GPU timestamps (else the wall time of each
    /// submission, waiting included).
    pub gpu_timed: bool,
    pub memory_bytes: u64,
    /// Points within reach.
    pub contacts: usize,
}

/// One submission's time: the sum of its phases' GPU times when every
/// phase has one, else its wall time.
fn run_ms(phases: &[GpuPhase], wall_ms: f64) -> (f64, bool) {
    let gpu: Option<f64> = phases.iter().map(|p| p.gpu_ms).sum();
    match gpu {
        Some(ms) if !phases.is_empty() => (ms, true),
        _ => (wall_ms, false),
    }
}

/// Each bound technique once on the pose of `skin_matrices` (the mesh's
/// positions already skinned): the update and the query in two
/// submissions, each timed, then checked and its contacts counted.
pub fn measure_once(
    ctx: &GpuContext,
    techniques: &[Bound<'_>],
    skin_matrices: &[Mat4],
) -> anyhow::Result<Vec<Measured>> {
    let mut out = Vec::new();
    for t in techniques {
        t.gpu.write_pose(ctx, skin_matrices);
        let mut run = GpuRun::new(ctx, "table 1 update")?;
        t.gpu.record_update(&mut run);
        let (phases, wall) = run.finish()?;
        let (update_ms, update_gpu) = run_ms(&phases, wall);
        let mut run = GpuRun::new(ctx, "table 1 query")?;
        t.gpu.record_query(&mut run);
        let (phases, wall) = run.finish()?;
        let (query_ms, query_gpu) = run_ms(&phases, wall);
        out.push(Measured {
            technique: t.technique.clone(),
            structure: t.structure.clone(),
            update_ms,
            query_ms,
            gpu_timed: update_gpu && query_gpu,
            memory_bytes: t.gpu.memory_bytes(),
            contacts: contacts(ctx, t.gpu.as_ref())?,
        });
    }
    Ok(out)
}
