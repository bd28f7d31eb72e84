//! Slice panel: an axis-aligned slice of the field as an image with
//! iso-lines (the zero level set emphasised), or of |Δ| while the
//! CPU-vs-GPU heat map is shown; hover shows the value, a click picks the
//! cell.

use eframe::egui;

use super::Field;
use crate::app::shell::Shell;
use crate::app::shell::legend::sig_figs;
use crate::view::{Axis, slice_cell_value, slice_cells_image, slice_image, slice_value};

/// Upscaling of slice pixels, so iso-lines have room to be lines.
const SCALE: u32 = 4;

pub fn slice_ui(mode: &mut Field, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        ui.strong("Slice");
        for (a, name) in [(Axis::X, "x"), (Axis::Y, "y"), (Axis::Z, "z")] {
            ui.selectable_value(&mut shell.settings.slice_axis, a, name);
        }
        ui.add(egui::Slider::new(&mut shell.settings.slice_position, 0.0..=1.0).text("position"));
    });
    let Some(field) = shell.mesh.field.clone() else {
        ui.label("no field yet");
        return;
    };
    let axis = shell.settings.slice_axis;
    let n_axis = match axis {
        Axis::X => field.grid.dims.x,
        Axis::Y => field.grid.dims.y,
        Axis::Z => field.grid.dims.z,
    };
    let index = ((shell.settings.slice_position * n_axis as f32) as u32).min(n_axis - 1);
    let view = shell.settings.view;
    let difference = mode.shown_difference();
    let key = (
        std::sync::Arc::as_ptr(&field) as usize,
        axis,
        index,
        view.color_map,
        view.value_range.to_bits(),
        difference.map(|(d, max)| (d.as_ptr() as usize, max.to_bits())),
    );
    let texture = shell
        .viewport
        .slice_texture(ui.ctx(), key, || match difference {
            Some((diff, max)) => {
                slice_cells_image(&field, diff, axis, index, view.color_map, max, SCALE)
            }
            None => slice_image(&field, axis, index, view.color_map, view.value_range, SCALE),
        });
    let size = texture.size_vec2();
    let avail = ui.available_size();
    let fit = (avail.x / size.x).min((avail.y - 20.0) / size.y).max(0.1);
    let response = ui.add(
        egui::Image::new(&texture)
            .fit_to_exact_size(size * fit)
            .sense(egui::Sense::click()),
    );
    // Image pixel → cell coordinates within the slice (rows are flipped so
    // +v is up).
    let cell_at = |pos: egui::Pos2| {
        let rel = (pos - response.rect.min) / response.rect.size();
        let (nu, nv) = (size.x / SCALE as f32, size.y / SCALE as f32);
        (rel.x * nu - 0.5, (1.0 - rel.y) * nv - 0.5)
    };
    if let Some(pos) = response.hover_pos() {
        let (u, v) = cell_at(pos);
        let value = match difference {
            Some((diff, _)) => slice_cell_value(&field, diff, axis, index, u, v)
                .map(|d| format!("|Δ| = {}", sig_figs(d as f64, 3))),
            None => slice_value(&field, axis, index, u, v).map(|d| format!("d = {d:+.5}")),
        };
        let text = match value {
            Some(value) => format!(
                "cell ({:.0}, {:.0}) of slice {index}: {value}",
                u.round(),
                v.round()
            ),
            None => "outside the grid".into(),
        };
        response.clone().on_hover_text(text);
    }
    ui.label(match difference {
        Some((_, max)) => format!(
            "{} slice {index} of {n_axis}: |Δ| from 0 to {} (mesh units)",
            axis_name(axis),
            sig_figs(max as f64, 2)
        ),
        None => format!(
            "{} slice {index} of {n_axis}; iso-lines every {}, zero level in black",
            axis_name(axis),
            sig_figs(view.value_range as f64 / 5.0, 2)
        ),
    });
    if response.clicked()
        && let Some(pos) = response.interact_pointer_pos()
    {
        let (u, v) = cell_at(pos);
        let (ui_, vi) = (u.round().max(0.0) as u32, v.round().max(0.0) as u32);
        let ijk = match axis {
            Axis::X => glam::UVec3::new(index, ui_, vi),
            Axis::Y => glam::UVec3::new(ui_, index, vi),
            Axis::Z => glam::UVec3::new(ui_, vi, index),
        };
        if ijk.cmplt(field.grid.dims).all() {
            mode.set_pick(shell, Some(field.grid.index(ijk)));
        }
    }
}

fn axis_name(a: Axis) -> &'static str {
    match a {
        Axis::X => "x",
        Axis::Y => "y",
        Axis::Z => "z",
    }
}
