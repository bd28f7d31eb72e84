//! Sampling points of a mesh (Sundholm 2010, §5.1.1 and §6.2.4).
//!
//! # How it works
//!
//! A mesh is represented, for collision queries against another body's
//! distance field, by a set of points on its surface. Each point carries the
//! pseudo-normal of the feature it lies on and the feature's kind:
//!
//! * **vertices** in non-flat regions: a vertex is *flat* when the face
//!   normal of every incident triangle is within the coplanarity tolerance
//!   of the vertex's angle-weighted pseudo-normal (§6.2.4's test); flat
//!   vertices are skipped, because a collision there is caught by the other
//!   body's samples crossing this body's zero level set — unless
//!   [`SamplingParams::flat_vertices`] asks for every vertex: a body with
//!   no samples of its own (the simulation's ground plane) catches
//!   nothing, and where a gently curved surface chains many flat vertices
//!   the skipped ones bulge past the sampled rim;
//! * **edges** with at least one non-planar neighbouring face (the incident
//!   faces are not all coplanar with the first, or the edge is a boundary
//!   rim) and longer than the step `max(sampling threshold, cell diagonal)`:
//!   `⌈len / step⌉ − 1` interior points, evenly spaced (so no two are more
//!   than one step apart; the end points are vertex samples already);
//! * **faces**: one centroid per region of coplanar triangles found by a
//!   walk over edge-adjacent faces, for regions whose area exceeds
//!   `area threshold × cell side²` (Sundholm: "significantly larger than the
//!   largest side of a grid cell"). The centroid is the average of the
//!   region's distinct vertices, as in the thesis — for a non-convex region
//!   it can fall outside the region (but stays in its plane).
//!
//! Two faces are coplanar when their unit normals differ by less than the
//! tolerance angle; the walk chains this relation (a slowly curving surface
//! can form one region, as in the thesis' breadth-first walk).
//!
//! Both backends produce the same [`SampleSet`]: the CPU reference walks the
//! surface breadth-first; the GPU (`shaders/sampling.wgsl`) classifies every
//! vertex and edge in one invocation each (edge points are appended to one
//! buffer through an atomic counter) and labels coplanar regions by
//! iterated minimum-label propagation over the face adjacency (each region
//! ends with the smallest face index in it — the same id the CPU walk
//! gives). Per-region area and centroid sums are a small reduction done on
//! the CPU after reading the labels back (WGSL has no float atomics). Samples
//! are put in canonical order — kind, feature id, index along the edge — so
//! the two backends' sets compare element by element.
//!
//! # Buffer layout (GPU)
//!
//! ```text
//! geometry  [positions | face normals | vertex normals | edge normals]  vec4 each
//! topology  [vertex_face_offsets | vertex_faces | edge_vertices (2 per edge)
//!            | edge_face_offsets | edge_faces | face_edges (3 per face)]  u32
//! samples   [pos.xyz kind|sub<<2 | normal.xyz feature]                  32 bytes each
//! labels    [region id per face]                                        atomic u32
//! ```

mod cpu;
pub(super) mod gpu;

pub use cpu::compute_cpu;
pub use gpu::SamplingGpu;

use glam::Vec3;

use crate::mesh::{Mesh, PseudoNormals, Topology};
use crate::progress::Progress;
use crate::timing::Timings;

/// What a sampling point (or a contact made from one) lies on. One byte,
/// its discriminant (the colliders' decode stores it as such).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum FeatureKind {
    Vertex = 0,
    Edge = 1,
    Face = 2,
    /// A point on an analytic primitive (sphere, box) tested against a field.
    Primitive = 3,
    /// A grid cell (the line collider's contact).
    Cell = 4,
}

impl FeatureKind {
    pub const ALL: [FeatureKind; 5] = [
        FeatureKind::Vertex,
        FeatureKind::Edge,
        FeatureKind::Face,
        FeatureKind::Primitive,
        FeatureKind::Cell,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FeatureKind::Vertex => "vertex",
            FeatureKind::Edge => "edge",
            FeatureKind::Face => "face",
            FeatureKind::Primitive => "primitive",
            FeatureKind::Cell => "cell",
        }
    }

    pub fn from_index(i: u32) -> Option<Self> {
        Self::ALL.get(i as usize).copied()
    }
}

/// One sampling point, in the mesh's object frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub position: Vec3,
    /// Pseudo-normal of the feature (unit, outward).
    pub normal: Vec3,
    pub kind: FeatureKind,
    /// Vertex index, edge index ([`Topology`] numbering) or region id (the
    /// smallest face index of the region).
    pub feature: u32,
    /// Index along the edge (1-based) for edge samples, else 0.
    pub sub: u32,
}

impl Sample {
    fn order_key(&self) -> (FeatureKind, u32, u32) {
        (self.kind, self.feature, self.sub)
    }
}

/// The sample as the shaders see it: `struct Sample` of shaders/sampling.wgsl
/// and shaders/collide.wgsl (the layout is checked by
/// tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuSample {
    pub position: [f32; 3],
    /// `kind | (sub << 3)`.
    pub kind_sub: u32,
    pub normal: [f32; 3],
    pub feature: u32,
}
const _: () = assert!(std::mem::size_of::<GpuSample>() == 32);

impl From<&Sample> for GpuSample {
    fn from(s: &Sample) -> Self {
        GpuSample {
            position: s.position.to_array(),
            kind_sub: s.kind as u32 | (s.sub << 3),
            normal: s.normal.to_array(),
            feature: s.feature,
        }
    }
}

impl GpuSample {
    pub(crate) fn to_sample(self) -> Option<Sample> {
        Some(Sample {
            position: Vec3::from(self.position),
            normal: Vec3::from(self.normal),
            kind: FeatureKind::from_index(self.kind_sub & 7)?,
            feature: self.feature,
            sub: self.kind_sub >> 3,
        })
    }
}

/// Parameters of the sampling.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SamplingParams {
    /// User sampling threshold along edges (world units); the step used is
    /// `max(threshold, cell diagonal)`.
    pub threshold: f32,
    /// Two normals are "the same" within this angle, in degrees.
    pub coplanar_tolerance_deg: f32,
    /// A coplanar region gets a centroid sample when its area exceeds this
    /// many cell faces (`cell_size²`).
    pub area_threshold: f32,
    /// Sample edges (table 5.1's second row).
    pub edges: bool,
    /// Sample coplanar regions (table 5.1's third row).
    pub faces: bool,
    /// Sample flat vertices too (every vertex with a face).
    #[serde(default)]
    pub flat_vertices: bool,
}

impl Default for SamplingParams {
    fn default() -> Self {
        SamplingParams {
            threshold: 0.0,
            coplanar_tolerance_deg: 1.0,
            area_threshold: 4.0,
            edges: true,
            faces: true,
            flat_vertices: false,
        }
    }
}

/// Errors of the sampling stage.
#[derive(Debug, thiserror::Error)]
pub enum SamplingError {
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error("cell size {0} must be a finite number > 0")]
    CellSize(f32),
    #[error("sampling threshold {0} must be a finite number ≥ 0")]
    Threshold(f32),
    #[error("coplanarity tolerance {0}° must be within 0..90")]
    Tolerance(f32),
    #[error("area threshold {0} must be a finite number ≥ 0")]
    Area(f32),
    #[error("the mesh has {0} edges; the GPU sampler handles at most 2^29 per sub-index")]
    TooLarge(usize),
}

impl SamplingParams {
    pub fn validate(&self, cell_size: f32) -> Result<(), SamplingError> {
        if !(cell_size.is_finite() && cell_size > 0.0) {
            return Err(SamplingError::CellSize(cell_size));
        }
        if !(self.threshold.is_finite() && self.threshold >= 0.0) {
            return Err(SamplingError::Threshold(self.threshold));
        }
        if !(self.coplanar_tolerance_deg.is_finite()
            && (0.0..90.0).contains(&self.coplanar_tolerance_deg))
        {
            return Err(SamplingError::Tolerance(self.coplanar_tolerance_deg));
        }
        if !(self.area_threshold.is_finite() && self.area_threshold >= 0.0) {
            return Err(SamplingError::Area(self.area_threshold));
        }
        Ok(())
    }

    /// Cosine of the coplanarity tolerance.
    pub(crate) fn cos_tolerance(&self) -> f32 {
        self.coplanar_tolerance_deg.to_radians().cos()
    }

    /// Spacing of edge samples for a grid of `cell_size`.
    pub fn step(&self, cell_size: f32) -> f32 {
        self.threshold.max(cell_size * 3f32.sqrt())
    }
}

/// A mesh with the adjacency and normals sampling needs. Indices refer to
/// `mesh` (use a [`crate::mesh::PreparedMesh`]'s welded mesh so
/// samples and field agree).
pub struct SamplingMesh {
    pub mesh: Mesh,
    pub topology: Topology,
    pub normals: PseudoNormals,
}

impl SamplingMesh {
    pub fn new(mesh: &Mesh) -> Self {
        let topology = Topology::build(mesh);
        let normals = PseudoNormals::compute(mesh, &topology);
        SamplingMesh {
            mesh: mesh.clone(),
            topology,
            normals,
        }
    }
}

crate::stages::backend::backends! {
    /// Which implementation samples.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Backend {
        Cpu { name: "cpu", gpu: false },
        Gpu { name: "gpu", gpu: true },
    }
}

/// The product: the samples in canonical order and counts per kind.
#[derive(Clone, Debug, Default)]
pub struct SampleSet {
    pub samples: Vec<Sample>,
    /// Coplanar regions found (before the area test).
    pub regions: usize,
    /// Edge step used (world units).
    pub step: f32,
    pub timings: Timings,
}

impl SampleSet {
    pub fn count(&self, kind: FeatureKind) -> usize {
        self.samples.iter().filter(|s| s.kind == kind).count()
    }

    fn sort_canonical(&mut self) {
        self.samples.sort_by_key(Sample::order_key);
    }
}

/// Samples `mesh` for a grid of cell side `cell_size` with either backend.
pub fn compute(
    mesh: &SamplingMesh,
    cell_size: f32,
    params: &SamplingParams,
    backend: Backend,
    gpu: Option<&SamplingGpu>,
) -> Result<SampleSet, SamplingError> {
    params.validate(cell_size)?;
    match backend {
        Backend::Cpu => Ok(compute_cpu(mesh, cell_size, params)),
        Backend::Gpu => {
            let gpu = gpu.ok_or_else(super::no_gpu)?;
            gpu.compute(mesh, cell_size, params)
        }
    }
}

/// The sampling stage ([`compute`]); its input is the mesh and the cell
/// side of the field the samples will be tested against.
pub struct Sampling;

impl Sampling {
    /// The stage's GPU state on this device (create it once).
    pub fn gpu(gpu: &crate::gpu::GpuContext) -> Result<SamplingGpu, SamplingError> {
        Ok(SamplingGpu::new(gpu))
    }

    /// Not interruptible: `progress` is not used.
    pub fn run(
        (mesh, cell_size): (&SamplingMesh, f32),
        params: &SamplingParams,
        backend: Backend,
        gpu: Option<&SamplingGpu>,
        _progress: &Progress,
    ) -> Result<SampleSet, SamplingError> {
        compute(mesh, cell_size, params, backend, gpu)
    }
}

/// Face samples from region labels (`labels[f]` = smallest face index of
/// f's coplanar region): the reduction both backends share.
pub(crate) fn region_samples(
    mesh: &SamplingMesh,
    labels: &[u32],
    cell_size: f32,
    params: &SamplingParams,
) -> (Vec<Sample>, usize) {
    let m = &mesh.mesh;
    let mut area = vec![0f64; labels.len()];
    let mut regions = 0;
    for (f, &l) in labels.iter().enumerate() {
        if l as usize == f {
            regions += 1;
        }
        if let Some(a) = area.get_mut(l as usize) {
            *a += f64::from(m.triangle_area(f));
        }
    }
    let min_area = f64::from(params.area_threshold) * f64::from(cell_size).powi(2);
    // Distinct vertices per region: mark each vertex with the last region
    // that counted it (faces of a region are visited together after sorting).
    let mut faces: Vec<(u32, u32)> = labels
        .iter()
        .enumerate()
        .filter(|&(_, &l)| area[l as usize] > min_area)
        .map(|(f, &l)| (l, f as u32))
        .collect();
    faces.sort_unstable();
    let mut seen = vec![u32::MAX; m.positions.len()];
    let mut out = Vec::new();
    let mut i = 0;
    while i < faces.len() {
        let region = faces[i].0;
        let mut sum = glam::DVec3::ZERO;
        let mut count = 0u32;
        while i < faces.len() && faces[i].0 == region {
            for v in m.triangles[faces[i].1 as usize] {
                if seen[v as usize] != region {
                    seen[v as usize] = region;
                    sum += m.positions[v as usize].as_dvec3();
                    count += 1;
                }
            }
            i += 1;
        }
        out.push(Sample {
            position: (sum / f64::from(count.max(1))).as_vec3(),
            normal: mesh.normals.face[region as usize],
            kind: FeatureKind::Face,
            feature: region,
            sub: 0,
        });
    }
    (out, regions)
}
