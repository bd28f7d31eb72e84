//! Table 1's alternatives (Friston & Steed 2019, §9) measured on the
//! mode's current frame: the posed mesh (CPU-skinned, uploaded) and the
//! cloth's and free particles' current positions as the query points.
//! Each technique — per-bone SDF 32³, spatial hash, BVH refit
//! ([`crate::sim::radial::table1`], the same code `bench radial` times) —
//! is built, updated once and queried once, in two submissions timed with
//! GPU timestamps where the adapter has them (else wall time, said so).
//! The table sets them beside the radial fields' own last frame (update:
//! skinning + rasterise; query: collision, which also responds) and
//! memory. Each technique is also a profiler run, so `export-timings`
//! carries the measurement.

use eframe::egui;
use glam::Vec3;

use super::{RadialMode, scene};
use crate::app::shell::Shell;
use crate::app::shell::profiler::ms_label;
use crate::gpu::GpuContext;
use crate::sim::radial::NO_CONTACT;
use crate::sim::radial::character::Character;
use crate::sim::radial::table1::{self, AltKernels, AltSetup, Measured, Technique};
use crate::sim::radial::techniques::{GpuMesh, Points, upload_points};
use crate::timing::{PhaseTiming, Timings};

/// Table 1's setup in the viewer: the bench's defaults, one grid size.
const SETUP: AltSetup<'static> = AltSetup {
    techniques: &[Technique::Sdf, Technique::Hash, Technique::Bvh],
    sdf_res: &[32],
    reach: 0.02,
    hash_cell: 0.05,
};

/// The radial fields' side of the table: their latest frame's GPU times
/// (update: skinning + rasterise; query: collision, from the latest frame
/// that stepped the scene, since a paused frame does not).
#[derive(Clone, Copy, Default)]
pub struct RadialSide {
    pub update_ms: Option<f64>,
    pub query_ms: Option<f64>,
    pub memory_bytes: u64,
    pub contacts: usize,
}

/// The GPU time of the phases `names` of `timings` when all have one;
/// `None` also when there is no such phase.
fn gpu_sum(timings: &Timings, names: &[&str]) -> Option<f64> {
    let picked: Vec<&PhaseTiming> = (timings.phases.iter())
        .filter(|p| names.contains(&p.name.as_str()))
        .collect();
    if picked.is_empty() {
        return None;
    }
    picked.iter().map(|p| p.gpu_ms).sum()
}

/// The section's state: the pipelines (made on the first measurement),
/// the last table, and a pending request.
#[derive(Default)]
pub struct Alternatives {
    kernels: Option<AltKernels>,
    rows: Vec<Measured>,
    /// The fields' side of the last table.
    radial: Option<RadialSide>,
    /// The fields' latest times, kept from frame to frame.
    latest: RadialSide,
    points: usize,
    /// Measure on the next computed frame (button or script step).
    pub requested: bool,
}

impl Alternatives {
    /// Keeps the fields' times of a computed frame: the update always,
    /// the query when the frame stepped the scene.
    pub fn note_frame(&mut self, timings: &Timings) {
        self.latest.update_ms = gpu_sum(timings, &["skinning", "rasterise"]);
        if timings.phases.iter().any(|p| p.name == "collision") {
            self.latest.query_ms = gpu_sum(timings, &["collision"]);
        }
    }

    /// Every technique once on `skinned` (`character` posed at `t`) with
    /// `points` as the queries; the table replaced and each technique
    /// recorded as a profiler run. On error the previous table is kept.
    pub fn measure(
        &mut self,
        shell: &mut Shell,
        (character, t): (&Character, f32),
        skinned: &[Vec3],
        points: &[Vec3],
        (memory_bytes, contacts): (u64, usize),
    ) -> Result<(), String> {
        if points.is_empty() {
            return Err("table 1: no cloth or particles to query (turn the scene on)".into());
        }
        let gpu: GpuContext = shell.render_gpu.clone();
        let err = |e: &dyn std::fmt::Display| format!("table 1: {e}");
        let kernels = self.kernels.get_or_insert_with(|| AltKernels::new(&gpu));
        let mesh = GpuMesh::upload(&gpu, skinned, &character.triangles).map_err(|e| err(&e))?;
        let buffer = upload_points(&gpu, points).map_err(|e| err(&e))?;
        let points_in = Points {
            buffer: &buffer,
            count: points.len() as u32,
        };
        let bound = table1::bind(&gpu, kernels, &SETUP, character, &mesh, points_in)
            .map_err(|e| err(&e))?;
        let skin = character.pose(t).skin_matrices;
        let rows = table1::measure_once(&gpu, &bound, &skin).map_err(|e| err(&e))?;
        for r in &rows {
            let mut timings = Timings::default();
            let time = |ms: f64| {
                if r.gpu_timed {
                    (0.0, Some(ms))
                } else {
                    (ms, None)
                }
            };
            for (phase, ms) in [("update", r.update_ms), ("query", r.query_ms)] {
                let (wall_ms, gpu_ms) = time(ms);
                timings.push(format!("{} {phase}", r.technique), wall_ms, gpu_ms);
            }
            let label = format!(
                "table 1: {} {}, {} of {} points in reach",
                r.technique,
                r.structure,
                r.contacts,
                points.len()
            );
            shell.history.record_run("radial", label, timings.phases);
        }
        self.rows = rows;
        self.radial = Some(RadialSide {
            memory_bytes,
            contacts,
            ..self.latest
        });
        self.points = points.len();
        Ok(())
    }
}

/// MB of `bytes`, three decimals.
fn mb(bytes: u64) -> String {
    format!("{:.3}", bytes as f64 / 1e6)
}

/// The collapsing section: the button and the last table.
pub(super) fn section_ui(alt: &mut Alternatives, ui: &mut egui::Ui) {
    egui::CollapsingHeader::new("table 1 alternatives (§9)")
        .default_open(true)
        .show(ui, |ui| {
            if ui
                .button("measure on this frame")
                .on_hover_text(
                    "per-bone SDF 32³, spatial hash and BVH refit, each built, updated and \
                     queried once on the posed mesh with the cloth and particles as points",
                )
                .clicked()
            {
                alt.requested = true;
            }
            let Some(radial) = &alt.radial else {
                ui.label("not measured yet");
                return;
            };
            let timed = if alt.rows.iter().all(|r| r.gpu_timed) {
                "GPU timestamps"
            } else {
                "wall time (no timestamps on this adapter)"
            };
            ui.label(format!(
                "{} points, contact distance {} cm; {timed}",
                alt.points,
                SETUP.reach * 100.0
            ));
            egui::Grid::new("radial table 1")
                .striped(true)
                .show(ui, |ui| {
                    for h in ["technique", "update ms", "query ms", "MB", "contacts"] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    ui.label("radial fields (last frame)");
                    ui.label(ms_label(radial.update_ms));
                    ui.label(ms_label(radial.query_ms));
                    ui.label(mb(radial.memory_bytes));
                    ui.label(radial.contacts.to_string());
                    ui.end_row();
                    for r in &alt.rows {
                        ui.label(format!("{} {}", r.technique, r.structure));
                        ui.label(ms_label(Some(r.update_ms)));
                        ui.label(ms_label(Some(r.query_ms)));
                        ui.label(mb(r.memory_bytes));
                        ui.label(r.contacts.to_string());
                        ui.end_row();
                    }
                });
            ui.small(
                "radial: skinning + rasterise, collision with response (latest frame that \
                 stepped the scene; GPU, – on cpu); alternatives: one run each, no warm-up, \
                 structure rebuild or refit from the skinned mesh, then detection only",
            );
        });
}

impl RadialMode {
    /// Measures table 1's alternatives on this frame's `skinned` mesh and
    /// the scene's current positions; errors become the mode's notice,
    /// the scene untouched.
    pub(super) fn measure_alternatives(&mut self, shell: &mut Shell, skinned: &[Vec3]) {
        let Some(c) = &self.character else { return };
        let scene = self.scene.as_ref().filter(|_| self.show_scene);
        let all = |s: &'_ scene::LiveScene| {
            let (cloth, free) = (&s.cloth.particles, &s.particles);
            (cloth.pos.clone().into_iter().chain(free.pos.clone()))
                .zip(cloth.contacts.iter().chain(&free.contacts))
                .map(|(p, &contact)| (p.truncate(), contact))
                .collect::<Vec<_>>()
        };
        let state = scene.map(all).unwrap_or_default();
        let points: Vec<Vec3> = state.iter().map(|&(p, _)| p).collect();
        let contacts = state.iter().filter(|&&(_, c)| c != NO_CONTACT).count();
        let fields = c.fields.len();
        let memory = (self.params.cells_per_field() * fields * 4 + fields * 64 * 2) as u64;
        let fields_side = (memory, contacts);
        match (self.alternatives).measure(shell, (c, self.time), skinned, &points, fields_side) {
            Ok(()) => shell.notify("table 1 alternatives measured on this frame", false),
            Err(e) => shell.notify(e, true),
        }
    }
}
