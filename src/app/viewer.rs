//! The viewer's state and frame loop: jobs in, products out, panels around
//! the 3D viewport.

use std::sync::Arc;
use std::time::Instant;

use eframe::egui;
use eframe::egui_wgpu::wgpu;

use super::ViewerOptions;
use super::overlays;
use super::panels::{self, Comparison, ProfilerHistory};
use super::script::{Script, ScriptStep};
use super::settings::Settings;
use super::viewport::Viewport;
use crate::gpu::GpuContext;
use crate::progress::Progress;
use crate::scene::{Job, LoadedMesh, MeshSource};
use crate::stages::sdf_grid::{self, Backend, SdfField, SdfGpu};

/// A message in the banner.
pub struct Message {
    pub text: String,
    pub is_error: bool,
    pub at: Instant,
}

/// The picked cell and what the inspector shows about it.
pub struct Pick {
    pub cell: usize,
    /// Value of the CPU reference at this cell, computed on pick.
    pub reference: Option<f32>,
}

pub struct Viewer {
    pub settings: Settings,
    /// GPU stages; `None` when the adapter cannot run them (banner shown).
    pub sdf_gpu: Option<Arc<SdfGpu>>,
    pub render_gpu: GpuContext,
    pub viewport: Viewport,
    pub scene: Option<LoadedMesh>,
    pub field: Option<Arc<SdfField>>,
    pub comparison: Option<Comparison>,
    pub show_comparison: bool,
    pub pick: Option<Pick>,
    pub messages: Vec<Message>,
    pub history: ProfilerHistory,
    pub collide: panels::CollideState,
    pub tri_tri: panels::TriTriState,
    pub interference: panels::InterferenceState,
    pub adaptive: super::adaptive::AdaptiveState,
    load_job: Option<Job<LoadedMesh>>,
    field_job: Option<Job<SdfField>>,
    compare_job: Option<Job<Comparison>>,
    /// Parameters changed: recompute the field when possible.
    field_wanted: bool,
    /// The colour range was fitted to this scene's first field.
    range_fitted: bool,
    script: Option<ScriptRunner>,
    /// Outcomes reported from other threads (screenshots), shown next frame.
    async_messages: Arc<std::sync::Mutex<Vec<Result<String, String>>>>,
}

struct ScriptRunner {
    script: Script,
    next: usize,
    wait_frames: u32,
    pending_screenshot: bool,
    screenshot_done: Arc<std::sync::Mutex<Option<Result<(), String>>>>,
    error_count_at_step: usize,
}

impl Viewer {
    pub fn new(cc: &eframe::CreationContext<'_>, options: ViewerOptions) -> Self {
        // CPU scopes for the profiler overlay (and puffin_viewer).
        puffin::set_scopes_on(true);
        let (mut settings, notice) = if options.script.is_some() {
            // Nor by the panel sizes egui saved from an earlier session.
            cc.egui_ctx.memory_mut(|m| *m = Default::default());
            (Settings::default(), None)
        } else {
            Settings::load(cc.storage)
        };
        let render_state = cc
            .wgpu_render_state
            .as_ref()
            .expect("eframe was started with the wgpu renderer");
        let render_gpu = GpuContext::from_device(
            render_state.device.clone(),
            render_state.queue.clone(),
            render_state.adapter.get_info(),
        );
        let mut messages = Vec::new();
        if let Some(n) = notice {
            messages.push(Message {
                text: n,
                is_error: false,
                at: Instant::now(),
            });
        }
        let sdf_gpu = match compute_unavailable(&render_state.adapter) {
            None => Some(Arc::new(SdfGpu::new(&render_gpu))),
            Some(why) => {
                messages.push(Message {
                    text: format!("No GPU compute: {why}. The CPU backends run instead."),
                    is_error: false,
                    at: Instant::now(),
                });
                if settings.backend.is_gpu() {
                    settings.backend = Backend::CpuFast;
                }
                None
            }
        };
        let viewport = Viewport::new(&render_gpu, render_state);
        let mut viewer = Viewer {
            settings,
            sdf_gpu,
            render_gpu,
            viewport,
            scene: None,
            field: None,
            comparison: None,
            show_comparison: false,
            pick: None,
            messages,
            history: ProfilerHistory::default(),
            collide: Default::default(),
            tri_tri: Default::default(),
            interference: Default::default(),
            adaptive: Default::default(),
            load_job: None,
            field_job: None,
            compare_job: None,
            field_wanted: false,
            range_fitted: false,
            async_messages: Default::default(),
            script: options.script.map(|script| ScriptRunner {
                script,
                next: 0,
                wait_frames: 0,
                pending_screenshot: false,
                screenshot_done: Arc::new(std::sync::Mutex::new(None)),
                error_count_at_step: 0,
            }),
        };
        let ctx = cc.egui_ctx.clone();
        if viewer.script.is_none() {
            let first = options
                .open
                .last()
                .cloned()
                .map(MeshSource::File)
                .unwrap_or_else(|| viewer.settings.source.clone());
            viewer.open(first, &ctx);
        } else {
            viewer.open(MeshSource::Sample("spot".into()), &ctx);
        }
        viewer
    }

    pub fn notify(&mut self, text: impl Into<String>, is_error: bool) {
        self.messages.push(Message {
            text: text.into(),
            is_error,
            at: Instant::now(),
        });
        if self.messages.len() > 20 {
            self.messages.remove(0);
        }
    }

    /// A callback other threads use to report an outcome to the banner.
    pub fn async_sink(&self) -> impl Fn(Result<String, String>) + Send + 'static {
        let messages = self.async_messages.clone();
        move |m| {
            if let Ok(mut v) = messages.lock() {
                v.push(m);
            }
        }
    }

    fn drain_async_messages(&mut self) {
        let drained: Vec<_> = self
            .async_messages
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default();
        for m in drained {
            match m {
                Ok(text) => self.notify(text, false),
                Err(text) => self.notify(text, true),
            }
        }
    }

    pub fn error_count(&self) -> usize {
        self.messages.iter().filter(|m| m.is_error).count()
    }

    /// Starts loading a mesh; the current scene stays until it succeeds.
    pub fn open(&mut self, source: MeshSource, ctx: &egui::Context) {
        if let Some(job) = &self.load_job {
            job.cancel();
        }
        let repaint = ctx.clone();
        let label = source.label();
        self.load_job = Some(Job::spawn(
            format!("loading {label}"),
            move || repaint.request_repaint(),
            move |_| LoadedMesh::load(source).map_err(|e| e.to_string()),
        ));
    }

    /// Recomputes the field with the current parameters (after the current
    /// job, which is cancelled).
    pub fn request_field(&mut self) {
        self.field_wanted = true;
    }

    pub fn busy(&self) -> bool {
        self.load_job.is_some()
            || self.field_job.is_some()
            || self.compare_job.is_some()
            || self.field_wanted
    }

    pub fn field_job_progress(&self) -> Option<(&str, f32, &Progress)> {
        self.field_job
            .as_ref()
            .map(|j| (j.label.as_str(), j.progress.fraction(), &*j.progress))
    }

    pub fn cancel_field(&mut self) {
        if let Some(j) = self.field_job.take() {
            j.cancel();
            self.notify("field computation cancelled", false);
        }
        self.field_wanted = false;
    }

    /// Starts a comparison job.
    pub fn start_comparison(&mut self, kind: panels::CompareKind, ctx: &egui::Context) {
        let (Some(scene), Some(field)) = (&self.scene, &self.field) else {
            self.notify("nothing to compare yet: compute a field first", true);
            return;
        };
        let mesh = scene.prepared.clone();
        let field = field.clone();
        let gpu = self.sdf_gpu.clone();
        let repaint = ctx.clone();
        self.compare_job = Some(Job::spawn(
            format!("comparing ({})", kind.name()),
            move || repaint.request_repaint(),
            move |p| panels::compare(&mesh, &field, kind, gpu.as_deref(), p),
        ));
    }

    fn poll_jobs(&mut self, ctx: &egui::Context) {
        if let Some(result) = self.load_job.as_ref().and_then(Job::poll) {
            self.load_job = None;
            match result {
                Ok(loaded) => {
                    if let MeshSource::File(p) = &loaded.source {
                        self.settings.remember_file(p.clone());
                    }
                    self.settings.source = loaded.source.clone();
                    self.viewport.set_scene(&loaded, &self.settings.overlays);
                    self.scene = Some(loaded);
                    self.field = None;
                    self.comparison = None;
                    self.pick = None;
                    self.field_wanted = true;
                    self.range_fitted = false;
                }
                Err(e) => self.notify(
                    format!("could not open: {e} — the previous scene is kept"),
                    true,
                ),
            }
        }
        if let Some(result) = self.field_job.as_ref().and_then(Job::poll) {
            self.field_job = None;
            match result {
                Ok(field) => {
                    self.history.record_field(&field);
                    if !self.range_fitted {
                        self.settings.view.value_range = crate::view::default_value_range(&field);
                        self.settings.view.filter.clip = Some(
                            self.viewport
                                .facing_clip_plane(field.grid.bounds().center()),
                        );
                        self.range_fitted = true;
                    }
                    self.field = Some(Arc::new(field));
                    self.comparison = None;
                    self.show_comparison = false;
                    self.refresh_cells();
                    if let Some(pick) = &self.pick
                        && pick.cell >= self.field.as_ref().map_or(0, |f| f.values.len())
                    {
                        self.pick = None;
                    }
                    self.refresh_pick();
                }
                Err(e) if e == "cancelled" => {}
                Err(e) => self.notify(format!("field: {e}"), true),
            }
        }
        if let Some(result) = self.compare_job.as_ref().and_then(Job::poll) {
            self.compare_job = None;
            match result {
                Ok(c) => {
                    self.comparison = Some(c);
                    self.show_comparison = true;
                    self.refresh_cells();
                }
                Err(e) => self.notify(format!("comparison: {e}"), true),
            }
        }
        if self.field_wanted && self.load_job.is_none() && self.scene.is_some() {
            if let Some(j) = self.field_job.take() {
                j.cancel();
            }
            self.field_wanted = false;
            let Some(scene) = &self.scene else { return };
            let mesh = scene.prepared.clone();
            let params = self.settings.params;
            let backend = self.settings.backend;
            let gpu = self.sdf_gpu.clone();
            let repaint = ctx.clone();
            let label = format!("{} field {}³", backend.name(), params.resolution);
            self.field_job = Some(Job::spawn(
                label,
                move || repaint.request_repaint(),
                move |p| {
                    sdf_grid::compute(&mesh, &params, backend, gpu.as_deref(), p)
                        .map_err(|e| e.to_string())
                },
            ));
        }
    }

    /// Uploads the cell cloud: the field, or the comparison heat map.
    pub fn refresh_cells(&mut self) {
        let (cells, range) = match (&self.field, &self.comparison) {
            (Some(field), Some(c)) if self.show_comparison => {
                let range = (c.kind == panels::CompareKind::CpuVsGpu)
                    .then_some(c.max_abs.max(f32::MIN_POSITIVE));
                (c.heat_cells(field), range)
            }
            (Some(field), _) => (crate::view::cells_from_field(field), None),
            _ => (Vec::new(), None),
        };
        self.viewport.range_override = range;
        self.viewport.set_cells(&cells);
    }

    pub fn refresh_overlays(&mut self) {
        if let Some(scene) = &self.scene {
            self.viewport.set_scene(scene, &self.settings.overlays);
            self.refresh_pick();
        }
    }

    /// Recomputes the inspector's reference value and its 3D marker.
    pub fn refresh_pick(&mut self) {
        let (Some(scene), Some(field)) = (&self.scene, &self.field) else {
            self.viewport.set_pick_lines(&[]);
            return;
        };
        let Some(pick) = &mut self.pick else {
            self.viewport.set_pick_lines(&[]);
            return;
        };
        let p = field.grid.center_of(pick.cell);
        pick.reference =
            sdf_grid::reference_cell(&scene.prepared, p, f32::INFINITY).map(|(v, _)| v);
        let lines = overlays::pick_lines(&scene.prepared, field, pick.cell);
        self.viewport.set_pick_lines(&lines);
    }

    pub fn set_pick(&mut self, cell: Option<usize>) {
        self.pick = cell.map(|cell| Pick {
            cell,
            reference: None,
        });
        self.refresh_pick();
    }

    fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped: Vec<std::path::PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        self.drop_paths(dropped, ctx);
    }

    /// Files dropped on the window: the last one is opened (the scripted
    /// `drop:` step comes through here too).
    pub fn drop_paths(&mut self, paths: Vec<std::path::PathBuf>, ctx: &egui::Context) {
        if let Some(path) = paths.into_iter().last() {
            self.open(MeshSource::File(path), ctx);
        }
    }

    fn run_script(&mut self, ctx: &egui::Context) {
        let Some(runner) = &mut self.script else {
            return;
        };
        if runner.wait_frames > 0 {
            runner.wait_frames -= 1;
            ctx.request_repaint();
            return;
        }
        if runner.pending_screenshot {
            let done = runner
                .screenshot_done
                .lock()
                .ok()
                .and_then(|mut d| d.take());
            match done {
                Some(Ok(())) => runner.pending_screenshot = false,
                Some(Err(e)) => {
                    runner.script.finish(Err(e));
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    return;
                }
                None => {
                    ctx.request_repaint();
                    return;
                }
            }
        }
        let waiting_on_jobs = self.load_job.is_some()
            || self.field_job.is_some()
            || self.compare_job.is_some()
            || self.field_wanted
            || self.tri_tri.busy()
            || self.interference.busy()
            || self.adaptive.script_busy();
        let Some(runner) = &mut self.script else {
            return;
        };
        let Some(step) = runner.script.steps.get(runner.next).cloned() else {
            runner.script.finish(Ok(()));
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        };
        // Steps that start or inspect work wait for running jobs first, so
        // every step sees the products of the ones before it.
        if waiting_on_jobs {
            ctx.request_repaint();
            return;
        }
        runner.next += 1;
        let errors_before = runner.error_count_at_step;
        let expects_error = step == ScriptStep::ExpectError;
        let result = self.script_step(step, ctx, errors_before);
        let errors = self.error_count();
        if let Some(runner) = &mut self.script {
            runner.error_count_at_step = errors;
            // Unexpected errors fail the script unless the next step expects them.
            let next_expects =
                runner.script.steps.get(runner.next) == Some(&ScriptStep::ExpectError);
            let failure = match result {
                Err(e) => Some(e),
                Ok(()) if errors > errors_before && !next_expects && !expects_error => Some(
                    self.messages
                        .iter()
                        .rev()
                        .find(|m| m.is_error)
                        .map_or(String::new(), |m| m.text.clone()),
                ),
                Ok(()) => None,
            };
            if let (Some(e), Some(runner)) = (failure, &self.script) {
                runner
                    .script
                    .finish(Err(format!("script step {}: {e}", runner.next)));
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
        // Let the frame after each step render before the next one.
        if let Some(r) = &mut self.script {
            r.wait_frames = r.wait_frames.max(2);
        }
        ctx.request_repaint();
    }

    fn script_step(
        &mut self,
        step: ScriptStep,
        ctx: &egui::Context,
        errors_before: usize,
    ) -> Result<(), String> {
        use crate::view::{ColorMap, MeshMode};
        match step {
            ScriptStep::Open(what) => {
                let source = if crate::assets::SAMPLES.iter().any(|(n, _)| *n == what) {
                    MeshSource::Sample(what)
                } else {
                    MeshSource::File(what.into())
                };
                self.open(source, ctx);
            }
            ScriptStep::Drop(path) => self.drop_paths(vec![path], ctx),
            ScriptStep::Compute | ScriptStep::Wait(0) => {}
            ScriptStep::Wait(n) => {
                if let Some(r) = &mut self.script {
                    r.wait_frames = n;
                }
            }
            ScriptStep::Filter(f) => {
                panels::apply_filter_name(&mut self.settings.view, &f, self.field.as_deref())?
            }
            ScriptStep::Resolution(r) => {
                self.settings.params.resolution = r;
                self.request_field();
            }
            ScriptStep::Backend(b) => {
                self.settings.backend =
                    Backend::from_name(&b).ok_or(format!("unknown backend {b}"))?;
                self.request_field();
            }
            ScriptStep::Sign(s) => {
                self.settings.params.sign_mode = crate::stages::sdf_grid::SignMode::ALL
                    .into_iter()
                    .find(|m| m.name() == s)
                    .ok_or(format!("unknown sign mode {s}"))?;
                self.request_field();
            }
            ScriptStep::ColorMap(c) => {
                self.settings.view.color_map = ColorMap::ALL
                    .into_iter()
                    .find(|m| m.name().eq_ignore_ascii_case(&c))
                    .ok_or(format!("unknown colour map {c}"))?;
            }
            ScriptStep::MeshMode(m) => {
                self.settings.view.mesh_mode = match m.as_str() {
                    "shaded" => MeshMode::Shaded,
                    "wireframe" => MeshMode::Wireframe,
                    "shaded+wireframe" => MeshMode::ShadedWireframe,
                    "hidden" => MeshMode::Hidden,
                    _ => return Err(format!("unknown mesh mode {m}")),
                }
            }
            ScriptStep::Cells(on) => self.settings.view.show_cells = on,
            ScriptStep::PointSize(px) => self.settings.view.point_size = px,
            ScriptStep::Clip(axis) => {
                self.settings.view.filter.clip = match axis.as_str() {
                    "off" => None,
                    name => {
                        let (sign, name) =
                            name.strip_prefix('-').map_or((1.0, name), |n| (-1.0, n));
                        let normal = match panels::axis_from_name(name)
                            .ok_or(format!("unknown clip {axis}"))?
                        {
                            crate::view::Axis::X => glam::Vec3::X,
                            crate::view::Axis::Y => glam::Vec3::Y,
                            crate::view::Axis::Z => glam::Vec3::Z,
                        } * sign;
                        let center = self
                            .field
                            .as_ref()
                            .ok_or("no field to clip")?
                            .grid
                            .bounds()
                            .center();
                        Some(crate::view::ClipPlane {
                            normal,
                            offset: normal.dot(center),
                        })
                    }
                }
            }
            ScriptStep::Verify(kind) => {
                let kind = panels::CompareKind::from_name(&kind)
                    .ok_or(format!("unknown comparison {kind}"))?;
                self.start_comparison(kind, ctx);
            }
            ScriptStep::HideVerify => {
                self.show_comparison = false;
                self.refresh_cells();
            }
            ScriptStep::Pick(cell) => {
                let field = self.field.as_ref().ok_or("no field to pick from")?;
                let cell = cell.unwrap_or_else(|| field.grid.index(field.grid.dims / 2));
                if cell >= field.values.len() {
                    return Err(format!("cell {cell} is outside the grid"));
                }
                self.set_pick(Some(cell));
            }
            ScriptStep::Slice(axis) => {
                self.settings.slice_axis =
                    panels::axis_from_name(&axis).ok_or(format!("unknown axis {axis}"))?;
                self.settings.show_slice = true;
            }
            ScriptStep::Profiler(on) => self.settings.show_profiler = on,
            ScriptStep::Orbit(yaw, pitch) => self
                .viewport
                .camera
                .orbit(yaw.to_radians(), pitch.to_radians()),
            ScriptStep::Screenshot(path) => {
                let done = self
                    .script
                    .as_ref()
                    .map(|r| r.screenshot_done.clone())
                    .ok_or("no script")?;
                panels::request_window_screenshot(ctx, path, move |r| {
                    if let Ok(mut d) = done.lock() {
                        *d = Some(r);
                    }
                });
                if let Some(r) = &mut self.script {
                    r.pending_screenshot = true;
                }
            }
            ScriptStep::ExportView(path) => {
                self.viewport
                    .export_png(&self.render_gpu, &self.settings.view, &path)?
            }
            ScriptStep::ExportField(path) => panels::export_field(self, &path)?,
            ScriptStep::ExportTimings(path) => self.history.export(&path)?,
            ScriptStep::Collide(name) => {
                let scene = crate::sim::rigid::Scene::from_short_name(&name).ok_or(format!(
                    "unknown collide scene {name} (drop-on-mesh, drop-on-plane, box-stack, line)"
                ))?;
                self.collide.open_scene(scene)?;
            }
            ScriptStep::CollideStep(n) => {
                let gpu_ok = self.sdf_gpu.is_some();
                self.collide.advance(n as usize, &self.render_gpu, gpu_ok)?;
            }
            ScriptStep::CollideSamples(on) => self.collide.show_samples = on,
            ScriptStep::CollideGpu(on) => {
                if on && self.sdf_gpu.is_none() {
                    return Err("GPU contacts need GPU compute, which this adapter lacks".into());
                }
                self.collide.use_gpu = on;
            }
            ScriptStep::CollideCompare => {
                if self.sdf_gpu.is_none() {
                    return Err("comparing contacts needs GPU compute".into());
                }
                self.collide.compare_now(&self.render_gpu)?;
            }
            ScriptStep::ExpectError => {
                if self.error_count() <= errors_before {
                    return Err("an error was expected but none was shown".into());
                }
            }
            ScriptStep::ExpectMesh(name) => {
                let shown = self
                    .scene
                    .as_ref()
                    .map(|s| s.source.label())
                    .unwrap_or_default();
                if !shown.contains(&name) {
                    return Err(format!("expected mesh {name}, showing {shown}"));
                }
            }
            ScriptStep::TriTri(scene) => {
                self.tri_tri
                    .activate_scene(panels::TriScene::from_name(&scene).ok_or(format!(
                        "unknown triangle–triangle scene {scene} (tori, rocker)"
                    ))?)
            }
            ScriptStep::TriTriOffset(offset) => self.tri_tri.set_offset(offset),
            ScriptStep::TriTriBackend(name) => self.tri_tri.set_backend(&name)?,
            ScriptStep::Interfere(scene) => self.interference.activate_scene(&scene)?,
            ScriptStep::InterfereCount(n) => self.interference.set_count(n)?,
            ScriptStep::InterfereSeed(seed) => self.interference.set_seed(seed),
            ScriptStep::InterfereResolution(res) => self.interference.set_resolution(res)?,
            ScriptStep::InterfereAxes(axes) => self.interference.set_axes(&axes)?,
            ScriptStep::InterfereMode(mode) => self.interference.set_mode(&mode)?,
            ScriptStep::InterfereImage(image) => self.interference.set_image(&image)?,
            ScriptStep::InterfereSelect(k) => self.interference.select(k)?,
            ScriptStep::InterfereMove(to) => self.interference.move_selected(to)?,
            ScriptStep::InterfereVerify => {
                let text = self.interference.verify()?;
                self.notify(text, false);
            }
            ScriptStep::Adaptive(step) => super::adaptive::apply_step(self, step)?,
            ScriptStep::Quit => {
                if let Some(r) = &self.script {
                    r.script.finish(Ok(()));
                }
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
        Ok(())
    }
}

/// Why the adapter cannot run the compute stages, if it cannot.
fn compute_unavailable(adapter: &wgpu::Adapter) -> Option<String> {
    if std::env::var_os("COLLIDOSCOPE_NO_GPU_COMPUTE").is_some() {
        return Some("disabled by COLLIDOSCOPE_NO_GPU_COMPUTE".into());
    }
    let caps = adapter.get_downlevel_capabilities();
    if !caps.flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS) {
        return Some(format!(
            "{} has no compute shaders",
            adapter.get_info().name
        ));
    }
    None
}

impl eframe::App for Viewer {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        puffin::GlobalProfiler::lock().new_frame();
        puffin::profile_function!();
        self.drain_async_messages();
        self.handle_dropped_files(&ctx);
        self.poll_jobs(&ctx);
        self.run_script(&ctx);
        panels::menu_bar_ui(self, ui);
        panels::banner_ui(self, ui);
        // The bottom panel first, so it spans the window's full width.
        if self.settings.show_profiler || self.settings.show_slice {
            panels::bottom_panel_ui(self, ui);
        }
        panels::side_panel_ui(self, ui);
        egui::CentralPanel::default().show(ui, |ui| {
            let picked = self.viewport.ui(
                ui,
                &self.render_gpu,
                &self.settings.view,
                self.field.as_deref(),
                &mut self.history,
            );
            match picked {
                Some(cell) if self.adaptive.is_active() => {
                    let node = cell.and_then(|c| self.adaptive.node_of_cell(c));
                    self.adaptive.set_pick(node);
                }
                Some(cell) => self.set_pick(cell),
                None => {}
            }
            super::legend::color_bar_ui(ui, self);
            super::legend::adaptive_caption_ui(ui, self);
        });
        if self.busy() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
    }

    /// A scripted run leaves the user's saved layout alone.
    fn persist_egui_memory(&self) -> bool {
        self.script.is_none()
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.script.is_none() {
            self.settings.save(storage);
        }
    }
}
