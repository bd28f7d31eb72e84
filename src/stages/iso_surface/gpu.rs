//! The GPU backend: count, scan, emit (module docs of [`super`]). Shader:
//! `shaders/iso_surface.wgsl`.

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::{FieldGrid, IsoError, table};
use crate::gpu::{
    BufferCheck, GpuContext, GpuRun, Kernels, dispatch_dims, read_buffer, shader_source,
    storage_buffer_init, storage_buffer_zeroed,
};
use crate::timing::Timings;

/// Uniform parameters: `struct Params` of shaders/iso_surface.wgsl (the
/// layout is checked by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    /// xyz: centre of cell (0, 0, 0); w: cell size.
    pub origin: [f32; 4],
    /// Linear RGBA of the emitted vertices.
    pub color: [f32; 4],
    /// Cells per axis; w: 0.
    pub cells: [u32; 4],
    /// Cubes per axis; w: cubes in all.
    pub cubes: [u32; 4],
    pub level: f32,
    /// Workgroups of [`WORKGROUP`] cubes.
    pub blocks: u32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<Params>() == 80);

/// Cubes per workgroup (the shader's `WORKGROUP`, = its scan's width).
pub const WORKGROUP: u32 = 256;
/// f32 words per emitted vertex: the view's `MeshVertex`.
const VERTEX_WORDS: u64 = 10;

/// The stage's pipelines and its case table, created once per device.
pub struct IsoSurfaceGpu {
    gpu: GpuContext,
    kernels: Kernels,
    count: wgpu::ComputePipeline,
    scan_blocks: wgpu::ComputePipeline,
    emit: wgpu::ComputePipeline,
    table: wgpu::Buffer,
}

/// An extracted surface, resident on the GPU: `triangles × 3` vertices in
/// the layout of [`crate::view`]'s `MeshVertex`, ready to draw.
pub struct GpuSurface {
    pub vertices: wgpu::Buffer,
    pub triangles: u32,
    pub timings: Timings,
}

impl IsoSurfaceGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "IsoSurfaceGpu", shader_source("iso_surface.wgsl"));
        let table = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("IsoSurfaceGpu::table"),
                contents: bytemuck::cast_slice(&table::gpu_words()),
                usage: wgpu::BufferUsages::STORAGE,
            });
        IsoSurfaceGpu {
            gpu: gpu.clone(),
            count: kernels.pipeline(gpu, "count"),
            scan_blocks: kernels.pipeline(gpu, "scan_blocks"),
            emit: kernels.pipeline(gpu, "emit"),
            kernels,
            table,
        }
    }

    /// Extracts the level set `level` of `field` into a vertex buffer,
    /// each vertex coloured `color` (linear RGBA). Blocking: the total is
    /// read back between the scan and the emission to size the buffer.
    pub fn extract(
        &self,
        field: FieldGrid<'_>,
        level: f32,
        color: [f32; 4],
    ) -> Result<GpuSurface, IsoError> {
        puffin::profile_function!();
        field.check(level)?;
        let gpu = &self.gpu;
        let cubes = field.cube_count();
        let blocks = cubes.div_ceil(WORKGROUP as u64);
        let d = field.cube_dims();
        let g = field.grid;
        let params = Params {
            origin: g.origin.extend(g.cell_size).to_array(),
            color,
            cells: g.dims.extend(0).to_array(),
            cubes: [d.x, d.y, d.z, cubes as u32],
            level,
            blocks: blocks as u32,
            _pad: [0; 2],
        };
        let uniform = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("IsoSurfaceGpu::params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let values = storage_buffer_init(gpu, "IsoSurfaceGpu::values", field.values)?;
        let zeroed = |label, bytes| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
        let block_sums = zeroed("IsoSurfaceGpu::blocks", blocks.max(1) * 4)?;
        let total = zeroed("IsoSurfaceGpu::total", 4)?;
        let (x, y) = dispatch_dims(blocks as u32);
        let mut timings = Timings::default();

        let no_vertices = zeroed("IsoSurfaceGpu::no_vertices", 4 * VERTEX_WORDS)?;
        let bind = |vertices: &wgpu::Buffer| {
            self.kernels.bind(
                gpu,
                &[
                    ("params", &uniform),
                    ("values", &values),
                    ("table", &self.table),
                    ("blocks", &block_sums),
                    ("total", &total),
                    ("vertices", vertices),
                ],
            )
        };
        let counting = bind(&no_vertices);
        let mut run = GpuRun::new(gpu, "IsoSurfaceGpu::count")?;
        run.compute_pass("count + scan", |p| {
            p.set_bind_group(0, &counting, &[]);
            if blocks > 0 {
                p.set_pipeline(&self.count);
                p.dispatch_workgroups(x, y, 1);
            }
            p.set_pipeline(&self.scan_blocks);
            p.dispatch_workgroups(1, 1, 1);
        });
        push_run(&mut timings, "count + scan", run.finish()?);
        let triangles: u32 = read_buffer::<u32>(gpu, &total, 1)?[0];

        let bytes = (triangles as u64 * 3 * VERTEX_WORDS * 4).max(4 * VERTEX_WORDS);
        gpu.check_storage_size("the iso-surface's vertices", bytes)?;
        let vertices = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("IsoSurfaceGpu::vertices"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        if triangles > 0 {
            let emitting = bind(&vertices);
            let mut run = GpuRun::new(gpu, "IsoSurfaceGpu::emit")?;
            run.compute_pass("emit", |p| {
                p.set_bind_group(0, &emitting, &[]);
                p.set_pipeline(&self.emit);
                p.dispatch_workgroups(x, y, 1);
            });
            push_run(&mut timings, "emit", run.finish()?);
        }
        Ok(GpuSurface {
            vertices,
            triangles,
            timings,
        })
    }

    /// The surface's triangles, read back (tests, exports).
    pub(crate) fn read_triangles(&self, surface: &GpuSurface) -> Result<Vec<[Vec3; 3]>, IsoError> {
        let n = surface.triangles as usize * 3 * VERTEX_WORDS as usize;
        let words: Vec<f32> = read_buffer(&self.gpu, &surface.vertices, n)?;
        Ok(words
            .chunks_exact(3 * VERTEX_WORDS as usize)
            .map(|tri| {
                std::array::from_fn(|v| {
                    let w = &tri[v * VERTEX_WORDS as usize..];
                    Vec3::new(w[0], w[1], w[2])
                })
            })
            .collect())
    }
}

fn push_run(
    timings: &mut Timings,
    name: &str,
    (phases, wall_ms): (Vec<crate::gpu::GpuPhase>, f64),
) {
    let gpu_ms = phases.iter().map(|p| p.gpu_ms).sum::<Option<f64>>();
    timings.push(name, wall_ms, gpu_ms);
}
