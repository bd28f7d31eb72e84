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
    let (Some(field), Some(pick), Some(scene)) = (&shell.mesh.field, &mode.pick, &shell.mesh.scene)
    else {
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
        row(
            &format!("value ({})", field.backend.name()),
            format!("{value:+.6}"),
        );
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
    ui.label("The yellow line joins the cell to its closest point.");
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

pub fn pick_lines(mesh: &PreparedMesh, field: &SdfField, cell: usize) -> Vec<LineVertex> {
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
    if let Some((t, _)) = field.closest_feature(cell) {
        let q = closest_point_triangle(p, mesh.mesh.corners(t as usize)).point;
        segment(&mut out, p, q, PICK);
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            segment(&mut out, q - axis * h * 0.5, q + axis * h * 0.5, PICK);
        }
    }
    out
}
