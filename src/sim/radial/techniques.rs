//! What the GPU versions of table 1's alternatives share (Friston & Steed
//! 2019, §9): the skinned mesh as the kernels read it, the per-point
//! answer (signed distance to the nearest triangle within `reach`, [`FAR`]
//! beyond) and the [`GpuTechnique`] interface the bench and the viewer
//! drive: a structure update and a query, each one or more timed passes.
//!
//! The techniques: [`super::hash_gpu`] (uniform spatial hash, rebuilt
//! every frame), [`super::bvh_gpu`] (BVH refitted every frame) and
//! [`super::bone_sdf_gpu`] (per-bone distance grids rebuilt every frame).
//! Their CPU references are [`super::alternatives`] and
//! [`super::bone_sdf`].

use eframe::egui_wgpu::wgpu;
use glam::Vec3;

use crate::gpu::{GpuContext, GpuError, GpuRun, read_buffer, storage_buffer_init};

/// The distance a point with no triangle within reach gets.
pub const FAR: f32 = 3.0e38;

/// A skinned mesh on the GPU: positions (vec4 per vertex, written by the
/// skinning pass every frame) and triangles (three u32 each, uploaded
/// once).
pub struct GpuMesh {
    pub positions: wgpu::Buffer,
    pub triangles: wgpu::Buffer,
    pub num_triangles: u32,
    /// The triangles on the CPU (sizing the structures).
    pub indices: Vec<[u32; 3]>,
}

/// The points a technique answers for: vec4 each (w unused), `count` of
/// them.
#[derive(Clone, Copy)]
pub struct Points<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub count: u32,
}

impl GpuMesh {
    /// `triangles` uploaded beside an existing `positions` buffer.
    pub fn new(
        gpu: &GpuContext,
        positions: &wgpu::Buffer,
        triangles: &[[u32; 3]],
    ) -> Result<Self, GpuError> {
        Ok(GpuMesh {
            positions: positions.clone(),
            triangles: storage_buffer_init(gpu, "GpuMesh::triangles", triangles)?,
            num_triangles: triangles.len() as u32,
            indices: triangles.to_vec(),
        })
    }

    /// Uploads `positions` too (tests, one-off queries).
    pub fn upload(
        gpu: &GpuContext,
        positions: &[Vec3],
        triangles: &[[u32; 3]],
    ) -> Result<Self, GpuError> {
        let pos: Vec<[f32; 4]> = positions.iter().map(|p| p.extend(1.0).into()).collect();
        let buffer = storage_buffer_init(gpu, "GpuMesh::positions", &pos)?;
        Self::new(gpu, &buffer, triangles)
    }
}

/// One alternative to the radial fields, bound to a mesh and points.
pub trait GpuTechnique {
    /// Writes what the frame's pose sets beyond the skinned positions
    /// (the per-bone grids' matrices); nothing for the others.
    fn write_pose(&self, _gpu: &GpuContext, _skin_matrices: &[glam::Mat4]) {}
    /// Records the per-frame rebuild or refit of the structure.
    fn record_update(&self, run: &mut GpuRun<'_>);
    /// Records the query of every point into [`GpuTechnique::distances`].
    fn record_query(&self, run: &mut GpuRun<'_>);
    /// Bytes of the structure (the mesh and the points not counted).
    fn memory_bytes(&self) -> u64;
    /// One f32 per point: signed distance within reach, [`FAR`] beyond.
    fn distances(&self) -> &wgpu::Buffer;
    /// Points queried.
    fn num_points(&self) -> u32;
    /// An error when the last update did not fit its buffers (reads back).
    fn check(&self, gpu: &GpuContext) -> Result<(), GpuError>;
}

/// The distances of the last query, `None` where no triangle was within
/// reach.
pub(crate) fn read_distances(
    gpu: &GpuContext,
    technique: &dyn GpuTechnique,
) -> Result<Vec<Option<f32>>, GpuError> {
    let d: Vec<f32> = read_buffer(gpu, technique.distances(), technique.num_points() as usize)?;
    Ok(d.into_iter().map(|d| (d < FAR).then_some(d)).collect())
}

/// Runs one update and query of `technique` and reads the answers.
pub fn run_once(
    gpu: &GpuContext,
    technique: &dyn GpuTechnique,
) -> Result<Vec<Option<f32>>, GpuError> {
    let mut run = GpuRun::new(gpu, "GpuTechnique::run_once")?;
    technique.record_update(&mut run);
    technique.record_query(&mut run);
    run.finish()?;
    technique.check(gpu)?;
    read_distances(gpu, technique)
}

/// Points as the kernels read them (vec4, w unused).
pub fn upload_points(gpu: &GpuContext, points: &[Vec3]) -> Result<wgpu::Buffer, GpuError> {
    let p: Vec<[f32; 4]> = points.iter().map(|p| p.extend(1.0).into()).collect();
    storage_buffer_init(gpu, "GpuTechnique::points", &p)
}
