//! The Scene section: what is loaded, the mesh report, how the mesh is
//! drawn and which auxiliary lines are on it.

use eframe::egui;

use crate::app::shell::Shell;
use crate::view::MeshMode;

/// Returns true when the overlay lines changed (they are drawn again).
pub fn scene_ui(shell: &mut Shell, ui: &mut egui::Ui) -> bool {
    ui.label("Drop mesh files (.obj, .ply, .stl, .off) anywhere on the window, or File > Open.");
    let Some(scene) = &shell.mesh.scene else {
        ui.label(match (shell.loading_mesh(), &shell.mesh.field) {
            (true, _) => "loading…",
            (false, Some(_)) => "No mesh: the field is viewed on its own.",
            (false, None) => "No mesh.",
        });
        return false;
    };
    let r = &scene.prepared.report;
    ui.strong(scene.source.label());
    egui::Grid::new("report")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            let mut row = |k: &str, v: String| {
                ui.label(k);
                ui.label(v);
                ui.end_row();
            };
            row("triangles", r.triangles.to_string());
            row(
                "vertices (welded)",
                format!("{} ({})", r.vertices_before_weld, r.vertices_after_weld),
            );
            let size = glam::Vec3::from(r.bounds_max) - glam::Vec3::from(r.bounds_min);
            row(
                "size",
                format!("{:.3} × {:.3} × {:.3}", size.x, size.y, size.z),
            );
            row("boundary edges", r.boundary_edges.to_string());
            row("non-manifold edges", r.non_manifold_edges.to_string());
            row("degenerate faces", r.degenerate_faces.to_string());
            row("duplicate faces", r.duplicate_faces.to_string());
            row("components", r.connected_components.to_string());
            row("closed", yes_no(r.closed));
            row("consistently oriented", yes_no(r.consistently_oriented));
            row(
                "pseudo-normal sign",
                if r.pseudo_normal_sign_trusted {
                    "trusted".into()
                } else {
                    "not trusted".into()
                },
            );
        });
    for w in r.warnings() {
        ui.colored_label(
            egui::Color32::from_rgb(200, 150, 40),
            format!("warning: {w}"),
        );
    }
    ui.separator();
    ui.label("Mesh");
    let view = &mut shell.settings.view;
    ui.horizontal_wrapped(|ui| {
        for (mode, name) in [
            (MeshMode::Shaded, "shaded"),
            (MeshMode::ShadedWireframe, "shaded + wire"),
            (MeshMode::Wireframe, "wireframe"),
            (MeshMode::Hidden, "hidden"),
        ] {
            ui.selectable_value(&mut view.mesh_mode, mode, name);
        }
    });
    ui.add(
        egui::Slider::new(&mut view.mesh_opacity, crate::view::MIN_OPACITY..=1.0).text("opacity"),
    )
    .on_hover_text("below 1 the cells, the pick and the iso-surface inside show through");
    let o = &mut shell.settings.overlays;
    let before = *o;
    ui.horizontal_wrapped(|ui| {
        ui.checkbox(&mut o.face_normals, "face normals");
        ui.checkbox(&mut o.edge_normals, "edge pseudo-normals");
        ui.checkbox(&mut o.vertex_normals, "vertex pseudo-normals");
        ui.checkbox(&mut o.boundary_edges, "boundary / non-manifold edges");
    });
    ui.add(egui::Slider::new(&mut o.normal_length, 0.2..=10.0).text("normal length (cells)"));
    *o != before
}

fn yes_no(b: bool) -> String {
    if b { "yes".into() } else { "no".into() }
}
