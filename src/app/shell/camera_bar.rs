//! The camera's buttons over the viewport's bottom right corner, above the
//! mouse hints: views
//! along ±X, ±Y, ±Z and "copy camera" (its JSON to the clipboard; Ctrl+V
//! pastes one back, see [`super::keys`]).

use eframe::egui;

use super::Shell;
use crate::view::AxisView;

/// Draws the buttons in the bottom right corner of `rect` (the viewport).
pub fn camera_bar_ui(shell: &mut Shell, ui: &mut egui::Ui, rect: egui::Rect) {
    let bar = egui::Rect::from_min_max(
        egui::pos2(rect.right() - 420.0, rect.bottom() - 58.0),
        rect.right_bottom() - egui::vec2(8.0, 30.0),
    );
    ui.scope_builder(
        egui::UiBuilder::new()
            .max_rect(bar)
            .layout(egui::Layout::right_to_left(egui::Align::Center)),
        |ui| {
            if ui
                .small_button("copy camera")
                .on_hover_text("the camera as JSON to the clipboard; Ctrl+V pastes a camera back")
                .clicked()
            {
                copy_camera(shell, ui.ctx());
            }
            for (key, side) in AxisView::ALL.into_iter().enumerate().rev() {
                if ui
                    .small_button(side.name().to_uppercase())
                    .on_hover_text(format!("view from {} (key {})", side.name(), key + 1))
                    .clicked()
                {
                    shell.viewport.view_from(side);
                }
            }
            ui.label("view from");
        },
    );
}

/// Puts the camera's JSON on the clipboard.
pub fn copy_camera(shell: &mut Shell, ctx: &egui::Context) {
    ctx.copy_text(shell.viewport.camera.to_json());
    shell.notify("camera copied as JSON (Ctrl+V pastes it)", false);
}
