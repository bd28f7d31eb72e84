//! Adaptive field panel: the octree's parameters, its per-depth table and
//! timings, the level whose cells are drawn as boxes, the side-by-side
//! comparison with the uniform field, the inflating mesh and the picked
//! node's upper bound. The scene itself is in [`crate::app::adaptive`].

use eframe::egui;

use crate::app::adaptive::{self, AdaptiveState, draw, stats};
use crate::app::viewer::Viewer;
use crate::geom::MORTON_BITS_PER_AXIS;
use crate::stages::sdf_adaptive::{AdaptiveBvh, AdaptiveParams, Backend, MAX_START_DEPTH};

/// The collapsible section in the left panel; also runs the scene.
pub fn adaptive_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    let open = std::mem::take(&mut viewer.adaptive.open_header);
    super::stage_section(
        ui,
        open,
        "Adaptive field (octree)",
        "adaptive_panel",
        |ui| controls_ui(viewer, ui),
    );
    adaptive::update(viewer, ui.ctx());
}

fn controls_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    let gpu_ok = viewer.sdf_gpu.is_some();
    let st = &mut viewer.adaptive;
    let mut active = st.active;
    ui.checkbox(&mut active, "show in viewport");
    if active != st.active {
        st.set_active(active);
    }
    parameters_ui(st, gpu_ok, ui);
    if let Some(label) = st.job_label() {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(label);
        });
    }
    summary_ui(st, ui);
    ui.separator();
    view_ui(viewer, ui);
    let st = &mut viewer.adaptive;
    ui.separator();
    deform_ui(st, ui);
    ui.separator();
    pick_ui(st, ui);
}

fn parameters_ui(st: &mut AdaptiveState, gpu_ok: bool, ui: &mut egui::Ui) {
    let before = (st.params, st.backend);
    ui.horizontal(|ui| {
        ui.label("backend");
        for b in Backend::ALL {
            ui.add_enabled_ui(gpu_ok || b != Backend::Gpu, |ui| {
                ui.selectable_value(&mut st.backend, b, b.name())
            });
        }
    });
    let p = &mut st.params;
    // Typed (or scripted) depths are not clamped: the stage's own check
    // answers out-of-range ones in the banner.
    ui.add(
        egui::Slider::new(&mut p.start_depth, 0..=MAX_START_DEPTH)
            .clamping(egui::SliderClamping::Never)
            .text("start depth l"),
    )
    .on_hover_text("the 8^l cells of this depth are the roots");
    p.max_depth = p.max_depth.max(p.start_depth);
    ui.add(
        egui::Slider::new(&mut p.max_depth, p.start_depth..=MORTON_BITS_PER_AXIS)
            .clamping(egui::SliderClamping::Never)
            .text("max depth m"),
    )
    .on_hover_text("paper: 10 (1024³); lower it on a software rasteriser");
    ui.add(
        egui::Slider::new(&mut p.alpha, 1..=64)
            .logarithmic(true)
            .text("α (triangles per leaf)"),
    )
    .on_hover_text("a node holding more than α triangle centroids is split");
    ui.checkbox(&mut p.parent_bound, "parent upper bound (§5.1)")
        .on_hover_text("start each query from the parent's closest triangle; off: a triangle of the node's own");
    bvh_ui(p, ui);
    if before != (st.params, st.backend) {
        st.request();
    }
}

/// The BVHs the queries traverse and how they are built (§4).
fn bvh_ui(p: &mut AdaptiveParams, ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        ui.label("BVH");
        for (b, help) in [
            (
                AdaptiveBvh::RssMulti,
                "one RSS BVH per Morton group, culled per query (Alg. 3–4)",
            ),
            (AdaptiveBvh::RssSingle, "one RSS BVH over the whole mesh"),
            (
                AdaptiveBvh::Aabb,
                "the mesh's AABB BVH, built once on the CPU",
            ),
        ] {
            ui.selectable_value(&mut p.bvh, b, b.name())
                .on_hover_text(help);
        }
    });
    let rss = p.bvh != AdaptiveBvh::Aabb;
    ui.add_enabled(
        p.bvh == AdaptiveBvh::RssMulti,
        egui::Slider::new(&mut p.group_level, 1..=MAX_START_DEPTH).text("Morton group level"),
    )
    .on_hover_text("one BVH per occupied cell of this depth (Alg. 3)");
    ui.add_enabled(
        rss,
        egui::Slider::new(&mut p.small_node, 1..=256)
            .logarithmic(true)
            .text("small node (triangles)"),
    )
    .on_hover_text(
        "BVH nodes with fewer triangles are built by one invocation, depth first (paper: 32)",
    );
    ui.add_enabled(
        rss,
        egui::Checkbox::new(&mut p.axis_approximation, "axis approximation (§4.3)"),
    )
    .on_hover_text("small nodes reuse their subtree root's covariance axes");
    ui.add_enabled(
        rss,
        egui::Slider::new(&mut p.wide_below, 0..=1 << 20)
            .logarithmic(true)
            .text("one workgroup per node below (nodes)"),
    )
    .on_hover_text("GPU: a depth with fewer nodes queries each with a whole workgroup, its BVHs spread over the invocations");
}

fn summary_ui(st: &AdaptiveState, ui: &mut egui::Ui) {
    let Some(p) = &st.product else {
        return;
    };
    let f = &p.field;
    ui.label(format!(
        "{} triangles · {} nodes · {} in {:.1} ms{} · {:.1} distance evaluations per node",
        p.mesh.triangle_count(),
        f.octree.nodes.len(),
        p.backend.name(),
        f.timings.total_wall_ms(),
        f.timings
            .total_gpu_ms()
            .map_or(String::new(), |g| format!(" (GPU {g:.2} ms)")),
        f.distance_evaluations as f64 / f.octree.nodes.len().max(1) as f64,
    ));
    egui::Grid::new("adaptive_timings")
        .striped(true)
        .show(ui, |ui| {
            for h in ["phase", "wall ms", "GPU ms"] {
                ui.strong(h);
            }
            ui.end_row();
            for ph in &f.timings.phases {
                ui.label(&ph.name);
                ui.label(format!("{:.2}", ph.wall_ms));
                ui.label(ph.gpu_ms.map_or("-".into(), |g| format!("{g:.3}")));
                ui.end_row();
            }
        });
    egui::Grid::new("adaptive_levels")
        .striped(true)
        .show(ui, |ui| {
            for c in stats::COLUMNS {
                ui.strong(c.header).on_hover_text(c.help);
            }
            ui.end_row();
            for row in &p.levels {
                for c in stats::COLUMNS {
                    ui.label((c.cell)(row));
                }
                ui.end_row();
            }
        });
}

fn swatch(ui: &mut egui::Ui, depth: u32) {
    let [r, g, b] = draw::level_color_srgb(depth);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
    ui.painter()
        .rect_filled(rect, 2.0, egui::Color32::from_rgb(r, g, b));
}

fn view_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    let st = &mut viewer.adaptive;
    let deepest = st
        .product
        .as_ref()
        .map_or(st.params.max_depth, |p| p.field.octree.max_depth);
    let before = (
        st.level,
        st.show_boxes,
        st.level_points,
        st.compare,
        st.rss_level,
    );
    ui.horizontal(|ui| {
        ui.label("level");
        let text = st.level.map_or("all".into(), |l| format!("depth {l}"));
        egui::ComboBox::from_id_salt("adaptive_level")
            .selected_text(text)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut st.level, None, "all");
                for d in st.params.start_depth..=deepest {
                    ui.horizontal(|ui| {
                        swatch(ui, d);
                        ui.selectable_value(&mut st.level, Some(d), format!("depth {d}"));
                    });
                }
            });
        if let Some(d) = st.level {
            swatch(ui, d);
        }
    });
    ui.horizontal(|ui| {
        ui.checkbox(&mut st.show_boxes, "boxes");
        ui.checkbox(&mut st.level_points, "points of this level only");
    });
    ui.horizontal(|ui| {
        let mut on = st.rss_level.is_some();
        ui.checkbox(&mut on, "RSS volumes, BVH level")
            .on_hover_text("the rectangle swept spheres of one level of the GPU-built BVHs (roots, one per Morton group: 0), drawn as the box the rectangle sweeps over ±radius");
        let mut level = st.rss_level.unwrap_or(0);
        ui.add_enabled(on, egui::DragValue::new(&mut level).range(0..=40));
        st.rss_level = on.then_some(level);
    });
    if st.rss_level.is_some() {
        let has_bvh = st.product.as_ref().is_some_and(|p| p.bvh.is_some());
        ui.label(if has_bvh {
            format!(
                "{} RSS volumes on this level ({} drawn)",
                st.rss_volumes.1, st.rss_volumes.0
            )
        } else {
            "RSS volumes come from the GPU build (backend gpu, BVH rss-multi or rss-single)".into()
        });
    }
    if st.show_boxes && st.boxes.0 < st.boxes.1 {
        ui.label(format!(
            "showing {} of {} boxes (pick one level to see them all)",
            st.boxes.0, st.boxes.1
        ));
    }
    ui.add(egui::Slider::new(&mut viewer.settings.view.point_size, 1.0..=16.0).text("point size (px)"))
        .on_hover_text("the cell filters (inside / outside / clip plane) and colours are in the field panel's Cells section");
    let st = &mut viewer.adaptive;
    ui.checkbox(&mut st.compare, "side by side with the uniform field")
        .on_hover_text("uniform grid cells left of the mesh's centre (as seen now), adaptive node centres right of it");
    if before
        != (
            st.level,
            st.show_boxes,
            st.level_points,
            st.compare,
            st.rss_level,
        )
    {
        st.request_redraw();
    }
    if let (true, Some((_, _, c))) = (st.compare, &st.comparison) {
        let res = viewer.field.as_ref().map_or(0, |f| f.params.resolution);
        ui.label(format!(
            "at {} node centres inside the {res}³ grid: max |adaptive − trilinear(uniform)| = {:.2e} \
             (node {}), mean {:.2e}; cell diagonal {:.2e}; {} sign disagreements",
            c.compared,
            c.max_abs,
            c.worst_node.map_or("—".into(), |n| n.to_string()),
            c.mean_abs,
            c.cell_diagonal,
            c.sign_disagreements,
        ));
    }
}

fn deform_ui(st: &mut AdaptiveState, ui: &mut egui::Ui) {
    let d = &mut st.deform;
    let was = d.on;
    ui.horizontal(|ui| {
        ui.checkbox(&mut d.on, "deform: inflate and deflate");
        if d.on {
            let label = if d.playing { "pause" } else { "play" };
            if ui.button(label).clicked() {
                d.playing = !d.playing;
            }
        }
    });
    if d.on != was {
        d.frames = 0;
        if !d.on {
            st.request();
        }
    }
    let d = &mut st.deform;
    if !d.on {
        return;
    }
    ui.add(egui::Slider::new(&mut d.amplitude, 0.0..=0.1).text("amplitude (× diagonal)"));
    ui.add(egui::Slider::new(&mut d.speed, 0.1..=10.0).text("speed (rad/s)"));
    if let Some(f) = st.product.as_ref().and_then(|p| p.frame.map(|f| (p, f))) {
        let (p, frame) = f;
        ui.label(format!(
            "frame {} · offset {:+.4} · rebuild {:.1} ms = prepare {:.1} + stage {:.1}{} + table {:.1}",
            st.deform.frames,
            frame.offset,
            p.job_ms,
            frame.prepare_ms,
            p.field.timings.total_wall_ms(),
            p.field
                .timings
                .total_gpu_ms()
                .map_or(String::new(), |g| format!(" (GPU {g:.2})")),
            (p.job_ms - frame.prepare_ms - p.field.timings.total_wall_ms()).max(0.0),
        ));
    }
}

fn pick_ui(st: &mut AdaptiveState, ui: &mut egui::Ui) {
    let Some(probe) = &st.pick else {
        ui.label("Click a node centre in the view to inspect it.");
        return;
    };
    let mut clear = false;
    super::value_grid(ui, "adaptive_pick", |row| {
        let c = probe.center;
        row("node", probe.node.to_string());
        row("centre", format!("{:.4}, {:.4}, {:.4}", c.x, c.y, c.z));
        row(
            "depth · half size",
            format!("{} · {:.5}", probe.depth, probe.half_size),
        );
        row(
            "triangles in cell",
            format!(
                "{}{}",
                probe.triangles,
                if probe.is_leaf { " (leaf)" } else { "" }
            ),
        );
        row("value", format!("{:+.6}", probe.value));
        if let Some(r) = probe.reference {
            row(
                "brute force",
                format!("{r:+.6} (|Δ| {:.1e})", (probe.value - r).abs()),
            );
        }
        if let Some((t, f, _)) = probe.closest {
            row("closest triangle", format!("{t} ({})", f.name()));
        }
        match &probe.bound {
            Some(b) => {
                row("parent", b.parent.to_string());
                row("parent's triangle", b.triangle.to_string());
                row("upper bound", format!("{:.6}", b.distance));
                row("true distance", format!("{:.6}", probe.value.abs()));
                row(
                    "bound − true",
                    format!(
                        "{:.2e}{}",
                        b.distance - probe.value.abs(),
                        if b.kept { " (same triangle)" } else { "" }
                    ),
                );
            }
            None => row("upper bound", "— (a root: no parent)".into()),
        }
    });
    ui.label("Yellow: the node's box and its closest point; magenta: the closest point on its parent's triangle (the bound).");
    if ui.button("Clear pick").clicked() {
        clear = true;
    }
    if clear {
        st.set_pick(None);
    }
}
