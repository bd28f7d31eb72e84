//! The radial mode's side panel: backend, field resolution, animation
//! speed, pause and time, the live scene's sliders (particles, substeps
//! n, friction μ, cloth stiffness) and contact counts, table 1's
//! alternatives measured on the frame, bone selection with every bone's unwrap as a
//! thumbnail, the selected field's axis editor, and the last frame's
//! phase times.

use eframe::egui;

use super::{MAX_PARTICLES, RadialMode};
use crate::app::shell::Shell;
use crate::app::shell::profiler::ms_label;
use crate::sim::radial::NO_CONTACT;
use crate::stages::radial::Backend;

pub(super) fn panel_ui(m: &mut RadialMode, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Radial fields");
    ui.label(
        "Friston & Steed 2019: a cylindrical distance field per bone, rasterised every frame.",
    );
    if let Some(e) = &m.error {
        ui.colored_label(egui::Color32::LIGHT_RED, e);
    }
    ui.horizontal(|ui| {
        ui.label("backend");
        for b in Backend::ALL {
            if ui.selectable_label(m.backend == b, b.name()).clicked() {
                m.backend = b;
                m.dirty = true;
            }
        }
    });
    let (mut half_theta, mut n_z) = (m.params.n_theta / 2, m.params.n_z);
    let theta = ui.add(egui::Slider::new(&mut half_theta, 4..=256).text("θ cells ÷ 2"));
    let z = ui.add(egui::Slider::new(&mut n_z, 4..=256).text("z cells"));
    if (theta.changed() || z.changed())
        && let Err(e) = m.set_resolution(half_theta * 2, n_z)
    {
        m.error = Some(e);
    }
    ui.add(egui::Slider::new(&mut m.speed, 0.0..=2.0).text("speed"));
    ui.horizontal(|ui| {
        ui.checkbox(&mut m.paused, "pause");
        let duration = m
            .character
            .as_ref()
            .and_then(|c| c.clip.as_ref())
            .map_or(1.0, |c| c.duration());
        let mut t = m.time.rem_euclid(duration.max(1e-3));
        if ui
            .add(egui::Slider::new(&mut t, 0.0..=duration).text("t (s)"))
            .changed()
        {
            m.time = t;
            m.paused = true;
            m.dirty = true;
        }
    });
    if ui
        .checkbox(&mut m.translucent, "translucent cylinders (off: wire)")
        .changed()
    {
        m.dirty = true;
    }
    scene_ui(m, ui);
    super::alternatives::section_ui(&mut m.alternatives, ui);
    if m.alternatives.requested {
        m.dirty = true;
    }
    ui.separator();
    let Some(c) = &m.character else { return };
    let names: Vec<String> = (0..c.fields.len())
        .map(|f| c.field_name(f).to_string())
        .collect();
    egui::ComboBox::from_label("bone")
        .selected_text(names.get(m.bone).cloned().unwrap_or_default())
        .show_ui(ui, |ui| {
            for (f, name) in names.iter().enumerate() {
                if ui.selectable_label(m.bone == f, name).clicked() {
                    m.bone = f;
                    m.dirty = true;
                }
            }
        });
    axis_editor(m, ui);
    crate::app::shell::export::figure_menu_ui(
        shell,
        ui,
        "Export unwrap",
        "unwrap.png",
        |_, path, factor, caption| m.export_unwrap(path, factor, caption),
    );
    ui.separator();
    ui.label("every bone's unwrap (click to select)");
    let size = egui::vec2(64.0, 64.0 * m.params.n_z as f32 / m.params.n_theta as f32);
    ui.horizontal_wrapped(|ui| {
        for (f, tex) in m.textures.iter().enumerate() {
            let Some(tex) = tex else { continue };
            let image = egui::Image::new((tex.id(), size));
            let r = ui
                .add(egui::Button::image(image).selected(f == m.bone))
                .on_hover_text(&names[f]);
            if r.clicked() {
                m.bone = f;
                m.dirty = true;
            }
        }
    });
    ui.separator();
    ui.label("last frame");
    for p in &m.timings.phases {
        ui.label(format!(
            "{}: {} ms wall, GPU {}",
            p.name,
            ms_label(Some(p.wall_ms)),
            ms_label(p.gpu_ms)
        ));
    }
}

/// The cloth and the particles: on/off, reset, and their sliders.
fn scene_ui(m: &mut RadialMode, ui: &mut egui::Ui) {
    ui.separator();
    ui.horizontal(|ui| {
        if ui
            .checkbox(&mut m.show_scene, "cloth and particles")
            .changed()
        {
            m.dirty = true;
        }
        if ui.button("drop again").clicked() {
            m.scene = None;
            m.dirty = true;
        }
    });
    let p = &mut m.scene_params;
    if ui
        .add(egui::Slider::new(&mut p.particles, 0..=MAX_PARTICLES).text("particles"))
        .changed()
    {
        m.scene = None;
        m.dirty = true;
    }
    ui.add(egui::Slider::new(&mut p.substeps, 1..=64).text("substeps n"));
    ui.add(egui::Slider::new(&mut p.friction, 0.0..=1.0).text("friction μ"));
    ui.add(egui::Slider::new(&mut p.stiffness, 0.0..=1.0).text("cloth stiffness"));
    if let Some(s) = &m.scene {
        let touching = |c: &[u32]| c.iter().filter(|&&f| f != NO_CONTACT).count();
        ui.label(format!(
            "contacts: {} of {} particles, {} of {} cloth particles",
            touching(&s.particles.contacts),
            s.particles.len(),
            touching(&s.cloth.particles.contacts),
            s.cloth.particles.len()
        ));
    }
}

/// A, B and the normal of the selected field, in bind-pose coordinates.
fn axis_editor(m: &mut RadialMode, ui: &mut egui::Ui) {
    let Some(c) = &mut m.character else { return };
    let Some(f) = c.fields.get_mut(m.bone) else {
        return;
    };
    let mut changed = false;
    for (label, v) in [("A", &mut f.a), ("B", &mut f.b), ("normal", &mut f.normal)] {
        ui.horizontal(|ui| {
            ui.label(label);
            for x in [&mut v.x, &mut v.y, &mut v.z] {
                changed |= ui
                    .add(egui::DragValue::new(x).speed(0.005).max_decimals(3))
                    .changed();
            }
        });
    }
    if changed {
        m.dirty = true;
    }
}
