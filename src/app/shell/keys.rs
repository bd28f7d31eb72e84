//! The viewer's keyboard shortcuts, read once a frame while no text field
//! has the keyboard; the Help menu lists them ([`SHORTCUTS`]).
//!
//! Ctrl+C and Ctrl+V outside a text field copy the camera as JSON and
//! apply a pasted one (text that is not a camera is ignored), so a view can
//! be carried between sessions or into `render --camera`.

use eframe::egui::{self, Key, Modifiers};

use crate::view::{AxisView, Camera};

/// What a shortcut asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyAction {
    /// F: fit the scene into the view, from the same direction.
    Frame,
    /// R: the default camera.
    Reset,
    /// 1–6: a view along an axis.
    View(AxisView),
    /// Ctrl+S: a window screenshot.
    Screenshot,
    /// Space: pause or play the active mode.
    Pause,
    /// Ctrl+O: open a file (a mesh, a field, a scene, a character).
    Open,
    /// Ctrl+C: the camera to the clipboard.
    CopyCamera,
    /// Ctrl+V with a camera's JSON.
    PasteCamera(Camera),
}

/// (keys, action) for the Help menu.
pub const SHORTCUTS: [(&str, &str); 9] = [
    ("F", "frame the scene"),
    ("R", "reset the camera"),
    ("1 – 6", "view from +X, −X, +Y, −Y, +Z, −Z"),
    ("Ctrl+S", "window screenshot (PNG in the working folder)"),
    ("Space", "pause / play (collide mode)"),
    ("Ctrl+O", "open a file"),
    ("Ctrl+C", "copy the camera (JSON)"),
    ("Ctrl+V", "paste a camera (JSON)"),
    ("double-click", "frame the scene"),
];

const AXIS_KEYS: [Key; 6] = [
    Key::Num1,
    Key::Num2,
    Key::Num3,
    Key::Num4,
    Key::Num5,
    Key::Num6,
];

/// The shortcuts pressed this frame (none while a text field has focus).
pub fn pressed(ctx: &egui::Context) -> Vec<KeyAction> {
    if ctx.egui_wants_keyboard_input() {
        return Vec::new();
    }
    ctx.input_mut(|i| {
        let mut actions = Vec::new();
        for (key, action) in [(Key::S, KeyAction::Screenshot), (Key::O, KeyAction::Open)] {
            if i.consume_key(Modifiers::COMMAND, key) {
                actions.push(action);
            }
        }
        for (key, action) in [
            (Key::F, KeyAction::Frame),
            (Key::R, KeyAction::Reset),
            (Key::Space, KeyAction::Pause),
        ] {
            if i.consume_key(Modifiers::NONE, key) {
                actions.push(action);
            }
        }
        for (key, side) in AXIS_KEYS.into_iter().zip(AxisView::ALL) {
            if i.consume_key(Modifiers::NONE, key) {
                actions.push(KeyAction::View(side));
            }
        }
        for event in &i.events {
            match event {
                egui::Event::Copy => actions.push(KeyAction::CopyCamera),
                egui::Event::Paste(text) => {
                    if let Ok(camera) = Camera::from_json(text) {
                        actions.push(KeyAction::PasteCamera(camera));
                    }
                }
                _ => {}
            }
        }
        actions
    })
}
