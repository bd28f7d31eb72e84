//! Broad phase: sort-and-sweep over world-space bounding boxes, on the CPU
//! and on the GPU (`shaders/broad_phase.wgsl`).
//!
//! Every body's box is sorted by its lower x bound; each body then walks
//! forward in that order until a box starts beyond its upper x bound, and
//! keeps the pairs whose boxes overlap in y and z as well (two static bodies
//! are never paired). A pair is found exactly when the two boxes overlap, so
//! the result does not depend on how ties in the sort are broken. The
//! ground plane, when there is one, is paired with every dynamic body whose
//! box reaches below it. Pairs are `(i, j)`, `i < j`, sorted; the ground's
//! index is after every body's.
//!
//! On the GPU one dispatch writes the sort keys (an order-preserving map of
//! the f32 bound to u32), [`RadixSort`] orders the bodies, and one
//! invocation per body sweeps and appends pairs through an atomic counter.
//! The counter and the pairs come back in one copy and one map; if the
//! pairs overflowed the room, the run is repeated once with the exact size.

use eframe::egui_wgpu::wgpu;
use glam::Vec3;
use wgpu::util::DeviceExt;

use crate::gpu::{
    BufferCheck, GpuContext, GpuError, GpuRun, Kernels, RadixSort, RadixSortScratch, dispatch_dims,
    map_staging, shader_source, staging_buffer, storage_buffer_init, storage_buffer_zeroed,
};
use crate::timing::Timings;

/// `struct Params` of shaders/broad_phase.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BroadParams {
    pub n: u32,
    pub capacity: u32,
    pub ground: u32,
    pub ground_index: u32,
    pub plane: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<BroadParams>() == 32);

/// One body's world-space box: `struct Box` of shaders/broad_phase.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BodyBox {
    pub lo: [f32; 3],
    /// Bit 0: the body is static.
    pub flags: u32,
    pub hi: [f32; 3],
    pub body: u32,
}
const _: () = assert!(std::mem::size_of::<BodyBox>() == 32);

pub const FLAG_STATIC: u32 = 1;

/// The ground as the broad phase sees it: `normal · x = offset`, solid below.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundPlane {
    pub normal: Vec3,
    pub offset: f32,
    /// Its body index (after every box's).
    pub index: u32,
}

impl BodyBox {
    fn is_static(&self) -> bool {
        self.flags & FLAG_STATIC != 0
    }

    fn overlaps_yz(&self, o: &BodyBox) -> bool {
        (1..3).all(|k| self.lo[k] <= o.hi[k] && o.lo[k] <= self.hi[k])
    }

    fn reaches_below(&self, g: &GroundPlane) -> bool {
        let (lo, hi) = (Vec3::from(self.lo), Vec3::from(self.hi));
        let (c, h) = (0.5 * (lo + hi), 0.5 * (hi - lo));
        g.normal.dot(c) - g.normal.abs().dot(h) <= g.offset
    }
}

/// The CPU reference: sort-and-sweep, pairs sorted.
pub fn pairs_cpu(boxes: &[BodyBox], ground: Option<&GroundPlane>) -> Vec<(u32, u32)> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| boxes[a].lo[0].total_cmp(&boxes[b].lo[0]));
    let mut out = ground_pairs(boxes, ground);
    for (k, &i) in order.iter().enumerate() {
        let a = &boxes[i];
        for &j in &order[k + 1..] {
            let b = &boxes[j];
            if b.lo[0] > a.hi[0] {
                break;
            }
            if !(a.is_static() && b.is_static()) && a.overlaps_yz(b) {
                out.push((a.body.min(b.body), a.body.max(b.body)));
            }
        }
    }
    out.sort_unstable();
    out
}

/// The ground paired with every dynamic body whose box reaches below it.
pub fn ground_pairs(boxes: &[BodyBox], ground: Option<&GroundPlane>) -> Vec<(u32, u32)> {
    let Some(g) = ground else {
        return Vec::new();
    };
    boxes
        .iter()
        .filter(|a| !a.is_static() && a.reaches_below(g))
        .map(|a| (a.body, g.index))
        .collect()
}

/// The GPU broad phase's pipelines.
pub struct BroadGpu {
    gpu: GpuContext,
    kernels: Kernels,
    keys: wgpu::ComputePipeline,
    sweep: wgpu::ComputePipeline,
    sort: RadixSort,
}

impl BroadGpu {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "BroadGpu", shader_source("broad_phase.wgsl"));
        BroadGpu {
            gpu: gpu.clone(),
            keys: kernels.pipeline(gpu, "keys_main"),
            sweep: kernels.pipeline(gpu, "sweep_main"),
            sort: RadixSort::new(gpu),
            kernels,
        }
    }

    /// The pairs of `boxes` (sorted, as [`pairs_cpu`]); phases "broad
    /// upload", "broad" (kernels, GPU time when the adapter has timestamps)
    /// and "broad read-back" go to `timings`.
    pub fn pairs(
        &self,
        boxes: &[BodyBox],
        ground: Option<&GroundPlane>,
        timings: &mut Timings,
    ) -> Result<Vec<(u32, u32)>, GpuError> {
        let start = std::time::Instant::now();
        let n = boxes.len();
        let boxes_buf = storage_buffer_init(&self.gpu, "BroadGpu::boxes", boxes)?;
        timings.push("broad upload", ms(start), None);
        // Room for a few pairs per body; an overflow is re-run at its size.
        let mut capacity = (4 * n + 64).max(1024);
        loop {
            let (pairs, count) = self.run(&boxes_buf, n, ground, capacity, timings)?;
            if count <= capacity {
                return Ok(pairs);
            }
            capacity = count;
        }
    }

    /// A bind group of the broad phase's layout, by WGSL name (params,
    /// boxes, keys, order, pairs, counter).
    pub(crate) fn bind(&self, named: &[(&str, &wgpu::Buffer)]) -> wgpu::BindGroup {
        self.kernels.bind(&self.gpu, named)
    }

    /// Records the key dispatch, the sort and the sweep over the first `n`
    /// boxes of `bind_group` (whose keys and order buffers are `keys` and
    /// `order`) into `run`, under the phase "broad". Keep the scratch alive
    /// until the run has finished.
    pub(crate) fn encode(
        &self,
        run: &mut GpuRun<'_>,
        bind_group: &wgpu::BindGroup,
        keys: &wgpu::Buffer,
        order: &wgpu::Buffer,
        n: u32,
    ) -> Result<Option<RadixSortScratch>, GpuError> {
        if n == 0 {
            return Ok(None);
        }
        let (x, y) = dispatch_dims(n.div_ceil(64));
        run.compute_pass("broad", |p| {
            p.set_bind_group(0, bind_group, &[]);
            p.set_pipeline(&self.keys);
            p.dispatch_workgroups(x, y, 1);
        });
        let scratch = self.sort.encode(&self.gpu, run, keys, order, n, 32)?;
        run.compute_pass("broad", |p| {
            p.set_bind_group(0, bind_group, &[]);
            p.set_pipeline(&self.sweep);
            p.dispatch_workgroups(x, y, 1);
        });
        Ok(Some(scratch))
    }

    fn run(
        &self,
        boxes_buf: &wgpu::Buffer,
        n: usize,
        ground: Option<&GroundPlane>,
        capacity: usize,
        timings: &mut Timings,
    ) -> Result<(Vec<(u32, u32)>, usize), GpuError> {
        let gpu = &self.gpu;
        let params = BroadParams {
            n: n as u32,
            capacity: capacity as u32,
            ground: u32::from(ground.is_some()),
            ground_index: ground.map_or(0, |g| g.index),
            plane: ground.map_or([0.0; 4], |g| g.normal.extend(g.offset).to_array()),
        };
        let uniform = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("BroadGpu::params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let zeroed = |label, bytes| storage_buffer_zeroed(gpu, BufferCheck { label, bytes });
        let keys = zeroed("BroadGpu::keys", n as u64 * 4)?;
        let order = zeroed("BroadGpu::order", n as u64 * 4)?;
        let pairs_bytes = capacity as u64 * 8;
        let pairs = zeroed("BroadGpu::pairs", pairs_bytes)?;
        let counter = zeroed("BroadGpu::counter", 16)?;
        // Counter first, then the pairs: one staging buffer, one map.
        let staging = staging_buffer(&gpu.device, "BroadGpu::staging", 16 + pairs_bytes);
        let bind_group = self.kernels.bind(
            gpu,
            &[
                ("params", &uniform),
                ("boxes", boxes_buf),
                ("keys", &keys),
                ("order", &order),
                ("pairs", &pairs),
                ("counter", &counter),
            ],
        );
        let mut run = GpuRun::new(gpu, "BroadGpu::encoder")?;
        let scratch = self.encode(&mut run, &bind_group, &keys, &order, n as u32)?;
        run.encoder_work("broad read-back", |e| {
            e.copy_buffer_to_buffer(&counter, 0, &staging, 0, 16);
            e.copy_buffer_to_buffer(&pairs, 0, &staging, 16, pairs_bytes);
        });
        let (phases, wall_ms) = run.finish()?;
        drop(scratch);
        let gpu_ms = |name: &str| {
            let times: Vec<f64> = phases
                .iter()
                .filter(|p| p.name == name || (name == "broad" && p.name == "sort"))
                .filter_map(|p| p.gpu_ms)
                .collect();
            (!times.is_empty()).then(|| times.iter().sum())
        };
        timings.push("broad", wall_ms, gpu_ms("broad"));
        let start = std::time::Instant::now();
        let raw: Vec<u32> = map_staging(gpu, &staging, "BroadGpu::pairs")?;
        let count = raw[0] as usize;
        let mut out: Vec<(u32, u32)> = raw[4..]
            .chunks_exact(2)
            .take(count.min(capacity))
            .map(|p| (p[0], p[1]))
            .collect();
        out.sort_unstable();
        timings.push("broad read-back", ms(start), gpu_ms("broad read-back"));
        Ok((out, count))
    }
}

fn ms(start: std::time::Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn overlap(a: &BodyBox, b: &BodyBox) -> bool {
        (0..3).all(|k| a.lo[k] <= b.hi[k] && b.lo[k] <= a.hi[k])
    }

    fn boxes_from(raw: &[(f32, f32, f32, f32, bool)]) -> Vec<BodyBox> {
        raw.iter()
            .enumerate()
            .map(|(i, &(x, y, z, s, fixed))| BodyBox {
                lo: [x, y, z],
                hi: [x + s, y + s, z + s],
                flags: u32::from(fixed),
                body: i as u32,
            })
            .collect()
    }

    proptest! {
        #[test]
        fn sweep_finds_exactly_the_overlapping_pairs(
            raw in prop::collection::vec(
                (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0, 0.1f32..3.0, prop::bool::weighted(0.2)),
                0..40,
            )
        ) {
            let boxes = boxes_from(&raw);
            let ground = GroundPlane { normal: Vec3::Y, offset: -2.0, index: boxes.len() as u32 };
            let mut want = Vec::new();
            for (i, a) in boxes.iter().enumerate() {
                if !a.is_static() && a.lo[1] <= -2.0 {
                    want.push((i as u32, ground.index));
                }
                for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                    if overlap(a, b) && !(a.is_static() && b.is_static()) {
                        want.push((i as u32, j as u32));
                    }
                }
            }
            want.sort_unstable();
            prop_assert_eq!(pairs_cpu(&boxes, Some(&ground)), want);
        }
    }
}
