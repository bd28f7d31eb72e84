//! The scene's geometry on the GPU: positions, triangle indices, object
//! ids and edge vertices of every object, and the buffers the culling pass
//! writes (compacted lists, draw arguments).

use std::ops::Range;

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::InterferenceGpu;
use crate::geom::Aabb;
use crate::gpu::GpuContext;
use crate::stages::interfere::InterferenceScene;
use crate::stages::interfere::identify::OPEN_BIT;

/// u32s of draw arguments per job slot (per object in the main passes):
/// `DrawIndexedIndirect` of its faces, then of its edges.
pub(super) const ARGS_PER_OBJECT: usize = 10;
/// Byte offset of slot `k`'s face (`edges` false) or edge arguments.
pub(super) fn args_offset(k: usize, edges: bool) -> u64 {
    4 * (ARGS_PER_OBJECT * k + if edges { 5 } else { 0 }) as u64
}

/// One end of an edge: the vertex inputs of `vs_edge` in
/// shaders/interfere.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct EdgeVertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    /// (object index, global edge index).
    pub ids: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<EdgeVertex>() == 32);

/// A scene's geometry resident on the GPU, with room for the culled lists
/// of one view (rewritten by every run: runs on one scene must not
/// overlap, which the stage's lock on its targets ensures).
pub struct UploadedScene {
    pub(super) positions: wgpu::Buffer,
    pub(super) indices: wgpu::Buffer,
    /// Per vertex: its object, with [`OPEN_BIT`] for an open mesh (the
    /// weighted counting pass).
    pub(super) face_objects: wgpu::Buffer,
    pub(super) edges: wgpu::Buffer,
    /// The culled triangles' indices, object k's at `face_ranges[k].start`.
    pub(super) culled_faces: wgpu::Buffer,
    /// The culled edges' vertex indices, object k's at
    /// `edge_ranges[k].start`.
    pub(super) culled_edges: wgpu::Buffer,
    /// [`ARGS_PER_OBJECT`] per object, written by the culling pass.
    pub(super) draw_args: wgpu::Buffer,

    /// Per object: its range of `indices`.
    pub(super) face_ranges: Vec<Range<u32>>,
    /// Per object: its range of edge vertices (2 per edge).
    pub(super) edge_ranges: Vec<Range<u32>>,
    pub bounds: Vec<Aabb>,
}

impl UploadedScene {
    pub(crate) fn object_count(&self) -> usize {
        self.face_ranges.len()
    }
}

impl InterferenceGpu {
    /// Uploads the objects of `scene` (world coordinates, already posed).
    pub fn upload(&self, gpu: &GpuContext, scene: &InterferenceScene) -> UploadedScene {
        let mut positions: Vec<[f32; 3]> = Vec::new();
        let mut indices: Vec<u32> = Vec::new();
        let mut face_objects: Vec<u32> = Vec::new();
        let mut edges: Vec<EdgeVertex> = Vec::new();
        let mut face_ranges = Vec::new();
        let mut edge_ranges = Vec::new();
        let mut edge_count = 0u32;
        for (k, o) in scene.objects.iter().enumerate() {
            let base = positions.len() as u32;
            positions.extend(o.mesh.positions.iter().map(|p| p.to_array()));
            let object = k as u32 | if o.closed { 0 } else { OPEN_BIT };
            face_objects.resize(positions.len(), object);
            let first = indices.len() as u32;
            indices.extend(o.mesh.triangles.iter().flatten().map(|&i| i + base));
            face_ranges.push(first..indices.len() as u32);
            let first_edge = edges.len() as u32;
            for &[a, b] in &o.edges {
                for v in [a, b] {
                    edges.push(EdgeVertex {
                        pos: o.mesh.positions[v as usize].to_array(),
                        normal: o
                            .vertex_normals
                            .get(v as usize)
                            .copied()
                            .unwrap_or_default()
                            .to_array(),
                        ids: [k as u32, edge_count],
                    });
                }
                edge_count += 1;
            }
            edge_ranges.push(first_edge..edges.len() as u32);
        }
        let buffer = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
            gpu.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: if contents.is_empty() {
                        &[0; 4]
                    } else {
                        contents
                    },
                    usage,
                })
        };
        // Read by the culling pass as storage too.
        let geometry = |usage| usage | wgpu::BufferUsages::STORAGE;
        let list = |label, entries, usage| list_buffer(&gpu.device, label, entries, usage);
        UploadedScene {
            positions: buffer(
                "UploadedScene::positions",
                bytemuck::cast_slice(&positions),
                geometry(wgpu::BufferUsages::VERTEX),
            ),
            indices: buffer(
                "UploadedScene::indices",
                bytemuck::cast_slice(&indices),
                geometry(wgpu::BufferUsages::INDEX),
            ),
            face_objects: buffer(
                "UploadedScene::face_objects",
                bytemuck::cast_slice(&face_objects),
                wgpu::BufferUsages::VERTEX,
            ),
            edges: buffer(
                "UploadedScene::edges",
                bytemuck::cast_slice(&edges),
                geometry(wgpu::BufferUsages::VERTEX),
            ),
            culled_faces: list(
                "UploadedScene::culled_faces",
                indices.len(),
                wgpu::BufferUsages::INDEX,
            ),
            culled_edges: list(
                "UploadedScene::culled_edges",
                edges.len(),
                wgpu::BufferUsages::INDEX,
            ),
            draw_args: list(
                "UploadedScene::draw_args",
                ARGS_PER_OBJECT * face_ranges.len(),
                wgpu::BufferUsages::INDIRECT
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
            ),
            face_ranges,
            edge_ranges,
            bounds: scene.objects.iter().map(|o| o.bounds()).collect(),
        }
    }
}

/// A storage buffer of `entries` u32s (at least one), also for `usage`.
pub(super) fn list_buffer(
    device: &wgpu::Device,
    label: &str,
    entries: usize,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: 4 * entries.max(1) as u64,
        usage: usage | wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    })
}
