//! The interference mode's panel: the scene (shapes, count, seed), the
//! stage's parameters, the selected object's pose and the run's results.

use eframe::egui;
use glam::Vec3;

use super::{InterfereMode, MAX_OBJECTS, Outcome, RESOLUTIONS, ReadMode};
use crate::stages::interfere::scenes::Shapes;
use crate::stages::interfere::{Backend, Identification, ViewAxis};

pub fn controls_ui(st: &mut InterfereMode, ui: &mut egui::Ui) {
    ui.heading("Interference (ray counting)");
    let before = st.inputs();
    ui.horizontal(|ui| {
        ui.label("objects");
        for s in Shapes::ALL {
            ui.selectable_value(&mut st.shapes, s, s.name());
        }
    });
    ui.add(egui::Slider::new(&mut st.count, 1..=MAX_OBJECTS).text("objects"));
    ui.add(egui::Slider::new(&mut st.seed, 0..=999).text("seed"));
    ui.add(
        egui::Slider::new(&mut st.resolution, RESOLUTIONS)
            .logarithmic(true)
            .text("viewport px"),
    );
    ui.add(
        egui::Slider::new(&mut st.offset_permille, 0.0..=10.0).text("edge offset ‰ of diagonal"),
    );
    ui.horizontal(|ui| {
        ui.label("view axes");
        for (k, axis) in ViewAxis::ALL.into_iter().enumerate() {
            ui.checkbox(&mut st.axes[k], axis.name());
        }
    });
    if st.axes == [false; 3] {
        st.axes[2] = true;
    }
    ui.horizontal(|ui| {
        ui.selectable_value(&mut st.mode, ReadMode::ReadPixels, "read pixels");
        ui.selectable_value(
            &mut st.mode,
            ReadMode::OcclusionQueries,
            "occlusion queries",
        );
    });
    ui.checkbox(&mut st.cull, "bounding-box culling")
        .on_hover_text(
            "Exact: each object's faces are drawn only inside the screen rectangle of \
         its overlap with other objects' boxes, only edges reaching that overlap \
         are drawn, and objects overlapping nothing are not drawn at all.",
        );
    ui.horizontal(|ui| {
        ui.label("backend");
        for backend in Backend::ALL {
            ui.selectable_value(&mut st.backend, backend, backend.name());
        }
    })
    .response
    .on_hover_text(
        "stencil: the paper's rendering passes (edges as lines, faces counted in \
         the stencil buffer). compute: the same rays and signed counts on the \
         compute units, no rasteriser, with the CPU reference's coverage rules. \
         cpu: the reference itself.",
    );
    ui.horizontal(|ui| {
        ui.label("penetrated by");
        for id in Identification::ALL {
            ui.selectable_value(&mut st.identification, id, id.name());
        }
    })
    .response
    .on_hover_text(
        "Pair passes: the paper's Alg. 4, a stencil count per candidate object. \
         Weighted sums: the counting pass also sums s·(1, j+1, (j+1)²) per face, \
         which names the one or two objects an edge point is inside; only \
         objects with other pixels get pair passes.",
    );
    st.dirty |= before != st.inputs();
    st.place();
    pose_ui(st, ui);
    if let Some(e) = &st.error {
        ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
    }
    if let Some(r) = &st.result {
        result_ui(r, ui);
    }
}

/// The selected object's pose sliders.
fn pose_ui(st: &mut InterfereMode, ui: &mut egui::Ui) {
    let mut selected = st.selected;
    ui.add(egui::Slider::new(&mut selected, 0..=st.count - 1).text("selected object"));
    if selected != st.selected {
        st.selected = selected;
        st.redraw = true;
    }
    let reach = 1.6 * (st.count as f32).cbrt().ceil() + 1.0;
    let Some(p) = st.placements.get_mut(st.selected) else {
        return;
    };
    let old = *p;
    let mut t = p.translation.to_array();
    let mut a = p.angles.to_array();
    for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
        ui.add(egui::Slider::new(&mut t[i], -1.0..=reach).text(format!("move {axis}")));
    }
    for (i, name) in ["yaw", "pitch", "roll"].into_iter().enumerate() {
        ui.add(egui::Slider::new(&mut a[i], -180.0..=180.0).text(format!("{name} °")));
    }
    p.translation = Vec3::from(t);
    p.angles = Vec3::from(a);
    st.dirty |= *p != old;
}

fn result_ui(r: &Outcome, ui: &mut egui::Ui) {
    let triangles = r.scene.triangle_count();
    let pairs = &r.summary.pairs;
    let color = if pairs.is_empty() {
        egui::Color32::from_rgb(120, 200, 120)
    } else {
        egui::Color32::from_rgb(240, 110, 80)
    };
    ui.colored_label(
        color,
        format!(
            "{} objects, {triangles} triangles: {} interfering pairs",
            r.scene.objects.len(),
            pairs.len()
        ),
    );
    let gpu = r.gpu_ms.map_or("-".into(), |g| format!("{g:.3}"));
    ui.label(format!("wall {:.2} ms · GPU {gpu} ms", r.wall_ms));
    for run in &r.runs {
        let (px, py) = run.view.pixel_size();
        let early = if run.queries.early_exit {
            " · early non-interference"
        } else {
            ""
        };
        ui.label(format!(
            "{}: {}×{}, pixel {px:.4}×{py:.4} world{early}",
            run.view.axis.name(),
            run.view.width,
            run.view.height
        ));
        let d = &run.drawn;
        // Only the stencil passes draw (their totals count every object).
        if d.objects.total == 0 {
            ui.label("  nothing rasterised (compute or CPU backend)");
        } else {
            ui.label(format!(
                "  drew {}/{} objects, {}/{} triangles, {}/{} edges; pairs {}/{} triangles, {}/{} edges",
                d.objects.drawn,
                d.objects.total,
                d.triangles.drawn,
                d.triangles.total,
                d.edges.drawn,
                d.edges.total,
                d.pair_triangles.drawn,
                d.pair_triangles.total,
                d.pair_edges.drawn,
                d.pair_edges.total,
            ));
        }
        let id = &run.identification;
        if let Some(used) = id.used {
            let ambiguous: u64 = id.ambiguous_pixels.iter().sum();
            ui.label(format!(
                "  penetrated by {}: pair passes for {} objects, {ambiguous} ambiguous pixels",
                used.name(),
                id.pair_pass_objects.len(),
            ));
        }
        if let Some(why) = &id.fallback {
            ui.label(format!("  weighted sums not used: {why}"));
        }
    }
    if r.runs.iter().any(|run| run.image.is_some()) {
        let si = &r.located.self_interference;
        ui.label(format!(
            "{} localised points on {} edges",
            r.located.points.len(),
            r.located.edges.len()
        ));
        ui.label(format!(
            "self-interference (filtered): {} px on objects {:?}",
            si.pixels, si.objects
        ));
    }
    if !r.summary.self_only.is_empty() {
        ui.label(format!("self only: {:?}", r.summary.self_only));
    }
    let open = &r.located.open_meshes;
    if !open.open_objects.is_empty() || !open.negative_pixels.is_empty() {
        ui.label(format!(
            "open meshes {:?}; negative counts (object, px) {:?}",
            open.open_objects, open.negative_pixels
        ));
    }
    egui::ScrollArea::vertical()
        .id_salt("interference_pairs")
        .max_height(ui.available_height().max(160.0))
        .show(ui, |ui| {
            egui::Grid::new("interference_pairs_grid")
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("pair");
                    ui.strong("pixels (i in j, j in i)");
                    ui.end_row();
                    for &[i, j] in pairs {
                        let px = |a: usize, b: usize| -> u64 {
                            r.runs
                                .iter()
                                .flat_map(|run| &run.queries.pairs)
                                .filter(|q| q.penetrating == a && q.penetrated == b)
                                .map(|q| q.pixels)
                                .sum()
                        };
                        ui.label(format!("{i} – {j}"));
                        ui.label(format!("{}, {}", px(i, j), px(j, i)));
                        ui.end_row();
                    }
                });
        });
}
