//! Every WGSL file of the project parses and validates with naga, so a
//! broken shader fails `cargo test` even if no test dispatches it.

mod common;

use collidoscope::gpu::SHADERS;

#[test]
fn every_shader_validates_with_naga() {
    let on_disk: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders"))
        .expect("shaders/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wgsl"))
        .collect();
    for name in &on_disk {
        assert!(
            SHADERS.iter().any(|s| s.name == name),
            "shaders/{name} is not listed in gpu::SHADERS"
        );
    }
    for shader in SHADERS {
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

/// wgpu validates more than naga's default validator (e.g. a function that
/// can fall off its end), so every shader is also compiled on the device.
#[test]
fn every_shader_compiles_on_the_device() {
    let gpu = common::gpu();
    for shader in SHADERS {
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
