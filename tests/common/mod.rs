//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses a different subset

pub mod book;
pub mod cli;

use collidoscope::gpu::GpuContext;
use collidoscope::mesh::Mesh;
use collidoscope::progress::Progress;
use eframe::egui_wgpu::wgpu;

pub mod collide_scenes;
pub mod fuzz;
pub mod gltf;
pub mod interfere_runs;
pub mod interfere_scenes;
pub mod mesh_files;
pub mod shader_mirror;
pub mod viewer;

/// The GPU context for tests. There is no silent skip: without an adapter
/// the test fails and says what to install.
pub fn gpu() -> GpuContext {
    gpu_without(wgpu::Features::empty())
}

/// [`gpu`] with `missing` left out of the device's features: the
/// fallback paths of devices without them.
pub fn gpu_without(missing: wgpu::Features) -> GpuContext {
    match GpuContext::headless_without(missing) {
        Ok(g) => g,
        Err(e) => panic!(
            "GPU tests need a Vulkan adapter; on a machine without a GPU run `apt install mesa-vulkan-drivers libvulkan1` (lavapipe). Error: {e}"
        ),
    }
}

pub fn sample(name: &str) -> Mesh {
    collidoscope::assets::load_sample(name).unwrap_or_else(|e| panic!("sample {name}: {e}"))
}

/// A scratch directory under the system temp dir, unique to this call
/// (tests of one binary run in parallel in one process).
pub fn scratch(name: &str) -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "collidoscope-test-{name}-{}-{n}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// The names of the files in `dir`, sorted.
pub fn file_names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read the scratch dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs one stage with each of `backends` (`run` gets the backend and a
/// fresh progress), naming the backend that fails: for tests that compare
/// backends.
pub fn run_each<B: Copy + std::fmt::Debug, P, E: std::fmt::Display, const N: usize>(
    backends: [B; N],
    mut run: impl FnMut(B, &Progress) -> Result<P, E>,
) -> [P; N] {
    backends.map(|backend| {
        run(backend, &Progress::default()).unwrap_or_else(|e| panic!("{backend:?} failed: {e}"))
    })
}
