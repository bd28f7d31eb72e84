//! Every WGSL shader module of the project parses and validates with naga,
//! so a broken shader fails `cargo test` even if no test dispatches it; the
//! modules are loaded as the stages load them, through `gpu::shaders` with
//! their `//!include` lines resolved.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use collidoscope::gpu::{FILES, IncludeError, embedded, resolve, shaders};

/// Every `.wgsl` under `dir`, by path relative to `root`, with `/`.
fn wgsl_on_disk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("shaders/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            wgsl_on_disk(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "wgsl") {
            let rel = path.strip_prefix(root).expect("under shaders/");
            let parts: Vec<_> = rel.iter().map(|c| c.to_string_lossy()).collect();
            out.insert(parts.join("/"));
        }
    }
}

#[test]
fn every_shader_validates_with_naga() {
    for shader in shaders() {
        let module = naga::front::wgsl::parse_str(shader.code)
            .unwrap_or_else(|e| panic!("{}: {}", shader.name, e.emit_to_string(shader.code)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}: {}", shader.name, e.emit_to_string(shader.code)));
    }
}

/// No file forgotten: every `.wgsl` under `shaders/` is embedded in
/// `gpu::FILES`, and every one is a module or included by one.
#[test]
fn every_wgsl_file_is_embedded_and_reached() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut on_disk = BTreeSet::new();
    wgsl_on_disk(&root, &root, &mut on_disk);
    let embedded_paths: BTreeSet<String> = FILES.iter().map(|(p, _)| p.to_string()).collect();
    assert_eq!(
        on_disk, embedded_paths,
        "the .wgsl files under shaders/ (left) and those embedded in gpu::FILES (right) differ"
    );
    let mut reached = BTreeSet::new();
    for shader in shaders() {
        let resolved = resolve(shader.name, embedded).expect("every module resolves");
        assert_eq!(resolved.code, shader.code, "{} as loaded", shader.name);
        reached.extend(resolved.files);
    }
    let unreached: Vec<_> = embedded_paths.difference(&reached).collect();
    assert!(
        unreached.is_empty(),
        "shaders/ files no module includes: {unreached:?}"
    );
}

#[test]
fn a_missing_include_names_the_file_and_its_includer() {
    let files = [
        ("main.wgsl", "//!include shared/a.wgsl\nfn main() {}\n"),
        ("shared/a.wgsl", "//!include shared/gone.wgsl\n"),
    ];
    let lookup = |p: &str| files.iter().find(|(f, _)| *f == p).map(|(_, t)| *t);
    let err = resolve("main.wgsl", lookup).unwrap_err();
    assert_eq!(
        err,
        IncludeError::Missing {
            file: "shared/gone.wgsl".into(),
            by: "shared/a.wgsl".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "shared/gone.wgsl is not a WGSL file of shaders/ (included by shared/a.wgsl)"
    );
}

#[test]
fn an_include_cycle_names_the_chain() {
    let files = [
        ("main.wgsl", "//!include shared/a.wgsl\n"),
        ("shared/a.wgsl", "//!include shared/b.wgsl\n"),
        ("shared/b.wgsl", "//!include shared/a.wgsl\n"),
    ];
    let lookup = |p: &str| files.iter().find(|(f, _)| *f == p).map(|(_, t)| *t);
    let err = resolve("main.wgsl", lookup).unwrap_err();
    assert_eq!(
        err.to_string(),
        "include cycle: shared/a.wgsl → shared/b.wgsl → shared/a.wgsl"
    );
    let selfish = [("main.wgsl", "//!include main.wgsl\n")];
    let lookup = |p: &str| selfish.iter().find(|(f, _)| *f == p).map(|(_, t)| *t);
    assert_eq!(
        resolve("main.wgsl", lookup).unwrap_err(),
        IncludeError::Cycle(vec!["main.wgsl".into(), "main.wgsl".into()])
    );
}

/// wgpu validates more than naga's default validator (e.g. a function that
/// can fall off its end), so every shader is also compiled on the device.
#[test]
fn every_shader_compiles_on_the_device() {
    let gpu = common::gpu();
    for shader in shaders() {
        let scope = gpu
            .device
            .push_error_scope(eframe::egui_wgpu::wgpu::ErrorFilter::Validation);
        let _module = gpu.shader(shader);
        if let Some(e) = pollster::block_on(scope.pop()) {
            panic!(
                "{} does not compile on {}: {e}",
                shader.name,
                gpu.describe()
            );
        }
    }
}
