//! Adaptive field panel: the octree's parameters, its per-depth table and
//! timings, the level whose cells are drawn as boxes, the side-by-side
//! comparison with the uniform field, the inflating mesh and the picked
//! node's upper bound; and the caption over the viewport.

use eframe::egui;

use super::draw;
use super::state::AdaptiveMode;
use super::stats;
use crate::app::shell::chrome::value_grid;
use crate::app::shell::profiler::ms_label;
use crate::app::shell::{Shell, cells_ui};
use crate::geom::MORTON_BITS_PER_AXIS;
use crate::stages::adaptive::{AdaptiveBvh, AdaptiveParams, Backend, MAX_START_DEPTH};

/// The left panel.
pub fn panel_ui(st: &mut AdaptiveMode, shell: &mut Shell, ui: &mut egui::Ui) {
    let gpu_ok = shell.gpu_ok();
    ui.heading("Adaptive field (octree)");
    parameters_ui(st, gpu_ok, ui);
    if let Some(label) = st.job_label() {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(label);
        });
    }
    summary_ui(st, ui);
    ui.separator();
    view_ui(st, shell, ui);
    ui.separator();
    egui::CollapsingHeader::new("Cells").show(ui, |ui| cells_ui(shell, ui));
    ui.separator();
    deform_ui(st, ui);
    ui.separator();
    pick_ui(st, ui);
}

fn parameters_ui(st: &mut AdaptiveMode, gpu_ok: bool, ui: &mut egui::Ui) {
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

fn summary_ui(st: &AdaptiveMode, ui: &mut egui::Ui) {
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
                ui.label(ms_label(Some(ph.wall_ms)));
                ui.label(ms_label(ph.gpu_ms));
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

fn view_ui(st: &mut AdaptiveMode, shell: &Shell, ui: &mut egui::Ui) {
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
        let res = shell.mesh.field.as_ref().map_or(0, |f| f.params.resolution);
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

fn deform_ui(st: &mut AdaptiveMode, ui: &mut egui::Ui) {
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

fn pick_ui(st: &mut AdaptiveMode, ui: &mut egui::Ui) {
    let Some(probe) = &st.pick else {
        ui.label("Click a node centre in the view to inspect it.");
        return;
    };
    let mut clear = false;
    value_grid(ui, "adaptive_pick", |row| {
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

/// The adaptive scene's caption over the viewport: what the points are,
/// the side-by-side numbers, the deforming frame's rebuild time.
pub fn caption_ui(ui: &mut egui::Ui, st: &AdaptiveMode, shell: &Shell) {
    let Some(p) = &st.product else {
        return;
    };
    let f = &p.field;
    let mut lines = vec![format!(
        "adaptive field: {} node centres, depth {}..{}, α = {}, {} {:.1} ms",
        f.octree.nodes.len(),
        f.params.start_depth,
        f.params.max_depth,
        f.params.alpha,
        p.backend.name(),
        f.timings.total_wall_ms()
    )];
    if let (true, Some((_, _, c)), Some(u)) = (st.compare, &st.comparison, &shell.mesh.field) {
        lines.push(format!(
            "left: uniform {}³ cells · right: adaptive node centres\nmax |adaptive − trilinear(uniform)| {:.2e}, mean {:.2e} at {} centres (cell diagonal {:.2e}), {} sign disagreements",
            u.params.resolution,
            c.max_abs,
            c.mean_abs,
            c.compared,
            c.cell_diagonal,
            c.sign_disagreements
        ));
    }
    if let Some(frame) = p.frame {
        lines.push(format!(
            "deforming: frame {}, offset {:+.4}, rebuilt in {:.1} ms",
            st.deform.frames, frame.offset, p.job_ms
        ));
    }
    // Wrapped left of the colour bar.
    let rect = ui.max_rect();
    let galley = ui.painter().layout(
        lines.join("\n"),
        egui::FontId::proportional(13.0),
        egui::Color32::from_gray(230),
        (rect.width() - crate::app::shell::legend::BAR_COLUMN - 16.0).max(120.0),
    );
    ui.painter().galley(
        rect.left_top() + egui::vec2(8.0, 8.0),
        galley,
        egui::Color32::from_gray(230),
    );
}
