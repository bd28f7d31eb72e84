//! The viewer's pipelines: flat-shaded mesh, wireframe, instanced cell
//! sprites and debug lines, all drawn in one render pass into a
//! [`RenderTarget`].
//!
//! # Buffers
//!
//! ```text
//! uniforms  ViewUniforms (208 B), one per recorded frame
//! mesh      [MeshVertex a0 b0 c0 | a1 b1 c1 | ...]   un-indexed: 3 per triangle,
//!           40 B each (pos, face normal, linear colour) → flat shading
//! wire      [LineVertex p q | ...]                   each undirected edge once
//! cells     [x y z value | ...]                      f32x4 per instance, 6 verts each
//! lines     [LineVertex p q | ...]                   caller's line list
//! surface   [MeshVertex a b c | ...]                 written on the GPU (an
//!           iso-surface, stages::iso_surface), drawn as it is
//! ```
//!
//! Cells are filtered and coloured in the vertex shader from the uniforms, so
//! changing the filter, colour map or range costs nothing per cell on the
//! CPU; only a new field re-uploads the cell buffer.
//!
//! Cells may also come straight from the GPU ([`ViewRenderer::set_gpu_cells`]):
//! a compute pass writes the `[x y z value]` instances and the indirect
//! draw's instance count, so nothing goes through the CPU (the particles
//! mode's live particles).
//!
//! # Draw order and transparency
//!
//! An opaque mesh (opacity 1) is drawn first, then the wireframe, cells,
//! a GPU-made surface and lines, all depth-tested and depth-writing; the
//! lines again where something hides them, faint (depth test "greater",
//! blended at 45 %), so contacts and pairs inside a body show. A translucent
//! mesh (`ViewSettings::mesh_opacity` < 1) is drawn after everything opaque,
//! with depth test but no depth write, alpha-blended ("over"): first its
//! back faces (front faces culled), then its front faces (back faces
//! culled), so the far wall is composited before the near one — the order
//! that is exact for a convex closed mesh and reads well for others. What
//! lies inside (cells, the pick's line, an iso-surface) was drawn opaque
//! before and shows through both walls. The wireframe comes last, over the
//! translucent faces.
//!
//! The pipelines are made in [`pipelines`], a frame is recorded in
//! [`draw`]; this module holds the scene's buffers and their uploads.

mod draw;
mod pipelines;

use std::collections::HashSet;

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::vertices::{LineVertex, MeshVertex};
use crate::mesh::Mesh;
use draw::Timer;
use pipelines::Pipelines;

/// Neutral light grey of an uncoloured mesh (linear).
pub const MESH_GREY: [f32; 4] = [0.55, 0.55, 0.55, 1.0];
/// Wireframe colour over the shaded mesh, and alone (linear).
const WIRE_OVER_SHADED: [f32; 4] = [0.008, 0.008, 0.008, 1.0];
const WIRE_ALONE: [f32; 4] = [0.6, 0.6, 0.6, 1.0];

/// A vertex buffer and how many elements it holds.
struct Drawable {
    buffer: wgpu::Buffer,
    count: u32,
    /// Elements the buffer has room for (for in-place updates).
    capacity: u32,
}

/// Pipelines and the scene's vertex buffers. Create once per device.
pub struct ViewRenderer {
    pipelines: Pipelines,
    mesh: Option<Drawable>,
    /// Alpha-blended triangles drawn after the opaque scene (e.g. the
    /// radial fields' cylinders), front faces only.
    translucent: Option<Drawable>,
    wire_shaded: Option<Drawable>,
    wire_alone: Option<Drawable>,
    cells: Option<Drawable>,
    /// Cells written on the GPU: instances and `[4, count, 0, 0]` draw arguments.
    gpu_cells: Option<(wgpu::Buffer, wgpu::Buffer)>,
    lines: Option<Drawable>,
    surface: Option<Drawable>,
    timer: Option<Timer>,
}

impl ViewRenderer {
    pub fn new(device: &wgpu::Device) -> Self {
        ViewRenderer {
            pipelines: Pipelines::new(device),
            mesh: None,
            translucent: None,
            wire_shaded: None,
            wire_alone: None,
            cells: None,
            gpu_cells: None,
            lines: None,
            surface: None,
            timer: Timer::new(device),
        }
    }

    /// Uploads `mesh` in neutral grey: un-indexed flat-shaded triangles and
    /// its wireframe edges.
    pub fn set_mesh(&mut self, device: &wgpu::Device, mesh: &Mesh) {
        self.set_mesh_colored(device, mesh, None);
    }

    /// Like [`Self::set_mesh`] with a linear RGBA colour per mesh vertex
    /// (`vertex_colors[i]` for `mesh.positions[i]`; missing entries are grey).
    pub fn set_mesh_colored(
        &mut self,
        device: &wgpu::Device,
        mesh: &Mesh,
        vertex_colors: Option<&[[f32; 4]]>,
    ) {
        let color_of = |v: u32| {
            vertex_colors
                .and_then(|c| c.get(v as usize).copied())
                .unwrap_or(MESH_GREY)
        };
        let position_of = |v: u32| {
            mesh.positions
                .get(v as usize)
                .copied()
                .unwrap_or(Vec3::ZERO)
        };
        let mut vertices = Vec::with_capacity(3 * mesh.triangles.len());
        let mut edges = HashSet::with_capacity(3 * mesh.triangles.len() / 2);
        for (t, tri) in mesh.triangles.iter().enumerate() {
            let normal = mesh.face_normal(t).to_array();
            for &v in tri {
                vertices.push(MeshVertex {
                    pos: position_of(v).to_array(),
                    normal,
                    color: color_of(v),
                });
            }
            for (a, b) in [(tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0])] {
                edges.insert((a.min(b), a.max(b)));
            }
        }
        let mut edges: Vec<(u32, u32)> = edges.into_iter().collect();
        edges.sort_unstable();
        let wire = |color: [f32; 4]| -> Vec<LineVertex> {
            edges
                .iter()
                .flat_map(|&(a, b)| {
                    [
                        LineVertex::new(position_of(a), color),
                        LineVertex::new(position_of(b), color),
                    ]
                })
                .collect()
        };
        self.mesh = drawable(
            device,
            "ViewRenderer::mesh",
            &vertices,
            wgpu::BufferUsages::VERTEX,
        );
        self.wire_shaded = drawable(
            device,
            "ViewRenderer::wire_shaded",
            &wire(WIRE_OVER_SHADED),
            wgpu::BufferUsages::VERTEX,
        );
        self.wire_alone = drawable(
            device,
            "ViewRenderer::wire_alone",
            &wire(WIRE_ALONE),
            wgpu::BufferUsages::VERTEX,
        );
    }

    /// Uploads alpha-blended triangles, three vertices each, wound
    /// counter-clockwise seen from their front (an empty slice removes
    /// them).
    pub fn set_translucent(&mut self, device: &wgpu::Device, vertices: &[MeshVertex]) {
        self.translucent = drawable(
            device,
            "ViewRenderer::translucent",
            vertices,
            wgpu::BufferUsages::VERTEX,
        );
    }

    /// Removes the mesh.
    pub fn clear_mesh(&mut self) {
        self.mesh = None;
        self.wire_shaded = None;
        self.wire_alone = None;
    }

    /// Uploads cells as `[x, y, z, value]` (an empty slice removes them).
    /// See [`super::cells_from_field`].
    pub fn set_cells(&mut self, device: &wgpu::Device, cells: &[[f32; 4]]) {
        self.cells = drawable(
            device,
            "ViewRenderer::cells",
            cells,
            wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        );
    }

    /// Replaces the cells, writing into the existing buffer when it has
    /// room (a recomputed field of the same or smaller grid), otherwise
    /// allocating like [`Self::set_cells`].
    pub fn set_cell_values(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cells: &[[f32; 4]],
    ) {
        match &mut self.cells {
            Some(d) if !cells.is_empty() && cells.len() <= d.capacity as usize => {
                queue.write_buffer(&d.buffer, 0, bytemuck::cast_slice(cells));
                d.count = cells.len() as u32;
            }
            _ => self.set_cells(device, cells),
        }
    }

    /// Draws `instances` (`[x, y, z, value]`, a vertex buffer) as cells too,
    /// as many as `draw_args` (`[4, count, 0, 0]`, an indirect buffer) says;
    /// `None` removes them.
    pub fn set_gpu_cells(&mut self, cells: Option<(wgpu::Buffer, wgpu::Buffer)>) {
        self.gpu_cells = cells;
    }

    /// Uploads debug lines (pairs of vertices; an empty slice removes them).
    pub fn set_lines(&mut self, device: &wgpu::Device, lines: &[LineVertex]) {
        let even = &lines[..lines.len() & !1];
        self.lines = drawable(
            device,
            "ViewRenderer::lines",
            even,
            wgpu::BufferUsages::VERTEX,
        );
    }

    /// Shows a surface whose vertex buffer was written on the GPU: `count`
    /// [`MeshVertex`]es, 3 per triangle (an empty one or `None` removes it).
    /// It is drawn opaque after the cells, whatever the mesh mode.
    pub fn set_surface(&mut self, surface: Option<(wgpu::Buffer, u32)>) {
        self.surface = surface
            .filter(|(_, count)| *count > 0)
            .map(|(buffer, count)| Drawable {
                buffer,
                count,
                capacity: count,
            });
    }

    pub fn cell_count(&self) -> u32 {
        self.cells.as_ref().map_or(0, |d| d.count)
    }

    pub fn mesh_triangle_count(&self) -> u32 {
        self.mesh.as_ref().map_or(0, |d| d.count / 3)
    }

    pub fn line_count(&self) -> u32 {
        self.lines.as_ref().map_or(0, |d| d.count / 2)
    }
}

fn drawable<T: bytemuck::Pod>(
    device: &wgpu::Device,
    label: &str,
    data: &[T],
    usage: wgpu::BufferUsages,
) -> Option<Drawable> {
    if data.is_empty() {
        return None;
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(data),
        usage,
    });
    let count = data.len() as u32;
    Some(Drawable {
        buffer,
        count,
        capacity: count,
    })
}
