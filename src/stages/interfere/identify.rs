//! Identification of the penetrated object from weighted sums of the
//! counting pass — our extension of Knott's Alg. 4, which counts every
//! candidate object's faces alone in a pass of its own.
//!
//! Passes 2–3 also draw each face into an Rgba32Float target with additive
//! blending (the fragments that pass the depth test are exactly those that
//! change the stencil): a face of object `j` adds `s·(1, j + 1, (j + 1)²)`,
//! `s` = +1 for a front face and −1 for a back face, and 1 in the fourth
//! channel when `j` is an open mesh. At a pixel whose edge point is inside
//! the closed objects `J` (and crosses no open mesh) the sums are
//! `S0 = |J|`, `S1 = Σ (j + 1)`, `S2 = Σ (j + 1)²`, so
//!
//! * `S0 = 0`: inside nothing (`S1 = S2 = 0` is checked);
//! * `S0 = 1`: inside `S1 − 1` (`S2 = S1²` is checked);
//! * `S0 = 2`: inside `a` and `b` with `x = a + 1`, `y = b + 1` the roots of
//!   `x + y = S1`, `x² + y² = S2`: `(y − x)² = 2·S2 − S1²` must be a
//!   positive perfect square of the parity of `S1`, and `1 ≤ x < y ≤ n`;
//! * anything else — inside three or more, an inconsistent pair of sums,
//!   non-integer sums, an open mesh in front of the edge point (its counts
//!   can be any integer, negative ones included) — is *ambiguous*.
//!
//! A compute pass over the pixels (`shaders/interfere_identify.wgsl`)
//! reads the sums and pass 1's ids image (the penetrating object `i` of the
//! pixel), drops `i` itself from the objects found (spurious
//! self-interference, §4.5.8, filtered by identity as the pair passes do by
//! never testing `(i, i)`), writes the penetrated image (of two, the
//! larger, which is what the pair passes leave), counts pixels per
//! `(i, j)` in an `n × n` buffer with atomics and ambiguous pixels per `i`.
//! Only the objects with ambiguous pixels then get the pair passes of
//! Alg. 4, whose answers replace the sums' for those objects.
//!
//! **Exactness.** Integers are exact in f32 up to 2²⁴, and every partial
//! sum of the blending must stay there: with `(j + 1)² ≤ 2¹⁸`
//! ([`MAX_OBJECTS`] objects) that leaves a factor of 64 for the faces of
//! the objects along a ray that are blended before their back faces. Runs
//! with more objects, or on adapters that cannot blend Rgba32Float
//! (`wgpu::Features::FLOAT32_BLENDABLE`), or whose `n × n` buffer exceeds
//! the storage limits, use the pair passes for everything and say why in
//! [`IdentificationReport::fallback`].

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use crate::gpu::{GpuContext, GpuError, GpuRun, Kernels, shader_source, staging_buffer};

/// Objects the weighted sums identify exactly (see the module docs).
pub const MAX_OBJECTS: usize = 512;

/// The format the counting pass sums the weights into.
pub(super) const SUMS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

/// The high bit of a face's object id: the object is an open mesh.
pub(super) const OPEN_BIT: u32 = 1 << 31;

/// Workgroup size of `identify` (8 × 8) in shaders/interfere_identify.wgsl.
pub const GROUP: u32 = 8;

/// How the penetrated objects are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Identification {
    /// Knott's Alg. 4: a pair pass per candidate object for every
    /// penetrating object.
    PairPasses,
    /// Weighted sums in the counting pass, decoded per pixel; the pair
    /// passes only for objects with pixels the sums cannot decode.
    #[default]
    WeightedSums,
}

impl Identification {
    pub const ALL: [Identification; 2] = [Identification::PairPasses, Identification::WeightedSums];

    pub fn name(self) -> &'static str {
        match self {
            Identification::PairPasses => "pair passes (Alg. 4)",
            Identification::WeightedSums => "weighted sums",
        }
    }
}

/// How one run identified the penetrated objects.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IdentificationReport {
    /// What the run used.
    pub used: Option<Identification>,
    /// Why the weighted sums asked for were not used.
    pub fallback: Option<String>,
    /// Per object: pixels of its edges the sums could not decode.
    pub ambiguous_pixels: Vec<u64>,
    /// The objects whose edges the pair passes tested.
    pub pair_pass_objects: Vec<usize>,
}

/// One (penetrating, penetrated) answer: of a pair pass's occlusion query
/// (Alg. 4), or the pixels the weighted sums decoded for the pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairQuery {
    /// The object whose edges are inside…
    pub penetrating: usize,
    /// …this one.
    pub penetrated: usize,
    /// Pixels that passed (occlusion query result).
    pub pixels: u64,
}

/// `Params` of shaders/interfere_identify.wgsl (the layout is checked by
/// tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub objects: u32,
    pub width: u32,
    pub height: u32,
    pub pad: u32,
}

/// The decoding compute pass; create once per device.
pub(super) struct Decoder {
    kernels: Kernels,
    pipeline: wgpu::ComputePipeline,
}

/// The buffers of one decoding, read back after the submission.
pub(super) struct Decoding {
    objects: usize,
    staging: [wgpu::Buffer; 2],
}

/// Why `gpu` cannot decode weighted sums of `objects` objects, if it
/// cannot.
pub(super) fn unavailable(gpu: &GpuContext, objects: usize) -> Option<String> {
    if !gpu
        .device
        .features()
        .contains(wgpu::Features::FLOAT32_BLENDABLE)
    {
        return Some(format!(
            "{} cannot blend Rgba32Float (no FLOAT32_BLENDABLE): pair passes",
            gpu.describe()
        ));
    }
    if objects > MAX_OBJECTS {
        return Some(format!(
            "{objects} objects: the f32 sums are exact only up to {MAX_OBJECTS}: pair passes"
        ));
    }
    let bytes = 4 * (objects * objects) as u64;
    gpu.check_storage_size("the pair-pixel counts", bytes)
        .err()
        .map(|e| format!("{e}: pair passes"))
}

impl Decoder {
    pub fn new(gpu: &GpuContext) -> Decoder {
        let kernels = Kernels::new(
            gpu,
            "InterferenceDecoder",
            shader_source("interfere_identify.wgsl"),
        );
        Decoder {
            pipeline: kernels.pipeline(gpu, "identify"),
            kernels,
        }
    }

    /// Records the decoding of `sums` (with pass 1's `ids`) into
    /// `penetrated` and the counts, and their copies for the read-back.
    pub fn record(
        &self,
        gpu: &GpuContext,
        run: &mut GpuRun<'_>,
        objects: usize,
        size: wgpu::Extent3d,
        [sums, ids, penetrated]: [&wgpu::TextureView; 3],
    ) -> Decoding {
        let device = &gpu.device;
        let params = Params {
            objects: objects as u32,
            width: size.width,
            height: size.height,
            pad: 0,
        };
        let uniforms = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("InterferenceDecoder::params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let counts = |label, entries: usize| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 4 * entries.max(1) as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let pair_pixels = counts("InterferenceDecoder::pair_pixels", objects * objects);
        let ambiguous = counts("InterferenceDecoder::ambiguous", objects);
        let staging = [&pair_pixels, &ambiguous]
            .map(|b| staging_buffer(device, "InterferenceDecoder::staging", b.size()));
        let bind_group = self.kernels.bind_resources(
            gpu,
            vec![
                ("p", uniforms.as_entire_binding()),
                ("sums", wgpu::BindingResource::TextureView(sums)),
                ("ids", wgpu::BindingResource::TextureView(ids)),
                ("penetrated", wgpu::BindingResource::TextureView(penetrated)),
                ("pair_pixels", pair_pixels.as_entire_binding()),
                ("ambiguous", ambiguous.as_entire_binding()),
            ],
        );
        run.compute_pass("interference identify (weighted sums)", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(size.width.div_ceil(GROUP), size.height.div_ceil(GROUP), 1);
        });
        run.encoder_work("interference identify read-back", |encoder| {
            for (from, to) in [&pair_pixels, &ambiguous].into_iter().zip(&staging) {
                encoder.copy_buffer_to_buffer(from, 0, to, 0, from.size());
            }
        });
        Decoding { objects, staging }
    }
}

impl Decoding {
    /// The pairs with pixels (`penetrating ≠ penetrated`) and the ambiguous
    /// pixels per object, once the recording has been submitted.
    pub fn read(&self, gpu: &GpuContext) -> Result<(Vec<PairQuery>, Vec<u64>), GpuError> {
        let n = self.objects;
        let [pairs, ambiguous] = [&self.staging[0], &self.staging[1]]
            .map(|b| crate::gpu::map_staging::<u32>(gpu, b, "interference decoding"));
        let pairs = pairs?
            .iter()
            .take(n * n)
            .enumerate()
            .filter(|(_, px)| **px > 0)
            .map(|(k, &px)| PairQuery {
                penetrating: k / n,
                penetrated: k % n,
                pixels: px as u64,
            })
            .collect();
        let ambiguous = ambiguous?.iter().take(n).map(|&px| px as u64).collect();
        Ok((pairs, ambiguous))
    }
}
