//! The adaptive field mode: the octree of [`crate::stages::adaptive`]
//! on the current mesh, shown as the paper shows it (Liu & Kim 2014,
//! figures 4 and 13) and taken apart for inspection.
//!
//! * [`draw`]: node centres as point sprites coloured by signed distance
//!   (the viewer's colour maps and cell filters apply unchanged), octree
//!   cells as line boxes with one colour per depth, and the uniform field
//!   beside the adaptive one, split by a plane through the mesh's centre.
//! * [`stats`]: the per-depth table (nodes, leaves, split nodes, the slack
//!   of the parent's upper bound), declared as a list of columns.
//! * [`probe`]: one node taken apart: its value, its closest triangle, and
//!   the §5.1 upper bound its query started from — the exact distance from
//!   its centre to the parent's closest triangle — against the true
//!   distance; and the adaptive field against the uniform grid's trilinear
//!   interpolation at every node centre inside the grid.
//! * `state`: the scene's parameters and its background jobs: one
//!   debounced rebuild per parameter change, or one per frame while the
//!   mesh inflates and deflates ([`crate::scene::InflatingMesh`]).
//! * `panel`: the controls, and the caption over the viewport.
//! * `steps`: the `adaptive…` script steps.
//!
//! The uniform field it is compared with is the shell's, computed for the
//! open mesh whichever mode is shown.

pub mod draw;
mod panel;
pub mod probe;
mod state;
pub mod stats;
mod steps;

pub use state::AdaptiveMode;
pub use steps::AdaptiveStep;

use eframe::egui;
use std::path::PathBuf;

use super::{Mode, Panels, StepTable, Steps};
use crate::app::shell::Shell;
use crate::app::shell::legend::{ColorBar, ViewKey, color_bar_ui};
use crate::io::Format;

impl Mode for AdaptiveMode {
    fn shows_open_mesh(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "adaptive"
    }

    fn title(&self) -> &'static str {
        "Adaptive field"
    }

    fn panels(&self) -> Panels {
        Panels {
            inspector: false,
            slice: false,
            profiler: true,
        }
    }

    fn activate(&mut self, _shell: &mut Shell) {
        self.redraw = true;
        self.mesh_shown = None;
        if self.product.is_none() {
            self.request();
        }
    }

    fn deactivate(&mut self, _shell: &mut Shell) {
        self.cell_nodes.clear();
    }

    fn update(&mut self, shell: &mut Shell) {
        self.run_frame(shell);
    }

    fn busy(&self) -> bool {
        self.script_busy()
    }

    fn side_panel_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        panel::panel_ui(self, shell, ui);
    }

    fn viewport_ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui, picked: Option<Option<usize>>) {
        if let Some(cell) = picked {
            let node = cell.and_then(|c| self.node_of_cell(c));
            self.set_pick(node);
        }
        if let Some(p) = &self.product {
            let bar = ColorBar::signed_distance(&shell.settings.view);
            let mut more = Vec::new();
            if self.show_boxes {
                let built = p.field.params.start_depth..=p.field.params.max_depth;
                let entries: Vec<(String, [u8; 4])> = built
                    .filter(|d| self.level.is_none_or(|l| l == *d))
                    .map(|d| {
                        let [r, g, b] = draw::level_color_srgb(d);
                        (format!("depth {d}"), [r, g, b, 255])
                    })
                    .collect();
                if !entries.is_empty() {
                    more.push(ViewKey::classes("node boxes by depth", entries));
                }
            }
            color_bar_ui(ui, shell, bar, more);
        }
        panel::caption_ui(ui, self, shell);
    }
}

impl Steps for AdaptiveMode {
    type Step = steps::AdaptiveStep;
    const TABLE: StepTable<Self, steps::AdaptiveStep> =
        StepTable::new(steps::STEPS, steps::parse, steps::apply);

    fn outputs(verb: &str, arg: &str) -> Vec<(PathBuf, Format)> {
        match steps::parse(verb, arg) {
            Some(Ok(steps::AdaptiveStep::Export(path))) => {
                let sidecar = crate::stages::adaptive::export::sidecar_path(&path);
                vec![(path, Format::NPZ), (sidecar, Format::JSON)]
            }
            _ => Vec::new(),
        }
    }
}
