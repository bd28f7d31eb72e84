//! Image-space interference detection by counting ray crossings in the
//! stencil buffer (Knott 2003, chapter 4,
//! `shared/papers/knott-2003-cinder-gpu-collision.txt`).
//!
//! # How it works
//!
//! Two solids interfere iff an edge of one lies inside the other (theorem
//! 4.1, which covers "one wholly inside the other" too). Rays are cast
//! through the pixel centres of an orthographic viewport at the *nearest
//! edge point* on each ray, and the faces between the viewer and that point
//! are counted with signs: +1 for a face whose normal faces the viewer
//! (entering a solid), −1 for one facing away (leaving) — equation 4.2. The
//! sum is the number of solids the edge point is inside (theorem 4.2).
//!
//! **Counting** (§4.4, Alg. 1), all on the rasteriser:
//!
//! 1. *Pass 1*: every object's edges (each undirected edge once, a line
//!    list) with depth test "less" and depth write, so the depth buffer holds
//!    the nearest edge point of each ray. Edges are pushed outward by
//!    [`InterferenceParams::edge_offset`] along their angle-weighted vertex
//!    pseudo-normals in the vertex shader (§4.3.3), so a line never lies
//!    inside its own solid. The colour target gets the object and edge ids
//!    of the winning fragment (Alg. 2, §4.5.5).
//! 2. *Passes 2–3*: every object's faces, depth test "less" against those
//!    edge depths, no depth write; front faces increment the stencil and
//!    back faces decrement it (wrapping). [`StencilPasses::TwoSided`] does it
//!    in one pass with two-sided stencil; [`StencilPasses::Separate`] draws
//!    each object twice, culling back then front faces, as in Alg. 1.
//!
//! The stencil is cleared to `STENCIL_ZERO` (128), not 0, so a signed
//! count `c` is stored as `128 + c`: "count > 0" is then a single stencil
//! compare (`128 < stored`), which pass 4 needs. Counts beyond ±127 wrap.
//!
//! Reading the image (§4.4.1): count > 0 at a pixel with an edge (depth
//! < 1) — that edge point is inside that many other solids; count < 0 —
//! some mesh is not closed (the ids image says whose edge the ray hit); 0 —
//! outside everything, or no edge on that ray (depth = 1).
//!
//! **View set-up** (§4.5.3). Orthographic along +x, +y or +z
//! ([`ViewAxis`]), looking towards −axis, fitted to the bounding box of all
//! objects (padded by twice the edge offset plus half a per-mille of the
//! box diagonal, so offset edges are never clipped). The world size of a
//! pixel ([`OrthoView::pixel_size`]) is the precision of the test in the
//! view plane. Several axes can be combined (§4.5.4); each gives its own
//! image.
//!
//! **Identification** (§4.5.1–4.5.2). Pass 1 already writes each nearest
//! edge's object and edge id (Alg. 2: read with the stencil, it names the
//! penetrating object). *Pass 4* (Alg. 3 and 5) redraws each object's edges
//! with depth test "equal" and stencil test "count > 0", writing the same
//! ids into a second image — non-zero only where an edge point is inside
//! something, so the colour buffer alone identifies — inside one occlusion
//! query per object: a non-zero query means that object's edges penetrate
//! something, with no pixel read. If every query is zero the run stops
//! (*early non-interference*). Otherwise, for the *penetrated* object
//! (Alg. 4), each object `j` whose grown bounding box meets a penetrating
//! object's gets its own stencil count (only `j`'s faces) and the edges of
//! each overlapping penetrating `i` are redrawn against it with one query
//! per `(i, j)` — non-zero: `i`'s edges are inside `j` — writing `j`'s id
//! where they pass (the penetrated image); then `j`'s faces are drawn again
//! with the stencil operations reversed, which restores zero counts exactly,
//! so every `j` shares one render pass with no clear between. Pairs `(i, i)`
//! are never tested, which is how spurious self-interference (§4.5.8) is
//! filtered; an object whose edges pass pass 4 but lie in no other object
//! is reported as "self only", not hidden.
//!
//! **Weighted sums** ([`Identification::WeightedSums`], the default; our
//! extension of Alg. 4, see `identify.rs`). The counting pass also sums
//! `s·(1, j + 1, (j + 1)²)` per face of object `j` into a blended colour
//! target, from which a compute pass reads, per pixel, the one or two
//! objects the edge point is inside (the roots of a quadratic), writes the
//! penetrated image and counts the pixels of every pair; only objects
//! with pixels the sums cannot decode (inside three or more, an open mesh
//! crossed) still get Alg. 4's pair passes. [`Identification::PairPasses`]
//! runs Alg. 4 for everything, as the paper does.
//!
//! **Culling** ([`CullPlan`], on unless [`InterferenceParams::cull`] is
//! off; exact). Bounding boxes (the winnowing of §4.1.1, applied inside
//! the image-space test) restrict every pass of a view: an object whose
//! box, grown by the edge offset and a pixel, meets no other box is not
//! drawn at all; the others' faces are drawn with the scissor of their
//! overlap region's screen rectangle `S_X` (outside it a closed object
//! adds a net 0 to any count that matters), and only edges whose box meets
//! the overlap region are drawn. A compute pass per view writes each
//! object's surviving triangles (screen box meeting `S_X`) and edges into
//! compacted index lists with `DrawIndexedIndirect` arguments. The pair
//! passes are culled per pair (i, j): a second compute pass keeps i's
//! edges reaching the box where i's and j's grown boxes meet, drawn inside
//! its screen rectangle `R_ij`, and j's triangles meeting the rectangle
//! around its `R_ij`, counted once inside it; the counts are read back and
//! nothing empty is drawn. [`InterferenceRun::drawn`] reports what was drawn against
//! drawing everything. Pairs and the counts at interfering pixels are
//! unchanged; a hidden edge that could not interfere no longer hides
//! one behind it (fewer misses of the kind of figure 4.11), spurious
//! self-interference outside `S_X` disappears, and an open mesh gives
//! negative counts only where it overlaps another object.
//!
//! **Touching** (`touching.rs`, our addition). Coincident surfaces give
//! counts of 0 (the offset edges lie outside both solids), so two copies
//! of one solid at one pose would pass as apart. Pixels whose edge point
//! of one object lies on another's surface, within the test's precision
//! (the edge offset plus half a pixel), are *tied*; pairs with tied pixels
//! that do not interfere are reported as
//! [`InterferenceSummary::touching`] with their number.
//!
//! **Localisation** (§4.5.5, [`Localisation`]): the ids and penetrated
//! images with the edge depths give the world position of every
//! interfering edge point, the interfering edges and the pairs, plus the
//! self-interference and open-mesh reports.
//!
//! **CPU reference** ([`count_cpu`]). For the same view and the same edge
//! depths (the depth image read back from pass 1), each pixel-centre ray is
//! intersected with every face in f64: covered faces nearer than the edge
//! point add the sign of their projected orientation. Rays within 1/128
//! pixel of a face's projected edge, or faces within 1e-5 (of the [0, 1]
//! depth range) of the edge point, are flagged *ambiguous* — there the
//! rasteriser's sub-pixel snapping and tie rules decide, and the tests
//! compare every other pixel exactly. With the run's [`CullPlan`] it counts
//! each object's faces only inside its scissor rectangle, as the culled
//! passes draw them (edge culling needs nothing: the reference takes the
//! edge depths the GPU drew). [`identify_cpu`] repeats the count per
//! object for the reference of Alg. 4's pairs.
//!
//! **Backends** ([`Backend`], [`run`]). The GPU backend is the passes
//! above; the CPU backend ([`run_cpu`]) also does pass 1 on the CPU — the
//! nearest offset edge point per pixel, under every common line
//! rasterisation rule, pixels where the rules differ marked undecided —
//! and then the reference counts and per-object counts, and fills the
//! same product ([`InterferenceRun`] per view, [`Detection`] over the
//! axes): count image, ids, penetrated objects, pairs with their pixels.
//! What only the GPU has (draw counts, GPU phases) is left empty, and
//! [`CountImage::ambiguous`] says which pixels the CPU could not decide.
//!
//! # Buffer layout (GPU)
//!
//! ```text
//! uniforms   clip_from_world (64 B) | edge offset, width, height, 0   80 B
//! faces      [x y z | ...] world positions of all objects, u32 indices
//!            offset per object; object k = indices[face_ranges[k]]
//! edges      [EdgeVertex p q | ...] 32 B each: pos, vertex normal,
//!            (object, edge); object k = vertices[edge_ranges[k]]
//! culled     faces: u32 indices, object k's from face_ranges[k].start;
//!            edges: u32 edge-vertex indices, from edge_ranges[k].start
//! draw args  per object 10 u32: DrawIndexedIndirect of its culled faces,
//!            then of its culled edges (counts from the culling pass)
//! pair cull  per pair: i's edges in R_ij; per candidate j: its faces in
//!            U_j; the same 10 u32 per job, read back (pair passes)
//! targets    ids Rg32Uint (object + 1, edge + 1; 0 = none), pass 1
//!            inside Rg32Uint, the same where count > 0, pass 4
//!            penetrated R32Uint (object + 1; 0 = none), sums decoding
//!            and pair passes
//!            sums Rgba32Float Σ s·(1, j + 1, (j + 1)², open), passes 2–3
//!            depth Depth32Float + stencil Stencil8 (128 + count)
//! ```

pub mod compute;
mod cpu;
mod cpu_run;
mod cull;
pub(super) mod gpu;
pub(super) mod identify;
pub mod images;
mod localise;
mod product;
pub mod scenes;
mod touching;

pub use cpu::{CpuCounts, CpuPairs, count_cpu, count_cpu_objects, identify_cpu};
pub use cpu_run::run_cpu;
pub use cull::{CullPlan, ObjectRegion, PixelRect};
pub use gpu::{InterferenceGpu, UploadedScene};
pub use identify::{Identification, IdentificationReport, MAX_OBJECTS, PairQuery};
pub use localise::{Localisation, LocalisedPoint, OpenMeshReport, SelfInterference};
pub use product::{CountImage, DrawCounts, Drawn, InterferenceRun, PairQueries};
pub use touching::TouchingPair;

use glam::{DVec3, Mat4, Vec3};

use crate::geom::Aabb;
use crate::mesh::{Mesh, PseudoNormals, Topology};
use crate::progress::Progress;

/// The stencil value that means a count of zero (see the module docs).
pub(crate) const STENCIL_ZERO: u32 = 128;

/// Errors of the interference stage. Each message is one readable line.
#[derive(Debug, thiserror::Error)]
pub enum InterferenceError {
    #[error("no objects to test")]
    NoObjects,
    #[error("object {index} ('{name}'): {reason}")]
    BadObject {
        index: usize,
        name: String,
        reason: String,
    },
    #[error("viewport {width}×{height} is empty or beyond this device's limit of {max} pixels")]
    BadViewport { width: u32, height: u32, max: u32 },
    #[error(
        "this GPU has no Depth32FloatStencil8 format ({adapter}); the stencil counting needs it"
    )]
    NoDepthStencilFormat { adapter: String },
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
}

/// Which axis the orthographic view looks along (from +axis towards −axis).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ViewAxis {
    X,
    Y,
    Z,
}

impl ViewAxis {
    pub const ALL: [ViewAxis; 3] = [ViewAxis::X, ViewAxis::Y, ViewAxis::Z];

    /// World components (u, v, w): screen right, screen up, towards the
    /// viewer; `u × v = w`, so outward faces towards the viewer are
    /// counter-clockwise on screen (front-facing).
    pub fn components(self) -> [usize; 3] {
        match self {
            ViewAxis::X => [1, 2, 0],
            ViewAxis::Y => [2, 0, 1],
            ViewAxis::Z => [0, 1, 2],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ViewAxis::X => "x",
            ViewAxis::Y => "y",
            ViewAxis::Z => "z",
        }
    }

    pub fn parse(s: &str) -> Option<ViewAxis> {
        match s.trim() {
            "x" | "X" => Some(ViewAxis::X),
            "y" | "Y" => Some(ViewAxis::Y),
            "z" | "Z" => Some(ViewAxis::Z),
            _ => None,
        }
    }
}

/// How passes 2–3 are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum StencilPasses {
    /// One pass, cull none, front faces increment and back faces decrement.
    #[default]
    TwoSided,
    /// The paper's passes 2 and 3 per object: cull back faces and
    /// increment, then cull front faces and decrement.
    Separate,
}

/// What one run of a GPU backend reads back (the stencil passes'
/// `passes` do not apply to the compute backend).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    pub passes: StencilPasses,
    /// Read the stencil, edge-depth and id images back (§4.4.1's pixel
    /// scan); without it only the occlusion queries come back.
    pub read_pixels: bool,
    /// Also identify the penetrated objects (pair queries).
    pub pairs: bool,
    /// Bounding-box culling ([`CullPlan`]).
    pub cull: bool,
    /// How the pairs are identified (with `pairs`).
    pub identification: Identification,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            passes: StencilPasses::TwoSided,
            read_pixels: true,
            pairs: true,
            cull: true,
            identification: Identification::WeightedSums,
        }
    }
}

/// Parameters of one interference test.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InterferenceParams {
    pub width: u32,
    pub height: u32,
    /// World distance the edges are pushed out along their vertex normals;
    /// `None`: 1/1000 of the diagonal of the objects' bounding box.
    pub edge_offset: Option<f32>,
    pub stencil_passes: StencilPasses,
    /// Bounding-box culling of the passes (exact; see [`CullPlan`]).
    #[serde(default = "culling_by_default")]
    pub cull: bool,
    /// How the penetrated objects are found ([`Identification`]).
    #[serde(default)]
    pub identification: Identification,
}

fn culling_by_default() -> bool {
    true
}

impl Default for InterferenceParams {
    fn default() -> Self {
        InterferenceParams {
            width: 256,
            height: 256,
            edge_offset: None,
            stencil_passes: StencilPasses::TwoSided,
            cull: culling_by_default(),
            identification: Identification::default(),
        }
    }
}

/// One object of the scene, in world coordinates, with what the edge pass
/// needs: its edges (each undirected edge once) and vertex pseudo-normals.
#[derive(Clone, Debug)]
pub struct InterferenceObject {
    pub mesh: Mesh,
    pub edges: Vec<[u32; 2]>,
    pub vertex_normals: Vec<Vec3>,
    /// True when every edge has exactly two faces (a closed manifold).
    pub closed: bool,
}

impl InterferenceObject {
    /// `mesh` posed by `world_from_object`.
    pub fn new(mesh: &Mesh, world_from_object: Mat4) -> InterferenceObject {
        let mesh = mesh.transformed(world_from_object);
        let topo = Topology::build(&mesh);
        let normals = PseudoNormals::compute(&mesh, &topo);
        let edges = (0..topo.num_edges())
            .map(|e| topo.edge_vertices(e))
            .collect();
        let closed = (0..topo.num_edges()).all(|e| topo.edge_faces(e).len() == 2);
        InterferenceObject {
            mesh,
            edges,
            vertex_normals: normals.vertex,
            closed,
        }
    }

    /// This object moved rigidly by `world_from_object` (a rotation and a
    /// translation): the edges and closedness are kept, the normals
    /// rotated, so a body's topology is built once, not every frame.
    pub fn posed(&self, world_from_object: Mat4) -> InterferenceObject {
        InterferenceObject {
            mesh: self.mesh.transformed(world_from_object),
            edges: self.edges.clone(),
            vertex_normals: self
                .vertex_normals
                .iter()
                .map(|n| world_from_object.transform_vector3(*n).normalize_or_zero())
                .collect(),
            closed: self.closed,
        }
    }

    pub fn bounds(&self) -> Aabb {
        self.mesh.bounds()
    }
}

/// The objects of one test, numbered in order.
#[derive(Clone, Debug, Default)]
pub struct InterferenceScene {
    pub objects: Vec<InterferenceObject>,
}

impl InterferenceScene {
    /// Checks every mesh (see [`Mesh::validate`]).
    pub fn new(objects: Vec<InterferenceObject>) -> Result<Self, InterferenceError> {
        if objects.is_empty() {
            return Err(InterferenceError::NoObjects);
        }
        for (index, o) in objects.iter().enumerate() {
            o.mesh
                .validate()
                .map_err(|e| InterferenceError::BadObject {
                    index,
                    name: o.mesh.name.clone(),
                    reason: e.to_string(),
                })?;
        }
        Ok(InterferenceScene { objects })
    }

    pub fn bounds(&self) -> Aabb {
        self.objects
            .iter()
            .map(InterferenceObject::bounds)
            .fold(Aabb::default(), Aabb::union)
    }

    /// The edge offset `params` asks for, in world units.
    pub fn edge_offset(&self, params: &InterferenceParams) -> f32 {
        params.edge_offset.unwrap_or_else(|| {
            let b = self.bounds();
            1e-3 * (b.max - b.min).length()
        })
    }

    pub fn triangle_count(&self) -> usize {
        self.objects.iter().map(|o| o.mesh.triangles.len()).sum()
    }
}

/// An orthographic view fitted to a box: the rays of one count image.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OrthoView {
    pub axis: ViewAxis,
    pub width: u32,
    pub height: u32,
    /// World box the view maps to NDC x, y ∈ [−1, 1] and depth ∈ [0, 1].
    pub min: DVec3,
    pub max: DVec3,
}

impl OrthoView {
    /// Fitted around `scene` with room for edges pushed out by `edge_offset`.
    pub fn fit(
        scene: &InterferenceScene,
        axis: ViewAxis,
        width: u32,
        height: u32,
        edge_offset: f32,
    ) -> OrthoView {
        let b = scene.bounds();
        let (min, max) = (b.min.as_dvec3(), b.max.as_dvec3());
        let pad = 2.0 * edge_offset.abs() as f64 + 5e-4 * (max - min).length().max(1e-12);
        OrthoView {
            axis,
            width,
            height,
            min: min - DVec3::splat(pad),
            max: max + DVec3::splat(pad),
        }
    }

    /// World size of one pixel along screen x and y (§4.5.3).
    pub fn pixel_size(&self) -> (f64, f64) {
        let [u, v, _] = self.axis.components();
        let ext = self.max - self.min;
        (ext[u] / self.width as f64, ext[v] / self.height as f64)
    }

    /// Framebuffer position (pixels, y down) and depth (0 nearest) of `p`.
    pub(crate) fn to_screen(self, p: DVec3) -> DVec3 {
        let [u, v, w] = self.axis.components();
        let ext = self.max - self.min;
        let x = (p[u] - self.min[u]) / ext[u] * self.width as f64;
        let y = (self.max[v] - p[v]) / ext[v] * self.height as f64;
        let depth = (self.max[w] - p[w]) / ext[w];
        DVec3::new(x, y, depth)
    }

    /// The world point at framebuffer position (x, y) and `depth` (the
    /// inverse of `Self::to_screen`; localisation, §4.5.5).
    pub fn to_world(&self, x: f64, y: f64, depth: f64) -> DVec3 {
        let [u, v, w] = self.axis.components();
        let ext = self.max - self.min;
        let mut p = DVec3::ZERO;
        p[u] = self.min[u] + x / self.width as f64 * ext[u];
        p[v] = self.max[v] - y / self.height as f64 * ext[v];
        p[w] = self.max[w] - depth * ext[w];
        p
    }

    /// NDC x, y ∈ [−1, 1] (y up), depth ∈ [0, 1], w = 1.
    pub fn clip_from_world(&self) -> Mat4 {
        let [u, v, w] = self.axis.components();
        let ext = self.max - self.min;
        let mut rows = [[0.0f64; 4]; 4];
        rows[0][u] = 2.0 / ext[u];
        rows[0][3] = -2.0 * self.min[u] / ext[u] - 1.0;
        rows[1][v] = 2.0 / ext[v];
        rows[1][3] = -2.0 * self.min[v] / ext[v] - 1.0;
        rows[2][w] = -1.0 / ext[w];
        rows[2][3] = self.max[w] / ext[w];
        rows[3][3] = 1.0;
        Mat4::from_cols_array_2d(&rows.map(|r| r.map(|x| x as f32))).transpose()
    }
}

/// The answer of a test over one or more views (§4.5.4: a pair found in
/// any view interferes).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct InterferenceSummary {
    /// Unordered pairs `[i, j]`, `i < j`, sorted.
    pub pairs: Vec<[usize; 2]>,
    /// Per object: in some pair.
    pub interfering: Vec<bool>,
    /// Objects whose edges passed pass 4 (inside something) but lie in no
    /// other object: spurious self-interference (§4.5.8), reported.
    pub self_only: Vec<usize>,
    /// Pairs whose surfaces coincide without interfering (identical solids
    /// at one pose, shared faces), with their tied pixels; see
    /// `touching.rs`. Filled by [`detect_cpu`] and [`detect_gpu`] (it needs
    /// the scene), empty from [`Self::from_runs`].
    pub touching: Vec<TouchingPair>,
}

impl InterferenceSummary {
    /// Combines the occlusion-query answers of `runs` for `objects` objects.
    pub fn from_runs(objects: usize, runs: &[InterferenceRun]) -> InterferenceSummary {
        let mut pairs = std::collections::BTreeSet::new();
        let mut penetrating = vec![false; objects];
        let mut in_pair = vec![false; objects];
        for run in runs {
            for (k, &px) in run.queries.object_pixels.iter().enumerate() {
                if px > 0 && k < objects {
                    penetrating[k] = true;
                }
            }
            for p in run.queries.pairs.iter().filter(|p| p.pixels > 0) {
                let (i, j) = (p.penetrating, p.penetrated);
                pairs.insert([i.min(j), i.max(j)]);
                in_pair[i] = true;
            }
        }
        let mut interfering = vec![false; objects];
        for &[i, j] in &pairs {
            interfering[i] = true;
            interfering[j] = true;
        }
        let self_only = (0..objects)
            .filter(|&k| penetrating[k] && !in_pair[k])
            .collect();
        InterferenceSummary {
            pairs: pairs.into_iter().collect(),
            interfering,
            self_only,
            touching: Vec::new(),
        }
    }

    /// [`Self::from_runs`] with the touching pairs of `scene`.
    pub(crate) fn with_touching(
        scene: &InterferenceScene,
        runs: &[InterferenceRun],
        edge_offset: f32,
    ) -> InterferenceSummary {
        let mut summary = Self::from_runs(scene.objects.len(), runs);
        summary.touching = touching::touching_pairs(scene, runs, edge_offset, &summary.pairs);
        summary
    }
}

crate::stages::backend::backends! {
    /// Which implementation runs the test; `gpu` is the stencil path's name
    /// from before the compute backend.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub enum Backend {
        /// The CPU reference, pass 1 included ([`run_cpu`]).
        Cpu { name: "cpu", gpu: false },
        /// The rendering passes, counting in the stencil buffer
        /// ([`InterferenceGpu`]); the default.
        #[serde(alias = "Gpu")]
        Stencil { name: "stencil", gpu: true, alias: "gpu" },
        /// The same rays and counts on the compute units, no rasteriser
        /// ([`compute`]).
        Compute { name: "compute", gpu: true },
    }
}

impl Backend {
    /// The GPU backends.
    pub const GPU: [Backend; 2] = [Backend::Stencil, Backend::Compute];
}

/// The product of a test over one or more views, whichever backend ran.
#[derive(Clone, Debug)]
pub struct Detection {
    pub backend: Backend,
    /// One run per view, in the order of the axes.
    pub runs: Vec<InterferenceRun>,
    pub summary: InterferenceSummary,
}

/// Tests `scene` along every axis of `axes` with `backend`, reading the
/// images back and identifying the pairs. `gpu` is needed for the GPU
/// backends (`None` gives [`crate::gpu::GpuError::NoAdapter`]).
pub fn run(
    scene: &InterferenceScene,
    axes: &[ViewAxis],
    params: &InterferenceParams,
    backend: Backend,
    gpu: Option<&InterferenceGpu>,
) -> Result<Detection, InterferenceError> {
    let (runs, summary) = match backend {
        Backend::Cpu => detect_cpu(scene, params, axes),
        Backend::Stencil | Backend::Compute => {
            let stage = gpu.ok_or_else(super::no_gpu)?;
            detect_with(backend, stage, scene, params, axes, RunOptions::default())?
        }
    };
    Ok(Detection {
        backend,
        runs,
        summary,
    })
}

/// The interference stage ([`run`]); its input is the scene and the view
/// axes.
pub struct Interference;

impl Interference {
    /// The stage's GPU state on this device (create it once).
    pub fn gpu(gpu: &crate::gpu::GpuContext) -> Result<InterferenceGpu, InterferenceError> {
        InterferenceGpu::new(gpu)
    }

    /// Not interruptible: `progress` is not used.
    pub fn run(
        (scene, axes): (&InterferenceScene, &[ViewAxis]),
        params: &InterferenceParams,
        backend: Backend,
        gpu: Option<&InterferenceGpu>,
        _progress: &Progress,
    ) -> Result<Detection, InterferenceError> {
        run(scene, axes, params, backend, gpu)
    }
}

/// The CPU reference over every axis of `axes` ([`run_cpu`]), combined as
/// [`detect_gpu`] combines the GPU's.
pub fn detect_cpu(
    scene: &InterferenceScene,
    params: &InterferenceParams,
    axes: &[ViewAxis],
) -> (Vec<InterferenceRun>, InterferenceSummary) {
    let offset = scene.edge_offset(params);
    let runs: Vec<InterferenceRun> = axes
        .iter()
        .map(|&axis| {
            let view = OrthoView::fit(scene, axis, params.width, params.height, offset);
            run_cpu(scene, &view, offset, params.cull)
        })
        .collect();
    let summary = InterferenceSummary::with_touching(scene, &runs, offset);
    (runs, summary)
}

/// Runs the GPU `backend` ([`Backend::Stencil`] or [`Backend::Compute`];
/// [`Backend::Cpu`] runs [`detect_cpu`]) on `stage`'s device over every
/// axis of `axes` and combines the answers.
pub fn detect_with(
    backend: Backend,
    stage: &InterferenceGpu,
    scene: &InterferenceScene,
    params: &InterferenceParams,
    axes: &[ViewAxis],
    options: RunOptions,
) -> Result<(Vec<InterferenceRun>, InterferenceSummary), InterferenceError> {
    match backend {
        Backend::Cpu => Ok(detect_cpu(scene, params, axes)),
        Backend::Stencil => detect_gpu(stage.context(), stage, scene, params, axes, options),
        Backend::Compute => detect_compute(stage, scene, params, axes, options),
    }
}

/// The compute backend ([`compute`]) over every axis of `axes`, combined
/// as [`detect_gpu`] combines the stencil path's.
pub fn detect_compute(
    stage: &InterferenceGpu,
    scene: &InterferenceScene,
    params: &InterferenceParams,
    axes: &[ViewAxis],
    options: RunOptions,
) -> Result<(Vec<InterferenceRun>, InterferenceSummary), InterferenceError> {
    let gpu = stage.context();
    let compute = stage.compute();
    let uploaded = compute.upload(gpu, scene)?;
    let offset = scene.edge_offset(params);
    let options = RunOptions {
        cull: params.cull,
        identification: params.identification,
        ..options
    };
    let runs = axes
        .iter()
        .map(|&axis| {
            let view = OrthoView::fit(scene, axis, params.width, params.height, offset);
            compute.run(gpu, &uploaded, &view, offset, options)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let summary = InterferenceSummary::with_touching(scene, &runs, offset);
    Ok((runs, summary))
}

/// Runs the GPU stage over every axis of `axes` and combines the answers.
pub fn detect_gpu(
    gpu: &crate::gpu::GpuContext,
    stage: &InterferenceGpu,
    scene: &InterferenceScene,
    params: &InterferenceParams,
    axes: &[ViewAxis],
    options: RunOptions,
) -> Result<(Vec<InterferenceRun>, InterferenceSummary), InterferenceError> {
    let uploaded = stage.upload(gpu, scene);
    let offset = scene.edge_offset(params);
    let options = RunOptions {
        passes: params.stencil_passes,
        cull: params.cull,
        identification: params.identification,
        ..options
    };
    let runs = axes
        .iter()
        .map(|&axis| {
            let view = OrthoView::fit(scene, axis, params.width, params.height, offset);
            stage.run(gpu, &uploaded, &view, offset, options)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let summary = InterferenceSummary::with_touching(scene, &runs, offset);
    Ok((runs, summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_matrix_matches_to_screen() {
        let scene = InterferenceScene::new(vec![InterferenceObject::new(
            &crate::mesh::box_mesh(1),
            Mat4::from_translation(Vec3::new(0.3, -0.2, 0.7)),
        )])
        .unwrap();
        for axis in ViewAxis::ALL {
            let view = OrthoView::fit(&scene, axis, 40, 30, 0.01);
            let m = view.clip_from_world();
            for p in [Vec3::new(0.5, 0.1, 0.9), Vec3::new(-0.1, -0.6, 0.3)] {
                let c = m * p.extend(1.0);
                let s = view.to_screen(p.as_dvec3());
                let x = (c.x as f64 + 1.0) * 0.5 * 40.0;
                let y = (1.0 - c.y as f64) * 0.5 * 30.0;
                assert!((x - s.x).abs() < 1e-4, "{axis:?} x {x} vs {}", s.x);
                assert!((y - s.y).abs() < 1e-4, "{axis:?} y {y} vs {}", s.y);
                assert!((c.z as f64 - s.z).abs() < 1e-6, "{axis:?} depth");
                let back = view.to_world(s.x, s.y, s.z);
                assert!((back - p.as_dvec3()).length() < 1e-9);
            }
        }
    }
}
