//! The desktop viewer (eframe + egui with the wgpu renderer).
//!
//! The 3D view is rendered offscreen by [`crate::view::ViewRenderer`] into a
//! texture that egui shows, so the viewer, the `render` CLI and the PNG
//! export share one render path. Stages run on background threads
//! ([`crate::scene::Job`]); the UI polls for their products every frame and
//! never blocks on the GPU.
//!
//! Dependencies run one way: [`viewer`] (the frame loop, the script runner)
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
    /// Meshes to open instead of the default scene (the last one is shown).
    pub open: Vec<PathBuf>,
    /// A scripted sequence (tests, screenshots for the README).
    pub script: Option<Script>,
    /// The camera to start with (`--camera FILE`), instead of the saved one.
    pub camera: Option<crate::view::Camera>,
}

/// Opens the viewer window and runs until it is closed.
pub fn run_viewer(options: ViewerOptions) -> anyhow::Result<()> {
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
    eframe::run_native(
        "collidoscope",
        native,
        Box::new(move |cc| Ok(Box::new(Viewer::new(cc, options)))),
    )
    .map_err(|e| anyhow::anyhow!("the viewer could not start: {e}"))
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
