//! The read-back images in the right panel: stencil counts in false colour
//! with a legend and per-class pixel counts, edge depth and the identity
//! images, the pixel under the mouse described, and the counts verified
//! against the CPU reference.

use eframe::egui;

use super::Interference;
use crate::stages::interference::images::{self, ImageKind};
use crate::stages::interference::{CountImage, CullPlan, InterferenceScene, count_cpu};

/// The read-back images in the right panel, with legend and hover details.
pub fn images_ui(st: &mut Interference, ui: &mut egui::Ui) {
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
    let run_index = if with_images.contains(&st.image_run) {
        st.image_run
    } else {
        with_images[0]
    };
    let cull = r.runs[run_index].cull.as_ref();
    let image = r.runs[run_index].image.as_ref().expect("filtered above");
    let stale = st
        .texture
        .as_ref()
        .is_none_or(|(_, k, kind)| (*k, *kind) != (run_index, st.image));
    if stale {
        let (w, h) = (image.view.width as usize, image.view.height as usize);
        let pixels: Vec<u8> = images::rgba(image, st.image).concat();
        let color = egui::ColorImage::from_rgba_unmultiplied([w, h], &pixels);
        let texture =
            ui.ctx()
                .load_texture("interference image", color, egui::TextureOptions::NEAREST);
        st.texture = Some((texture, run_index, st.image));
    }
    let (texture, _, _) = st.texture.as_ref().expect("loaded above");
    let width = ui.available_width().min(300.0);
    let aspect = image.view.height as f32 / image.view.width as f32;
    let response = ui.add(
        egui::Image::new((texture.id(), egui::vec2(width, width * aspect)))
            .sense(egui::Sense::hover()),
    );
    if let Some(pos) = response.hover_pos() {
        let rel = (pos - response.rect.min) / response.rect.size();
        let x = ((rel.x * image.view.width as f32) as u32).min(image.view.width - 1);
        let y = ((rel.y * image.view.height as f32) as u32).min(image.view.height - 1);
        let i = (y * image.view.width + x) as usize;
        let object = |v: u32| {
            (v as usize)
                .checked_sub(1)
                .map_or("-".into(), |k| k.to_string())
        };
        ui.label(format!(
            "pixel ({x}, {y}): count {}, depth {:.4}, edge of object {} (edge {}), inside {}",
            image.counts[i],
            image.edge_depth[i],
            object(image.ids[i][0]),
            image.ids[i][1].saturating_sub(1),
            object(image.penetrated[i]),
        ));
    }
    legend_ui(ui, image, st.image);
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

fn swatch(ui: &mut egui::Ui, color: [u8; 4], label: String) {
    ui.horizontal(|ui| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
        let [r, g, b, _] = color;
        ui.painter()
            .rect_filled(rect, 2.0, egui::Color32::from_rgb(r, g, b));
        ui.painter().rect_stroke(
            rect,
            2.0,
            egui::Stroke::new(1.0, egui::Color32::GRAY),
            egui::StrokeKind::Inside,
        );
        ui.label(label);
    });
}

fn legend_ui(ui: &mut egui::Ui, image: &CountImage, kind: ImageKind) {
    match kind {
        ImageKind::Counts => {
            let mut per_class = [0usize; images::COUNT_LEGEND.len()];
            for (&c, &d) in image.counts.iter().zip(&image.edge_depth) {
                let color = images::count_color(c, d < 1.0);
                if let Some(k) = images::COUNT_LEGEND.iter().position(|e| e.1 == color) {
                    per_class[k] += 1;
                }
            }
            ui.label("stencil count at the nearest edge point (pixels):");
            for ((label, color), n) in images::COUNT_LEGEND.iter().zip(per_class) {
                swatch(ui, *color, format!("{label}: {n}"));
            }
        }
        ImageKind::EdgeDepth => {
            ui.label("nearest (offset) edge depth: white near, dark far; black no edge");
        }
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
            ui.label(format!(
                "{} objects in this image, one colour each:",
                objects.len()
            ));
            // A grid keeps the side panel at its width.
            egui::Grid::new("interference_id_legend").show(ui, |ui| {
                for (n, &k) in objects.iter().take(24).enumerate() {
                    let [r, g, b, _] = images::object_color(Some(k));
                    ui.colored_label(egui::Color32::from_rgb(r, g, b), k.to_string());
                    if n % 6 == 5 {
                        ui.end_row();
                    }
                }
            });
        }
    }
}
