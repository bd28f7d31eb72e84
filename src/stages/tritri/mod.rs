//! Exact triangle–triangle collision of two posed models ("Case study: Low
//! poly collision detection", the OpenCL tutorial in `shared/papers/`).
//!
//! # How it works
//!
//! A query asks whether model A at pose `pose_a` and model B at `pose_b`
//! touch, i.e. whether any triangle of A intersects any triangle of B
//! (closed triangles: touching at a vertex or an edge counts, and so do
//! coplanar overlaps). With [`TritriParams::all_pairs`] it returns every
//! colliding pair with its intersection segment instead of stopping at the
//! first.
//!
//! **The pair test.** The tutorial (§4.2–4.3) solves `A + δ·AB = C + α·CD +
//! β·CE` for five of the six edges and calls the sixth redundant. That
//! holds in general position but the test misses every coplanar overlap and
//! decides touching contacts by rounding (see [`crate::geom`]'s tritri
//! module and `tests/it/tritri.rs`, which measure it), so the default
//! predicate is Guigue–Devillers' orientation-based test
//! ([`Predicate::Exact`]); the tutorial's is kept as
//! [`Predicate::Tutorial`] for comparison. Both start with a triangle-box
//! reject and skip zero-area triangles.
//!
//! **Poses on the GPU** (tutorial §4.1 and its "300×" warning). Each model
//! is uploaded once and stays resident (cached by content). Per query only a
//! 48-byte pose goes up: the pair `(pose_a, pose_b)` is composed on the CPU
//! in f64 into `B_from_A`, and the shader moves A's triangles into B's
//! object frame as it loads them. B's triangles and BVH are used as stored,
//! so the BVH is built once and never refitted.
//!
//! **Backends.**
//!
//! | backend | method |
//! |---|---|
//! | `cpu-ref` | every pair, exact predicate in f64/i128 on world coordinates (poses applied in f64, rounded once to f32); rayon over A |
//! | `cpu` | same pairs, pruned by B's BVH (A's triangle box taken to B's frame, padded); rayon over A — identical answers |
//! | `gpu-brute` | one invocation per A triangle against 256 B triangles per workgroup, streamed through workgroup memory 64 at a time (2D dispatch over (i, j) tiles, z = query); an atomic flag per query stops the rest early |
//! | `gpu` | one invocation per (query, A triangle) traversing B's BVH; same flag |
//!
//! The two GPU backends test each pair with the same shader function on the
//! same f32 inputs (A moved into B's frame), and the triangle-box reject
//! inside it is implied by the BVH boxes, so pruning never changes an
//! answer: brute force and BVH agree exactly. The GPU's f32 arithmetic and
//! the CPU's exact arithmetic agree except on pairs within rounding of
//! touching; the CPU backends count those ([`TritriResult::near_touching`],
//! by [`crate::geom::f32_decision_margin`]).
//!
//! **All pairs.** Colliding pairs are appended through an atomic counter
//! (compacted output); a second kernel then computes one intersection
//! segment per appended pair, so the pair loops stay small. The output is
//! sized from the previous query's count (at least 1,024 pairs) to keep the
//! read-back short; if more pairs exist than it holds, the query runs again
//! with room for all of them.
//!
//! **Batches.** [`query_batch`] answers many pose pairs in one dispatch
//! (yes/no per pose pair), the way the tutorial says the GPU pays off.
//!
//! # Buffer layout (GPU)
//!
//! ```text
//! tri_a, tri_b [p0 q0 r0 | p1 q1 r1 | ...]   vec4 per corner, BVH order; p.w = 1: zero area
//! nodes_b      BvhNode (32 B) of B, root first
//! poses        [B_from_A rows r0 r1 r2]      3 vec4 per query
//! hits         [flag q0, flag q1, ..., pair count]   atomic u32
//! pairs        [(a slot, b slot)]            up to capacity
//! segments     [x0 x1 | ...]                 2 vec4 per pair, B's frame
//! ```

mod cpu;
pub(super) mod gpu;

pub use cpu::{intersection_segment_f64, query_cpu};
pub use gpu::TritriGpu;

use glam::{DAffine3, DQuat, Quat, Vec3};

use crate::geom::{Aabb, Bvh, Triangle, is_degenerate};
use crate::mesh::Mesh;
use crate::progress::Progress;
use crate::timing::Timings;

/// Triangles per BVH leaf.
pub const LEAF_SIZE: usize = 4;

/// Errors of the triangle–triangle stage. Each message is one readable line.
#[derive(Debug, thiserror::Error)]
pub enum TritriError {
    #[error(transparent)]
    Mesh(#[from] crate::mesh::MeshError),
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error("model '{name}': BVH is {depth} levels deep, beyond the GPU traversal stack of {max}")]
    BvhTooDeep {
        name: String,
        depth: usize,
        max: usize,
    },
    #[error("{0}")]
    TooLarge(String),
    #[error("invalid pose: {0}")]
    Pose(String),
    #[error("this run has no GPU context")]
    NoGpu,
}

/// Where a model is: rotate about its own origin, then translate.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pose {
    pub translation: Vec3,
    /// Unit quaternion (normalised in f64 when used).
    pub rotation: Quat,
}

impl Default for Pose {
    fn default() -> Self {
        Pose::IDENTITY
    }
}

impl Pose {
    /// The model where its file puts it.
    pub const IDENTITY: Pose = Pose {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };

    pub fn new(translation: Vec3, rotation: Quat) -> Self {
        Pose {
            translation,
            rotation,
        }
    }

    /// Checks for finite values and a non-zero quaternion.
    pub fn validate(&self) -> Result<(), TritriError> {
        let q = self.rotation;
        if !self.translation.is_finite() || !q.is_finite() {
            return Err(TritriError::Pose("non-finite value".into()));
        }
        if q.as_dquat().length() < 1e-12 {
            return Err(TritriError::Pose("zero-length rotation quaternion".into()));
        }
        Ok(())
    }

    /// `world_from_object` in f64 (the quaternion normalised).
    pub fn world_from_object(&self) -> DAffine3 {
        let q: DQuat = self.rotation.as_dquat().normalize();
        DAffine3::from_rotation_translation(q, self.translation.as_dvec3())
    }

    pub fn to_mat4(&self) -> glam::Mat4 {
        glam::Mat4::from_rotation_translation(self.rotation.normalize(), self.translation)
    }
}

/// Which pair test decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Predicate {
    /// Guigue–Devillers (exact on the CPU, f32 on the GPU).
    Exact,
    /// The tutorial's five segment–triangle solves (misses coplanar overlaps).
    Tutorial,
}

impl Predicate {
    pub fn name(self) -> &'static str {
        match self {
            Predicate::Exact => "exact",
            Predicate::Tutorial => "tutorial",
        }
    }
}

crate::stages::backend::backends! {
    /// Which implementation answers.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum Backend {
        CpuReference { name: "cpu-ref", gpu: false },
        Cpu { name: "cpu", gpu: false },
        GpuBrute { name: "gpu-brute", gpu: true },
        Gpu { name: "gpu", gpu: true },
    }
}

impl Backend {
    /// True for the BVH-pruned backends.
    pub fn is_pruned(self) -> bool {
        matches!(self, Backend::Cpu | Backend::Gpu)
    }
}

/// Parameters of a query.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TritriParams {
    /// Every colliding pair with its segment (no early exit).
    pub all_pairs: bool,
    pub predicate: Predicate,
}

impl Default for TritriParams {
    fn default() -> Self {
        TritriParams {
            all_pairs: false,
            predicate: Predicate::Exact,
        }
    }
}

/// A model prepared for queries: its triangles in object space, which have
/// zero area, and its BVH (built once).
#[derive(Clone, Debug)]
pub struct TriModel {
    pub mesh: Mesh,
    /// Corners per triangle, mesh order, object space.
    pub triangles: Vec<Triangle>,
    pub degenerate: Vec<bool>,
    pub bvh: Bvh,
    pub content_hash: u64,
}

impl TriModel {
    pub fn new(mesh: &Mesh) -> Result<Self, TritriError> {
        mesh.validate()?;
        let triangles: Vec<Triangle> = (0..mesh.triangles.len()).map(|t| mesh.corners(t)).collect();
        let degenerate: Vec<bool> = triangles.iter().map(|&t| is_degenerate(t)).collect();
        let bounds: Vec<Aabb> = triangles.iter().map(|&t| Aabb::of_triangle(t)).collect();
        let centroids: Vec<Vec3> = triangles
            .iter()
            .map(|t| (t[0] + t[1] + t[2]) / 3.0)
            .collect();
        let bvh = Bvh::build(&bounds, &centroids, LEAF_SIZE);
        Ok(TriModel {
            mesh: mesh.clone(),
            triangles,
            degenerate,
            bvh,
            content_hash: mesh.content_hash(),
        })
    }

    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    pub fn degenerate_count(&self) -> usize {
        self.degenerate.iter().filter(|&&d| d).count()
    }

    /// The triangles at `pose`: positions moved in f64 and rounded once.
    pub fn world_triangles(&self, pose: Pose) -> Vec<Triangle> {
        let m = pose.world_from_object();
        let positions: Vec<Vec3> = self
            .mesh
            .positions
            .iter()
            .map(|p| m.transform_point3(p.as_dvec3()).as_vec3())
            .collect();
        self.mesh
            .triangles
            .iter()
            .map(|t| t.map(|i| positions[i as usize]))
            .collect()
    }
}

/// One colliding pair: triangle indices (mesh order) and the intersection
/// segment in world space.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Contact {
    pub pair: [u32; 2],
    pub segment: [Vec3; 2],
}

/// The product of a query.
#[derive(Clone, Debug)]
pub struct TritriResult {
    pub backend: Backend,
    pub params: TritriParams,
    pub collides: bool,
    /// Every colliding pair, sorted (only with `all_pairs`).
    pub contacts: Vec<Contact>,
    /// CPU backends with `all_pairs`: pairs whose boxes overlap and whose
    /// f32 decision could differ from the exact one (within rounding of
    /// touching).
    pub near_touching: Option<usize>,
    pub timings: Timings,
}

impl TritriResult {
    pub fn pairs(&self) -> Vec<[u32; 2]> {
        self.contacts.iter().map(|c| c.pair).collect()
    }
}

/// The product of a batch: one yes/no per pose pair.
#[derive(Clone, Debug)]
pub struct BatchResult {
    pub backend: Backend,
    pub collides: Vec<bool>,
    pub timings: Timings,
}

/// `B_from_A` for a pose pair, in f64.
pub(crate) fn b_from_a(pose_a: Pose, pose_b: Pose) -> DAffine3 {
    pose_b.world_from_object().inverse() * pose_a.world_from_object()
}

/// One query with the chosen backend. `gpu` is needed for the GPU backends.
pub fn query(
    a: &TriModel,
    pose_a: Pose,
    b: &TriModel,
    pose_b: Pose,
    params: &TritriParams,
    backend: Backend,
    gpu: Option<&TritriGpu>,
) -> Result<TritriResult, TritriError> {
    pose_a.validate()?;
    pose_b.validate()?;
    if !backend.is_gpu() {
        return Ok(query_cpu(a, pose_a, b, pose_b, params, backend.is_pruned()));
    }
    let gpu = gpu.ok_or(TritriError::NoGpu)?;
    let out = gpu.run(a, b, &[(pose_a, pose_b)], params, backend == Backend::Gpu)?;
    let world_from_b = pose_b.world_from_object();
    let to_world = |p: Vec3| world_from_b.transform_point3(p.as_dvec3()).as_vec3();
    let mut contacts: Vec<Contact> = out
        .pairs
        .iter()
        .zip(&out.segments)
        .map(|(&pair, seg)| Contact {
            pair,
            segment: seg.map(to_world),
        })
        .collect();
    contacts.sort_by_key(|c| c.pair);
    Ok(TritriResult {
        backend,
        params: *params,
        collides: out.hits.first().copied().unwrap_or(false),
        contacts,
        near_touching: None,
        timings: out.timings,
    })
}

/// The triangle–triangle stage ([`query`]); its input is model A at its
/// pose and model B at its pose.
pub struct Tritri;

impl Tritri {
    /// The stage's GPU state on this device (create it once).
    pub fn gpu(gpu: &crate::gpu::GpuContext) -> Result<TritriGpu, TritriError> {
        Ok(TritriGpu::new(gpu))
    }

    /// Not interruptible: `progress` is not used.
    pub fn run(
        (a, pose_a, b, pose_b): (&TriModel, Pose, &TriModel, Pose),
        params: &TritriParams,
        backend: Backend,
        gpu: Option<&TritriGpu>,
        _progress: &Progress,
    ) -> Result<TritriResult, TritriError> {
        query(a, pose_a, b, pose_b, params, backend, gpu)
    }
}

/// Many pose pairs at once: yes/no per pair (one dispatch on the GPU).
pub fn query_batch(
    a: &TriModel,
    b: &TriModel,
    poses: &[(Pose, Pose)],
    predicate: Predicate,
    backend: Backend,
    gpu: Option<&TritriGpu>,
) -> Result<BatchResult, TritriError> {
    for (pa, pb) in poses {
        pa.validate()?;
        pb.validate()?;
    }
    let params = TritriParams {
        all_pairs: false,
        predicate,
    };
    if !backend.is_gpu() {
        let start = std::time::Instant::now();
        use rayon::prelude::*;
        let collides: Vec<bool> = poses
            .par_iter()
            .map(|&(pa, pb)| cpu::collides_cpu(a, pa, b, pb, &params, backend.is_pruned()))
            .collect();
        let mut timings = Timings::default();
        timings.push("queries", start.elapsed().as_secs_f64() * 1e3, None);
        return Ok(BatchResult {
            backend,
            collides,
            timings,
        });
    }
    let gpu = gpu.ok_or(TritriError::NoGpu)?;
    let out = gpu.run(a, b, poses, &params, backend == Backend::Gpu)?;
    Ok(BatchResult {
        backend,
        collides: out.hits,
        timings: out.timings,
    })
}

/// Largest absolute coordinate a query sees (world and B's frame), for
/// the rounding bound of [`crate::geom::f32_decision_margin`].
pub(crate) fn coordinate_scale(a: &TriModel, pose_a: Pose, b: &TriModel, pose_b: Pose) -> f64 {
    let reach = |m: &TriModel, p: Pose| {
        let bounds = m.mesh.bounds();
        let r = bounds.min.abs().max(bounds.max.abs()).as_dvec3().length();
        r + p.translation.as_dvec3().length()
    };
    let rel = b_from_a(pose_a, pose_b).translation.length();
    reach(a, pose_a).max(reach(b, pose_b)) + rel
}
