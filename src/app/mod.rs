//! The desktop viewer (eframe + egui with the wgpu renderer).
//!
//! The 3D view is rendered offscreen by [`crate::view::ViewRenderer`] into a
//! texture that egui shows, so the viewer, the `render` CLI and the PNG
//! export share one render path. Stages run on background threads
//! ([`crate::scene::Job`]); the UI polls for their products every frame and
//! never blocks on the GPU.
//!
//! Dependencies run one way: `viewer` (the frame loop, the script runner)
//! → [`script`] → [`modes`] (one folder per mode, each against the
//! [`modes::Mode`] trait) → [`shell`] (what the modes share: viewport,
//! notices, GPU, jobs, settings; the window's chrome).

pub mod modes;
pub mod script;
pub mod shell;
mod viewer;

pub use script::{Script, ScriptStep};
pub use viewer::Viewer;

use std::path::PathBuf;

/// How the viewer starts.
#[derive(Default)]
pub struct ViewerOptions {
    /// Files to open as File → Open opens them, before any script step:
    /// each to the mode that takes its kind, or as the mesh (the last mesh
    /// is shown, instead of the default one).
    pub open: Vec<PathBuf>,
    /// A scripted sequence (tests, screenshots for the README and the book).
    pub script: Option<Script>,
    /// The camera to start with (`--camera FILE`), instead of the saved one.
    pub camera: Option<crate::view::Camera>,
}

/// What to do instead of the window when there is no display.
pub const NO_DISPLAY_HINT: &str = "run it under a virtual X server (`xvfb-run collidoscope ...`), \
     or make images without a window with `collidoscope render`";

/// `Some(reason)` when the environment names no display to open a window
/// on (Linux and the BSDs: neither `DISPLAY` nor `WAYLAND_DISPLAY` is set).
pub fn missing_display(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<String> {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
    let needs_one = cfg!(all(unix, not(target_os = "macos")));
    (needs_one && !set("DISPLAY") && !set("WAYLAND_DISPLAY"))
        .then(|| "no display (DISPLAY and WAYLAND_DISPLAY are not set)".to_string())
}

/// Opens the viewer window and runs until it is closed.
pub fn run_viewer(options: ViewerOptions) -> anyhow::Result<()> {
    if let Some(reason) = missing_display(|name| std::env::var_os(name)) {
        anyhow::bail!("the viewer cannot open a window: {reason}; {NO_DISPLAY_HINT}");
    }
    let runtime_dir = private_runtime_dir();
    let native = eframe::NativeOptions {
        viewport: eframe::egui::ViewportBuilder::default()
            .with_title("collidoscope")
            .with_inner_size([1600.0, 1000.0])
            .with_drag_and_drop(true),
        renderer: eframe::Renderer::Wgpu,
        // A scripted run must not be shaped by (or change) a user's saved state.
        persist_window: options.script.is_none(),
        wgpu_options: wgpu_configuration(),
        ..Default::default()
    };
    let result = eframe::run_native(
        "collidoscope",
        native,
        Box::new(move |cc| Ok(Box::new(Viewer::new(cc, options)))),
    );
    if let Some(dir) = runtime_dir {
        std::fs::remove_dir_all(dir).ok();
    }
    result.map_err(|e| match e {
        // The display named could not be reached.
        eframe::Error::WinitEventLoop(_) => {
            anyhow::anyhow!("the viewer could not open a window: {e}; {NO_DISPLAY_HINT}")
        }
        e => anyhow::anyhow!("the viewer could not start: {e}"),
    })
}

/// Without `XDG_RUNTIME_DIR` the window works, but libwayland-client
/// (probed while the window and the Vulkan device are made) prints "error:
/// XDG_RUNTIME_DIR is invalid or not set in the environment." several
/// times. So the viewer sets it, for itself only, to a fresh private
/// (0700) folder in the temp dir, removed when the window closes; it
/// returns that folder.
fn private_runtime_dir() -> Option<PathBuf> {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|v| !v.is_empty()) {
        return None;
    }
    let dir = std::env::temp_dir().join(format!("collidoscope-runtime-{}", std::process::id()));
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(&dir).ok()?;
    // SAFETY: called from `run_viewer` before eframe, wgpu or any stage
    // starts a thread, so nothing reads the environment concurrently.
    unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    Some(dir)
}

/// eframe's device, asked for what the stages need beyond egui's defaults:
/// the adapter's own limits (large storage buffers for big grids) and the
/// optional features the stages use where the adapter has them
/// ([`crate::gpu::OPTIONAL_FEATURES`]).
fn wgpu_configuration() -> eframe::egui_wgpu::WgpuConfiguration {
    use eframe::egui_wgpu::{WgpuConfiguration, WgpuSetup, WgpuSetupCreateNew, wgpu};
    let setup = WgpuSetupCreateNew {
        device_descriptor: std::sync::Arc::new(|adapter: &wgpu::Adapter| wgpu::DeviceDescriptor {
            label: Some("collidoscope viewer device"),
            required_features: adapter.features() & crate::gpu::OPTIONAL_FEATURES,
            required_limits: adapter.limits(),
            ..Default::default()
        }),
        ..WgpuSetupCreateNew::without_display_handle()
    };
    WgpuConfiguration {
        wgpu_setup: WgpuSetup::CreateNew(setup),
        ..Default::default()
    }
}
