//! Pipeline panel: the SDF stage's parameters and how its cells are shown.
//! Changing a stage parameter re-runs the stage in the background.

use eframe::egui;

use crate::app::viewer::Viewer;
use crate::stages::sdf_grid::{Backend, MAX_RESOLUTION, MIN_RESOLUTION, SignMode};
use crate::view::{ClipPlane, ColorMap};

pub fn pipeline_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    ui.heading("Signed distance field");
    let before = (viewer.settings.params, viewer.settings.backend);
    let gpu_ok = viewer.sdf_gpu.is_some();
    {
        let s = &mut viewer.settings;
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
    if before != (viewer.settings.params, viewer.settings.backend) {
        viewer.request_field();
    }
    if let Some((label, fraction, _)) = viewer.field_job_progress() {
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
            viewer.cancel_field();
        }
    } else if let Some(f) = &viewer.field {
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

    ui.separator();
    ui.heading("Cells");
    let view_before = viewer.settings.view;
    let v = &mut viewer.settings.view;
    ui.checkbox(&mut v.show_cells, "show cell cloud");
    ui.horizontal(|ui| {
        ui.label("colours");
        for m in ColorMap::ALL {
            ui.selectable_value(&mut v.color_map, m, m.name());
        }
    });
    ui.add(egui::Slider::new(&mut v.point_size, 1.0..=16.0).text("point size (px)"));
    let max_range = viewer
        .field
        .as_ref()
        .map_or(1.0, |f| f.grid.bounds().diagonal() * 0.5);
    ui.add(
        egui::Slider::new(&mut v.value_range, (max_range * 1e-3)..=max_range)
            .logarithmic(true)
            .text("colour range"),
    );
    ui.horizontal_wrapped(|ui| {
        let f = &mut v.filter;
        let mut which = if f.inside_only {
            1
        } else if f.outside_only {
            2
        } else if f.band.is_some() {
            3
        } else {
            0
        };
        for (i, name) in ["all", "inside", "outside", "|d| < band"]
            .iter()
            .enumerate()
        {
            ui.selectable_value(&mut which, i, *name);
        }
        f.inside_only = which == 1;
        f.outside_only = which == 2;
        if which == 3 {
            if f.band.is_none() {
                f.band = Some(max_range * 0.05);
            }
        } else {
            f.band = None;
        }
    });
    if let Some(b) = &mut v.filter.band {
        ui.add(
            egui::Slider::new(b, (max_range * 1e-3)..=max_range)
                .logarithmic(true)
                .text("band |d| <"),
        );
    }
    let mut clip = v.filter.clip.is_some();
    ui.checkbox(&mut clip, "clip plane");
    if clip {
        let c = v.filter.clip.get_or_insert(ClipPlane {
            normal: glam::Vec3::X,
            offset: 0.0,
        });
        ui.horizontal(|ui| {
            for (n, name) in [
                (glam::Vec3::X, "x"),
                (glam::Vec3::Y, "y"),
                (glam::Vec3::Z, "z"),
            ] {
                if ui.selectable_label(c.normal == n, name).clicked() {
                    c.normal = n;
                }
            }
        });
        ui.add(egui::Slider::new(&mut c.offset, -max_range..=max_range).text("offset"));
    } else {
        v.filter.clip = None;
    }
    if view_before != viewer.settings.view {
        viewer.viewport.request_redraw();
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
