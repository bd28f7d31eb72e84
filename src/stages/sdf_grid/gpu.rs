//! GPU backends: brute force (tiles of triangles in workgroup memory) and
//! BVH-accelerated over bricks. Shader: `shaders/sdf_grid.wgsl`.

use std::time::Instant;

use eframe::egui_wgpu::wgpu;
use glam::Vec3;

use super::cpu::REACH_SLACK;
use super::{Backend, FAR, GridSpec, PreparedMesh, SdfError, SdfField, SdfParams};
use crate::geom::BvhNode;
use crate::gpu::{
    BufferCheck, GpuContext, GpuRun, read_buffer, shader_source, storage_buffer_init,
    storage_buffer_zeroed,
};
use crate::timing::Timings;

/// Uniform parameters. Keep in sync with `struct Params` in
/// shaders/sdf_grid.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    origin: [f32; 3],
    cell_size: f32,
    dims: [u32; 3],
    num_tris: u32,
    bricks: [u32; 3],
    band: f32,
    num_cells: u32,
    slack: f32,
    _pad0: u32,
    _pad1: u32,
}
const _: () = assert!(std::mem::size_of::<Params>() == 64);
const _: () = assert!(std::mem::size_of::<BvhNode>() == 32);

/// Deepest BVH the shader's traversal stack holds.
const GPU_STACK: usize = 64;
/// Invocations per workgroup in every entry point.
const WORKGROUP: u32 = 64;

/// The SDF stage's long-lived GPU objects: created once per context.
pub struct SdfGpu {
    gpu: GpuContext,
    layout: wgpu::BindGroupLayout,
    brute: wgpu::ComputePipeline,
    brick_seed: wgpu::ComputePipeline,
    bvh_cells: wgpu::ComputePipeline,
}

impl SdfGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let device = &gpu.device;
        let module = gpu.shader(shader_source("sdf_grid.wgsl"));
        let storage = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("SdfGpu::layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage(1, true),
                storage(2, true),
                storage(3, false),
                storage(4, false),
                storage(5, true),
                storage(6, false),
                storage(7, false),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("SdfGpu::pipeline_layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |entry: &str, label: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        SdfGpu {
            gpu: gpu.clone(),
            brute: pipeline("brute", "SdfGpu::brute"),
            brick_seed: pipeline("brick_seed", "SdfGpu::brick_seed"),
            bvh_cells: pipeline("bvh_cells", "SdfGpu::bvh_cells"),
            layout,
        }
    }

    pub fn context(&self) -> &GpuContext {
        &self.gpu
    }

    /// Runs the brute-force (`accelerated == false`) or BVH backend.
    pub fn compute(
        &self,
        mesh: &PreparedMesh,
        params: &SdfParams,
        accelerated: bool,
    ) -> Result<SdfField, SdfError> {
        puffin::profile_function!();
        let gpu = &self.gpu;
        let grid = GridSpec::around(mesh.mesh.bounds(), params.resolution, params.padding);
        let n = grid.num_cells();
        let mut timings = Timings::default();
        let upload_start = Instant::now();

        if accelerated && mesh.bvh.depth() >= GPU_STACK {
            return Err(SdfError::BvhTooDeep {
                depth: mesh.bvh.depth(),
                max: GPU_STACK,
            });
        }
        // The BVH backend works on triangles in BVH order (leaves are
        // contiguous); results are mapped back to mesh order below.
        let order: Vec<u32> = if accelerated {
            mesh.bvh.order.clone()
        } else {
            (0..mesh.triangle_count() as u32).collect()
        };
        let tri_pos: Vec<[f32; 4]> = order
            .iter()
            .flat_map(|&t| {
                mesh.mesh
                    .corners(t as usize)
                    .map(|v| v.extend(0.0).to_array())
            })
            .collect();
        let normals: Vec<f32> = order
            .iter()
            .flat_map(|&t| {
                mesh.feature_normals[t as usize]
                    .iter()
                    .flat_map(|v: &Vec3| v.to_array())
            })
            .collect();
        let bricks = grid.bricks();
        let num_bricks = (bricks.x * bricks.y * bricks.z) as usize;
        let placeholder_node = [<BvhNode as bytemuck::Zeroable>::zeroed()];
        let nodes: &[BvhNode] = if accelerated {
            &mesh.bvh.nodes
        } else {
            &placeholder_node
        };

        let uniform = Params {
            origin: grid.origin.to_array(),
            cell_size: grid.cell_size,
            dims: grid.dims.to_array(),
            num_tris: order.len() as u32,
            bricks: bricks.to_array(),
            band: params.band.map_or(-1.0, |b| b * grid.cell_size),
            num_cells: n as u32,
            slack: REACH_SLACK,
            _pad0: 0,
            _pad1: 0,
        };
        let cells_bytes = (n * 4) as u64;
        let uniform_buf = {
            use wgpu::util::DeviceExt;
            gpu.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("SdfGpu::params"),
                    contents: bytemuck::bytes_of(&uniform),
                    usage: wgpu::BufferUsages::UNIFORM,
                })
        };
        let tri_buf = storage_buffer_init(gpu, "SdfGpu::tri_pos", &tri_pos)?;
        let normal_buf = storage_buffer_init(gpu, "SdfGpu::normals", &normals)?;
        let values_buf = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "SdfGpu::values",
                bytes: cells_bytes,
            },
        )?;
        let closest_buf = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "SdfGpu::closest",
                bytes: cells_bytes,
            },
        )?;
        let node_buf = storage_buffer_init(gpu, "SdfGpu::nodes", nodes)?;
        let brick_buf = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "SdfGpu::brick_seed_tri",
                bytes: (num_bricks.max(1) * 4) as u64,
            },
        )?;
        let counter_buf = storage_buffer_init(gpu, "SdfGpu::counters", &[0u32; 4])?;
        let buffers = [
            &uniform_buf,
            &tri_buf,
            &normal_buf,
            &values_buf,
            &closest_buf,
            &node_buf,
            &brick_buf,
            &counter_buf,
        ];
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("SdfGpu::bind_group"),
            layout: &self.layout,
            entries: &entries,
        });
        timings.push("upload", upload_start.elapsed().as_secs_f64() * 1e3, None);

        let mut run = GpuRun::new(gpu, "SdfGpu::encoder")?;
        if accelerated {
            run.compute_pass("brick seeds", |pass| {
                pass.set_pipeline(&self.brick_seed);
                pass.set_bind_group(0, &bind_group, &[]);
                let (x, y) = dispatch_dims((num_bricks as u32).div_ceil(WORKGROUP));
                pass.dispatch_workgroups(x, y, 1);
            });
            run.compute_pass("cells", |pass| {
                pass.set_pipeline(&self.bvh_cells);
                pass.set_bind_group(0, &bind_group, &[]);
                let (x, y) = dispatch_dims(num_bricks as u32);
                pass.dispatch_workgroups(x, y, 1);
            });
        } else {
            run.compute_pass("cells", |pass| {
                pass.set_pipeline(&self.brute);
                pass.set_bind_group(0, &bind_group, &[]);
                let (x, y) = dispatch_dims((n as u32).div_ceil(WORKGROUP));
                pass.dispatch_workgroups(x, y, 1);
            });
        }
        let (phases, wall_ms) = run.finish()?;
        let gpu_ms: Option<f64> = phases.iter().map(|p| p.gpu_ms).sum();
        timings.push("distance", wall_ms, gpu_ms);

        let readback_start = Instant::now();
        let values: Vec<f32> = read_buffer(gpu, &values_buf, n)?;
        let mut closest: Vec<u32> = read_buffer(gpu, &closest_buf, n)?;
        let counters: Vec<u32> = read_buffer(gpu, &counter_buf, 1)?;
        if accelerated {
            for c in closest.iter_mut().filter(|c| **c != FAR) {
                *c = (order[(*c >> 3) as usize] << 3) | (*c & 7);
            }
        }
        timings.push(
            "readback",
            readback_start.elapsed().as_secs_f64() * 1e3,
            None,
        );
        let evaluations = if accelerated {
            counters[0] as u64
        } else {
            (n * order.len()) as u64
        };
        Ok(SdfField {
            grid,
            params: *params,
            backend: if accelerated {
                Backend::Gpu
            } else {
                Backend::GpuBrute
            },
            values,
            closest,
            distance_evaluations: evaluations,
            timings,
        })
    }
}

/// Splits `groups` workgroups over x and y (each ≤ 65535); shaders rebuild
/// the flat index as `wid.y * num_workgroups.x + wid.x` and skip the excess.
fn dispatch_dims(groups: u32) -> (u32, u32) {
    let x = groups.clamp(1, 65_535);
    (x, groups.div_ceil(x).max(1))
}
