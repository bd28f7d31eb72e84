//! The simulate mode's panel: the scene (body count, field resolution,
//! sampling threshold, narrow band: a change rebuilds), the simulation's
//! parameters, play / step / rewind, picking, and the last frame's summary
//! with its phases.

use eframe::egui;

use super::{SimulateMode, draw};
use crate::app::shell::Shell;
use crate::sim::simulate::{BroadPhase, PipelineBackend};

pub fn panel_ui(st: &mut SimulateMode, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Collision pipeline (many bodies)");
    let mut rebuild = false;
    rebuild |= ui
        .add(egui::Slider::new(&mut st.count, 1..=500).text("bodies"))
        .changed();
    rebuild |= ui
        .add(egui::Slider::new(&mut st.fields.sdf.resolution, 8..=64).text("field resolution"))
        .changed();
    rebuild |= ui
        .add(
            egui::Slider::new(&mut st.fields.sampling.threshold, 0.0..=0.5)
                .text("sampling threshold"),
        )
        .changed();
    let mut band = st.fields.sdf.band.unwrap_or(0.0);
    if ui
        .add(egui::Slider::new(&mut band, 0.0..=8.0).text("narrow band (cells, 0 = exact)"))
        .changed()
    {
        st.fields.sdf.band = (band >= 1.0).then_some(band);
        rebuild = true;
    }
    ui.label(format!(
        "meshes: box, torus{} — drop mesh files (.obj, .ply, .stl, .off) on the window to add them",
        match st.dropped.len() {
            0 => String::new(),
            n => format!(" and {n} dropped"),
        }
    ));
    if rebuild && let Err(e) = st.rebuild(shell) {
        st.error = Some(e);
    }
    ui.add_enabled_ui(shell.gpu_ok(), |ui| {
        ui.horizontal(|ui| {
            ui.label("backend");
            for (backend, what) in [
                (
                    PipelineBackend::Gpu,
                    "whole step on the GPU, bodies resident",
                ),
                (
                    PipelineBackend::GpuDetect,
                    "broad and narrow phase on the GPU, CPU solver",
                ),
                (PipelineBackend::Cpu, "every phase on the CPU"),
            ] {
                ui.radio_value(&mut st.backend, backend, backend.name())
                    .on_hover_text(what);
            }
        });
    });
    ui.horizontal(|ui| {
        ui.label("broad phase");
        for (broad, what) in [
            (
                BroadPhase::SortAndSweep,
                "sort-and-sweep over the bodies' boxes",
            ),
            (
                BroadPhase::ImageCompute,
                "the interference test in image space, compute rays (gpu-detect on the GPU)",
            ),
            (
                BroadPhase::ImageStencil,
                "the interference test in image space, stencil passes (gpu-detect on the GPU)",
            ),
        ] {
            ui.radio_value(&mut st.params.broad, broad, broad.name())
                .on_hover_text(what);
        }
    });
    if st.params.broad != BroadPhase::SortAndSweep {
        ui.add(
            egui::Slider::new(&mut st.params.image_resolution, 64..=1024)
                .text("image-space pixels per side"),
        );
    }
    let sweeps = if st.backend(shell.gpu_ok()) == PipelineBackend::Gpu {
        &mut st.params.gpu_iterations
    } else {
        &mut st.params.iterations
    };
    ui.add(egui::Slider::new(sweeps, 1..=64).text("solver sweeps"));
    ui.add(egui::Slider::new(&mut st.params.restitution, 0.0..=1.0).text("restitution"));
    ui.add(egui::Slider::new(&mut st.params.friction, 0.0..=1.5).text("friction"));
    ui.add(egui::Slider::new(&mut st.params.substeps, 1..=8).text("substeps"));
    ui.add(egui::Slider::new(&mut st.params.margin, 0.0..=0.2).text("box margin"));
    ui.add(
        egui::Slider::new(&mut st.params.colliders.contact_threshold, 0.0..=0.1)
            .text("contact threshold"),
    )
    .on_hover_text(
        "samples closer than this to the other surface are contacts (depth ε − d): \
         bodies rest about this far apart",
    );
    ui.checkbox(&mut st.show_pairs, "candidate pairs (lines)");
    ui.horizontal(|ui| {
        let label = if st.playing { "pause" } else { "play" };
        if ui.button(label).clicked() {
            st.playing = !st.playing;
        }
        st.step_once |= ui.button("step").clicked();
        if ui.button("rewind 1 s").clicked() {
            st.rewind((1.0 / st.params.timestep) as usize);
        }
        if ui.button("reset").clicked()
            && let Err(e) = st.rebuild(shell)
        {
            st.error = Some(e);
        }
    });
    let Some(count) = st.sim.as_ref().map(|s| s.body_count()) else {
        return;
    };
    let mut pick = st.picked.map_or(-1, |i| i as i64);
    let picked = ui
        .add(egui::Slider::new(&mut pick, -1..=count as i64 - 1).text("picked body (−1: none)"))
        .changed();
    if picked {
        st.picked = usize::try_from(pick).ok();
    }
    let exact = ui
        .checkbox(&mut st.exact, "exact tri–tri for the picked body")
        .on_hover_text("its pairs' contacts from the intersection segments (drawn magenta)")
        .changed();
    if picked || exact {
        st.apply_exact();
    }
    if let Some(bounds) = st
        .picked
        .and_then(|i| draw::body_bounds(st.sim.as_ref()?, &st.meshes, i))
        && ui
            .button("frame the picked body")
            .on_hover_text("fit the camera to it; double-click the view to frame all again")
            .clicked()
    {
        shell.viewport.fit(bounds);
    }
    let Some(sim) = &st.sim else { return };
    ui.separator();
    let s = &sim.summary;
    ui.label(format!(
        "frame {}  ·  {} pairs  ·  {} contacts  ·  energy {:.1} J  ·  {:.2} ms",
        sim.frame, s.pair_count, s.contacts, s.energy, st.step_ms
    ));
    egui::Grid::new("pipeline-phases")
        .striped(true)
        .show(ui, |ui| {
            ui.label("phase");
            ui.label("CPU ms");
            ui.label("GPU ms");
            ui.end_row();
            for p in &s.timings.phases {
                ui.label(&p.name);
                // A phase timed on the GPU only (the resident step's kernels)
                // has no CPU part of its own.
                let gpu_only = p.wall_ms == 0.0 && p.gpu_ms.is_some();
                ui.label(if gpu_only {
                    "—".into()
                } else {
                    format!("{:.3}", p.wall_ms)
                });
                ui.label(p.gpu_ms.map_or("—".into(), |g| format!("{g:.3}")));
                ui.end_row();
            }
        });
    ui.label("Contacts: points coloured by depth, normals yellow (shallow) to red (deep); candidate pairs: blue lines.");
    if st.backend(shell.gpu_ok()) == PipelineBackend::Gpu {
        ui.label(
            "The resident GPU step keeps contacts and pairs on the GPU (counts only): \
             choose gpu-detect to draw them.",
        );
    }
    if let Some(e) = &st.error {
        ui.colored_label(egui::Color32::LIGHT_RED, e);
    }
}
