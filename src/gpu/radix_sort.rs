//! A stable GPU radix sort of `(key, value)` u32 pairs (Liu & Kim 2014 sort
//! triangles by Morton code on the GPU, §3.2, Alg. 1 line 11). Shader:
//! `shaders/radix_sort.wgsl`.
//!
//! # How it works
//!
//! Least-significant-digit first, 4 bits per pass, each pass three
//! dispatches over blocks of 256 pairs: a per-block digit histogram, one
//! exclusive scan of all histograms laid out digit-major, and a stable
//! scatter that ranks each key among its block's earlier keys of the same
//! digit. Passes ping-pong between the caller's buffers and a scratch pair,
//! so the sorted pairs end in the caller's buffers; only the bits the caller
//! names are sorted (30 for Morton codes: 8 passes).
//!
//! ```text
//! hist  [d0: b0 b1 … | d1: b0 b1 … | … | d15: …]   u32, blocks per digit
//! ```
//!
//! Nothing goes through the CPU: [`RadixSort::encode`] records the passes
//! into a [`GpuRun`] so a stage sorts in the middle of its own work.

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::{BufferCheck, GpuContext, GpuError, GpuRun, shader_source, storage_buffer_zeroed};

/// Uniform parameters. Keep in sync with `struct Params` in
/// shaders/radix_sort.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    shift: u32,
    blocks: u32,
    blocks_x: u32,
}
const _: () = assert!(std::mem::size_of::<Params>() == 16);

const BLOCK: u32 = 256;
const RADIX_BITS: u32 = 4;
const MAX_GROUPS_X: u32 = 65_535;

/// The sort's pipelines, created once per context.
pub struct RadixSort {
    layout: wgpu::BindGroupLayout,
    histogram: wgpu::ComputePipeline,
    scan: wgpu::ComputePipeline,
    scatter: wgpu::ComputePipeline,
}

/// Scratch buffers of one sort; keep them alive until the run finishes.
pub struct RadixSortScratch {
    _buffers: Vec<wgpu::Buffer>,
    _bind_groups: Vec<wgpu::BindGroup>,
}

impl RadixSort {
    pub fn new(gpu: &GpuContext) -> Self {
        let device = &gpu.device;
        let module = gpu.shader(shader_source("radix_sort.wgsl"));
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
            label: Some("RadixSort::layout"),
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
                storage(5, false),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("RadixSort::pipeline_layout"),
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
        RadixSort {
            histogram: pipeline("histogram", "RadixSort::histogram"),
            scan: pipeline("scan", "RadixSort::scan"),
            scatter: pipeline("scatter", "RadixSort::scatter"),
            layout,
        }
    }

    /// Records a sort of the first `n` pairs of `keys`/`values` by their low
    /// `key_bits` bits (1..=32) into `run`. The result is in `keys`/`values`
    /// once the run has finished; keep the returned scratch alive until then.
    pub fn encode(
        &self,
        gpu: &GpuContext,
        run: &mut GpuRun<'_>,
        keys: &wgpu::Buffer,
        values: &wgpu::Buffer,
        n: u32,
        key_bits: u32,
    ) -> Result<RadixSortScratch, GpuError> {
        let passes = key_bits.clamp(1, 32).div_ceil(RADIX_BITS);
        let blocks = n.div_ceil(BLOCK).max(1);
        let pair_bytes = (n.max(1) as u64) * 4;
        let scratch_keys = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "RadixSort::scratch_keys",
                bytes: pair_bytes,
            },
        )?;
        let scratch_values = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "RadixSort::scratch_values",
                bytes: pair_bytes,
            },
        )?;
        let hist = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "RadixSort::hist",
                bytes: (blocks * 16) as u64 * 4,
            },
        )?;
        let blocks_x = blocks.min(MAX_GROUPS_X);
        let blocks_y = blocks.div_ceil(blocks_x);
        let mut buffers = Vec::new();
        let mut bind_groups = Vec::new();
        for pass in 0..passes {
            let (src, dst) = if pass % 2 == 0 {
                ((keys, values), (&scratch_keys, &scratch_values))
            } else {
                ((&scratch_keys, &scratch_values), (keys, values))
            };
            let uniform = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("RadixSort::params"),
                    contents: bytemuck::bytes_of(&Params {
                        n,
                        shift: pass * RADIX_BITS,
                        blocks,
                        blocks_x,
                    }),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let entries = [&uniform, src.0, src.1, dst.0, dst.1, &hist]
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: b.as_entire_binding(),
                })
                .collect::<Vec<_>>();
            let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("RadixSort::bind_group"),
                layout: &self.layout,
                entries: &entries,
            });
            run.compute_pass("sort", |p| {
                p.set_bind_group(0, &bind_group, &[]);
                p.set_pipeline(&self.histogram);
                p.dispatch_workgroups(blocks_x, blocks_y, 1);
                p.set_pipeline(&self.scan);
                p.dispatch_workgroups(1, 1, 1);
                p.set_pipeline(&self.scatter);
                p.dispatch_workgroups(blocks_x, blocks_y, 1);
            });
            buffers.push(uniform);
            bind_groups.push(bind_group);
        }
        if passes % 2 == 1 {
            run.encoder_work("sort copy", |e| {
                e.copy_buffer_to_buffer(&scratch_keys, 0, keys, 0, n as u64 * 4);
                e.copy_buffer_to_buffer(&scratch_values, 0, values, 0, n as u64 * 4);
            });
        }
        buffers.extend([scratch_keys, scratch_values, hist]);
        Ok(RadixSortScratch {
            _buffers: buffers,
            _bind_groups: bind_groups,
        })
    }

    /// Sorts pairs uploaded from the CPU and reads them back (tests, tools).
    pub fn sort_pairs(
        &self,
        gpu: &GpuContext,
        keys: &[u32],
        values: &[u32],
        key_bits: u32,
    ) -> Result<(Vec<u32>, Vec<u32>), GpuError> {
        assert_eq!(keys.len(), values.len(), "one value per key");
        let n = keys.len() as u32;
        let keys_buf = super::storage_buffer_init(gpu, "RadixSort::keys", keys)?;
        let values_buf = super::storage_buffer_init(gpu, "RadixSort::values", values)?;
        let mut run = GpuRun::new(gpu, "RadixSort::encoder")?;
        let scratch = self.encode(gpu, &mut run, &keys_buf, &values_buf, n, key_bits)?;
        run.finish()?;
        drop(scratch);
        Ok((
            super::read_buffer(gpu, &keys_buf, keys.len())?,
            super::read_buffer(gpu, &values_buf, values.len())?,
        ))
    }
}
