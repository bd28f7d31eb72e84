//! Slice panel: an axis-aligned slice of the field as an image with
//! iso-lines (the zero level set emphasised); hover shows the value, a click
//! picks the cell.

use eframe::egui;

use super::Field;
use crate::app::shell::Shell;
use crate::view::{Axis, slice_image, slice_value};

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
    let key = (
        std::sync::Arc::as_ptr(&field) as usize,
        axis,
        index,
        view.color_map,
        view.value_range.to_bits(),
    );
    let texture = shell.viewport.slice_texture(ui.ctx(), key, || {
        slice_image(&field, axis, index, view.color_map, view.value_range, SCALE)
    });
    let size = texture.size_vec2();
    let avail = ui.available_size();
    let fit = (avail.x / size.x).min((avail.y - 20.0) / size.y).max(0.1);
    let response = ui.add(
        egui::Image::new(&texture)
            .fit_to_exact_size(size * fit)
            .sense(egui::Sense::click()),
    );
    if let Some(pos) = response.hover_pos() {
        // Image pixel → cell coordinates within the slice (rows are flipped
        // so +v is up).
        let rel = (pos - response.rect.min) / response.rect.size();
        let (nu, nv) = (size.x / SCALE as f32, size.y / SCALE as f32);
        let u = rel.x * nu - 0.5;
        let v = (1.0 - rel.y) * nv - 0.5;
        let text = match slice_value(&field, axis, index, u, v) {
            Some(val) => format!(
                "cell ({:.0}, {:.0}) of slice {index}: d = {val:+.5}",
                u.round(),
                v.round()
            ),
            None => "outside the grid".into(),
        };
        response.clone().on_hover_text(text);
        if response.clicked() {
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
    ui.label(format!(
        "{} slice {index} of {n_axis}; iso-lines every {:.3}, zero level in black",
        axis_name(axis),
        view.value_range / 5.0
    ));
}

fn axis_name(a: Axis) -> &'static str {
    match a {
        Axis::X => "x",
        Axis::Y => "y",
        Axis::Z => "z",
    }
}
