//! Slice panel: an axis-aligned slice of the field in the shell's image
//! widget ([`crate::app::shell::image_view::ImageView`]) following the
//! quantity the viewport shows — the field (iso-lines over the colour map,
//! the zero level set emphasised), |Δ| while the CPU-vs-GPU heat map is
//! shown, the cells whose signs differ while the sign-mode comparison is —
//! with world-unit axes, the colour bar or key of that quantity and the
//! picked cell ringed; hover shows the value, a click picks the cell. The
//! slice's plane is drawn in the 3D view ([`slice_plane_lines`]).

use eframe::egui;

use super::SdfMode;
use super::verify::SignClass;
use crate::app::shell::Shell;
use crate::app::shell::export::figure_menu_ui;
use crate::app::shell::image_view::{self, Coloring, Extent, Picture};
use crate::app::shell::legend::sig_figs;
use crate::stages::sdf::SdfField;
use crate::view::{
    Axis, LineVertex, ViewSettings, slice_cell, slice_extents, slice_image, slice_place,
    slice_values,
};

/// Upscaling of slice pixels, so iso-lines have room to be lines.
const SCALE: u32 = 4;

/// The slice index the settings' position selects on `axis`.
pub fn slice_index(field: &SdfField, axis: Axis, position: f32) -> u32 {
    let n = field.grid.dims.to_array()[axis as usize];
    ((position * n as f32) as u32).min(n.saturating_sub(1))
}

/// What a slice shows: the field, or a per-cell difference up to its
/// maximum (with the heat map's threshold).
#[derive(Clone, Copy)]
pub enum Quantity<'a> {
    /// The field; `file` when it was read from a file with no mesh (its
    /// values in the file's units).
    Field { file: bool },
    Difference {
        values: &'a [f32],
        max: f32,
        threshold: f32,
    },
    /// The cells whose pseudo-normal, fast winding and exact winding signs
    /// differ (the odd one out per cell), over the field.
    SignDisagreements { classes: &'a [SignClass] },
}

/// The colour of a cell whose signs disagree (not in any colour map).
pub const DISAGREE: [u8; 4] = [255, 0, 255, 255];

/// The slice's plane through its cells' centres, spanning the grid, as a
/// rectangle of lines for the 3D view.
pub fn slice_plane_lines(field: &SdfField, axis: Axis, index: u32) -> Vec<LineVertex> {
    let b = field.grid.bounds();
    let a = axis as usize;
    let at = field.grid.origin.to_array()[a] + index as f32 * field.grid.cell_size;
    let (u, v) = ((a + 1) % 3, (a + 2) % 3);
    let corner = |cu: bool, cv: bool| {
        let mut p = b.min.to_array();
        p[a] = at;
        if cu {
            p[u] = b.max.to_array()[u];
        }
        if cv {
            p[v] = b.max.to_array()[v];
        }
        LineVertex::new(glam::Vec3::from(p), SLICE_LINE)
    };
    let ring = [(false, false), (true, false), (true, true), (false, true)];
    (0..4)
        .flat_map(|k| {
            let (p, q) = (ring[k], ring[(k + 1) % 4]);
            [corner(p.0, p.1), corner(q.0, q.1)]
        })
        .collect()
}

/// The slice plane's colour in the 3D view (linear RGBA): cyan.
const SLICE_LINE: [f32; 4] = [0.0, 0.75, 1.0, 1.0];

/// The slice `index` along `axis` of `quantity` as a picture for the
/// image widget; `mesh` names the mesh in the caption.
pub fn slice_picture(
    field: &SdfField,
    quantity: Quantity<'_>,
    axis: Axis,
    index: u32,
    view: &ViewSettings,
    mesh: &str,
) -> Picture {
    let (nu, nv, na) = crate::view::slice_dims(field, axis);
    let ([(un, u0, u1), (vn, v0, v1)], at) = slice_extents(field, axis, index);
    let place = format!(
        "{} slice {index} of {na} at {} = {}",
        axis.name(),
        axis.name(),
        sig_figs(at as f64, 3)
    );
    let (values, pixels, coloring, what) = match quantity {
        Quantity::Field { file } => (
            slice_values(field, &field.values, axis, index),
            Some(slice_image(
                field,
                axis,
                index,
                view.color_map,
                view.value_min,
                view.value_max,
                SCALE,
            )),
            Coloring::Scale {
                map: view.color_map,
                lo: view.value_min,
                hi: view.value_max,
                title: if file {
                    "value (the file's units)"
                } else {
                    "signed distance (mesh units)"
                }
                .into(),
                threshold: None,
            },
            format!(
                "signed distance {} to {}, iso-lines every {}",
                sig_figs(view.value_min as f64, 2),
                sig_figs(view.value_max as f64, 2),
                sig_figs(view.range_extent() as f64 / 5.0, 2)
            ),
        ),
        Quantity::Difference {
            values,
            max,
            threshold,
        } => (
            slice_values(field, values, axis, index),
            None,
            Coloring::Scale {
                map: view.color_map,
                lo: 0.0,
                hi: max,
                title: "|Δ| CPU vs GPU (mesh units)".into(),
                threshold: Some(threshold),
            },
            format!("|Δ| CPU vs GPU, 0 to {}", sig_figs(max as f64, 2)),
        ),
        Quantity::SignDisagreements { classes } => {
            let flags = slice_values(field, &disagreeing(classes), axis, index);
            let count = flags.iter().filter(|&&f| f > 0.5).count();
            let mut pixels = slice_image(
                field,
                axis,
                index,
                view.color_map,
                view.value_min,
                view.value_max,
                SCALE,
            );
            for (x, y, p) in pixels.enumerate_pixels_mut() {
                if flags.get(((y / SCALE) * nu + x / SCALE) as usize) > Some(&0.5) {
                    *p = image::Rgba(DISAGREE);
                }
            }
            (
                flags,
                Some(pixels),
                Coloring::Classes(
                    "sign modes compared".into(),
                    vec![
                        (format!("signs differ ({count} cells)"), DISAGREE),
                        ("signs agree: the field".into(), [128, 128, 128, 255]),
                    ],
                ),
                format!("cells whose sign differs between sign modes: {count}"),
            )
        }
    };
    Picture {
        width: nu,
        height: nv,
        values,
        pixels,
        coloring,
        axes: Some([
            Extent {
                label: un.into(),
                lo: u0,
                hi: u1,
            },
            Extent {
                label: vn.into(),
                lo: v0,
                hi: v1,
            },
        ]),
        caption: format!("{mesh}: {place}; {what} ({} backend)", field.backend.name()),
        world_aspect: true,
    }
}

pub fn slice_ui(mode: &mut SdfMode, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        ui.strong("Slice");
        for a in Axis::ALL {
            ui.selectable_value(&mut shell.settings.slice_axis, a, a.name());
        }
        ui.add(egui::Slider::new(&mut shell.settings.slice_position, 0.0..=1.0).text("position"));
        figure_menu_ui(shell, ui, "Export", "slice.png", |shell, path, f, c| {
            export_slice(mode, shell, path, f, c)
        });
    });
    let Some(field) = shell.mesh.field.clone() else {
        ui.label("no field yet");
        return;
    };
    let axis = shell.settings.slice_axis;
    let index = slice_index(&field, axis, shell.settings.slice_position);
    let view = shell.settings.view;
    // The widget is taken out while the quantity borrows the mode.
    let mut widget = std::mem::take(&mut mode.slice_view);
    let quantity = mode.slice_quantity();
    let mesh = shell
        .mesh
        .scene
        .as_ref()
        .map_or(String::new(), |s| s.source.label());
    let key = (
        std::sync::Arc::as_ptr(&field) as usize,
        axis,
        index,
        view.color_map,
        (view.value_min.to_bits(), view.value_max.to_bits()),
        match quantity {
            Quantity::Field { .. } => None,
            Quantity::Difference {
                values,
                max,
                threshold,
            } => Some((values.as_ptr() as usize, max.to_bits(), threshold.to_bits())),
            Quantity::SignDisagreements { classes } => Some((classes.as_ptr() as usize, 0, 0)),
        },
    );
    let (_, nv, _) = crate::view::slice_dims(&field, axis);
    let marker = mode.pick.as_ref().and_then(|p| {
        let (k, u, v) = slice_place(axis, field.grid.coords(p.cell));
        (k == index).then_some([u, nv - 1 - v])
    });
    let shown = widget.show(
        ui,
        key,
        || slice_picture(&field, quantity, axis, index, &view, &mesh),
        marker,
        |[x, y]| hover_text(&field, quantity, axis, index, x, y),
    );
    mode.slice_view = widget;
    if let Some([x, y]) = shown.clicked {
        let ijk = slice_cell(axis, index, x, nv - 1 - y);
        if ijk.cmplt(field.grid.dims).all() {
            mode.set_pick(shell, Some(field.grid.index(ijk)));
        }
    }
}

/// Writes the slice the settings select, of the quantity the mode shows,
/// with its colour bar and axes (and caption) at `factor` × its pixel size.
pub fn export_slice(
    mode: &SdfMode,
    shell: &Shell,
    path: &std::path::Path,
    factor: u32,
    caption: bool,
) -> Result<(), String> {
    let field = shell.mesh.field.as_ref().ok_or("no field to slice")?;
    let axis = shell.settings.slice_axis;
    let index = slice_index(field, axis, shell.settings.slice_position);
    let mesh = shell
        .mesh
        .scene
        .as_ref()
        .map_or(String::new(), |s| s.source.label());
    let picture = slice_picture(
        field,
        mode.slice_quantity(),
        axis,
        index,
        &shell.settings.view,
        &mesh,
    );
    let img = image_view::export_image(&picture, factor, caption)?;
    crate::app::shell::export::write_png(&img, path)
}

/// The hover text of image pixel (x, y) (rows from the top).
fn hover_text(
    field: &SdfField,
    quantity: Quantity<'_>,
    axis: Axis,
    index: u32,
    x: u32,
    y: u32,
) -> Option<String> {
    let (_, nv, _) = crate::view::slice_dims(field, axis);
    let ijk = slice_cell(axis, index, x, nv.checked_sub(1 + y)?);
    let i = field.grid.index(ijk);
    let p = field.grid.center(ijk);
    let value = match quantity {
        Quantity::Field { .. } => format!("d = {:+.5}", field.values.get(i)?),
        Quantity::Difference { values, .. } => {
            format!("|Δ| = {}", sig_figs(*values.get(i)? as f64, 3))
        }
        Quantity::SignDisagreements { classes } => format!(
            "d = {:+.5}, signs: {}",
            field.values.get(i)?,
            classes.get(i)?.label()
        ),
    };
    Some(format!(
        "cell ({}, {}, {}) at ({:.4}, {:.4}, {:.4}): {value}",
        ijk.x, ijk.y, ijk.z, p.x, p.y, p.z
    ))
}

/// 1 where `flags` is set, else 0.
/// 1 where a cell's signs disagree, 0 where all three agree.
fn disagreeing(classes: &[SignClass]) -> Vec<f32> {
    classes
        .iter()
        .map(|&c| f32::from(u8::from(c != SignClass::Agree)))
        .collect()
}
