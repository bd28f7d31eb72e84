//! The banner of errors and notices under the mode switch. Each message
//! belongs to the mode that was shown when it came, and a message about
//! the open mesh (its report's problems, the sign chosen for it) to that
//! mesh too: the banner shows a message only in its mode, and a mesh's
//! message only while that mesh is open and the mode shows it. Mesh
//! messages start with the mesh's name. Notices fade after
//! [`NOTICE_SECONDS`]; errors stay until dismissed.

use std::time::Instant;

use eframe::egui;

use super::Shell;

/// How long a notice (not an error) stays in the banner.
pub const NOTICE_SECONDS: u64 = 30;

/// A message in the banner.
pub struct Message {
    pub text: String,
    pub is_error: bool,
    pub at: Instant,
    /// The mode shown when it came ([`crate::app::modes::Mode::name`]).
    pub mode: &'static str,
    /// The mesh it is about (its label), if it is about the open mesh.
    pub mesh: Option<String>,
}

/// What the window shows now, to choose the messages that belong to it.
#[derive(Clone, Copy, Debug)]
pub struct Showing<'a> {
    pub mode: &'static str,
    /// The open mesh's label.
    pub mesh: Option<&'a str>,
    /// Whether the mode shows the open mesh.
    pub mode_shows_mesh: bool,
}

/// Whether `m` belongs in the banner of what is `showing`.
pub fn belongs(m: &Message, showing: Showing<'_>) -> bool {
    let fresh = m.is_error || m.at.elapsed().as_secs() < NOTICE_SECONDS;
    let about = match &m.mesh {
        Some(mesh) => showing.mode_shows_mesh && showing.mesh == Some(mesh.as_str()),
        None => m.mode == showing.mode,
    };
    fresh && about
}

/// The banner: the newest three messages that belong to what is shown;
/// each can be dismissed.
pub fn banner_ui(shell: &mut Shell, ui: &mut egui::Ui) {
    let mesh = shell.mesh.scene.as_ref().map(|s| s.source.label());
    let showing = Showing {
        mode: shell.active_mode,
        mesh: mesh.as_deref(),
        mode_shows_mesh: shell.mode_shows_mesh,
    };
    let recent: Vec<usize> = (0..shell.messages.len())
        .rev()
        .filter(|&i| belongs(&shell.messages[i], showing))
        .take(3)
        .collect();
    if recent.is_empty() {
        return;
    }
    let mut dismiss = None;
    egui::Panel::top("banner").show(ui, |ui| {
        for i in recent {
            let m = &shell.messages[i];
            ui.horizontal_wrapped(|ui| {
                let (icon, color) = if m.is_error {
                    ("error:", egui::Color32::from_rgb(230, 80, 80))
                } else {
                    ("note:", egui::Color32::from_rgb(210, 180, 60))
                };
                ui.colored_label(color, format!("{icon} {}", m.text));
                if ui.small_button("dismiss").clicked() {
                    dismiss = Some(i);
                }
            });
        }
    });
    if let Some(i) = dismiss {
        shell.messages.remove(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(mode: &'static str, mesh: Option<&str>, is_error: bool) -> Message {
        Message {
            text: "open (296 boundary edges)".into(),
            is_error,
            at: Instant::now(),
            mode,
            mesh: mesh.map(String::from),
        }
    }

    #[test]
    fn a_mesh_message_leaves_with_its_mesh_and_its_mode() {
        let beetle = message("field", Some("beetle"), false);
        let field = |mesh| Showing {
            mode: "field",
            mesh,
            mode_shows_mesh: true,
        };
        assert!(belongs(&beetle, field(Some("beetle"))));
        assert!(!belongs(&beetle, field(Some("homer"))), "another mesh");
        let radial = Showing {
            mode: "radial",
            mesh: Some("beetle"),
            mode_shows_mesh: false,
        };
        assert!(!belongs(&beetle, radial), "a mode without the mesh");
        let adaptive = Showing {
            mode: "adaptive",
            ..field(Some("beetle"))
        };
        assert!(belongs(&beetle, adaptive), "another mode with the mesh");
    }

    #[test]
    fn a_mode_message_stays_in_its_mode_and_notices_fade() {
        let error = message("pipeline", None, true);
        let shown = |mode| Showing {
            mode,
            mesh: None,
            mode_shows_mesh: false,
        };
        assert!(belongs(&error, shown("pipeline")));
        assert!(!belongs(&error, shown("field")));
        let mut old = message("pipeline", None, false);
        old.at = Instant::now() - std::time::Duration::from_secs(NOTICE_SECONDS + 1);
        assert!(!belongs(&old, shown("pipeline")));
    }
}
