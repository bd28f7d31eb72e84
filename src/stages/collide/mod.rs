//! Contact points between distance-field bodies and with primitives
//! (Sundholm 2010, §5.1.2–5.4, §6.3; his §8.1 depth limitation and §8.2
//! batched-GPU future work).
//!
//! # How it works
//!
//! A mesh body is a [`ColliderShape`] — its signed distance field
//! ([`crate::stages::sdf`]) and its sampling points
//! ([`crate::stages::sampling`]), both in the object frame — placed by a
//! rigid `world_from_object` transform. Primitives (plane, sphere, box,
//! segment) are bodies too. A list of body pairs is planned into *tasks*;
//! every task is "a set of points against one target":
//!
//! | pair | tasks |
//! |---|---|
//! | field–field | samples of A against B's grid, samples of B against A's grid (§5.1.2, §6.3.1) |
//! | field–plane | samples against the plane (§5.2, §6.3.2) |
//! | field–sphere, field–box | samples against the primitive; points on the primitive against the field (§5.4) |
//! | field–segment | the segment against the grid (§5.3, §6.3.3) |
//!
//! **Sample against a field.** The point goes to world space and into the
//! field's object frame; the cell containing it gives the value `v`. If
//! `v < 0` the point is inside and makes a contact: its normal is the field
//! gradient by one-sided finite differences over the smallest interval
//! around the point — per axis the neighbour cell on the point's side of the
//! cell centre (the other one at the grid's edge) — rotated to world space.
//! It points out of the field's body ("other") into the sample's body
//! ("body"). A contact whose normal points the same way as the sample's own
//! feature normal (`n · n_sample > 0`) is rejected: Sundholm's fix for the
//! flipped gradients a sample gets when it is deeper than the medial axis
//! or sits at a corner ([`ColliderParams::reject_flipped`]). The depth is
//! `−v`: the distance at the cell *centre*, off by up to half a cell
//! diagonal — his §8.1 limitation. With
//! [`ColliderParams::interpolated_depth`] the inside test and the depth use
//! the trilinear interpolation of the eight surrounding cell centres at the
//! point itself (exact wherever the field is linear, e.g. near a flat face);
//! every contact keeps both values (`depth`, `depth_cell`) so the difference
//! can be shown.
//!
//! **Contact threshold.** With [`ColliderParams::contact_threshold`] `ε > 0`
//! every test below compares the distance with `ε` instead of 0 — `v < ε`,
//! the plane's `s < ε`, the sphere's radius and the box's half-extents grown
//! by `ε`, the segment's first cell with `v < ε` — and the depth is `ε − d`:
//! the other body read as grown by a skin of `ε` (the collision margin of
//! game engines). Contacts then appear up to `ε` before the surfaces touch,
//! which a solver uses to stop an approach one step early, and resting
//! bodies settle about `ε` apart. `ε = 0` is Sundholm's inside test.
//!
//! **Samples against a plane, sphere or box**: analytic inside tests; the
//! normal is the plane's normal, or the direction from the sphere's centre,
//! or the normal of the box face nearest the point; depth is the distance
//! to that surface. **Primitive points against a field**: a Fibonacci set
//! on the sphere, the corners, edge midpoints and face centres of the box
//! (Sundholm's suggestion), each with its outward normal, tested like mesh
//! samples.
//!
//! **Segment against a field**: in the field's frame the segment is clipped
//! to the grid box by Cohen–Sutherland; then an exact voxel walk
//! (Amanatides–Woo, visiting every cell the segment passes through, which
//! Bresenham does not guarantee) goes from the clipped start; the first cell
//! with a negative value gives the one contact, at the cell centre, normal
//! along the segment from its start point to the contact, depth `−v`.
//!
//! **Many pairs in one dispatch** (`shaders/collide.wgsl`): all tasks go
//! into one buffer with the running total of their point counts; one
//! invocation per point binary-searches its task. Contacts are written in
//! canonical order (task, point) — the CPU reference's — by a count pass,
//! a scan of the workgroup counts and a write pass (a stable compaction,
//! `gpu`), as 16-byte records from which the host rebuilds each
//! [`Contact`] (`compact`). A large batch is cut into a few chunks of
//! points, each read back and decoded while the GPU computes the next
//! ([`Chunking`]).
//!
//! # Buffer layout (GPU)
//!
//! ```text
//! tasks    [Task; n]   3 mat4 (world_from_a, b_from_world, world_from_b),
//!                      2 vec4 primitive, 8 u32 (kind body other field
//!                      sample_start sample_count thread_start extra
//!                      pair _ _ _)  272 B
//! samples  [all shapes' samples]  (resident)   extra [primitive points]
//! fields   [origin cell_size dims offset]      values [all fields' values]
//! contacts [point depth aux normal]            16 B (compact::GpuContact)
//! counter  [contacts written, passes disagree, _, _,
//!           per pair (summary): contacts, deepest depth's bits]
//! groups   [count per workgroup; offset per workgroup]
//! ```

pub(super) mod compact;
mod compare;
mod cpu;
pub(super) mod gpu;
pub(super) mod octahedral;
mod planning;
mod streamed;
mod summary;

pub use compare::{
    ContactComparison, ContactTolerance, Mismatch, ROUNDING_ULPS, RoundingCase, compare_contacts,
};
pub use cpu::{DecisionMargins, FieldView, detect_cpu};
pub use gpu::{COPY_PHASE, Chunking, ColliderGpu, ResidentShapes};
pub use octahedral::{NORMAL_MAX_ERROR, decode_normal, encode_normal};
pub use planning::Task;
pub(crate) use planning::{Extent, Plan, Planner, plan, sample_starts};
pub use summary::{PairSummary, SummarySet, summarize};

use glam::{Mat4, Vec3};

use crate::mesh::Mesh;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::stages::sampling::{self, FeatureKind, SampleSet, SamplingMesh, SamplingParams};
use crate::stages::sdf::{self, SdfField, SdfParams};
use crate::timing::Timings;

/// A mesh made ready for collisions: its field and its samples, object frame.
#[derive(Clone, Debug)]
pub struct ColliderShape {
    pub name: String,
    pub field: SdfField,
    pub samples: SampleSet,
}

impl ColliderShape {
    /// Field (CPU fast backend) and samples (CPU) of `mesh`.
    pub fn from_mesh(
        mesh: &Mesh,
        sdf: &SdfParams,
        sampling_params: &SamplingParams,
    ) -> Result<Self, ColliderError> {
        let prepared = PreparedMesh::new(mesh).map_err(sdf::SdfError::from)?;
        let field = sdf::compute(
            &prepared,
            sdf,
            sdf::Backend::CpuFast,
            None,
            &Progress::default(),
        )?;
        let samples = sampling::compute(
            &SamplingMesh::new(&prepared.mesh),
            field.grid.cell_size,
            sampling_params,
            sampling::Backend::Cpu,
            None,
        )?;
        Ok(ColliderShape {
            name: mesh.name.clone(),
            field,
            samples,
        })
    }
}

/// What a body is, in its object frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyShape {
    /// Index into the shape list.
    Mesh(usize),
    /// The half-space boundary `normal · x = offset` (normal unit; solid
    /// below).
    Plane {
        normal: Vec3,
        offset: f32,
    },
    /// Centred on the object origin.
    Sphere {
        radius: f32,
    },
    /// Centred box.
    Cuboid {
        half_extents: Vec3,
    },
    Segment {
        a: Vec3,
        b: Vec3,
    },
}

/// A body placed in the world by a rigid transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    pub shape: BodyShape,
    pub world_from_object: Mat4,
}

/// Parameters of the colliders.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ColliderParams {
    /// Inside test and depth from the trilinear interpolation at the point
    /// instead of the containing cell's centre value.
    pub interpolated_depth: bool,
    /// Drop contacts whose normal points the same way as the sample normal.
    pub reject_flipped: bool,
    /// Points on a sphere tested against a field.
    pub sphere_points: u32,
    /// Contact threshold `ε` (world units, ≥ 0): a point is in contact
    /// where its distance to the other surface is below `ε`, and its depth
    /// is `ε − d` — the other body read as grown by a skin of `ε`, so that
    /// bodies come to rest about `ε` apart and contacts exist a little
    /// before the surfaces meet. 0 is the paper's inside test.
    #[serde(default)]
    pub contact_threshold: f32,
}

impl ColliderParams {
    /// `eps` as a [`Self::contact_threshold`]: a finite distance of 0 or
    /// more; otherwise the message saying so.
    pub fn checked_contact_threshold(eps: f32) -> Result<f32, String> {
        if eps.is_finite() && eps >= 0.0 {
            Ok(eps)
        } else {
            Err(format!(
                "the contact threshold must be a finite distance of 0 or more, got {eps}"
            ))
        }
    }
}

impl Default for ColliderParams {
    fn default() -> Self {
        ColliderParams {
            interpolated_depth: false,
            reject_flipped: true,
            sphere_points: 64,
            contact_threshold: 0.0,
        }
    }
}

/// One contact point, world space. `repr(C)`: the decode of GPU records
/// writes it as words at these offsets (`streamed`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Contact {
    pub position: Vec3,
    /// Unit normal pointing out of `other` into `body`.
    pub normal: Vec3,
    /// Penetration depth (≥ 0) as chosen by the parameters.
    pub depth: f32,
    /// Depth from the containing cell's centre value alone (Sundholm's).
    pub depth_cell: f32,
    /// The body whose point penetrates.
    pub body: u32,
    /// The body penetrated.
    pub other: u32,
    #[serde(serialize_with = "feature_name")]
    pub feature: FeatureKind,
    /// Index of the point within its set (the shape's samples, the
    /// primitive's points, 0 for a segment).
    pub sample: u32,
}

fn feature_name<S: serde::Serializer>(k: &FeatureKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(k.name())
}

crate::stages::backend::backends! {
    /// Which implementation runs the colliders.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Backend {
        Cpu { name: "cpu", gpu: false },
        Gpu { name: "gpu", gpu: true },
    }
}

/// The product.
#[derive(Clone, Debug, Default)]
pub struct ContactSet {
    pub contacts: Vec<Contact>,
    /// Tasks planned and points tested.
    pub tasks: usize,
    pub tests: usize,
    /// The GPU submissions the points were cut into and read back one by
    /// one (1: a single submission; 0: the CPU).
    pub chunks: usize,
    pub timings: Timings,
}

#[derive(Debug, thiserror::Error)]
pub enum ColliderError {
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error(transparent)]
    Sdf(#[from] sdf::SdfError),
    #[error(transparent)]
    Sampling(#[from] sampling::SamplingError),
    #[error("pair ({0}, {1}) names a body that does not exist ({2} bodies)")]
    NoSuchBody(usize, usize, usize),
    #[error("body {0} refers to shape {1}, but there are {2} shapes")]
    NoSuchShape(usize, usize, usize),
    #[error("body {0} has a transform that is not finite or not invertible")]
    BadTransform(usize),
    #[error("body {0}: {1}")]
    BadPrimitive(usize, &'static str),
    #[error("{0} points to test exceed the GPU's 2^32 invocation index")]
    TooMany(usize),
}

/// Finds the contacts of `pairs` (indices into `bodies`). Pairs of two
/// primitives give no contacts (no collider exists for them). The GPU
/// backend uploads the shapes on each call; keep a [`ResidentShapes`] and
/// call [`ColliderGpu::detect`] to avoid that.
pub fn detect(
    shapes: &[ColliderShape],
    bodies: &[Body],
    pairs: &[(usize, usize)],
    params: &ColliderParams,
    backend: Backend,
    gpu: Option<&ColliderGpu>,
) -> Result<ContactSet, ColliderError> {
    match backend {
        Backend::Cpu => detect_cpu(shapes, bodies, pairs, params),
        Backend::Gpu => {
            let gpu = gpu.ok_or_else(super::no_gpu)?;
            let resident = gpu.upload(shapes)?;
            gpu.detect(&resident, shapes, bodies, pairs, params)
        }
    }
}

/// The colliders stage ([`detect`]); its input is the shapes, the bodies
/// placing them and the body pairs to test.
pub struct Colliders;

impl Colliders {
    /// The stage's GPU state on this device (create it once).
    pub fn gpu(gpu: &crate::gpu::GpuContext) -> Result<ColliderGpu, ColliderError> {
        Ok(ColliderGpu::new(gpu))
    }

    /// Not interruptible: `progress` is not used.
    pub fn run(
        (shapes, bodies, pairs): (&[ColliderShape], &[Body], &[(usize, usize)]),
        params: &ColliderParams,
        backend: Backend,
        gpu: Option<&ColliderGpu>,
        _progress: &Progress,
    ) -> Result<ContactSet, ColliderError> {
        detect(shapes, bodies, pairs, params, backend, gpu)
    }
}

// ---------------------------------------------------------------------------
// Planning: pairs → tasks (shared by both backends).

pub const TASK_SAMPLES_FIELD: u32 = 0;
pub const TASK_SAMPLES_PLANE: u32 = 1;
pub const TASK_SAMPLES_SPHERE: u32 = 2;
pub const TASK_SAMPLES_BOX: u32 = 3;
pub const TASK_SEGMENT_FIELD: u32 = 4;

/// Every pair of bodies `(i, j)`, `i < j`, in which at least one is a mesh.
pub fn all_pairs(bodies: &[Body]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..bodies.len() {
        for j in i + 1..bodies.len() {
            if matches!(bodies[i].shape, BodyShape::Mesh(_))
                || matches!(bodies[j].shape, BodyShape::Mesh(_))
            {
                out.push((i, j));
            }
        }
    }
    out
}
