//! The colour bar, axes and caption `render` puts around its images (on by
//! default, `--no-legend` to drop them), drawn by the same figure code as
//! the viewer's `export-figure`: the 3D view of the field's cells gets the
//! signed-distance bar with the histogram of the cells' values and a
//! caption; a slice gets, besides, its two axes in world units.

use crate::plot::figure::{self, Figure, Key, Ruler};
use crate::plot::legend::{ColorBar, HISTOGRAM_BINS, histogram, nice_ticks, sig_figs};
use crate::stages::sdf::SdfField;
use crate::view::{Axis, ColorMap, slice_dims, slice_extents, slice_values};

/// The signed-distance bar over `-range..range`.
fn distance_bar(range: f32) -> ColorBar {
    ColorBar {
        title: "signed distance (mesh units)",
        lo: -range,
        hi: range,
        signed: true,
        threshold: None,
    }
}

/// The 3D view `img` with the bar (the histogram of `values`, the cells
/// drawn) and the caption naming `mesh`, the range and `what` is shown.
pub fn field_figure(
    img: &image::RgbaImage,
    values: &[f32],
    map: ColorMap,
    range: f32,
    mesh: &str,
    what: &str,
) -> Result<image::RgbaImage, String> {
    let bar = distance_bar(range);
    let key = Key::Bar(bar.key(map, histogram(values, -range, range, HISTOGRAM_BINS)));
    let caption = format!("{}; {what}", bar.caption(mesh, map));
    figure::render(
        &Figure {
            image: img,
            key: Some(&key),
            axes: None,
            caption: Some(&caption),
        },
        1,
    )
}

/// Slice `index` along `axis` (its image `img`) with the bar, the axes in
/// world units and a caption naming `mesh`, the slice's place and range.
pub fn slice_figure(
    img: &image::RgbaImage,
    field: &SdfField,
    axis: Axis,
    index: u32,
    map: ColorMap,
    range: f32,
    mesh: &str,
) -> Result<image::RgbaImage, String> {
    let bar = distance_bar(range);
    let values = slice_values(field, &field.values, axis, index);
    let key = Key::Bar(bar.key(map, histogram(&values, -range, range, HISTOGRAM_BINS)));
    let ([(un, u0, u1), (vn, v0, v1)], at) = slice_extents(field, axis, index);
    let axes = [
        Ruler {
            label: un.into(),
            ticks: nice_ticks(u0, u1, 5),
        },
        Ruler {
            label: vn.into(),
            ticks: nice_ticks(v0, v1, 5),
        },
    ];
    let (_, _, na) = slice_dims(field, axis);
    let caption = format!(
        "{}; {} slice {index} of {na} at {} = {} ({} backend)",
        bar.caption(mesh, map),
        axis.name(),
        axis.name(),
        sig_figs(at as f64, 3),
        field.backend.name()
    );
    figure::render(
        &Figure {
            image: img,
            key: Some(&key),
            axes: Some(&axes),
            caption: Some(&caption),
        },
        1,
    )
}
