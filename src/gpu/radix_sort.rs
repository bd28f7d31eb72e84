//! A stable GPU radix sort of `(key, value)` u32 pairs (Liu & Kim 2014 sort
//! triangles by Morton code on the GPU, §3.2, Alg. 1 line 11). Shader:
//! `shaders/radix_sort.wgsl`.
//!
//! # How it works
//!
//! Least-significant-digit first, 8 bits per pass (30-bit Morton codes: 4
//! passes), so few passes that the dispatches' fixed cost stays small. Keys
//! are cut into tiles of 2048 (256 invocations × 8 keys), and each pass is
//! three dispatches, all of them parallel (reduce-then-scan):
//!
//! 1. `histogram`, one workgroup per tile: the tile's digit counts, written
//!    digit-major into `hist`, and added (global atomics) to the pass's 256
//!    digit totals.
//! 2. `scan`, one workgroup per digit: the exclusive scan of the 256 totals
//!    gives where the digit starts; the workgroup then scans the digit's row
//!    of `hist` (2048 tiles per step: 1 step up to 4,194,304 keys), so each
//!    entry becomes where that tile's keys of that digit go.
//! 3. `scatter`, one workgroup per tile: the tile is sorted stably by digit
//!    in workgroup memory, one 1-bit split per digit bit (each a workgroup
//!    prefix sum), so a key's rank among the tile's keys of its digit is its
//!    position less the digit's start in the sorted tile; keys are written
//!    out in that order, so one digit's keys land contiguously.
//!
//! ```text
//! hist    [d0: t0 t1 … | d1: t0 t1 … | … | d255: …]   u32, tiles per digit
//! totals  [pass 0: d0 … d255 | pass 1: … ]              u32, atomic
//! ```
//!
//! Workgroup memory is at most 12.3 KiB (the scatter's tile of packed
//! `digit << 16 | position` items, padded against bank conflicts, plus the
//! scan and per-digit arrays), within WebGPU's 16 KiB; no subgroup
//! operations, so it runs anywhere (lavapipe included). Passes ping-pong
//! between the caller's buffers and a scratch pair; an even pass count ends
//! in the caller's buffers, an odd one is copied back. Only the bits the
//! caller names are sorted.
//!
//! Nothing goes through the CPU: [`RadixSort::encode`] records the passes
//! into a [`GpuRun`] so a stage sorts in the middle of its own work.

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::{
    BufferCheck, GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, shader_source,
    storage_buffer_zeroed,
};

/// Uniform parameters of one pass: `struct Params` of
/// shaders/radix_sort.wgsl (the layout and the constants below are checked
/// by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub n: u32,
    pub shift: u32,
    pub bits: u32,
    pub tiles: u32,
}
const _: () = assert!(std::mem::size_of::<Params>() == 16);

/// Keys per tile (the shader's `TILE`: 256 invocations × 8 keys).
pub const TILE: u32 = 2048;
pub const RADIX_BITS: u32 = 8;
pub const RADIX: u32 = 1 << RADIX_BITS;

/// The sort's pipelines, created once per context.
pub struct RadixSort {
    kernels: Kernels,
    histogram: wgpu::ComputePipeline,
    scan: wgpu::ComputePipeline,
    scatter: wgpu::ComputePipeline,
}

/// Scratch buffers of one sort; keep them alive until the run finishes.
#[derive(Default)]
pub struct RadixSortScratch {
    _buffers: Vec<wgpu::Buffer>,
    _bind_groups: Vec<wgpu::BindGroup>,
}

impl RadixSort {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "RadixSort", shader_source("radix_sort.wgsl"));
        RadixSort {
            histogram: kernels.pipeline(gpu, "histogram"),
            scan: kernels.pipeline(gpu, "scan"),
            scatter: kernels.pipeline(gpu, "scatter"),
            kernels,
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
        if n == 0 {
            return Ok(RadixSortScratch::default());
        }
        let key_bits = key_bits.clamp(1, 32);
        let passes = key_bits.div_ceil(RADIX_BITS);
        let tiles = n.div_ceil(TILE);
        let zeroed = |label, bytes| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
        let scratch_keys = zeroed("RadixSort::scratch_keys", n as u64 * 4)?;
        let scratch_values = zeroed("RadixSort::scratch_values", n as u64 * 4)?;
        let hist = zeroed("RadixSort::hist", (RADIX * 4) as u64 * tiles as u64)?;
        let totals = zeroed("RadixSort::totals", (RADIX * 4 * passes) as u64)?;
        let mut buffers = Vec::new();
        let mut bind_groups = Vec::new();
        for pass in 0..passes {
            let (src, dst) = if pass % 2 == 0 {
                ((keys, values), (&scratch_keys, &scratch_values))
            } else {
                ((&scratch_keys, &scratch_values), (keys, values))
            };
            let shift = pass * RADIX_BITS;
            let uniform = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("RadixSort::params"),
                    contents: bytemuck::bytes_of(&Params {
                        n,
                        shift,
                        bits: (key_bits - shift).min(RADIX_BITS),
                        tiles,
                    }),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            bind_groups.push(self.kernels.bind(
                gpu,
                &[
                    ("params", &uniform),
                    ("keys_in", src.0),
                    ("vals_in", src.1),
                    ("keys_out", dst.0),
                    ("vals_out", dst.1),
                    ("hist", &hist),
                    ("totals", &totals),
                ],
            ));
            buffers.push(uniform);
        }
        let (x, y) = dispatch_dims(tiles);
        run.compute_pass("sort", |p| {
            for bind_group in &bind_groups {
                p.set_bind_group(0, bind_group, &[]);
                p.set_pipeline(&self.histogram);
                p.dispatch_workgroups(x, y, 1);
                p.set_pipeline(&self.scan);
                p.dispatch_workgroups(RADIX, 1, 1);
                p.set_pipeline(&self.scatter);
                p.dispatch_workgroups(x, y, 1);
            }
        });
        if passes % 2 == 1 {
            run.encoder_work("sort copy", |e| {
                e.copy_buffer_to_buffer(&scratch_keys, 0, keys, 0, n as u64 * 4);
                e.copy_buffer_to_buffer(&scratch_values, 0, values, 0, n as u64 * 4);
            });
        }
        buffers.extend([scratch_keys, scratch_values, hist, totals]);
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
