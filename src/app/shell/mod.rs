//! The shell: what every viewer mode shares, and the window around the
//! modes.
//!
//! A mode ([`crate::app::modes::Mode`]) gets a `&mut Shell` and nothing
//! else: the 3D [`Viewport`] it draws into, the banner's notices, the GPU
//! contexts, a job runner ([`Shell::spawn`]), the profiler's history and the
//! settings that are truly shared (the view settings, the overlays, the
//! uniform field's parameters). The shell also holds the open mesh and its
//! uniform signed distance field ([`MeshScene`]): opening a mesh computes
//! that field whichever mode is shown, and the field and adaptive modes
//! both work on them. The shell never draws a mode's products: the active
//! mode uploads what it shows.
//!
//! The window's chrome — menu bar, mode switch, banner, profiler, export,
//! the camera's buttons and the keyboard shortcuts — is in [`chrome`],
//! [`profiler`], [`export`], [`camera_bar`] and [`keys`]; the frame loop
//! that owns the modes is `crate::app::viewer`.

pub mod banner;
pub mod camera_bar;
pub mod cells;
pub mod chrome;
pub mod export;
pub mod file_picker;
pub mod image_view;
pub mod jobs_bar;
pub mod keys;
pub mod layout;
pub mod legend;
pub mod overlays;
pub mod phase_bars;
pub mod profiler;
pub mod settings;
pub mod viewport;

pub use cells::cells_ui;
pub use profiler::ProfilerHistory;
pub use settings::Settings;
pub use viewport::Viewport;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use eframe::egui;

use crate::gpu::GpuContext;
use crate::progress::Progress;
use crate::scene::{Job, JobError, Latest, LoadedMesh, MeshSource};
use crate::stages::sdf::{self, Backend, SdfField, SdfGpu, SdfParams};

/// What a field is made from: the mesh (by content), the parameters and the
/// backend. Asking again for a field of the same inputs reuses it.
type FieldKey = (u64, SdfParams, Backend);

/// How long parameter changes must pause before the field is recomputed
/// (a slider being dragged changes them every frame).
const FIELD_DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(150);

/// Jobs that ran this long get a progress bar.
pub const PROGRESS_AFTER: std::time::Duration = std::time::Duration::from_millis(300);

pub use banner::Message;

/// The open mesh and its uniform field, and the jobs that make them.
pub struct MeshScene {
    pub scene: Option<LoadedMesh>,
    pub field: Option<Arc<SdfField>>,
    load_job: Option<Job<LoadedMesh>>,
    fields: Latest<FieldKey, SdfField>,
    /// Parameters changed: recompute the field when possible.
    field_wanted: bool,
    /// The colour range was fitted to this scene's first field.
    range_fitted: bool,
}

impl Default for MeshScene {
    fn default() -> Self {
        MeshScene {
            scene: None,
            field: None,
            load_job: None,
            fields: Latest::new(FIELD_DEBOUNCE),
            field_wanted: false,
            range_fitted: false,
        }
    }
}

/// Outcomes other threads report to the banner (screenshots).
type AsyncMessages = Arc<Mutex<Vec<Result<String, String>>>>;

pub struct Shell {
    pub settings: Settings,
    /// GPU stages; `None` when the adapter cannot run them (banner shown).
    pub sdf_gpu: Option<Arc<SdfGpu>>,
    pub render_gpu: GpuContext,
    pub viewport: Viewport,
    pub mesh: MeshScene,
    pub messages: Vec<Message>,
    pub history: ProfilerHistory,
    /// File → Open's own picker, while it is shown (no native dialog here).
    pub file_picker: Option<file_picker::FilePicker>,
    /// Help → About is shown.
    pub show_about: bool,
    /// The kinds of file the viewer opens (meshes, then each mode's), for
    /// File → Open's filters.
    pub file_kinds: Vec<file_picker::FileKind>,
    /// Files opened (File → Open, a drop, the `drop:` step) that the
    /// viewer has not yet handed to the mode that takes their type, or
    /// opened as the mesh.
    pub opened_files: Vec<std::path::PathBuf>,
    /// Every job started, for the progress bars.
    pub running_jobs: Mutex<jobs_bar::RunningJobs>,
    /// The colour key the viewport shows this frame and the figure
    /// caption for it (mesh, quantity, range), for the 3D figure export;
    /// set by [`legend::color_bar_ui`], cleared before each frame's modes.
    pub shown_key: Option<(crate::plot::figure::Key, String)>,
    /// The column right of the 3D view where this frame's keys go
    /// ([`legend::keys_ui`]); `None` while no key was drawn last frame.
    pub key_column: Option<egui::Rect>,
    /// A key was drawn this frame: the next frame keeps the column.
    pub keys_drawn: bool,
    /// The rectangles of this frame's panels and keys ([`layout`]).
    pub layout: layout::LayoutReport,
    /// The active mode's name, which new messages belong to ([`banner`]).
    pub active_mode: &'static str,
    /// Whether the active mode shows the open mesh (and its messages).
    pub mode_shows_mesh: bool,
    /// The last whole frame's ([`layout`]), for the `layout:` step.
    pub last_layout: layout::LayoutReport,
    ctx: egui::Context,
    async_messages: AsyncMessages,
}

impl Shell {
    pub fn new(
        ctx: egui::Context,
        settings: Settings,
        render_gpu: GpuContext,
        sdf_gpu: Option<Arc<SdfGpu>>,
        viewport: Viewport,
        messages: Vec<Message>,
    ) -> Self {
        Shell {
            settings,
            sdf_gpu,
            render_gpu,
            viewport,
            mesh: MeshScene::default(),
            messages,
            history: ProfilerHistory::default(),
            file_picker: None,
            file_kinds: vec![file_picker::FileKind::MESH],
            show_about: false,
            opened_files: Vec::new(),
            running_jobs: Default::default(),
            shown_key: None,
            key_column: None,
            keys_drawn: false,
            layout: Default::default(),
            active_mode: "",
            mode_shows_mesh: true,
            last_layout: Default::default(),
            ctx,
            async_messages: Default::default(),
        }
    }

    /// Whether the adapter runs the GPU stages.
    pub fn gpu_ok(&self) -> bool {
        self.sdf_gpu.is_some()
    }

    pub fn ctx(&self) -> &egui::Context {
        &self.ctx
    }

    /// Runs `work` on its own thread; the window repaints when it ends.
    pub fn spawn<T: Send + 'static>(
        &self,
        label: impl Into<String>,
        work: impl FnOnce(&Progress) -> Result<T, JobError> + Send + 'static,
    ) -> Job<T> {
        let repaint = self.ctx.clone();
        let job = Job::spawn(label, move || repaint.request_repaint(), work);
        self.watch(&job);
        job
    }

    /// Shows `job`'s progress bar once it runs long (see [`jobs_bar`]).
    fn watch<T>(&self, job: &Job<T>) {
        self.running_jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .watch(&job.label, &job.progress, job.started);
    }

    /// A message for the banner, belonging to the active mode.
    pub fn notify(&mut self, text: impl Into<String>, is_error: bool) {
        self.push_message(text.into(), is_error, None);
    }

    /// A message about the mesh labelled `mesh`: it starts with the mesh's
    /// name and shows while that mesh is open in a mode that shows it.
    pub fn notify_about_mesh(&mut self, mesh: &str, text: &str, is_error: bool) {
        self.push_message(format!("{mesh}: {text}"), is_error, Some(mesh.to_string()));
    }

    fn push_message(&mut self, text: String, is_error: bool, mesh: Option<String>) {
        self.messages.push(Message {
            text,
            is_error,
            at: Instant::now(),
            mode: self.active_mode,
            mesh,
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

    pub fn drain_async_messages(&mut self) {
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

    /// The text of the last error shown (empty if none was).
    pub fn last_error(&self) -> String {
        self.messages
            .iter()
            .rev()
            .find(|m| m.is_error)
            .map_or(String::new(), |m| m.text.clone())
    }

    pub fn error_count(&self) -> usize {
        self.messages.iter().filter(|m| m.is_error).count()
    }

    /// Starts loading a mesh; the current scene stays until it succeeds.
    pub fn open(&mut self, source: MeshSource) {
        if let Some(job) = &self.mesh.load_job {
            job.cancel();
        }
        let label = source.label();
        self.mesh.load_job = Some(self.spawn(format!("loading {label}"), move |_| {
            LoadedMesh::load(source).map_err(|e| JobError::Failed(e.to_string()))
        }));
    }

    /// Recomputes the field with the current parameters (after the current
    /// job, which is cancelled).
    pub fn request_field(&mut self) {
        self.mesh.field_wanted = true;
    }

    /// Loading a mesh or computing its field.
    pub fn busy(&self) -> bool {
        self.mesh.load_job.is_some() || self.mesh.fields.busy() || self.mesh.field_wanted
    }

    pub fn field_job_progress(&self) -> Option<(&str, f32)> {
        self.mesh
            .fields
            .running()
            .map(|j| (j.label.as_str(), j.progress.fraction()))
    }

    pub fn cancel_field(&mut self) {
        if self.mesh.fields.cancel() {
            self.notify("field computation cancelled", false);
        }
        self.mesh.field_wanted = false;
    }

    /// Shows `field`, fitting the colour range to the scene's first one.
    fn show_field(&mut self, field: Arc<SdfField>) {
        if !self.mesh.range_fitted {
            self.settings
                .view
                .set_symmetric_range(crate::view::default_value_range(&field));
            self.settings.view.filter.clip = Some(
                self.viewport
                    .facing_clip_plane(field.grid.bounds().center()),
            );
            self.mesh.range_fitted = true;
        }
        self.mesh.field = Some(field);
    }

    /// Collects a loaded mesh or a computed field; starts the field a new
    /// mesh or new parameters ask for.
    pub fn poll_jobs(&mut self) {
        if let Some(result) = self.mesh.load_job.as_ref().and_then(Job::poll) {
            self.mesh.load_job = None;
            match result {
                Ok(loaded) => {
                    if let MeshSource::File(p) = &loaded.source {
                        self.settings.remember_file(p.clone());
                    }
                    self.settings.source = loaded.source.clone();
                    let label = loaded.source.label();
                    for problem in &loaded.problems {
                        self.notify_about_mesh(&label, &problem.to_string(), false);
                    }
                    // Each mesh starts with the CLI's default sign; the
                    // panel or a `sign:` step changes it until the next.
                    let (sign, why) = sdf::default_sign_mode(&loaded.prepared.report);
                    if sign != self.settings.params.sign_mode {
                        let note = format!("sign: {} ({why})", sign.name());
                        self.notify_about_mesh(&label, &note, false);
                    }
                    self.settings.params.sign_mode = sign;
                    self.mesh.scene = Some(loaded);
                    self.mesh.field = None;
                    self.mesh.field_wanted = true;
                    self.mesh.range_fitted = false;
                }
                Err(JobError::Cancelled) => {}
                Err(e) => self.notify(
                    format!("could not open: {e} — the previous scene is kept"),
                    true,
                ),
            }
        }
        if let Some(result) = self.mesh.fields.poll() {
            match result {
                Ok(field) => {
                    self.history.record_field(&field);
                    self.show_field(field);
                }
                Err(JobError::Cancelled) => {}
                Err(e) => self.notify(format!("field: {e}"), true),
            }
        }
        let now = Instant::now();
        if self.mesh.field_wanted && self.mesh.load_job.is_none() {
            let Some(scene) = &self.mesh.scene else {
                return;
            };
            self.mesh.field_wanted = false;
            let key = (
                scene.prepared.source_hash,
                self.settings.params,
                self.settings.backend,
            );
            if let Some(field) = self.mesh.fields.want(key, now) {
                // Nothing changed: the field made last is this one.
                self.show_field(field);
            }
        }
        let (Some(scene), repaint) = (&self.mesh.scene, self.ctx.clone()) else {
            return;
        };
        let mesh = scene.prepared.clone();
        let gpu = self.sdf_gpu.clone();
        let started = self.mesh.fields.start_due(now, |&(_, params, backend)| {
            let label = format!("{} field {}³", backend.name(), params.resolution);
            Job::spawn(
                label,
                move || repaint.request_repaint(),
                move |p| Ok(sdf::compute(&mesh, &params, backend, gpu.as_deref(), p)?),
            )
        });
        if started && let Some(job) = self.mesh.fields.running() {
            self.watch(job);
        }
        if !started && self.mesh.fields.busy() {
            self.ctx.request_repaint_after(FIELD_DEBOUNCE);
        }
    }

    /// Files dropped on the window: the last one is opened (the scripted
    /// `drop:` step comes through here too).
    pub fn drop_paths(&mut self, paths: Vec<std::path::PathBuf>) {
        if let Some(path) = paths.into_iter().last() {
            self.open_path(path);
        }
    }

    /// Opens a file: the viewer hands it to the mode that takes its type
    /// ([`crate::app::modes::Mode::file_kind`]) or opens it as the mesh.
    pub fn open_path(&mut self, path: std::path::PathBuf) {
        self.opened_files.push(path);
    }
}
