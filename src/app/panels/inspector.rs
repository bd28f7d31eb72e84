//! Inspector: the picked cell — index, position, GPU and CPU-reference
//! values, the closest triangle and its Voronoi feature.

use eframe::egui;

use crate::app::viewer::Viewer;
use crate::geom::closest_point_triangle;

pub fn inspector_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    ui.heading("Inspector");
    let (Some(field), Some(pick), Some(scene)) = (&viewer.field, &viewer.pick, &viewer.scene)
    else {
        ui.label("Click a cell in the view or a pixel of the slice.");
        return;
    };
    let cell = pick.cell;
    let ijk = field.grid.coords(cell);
    let p = field.grid.center(ijk);
    let value = field.values[cell];
    let mut clear = false;
    super::value_grid(ui, "inspector", |row| {
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
        viewer.set_pick(None);
    }
}
