//! The collide mode's panel: the scene, the stage's and the simulation's
//! parameters, play / step / rewind, the colours' legend and the contact
//! table (CPU beside GPU after a comparison).

use eframe::egui;

use super::draw::{contact_value, kind_value, normal_color};
use super::{CollideMode, PanelComparison, compare, contact_key};
use crate::app::shell::Shell;
use crate::sim::collide::{Scene, World};
use crate::stages::collide::Contact;
use crate::stages::sampling::FeatureKind;

pub fn panel_ui(st: &mut CollideMode, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Collisions (rigid bodies)");
    let gpu_ok = shell.gpu_ok();
    let color_map = shell.settings.view.color_map;
    let mut rebuild = false;
    egui::ComboBox::from_label("scene")
        .selected_text(st.scene.name())
        .show_ui(ui, |ui| {
            for s in Scene::ALL {
                rebuild |= ui.selectable_value(&mut st.scene, s, s.name()).changed();
            }
        });
    if rebuild {
        st.rebuild();
    }
    ui.horizontal(|ui| {
        ui.add_enabled_ui(gpu_ok, |ui| ui.checkbox(&mut st.use_gpu, "GPU contacts"));
        ui.checkbox(
            &mut st.params.colliders.interpolated_depth,
            "interpolated depth",
        );
        ui.checkbox(&mut st.params.colliders.reject_flipped, "reject flipped");
    });
    ui.add(egui::Slider::new(&mut st.params.restitution, 0.0..=1.0).text("restitution"));
    ui.add(egui::Slider::new(&mut st.params.friction, 0.0..=1.5).text("friction"));
    ui.checkbox(
        &mut st.show_samples,
        "sampling points (vertex / edge / face)",
    );
    if st.scene == Scene::LineThroughMesh {
        ui.add(egui::Slider::new(&mut st.line_offset[0], -0.6..=0.6).text("line height"));
        ui.add(egui::Slider::new(&mut st.line_offset[1], -1.0..=1.0).text("line depth"));
        ui.add(egui::Slider::new(&mut st.line_angle, -1.5..=1.5).text("line angle"));
    }
    ui.horizontal(|ui| {
        let label = if st.playing { "pause" } else { "play" };
        if ui.button(label).clicked() {
            st.playing = !st.playing;
        }
        st.step_once |= ui.button("step").clicked();
        let Some(world) = &mut st.world else { return };
        if ui.button("rewind 1 s").clicked() {
            world.rewind((1.0 / st.params.dt) as usize);
        }
        if ui.button("reset").clicked() {
            st.world = World::new(st.scene).ok();
            st.playing = false;
        }
    });
    if let Some(world) = &mut st.world {
        ui.label(format!(
            "step {} ({} kept for rewind) · {} contacts · {:.2} ms per {} ({})",
            world.steps,
            world.history_len(),
            world.contacts.contacts.len(),
            st.step_ms,
            if st.stepped { "step" } else { "detection" },
            st.params.backend.name()
        ));
        if gpu_ok && ui.button("compare CPU vs GPU contacts").clicked() {
            match compare(world, &st.params, &shell.render_gpu, &mut st.gpu) {
                Ok(c) => st.comparison = Some(c),
                Err(e) => st.error = Some(e),
            }
        }
    }
    if let Some(e) = &st.error {
        ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
    }
    legend_ui(ui, st.show_samples, color_map);
    if let Some(world) = &st.world {
        let current = st.comparison.as_ref().filter(|c| c.step == world.steps);
        contact_table_ui(ui, &world.contacts.contacts, current);
    }
}

/// The viewport's colours: sampling points by feature kind, contacts by
/// depth, normals from yellow (shallow) to red (deep).
fn legend_ui(ui: &mut egui::Ui, show_samples: bool, map: crate::view::ColorMap) {
    let swatch = |ui: &mut egui::Ui, [r, g, b, _]: [u8; 4], text: &str| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
        ui.painter()
            .rect_filled(rect, 2.0, egui::Color32::from_rgb(r, g, b));
        ui.label(text);
    };
    ui.horizontal_wrapped(|ui| {
        if show_samples {
            ui.label("samples:");
            for kind in [FeatureKind::Vertex, FeatureKind::Edge, FeatureKind::Face] {
                swatch(ui, map.color(kind_value(kind), 1.0), kind.name());
            }
        }
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("contacts by depth:");
        swatch(ui, map.color(contact_value(0.0), 1.0), "shallow");
        swatch(ui, map.color(contact_value(1.0), 1.0), "deepest");
        ui.label("normals:");
        swatch(ui, normal_color(0.0).map(|c| (c * 255.0) as u8), "shallow");
        swatch(ui, normal_color(1.0).map(|c| (c * 255.0) as u8), "deep");
    });
}

fn contact_table_ui(ui: &mut egui::Ui, contacts: &[Contact], cmp: Option<&PanelComparison>) {
    let rows: &[Contact] = match cmp {
        Some(c) => {
            ui.label(format!(
                "CPU vs GPU at step {}: CPU {} contacts in {:.2} ms, GPU {} in {:.2} ms{} · {}",
                c.step,
                c.cpu.len(),
                c.cpu_ms,
                c.gpu_count,
                c.gpu_ms,
                c.kernel_ms
                    .map_or(String::new(), |k| format!(" (kernel {k:.3} ms)")),
                c.result.summary()
            ));
            &c.cpu
        }
        None => {
            ui.label(format!(
                "{} contacts (first {} listed)",
                contacts.len(),
                contacts.len().min(200)
            ));
            contacts
        }
    };
    egui::ScrollArea::vertical()
        .max_height(ui.available_height().max(160.0))
        .id_salt("collide_contacts")
        .show(ui, |ui| {
            egui::Grid::new("collide_contact_table")
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("body");
                    ui.strong("other");
                    ui.strong("feature");
                    ui.strong("depth");
                    if cmp.is_some() {
                        ui.strong("depth gpu");
                    }
                    ui.strong("cell depth");
                    ui.strong("normal");
                    ui.end_row();
                    for a in rows.iter().take(200) {
                        ui.label(a.body.to_string());
                        ui.label(a.other.to_string());
                        ui.label(a.feature.name());
                        ui.label(format!("{:.4}", a.depth));
                        if let Some(c) = cmp {
                            ui.label(
                                c.gpu
                                    .get(&contact_key(a))
                                    .map_or("missing".into(), |g| format!("{:.4}", g.depth)),
                            );
                        }
                        ui.label(format!("{:.4}", a.depth_cell));
                        ui.label(format!(
                            "{:+.2} {:+.2} {:+.2}",
                            a.normal.x, a.normal.y, a.normal.z
                        ));
                        ui.end_row();
                    }
                });
        });
}
