//! The uniform field's parameters (the SDF stage) and its progress.
//! Changing a stage parameter re-runs the stage in the background.

use eframe::egui;

use crate::app::shell::Shell;
use crate::stages::sdf::{Backend, MAX_RESOLUTION, MIN_RESOLUTION, SignMode};

pub fn pipeline_ui(shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Signed distance field");
    let before = (shell.settings.params, shell.settings.backend);
    let gpu_ok = shell.sdf_gpu.is_some();
    {
        let s = &mut shell.settings;
        ui.horizontal_wrapped(|ui| {
            ui.label("backend");
            for b in Backend::ALL {
                ui.add_enabled_ui(gpu_ok || !b.is_gpu(), |ui| {
                    ui.selectable_value(&mut s.backend, b, b.name())
                        .on_hover_text(backend_help(b));
                });
            }
        });
        ui.add(
            egui::Slider::new(&mut s.params.resolution, MIN_RESOLUTION..=MAX_RESOLUTION)
                .logarithmic(true)
                .text("resolution (cells)"),
        )
        .on_hover_text("cells along the longest axis");
        ui.add(egui::Slider::new(&mut s.params.padding, 0.0..=0.5).text("grid thickness"))
            .on_hover_text("padding on every side, as a fraction of the longest side");
        let mut banded = s.params.band.is_some();
        ui.horizontal(|ui| {
            ui.checkbox(&mut banded, "narrow band");
            let mut w = s.params.band.unwrap_or(3.0);
            ui.add_enabled(
                banded,
                egui::Slider::new(&mut w, 1.0..=32.0).text("field thickness (cells)"),
            );
            s.params.band = banded.then_some(w);
        });
        ui.horizontal(|ui| {
            ui.label("sign");
            for m in SignMode::ALL {
                ui.selectable_value(&mut s.params.sign_mode, m, m.name());
            }
        });
    }
    if before != (shell.settings.params, shell.settings.backend) {
        shell.request_field();
    }
    if let Some((label, fraction)) = shell.field_job_progress() {
        let label = label.to_string();
        let mut cancel = false;
        ui.horizontal(|ui| {
            ui.add(
                egui::ProgressBar::new(fraction)
                    .text(label)
                    .desired_width(200.0),
            );
            cancel = ui.button("Cancel").clicked();
        });
        if cancel {
            shell.cancel_field();
        }
    } else if let (Some(f), None) = (&shell.mesh.field, &shell.mesh.scene) {
        let d = f.grid.dims;
        ui.label(format!(
            "{}×{}×{} = {} cells, {} negative; read from a file (no mesh)",
            d.x,
            d.y,
            d.z,
            f.values.len(),
            f.inside_cells(),
        ));
    } else if let Some(f) = &shell.mesh.field {
        let d = f.grid.dims;
        ui.label(format!(
            "{}×{}×{} = {} cells, {} inside, {} far; {} in {:.1} ms{}",
            d.x,
            d.y,
            d.z,
            f.values.len(),
            f.inside_cells(),
            f.far_cells(),
            f.backend.name(),
            f.timings.total_wall_ms(),
            f.timings
                .total_gpu_ms()
                .map_or(String::new(), |g| format!(" (GPU {g:.2} ms)")),
        ));
        ui.label(format!(
            "{:.1} distance evaluations per cell",
            f.distance_evaluations as f64 / f.values.len() as f64
        ));
    }
}

fn backend_help(b: Backend) -> &'static str {
    match b {
        Backend::CpuReference => {
            "every cell against every triangle, one thread (slow, obviously right)"
        }
        Backend::CpuFast => "BVH + all cores, brick upper bounds (exact)",
        Backend::GpuBrute => "GPU: every cell against every triangle, tiles in workgroup memory",
        Backend::Gpu => "GPU: BVH with brick upper bounds (exact)",
    }
}
