//! Inspector: the picked cell — index, position, GPU and CPU-reference
//! values, the closest triangle and its Voronoi feature — and its marker in
//! the viewport.

use eframe::egui;

use super::SdfMode;
use crate::app::shell::Shell;
use crate::app::shell::chrome::value_grid;
use crate::app::shell::overlays::segment;
use crate::geom::closest_point_triangle;
use crate::mesh::PreparedMesh;
use crate::stages::sdf::SdfField;
use crate::view::LineVertex;
use glam::Vec3;

const PICK: [f32; 4] = [1.0, 0.9, 0.0, 1.0];

pub fn inspector_ui(mode: &mut SdfMode, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Inspector");
    let (Some(field), Some(pick)) = (&shell.mesh.field, &mode.pick) else {
        ui.label("Click a cell in the view or a pixel of the slice.");
        return;
    };
    let cell = pick.cell;
    let ijk = field.grid.coords(cell);
    let p = field.grid.center(ijk);
    let value = field.values[cell];
    let mut clear = false;
    value_grid(ui, "inspector", |row| {
        row(
            "cell",
            format!("{cell}  (i {}, j {}, k {})", ijk.x, ijk.y, ijk.z),
        );
        row("position", format!("{:.4}, {:.4}, {:.4}", p.x, p.y, p.z));
        let source = match shell.mesh.scene {
            Some(_) => field.backend.name(),
            None => "file",
        };
        row(&format!("value ({source})"), format!("{value:+.6}"));
        let Some(scene) = &shell.mesh.scene else {
            // A field viewed on its own: no mesh to measure against.
            row("mesh", "none (the field is viewed on its own)".into());
            return;
        };
        match pick.reference {
            Some(r) => {
                row("CPU reference", format!("{r:+.6}"));
                row("difference", format!("{:.2e}", (value - r).abs()));
            }
            None => row("CPU reference", "—".into()),
        }
        row("sign mode", field.params.sign_mode.name().into());
        row(
            "inside",
            if value < 0.0 {
                "yes".into()
            } else {
                "no".into()
            },
        );
        match field.closest_feature(cell) {
            Some((t, feature)) => {
                let c = closest_point_triangle(p, scene.prepared.mesh.corners(t as usize));
                row("closest triangle", t.to_string());
                row("feature", feature.name().into());
                row(
                    "closest point",
                    format!("{:.4}, {:.4}, {:.4}", c.point.x, c.point.y, c.point.z),
                );
            }
            None => row("closest triangle", "far cell (outside the band)".into()),
        }
    });
    if shell.mesh.scene.is_some() {
        ui.label("The yellow line joins the cell to its closest point.");
    }
    if ui.button("Clear pick").clicked() {
        clear = true;
    }
    if clear {
        mode.set_pick(shell, None);
    }
}

/// The picked cell's marker: a small cross at the cell and a line to its
/// closest point on the mesh.
/// The 12 edges of the cube [−1, 1]³.
const CUBE_EDGES: [(Vec3, Vec3); 12] = {
    const fn v(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, y, z)
    }
    [
        (v(-1., -1., -1.), v(1., -1., -1.)),
        (v(-1., 1., -1.), v(1., 1., -1.)),
        (v(-1., -1., 1.), v(1., -1., 1.)),
        (v(-1., 1., 1.), v(1., 1., 1.)),
        (v(-1., -1., -1.), v(-1., 1., -1.)),
        (v(1., -1., -1.), v(1., 1., -1.)),
        (v(-1., -1., 1.), v(-1., 1., 1.)),
        (v(1., -1., 1.), v(1., 1., 1.)),
        (v(-1., -1., -1.), v(-1., -1., 1.)),
        (v(1., -1., -1.), v(1., -1., 1.)),
        (v(-1., 1., -1.), v(-1., 1., 1.)),
        (v(1., 1., -1.), v(1., 1., 1.)),
    ]
};

pub fn pick_lines(mesh: Option<&PreparedMesh>, field: &SdfField, cell: usize) -> Vec<LineVertex> {
    let mut out = Vec::new();
    let p = field.grid.center_of(cell);
    let h = 0.5 * field.grid.cell_size;
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        segment(&mut out, p - axis * h, p + axis * h, PICK);
    }
    // The cell's box, so the picked cell stands out among the sprites.
    for (a, b) in CUBE_EDGES {
        segment(&mut out, p + a * h, p + b * h, PICK);
    }
    if let (Some(mesh), Some((t, _))) = (mesh, field.closest_feature(cell)) {
        let q = closest_point_triangle(p, mesh.mesh.corners(t as usize)).point;
        segment(&mut out, p, q, PICK);
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            segment(&mut out, q - axis * h * 0.5, q + axis * h * 0.5, PICK);
        }
    }
    out
}

/// The default pick: from the grid's centre towards the eye, the first
/// cell at least two cells outside the surface. Its closest-point line then
/// runs in front of the mesh, where it can be seen; the centre cell itself
/// is often inside the mesh, its line hidden by the shaded surface. The
/// centre cell when no cell on the way is that far out.
pub fn default_pick(field: &SdfField, toward_eye: Vec3) -> usize {
    let grid = &field.grid;
    let centre = grid.index(grid.dims / 2);
    let start = grid.center_of(centre);
    let step = 0.5 * grid.cell_size;
    (1..4 * grid.dims.max_element())
        .map_while(|k| grid.cell_at(start + toward_eye * (k as f32 * step)))
        .map(|ijk| grid.index(ijk))
        .find(|&c| field.values[c] > 2.0 * grid.cell_size)
        .unwrap_or(centre)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::sdf::Backend;

    #[test]
    fn the_default_pick_lies_outside_the_mesh_towards_the_eye() {
        use crate::stages::sdf::{GridSpec, SdfParams};
        // A sphere of radius 0.5 in a 16³ grid over [-1, 1]³.
        let cell_size = 2.0 / 16.0;
        let grid = GridSpec {
            origin: Vec3::splat(-1.0 + 0.5 * cell_size),
            cell_size,
            dims: glam::UVec3::splat(16),
        };
        let values: Vec<f32> = (0..grid.num_cells())
            .map(|i| grid.center_of(i).length() - 0.5)
            .collect();
        let field = SdfField {
            grid,
            params: SdfParams::default(),
            backend: Backend::CpuReference,
            closest: vec![0; values.len()],
            values,
            distance_evaluations: 0,
            timings: Default::default(),
        };
        let toward_eye = Vec3::new(0.3, 0.2, 1.0).normalize();
        let cell = default_pick(&field, toward_eye);
        let p = field.grid.center_of(cell);
        assert!(field.values[cell] > 2.0 * cell_size, "outside: {p}");
        assert!(p.normalize().dot(toward_eye) > 0.95, "towards the eye: {p}");
        // Nothing far enough outside on the way: the centre cell.
        let mut inside = field.clone();
        inside.values.iter_mut().for_each(|v| *v = -1.0);
        assert_eq!(
            default_pick(&inside, toward_eye),
            field.grid.index(field.grid.dims / 2)
        );
    }
}
