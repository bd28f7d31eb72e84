//! The Cells section: how the viewport's point sprites are drawn (shown or
//! not, colour map, size, colour range, which values, a clip plane). The
//! field and adaptive modes show it; script steps set the same settings.

use eframe::egui;

use super::Shell;
use crate::geom::Aabb;
use crate::stages::sdf::SdfField;
use crate::view::{Axis, ClipPlane, ColorMap, ViewSettings};

/// The Cells controls. Ranges reach half the uniform field's diagonal
/// (the scene's, before a field exists).
pub fn cells_ui(shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Cells");
    let view_before = shell.settings.view;
    let v = &mut shell.settings.view;
    ui.checkbox(&mut v.show_cells, "show cell cloud");
    ui.horizontal(|ui| {
        ui.label("colours");
        for m in ColorMap::ALL {
            ui.selectable_value(&mut v.color_map, m, m.name());
        }
    });
    ui.add(egui::Slider::new(&mut v.point_size, 1.0..=16.0).text("point size (px)"));
    let field = shell.mesh.field.as_deref();
    // The field's grid, or the scene's box before a field is computed:
    // every range below follows the field's own place and size.
    let bounds = field.map_or(shell.viewport.bounds(), |f| f.grid.bounds());
    let max_range = if bounds.is_empty() {
        1.0
    } else {
        0.5 * bounds.diagonal()
    };
    range_ui(ui, v, field, max_range);
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
    clip_ui(ui, v, bounds);
    if view_before != shell.settings.view {
        shell.viewport.request_redraw();
    }
}

/// The clip plane: on or off, its axis and its offset. The offset spans
/// the field's own extent along the axis and a new plane (or a new axis)
/// cuts through the field's centre, wherever the field lies.
fn clip_ui(ui: &mut egui::Ui, v: &mut ViewSettings, bounds: Aabb) {
    let mut clip = v.filter.clip.is_some();
    ui.checkbox(&mut clip, "clip plane");
    if !clip {
        v.filter.clip = None;
        return;
    }
    let c = v
        .filter
        .clip
        .get_or_insert_with(|| ClipPlane::through_center(bounds, glam::Vec3::X));
    ui.horizontal(|ui| {
        for (n, name) in [
            (glam::Vec3::X, "x"),
            (glam::Vec3::Y, "y"),
            (glam::Vec3::Z, "z"),
        ] {
            if ui.selectable_label(c.normal.abs() == n, name).clicked() {
                // The kept side stays the same (the facing plane may be −x).
                let side = c.normal.element_sum().signum();
                *c = ClipPlane::through_center(bounds, n * side);
            }
        }
    });
    let (lo, hi) = ClipPlane::offset_range(bounds, c.normal);
    ui.add(egui::Slider::new(&mut c.offset, lo..=hi).text("offset"));
}

/// The colour range: min and max fields, and buttons that fit it to the
/// data or to the band.
fn range_ui(ui: &mut egui::Ui, v: &mut ViewSettings, field: Option<&SdfField>, max_range: f32) {
    let speed = (max_range * 1e-3) as f64;
    ui.horizontal(|ui| {
        ui.label("colour range");
        ui.add(
            egui::DragValue::new(&mut v.value_min)
                .speed(speed)
                .max_decimals(6)
                .prefix("min "),
        );
        ui.add(
            egui::DragValue::new(&mut v.value_max)
                .speed(speed)
                .max_decimals(6)
                .prefix("max "),
        );
    });
    ui.horizontal(|ui| {
        if ui
            .button("fit data")
            .on_hover_text("min and max of the field's values (far cells left out)")
            .clicked()
            && let Some(f) = field
        {
            fit_range(v, f, "data").ok();
        }
        if ui
            .button("fit band")
            .on_hover_text("± the narrow band's half-width (or the band filter's)")
            .clicked()
            && let Some(f) = field
        {
            fit_range(v, f, "band").ok();
        }
        if ui
            .button("±")
            .on_hover_text("symmetric about the surface")
            .clicked()
        {
            v.set_symmetric_range(v.range_extent());
        }
    });
    order_range(v);
}

/// Keeps `value_min < value_max` (an edit past the other end pushes it).
fn order_range(v: &mut ViewSettings) {
    if v.value_min.partial_cmp(&v.value_max) != Some(std::cmp::Ordering::Less) {
        let gap = (v.value_min.abs().max(v.value_max.abs()) * 1e-3).max(1e-9);
        v.value_max = v.value_min + gap;
    }
}

/// The field's data range: the min and max of its finite values, far
/// cells of a narrow band left out (their values are ±band).
pub fn data_range(field: &SdfField) -> Option<(f32, f32)> {
    let far = crate::stages::sdf::FAR;
    let (lo, hi) = field
        .values
        .iter()
        .zip(field.closest.iter().chain(std::iter::repeat(&0)))
        .filter(|(v, c)| **c != far && v.is_finite())
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), (&v, _)| {
            (lo.min(v), hi.max(v))
        });
    (lo <= hi).then_some((lo, hi))
}

/// Fits the colour range: `data` to [`data_range`], `band` to ± the band
/// filter's |d| or the field's narrow band half-width (two cells when it
/// has none), `MIN,MAX` to those numbers.
pub fn fit_range(view: &mut ViewSettings, field: &SdfField, how: &str) -> Result<(), String> {
    match how {
        "data" => {
            let (lo, hi) = data_range(field).ok_or("the field has no finite values")?;
            (view.value_min, view.value_max) = (lo, hi);
        }
        "band" => {
            let cells = field.params.band.unwrap_or(2.0);
            let band = view.filter.band.unwrap_or(cells * field.grid.cell_size);
            view.set_symmetric_range(band);
        }
        _ => {
            let parsed = how
                .split_once(',')
                .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
            match parsed {
                Some((lo, hi)) if f32::is_finite(lo) && f32::is_finite(hi) && lo < hi => {
                    (view.value_min, view.value_max) = (lo, hi);
                }
                _ => {
                    return Err(format!(
                        "range needs data, band or MIN,MAX with MIN < MAX, not {how:?}"
                    ));
                }
            }
        }
    }
    order_range(view);
    Ok(())
}

/// Sets the cell filter from a name (`all`, `inside`, `outside`, `band`).
pub fn apply_filter_name(
    view: &mut ViewSettings,
    name: &str,
    field: Option<&SdfField>,
) -> Result<(), String> {
    let f = &mut view.filter;
    f.inside_only = false;
    f.outside_only = false;
    f.band = None;
    match name {
        "all" => {}
        "inside" => f.inside_only = true,
        "outside" => f.outside_only = true,
        "band" => f.band = Some(field.map_or(0.05, |fl| 2.0 * fl.grid.cell_size)),
        _ => return Err(format!("unknown filter {name}")),
    }
    Ok(())
}

pub fn axis_from_name(name: &str) -> Option<Axis> {
    match name {
        "x" | "X" => Some(Axis::X),
        "y" | "Y" => Some(Axis::Y),
        "z" | "Z" => Some(Axis::Z),
        _ => None,
    }
}

/// The clip plane a script names: `off`, or an axis (`x`, `-y`, …) through
/// the centre of the field's grid, keeping the cells on its negative side.
pub fn clip_plane(name: &str, field: Option<&SdfField>) -> Result<Option<ClipPlane>, String> {
    if name == "off" {
        return Ok(None);
    }
    let (sign, axis) = name.strip_prefix('-').map_or((1.0, name), |n| (-1.0, n));
    let normal = match axis_from_name(axis).ok_or(format!("unknown clip {name}"))? {
        Axis::X => glam::Vec3::X,
        Axis::Y => glam::Vec3::Y,
        Axis::Z => glam::Vec3::Z,
    } * sign;
    let bounds = field.ok_or("no field to clip")?.grid.bounds();
    Ok(Some(ClipPlane::through_center(bounds, normal)))
}
