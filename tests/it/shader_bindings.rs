//! Bind-group layouts come from the WGSL (`gpu::reflect`), and every bind
//! group is checked against them: every shader module reflects, its
//! bindings are what its declarations say, and a buffer bound in the wrong
//! place (two swapped, a uniform where storage is declared, one too small,
//! a misspelt name) fails where the bind group is made, with a message
//! naming the binding, not as a wrong result.

use crate::common;

use collidoscope::gpu::{
    Access, Binding, GpuContext, Kernels, shader_bindings, shader_source, shaders,
};
use eframe::egui_wgpu::wgpu;

#[test]
fn every_shader_module_reflects_with_unique_bindings_and_names() {
    for shader in shaders() {
        let reflected = shader_bindings(shader);
        let mut indices: Vec<_> = reflected.bindings.iter().map(|b| b.binding).collect();
        let mut names: Vec<_> = reflected.bindings.iter().map(|b| &b.name).collect();
        let n = indices.len();
        indices.dedup();
        names.sort();
        names.dedup();
        assert_eq!((indices.len(), names.len()), (n, n), "{}", shader.name);
        for b in &reflected.bindings {
            let buffer = matches!(b.kind, Binding::Uniform | Binding::Storage(_));
            assert_eq!(buffer, b.min_size > 0, "{} `{}`", shader.name, b.name);
        }
    }
}

#[test]
fn the_corner_shader_reflects_as_declared() {
    let reflected = shader_bindings(shader_source("sdf_corners.wgsl"));
    let got: Vec<_> = reflected
        .bindings
        .iter()
        .map(|b| (b.binding, b.name.as_str(), b.kind, b.min_size))
        .collect();
    let (ro, rw) = (
        Binding::Storage(Access::ReadOnly),
        Binding::Storage(Access::ReadWrite),
    );
    assert_eq!(
        got,
        [
            (0, "params", Binding::Uniform, 16),
            (1, "positions", ro, 4),
            (2, "vertices", ro, 4),
            (3, "tri_pos", rw, 16),
        ]
    );
}

#[test]
fn a_variant_module_adds_its_bindings_to_the_layout() {
    let grid = shader_bindings(shader_source("sdf.wgsl"));
    let packet = shader_bindings(shader_source("sdf_packet.wgsl"));
    let union = grid.union(packet).unwrap();
    let names: Vec<_> = union.bindings.iter().map(|b| b.name.as_str()).collect();
    assert!(grid.by_name("nodes").is_none());
    assert_eq!(
        names,
        [
            "params", "tri_pos", "normals", "values", "closest", "nodes", "counters"
        ]
    );
    // A module declaring one binding under another name does not join.
    let other = shader_bindings(shader_source("sdf_corners.wgsl"));
    let err = grid.union(other).unwrap_err().to_string();
    assert!(err.contains("@binding(1)"), "{err}");
}

fn buffer(gpu: &GpuContext, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// sdf_corners.wgsl's kernels and a buffer for each of its bindings:
/// params (uniform), positions, vertices, tri_pos.
fn corners(gpu: &GpuContext) -> (Kernels, [wgpu::Buffer; 4]) {
    let kernels = Kernels::new(gpu, "Corners", shader_source("sdf_corners.wgsl"));
    let storage = wgpu::BufferUsages::STORAGE;
    let buffers = [
        buffer(gpu, 16, wgpu::BufferUsages::UNIFORM),
        buffer(gpu, 36, storage),
        buffer(gpu, 12, storage),
        buffer(gpu, 48, storage),
    ];
    (kernels, buffers)
}

/// The error of binding `order` (indices into the buffers) in binding order.
fn positional_error(kernels: &Kernels, gpu: &GpuContext, buffers: &[&wgpu::Buffer]) -> String {
    let resources = buffers.iter().map(|b| b.as_entire_binding()).collect();
    match kernels.try_bind_group_of(gpu, resources) {
        Ok(_) => panic!("the bind group was made"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_right_buffers_bind_by_position_and_by_name() {
    let gpu = common::gpu();
    let (kernels, [params, positions, vertices, tri_pos]) = corners(&gpu);
    kernels.bind_group(&gpu, &[&params, &positions, &vertices, &tri_pos]);
    let named = [
        ("tri_pos", &tri_pos),
        ("params", &params),
        ("vertices", &vertices),
        ("positions", &positions),
    ];
    kernels.bind(&gpu, &named);
}

#[test]
fn a_uniform_swapped_with_a_storage_buffer_fails_naming_the_binding() {
    let gpu = common::gpu();
    let (kernels, [params, positions, vertices, tri_pos]) = corners(&gpu);
    let err = positional_error(&kernels, &gpu, &[&positions, &params, &vertices, &tri_pos]);
    assert!(err.starts_with("Corners: @binding(0) `params`"), "{err}");
    assert!(err.contains("UNIFORM"), "{err}");
}

#[test]
fn a_buffer_smaller_than_its_wgsl_type_fails_naming_the_binding() {
    let gpu = common::gpu();
    let (kernels, [params, positions, vertices, _]) = corners(&gpu);
    // tri_pos is array<vec4f>: at least 16 bytes; vertices (12) swapped in.
    let err = positional_error(&kernels, &gpu, &[&params, &positions, &vertices, &vertices]);
    assert!(err.contains("@binding(3) `tri_pos`"), "{err}");
    assert!(
        err.contains("12 bytes bound, the WGSL type needs 16"),
        "{err}"
    );
}

#[test]
fn a_missing_or_extra_resource_fails_listing_the_bindings() {
    let gpu = common::gpu();
    let (kernels, [params, positions, vertices, _]) = corners(&gpu);
    let err = positional_error(&kernels, &gpu, &[&params, &positions, &vertices]);
    assert!(
        err.contains("3 resources for the 4 bindings of sdf_corners.wgsl (params, positions, vertices, tri_pos)"),
        "{err}"
    );
}

#[test]
fn a_wrong_or_missing_name_fails_naming_it() {
    let gpu = common::gpu();
    let (kernels, [params, positions, vertices, tri_pos]) = corners(&gpu);
    let bind = |named: Vec<(&str, &wgpu::Buffer)>| {
        let named = named
            .into_iter()
            .map(|(n, b)| (n, b.as_entire_binding()))
            .collect();
        kernels
            .try_bind(&gpu, named)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let err = bind(vec![
        ("params", &params),
        ("positions", &positions),
        ("vertices", &vertices),
        ("tri_pos", &tri_pos),
        ("normals", &tri_pos),
    ]);
    assert!(err.contains("`normals` is no binding"), "{err}");
    let err = bind(vec![
        ("params", &params),
        ("position", &positions),
        ("vertices", &vertices),
        ("tri_pos", &tri_pos),
    ]);
    assert!(
        err.contains("@binding(1) `positions` of sdf_corners.wgsl is not given"),
        "{err}"
    );
    // Named, a uniform given for storage fails the same way.
    let err = bind(vec![
        ("params", &params),
        ("positions", &params),
        ("vertices", &vertices),
        ("tri_pos", &tri_pos),
    ]);
    assert!(err.contains("@binding(1) `positions`"), "{err}");
}

#[test]
#[should_panic(expected = "Corners: @binding(0) `params`")]
fn the_panicking_bind_group_names_the_binding_too() {
    let gpu = common::gpu();
    let (kernels, [params, positions, vertices, tri_pos]) = corners(&gpu);
    kernels.bind_group(&gpu, &[&tri_pos, &positions, &vertices, &params]);
}
