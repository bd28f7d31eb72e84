//! Radial fields (Friston & Steed 2019): per-bone cylindrical distance
//! fields around a character's limbs, rasterised every frame.
//!
//! # Method
//!
//! A field lies along an axis A→B ([`frame`], §4.1–4.2, eq. 1–3) and is an
//! image of `nθ × nz` cells in cylindrical space. Each cell holds the
//! distance from the axis to the nearest surface along the ray through the
//! cell centre `((i + ½)/nθ, (k + ½)/nz)`, or `+inf` where no face covers
//! it. Updating a field is 2D rasterisation with a cylindrical projection
//! (§5.1): every triangle assigned to the field is set up ([`setup`]: field
//! space, culling of axis-crossing, back-facing and near-perpendicular
//! triangles, seam wrapping by eq. 4), rasterised in θ–z, and each covered
//! cell gets the ray–plane distance (§5.2), clamped by the vertex
//! distances (§5.2.2); overlapping faces keep the nearest (§5.2.1). The
//! fields are cleared to `+inf` before every update (§5.3).
//!
//! # Backends
//!
//! | backend | method |
//! |---|---|
//! | `cpu` | `cpu`: the same set-up, coverage by integer edge functions on corners snapped to 1/256 cell with the top-left rule; rayon over fields |
//! | `gpu` | `gpu`: a wgpu render pipeline, one draw of 3 vertices per (field, triangle) pair; the vertex stage pulls its triangle from storage buffers and does the geometry shader's work (wgpu has none), the fragment stage `atomicMin`s the distance's f32 bits into a u32 storage buffer cleared to `+inf` by a compute pass — the paper's method |
//! | `gpu-compute` | [`compute`]: the same set-up and distances in compute shaders, one invocation per pair, the CPU's coverage rule in integer arithmetic over the cells of the footprint's box, large footprints shared by a workgroup; no graphics pipeline (compute GPUs whose graphics slice is small rasterise slowly) |
//!
//! Distances are positive, so the order of their f32 bit patterns as u32 is
//! their order as floats and `atomicMin` on the bits keeps the nearest.
//!
//! # Layout
//!
//! ```text
//! values: [ field 0: nz rows of nθ ][ field 1 … ]   f32 (u32 bits on the GPU), +inf = empty
//! frames: [ FieldFrameGpu ] one per field, `offset` = its first value
//! ```
//!
//! The simulations ([`crate::sim`]) read the fields where the GPU keeps
//! them: [`RadialScene`] holds the buffers, [`RadialScene::record`] updates
//! them inside the caller's encoder.

pub mod compute;
mod cpu;
pub mod frame;
pub(super) mod gpu;
pub mod setup;

pub use cpu::SUBPIXEL_BITS;
pub use frame::{BoneFrame, Cylindrical, FieldFrameGpu, FrameError};
pub use gpu::{RadialGpu, RadialScene, RasterParams, Rasteriser};

use glam::Vec3;

use crate::gpu::GpuContext;
use crate::progress::Progress;
use crate::timing::Timings;

/// Largest θ or z resolution the CPU accepts (the GPU also checks its
/// texture and buffer limits).
pub const MAX_RESOLUTION: u32 = 16_384;

/// Default cosine below which a face is culled as back-facing or nearly
/// perpendicular to the rays.
pub const DEFAULT_MIN_FACING: f32 = 0.05;

/// Errors of the radial-field stage. Each message is one readable line.
#[derive(Debug, thiserror::Error)]
pub enum RadialError {
    #[error("field {field}: {source}")]
    Frame { field: usize, source: FrameError },
    #[error(
        "resolution {n_theta}x{n_z}: θ and z need 1 to {max} cells, and θ an even number (the seam shift of eq. 4 is half a turn)"
    )]
    Resolution { n_theta: u32, n_z: u32, max: u32 },
    #[error("min_facing {0} is not in [0, 1)")]
    MinFacing(f32),
    #[error("field {field} names triangle {face}, but the mesh has {triangles}")]
    FaceIndex {
        field: usize,
        face: u32,
        triangles: usize,
    },
    #[error("triangle {triangle} names vertex {vertex}, but the mesh has {vertices}")]
    VertexIndex {
        triangle: usize,
        vertex: u32,
        vertices: usize,
    },
    #[error("vertex {0} is not finite")]
    NotFinite(usize),
    #[error("resolution {n_theta}x{n_z} is beyond this adapter's {limit} of {allowed}")]
    BeyondGpu {
        n_theta: u32,
        n_z: u32,
        limit: &'static str,
        allowed: u64,
    },
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
}

/// One field: its frame and the triangles rasterised into it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSpec {
    pub frame: BoneFrame,
    /// Indices into the mesh's triangles; `None` rasterises every triangle.
    pub faces: Option<Vec<u32>>,
}

/// What one run rasterises: a triangle soup and the fields around it.
#[derive(Debug, Clone, Copy)]
pub struct RadialInput<'a> {
    pub positions: &'a [Vec3],
    pub triangles: &'a [[u32; 3]],
    pub fields: &'a [FieldSpec],
}

impl RadialInput<'_> {
    /// Checks indices and positions.
    pub fn validate(&self) -> Result<(), RadialError> {
        if let Some(i) = self.positions.iter().position(|p| !p.is_finite()) {
            return Err(RadialError::NotFinite(i));
        }
        for (triangle, t) in self.triangles.iter().enumerate() {
            if let Some(&vertex) = t.iter().find(|&&v| v as usize >= self.positions.len()) {
                return Err(RadialError::VertexIndex {
                    triangle,
                    vertex,
                    vertices: self.positions.len(),
                });
            }
        }
        for (field, f) in self.fields.iter().enumerate() {
            let faces = f.faces.iter().flatten();
            if let Some(&face) = faces
                .into_iter()
                .find(|&&t| t as usize >= self.triangles.len())
            {
                return Err(RadialError::FaceIndex {
                    field,
                    face,
                    triangles: self.triangles.len(),
                });
            }
        }
        Ok(())
    }

    /// Every (field, triangle) pair to draw, field by field.
    pub fn pairs(&self) -> Vec<[u32; 2]> {
        let all = 0..self.triangles.len() as u32;
        let mut out = Vec::new();
        for (f, spec) in self.fields.iter().enumerate() {
            match &spec.faces {
                Some(faces) => out.extend(faces.iter().map(|&t| [f as u32, t])),
                None => out.extend(all.clone().map(|t| [f as u32, t])),
            }
        }
        out
    }
}

/// The resolution and filters of every field.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RadialParams {
    /// θ cells (columns); even.
    pub n_theta: u32,
    /// z cells (rows).
    pub n_z: u32,
    /// Faces whose unit normal meets the radial direction at their centroid
    /// with a cosine below this are culled (back-facing or nearly
    /// perpendicular, §5.2.2).
    pub min_facing: f32,
    /// Clamp each distance to the face's farthest vertex (§5.2.2).
    pub filter: bool,
}

impl Default for RadialParams {
    fn default() -> Self {
        RadialParams {
            n_theta: 64,
            n_z: 32,
            min_facing: DEFAULT_MIN_FACING,
            filter: true,
        }
    }
}

impl RadialParams {
    pub fn new(n_theta: u32, n_z: u32) -> Self {
        RadialParams {
            n_theta,
            n_z,
            ..Default::default()
        }
    }

    pub fn validate(&self) -> Result<(), RadialError> {
        let ok = |n: u32| (1..=MAX_RESOLUTION).contains(&n);
        if !(ok(self.n_theta) && ok(self.n_z) && self.n_theta.is_multiple_of(2)) {
            return Err(RadialError::Resolution {
                n_theta: self.n_theta,
                n_z: self.n_z,
                max: MAX_RESOLUTION,
            });
        }
        if !(0.0..1.0).contains(&self.min_facing) {
            return Err(RadialError::MinFacing(self.min_facing));
        }
        Ok(())
    }

    pub fn cells_per_field(&self) -> usize {
        self.n_theta as usize * self.n_z as usize
    }
}

/// The fields, as the GPU lays them out, and how they were made.
#[derive(Debug, Clone)]
pub struct RadialProduct {
    /// One frame per field, `offset` into `values`.
    pub frames: Vec<FieldFrameGpu>,
    /// Every field's cells, row-major by z; `+inf` where no face covers.
    pub values: Vec<f32>,
    pub n_theta: u32,
    pub n_z: u32,
    pub backend: Backend,
    pub timings: Timings,
}

impl RadialProduct {
    /// The cells of field `f`, row-major by z.
    pub fn field(&self, f: usize) -> &[f32] {
        let n = self.n_theta as usize * self.n_z as usize;
        &self.values[f * n..(f + 1) * n]
    }
}

crate::stages::backend::backends! {
    /// Which implementation rasterises.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum Backend {
        Cpu { name: "cpu", gpu: false },
        /// The render pipeline.
        Gpu { name: "gpu", gpu: true },
        /// Compute shaders.
        GpuCompute { name: "gpu-compute", gpu: true },
    }
}

impl Backend {
    /// The GPU rasteriser of a GPU backend.
    pub fn rasteriser(self) -> Option<Rasteriser> {
        match self {
            Backend::Cpu => None,
            Backend::Gpu => Some(Rasteriser::Render),
            Backend::GpuCompute => Some(Rasteriser::Compute),
        }
    }
}

/// The frames of `fields` in the GPU layout, one offset per field.
pub fn gpu_frames(fields: &[FieldSpec], params: &RadialParams) -> Vec<FieldFrameGpu> {
    let n = params.cells_per_field() as u32;
    fields
        .iter()
        .enumerate()
        .map(|(f, spec)| FieldFrameGpu::new(&spec.frame, params.n_theta, params.n_z, f as u32 * n))
        .collect()
}

/// The radial-field stage (the stage contract of [`crate::stages`]).
pub struct Radial;

impl Radial {
    /// The stage's GPU state on this device (create it once).
    pub fn gpu(gpu: &GpuContext) -> Result<RadialGpu, RadialError> {
        Ok(RadialGpu::new(gpu))
    }

    pub fn run(
        input: RadialInput<'_>,
        params: &RadialParams,
        backend: Backend,
        gpu: Option<&RadialGpu>,
        _progress: &Progress,
    ) -> Result<RadialProduct, RadialError> {
        params.validate()?;
        input.validate()?;
        let mut timings = Timings::default();
        let values = match backend {
            Backend::Cpu => {
                let start = std::time::Instant::now();
                let values = cpu::rasterise(input, params);
                timings.push("rasterise", start.elapsed().as_secs_f64() * 1e3, None);
                values
            }
            Backend::Gpu | Backend::GpuCompute => {
                let g = gpu.ok_or_else(crate::stages::no_gpu)?;
                let rasteriser = backend.rasteriser().expect("a GPU backend");
                g.run(input, params, rasteriser, &mut timings)?
            }
        };
        Ok(RadialProduct {
            frames: gpu_frames(input.fields, params),
            values,
            n_theta: params.n_theta,
            n_z: params.n_z,
            backend,
            timings,
        })
    }
}
