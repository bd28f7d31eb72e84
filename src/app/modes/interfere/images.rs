//! The read-back images in the right panel: stencil counts in false colour
//! with a legend and per-class pixel counts, edge depth and the identity
//! images, the pixel under the mouse described, and the counts verified
//! against the CPU reference.

use eframe::egui;

use super::InterfereMode;
use std::path::Path;

use crate::app::shell::Shell;
use crate::app::shell::export::figure_menu_ui;
use crate::app::shell::image_view::{self, Coloring, Extent, Picture};
use crate::stages::interfere::images::{self, ImageKind};
use crate::stages::interfere::{CountImage, CullPlan, InterferenceScene, count_cpu};

/// The read-back images in the right panel, with legend and hover details.
pub fn images_ui(st: &mut InterfereMode, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Interference images");
    let Some(r) = &st.result else {
        ui.label("no run yet");
        return;
    };
    let with_images: Vec<usize> = (0..r.runs.len())
        .filter(|&k| r.runs[k].image.is_some())
        .collect();
    if with_images.is_empty() {
        ui.label("occlusion-query mode reads no pixels (Alg. 5): only the pairs come back.");
        return;
    }
    ui.horizontal_wrapped(|ui| {
        for &k in &with_images {
            let name = format!("view {}", r.runs[k].view.axis.name());
            ui.selectable_value(&mut st.image_run, k, name);
        }
    });
    egui::ComboBox::from_id_salt("interference_image_kind")
        .selected_text(st.image.name())
        .show_ui(ui, |ui| {
            for kind in ImageKind::ALL {
                ui.selectable_value(&mut st.image, kind, kind.name());
            }
        });
    let run_index = shown_run(st).expect("a run has images");
    let cull = r.runs[run_index].cull.as_ref();
    let image = r.runs[run_index].image.as_ref().expect("filtered above");
    let kind = st.image;
    let key = (run_index, kind as u8, image.counts.as_ptr() as usize);
    st.image_view.show(
        ui,
        key,
        || picture(image, kind),
        None,
        |[x, y]| Some(describe_pixel(image, x, y)),
    );
    export_menu_ui(st, shell, ui);
    if cull.is_some() {
        ui.label(
            "culled: faces count only inside each object's overlap rectangle and only \
             edges reaching an overlap are drawn, so elsewhere there is no edge or a \
             count of 0",
        );
    }
    ui.horizontal(|ui| {
        if ui.button("verify vs CPU").clicked() {
            let outcome = verify_image(&r.scene, image, cull).unwrap_or_else(|e| e);
            st.verified = Some((run_index, outcome));
        }
        if let Some((_, text)) = st.verified.as_ref().filter(|(k, _)| *k == run_index) {
            ui.label(text);
        }
    });
}

/// The GPU counts of `image` against [`count_cpu`] for the same rays and
/// culling: pixels compared (those the rasteriser's tie rules cannot
/// decide) and the first difference as an error.
pub fn verify_image(
    scene: &InterferenceScene,
    image: &CountImage,
    cull: Option<&CullPlan>,
) -> Result<String, String> {
    let cpu = count_cpu(scene, &image.view, &image.edge_depth, cull);
    let width = image.view.width as usize;
    let compared = cpu.ambiguous.iter().filter(|&&a| !a).count();
    let differ: Vec<usize> = (0..cpu.counts.len())
        .filter(|&i| !cpu.ambiguous[i] && cpu.counts[i] != image.counts[i])
        .collect();
    let axis = image.view.axis.name();
    match differ.first() {
        None => Ok(format!("{axis}: {compared} pixels equal the CPU counts")),
        Some(&i) => Err(format!(
            "{axis}: {} of {compared} pixels differ from the CPU, first ({}, {}): GPU {} CPU {}",
            differ.len(),
            i % width,
            i / width,
            image.counts[i],
            cpu.counts[i]
        )),
    }
}

/// The run whose image is shown: the chosen one, or the first with images.
fn shown_run(st: &InterfereMode) -> Option<usize> {
    let r = st.result.as_ref()?;
    let has = |k: usize| r.runs.get(k).is_some_and(|run| run.image.is_some());
    if has(st.image_run) {
        Some(st.image_run)
    } else {
        (0..r.runs.len()).find(|&k| has(k))
    }
}

/// Writes the shown image with its key and axes (and caption) as a PNG
/// at `factor` × its pixel size.
pub fn export_image(
    st: &InterfereMode,
    path: &Path,
    factor: u32,
    caption: bool,
) -> Result<(), String> {
    let run = shown_run(st).ok_or("no interference image to export")?;
    let image = st.result.as_ref().and_then(|r| r.runs[run].image.as_ref());
    let image = image.ok_or("no interference image to export")?;
    let fig = image_view::export_image(&picture(image, st.image), factor, caption)?;
    crate::app::shell::export::write_png(&fig, path)
}

/// The image's "Export PNG" menu.
fn export_menu_ui(st: &InterfereMode, shell: &mut Shell, ui: &mut egui::Ui) {
    figure_menu_ui(
        shell,
        ui,
        "Export image",
        "interference.png",
        |_, path, f, c| export_image(st, path, f, c),
    );
}

/// The hover text of pixel (x, y).
fn describe_pixel(image: &CountImage, x: u32, y: u32) -> String {
    let i = (y * image.view.width + x) as usize;
    let object = |v: u32| {
        (v as usize)
            .checked_sub(1)
            .map_or("-".into(), |k| k.to_string())
    };
    format!(
        "pixel ({x}, {y}): count {}, depth {:.4}, edge of object {} (edge {}), inside {}",
        image.counts[i],
        image.edge_depth[i],
        object(image.ids[i][0]),
        image.ids[i][1].saturating_sub(1),
        object(image.penetrated[i]),
    )
}

/// The picture of `kind` for the image widget: the false colours with
/// their classes as the key (per-class pixel counts for the stencil
/// counts), the count per pixel as the value (empty where no edge), the
/// view's world box as axes.
pub fn picture(image: &CountImage, kind: ImageKind) -> Picture {
    let view = &image.view;
    let (w, h) = (view.width, view.height);
    let colours = images::rgba(image, kind);
    let classes = match kind {
        ImageKind::Counts => {
            let mut per_class = [0usize; images::COUNT_LEGEND.len()];
            for c in &colours {
                if let Some(k) = images::COUNT_LEGEND.iter().position(|e| e.1 == *c) {
                    per_class[k] += 1;
                }
            }
            Coloring::Classes(
                "stencil count at the nearest edge (pixels)".into(),
                images::COUNT_LEGEND
                    .iter()
                    .zip(per_class)
                    .map(|((label, color), n)| (format!("{label}: {n}"), *color))
                    .collect(),
            )
        }
        ImageKind::EdgeDepth => Coloring::Classes(
            "nearest (offset) edge depth".into(),
            vec![
                ("near".into(), [255, 255, 255, 255]),
                ("far".into(), [51, 51, 51, 255]),
                ("no edge".into(), [0, 0, 0, 255]),
            ],
        ),
        _ => {
            let mut objects: Vec<usize> = match kind {
                ImageKind::EdgeObjects => image.ids.iter().map(|i| i[0]).collect(),
                ImageKind::Penetrating => image.inside_ids.iter().map(|i| i[0]).collect(),
                _ => image.penetrated.clone(),
            }
            .into_iter()
            .filter_map(|v| (v as usize).checked_sub(1))
            .collect();
            objects.sort_unstable();
            objects.dedup();
            let shown = objects.len().min(16);
            let mut entries: Vec<(String, [u8; 4])> = objects[..shown]
                .iter()
                .map(|&k| (format!("object {k}"), images::object_color(Some(k))))
                .collect();
            if objects.len() > shown {
                entries.push((format!("… {} more", objects.len() - shown), [0, 0, 0, 0]));
            }
            Coloring::Classes(
                format!("{} ({} objects)", kind.name(), objects.len()),
                entries,
            )
        }
    };
    let [u, v, depth] = view.axis.components();
    let names = ["x", "y", "z"];
    let extent = |c: usize| Extent {
        label: names[c].into(),
        lo: view.min[c] as f32,
        hi: view.max[c] as f32,
    };
    Picture {
        width: w,
        height: h,
        values: image
            .counts
            .iter()
            .zip(&image.edge_depth)
            .map(|(&c, &d)| if d < 1.0 { c as f32 } else { f32::NAN })
            .collect(),
        pixels: image::RgbaImage::from_raw(w, h, colours.concat()),
        coloring: classes,
        axes: Some([extent(u), extent(v)]),
        caption: format!(
            "interference: {} seen along {}, {w}×{h} pixels",
            kind.name(),
            names[depth]
        ),
        world_aspect: true,
    }
}
