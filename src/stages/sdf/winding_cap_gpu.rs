//! The first passes of the GPU winding sign: the mesh closed by its cap,
//! crossings counted per grid column, the cap's own winding number per
//! cell (`shaders/shared/winding_cap.wgsl`, in the modules `sdf_winding_cap.wgsl` and, on devices with f64, `sdf_winding_cap_f64.wgsl`).
//!
//! # Method
//!
//! [`crate::geom::boundary_cap`] closes the mesh `M` with a cap `C`: the
//! boundary chain `∂M` (directed edges left after each cancels against its
//! reverse) is a 1-cycle because the boundary of a boundary is zero, so it
//! splits into closed loops, and a fan over each loop has minus that loop
//! as its boundary. `Z = M + C` is a closed 2-cycle, and the generalised
//! winding number (Barill et al. 2018 §2–3: the triangles' signed solid
//! angles over 4π) adds over triangles:
//!
//! ```text
//! w_M(p) = W_Z(p) − w_C(p),    W_Z(p) ∈ ℤ the signed crossings of Z below p
//! ```
//!
//! Inside is `|w_M| > ½`, as everywhere. Four phases, in the submission
//! after the distance kernels:
//!
//! 1. `cap crossings`: one invocation per triangle of `M` and `C`. For each
//!    grid column (cell centres `(x_i, y_j)`) whose centre the triangle's
//!    xy-projection covers, it adds its orientation (+1 where its normal
//!    points down: the ray from a cell above going down crosses it outward)
//!    at the first cell above the crossing.
//! 2. `prefix sum`: the running sums along z, `W_Z` at every cell; one
//!    workgroup per 8 adjacent columns, each column cut into 8 segments
//!    that the invocations sum, then walk again from the sum of the
//!    segments below (a column of 256 cells is 2 × 32 sequential steps,
//!    not 256).
//! 3. `cap winding`: a cheap upper bound `B ≥ |w_C|`
//!    ([`crate::geom::cap_solid_angle_bound`], the shader's `cap_bound`:
//!    the cap's tree walked with each ball's area bound
//!    `A / (|c − p| − r)²`, which holds for folded and non-convex caps,
//!    stopping once the sum reaches ½), first once per brick of 4³ cells
//!    ([`crate::geom::cap_brick_bound`]: the walk at the brick's centre
//!    with the slack grown by its radius bounds every cell in it; one
//!    invocation per brick, a 64th of the walks of one per cell), then
//!    one invocation per cell, which walks its own bound only where its
//!    brick's was not below ½ (bricks near the cap). Where `B < ½` the
//!    integer `W_Z` alone decides: `W_Z = 0` gives `|w_M| ≤ B < ½`,
//!    outside, and `|W_Z| ≥ 1` gives `|w_M| ≥ 1 − B > ½`, inside. Only
//!    the other cells — near the cap, where its `|w_C| = ½` sheet can be —
//!    are listed.
//! 4. `cap walk`: a second dispatch walks the listed cells densely (one
//!    invocation per listed cell, so that no warp waits on its one
//!    walking cell in 32): the cap's
//!    [`crate::geom::FastWinding`] tree (Barill et al. §3, with the error
//!    bound of its module docs; exact solid angles in the leaves, so a cap
//!    of a few triangles is summed exactly) and are signed where
//!    `||W_Z − w_C| − ½|` exceeds `w_C`'s bound; the pass counts them
//!    ([`CapGpu::record`]'s counter). A closed, consistently oriented mesh
//!    has no cap: `W_Z` alone signs it (nested and hollow shells
//!    included).
//!
//! # Watertight counting
//!
//! The coverage test must count a column through a shared edge or vertex
//! exactly once. Each edge function is evaluated on the corners moved into
//! the column's frame (`u = corner − q`, rounded once per corner and so the
//! same for every triangle that shares it), with the edge's ends in
//! lexicographic order and negated for the reverse, and is decided only
//! where it exceeds the rounding of its two products. A decided side is
//! then the exact side for the corners `u`: the count is exactly the
//! crossing count of the cycle `Z'` whose corners are `u` (each moved by
//! at most its own rounding from the true one). `Z'` and `Z` have the same
//! `W` at every point farther from both than that rounding.
//!
//! # When a cell falls back
//!
//! A cell goes to the existing per-cell path (`winding refine` of
//! [`super::winding_gpu`]: tree walks with β = 12 and 32, the exact sum,
//! then the CPU's exact f64 sum) when
//! - its column passes within rounding of a projected edge or vertex of a
//!   triangle it may cross (from that triangle's lowest corner up), or its
//!   centre is within rounding of a crossing's height (ambiguous cells);
//! - it lies within `near` of `M` (its distance, computed before: many
//!   ulps of the largest coordinate, more than any corner's rounding), so
//!   that `Z'` may differ from `Z` there (`C`'s own near points are left
//!   open by the cap walk's bound, which grows without limit at its
//!   triangles);
//! - `||W_Z − w_C| − ½|` does not exceed `w_C`'s bound — on a device with
//!   f64, where the walk's float32 bound does, the bound of the cap's
//!   exact sum with every triangle evaluated in f64 at the cell's exact
//!   centre (`cap_exact`, unless the list is too costly to sum).
//!
//! The sign is therefore the exact winding number's sign, cell for cell.

use eframe::egui_wgpu::wgpu;
use wgpu::util::DeviceExt;

use super::{GridSpec, SdfError};
use crate::geom::{BETA, Cap, FastWinding, boundary_cap};
use crate::gpu::{
    BufferCheck, GpuContext, GpuRun, Kernels, dispatch_dims, shader_source, storage_buffer_init,
    storage_buffer_zeroed,
};
use crate::mesh::PreparedMesh;

/// Uniform parameters: `struct CapParams` of shaders/shared/winding_cap.wgsl
/// (checked by tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CapParams {
    pub origin: [f32; 3],
    pub cell_size: f32,
    pub dims: [u32; 3],
    pub capacity: u32,
    pub frame: [f32; 3],
    pub slack: f32,
    pub mesh_tris: u32,
    pub cap_tris: u32,
    pub near: f32,
    pub beta: f32,
}
const _: () = assert!(std::mem::size_of::<CapParams>() == 64);

/// Invocations per workgroup of every entry point.
pub const CAP_WORKGROUP: u32 = 64;
/// Columns of a prefix sum workgroup (`PREFIX_COLUMNS` of the shader).
const PREFIX_COLUMNS: u32 = 8;
/// Cells a brick side (`CAP_BRICK` of the shader).
const CAP_BRICK: u32 = 4;
/// Most workgroups of the cap walk (each invocation loops over the listed
/// cells).
const WALK_GROUPS: u32 = 4096;
/// Cells the f64 cap sum takes (`CAP_RETRY_CAPACITY` of
/// shaders/sdf_winding_cap_f64.wgsl).
const RETRY_CAPACITY: u64 = 16384;
/// Workgroups of the f64 cap sum, one listed cell at a time each.
const EXACT_GROUPS: u32 = 1024;
/// `near` in units of the cell centres' rounding (`slack`).
const NEAR_SLACKS: f32 = 16.0;

/// A mesh's cap on the GPU: its winding tree and corners, in the frame of
/// the mesh's tree.
pub(super) struct CapTree {
    nodes: wgpu::Buffer,
    corners: wgpu::Buffer,
    triangles: u32,
}

impl CapTree {
    /// The cap of `mesh` ([`boundary_cap`]) packed in `frame`.
    pub(super) fn new(
        gpu: &GpuContext,
        mesh: &PreparedMesh,
        frame: glam::DVec3,
        stack: usize,
    ) -> Result<Self, SdfError> {
        let Cap {
            positions,
            triangles,
            ..
        } = boundary_cap(&mesh.mesh.positions, &mesh.mesh.triangles);
        let packed = FastWinding::new(&positions, &triangles)
            .packed_for_stack(frame, stack)
            .map_err(|depth| SdfError::BvhTooDeep {
                depth,
                max: stack - 1,
            })?;
        // A closed mesh's cap has no corners: one unused vec4 to bind.
        let mut corners = packed.corners;
        if corners.is_empty() {
            corners.push([0.0; 4]);
        }
        Ok(CapTree {
            nodes: storage_buffer_init(gpu, "SdfWindingCap::nodes", &packed.nodes)?,
            corners: storage_buffer_init(gpu, "SdfWindingCap::corners", &corners)?,
            triangles: triangles.len() as u32,
        })
    }
}

/// What [`CapGpu::record`] binds besides its own buffers.
pub(super) struct CapInputs<'a> {
    pub cap: &'a CapTree,
    /// The mesh's corners (3 per triangle) in the same frame.
    pub mesh_corners: &'a wgpu::Buffer,
    pub mesh_triangles: u32,
    pub frame: glam::Vec3,
    /// The distance kernels' values, signed here.
    pub values: &'a wgpu::Buffer,
    /// `[count | cells...]`: where the undecided cells go.
    pub undecided: &'a wgpu::Buffer,
    /// The grid cells' rounding (`WindingParams::slack`).
    pub slack: f32,
}

/// The pipelines: five, and on a device with f64 the cap's exact sum.
pub(super) struct CapGpu {
    kernels: Kernels,
    crossings: wgpu::ComputePipeline,
    prefix: wgpu::ComputePipeline,
    bricks: wgpu::ComputePipeline,
    sign: wgpu::ComputePipeline,
    walk: wgpu::ComputePipeline,
    exact: Option<wgpu::ComputePipeline>,
}

impl CapGpu {
    pub(super) fn new(gpu: &GpuContext) -> Self {
        let f64 = gpu.device.features().contains(wgpu::Features::SHADER_F64);
        let kernels = Kernels::new(
            gpu,
            "SdfWindingCap",
            // The cap's exact sum in f64 where the device has f64.
            shader_source(if f64 {
                "sdf_winding_cap_f64.wgsl"
            } else {
                "sdf_winding_cap.wgsl"
            }),
        );
        CapGpu {
            crossings: kernels.pipeline(gpu, "cap_crossings"),
            prefix: kernels.pipeline(gpu, "cap_prefix"),
            bricks: kernels.pipeline(gpu, "cap_bricks"),
            sign: kernels.pipeline(gpu, "cap_sign"),
            walk: kernels.pipeline(gpu, "cap_walk"),
            exact: f64.then(|| kernels.pipeline(gpu, "cap_exact")),
            kernels,
        }
    }

    /// Records the passes into `run` (phases `cap crossings`, with the
    /// clearing of `buffers`' accumulated counts, `prefix sum`,
    /// `cap winding`: the bound per brick, then at the cells of the bricks
    /// it left open; `cap walk`: the listed cells' walks, then on a device
    /// with f64 the cap's exact sum at the cells they left open). The first `u32`
    /// of [`CapBuffers::walked`] is then how many cells the cap's bound
    /// left to the cap's tree walk.
    pub(super) fn record(
        &self,
        gpu: &GpuContext,
        grid: &GridSpec,
        inputs: CapInputs<'_>,
        buffers: &CapBuffers,
        run: &mut GpuRun<'_>,
    ) {
        let n = grid.num_cells();
        let bricks = CapBuffers::bricks(grid);
        buffers.record_clear(run, n);
        let CapBuffers {
            crossings,
            ambiguous,
            walk_list: walked,
            bricks: brick_flags,
            retry,
        } = buffers;
        let uniform = CapParams {
            origin: grid.origin.to_array(),
            cell_size: grid.cell_size,
            dims: grid.dims.to_array(),
            capacity: n as u32,
            frame: inputs.frame.to_array(),
            slack: inputs.slack,
            mesh_tris: inputs.mesh_triangles,
            cap_tris: inputs.cap.triangles,
            near: NEAR_SLACKS * inputs.slack,
            beta: BETA as f32,
        };
        let uniform_buf = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("SdfWindingCap::params"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bind_group = self.kernels.bind(
            gpu,
            &[
                ("cparams", &uniform_buf),
                ("winding_nodes", &inputs.cap.nodes),
                ("winding_tris", &inputs.cap.corners),
                ("mesh_tris", inputs.mesh_corners),
                ("values", inputs.values),
                ("crossings", crossings),
                ("ambiguous", ambiguous),
                ("undecided", inputs.undecided),
                ("walk_list", walked),
                ("bricks", brick_flags),
                ("retry", retry),
            ],
        );
        let columns = grid.dims.x * grid.dims.y;
        let groups = |invocations: u32| invocations.div_ceil(CAP_WORKGROUP);
        // Workgroups of each pass.
        let passes = [
            (
                "cap crossings",
                &self.crossings,
                groups(inputs.mesh_triangles + inputs.cap.triangles),
            ),
            // A workgroup sums PREFIX_COLUMNS columns.
            ("prefix sum", &self.prefix, columns.div_ceil(PREFIX_COLUMNS)),
            // Without a cap no cell reads its brick's bound.
            (
                "cap winding",
                &self.bricks,
                if inputs.cap.triangles > 0 {
                    groups(bricks)
                } else {
                    0
                },
            ),
            ("cap winding", &self.sign, groups(n as u32)),
            // The listed cells' count is known on the GPU only: enough
            // invocations to hold the device, each looping over the list.
            (
                "cap walk",
                &self.walk,
                groups((n as u32).min(WALK_GROUPS * CAP_WORKGROUP)),
            ),
        ];
        let exact = self.exact.as_ref().map(|exact| {
            let groups = if inputs.cap.triangles > 0 {
                EXACT_GROUPS
            } else {
                0
            };
            ("cap walk", exact, groups)
        });
        for (name, pipeline, workgroups) in passes.into_iter().chain(exact).filter(|p| p.2 > 0) {
            run.compute_pass(name, |pass| {
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                let (x, y) = dispatch_dims(workgroups);
                pass.dispatch_workgroups(x, y, 1);
            });
        }
    }
}

/// The cap passes' per-cell buffers (bindings 5, 6, 8 to 10 of
/// shaders/shared/winding_cap.wgsl): each cell's crossing count and count of
/// ambiguous crossings (accumulated with atomics, then prefix-summed in
/// place), the list of cells left to the cap's walk ([count | cells]),
/// each brick's flag, and the list of cells the walk left open for the
/// cap's exact sum ([count | cells], at most [`RETRY_CAPACITY`]). Kept from run to run by [`super::winding_gpu`]:
/// at least the run's cells and bricks, of which the passes read and write
/// exactly the run's, so a larger kept buffer's tail is never seen.
pub(super) struct CapBuffers {
    crossings: wgpu::Buffer,
    ambiguous: wgpu::Buffer,
    walk_list: wgpu::Buffer,
    bricks: wgpu::Buffer,
    retry: wgpu::Buffer,
}

impl CapBuffers {
    /// The bytes of each buffer for `grid`, in field order.
    fn sizes(grid: &GridSpec) -> [(&'static str, u64); 5] {
        let n = grid.num_cells() as u64;
        [
            ("SdfWindingCap::crossings", 4 * n),
            ("SdfWindingCap::ambiguous", 4 * n),
            ("SdfWindingCap::walk_list", 4 * (n + 1)),
            ("SdfWindingCap::bricks", 4 * u64::from(Self::bricks(grid))),
            ("SdfWindingCap::retry", 4 * (RETRY_CAPACITY + 1)),
        ]
    }

    /// The bricks of `grid`.
    fn bricks(grid: &GridSpec) -> u32 {
        let brick_dims = (grid.dims + (CAP_BRICK - 1)) / CAP_BRICK;
        brick_dims.x * brick_dims.y * brick_dims.z
    }

    /// Buffers for `grid`.
    pub(super) fn new(gpu: &GpuContext, grid: &GridSpec) -> Result<Self, SdfError> {
        let [crossings, ambiguous, walk_list, bricks, retry] = Self::sizes(grid)
            .map(|(label, bytes)| storage_buffer_zeroed(gpu, BufferCheck { label, bytes }));
        Ok(CapBuffers {
            crossings: crossings?,
            ambiguous: ambiguous?,
            walk_list: walk_list?,
            bricks: bricks?,
            retry: retry?,
        })
    }

    /// Whether these buffers hold `grid`'s cells and bricks.
    pub(super) fn fits(&self, grid: &GridSpec) -> bool {
        let [crossings, ambiguous, walk_list, bricks, _] =
            Self::sizes(grid).map(|(_, bytes)| bytes);
        self.crossings.size() >= crossings
            && self.ambiguous.size() >= ambiguous
            && self.walk_list.size() >= walk_list
            && self.bricks.size() >= bricks
    }

    /// The list of cells left to the cap's walk: [count | cells].
    pub(super) fn walked(&self) -> &wgpu::Buffer {
        &self.walk_list
    }

    /// Records the clearing of what the passes read before they write it,
    /// for `n` cells: the crossing and ambiguous counts (accumulated with
    /// atomics) and the walk and retry lists' counts. The lists' cells are
    /// written below their counts before they are read, and each brick's
    /// flag by `cap_bricks` before `cap_sign` reads it (both only with a
    /// cap).
    fn record_clear(&self, run: &mut GpuRun<'_>, n: usize) {
        run.encoder_work("cap crossings", |encoder| {
            encoder.clear_buffer(&self.crossings, 0, Some(4 * n as u64));
            encoder.clear_buffer(&self.ambiguous, 0, Some(4 * n as u64));
            encoder.clear_buffer(&self.walk_list, 0, Some(4));
            encoder.clear_buffer(&self.retry, 0, Some(4));
        });
    }
}
