//! The colour bar drawn over the viewport: the active colour map from −range
//! (inside) to +range (outside), in mesh units; and the adaptive scene's
//! caption.

use eframe::egui;

use super::viewer::Viewer;

pub fn color_bar_ui(ui: &mut egui::Ui, viewer: &Viewer) {
    let view = &viewer.settings.view;
    // The collide view draws samples and contacts, not the field; its
    // legend is in its panel.
    let has_values = if viewer.adaptive.is_active() {
        viewer.adaptive.product.is_some()
    } else {
        viewer.field.is_some()
    };
    if !view.show_cells
        || !has_values
        || viewer.collide.is_active()
        || viewer.tri_tri.is_active()
        || viewer.interference.is_active()
    {
        return;
    }
    let (title, lo, hi, signed) = match &viewer.comparison {
        Some(c)
            if viewer.show_comparison
                && !viewer.adaptive.is_active()
                && c.kind == crate::app::panels::CompareKind::CpuVsGpu =>
        {
            (
                "|Δ| (mesh units)",
                0.0,
                c.max_abs.max(f32::MIN_POSITIVE),
                false,
            )
        }
        _ => (
            "signed distance (mesh units)",
            -view.value_range,
            view.value_range,
            true,
        ),
    };
    let rect = ui.max_rect();
    let bar = egui::Rect::from_min_size(
        egui::pos2(rect.right() - 70.0, rect.top() + 40.0),
        egui::vec2(18.0, (rect.height() - 120.0).clamp(80.0, 360.0)),
    );
    let painter = ui.painter();
    painter.rect_filled(
        bar.expand2(egui::vec2(58.0, 30.0))
            .translate(egui::vec2(-20.0, 4.0)),
        4.0,
        egui::Color32::from_black_alpha(150),
    );
    let steps = 64;
    for i in 0..steps {
        let t0 = i as f32 / steps as f32;
        let t1 = (i + 1) as f32 / steps as f32;
        let value = hi - (t0 + 0.5 / steps as f32) * (hi - lo);
        let [r, g, b, _] = view
            .color_map
            .color(value, if signed { view.value_range } else { hi });
        let r0 = egui::Rect::from_min_max(
            egui::pos2(bar.left(), bar.top() + t0 * bar.height()),
            egui::pos2(bar.right(), bar.top() + t1 * bar.height()),
        );
        painter.rect_filled(r0, 0.0, egui::Color32::from_rgb(r, g, b));
    }
    painter.rect_stroke(
        bar,
        0.0,
        egui::Stroke::new(1.0, egui::Color32::WHITE),
        egui::StrokeKind::Outside,
    );
    let font = egui::FontId::proportional(12.0);
    let label = |y: f32, text: String| {
        painter.text(
            egui::pos2(bar.left() - 6.0, y),
            egui::Align2::RIGHT_CENTER,
            text,
            font.clone(),
            egui::Color32::WHITE,
        );
    };
    label(bar.top(), format!("{hi:+.3}"));
    label(
        bar.center().y,
        if signed {
            "0 (surface)".into()
        } else {
            format!("{:.3}", 0.5 * (lo + hi))
        },
    );
    label(
        bar.bottom(),
        if signed {
            format!("{lo:+.3}")
        } else {
            "0".into()
        },
    );
    painter.text(
        egui::pos2(bar.right() + 2.0, bar.top() - 14.0),
        egui::Align2::RIGHT_BOTTOM,
        title,
        font.clone(),
        egui::Color32::WHITE,
    );
    if signed {
        painter.text(
            egui::pos2(bar.right() + 2.0, bar.bottom() + 14.0),
            egui::Align2::RIGHT_TOP,
            "outside + / inside −",
            font,
            egui::Color32::WHITE,
        );
    }
}

/// The adaptive scene's caption over the viewport: what the points are,
/// the side-by-side numbers, the deforming frame's rebuild time.
pub fn adaptive_caption_ui(ui: &mut egui::Ui, viewer: &Viewer) {
    let st = &viewer.adaptive;
    let (true, Some(p)) = (st.is_active(), &st.product) else {
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
    if let (true, Some((_, _, c)), Some(u)) = (st.compare, &st.comparison, &viewer.field) {
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
        (rect.width() - 140.0).max(120.0),
    );
    ui.painter().galley(
        rect.left_top() + egui::vec2(8.0, 8.0),
        galley,
        egui::Color32::from_gray(230),
    );
}
