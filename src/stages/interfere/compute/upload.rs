//! The scene's geometry for the compute backend (positions, faces with
//! their objects, edges with their pseudo-normals and ids) and what one
//! view adds: the parameters and the `view` buffer of regions, face
//! ranges and broad-phase neighbours (`shaders/interfere_compute.wgsl`).

use eframe::egui_wgpu::wgpu;

use super::InterferenceCompute;
use crate::geom::Aabb;
use crate::gpu::{GpuContext, GpuError, storage_buffer_init};
use crate::stages::interfere::identify::OPEN_BIT;
use crate::stages::interfere::{CullPlan, InterferenceScene, OrthoView, PixelRect};

/// u32 words per object region in the `view` buffer.
pub const REGION_WORDS: u32 = 12;

/// `Params` of shaders/interfere_compute.wgsl (the layout is checked by
/// tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    /// Rows of `OrthoView::to_screen`: framebuffer x, y and depth of a
    /// world point `(p, 1)`.
    pub screen_x: [f32; 4],
    pub screen_y: [f32; 4],
    pub screen_z: [f32; 4],
    pub width: u32,
    pub height: u32,
    pub objects: u32,
    pub faces: u32,
    pub edges: u32,
    /// 1: Alg. 4's per-object counts at every pixel inside something.
    pub pair_passes: u32,
    pub edge_offset: f32,
    /// 1: write the images (read pixels); 0: only the tallies, and
    /// pixels without an edge point count nothing.
    pub images: u32,
}

/// One edge of shaders/interfere_compute.wgsl: end points (`a.w`: the
/// object, `b.w`: global edge + 1, as bits) and vertex pseudo-normals.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuEdge {
    pub a: [f32; 4],
    pub b: [f32; 4],
    pub na: [f32; 4],
    pub nb: [f32; 4],
}

/// A scene resident on the GPU for the compute backend.
pub struct ComputeScene {
    pub(super) positions: wgpu::Buffer,
    pub(super) faces: wgpu::Buffer,
    pub(super) edges: wgpu::Buffer,
    /// Per object, its first face; then the number of faces.
    pub(super) face_starts: Vec<u32>,
    pub(super) edge_count: u32,
    pub bounds: Vec<Aabb>,
}

impl ComputeScene {
    pub(crate) fn object_count(&self) -> usize {
        self.bounds.len()
    }

    pub(crate) fn face_count(&self) -> u32 {
        *self.face_starts.last().unwrap_or(&0)
    }
}

impl InterferenceCompute {
    /// Uploads the objects of `scene` (world coordinates, already posed).
    pub fn upload(
        &self,
        gpu: &GpuContext,
        scene: &InterferenceScene,
    ) -> Result<ComputeScene, GpuError> {
        let mut positions: Vec<[f32; 4]> = Vec::new();
        let mut faces: Vec<[u32; 4]> = Vec::new();
        let mut edges: Vec<GpuEdge> = Vec::new();
        let mut face_starts = vec![0u32];
        for (k, o) in scene.objects.iter().enumerate() {
            let base = positions.len() as u32;
            positions.extend(o.mesh.positions.iter().map(|p| p.extend(0.0).to_array()));
            let object = k as u32 | if o.closed { 0 } else { OPEN_BIT };
            faces.extend(
                o.mesh
                    .triangles
                    .iter()
                    .map(|t| [t[0] + base, t[1] + base, t[2] + base, object]),
            );
            face_starts.push(faces.len() as u32);
            let end = |v: u32, w: u32| {
                let p = o.mesh.positions[v as usize];
                p.extend(f32::from_bits(w)).to_array()
            };
            let normal = |v: u32| {
                let n = o.vertex_normals.get(v as usize).copied();
                n.unwrap_or_default().extend(0.0).to_array()
            };
            for &[va, vb] in &o.edges {
                let id = edges.len() as u32 + 1;
                edges.push(GpuEdge {
                    a: end(va, k as u32),
                    b: end(vb, id),
                    na: normal(va),
                    nb: normal(vb),
                });
            }
        }
        Ok(ComputeScene {
            positions: storage_buffer_init(gpu, "ComputeScene::positions", &positions)?,
            faces: storage_buffer_init(gpu, "ComputeScene::faces", &faces)?,
            edges: storage_buffer_init(gpu, "ComputeScene::edges", &edges)?,
            face_starts,
            edge_count: edges.len() as u32,
            bounds: scene.objects.iter().map(|o| o.bounds()).collect(),
        })
    }
}

/// The parameters of one view.
pub(super) fn params(
    scene: &ComputeScene,
    view: &OrthoView,
    edge_offset: f32,
    pair_passes: bool,
    images: bool,
) -> Params {
    // to_screen is affine: its rows from the images of the origin and the
    // unit vectors.
    let origin = view.to_screen(glam::DVec3::ZERO);
    let row = |c: usize| {
        let mut r = [0.0f32; 4];
        for (axis, unit) in [glam::DVec3::X, glam::DVec3::Y, glam::DVec3::Z]
            .into_iter()
            .enumerate()
        {
            r[axis] = (view.to_screen(unit)[c] - origin[c]) as f32;
        }
        r[3] = origin[c] as f32;
        r
    };
    Params {
        screen_x: row(0),
        screen_y: row(1),
        screen_z: row(2),
        width: view.width,
        height: view.height,
        objects: scene.object_count() as u32,
        faces: scene.face_count(),
        edges: scene.edge_count,
        pair_passes: pair_passes as u32,
        edge_offset,
        images: images as u32,
    }
}

/// The `view` buffer's words: per object its region (scissor, edge box
/// and whether it is drawn; with `cull` the plan's, otherwise the whole
/// viewport and everything), the face starts, and the plan's neighbour
/// lists (the pair candidates either way, as in the stencil path).
pub(super) fn view_words(
    scene: &ComputeScene,
    view: &OrthoView,
    plan: &CullPlan,
    cull: bool,
) -> Vec<u32> {
    let n = scene.object_count();
    let everything = PixelRect {
        x0: 0,
        y0: 0,
        x1: view.width,
        y1: view.height,
    };
    let mut words = Vec::with_capacity(REGION_WORDS as usize * n + 2 * (n + 1));
    for k in 0..n {
        let (scissor, lo, hi, active) = match (cull, plan.regions[k]) {
            (false, _) => (everything, [f32::MIN; 3], [f32::MAX; 3], true),
            (true, None) => (everything, [0.0; 3], [0.0; 3], false),
            (true, Some(r)) => (
                r.scissor,
                r.edge_min.as_vec3().to_array(),
                r.edge_max.as_vec3().to_array(),
                true,
            ),
        };
        words.extend([scissor.x0, scissor.y0, scissor.x1, scissor.y1]);
        words.extend(lo.map(f32::to_bits));
        words.push((active as u32 as f32).to_bits());
        words.extend(hi.map(f32::to_bits));
        words.push(0);
    }
    words.extend(&scene.face_starts);
    let mut start = 0u32;
    for k in 0..=n {
        words.push(start);
        start += plan.neighbours.get(k).map_or(0, |l| l.len() as u32);
    }
    words.extend(plan.neighbours.iter().flatten().map(|&j| j as u32));
    words
}
