//! Contact points between distance-field bodies and with primitives
//! (Sundholm 2010, §5.1.2–5.4, §6.3; his §8.1 depth limitation and §8.2
//! batched-GPU future work).
//!
//! # How it works
//!
//! A mesh body is a [`ColliderShape`] — its signed distance field
//! ([`crate::stages::sdf_grid`]) and its sampling points
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
//! **Many pairs in one dispatch** (`shaders/colliders.wgsl`): all tasks go
//! into one buffer with the running total of their point counts; one
//! invocation per point binary-searches its task. Contacts are written in
//! canonical order (task, point) — the CPU reference's — by a count pass,
//! a scan of the workgroup counts and a write pass (a stable compaction,
//! [`gpu`]), as 16-byte records from which the host rebuilds each
//! [`Contact`] ([`compact`]). A large batch is cut into a few chunks of
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
mod streamed;
mod summary;

pub use compact::{NORMAL_MAX_ERROR, decode_normal, encode_normal};
pub use compare::{
    ContactComparison, ContactTolerance, Mismatch, ROUNDING_ULPS, RoundingCase, compare_contacts,
};
pub use cpu::{DecisionMargins, FieldView, detect_cpu};
pub use gpu::{COPY_PHASE, Chunking, ColliderGpu, ResidentShapes};
pub use summary::{PairSummary, SummarySet, summarize};

use glam::{Mat4, Vec3, Vec4};

use crate::mesh::Mesh;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::stages::sampling::{self, FeatureKind, Sample, SampleSet, SamplingMesh, SamplingParams};
use crate::stages::sdf_grid::{self, Backend, SdfField, SdfParams};
use crate::stages::{Stage, StageBackend};
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
        let prepared = PreparedMesh::new(mesh).map_err(sdf_grid::SdfError::from)?;
        let field =
            sdf_grid::compute(&prepared, sdf, Backend::CpuFast, None, &Progress::default())?;
        let samples = sampling::compute(
            &SamplingMesh::new(&prepared.mesh),
            field.grid.cell_size,
            sampling_params,
            sampling::SamplingBackend::Cpu,
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
}

impl Default for ColliderParams {
    fn default() -> Self {
        ColliderParams {
            interpolated_depth: false,
            reject_flipped: true,
            sphere_points: 64,
        }
    }
}

/// One contact point, world space. `repr(C)`: the decode of GPU records
/// writes it as words at these offsets ([`streamed`]).
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

/// Which implementation runs the colliders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColliderBackend {
    Cpu,
    Gpu,
}

impl ColliderBackend {
    pub fn name(self) -> &'static str {
        match self {
            ColliderBackend::Cpu => "cpu",
            ColliderBackend::Gpu => "gpu",
        }
    }
}

impl StageBackend for ColliderBackend {
    const ALL: &'static [Self] = &[ColliderBackend::Cpu, ColliderBackend::Gpu];

    fn name(self) -> &'static str {
        ColliderBackend::name(self)
    }

    fn is_gpu(self) -> bool {
        self == ColliderBackend::Gpu
    }
}

/// The product.
#[derive(Clone, Debug, Default)]
pub struct ContactSet {
    pub contacts: Vec<Contact>,
    /// Tasks planned and points tested.
    pub tasks: usize,
    pub tests: usize,
    pub timings: Timings,
}

#[derive(Debug, thiserror::Error)]
pub enum ColliderError {
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error(transparent)]
    Sdf(#[from] sdf_grid::SdfError),
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
    backend: ColliderBackend,
    gpu: Option<&ColliderGpu>,
) -> Result<ContactSet, ColliderError> {
    match backend {
        ColliderBackend::Cpu => detect_cpu(shapes, bodies, pairs, params),
        ColliderBackend::Gpu => {
            let gpu = gpu.ok_or_else(super::no_gpu)?;
            let resident = gpu.upload(shapes)?;
            gpu.detect(&resident, shapes, bodies, pairs, params)
        }
    }
}

/// The colliders stage ([`detect`]); its input is the shapes, the bodies
/// placing them and the body pairs to test.
pub struct Colliders;

impl Stage for Colliders {
    type Input<'a> = (&'a [ColliderShape], &'a [Body], &'a [(usize, usize)]);
    type Params = ColliderParams;
    type Product = ContactSet;
    type Error = ColliderError;
    type Backend = ColliderBackend;
    type Gpu = ColliderGpu;

    fn gpu(gpu: &crate::gpu::GpuContext) -> Result<ColliderGpu, ColliderError> {
        Ok(ColliderGpu::new(gpu))
    }

    /// Not interruptible: `progress` is not used.
    fn run(
        (shapes, bodies, pairs): Self::Input<'_>,
        params: &ColliderParams,
        backend: ColliderBackend,
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

/// One task: `struct Task` of shaders/colliders.wgsl (the layout and the
/// `TASK_*` kinds are checked by tests/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Task {
    pub world_from_a: [[f32; 4]; 4],
    pub b_from_world: [[f32; 4]; 4],
    pub world_from_b: [[f32; 4]; 4],
    /// Plane (n, d), sphere (centre, r), box (half extents, 0), segment start.
    pub prim: [f32; 4],
    /// Segment end.
    pub prim2: [f32; 4],
    pub kind: u32,
    pub body: u32,
    pub other: u32,
    /// Shape index of the field (field tasks).
    pub field: u32,
    /// First point in the shape samples (or the extra points).
    pub sample_start: u32,
    pub sample_count: u32,
    /// Running total of point counts before this task.
    pub thread_start: u32,
    /// 1 when the points are in the extra (primitive) buffer.
    pub extra: u32,
    /// Index of the task's pair in the detect's pair list.
    pub pair: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<Task>() == 272);

pub(crate) struct Plan {
    pub tasks: Vec<Task>,
    /// Points on primitives, in their object frames.
    pub extra: Vec<Sample>,
    pub total_threads: usize,
}

/// First sample of each shape in the concatenated sample list.
pub(crate) fn sample_starts(shapes: &[ColliderShape]) -> Vec<u32> {
    let mut acc = 0u32;
    shapes
        .iter()
        .map(|s| {
            let start = acc;
            acc += s.samples.samples.len() as u32;
            start
        })
        .collect()
}

fn check_transform(i: usize, m: &Mat4) -> Result<Mat4, ColliderError> {
    let inv = m.inverse();
    if !m.is_finite() || !inv.is_finite() || m.determinant().abs() < 1e-12 {
        return Err(ColliderError::BadTransform(i));
    }
    Ok(inv)
}

/// Points on a sphere of `radius` (Fibonacci lattice) with outward normals.
pub fn sphere_points(radius: f32, n: u32, body: u32) -> Vec<Sample> {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    (0..n.max(1))
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / n.max(1) as f32;
            let r = (1.0 - y * y).max(0.0).sqrt();
            let phi = golden * i as f32;
            let dir = Vec3::new(r * phi.cos(), y, r * phi.sin());
            Sample {
                position: dir * radius,
                normal: dir,
                kind: FeatureKind::Primitive,
                feature: body,
                sub: i,
            }
        })
        .collect()
}

/// Corners, edge midpoints and face centres of a centred box.
pub fn box_points(half: Vec3, body: u32) -> Vec<Sample> {
    let mut out = Vec::new();
    for x in -1..=1 {
        for y in -1..=1 {
            for z in -1..=1 {
                let s = Vec3::new(x as f32, y as f32, z as f32);
                if s == Vec3::ZERO {
                    continue;
                }
                out.push(Sample {
                    position: s * half,
                    normal: s.normalize(),
                    kind: FeatureKind::Primitive,
                    feature: body,
                    sub: out.len() as u32,
                });
            }
        }
    }
    out
}

pub(crate) fn plan(
    shapes: &[ColliderShape],
    bodies: &[Body],
    pairs: &[(usize, usize)],
    params: &ColliderParams,
) -> Result<Plan, ColliderError> {
    let starts = sample_starts(shapes);
    let mut inverses = Vec::with_capacity(bodies.len());
    for (i, b) in bodies.iter().enumerate() {
        inverses.push(check_transform(i, &b.world_from_object)?);
        match b.shape {
            BodyShape::Mesh(s) if s >= shapes.len() => {
                return Err(ColliderError::NoSuchShape(i, s, shapes.len()));
            }
            BodyShape::Plane { normal, offset }
                if !(normal.is_finite() && offset.is_finite() && normal.length() > 1e-6) =>
            {
                return Err(ColliderError::BadPrimitive(
                    i,
                    "the plane needs a non-zero normal",
                ));
            }
            BodyShape::Sphere { radius } if !(radius.is_finite() && radius > 0.0) => {
                return Err(ColliderError::BadPrimitive(i, "the radius must be > 0"));
            }
            BodyShape::Cuboid { half_extents }
                if !(half_extents.is_finite() && half_extents.min_element() > 0.0) =>
            {
                return Err(ColliderError::BadPrimitive(i, "half extents must be > 0"));
            }
            BodyShape::Segment { a, b } if !(a.is_finite() && b.is_finite()) => {
                return Err(ColliderError::BadPrimitive(
                    i,
                    "segment ends must be finite",
                ));
            }
            _ => {}
        }
    }
    let mut plan = Plan {
        tasks: Vec::new(),
        extra: Vec::new(),
        total_threads: 0,
    };
    let push = |plan: &mut Plan, pair: usize, mut task: Task| {
        task.pair = pair as u32;
        task.thread_start = plan.total_threads as u32;
        plan.total_threads += task.sample_count as usize;
        plan.tasks.push(task);
    };
    let base = |a: usize, b: usize| Task {
        world_from_a: bodies[a].world_from_object.to_cols_array_2d(),
        b_from_world: inverses[b].to_cols_array_2d(),
        world_from_b: bodies[b].world_from_object.to_cols_array_2d(),
        prim: [0.0; 4],
        prim2: [0.0; 4],
        kind: TASK_SAMPLES_FIELD,
        body: a as u32,
        other: b as u32,
        field: 0,
        sample_start: 0,
        sample_count: 0,
        thread_start: 0,
        extra: 0,
        pair: 0,
        _pad: [0; 3],
    };
    // Samples of mesh body `a` against target `b`.
    let samples_of = |a: usize, shape: usize, b: usize| Task {
        sample_start: starts[shape],
        sample_count: shapes[shape].samples.samples.len() as u32,
        ..base(a, b)
    };
    for (p, &(i, j)) in pairs.iter().enumerate() {
        if i >= bodies.len() || j >= bodies.len() {
            return Err(ColliderError::NoSuchBody(i, j, bodies.len()));
        }
        // Mesh first.
        let (i, j) = match (bodies[i].shape, bodies[j].shape) {
            (BodyShape::Mesh(_), _) => (i, j),
            (_, BodyShape::Mesh(_)) => (j, i),
            _ => continue,
        };
        let BodyShape::Mesh(si) = bodies[i].shape else {
            continue;
        };
        let wj = bodies[j].world_from_object;
        match bodies[j].shape {
            BodyShape::Mesh(sj) => {
                push(
                    &mut plan,
                    p,
                    Task {
                        field: sj as u32,
                        ..samples_of(i, si, j)
                    },
                );
                push(
                    &mut plan,
                    p,
                    Task {
                        field: si as u32,
                        ..samples_of(j, sj, i)
                    },
                );
            }
            BodyShape::Plane { normal, offset } => {
                let n_obj = normal.normalize();
                let n = wj.transform_vector3(n_obj).normalize();
                let d = n.dot(wj.transform_point3(n_obj * offset));
                push(
                    &mut plan,
                    p,
                    Task {
                        kind: TASK_SAMPLES_PLANE,
                        prim: n.extend(d).to_array(),
                        ..samples_of(i, si, j)
                    },
                );
            }
            BodyShape::Sphere { radius } => {
                let c = wj.transform_point3(Vec3::ZERO);
                push(
                    &mut plan,
                    p,
                    Task {
                        kind: TASK_SAMPLES_SPHERE,
                        prim: c.extend(radius).to_array(),
                        ..samples_of(i, si, j)
                    },
                );
                let points = sphere_points(radius, params.sphere_points, j as u32);
                let extra_start = plan.extra.len() as u32;
                push(
                    &mut plan,
                    p,
                    Task {
                        field: si as u32,
                        sample_start: extra_start,
                        sample_count: points.len() as u32,
                        extra: 1,
                        ..base(j, i)
                    },
                );
                plan.extra.extend(points);
            }
            BodyShape::Cuboid { half_extents } => {
                push(
                    &mut plan,
                    p,
                    Task {
                        kind: TASK_SAMPLES_BOX,
                        prim: half_extents.extend(0.0).to_array(),
                        ..samples_of(i, si, j)
                    },
                );
                let points = box_points(half_extents, j as u32);
                let extra_start = plan.extra.len() as u32;
                push(
                    &mut plan,
                    p,
                    Task {
                        field: si as u32,
                        sample_start: extra_start,
                        sample_count: points.len() as u32,
                        extra: 1,
                        ..base(j, i)
                    },
                );
                plan.extra.extend(points);
            }
            BodyShape::Segment { a, b } => {
                push(
                    &mut plan,
                    p,
                    Task {
                        kind: TASK_SEGMENT_FIELD,
                        field: si as u32,
                        prim: wj.transform_point3(a).extend(1.0).to_array(),
                        prim2: wj.transform_point3(b).extend(1.0).to_array(),
                        sample_count: 1,
                        // The mesh is the body penetrated by the line's points:
                        // world_from_b / b_from_world are the mesh's.
                        ..base(j, i)
                    },
                );
                let t = plan.tasks.last_mut().expect("just pushed");
                // Report the mesh as `body`, the segment as `other`.
                t.body = i as u32;
                t.other = j as u32;
            }
        }
    }
    if plan.total_threads > u32::MAX as usize {
        return Err(ColliderError::TooMany(plan.total_threads));
    }
    Ok(plan)
}

impl Task {
    pub(crate) fn world_from_a(&self) -> Mat4 {
        Mat4::from_cols_array_2d(&self.world_from_a)
    }
    pub(crate) fn b_from_world(&self) -> Mat4 {
        Mat4::from_cols_array_2d(&self.b_from_world)
    }
    pub(crate) fn world_from_b(&self) -> Mat4 {
        Mat4::from_cols_array_2d(&self.world_from_b)
    }
    pub(crate) fn prim(&self) -> Vec4 {
        Vec4::from(self.prim)
    }
}

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
