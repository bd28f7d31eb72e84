//! The triangle–triangle mode's panel: ready scenes, the two models, model
//! B's pose, the backend, the verdict and the per-backend times.

use eframe::egui;

use super::{BackendTime, ModelSource, TriScene, TritriMode};
use crate::app::shell::Shell;
use crate::app::shell::profiler::ms_label;
use crate::stages::tritri::{Backend, TriModel};

pub fn panel_ui(st: &mut TritriMode, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Triangle–triangle");
    let gpu_ok = shell.gpu_ok();
    let has_current = shell.mesh.scene.is_some();
    ui.horizontal(|ui| {
        if ui.button("interlaced tori").clicked() {
            st.activate_scene(TriScene::InterlacedTori);
        }
        if ui.button("two rocker arms").clicked() {
            st.activate_scene(TriScene::TwoRockerArms);
        }
    });
    let mut sources = vec![ModelSource::Torus];
    sources.extend(
        crate::assets::SAMPLES
            .iter()
            .map(|(n, _)| ModelSource::Sample(n.to_string())),
    );
    if has_current {
        sources.push(ModelSource::Current);
    }
    let mut models_changed = false;
    for (label, slot) in [
        ("model A (fixed)", &mut st.source_a),
        ("model B (posed)", &mut st.source_b),
    ] {
        let mut current = slot.clone().unwrap_or(ModelSource::Torus);
        egui::ComboBox::from_label(label)
            .selected_text(current.label())
            .show_ui(ui, |ui| {
                for s in &sources {
                    ui.selectable_value(&mut current, s.clone(), s.label());
                }
            });
        if slot.as_ref() != Some(&current) {
            *slot = Some(current);
            models_changed = true;
        }
    }
    st.dirty |= models_changed;
    let reach = st
        .models
        .as_ref()
        .map_or(2.0, |(_, _, (a, b))| {
            let r = |m: &TriModel| {
                let bb = m.mesh.bounds();
                bb.min.abs().max(bb.max.abs()).length()
            };
            r(a) + r(b)
        })
        .max(0.1);
    let mut s = st.sliders();
    for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
        ui.add(
            egui::Slider::new(&mut s.translation[i], -reach..=reach)
                .text(format!("B translation {axis}")),
        );
    }
    for (i, name) in ["yaw", "pitch", "roll"].into_iter().enumerate() {
        ui.add(egui::Slider::new(&mut s.angles[i], -180.0..=180.0).text(format!("B {name} °")));
    }
    if s != st.sliders() {
        st.pose_b = Some(s);
        st.dirty = true;
    }
    let mut backend = st.backend();
    ui.horizontal(|ui| {
        ui.label("backend");
        for b in Backend::ALL {
            ui.add_enabled_ui(gpu_ok || !b.is_gpu(), |ui| {
                ui.selectable_value(&mut backend, b, b.name())
            });
        }
    });
    let mut all_pairs = st.params().all_pairs;
    ui.checkbox(&mut all_pairs, "all pairs (segments, highlighting)");
    if backend != st.backend() || all_pairs != st.params().all_pairs {
        st.backend = Some(backend);
        st.all_pairs = Some(all_pairs);
        st.dirty = true;
    }
    let time_all = ui.button("time all backends").clicked();
    if let Some(job) = &st.job {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(&job.label);
        });
    }
    if let Some(r) = &st.result {
        let (na, nb) = st.models.as_ref().map_or((0, 0), |(_, _, (a, b))| {
            (a.triangle_count(), b.triangle_count())
        });
        let verdict = if r.collides { "collide" } else { "apart" };
        let mut text = format!("{na} × {nb} triangles · {}: {verdict}", r.backend.name());
        if r.params.all_pairs {
            text += &format!(" · {} colliding pairs", r.contacts.len());
        }
        if let Some(n) = r.near_touching {
            text += &format!(" · {n} within rounding of touching");
        }
        let color = if r.collides {
            egui::Color32::from_rgb(240, 110, 80)
        } else {
            egui::Color32::from_rgb(120, 200, 120)
        };
        ui.colored_label(color, text);
    }
    if let Some(e) = &st.error {
        ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
    }
    times_table_ui(ui, &st.times);
    if time_all {
        st.start_job(shell, true);
    }
}

fn times_table_ui(ui: &mut egui::Ui, times: &[BackendTime]) {
    if times.is_empty() {
        return;
    }
    egui::Grid::new("tri_tri_times")
        .striped(true)
        .show(ui, |ui| {
            for h in ["backend", "mode", "wall ms", "GPU ms", "answer"] {
                ui.strong(h);
            }
            ui.end_row();
            for t in times {
                ui.label(t.backend.name());
                ui.label(if t.all_pairs { "all pairs" } else { "yes/no" });
                ui.label(ms_label(Some(t.wall_ms)));
                ui.label(ms_label(t.gpu_ms));
                let answer = match (t.collides, t.pairs) {
                    (_, Some(n)) => format!("{n} pairs"),
                    (true, None) => "collide".into(),
                    (false, None) => "apart".into(),
                };
                ui.label(answer);
                ui.end_row();
            }
        });
}
