//! The viewer: the [`Shell`], the modes ([`modes::all`]) with one of them
//! active, and a script runner; the frame loop puts the shell's chrome and
//! the active mode's panels around the 3D viewport.
//!
//! Switching modes deactivates the old mode, clears what it set on the
//! viewport and activates the new one, which uploads its drawing. The
//! panels that the active mode does not fill ([`Mode::panels`]) are
//! hidden, so no panel shows another mode's data.

use std::sync::Arc;
use std::time::Instant;

use eframe::egui;
use eframe::egui_wgpu::wgpu;

use super::ViewerOptions;
use super::modes::{self, Mode, ModeRequest};
use super::script::{Script, ScriptStep};
use super::shell::keys::{self, KeyAction};
use super::shell::{
    self, Message, Settings, Shell, Viewport, camera_bar, chrome, export, legend, profiler,
};
use crate::gpu::GpuContext;
use crate::scene::MeshSource;
use crate::stages::sdf::{Backend, SdfGpu};

pub struct Viewer {
    shell: Shell,
    modes: Vec<Box<dyn Mode>>,
    /// The index of the mode that owns the viewport.
    active: usize,
    script: Option<ScriptRunner>,
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
        // (After the reset above, which clears the style too.) Scroll bars
        // that keep their place and show without a hover: a
        // panel whose content goes on past its edge says that it does.
        cc.egui_ctx.all_styles_mut(|s| {
            s.spacing.scroll = egui::style::ScrollStyle {
                bar_width: 8.0,
                dormant_background_opacity: 0.3,
                dormant_handle_opacity: 0.7,
                ..egui::style::ScrollStyle::solid()
            }
        });
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
                mode: "field",
                mesh: None,
            });
        }
        let sdf_gpu = match compute_unavailable(&render_state.adapter) {
            None => Some(Arc::new(SdfGpu::new(&render_gpu))),
            Some(why) => {
                messages.push(Message {
                    text: format!("No GPU compute: {why}. The CPU backends run instead."),
                    is_error: false,
                    at: Instant::now(),
                    mode: "field",
                    mesh: None,
                });
                if settings.backend.is_gpu() {
                    settings.backend = Backend::CpuFast;
                }
                None
            }
        };
        let mut viewport = Viewport::new(&render_gpu, render_state);
        if let Some(camera) = options.camera.or(settings.camera) {
            viewport.set_camera(camera);
        }
        let shell = Shell::new(
            cc.egui_ctx.clone(),
            settings,
            render_gpu,
            sdf_gpu,
            viewport,
            messages,
        );
        let mut viewer = Viewer {
            shell,
            modes: modes::all(),
            active: 0,
            script: options.script.map(|script| ScriptRunner {
                script,
                next: 0,
                wait_frames: 0,
                pending_screenshot: false,
                screenshot_done: Arc::new(std::sync::Mutex::new(None)),
                error_count_at_step: 0,
            }),
        };
        viewer
            .shell
            .file_kinds
            .extend(viewer.modes.iter().filter_map(|m| m.file_kind()));
        viewer.shell.active_mode = viewer.modes[0].name();
        viewer.modes[0].activate(&mut viewer.shell);
        // The layout of bare grids, before they are opened.
        if let Some(layout) = &options.field_layout
            && let Some(sdf) = viewer.modes.iter_mut().find(|m| m.name() == "sdf")
            && let Err(e) = sdf.apply_step(&mut viewer.shell, "field-layout", layout)
        {
            viewer.shell.notify(e, true);
        }
        // Files named on the command line open as File → Open opens them
        // (scripted or not); the default mesh only when none is a mesh,
        // and none is a field (which is then viewed on its own).
        let taken = |path: &std::path::PathBuf| {
            viewer
                .modes
                .iter()
                .any(|m| m.file_kind().is_some_and(|k| k.matches(path)))
        };
        let field = |path: &std::path::PathBuf| {
            modes::named(&viewer.modes, "sdf")
                .and_then(|m| m.file_kind())
                .is_some_and(|k| k.matches(path))
        };
        if options.open.iter().all(taken) && !options.open.iter().any(field) {
            let default = match viewer.script {
                None => viewer.shell.settings.source.clone(),
                Some(_) => MeshSource::Sample("spot".into()),
            };
            viewer.shell.open(default);
        }
        for path in options.open {
            viewer.shell.open_path(path);
        }
        viewer.open_files();
        viewer
    }

    /// Makes mode `index` the one that owns the viewport.
    fn switch_to(&mut self, index: usize) {
        if index == self.active {
            return;
        }
        self.modes[self.active].deactivate(&mut self.shell);
        self.shell.viewport.clear_overrides();
        self.active = index;
        self.modes[index].activate(&mut self.shell);
    }

    /// Hands each file opened since the last call to the first mode that
    /// takes its type (switching to it when it asks), or opens it as the
    /// mesh.
    fn open_files(&mut self) {
        for path in std::mem::take(&mut self.shell.opened_files) {
            let extension = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase();
            let taker = self.modes.iter().position(|m| {
                m.file_kind()
                    .is_some_and(|k| k.extensions.contains(&extension.as_str()))
            });
            match taker {
                Some(index) => {
                    if self.modes[index].open_file(&mut self.shell, path) == ModeRequest::Activate {
                        self.switch_to(index);
                    }
                }
                None => self.shell.open(MeshSource::File(path)),
            }
        }
    }

    fn mode_index(&self, name: &str) -> Result<usize, String> {
        self.modes
            .iter()
            .position(|m| m.name() == name)
            .ok_or(format!("no mode is called {name}"))
    }

    /// Script steps wait for the shell's jobs and the active mode's.
    fn busy(&self) -> bool {
        self.shell.busy() || self.modes[self.active].busy()
    }

    /// The keyboard shortcuts ([`keys`]).
    fn handle_keys(&mut self, ctx: &egui::Context) {
        for action in keys::pressed(ctx) {
            let shell = &mut self.shell;
            match action {
                KeyAction::Frame => shell.viewport.frame_all(),
                KeyAction::Reset => shell.viewport.reset_camera(),
                KeyAction::View(side) => shell.viewport.view_from(side),
                KeyAction::Screenshot => {
                    let stamp = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs());
                    let path = std::path::PathBuf::from(format!("collidoscope-{stamp}.png"));
                    let sink = shell.async_sink();
                    let shown = path.display().to_string();
                    export::request_window_screenshot(ctx, path, move |r| {
                        sink(r.map(|()| format!("wrote {shown}")))
                    });
                }
                KeyAction::Pause => {
                    if !self.modes[self.active].toggle_pause() {
                        shell.notify("this mode has nothing to pause", false);
                    }
                }
                KeyAction::Open => chrome::open_dialog(shell, None),
                KeyAction::CopyCamera => camera_bar::copy_camera(shell, ctx),
                KeyAction::PasteCamera(camera) => {
                    shell.viewport.camera = camera;
                    shell.viewport.request_redraw();
                }
            }
        }
    }

    fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped: Vec<std::path::PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if !dropped.is_empty() {
            self.drop_files(dropped);
        }
    }

    /// Files dropped on the window (or by the `drop:` step): the active
    /// mode takes them if it wants them, else the last one is opened as
    /// File → Open would.
    fn drop_files(&mut self, paths: Vec<std::path::PathBuf>) {
        if !self.modes[self.active].files_dropped(&mut self.shell, &paths) {
            self.shell.drop_paths(paths);
        }
        self.open_files();
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
        let waiting_on_jobs = self.busy();
        let Some(runner) = &mut self.script else {
            return;
        };
        let step = runner.script.steps.get(runner.next).cloned();
        // Steps that start or inspect work wait for running jobs first, so
        // every step sees the products of the ones before it.
        if waiting_on_jobs {
            ctx.request_repaint();
            return;
        }
        // An error shown since the last step ran came from a job it started
        // (an `open:` that failed to load): it ends the session, unless this
        // step expects it.
        let late_error = (self.shell.error_count() > runner.error_count_at_step
            && step != Some(ScriptStep::ExpectError))
        .then(|| self.shell.last_error());
        let Some(step) = step.filter(|_| late_error.is_none()) else {
            let result =
                late_error.map_or(Ok(()), |e| Err(format!("script step {}: {e}", runner.next)));
            runner.script.finish(result);
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        };
        runner.next += 1;
        let errors_before = runner.error_count_at_step;
        let expects_error = step == ScriptStep::ExpectError;
        let result = self.script_step(step, ctx, errors_before);
        let errors = self.shell.error_count();
        if let Some(runner) = &mut self.script {
            // Unexpected errors fail the script unless the next step expects them.
            let next_expects =
                runner.script.steps.get(runner.next) == Some(&ScriptStep::ExpectError);
            // An error this step showed at once is left for the next step
            // to find when that step expects it, as a late one from a job is.
            runner.error_count_at_step = if next_expects && errors > errors_before {
                errors_before
            } else {
                errors
            };
            let failure = match result {
                Err(e) => Some(e),
                Ok(()) if errors > errors_before && !next_expects && !expects_error => {
                    Some(self.shell.last_error())
                }
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
        let shell = &mut self.shell;
        match step {
            ScriptStep::Open(what) => {
                if crate::assets::SAMPLES.iter().any(|(n, _)| *n == what) {
                    shell.open(MeshSource::Sample(what));
                } else {
                    shell.open_path(what.into());
                    self.open_files();
                }
            }
            ScriptStep::FilePicker(extension, dir) => {
                let chosen = match extension {
                    None => None,
                    Some(e) => Some(
                        shell
                            .file_kinds
                            .iter()
                            .position(|k| k.extensions.contains(&e.as_str()))
                            .ok_or(format!("the viewer opens no .{e} files"))?,
                    ),
                };
                let filter = shell::file_picker::Filter {
                    kinds: shell.file_kinds.clone(),
                    chosen,
                };
                chrome::open_picker(shell, filter, dir);
            }
            ScriptStep::About => shell.show_about = true,
            ScriptStep::Drop(path) => self.drop_files(vec![path]),
            ScriptStep::Compute | ScriptStep::Wait(0) => {}
            ScriptStep::Wait(n) => {
                if let Some(r) = &mut self.script {
                    r.wait_frames = n;
                }
            }
            ScriptStep::Filter(f) => shell::cells::apply_filter_name(
                &mut shell.settings.view,
                &f,
                shell.mesh.field.as_deref(),
            )?,
            ScriptStep::ColorMap(c) => {
                shell.settings.view.color_map = ColorMap::ALL
                    .into_iter()
                    .find(|m| m.name().eq_ignore_ascii_case(&c))
                    .ok_or(format!("unknown colour map {c}"))?;
            }
            ScriptStep::Range(how) => {
                let field = shell
                    .mesh
                    .field
                    .as_deref()
                    .ok_or("no field to fit the range to")?;
                shell::cells::fit_range(&mut shell.settings.view, field, &how)?
            }
            ScriptStep::MeshMode(m) => {
                shell.settings.view.mesh_mode = match m.as_str() {
                    "shaded" => MeshMode::Shaded,
                    "wireframe" => MeshMode::Wireframe,
                    "shaded+wireframe" => MeshMode::ShadedWireframe,
                    "hidden" => MeshMode::Hidden,
                    _ => return Err(format!("unknown mesh mode {m}")),
                }
            }
            ScriptStep::Cells(on) => shell.settings.view.show_cells = on,
            ScriptStep::PointSize(px) => shell.settings.view.point_size = px,
            ScriptStep::Opacity(alpha) => shell.settings.view.mesh_opacity = alpha,
            ScriptStep::Clip(axis) => {
                shell.settings.view.filter.clip =
                    shell::cells::clip_plane(&axis, shell.mesh.field.as_deref())?
            }
            ScriptStep::Profiler(on) => shell.settings.show_profiler = on,
            ScriptStep::Orbit(yaw, pitch) => shell
                .viewport
                .camera
                .orbit(yaw.to_radians(), pitch.to_radians()),
            ScriptStep::View(side) => shell.viewport.view_from(side),
            ScriptStep::Camera(path) => {
                shell.viewport.set_camera(crate::view::Camera::load(&path)?)
            }
            ScriptStep::SaveCamera(path) => {
                crate::io::write_atomically(&path, shell.viewport.camera.to_json().as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?
            }
            ScriptStep::Screenshot(path) => {
                let done = self
                    .script
                    .as_ref()
                    .map(|r| r.screenshot_done.clone())
                    .ok_or("no script")?;
                export::request_window_screenshot(ctx, path, move |r| {
                    if let Ok(mut d) = done.lock() {
                        *d = Some(r);
                    }
                });
                if let Some(r) = &mut self.script {
                    r.pending_screenshot = true;
                }
            }
            ScriptStep::ExportView(path) => {
                shell
                    .viewport
                    .export_png(&shell.render_gpu, &shell.settings.view, &path)?
            }
            ScriptStep::ExportFigure(path, factor, caption) => {
                export::export_view_figure(shell, &path, factor, caption)?
            }
            ScriptStep::ExportField(path) => export::export_field(shell, &path)?,
            ScriptStep::ExportTimings(path) => shell.history.export(&path)?,
            ScriptStep::Layout(path) => {
                crate::io::write_atomically(&path, shell.last_layout.to_json().as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?
            }
            ScriptStep::ExpectError => {
                if shell.error_count() <= errors_before {
                    return Err("an error was expected but none was shown".into());
                }
            }
            ScriptStep::ExpectMesh(name) => {
                let shown = shell
                    .mesh
                    .scene
                    .as_ref()
                    .map(|s| s.source.label())
                    .unwrap_or_default();
                if !shown.contains(&name) {
                    return Err(format!("expected mesh {name}, showing {shown}"));
                }
            }
            ScriptStep::Mode(name) => {
                let index = self.mode_index(&name)?;
                self.switch_to(index);
            }
            ScriptStep::ModeStep(step) => {
                let index = self.mode_index(step.mode)?;
                let request =
                    self.modes[index].apply_step(&mut self.shell, &step.verb, &step.arg)?;
                match request {
                    ModeRequest::Stay => {}
                    ModeRequest::Activate => self.switch_to(index),
                    ModeRequest::Leave if index == self.active => self.switch_to(0),
                    ModeRequest::Leave => {}
                }
            }
            ScriptStep::Quit => {
                if let Some(r) = &self.script {
                    r.script.finish(Ok(()));
                }
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
        Ok(())
    }

    /// The bottom panel (slice and profiler, as the mode has them), the
    /// right one (the mode's inspector) and the left one (the mode's panel).
    fn panels_ui(&mut self, panels: chrome::Panels, ui: &mut egui::Ui) {
        let mode = &mut self.modes[self.active];
        let shell = &mut self.shell;
        let slice = panels.slice && shell.settings.show_slice;
        let profiler = panels.profiler && shell.settings.show_profiler;
        // The bottom panel first, so it spans the window's full width.
        if slice || profiler {
            let shown = egui::Panel::bottom("bottom")
                .default_size(300.0)
                .resizable(true)
                .show(ui, |ui| match (slice, profiler) {
                    (true, true) => ui.columns(2, |cols| {
                        mode.slice_ui(shell, &mut cols[0]);
                        profiler::profiler_ui(shell, mode.name(), &mut cols[1]);
                    }),
                    (true, false) => mode.slice_ui(shell, ui),
                    _ => profiler::profiler_ui(shell, mode.name(), ui),
                });
            shell.layout.panel("bottom", shown.response.rect);
        }
        // Scroll bars always take their place, so a panel whose content
        // goes on below its edge shows it.
        let shown = egui::Panel::left("left")
            .default_size(320.0)
            .show(ui, |ui| {
                egui::ScrollArea::both()
                    .id_salt(mode.name())
                    .show(ui, |ui| mode.side_panel_ui(shell, ui));
            });
        shell.layout.panel("left", shown.response.rect);
        if panels.inspector {
            let shown = egui::Panel::right("right")
                .default_size(320.0)
                .show(ui, |ui| {
                    egui::ScrollArea::both()
                        .id_salt(mode.name())
                        .show(ui, |ui| mode.inspector_ui(shell, ui));
                });
            shell.layout.panel("right", shown.response.rect);
        }
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
        self.shell.drain_async_messages();
        self.shell.last_layout = std::mem::take(&mut self.shell.layout);
        self.shell.layout.begin(ctx.content_rect());
        self.handle_dropped_files(&ctx);
        self.handle_keys(&ctx);
        self.shell.poll_jobs();
        self.run_script(&ctx);
        self.open_files();
        let panels = self.modes[self.active].panels();
        chrome::menu_bar_ui(&mut self.shell, panels, ui);
        let titles: Vec<&str> = self.modes.iter().map(|m| m.title()).collect();
        if let Some(index) = chrome::mode_switch_ui(&titles, self.active, ui) {
            self.switch_to(index);
        }
        self.open_files();
        let active = &self.modes[self.active];
        self.shell.active_mode = active.name();
        self.shell.mode_shows_mesh = active.shows_open_mesh();
        shell::banner::banner_ui(&mut self.shell, ui);
        crate::app::shell::jobs_bar::jobs_bar_ui(&mut self.shell, ui);
        // The bars above, from the window's top to what is left for the rest.
        let rest = ui.available_rect_before_wrap();
        let window = self.shell.layout.window;
        self.shell.layout.panel(
            "top bars",
            egui::Rect::from_min_max(window.min, egui::pos2(window.right(), rest.top())),
        );
        self.shell.layout.mode = self.modes[self.active].name().to_string();
        self.shell.layout.mesh = self
            .shell
            .mesh
            .scene
            .as_ref()
            .map_or(String::new(), |s| s.source.label());
        let panels = self.modes[self.active].panels();
        self.panels_ui(panels, ui);
        let mode = &mut self.modes[self.active];
        mode.update(&mut self.shell);
        let shell = &mut self.shell;
        egui::CentralPanel::default().show(ui, |ui| {
            let (view, column) = legend::split_key_column(ui.max_rect(), shell.keys_drawn);
            shell.key_column = column;
            shell.keys_drawn = false;
            let picked = shell.viewport.ui(
                ui,
                view,
                &shell.render_gpu,
                &shell.settings.view,
                &mut shell.history,
            );
            shell.layout.panel("view", view);
            if let Some(column) = column {
                shell.layout.panel("keys", column);
            }
            shell.shown_key = None;
            mode.viewport_ui(shell, ui, picked);
            camera_bar::camera_bar_ui(shell, ui, view);
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
            self.shell.settings.camera = Some(self.shell.viewport.camera);
            self.shell.settings.save(storage);
        }
    }
}
