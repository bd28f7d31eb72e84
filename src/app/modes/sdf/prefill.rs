//! The layout of a bare `.npy` grid (no sidecar) prefilled from its shape
//! ([`Prefill`]), for "Reading the field" ([`super::reading`]), in this
//! order:
//!
//! 1. **The grid `collidoscope sdf` writes for the open mesh**
//!    ([`sdf_grids`]): `sdf` pads the mesh's box by a fraction of its
//!    longest side and puts `--res` cells along the padded longest axis, so
//!    the array's longest count is the resolution and the padding is what
//!    gives the shorter counts. Paddings are tried in thousandths up to the
//!    largest, the roundest first (the CLI's default, then multiples of
//!    0.05, of 0.01, of 0.001), in either axis order, each grid computed as
//!    `sdf` computes it (in the mesh's frame). Counts are whole, so a range
//!    of paddings often gives the same shape with different cell sizes:
//!    then the array's values are read and compared, in magnitude, with
//!    the mesh's distances at a few cells of each candidate, and the one
//!    that agrees best is taken (the roundest on a tie).
//! 2. **Guessed from the mesh's proportions** ([`guess`]): the array's axes
//!    in each order (`zyx`: `field[k][j][i]`, `xyz`: `field[i][j][k]`) give
//!    the cell counts along x, y, z; a grid spanning the mesh's box has
//!    about the same spacing `extent / n` on every axis in the right
//!    order. The order whose three spacings are the most alike wins
//!    (`zyx`, collidoscope's own, on a tie); the spacing is the largest of
//!    the three, so the grid covers the mesh on every axis, and the grid is
//!    centred on the mesh's box. It "fits" when the spacings differ by less
//!    than half, else it is a starting point only.
//! 3. **No mesh open**: index coordinates — cell size 1, the value
//!    `[0, 0, 0]` at the origin, axis order `zyx` — so a researcher's grid
//!    can be viewed on its own ([`super::alone`]).

use glam::Vec3;

use crate::app::shell::legend::sig_figs;
use crate::geom::Aabb;
use crate::mesh::{Frame, MAX_PADDING, PreparedMesh};
use crate::stages::check::AxisOrder;
use crate::stages::sdf::{GridSpec, SdfParams};

/// The layout given for a bare grid: value `[0, 0, 0]` at `origin`, the
/// others `cell_size` apart, the array's axes in `order`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridLayout {
    pub origin: Vec3,
    pub cell_size: f32,
    pub order: AxisOrder,
}

/// A layout guessed from an array's shape and a mesh's box, and whether
/// the shape's proportions fit the box's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guess {
    pub layout: GridLayout,
    pub fits: bool,
}

/// Where a prefilled layout came from (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Prefill {
    /// The grid `collidoscope sdf --res R --pad P` writes for the mesh;
    /// `alike` when other paddings give grids of the same shape (the one
    /// whose values agree best with the mesh is taken).
    SdfGrid {
        resolution: u32,
        padding: f32,
        alike: bool,
    },
    /// Spread over the mesh's box by the array's proportions; `fits` when
    /// they match the box's.
    Proportions { fits: bool },
    /// No mesh: cell size 1, value `[0, 0, 0]` at the origin.
    IndexSpace,
}

impl Prefill {
    /// Whether the layout may be loaded without the user's look.
    pub fn fits(self) -> bool {
        !matches!(self, Prefill::Proportions { fits: false })
    }

    /// Whether the layout is a guess (the view and the report say so).
    pub fn guessed(self) -> bool {
        !matches!(self, Prefill::SdfGrid { .. })
    }

    /// Where the layout came from, for the form and the report.
    pub fn describe(self) -> String {
        match self {
            Prefill::SdfGrid {
                resolution,
                padding,
                alike,
            } => format!(
                "the grid `collidoscope sdf --res {resolution} --pad {}` writes for this mesh{}",
                sig_figs(padding as f64, 3),
                if alike {
                    "; other paddings give this shape too, this one agrees best with the mesh"
                } else {
                    ""
                }
            ),
            Prefill::Proportions { fits: true } => {
                "guessed from the mesh's bounds and the array's shape".into()
            }
            Prefill::Proportions { fits: false } => {
                "the array's proportions do not match the mesh's: check the layout".into()
            }
            Prefill::IndexSpace => {
                "guessed with no mesh: index coordinates (cell size 1, value [0,0,0] at the origin)"
                    .into()
            }
        }
    }

    /// The note the loaded field carries (the view's warning lines and the
    /// report's overrides).
    pub fn note(self, l: GridLayout) -> String {
        let what = if self.guessed() {
            "layout guessed"
        } else {
            "layout of sdf's grid"
        };
        format!(
            "{what}: origin {:?}, cell size {}, axis order {} ({}, no sidecar; check it under Reading the field)",
            l.origin.to_array(),
            sig_figs(l.cell_size as f64, 4),
            l.order.name(),
            self.describe()
        )
    }
}

/// Every grid `collidoscope sdf` writes for a mesh whose bounds in its
/// `frame` are `local` that has the shape of an array of `shape`, the
/// roundest padding first (module docs).
pub fn sdf_grids(shape: [usize; 3], local: Aabb, frame: &Frame) -> Vec<(GridLayout, Prefill)> {
    let thousandths = (MAX_PADDING * 1000.0) as u32;
    let default = (SdfParams::default().padding * 1000.0).round() as u32;
    let every = |step: u32| (0..=thousandths).step_by(step as usize);
    let mut tried = vec![false; thousandths as usize + 1];
    let paddings: Vec<u32> = std::iter::once(default)
        .chain(every(50))
        .chain(every(10))
        .chain(every(1))
        .filter(|&k| !std::mem::replace(&mut tried[k as usize], true))
        .collect();
    let mut out = Vec::new();
    for order in [AxisOrder::Zyx, AxisOrder::Xyz] {
        let n = counts(shape, order).as_uvec3();
        let resolution = n.max_element();
        for &k in &paddings {
            let padding = k as f32 / 1000.0;
            let grid = GridSpec::around(local, resolution, padding);
            if grid.dims == n {
                let world = grid.to_world(frame);
                let layout = GridLayout {
                    origin: world.origin,
                    cell_size: world.cell_size,
                    order,
                };
                let how = Prefill::SdfGrid {
                    resolution,
                    padding,
                    alike: false,
                };
                out.push((layout, how));
            }
        }
    }
    out
}

/// Cells compared with the mesh to choose among `sdf`'s grids.
const SAMPLES: usize = 64;

/// Of several candidate layouts for `values` (an array of `shape`), the
/// one whose values agree best with `mesh`'s distances at [`SAMPLES`]
/// cells (in magnitude: another tool's sign convention may differ); the
/// first on a tie.
fn agreeing_best(
    candidates: &[(GridLayout, Prefill)],
    shape: [usize; 3],
    values: &[f32],
    mesh: &PreparedMesh,
) -> usize {
    let [a, b, c] = shape;
    let step = (values.len() / SAMPLES).max(1);
    let error = |l: &GridLayout| -> f32 {
        (0..values.len())
            .step_by(step)
            .map(|m| {
                let (first, second, third) = (m / (b * c), (m / c) % b, m % c);
                let ijk = match l.order {
                    AxisOrder::Zyx => Vec3::new(third as f32, second as f32, first as f32),
                    AxisOrder::Xyz => Vec3::new(first as f32, second as f32, third as f32),
                };
                let p = l.origin + ijk * l.cell_size;
                let exact = crate::stages::sdf::nearest_triangle(mesh, p, f32::INFINITY, &mut 0)
                    .map_or(f32::INFINITY, |(_, d2)| d2.sqrt());
                (values[m].abs() - exact).abs()
            })
            .sum()
    };
    debug_assert_eq!(a * b * c, values.len());
    (0..candidates.len())
        .map(|i| (i, error(&candidates[i].0)))
        .fold(
            (0, f32::INFINITY),
            |best, (i, e)| {
                if e < best.1 { (i, e) } else { best }
            },
        )
        .0
}

/// The layout of a grid of `shape` for `mesh` (or none): `sdf`'s grid,
/// chosen by `values` (read only when several paddings give the shape),
/// else [`guess`], else index coordinates (module docs).
pub fn prefill(
    shape: [usize; 3],
    mesh: Option<&PreparedMesh>,
    values: impl FnOnce() -> Option<Vec<f32>>,
) -> (GridLayout, Prefill) {
    let Some(mesh) = mesh else {
        let layout = GridLayout {
            origin: Vec3::ZERO,
            cell_size: 1.0,
            order: AxisOrder::Zyx,
        };
        return (layout, Prefill::IndexSpace);
    };
    let candidates = sdf_grids(shape, mesh.local().bounds(), &mesh.frame());
    let chosen = match candidates.len() {
        0 => {
            let g = guess(shape, mesh.bounds());
            return (g.layout, Prefill::Proportions { fits: g.fits });
        }
        1 => 0,
        _ => match values().filter(|v| v.len() == shape.iter().product::<usize>()) {
            Some(v) => agreeing_best(&candidates, shape, &v, mesh),
            None => 0,
        },
    };
    let (layout, how) = candidates[chosen];
    let alike = candidates.len() > 1;
    match how {
        Prefill::SdfGrid {
            resolution,
            padding,
            ..
        } => (
            layout,
            Prefill::SdfGrid {
                resolution,
                padding,
                alike,
            },
        ),
        other => (layout, other),
    }
}

/// The cell counts along x, y, z of an array of `shape` in `order`.
fn counts(shape: [usize; 3], order: AxisOrder) -> Vec3 {
    let [a, b, c] = shape.map(|n| n.max(1) as f32);
    match order {
        AxisOrder::Zyx => Vec3::new(c, b, a),
        AxisOrder::Xyz => Vec3::new(a, b, c),
    }
}

/// The layout of a grid of `shape` over `bounds` (module docs).
pub fn guess(shape: [usize; 3], bounds: Aabb) -> Guess {
    let extent = bounds.size().max(Vec3::splat(f32::MIN_POSITIVE));
    let spread = |order| {
        let h = extent / counts(shape, order);
        (h.max_element() / h.min_element(), h.max_element())
    };
    let (zyx, xyz) = (spread(AxisOrder::Zyx), spread(AxisOrder::Xyz));
    let (order, (ratio, cell_size)) = if xyz.0 < zyx.0 {
        (AxisOrder::Xyz, xyz)
    } else {
        (AxisOrder::Zyx, zyx)
    };
    let n = counts(shape, order);
    let origin = bounds.center() - 0.5 * (n - Vec3::ONE) * cell_size;
    Guess {
        layout: GridLayout {
            origin,
            cell_size,
            order,
        },
        fits: ratio < 1.5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guess_finds_the_order_and_covers_the_mesh() {
        let bounds = Aabb {
            min: Vec3::new(-1.0, 0.0, 0.0),
            max: Vec3::new(3.0, 2.0, 1.0),
        };
        // 40 × 20 × 10 cells over a 4 × 2 × 1 box: h = 0.1 on every axis.
        let zyx = guess([10, 20, 40], bounds);
        assert!(zyx.fits);
        assert_eq!(zyx.layout.order, AxisOrder::Zyx);
        assert!((zyx.layout.cell_size - 0.1).abs() < 1e-6);
        let centre = zyx.layout.origin + 0.5 * Vec3::new(39.0, 19.0, 9.0) * 0.1;
        assert!((centre - bounds.center()).length() < 1e-5, "{centre}");
        let xyz = guess([40, 20, 10], bounds);
        assert_eq!((xyz.layout.order, xyz.fits), (AxisOrder::Xyz, true));
        // A cube array over a long box: a start, not a fit.
        let cube = guess([16, 16, 16], bounds);
        assert!(!cube.fits);
        assert!((cube.layout.cell_size - 0.25).abs() < 1e-6);
    }

    /// A box of 4 × 2 × 1 moved far from the origin, prepared.
    fn far_box() -> PreparedMesh {
        let cube = crate::mesh::box_mesh(1);
        let positions = (cube.positions.iter())
            .map(|p| *p * Vec3::new(4.0, 2.0, 1.0) + Vec3::new(1e3, -1e3, 5.0))
            .collect();
        let mesh = crate::mesh::Mesh::new("far box", positions, cube.triangles.clone());
        PreparedMesh::new(&mesh).unwrap()
    }

    /// The unsigned distance to `mesh` at the cells of `grid`, zyx order.
    fn distances(mesh: &PreparedMesh, grid: &GridSpec) -> Vec<f32> {
        (0..grid.num_cells())
            .map(|i| {
                let p = grid.center_of(i);
                crate::stages::sdf::nearest_triangle(mesh, p, f32::INFINITY, &mut 0)
                    .map_or(0.0, |(_, d2)| d2.sqrt())
            })
            .collect()
    }

    #[test]
    fn a_padded_grid_of_sdf_is_prefilled_as_sdf_writes_it() {
        let mesh = far_box();
        for (resolution, padding) in [(24, 0.1), (40, 0.25), (17, 0.0), (32, 0.037), (24, 0.3)] {
            // What `collidoscope sdf --res R --pad P` computes for the mesh.
            let grid = GridSpec::around(mesh.local().bounds(), resolution, padding)
                .to_world(&mesh.frame());
            let d = grid.dims.to_array().map(|n| n as usize);
            let values = distances(&mesh, &grid);
            let (layout, how) = prefill([d[2], d[1], d[0]], Some(&mesh), || Some(values.clone()));
            let what = format!("res {resolution} pad {padding}: {how:?}");
            assert!(
                matches!(how, Prefill::SdfGrid { .. }) && !how.guessed(),
                "{what}"
            );
            assert_eq!(layout.order, AxisOrder::Zyx, "{what}");
            assert_eq!(layout.cell_size, grid.cell_size, "{what}");
            assert_eq!(layout.origin, grid.origin, "{what}");
            // The same array transposed (numpy's "ij" indexing).
            let (nx, ny, nz) = (d[0], d[1], d[2]);
            let transposed = (0..values.len())
                .map(|m| {
                    let (i, j, k) = (m / (ny * nz), (m / nz) % ny, m % nz);
                    values[i + nx * (j + ny * k)]
                })
                .collect();
            let (xyz, _) = prefill(d, Some(&mesh), || Some(transposed));
            assert_eq!((xyz.order, xyz.origin), (AxisOrder::Xyz, grid.origin));
        }
        // A shape no padding gives: guessed from the proportions, and said so.
        let (_, how) = prefill([10, 21, 40], Some(&mesh), || None);
        assert_eq!(how, Prefill::Proportions { fits: true });
        assert!(
            how.guessed()
                && how
                    .note(guess([10, 21, 40], mesh.bounds()).layout)
                    .contains("layout guessed")
        );
    }

    #[test]
    fn with_no_mesh_a_grid_is_prefilled_in_index_coordinates() {
        let (layout, how) = prefill([5, 6, 7], None, || None);
        assert_eq!(how, Prefill::IndexSpace);
        assert!(how.guessed() && how.fits());
        assert_eq!(
            (layout.origin, layout.cell_size, layout.order),
            (Vec3::ZERO, 1.0, AxisOrder::Zyx)
        );
        assert!(how.describe().contains("cell size 1"));
    }
}
