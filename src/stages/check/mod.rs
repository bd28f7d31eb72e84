//! Checking anyone's signed distance field against the exact one.
//!
//! # How it works
//!
//! A field from any tool (mesh_to_sdf, Kaolin, Warp, Open3D, one's own code,
//! or collidoscope itself) is read as samples: a uniform grid (`input`:
//! `.npy` with collidoscope's sidecar, or with `--origin`, `--cell-size` and
//! `--axis-order` given) or a point set (`.npz` with `centers` or `points`
//! and `values`). The exact field is evaluated at the same points
//! (`reference`):
//!
//! * **magnitude** — the exact distance to the closest point on any triangle
//!   (Ericson's Voronoi-region closest point), on a grid by the `sdf`
//!   stage's backends (GPU by default), on points by a BVH query on the CPU;
//! * **sign** — the generalised winding number w (Jacobson 2013), inside
//!   where |w| > ½, by Barill 2018's fast evaluation with the exact sum
//!   wherever its error bound leaves the side open
//!   ([`crate::geom::FastWinding`]): robust on open and broken meshes, where
//!   the pseudo-normal sign many tools use is arbitrary.
//!
//! Positions the file gives in float64 (collidoscope's own grids' origin,
//! float64 point sets) go into the mesh's frame in float64 ([`Precise`]), so
//! a field far from the origin is compared where it was sampled.
//!
//! A field written with a narrow band (its sidecar's `band_world`) is
//! compared with the exact field clamped to the band, as the band defines it.
//!
//! [`Comparison`] then holds per-sample errors |value − exact|, in world
//! units and in cells (the grid spacing, an adaptive node's edge, or a
//! `--cell-size` given for points), and the *sign disagreements*: samples
//! whose value and exact value lie on opposite sides of the surface (a
//! sample exactly on it, exact value 0, has no side). [`CheckReport`] is
//! what `collidoscope check` writes as report.json.

mod input;
mod reference;
mod report;

pub use input::{AxisOrder, CHECKSUM_DIFFERS, ReadOptions, read_samples};
pub use reference::{Exact, exact_values};
pub use report::{CheckReport, Comparison, HistogramBin, SampleIndex, Worst};

use glam::Vec3;

use crate::mesh::PreparedMesh;
use crate::stages::sdf::GridSpec;

/// Where the samples lie.
#[derive(Clone, Debug)]
pub enum Layout {
    /// Values at the cell centres, collidoscope's order (`i + nx*(j + ny*k)`).
    Grid(GridSpec),
    /// Values at these points, in file order.
    Points(Vec<Vec3>),
}

/// The length that errors are counted in, as "cells".
#[derive(Clone, Debug)]
pub enum CellUnit {
    /// One length for every sample (a grid's spacing).
    Uniform(f32),
    /// A length per sample (an adaptive field's node edges).
    PerPoint(Vec<f32>),
    /// None known: errors in world units only.
    None,
}

impl CellUnit {
    /// The cell length at sample `i`.
    pub fn at(&self, i: usize) -> Option<f32> {
        match self {
            CellUnit::Uniform(h) => Some(*h),
            CellUnit::PerPoint(h) => Some(h[i]),
            CellUnit::None => None,
        }
    }
}

/// A field to check: its samples and what its file says about them.
#[derive(Clone, Debug)]
pub struct FieldSamples {
    pub layout: Layout,
    /// Signed distance per sample, negative inside.
    pub values: Vec<f32>,
    pub unit: CellUnit,
    /// A narrow band's half-width in world units (collidoscope's sidecar).
    pub band_world: Option<f32>,
    /// The mesh the field was made from, as collidoscope's sidecar records it.
    pub mesh_hash: Option<String>,
    /// The array's order, for grids.
    pub axis_order: Option<AxisOrder>,
    /// What would have refused the field but was read past on request (a
    /// checksum or mesh hash that differs), one line each: the report and
    /// the viewer show them.
    pub overrides: Vec<String>,
    /// The positions in float64, where the file gives them more precisely
    /// than `layout`'s float32 ([`Precise`]).
    pub precise: Option<Precise>,
}

/// Sample positions in float64. The exact field is evaluated there, taken
/// into the mesh's frame in float64 as the fields are computed
/// ([`crate::mesh::Frame::to_local_f64`]): a point or grid 1e4 or 1e6 from
/// the origin is not first rounded to float32 world coordinates (1/1024
/// and 1/16 apart there), which would move it by up to half of that.
#[derive(Clone, Debug, PartialEq)]
pub enum Precise {
    /// A grid's origin: collidoscope's sidecar `origin_f64`.
    GridOrigin(glam::DVec3),
    /// One point per sample: an `.npz` of float64 points.
    Points(Vec<glam::DVec3>),
}

/// The override note of a mesh hash that differs.
pub const MESH_HASH_DIFFERS: &str = "mesh hash differs: values may not match this mesh";

impl FieldSamples {
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The position of sample `i`.
    pub fn position(&self, i: usize) -> Vec3 {
        match &self.layout {
            Layout::Grid(g) => g.center_of(i),
            Layout::Points(p) => p[i],
        }
    }

    /// How sample `i` is named in reports: `[k, j, i]` or the point index.
    pub fn index(&self, i: usize) -> SampleIndex {
        match &self.layout {
            Layout::Grid(g) => SampleIndex::Cell(input::kji(g, i)),
            Layout::Points(_) => SampleIndex::Point(i),
        }
    }

    /// Refuses a mesh other than the one the field was made from (when the
    /// sidecar says), or one the samples do not come near.
    pub fn check_mesh(&self, mesh: &PreparedMesh) -> Result<(), CheckError> {
        self.mesh_problem(mesh, false).map(|_| ())
    }

    /// [`FieldSamples::check_mesh`], but with `ignore_mesh_hash` a mesh
    /// of another hash is taken, noted in [`FieldSamples::overrides`].
    pub fn accept_mesh(
        &mut self,
        mesh: &PreparedMesh,
        ignore_mesh_hash: bool,
    ) -> Result<(), CheckError> {
        let note = self.mesh_problem(mesh, ignore_mesh_hash)?;
        self.overrides.extend(note);
        Ok(())
    }

    /// A mesh hash that differs: an error, or with `ignore_hash` the note.
    fn mesh_problem(
        &self,
        mesh: &PreparedMesh,
        ignore_hash: bool,
    ) -> Result<Option<String>, CheckError> {
        let hash = format!("{:016x}", mesh.source_hash);
        let mut note = None;
        if let Some(recorded) = &self.mesh_hash
            && *recorded != hash
        {
            let why = format!(
                "the field was made from a mesh with hash {recorded}, this mesh's is {hash} (another mesh, or the file changed since)"
            );
            if !ignore_hash {
                return Err(CheckError::Mesh(format!(
                    "{why}; --ignore-mesh-hash checks it against this mesh anyway"
                )));
            }
            note = Some(format!("{MESH_HASH_DIFFERS} ({why})"));
        }
        let mesh_box = mesh.bounds();
        let samples_box = match &self.layout {
            Layout::Grid(g) => g.bounds(),
            Layout::Points(p) => crate::geom::Aabb::from_points(p),
        };
        if !samples_box.overlaps(&mesh_box) {
            return Err(CheckError::Mesh(format!(
                "the samples span {:?}..{:?}, the mesh {:?}..{:?}: they do not overlap (another mesh, or a wrong origin, cell size or axis order)",
                samples_box.min.to_array(),
                samples_box.max.to_array(),
                mesh_box.min.to_array(),
                mesh_box.max.to_array()
            )));
        }
        Ok(note)
    }
}

/// Checks `samples` against the exact field of `mesh`: the report
/// `collidoscope check` writes (its statistics, the samples' layout, the
/// mesh's hash and how the reference was computed), as JSON, listing at
/// most `max_list` sign disagreements. `gpu` is needed for the GPU
/// backends; the caller adds where the field and the mesh came from.
pub fn check_report(
    mesh: &PreparedMesh,
    samples: &FieldSamples,
    backend: crate::stages::sdf::Backend,
    gpu: Option<&crate::stages::sdf::SdfGpu>,
    max_list: usize,
    progress: &crate::progress::Progress,
) -> Result<serde_json::Value, CheckError> {
    use serde_json::json;
    let start = std::time::Instant::now();
    let exact = exact_values(mesh, samples, backend, gpu, progress)?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let stats = Comparison::new(samples, exact.values).report(samples, max_list);
    let layout = match &samples.layout {
        Layout::Grid(g) => json!({
            "kind": "grid",
            "dims": g.dims.to_array(),
            "origin": g.origin.to_array(),
            "cell_size": g.cell_size,
            "axis_order": samples.axis_order.map(AxisOrder::name),
            "index": "[k, j, i]: cell (i, j, k) at origin + (i, j, k) * cell_size",
        }),
        Layout::Points(_) => json!({ "kind": "points", "index": "point index in the file" }),
    };
    let mut report = serde_json::to_value(&stats).map_err(|e| CheckError::Input(e.to_string()))?;
    report["mesh_hash"] = json!(format!("{:016x}", mesh.source_hash));
    report["overrides"] = json!(samples.overrides);
    report["layout"] = layout;
    report["reference"] = json!({
        "backend": exact.backend.name(),
        "adapter": gpu.filter(|_| exact.backend.is_gpu()).map(|g| g.context().describe()),
        "sign": "winding number, inside where |w| > 1/2 (exact sum where the fast evaluation cannot decide)",
        "band_world": samples.band_world,
        "ms": ms,
    });
    Ok(report)
}

/// Errors of a check, each one readable line.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The field file, its sidecar or its layout flags.
    #[error("{0}")]
    Input(String),
    /// The mesh does not belong to the field.
    #[error("{0}")]
    Mesh(String),
    #[error(transparent)]
    Sdf(#[from] crate::stages::sdf::SdfError),
    #[error("cancelled")]
    Cancelled,
}
