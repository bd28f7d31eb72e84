//! Triangle–triangle panel: two models, model A fixed at the origin and
//! model B posed by sliders, queried with the exact triangle–triangle stage
//! ([`crate::stages::tri_tri`]) on any backend every time something changes.
//!
//! While "show in viewport" is on, the panel owns the viewport's mesh and
//! lines: both models in one merged mesh, coloured per triangle (A blue-grey,
//! B sand; triangles of colliding pairs red on A and orange on B), and the
//! intersection segments as bright green lines (drawn as a thin bundle of
//! parallel lines so they show through the surfaces they lie on). Turning it
//! off gives the viewport back to the field.
//!
//! Small queries (up to [`DIRECT_PAIRS`] triangle pairs, e.g. the tori) run
//! on the UI thread as soon as a slider moves; larger ones (rocker arms, a
//! loaded mesh) and model loading run as a [`Job`], so the UI stays live.

use std::sync::Arc;

use eframe::egui;
use glam::{EulerRot, Quat, Vec3};

use crate::app::viewer::Viewer;
use crate::mesh::{Mesh, torus};
use crate::scene::Job;
use crate::stages::tri_tri::{
    self, Backend, Pose, TriModel, TriTriGpu, TriTriParams, TriTriResult,
};
use crate::view::LineVertex;

/// Triangle pairs up to which a query runs on the UI thread.
pub const DIRECT_PAIRS: usize = 2_000_000;
/// `cpu-ref` tests every pair; "time all backends" skips it above this.
const CPU_REF_BUDGET: usize = 50_000_000;

const COLOR_A: [f32; 4] = [0.42, 0.50, 0.62, 1.0];
const COLOR_B: [f32; 4] = [0.66, 0.60, 0.48, 1.0];
const COLOR_HIT_A: [f32; 4] = [0.95, 0.12, 0.10, 1.0];
const COLOR_HIT_B: [f32; 4] = [1.0, 0.55, 0.0, 1.0];
const COLOR_SEGMENT: [f32; 4] = [0.15, 1.0, 0.25, 1.0];

/// Where a model comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// A 400-triangle torus (ring radius 1, tube radius 0.25, around y).
    Torus,
    Sample(String),
    /// The mesh the viewer has open.
    Current,
}

impl ModelSource {
    fn label(&self) -> String {
        match self {
            ModelSource::Torus => "torus (400 triangles)".into(),
            ModelSource::Sample(s) => s.clone(),
            ModelSource::Current => "current mesh".into(),
        }
    }
}

/// Ready-made scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriScene {
    /// Two tori linked like chain links: bounding boxes overlap heavily but
    /// the surfaces stay apart until B is pushed in (the worst case).
    InterlacedTori,
    TwoRockerArms,
}

impl TriScene {
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "tori" => Some(TriScene::InterlacedTori),
            "rocker" => Some(TriScene::TwoRockerArms),
            _ => None,
        }
    }
}

/// Model B's pose as the sliders show it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PoseSliders {
    translation: [f32; 3],
    /// Yaw (about y), pitch (about x), roll (about z), degrees.
    angles: [f32; 3],
}

impl PoseSliders {
    fn pose(&self) -> Pose {
        let [yaw, pitch, roll] = self.angles.map(f32::to_radians);
        Pose::new(
            Vec3::from(self.translation),
            Quat::from_euler(EulerRot::YXZ, yaw, pitch, roll),
        )
    }
}

/// One query's time, for the per-backend table.
#[derive(Clone, Debug)]
struct BackendTime {
    backend: Backend,
    all_pairs: bool,
    wall_ms: f64,
    gpu_ms: Option<f64>,
    collides: bool,
    pairs: Option<usize>,
}

type Models = (Arc<TriModel>, Arc<TriModel>);

/// What a query job gives back.
struct Outcome {
    models: Models,
    key: (ModelSource, ModelSource),
    result: Option<TriTriResult>,
    /// "time all backends": one row per backend.
    times: Vec<BackendTime>,
}

/// The panel's state (one field of the viewer).
#[derive(Default)]
pub struct TriTriState {
    active: bool,
    /// Open the collapsing header on the next frame (script steps).
    open_header: bool,
    source_a: Option<ModelSource>,
    source_b: Option<ModelSource>,
    pose_b: Option<PoseSliders>,
    backend: Option<Backend>,
    all_pairs: Option<bool>,
    models: Option<(ModelSource, ModelSource, Models)>,
    gpu: Option<Arc<TriTriGpu>>,
    job: Option<Job<Outcome>>,
    /// Inputs changed since the last query.
    dirty: bool,
    /// The panel owns the viewport (it was active last frame).
    shown: bool,
    /// The models the camera was last framed on.
    framed: Option<(ModelSource, ModelSource)>,
    /// The drawing must be uploaded again (new result, or the viewer's own
    /// jobs replaced the viewport's contents meanwhile).
    redraw: bool,
    result: Option<TriTriResult>,
    /// B's pose of `result`.
    result_pose: Pose,
    times: Vec<BackendTime>,
    error: Option<String>,
}

impl TriTriState {
    /// Whether the panel owns the viewport.
    pub fn is_active(&self) -> bool {
        self.active
    }

    fn source_a(&self) -> ModelSource {
        self.source_a.clone().unwrap_or(ModelSource::Torus)
    }
    fn source_b(&self) -> ModelSource {
        self.source_b.clone().unwrap_or(ModelSource::Torus)
    }
    fn sliders(&self) -> PoseSliders {
        self.pose_b.unwrap_or(PoseSliders {
            translation: [0.7, 0.0, 0.0],
            angles: [0.0, 90.0, 0.0],
        })
    }
    fn backend(&self) -> Backend {
        self.backend.unwrap_or(Backend::Cpu)
    }
    fn params(&self) -> TriTriParams {
        TriTriParams {
            all_pairs: self.all_pairs.unwrap_or(true),
            ..Default::default()
        }
    }

    /// Shows the panel in the viewport with a ready scene (script `tritri:`).
    pub fn activate_scene(&mut self, scene: TriScene) {
        let (source, pose) = match scene {
            TriScene::InterlacedTori => (
                ModelSource::Torus,
                PoseSliders {
                    translation: [0.7, 0.0, 0.0],
                    angles: [0.0, 90.0, 0.0],
                },
            ),
            TriScene::TwoRockerArms => (
                ModelSource::Sample("rocker-arm".into()),
                PoseSliders {
                    translation: [0.1, 0.25, 0.2],
                    angles: [0.0, 90.0, 30.0],
                },
            ),
        };
        self.source_a = Some(source.clone());
        self.source_b = Some(source);
        self.pose_b = Some(pose);
        self.active = true;
        self.open_header = true;
        self.dirty = true;
    }

    /// Moves model B (script `tritri-offset:`).
    pub fn set_offset(&mut self, offset: Vec3) {
        let mut s = self.sliders();
        s.translation = offset.to_array();
        self.pose_b = Some(s);
        self.dirty = true;
    }

    /// Picks the backend by name (script `tritri-backend:`).
    pub fn set_backend(&mut self, name: &str) -> Result<(), String> {
        self.backend = Some(Backend::from_name(name).ok_or(format!(
            "unknown triangle–triangle backend {name} (cpu-ref, cpu, gpu-brute, gpu)"
        ))?);
        self.dirty = true;
        Ok(())
    }

    /// Stops showing (another panel takes the viewport over).
    pub fn deactivate(&mut self) {
        self.active = false;
    }

    /// The panel's drawing is in the viewport (until it gives it back).
    pub fn owns_viewport(&self) -> bool {
        self.shown
    }

    /// True while a query job runs.
    pub fn busy(&self) -> bool {
        self.job.is_some() || (self.active && self.dirty)
    }
}

/// The collapsible section in the left panel; also runs queries and draws.
pub fn tri_tri_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    let open = std::mem::take(&mut viewer.tri_tri.open_header);
    super::stage_section(ui, open, "Triangle–triangle", "tri_tri_panel", |ui| {
        controls_ui(viewer, ui)
    });
    update(viewer, ui.ctx());
}

fn controls_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    let gpu_ok = viewer.sdf_gpu.is_some();
    let has_current = viewer.scene.is_some();
    let st = &mut viewer.tri_tri;
    ui.checkbox(&mut st.active, "show in viewport");
    ui.horizontal(|ui| {
        if ui.button("interlaced tori").clicked() {
            st.activate_scene(TriScene::InterlacedTori);
        }
        if ui.button("two rocker arms").clicked() {
            st.activate_scene(TriScene::TwoRockerArms);
        }
    });
    let mut sources = vec![ModelSource::Torus];
    sources.extend(
        crate::assets::SAMPLES
            .iter()
            .map(|(n, _)| ModelSource::Sample(n.to_string())),
    );
    if has_current {
        sources.push(ModelSource::Current);
    }
    let mut models_changed = false;
    for (label, slot) in [
        ("model A (fixed)", &mut st.source_a),
        ("model B (posed)", &mut st.source_b),
    ] {
        let mut current = slot.clone().unwrap_or(ModelSource::Torus);
        egui::ComboBox::from_label(label)
            .selected_text(current.label())
            .show_ui(ui, |ui| {
                for s in &sources {
                    ui.selectable_value(&mut current, s.clone(), s.label());
                }
            });
        if slot.as_ref() != Some(&current) {
            *slot = Some(current);
            models_changed = true;
        }
    }
    st.dirty |= models_changed;
    let reach = st
        .models
        .as_ref()
        .map_or(2.0, |(_, _, (a, b))| {
            let r = |m: &TriModel| {
                let bb = m.mesh.bounds();
                bb.min.abs().max(bb.max.abs()).length()
            };
            r(a) + r(b)
        })
        .max(0.1);
    let mut s = st.sliders();
    for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
        ui.add(
            egui::Slider::new(&mut s.translation[i], -reach..=reach)
                .text(format!("B translation {axis}")),
        );
    }
    for (i, name) in ["yaw", "pitch", "roll"].into_iter().enumerate() {
        ui.add(egui::Slider::new(&mut s.angles[i], -180.0..=180.0).text(format!("B {name} °")));
    }
    if s != st.sliders() {
        st.pose_b = Some(s);
        st.dirty = true;
    }
    let mut backend = st.backend();
    ui.horizontal(|ui| {
        ui.label("backend");
        for b in Backend::ALL {
            ui.add_enabled_ui(gpu_ok || !b.is_gpu(), |ui| {
                ui.selectable_value(&mut backend, b, b.name())
            });
        }
    });
    let mut all_pairs = st.params().all_pairs;
    ui.checkbox(&mut all_pairs, "all pairs (segments, highlighting)");
    if backend != st.backend() || all_pairs != st.params().all_pairs {
        st.backend = Some(backend);
        st.all_pairs = Some(all_pairs);
        st.dirty = true;
    }
    let time_all = ui
        .add_enabled(st.active, egui::Button::new("time all backends"))
        .clicked();
    if let Some(job) = &st.job {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(&job.label);
        });
    }
    if let Some(r) = &st.result {
        let (na, nb) = st.models.as_ref().map_or((0, 0), |(_, _, (a, b))| {
            (a.triangle_count(), b.triangle_count())
        });
        let verdict = if r.collides { "collide" } else { "apart" };
        let mut text = format!("{na} × {nb} triangles · {}: {verdict}", r.backend.name());
        if r.params.all_pairs {
            text += &format!(" · {} colliding pairs", r.contacts.len());
        }
        if let Some(n) = r.near_touching {
            text += &format!(" · {n} within rounding of touching");
        }
        let color = if r.collides {
            egui::Color32::from_rgb(240, 110, 80)
        } else {
            egui::Color32::from_rgb(120, 200, 120)
        };
        ui.colored_label(color, text);
    }
    if let Some(e) = &st.error {
        ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
    }
    times_table_ui(ui, &st.times);
    if time_all {
        start_job(viewer, ui.ctx(), true);
    }
}

fn times_table_ui(ui: &mut egui::Ui, times: &[BackendTime]) {
    if times.is_empty() {
        return;
    }
    egui::Grid::new("tri_tri_times")
        .striped(true)
        .show(ui, |ui| {
            for h in ["backend", "mode", "wall ms", "GPU ms", "answer"] {
                ui.strong(h);
            }
            ui.end_row();
            for t in times {
                ui.label(t.backend.name());
                ui.label(if t.all_pairs { "all pairs" } else { "yes/no" });
                ui.label(format!("{:.3}", t.wall_ms));
                ui.label(t.gpu_ms.map_or("-".into(), |g| format!("{g:.3}")));
                let answer = match (t.collides, t.pairs) {
                    (_, Some(n)) => format!("{n} pairs"),
                    (true, None) => "collide".into(),
                    (false, None) => "apart".into(),
                };
                ui.label(answer);
                ui.end_row();
            }
        });
}

/// Polls the job, starts queries when inputs changed, uploads the drawing;
/// gives the viewport back when the panel is turned off.
fn update(viewer: &mut Viewer, ctx: &egui::Context) {
    let st = &mut viewer.tri_tri;
    if let Some(result) = st.job.as_ref().and_then(Job::poll) {
        st.job = None;
        match result {
            Ok(outcome) => {
                let (ka, kb) = outcome.key;
                st.models = Some((ka, kb, outcome.models));
                if let Some(r) = outcome.result {
                    record(viewer, r);
                }
                if !outcome.times.is_empty() {
                    viewer.tri_tri.times = outcome.times;
                }
            }
            Err(e) => viewer.tri_tri.error = Some(e),
        }
    }
    let st = &mut viewer.tri_tri;
    if st.active && !st.shown {
        // Taking the viewport over (from the field, the rigid bodies or the
        // interference or the adaptive scene).
        viewer.collide.deactivate();
        viewer.interference.deactivate();
        viewer.adaptive.deactivate();
        st.shown = true;
        st.dirty = true;
        st.framed = None;
    } else if st.active
        && (viewer.collide.is_active()
            || viewer.interference.is_active()
            || viewer.adaptive.is_active())
    {
        // Another view was turned on: it owns the viewport now.
        st.active = false;
    }
    let st = &mut viewer.tri_tri;
    if !st.active {
        if st.shown {
            // Give the viewport back.
            st.shown = false;
            st.redraw = false;
            st.result = None;
            viewer.viewport.range_override = None;
            if !viewer.interference.is_active() && !viewer.adaptive.is_active() {
                viewer.refresh_cells();
                viewer.refresh_overlays();
            }
        }
        return;
    }
    if viewer.busy() {
        // The viewer's own jobs upload their products when they finish;
        // draw ours again afterwards.
        viewer.tri_tri.redraw = true;
    }
    let st = &mut viewer.tri_tri;
    if st.dirty && st.job.is_none() {
        st.dirty = false;
        start_job(viewer, ctx, false);
    }
    let st = &viewer.tri_tri;
    if st.redraw && !viewer.busy() {
        viewer.tri_tri.redraw = false;
        draw(viewer);
    }
}

/// A finished query: keep it, time it, draw it.
fn record(viewer: &mut Viewer, r: TriTriResult) {
    let st = &mut viewer.tri_tri;
    let row = BackendTime {
        backend: r.backend,
        all_pairs: r.params.all_pairs,
        wall_ms: r.timings.total_wall_ms(),
        gpu_ms: r.timings.total_gpu_ms(),
        collides: r.collides,
        pairs: r.params.all_pairs.then_some(r.contacts.len()),
    };
    st.times.retain(|t| t.backend != row.backend);
    st.times.push(row);
    st.times
        .sort_by_key(|t| Backend::ALL.iter().position(|&b| b == t.backend));
    viewer.history.record_run(
        format!("tri-tri {}", r.backend.name()),
        r.timings.phases.clone(),
    );
    st.result = Some(r);
    st.redraw = true;
    st.error = None;
}

fn load_model(source: &ModelSource, current: Option<&Mesh>) -> Result<TriModel, String> {
    let mesh = match source {
        ModelSource::Torus => torus(20, 10, 1.0, 0.25),
        ModelSource::Sample(name) => crate::assets::load_sample(name).map_err(|e| e.to_string())?,
        ModelSource::Current => current.ok_or("no mesh is open")?.clone(),
    };
    TriModel::new(&mesh).map_err(|e| e.to_string())
}

/// Runs the current query (or every backend with `time_all`): directly when
/// the models are ready and the query small, else as a job.
fn start_job(viewer: &mut Viewer, ctx: &egui::Context, time_all: bool) {
    let gpu_ok = viewer.sdf_gpu.is_some();
    let st = &mut viewer.tri_tri;
    let key = (st.source_a(), st.source_b());
    let mut backend = st.backend();
    if backend.is_gpu() && !gpu_ok {
        backend = Backend::Cpu;
        st.backend = Some(backend);
    }
    if (backend.is_gpu() || time_all) && gpu_ok && st.gpu.is_none() {
        st.gpu = Some(Arc::new(TriTriGpu::new(&viewer.render_gpu)));
    }
    let gpu = st.gpu.clone().filter(|_| gpu_ok);
    let cached = st
        .models
        .as_ref()
        .filter(|(a, b, _)| (a, b) == (&key.0, &key.1))
        .map(|(_, _, m)| m.clone());
    let current = viewer.scene.as_ref().map(|s| s.prepared.mesh.clone());
    let pose_b = st.sliders().pose();
    let params = st.params();
    st.result_pose = pose_b;
    let work = move |models: Option<Models>| -> Result<Outcome, String> {
        let models = match models {
            Some(m) => m,
            None => {
                let a = Arc::new(load_model(&key.0, current.as_ref())?);
                let b = if key.1 == key.0 {
                    a.clone()
                } else {
                    Arc::new(load_model(&key.1, current.as_ref())?)
                };
                (a, b)
            }
        };
        let (a, b) = (&*models.0, &*models.1);
        let run = |backend: Backend| {
            tri_tri::query(
                a,
                Pose::IDENTITY,
                b,
                pose_b,
                &params,
                backend,
                gpu.as_deref(),
            )
            .map_err(|e| format!("{}: {e}", backend.name()))
        };
        let mut times = Vec::new();
        let result = if time_all {
            let pairs = a.triangle_count() * b.triangle_count();
            let mut last = None;
            for b in Backend::ALL {
                if (b.is_gpu() && gpu.is_none())
                    || (b == Backend::CpuReference && pairs > CPU_REF_BUDGET)
                {
                    continue;
                }
                // One warm-up (uploads the models to the GPU), then timed.
                run(b)?;
                let r = run(b)?;
                times.push(BackendTime {
                    backend: b,
                    all_pairs: params.all_pairs,
                    wall_ms: r.timings.total_wall_ms(),
                    gpu_ms: r.timings.total_gpu_ms(),
                    collides: r.collides,
                    pairs: params.all_pairs.then_some(r.contacts.len()),
                });
                if b == backend {
                    last = Some(r);
                }
            }
            last
        } else {
            Some(run(backend)?)
        };
        Ok(Outcome {
            models,
            key: key.clone(),
            result,
            times,
        })
    };
    let small = cached
        .as_ref()
        .is_some_and(|(a, b)| a.triangle_count() * b.triangle_count() <= DIRECT_PAIRS);
    if small && !time_all {
        match work(cached) {
            Ok(outcome) => {
                if let Some(r) = outcome.result {
                    record(viewer, r);
                }
            }
            Err(e) => viewer.tri_tri.error = Some(e),
        }
        return;
    }
    if let Some(j) = viewer.tri_tri.job.take() {
        j.cancel();
    }
    let repaint = ctx.clone();
    let label = if time_all {
        "timing every backend".to_string()
    } else {
        format!("{} query", backend.name())
    };
    viewer.tri_tri.job = Some(Job::spawn(
        label,
        move || repaint.request_repaint(),
        move |_| work(cached),
    ));
}

/// Uploads both models (colliding triangles highlighted) and the segments.
fn draw(viewer: &mut Viewer) {
    let st = &mut viewer.tri_tri;
    let Some((ka, kb, (a, b))) = &st.models else {
        return;
    };
    let key = Some((ka.clone(), kb.clone()));
    let frame = st.framed != key;
    st.framed = key;
    let pose_b = st.result_pose;
    let mut hit_a = vec![false; a.triangle_count()];
    let mut hit_b = vec![false; b.triangle_count()];
    let contacts = st.result.as_ref().map_or(&[][..], |r| &r.contacts[..]);
    for c in contacts {
        hit_a[c.pair[0] as usize] = true;
        hit_b[c.pair[1] as usize] = true;
    }
    // One vertex per triangle corner, so each triangle has its own colour.
    let mut positions = Vec::with_capacity(3 * (hit_a.len() + hit_b.len()));
    let mut colors = Vec::with_capacity(positions.capacity());
    let mut triangles = Vec::with_capacity(hit_a.len() + hit_b.len());
    let mut add = |tris: &[crate::geom::Triangle], hits: &[bool], base: [f32; 4], hit: [f32; 4]| {
        for (t, h) in tris.iter().zip(hits) {
            let first = positions.len() as u32;
            positions.extend_from_slice(t);
            colors.extend([if *h { hit } else { base }; 3]);
            triangles.push([first, first + 1, first + 2]);
        }
    };
    add(
        &a.world_triangles(Pose::IDENTITY),
        &hit_a,
        COLOR_A,
        COLOR_HIT_A,
    );
    add(&b.world_triangles(pose_b), &hit_b, COLOR_B, COLOR_HIT_B);
    let mesh = Mesh::new("triangle–triangle scene", positions, triangles);
    let bounds = mesh.bounds();
    // Segments lie on both surfaces: a bundle of parallel copies, offset a
    // little off the segment, keeps them visible through the depth test.
    let eps = 0.004 * bounds.size().length();
    let mut lines = Vec::with_capacity(contacts.len() * 10);
    for c in contacts {
        let [p, q] = c.segment;
        let dir = (q - p).try_normalize().unwrap_or(Vec3::X);
        let u = dir.any_orthonormal_vector();
        let v = dir.cross(u);
        for off in [Vec3::ZERO, u, -u, v, -v] {
            lines.push(LineVertex::new(p + off * eps, COLOR_SEGMENT));
            lines.push(LineVertex::new(q + off * eps, COLOR_SEGMENT));
        }
    }
    viewer
        .viewport
        .set_demo_mesh_colored(&mesh, Some(&colors), frame);
    viewer.viewport.set_cells(&[]);
    viewer.viewport.set_pick_lines(&lines);
}
