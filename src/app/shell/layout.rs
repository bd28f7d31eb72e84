//! Where the window drew what, frame by frame: the panels around the 3D
//! view, the view itself, the key column beside it and each key (legend)
//! in it. The viewer records the rectangles as it lays the frame out; the
//! `layout:PATH` script step writes the last frame's as JSON, so a test
//! can check from outside that no panel covers another and that the view
//! shows its keys.
//!
//! Panels (`kind` "panel") tile the window: none may overlap another
//! beyond a shared edge. Keys (`kind` "key") lie inside the key column,
//! which is itself a panel, so no key covers the 3D view or a panel.

use eframe::egui;

/// One rectangle drawn this frame, in points.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub name: String,
    /// "panel" or "key".
    pub kind: &'static str,
    pub rect: egui::Rect,
}

/// The rectangles of one frame.
#[derive(Clone, Debug)]
pub struct LayoutReport {
    pub window: egui::Rect,
    pub placed: Vec<Placed>,
    /// What the frame showed: the active mode and the open mesh.
    pub mode: String,
    pub mesh: String,
    /// The view's caption, where the mode reports it (the field mode).
    pub caption: String,
}

impl Default for LayoutReport {
    fn default() -> Self {
        LayoutReport {
            window: egui::Rect::NOTHING,
            placed: Vec::new(),
            mode: String::new(),
            mesh: String::new(),
            caption: String::new(),
        }
    }
}

/// How far two edges may run into each other and still count as shared
/// (panel separators are drawn on the edge).
const EDGE: f32 = 1.5;

impl LayoutReport {
    /// Starts a frame of `window`.
    pub fn begin(&mut self, window: egui::Rect) {
        self.window = window;
        self.placed.clear();
        self.caption.clear();
    }

    pub fn panel(&mut self, name: impl Into<String>, rect: egui::Rect) {
        self.placed.push(Placed {
            name: name.into(),
            kind: "panel",
            rect,
        });
    }

    pub fn key(&mut self, name: impl Into<String>, rect: egui::Rect) {
        self.placed.push(Placed {
            name: name.into(),
            kind: "key",
            rect,
        });
    }

    /// Pairs of rectangles of the same kind that overlap by more than a
    /// shared edge, and keys outside every panel named "keys".
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, a) in self.placed.iter().enumerate() {
            for b in &self.placed[i + 1..] {
                if a.kind == b.kind && a.rect.shrink(EDGE).intersects(b.rect.shrink(EDGE)) {
                    out.push(format!(
                        "{} {} overlaps {} {}",
                        a.kind, a.name, b.kind, b.name
                    ));
                }
            }
            if !self.window.expand(EDGE).contains_rect(a.rect) {
                out.push(format!("{} {} leaves the window", a.kind, a.name));
            }
        }
        let column = self
            .placed
            .iter()
            .find(|p| p.kind == "panel" && p.name == "keys");
        for key in self.placed.iter().filter(|p| p.kind == "key") {
            if !column.is_some_and(|c| c.rect.expand(EDGE).contains_rect(key.rect)) {
                out.push(format!("key {} lies outside the key column", key.name));
            }
        }
        out
    }

    /// The report as JSON: the window, the mode, the mesh, the caption and every
    /// rectangle as `[left, top, right, bottom]`.
    pub fn to_json(&self) -> String {
        let rect = |r: egui::Rect| serde_json::json!([r.min.x, r.min.y, r.max.x, r.max.y]);
        serde_json::json!({
            "window": rect(self.window),
            "mode": self.mode,
            "mesh": self.mesh,
            "caption": self.caption,
            "placed": self.placed.iter().map(|p| serde_json::json!({
                "name": p.name,
                "kind": p.kind,
                "rect": rect(p.rect),
            })).collect::<Vec<_>>(),
            "problems": self.problems(),
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(x0: f32, y0: f32, x1: f32, y1: f32) -> egui::Rect {
        egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1))
    }

    #[test]
    fn panels_that_share_an_edge_pass_and_overlaps_are_named() {
        let mut l = LayoutReport::default();
        l.begin(r(0.0, 0.0, 1280.0, 720.0));
        l.panel("left", r(0.0, 40.0, 320.0, 420.0));
        l.panel("view", r(320.0, 40.0, 1080.0, 420.0));
        l.panel("keys", r(1080.0, 40.0, 1280.0, 420.0));
        l.panel("bottom", r(0.0, 420.0, 1280.0, 720.0));
        l.key("signed distance", r(1090.0, 50.0, 1270.0, 300.0));
        assert_eq!(l.problems(), Vec::<String>::new());
        l.key("depth", r(1000.0, 310.0, 1270.0, 400.0));
        let problems = l.problems();
        assert_eq!(problems, ["key depth lies outside the key column"]);
        l.panel("legend over the view", r(900.0, 100.0, 1000.0, 200.0));
        assert!(
            l.problems()
                .iter()
                .any(|p| p == "panel view overlaps panel legend over the view"),
            "{:?}",
            l.problems()
        );
        let json: serde_json::Value = serde_json::from_str(&l.to_json()).unwrap();
        assert_eq!(json["placed"][1]["name"], "view");
        assert_eq!(json["placed"][1]["rect"][2], 1080.0);
    }
}
