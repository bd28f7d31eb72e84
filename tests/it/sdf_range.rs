//! Numeric range: a mesh moved by 1e6, or scaled by
//! 1e-6 … 1e6, gives the original's field, every backend (grid: gpu,
//! gpu-brute, cpu, cpu-ref; adaptive: gpu, cpu), both sign modes, on a
//! closed mesh and an open one.
//!
//! # Tolerance
//!
//! The stages compute in a frame centred on the mesh's bounding box and
//! scaled by a power of two ([`collidoscope::mesh::Frame`]), so what is
//! left is float32 rounding *of the coordinates*: the transformed mesh's
//! vertices are the originals' times `s` rounded to float32 (½ ulp each),
//! and the grid or cube built around them is rounded again (its origin and
//! cell size, a few ulps). Moving a point or a vertex by δ moves a distance
//! by at most δ, so the field of the transformed mesh, divided by `s`,
//! differs from the original's by a few ulps of the largest coordinate
//! `L` of the original's grid. Each field's own evaluation adds its few
//! ulps of `L` too. We allow `32 · 2⁻²⁴ · L` (about 2e-6 for these unit
//! meshes, a ten-thousandth of a cell); without the frame a mesh moved by
//! 1e6 has its cell centres rounded to 1e6's ulp, 1/16, and misses this by
//! four orders of magnitude. Signs must be identical: no cell centre of
//! these grids lies within the tolerance of the surface or of the w = ½
//! sheet.
//!
//! The meshes' coordinates are multiples of ¼, so a move by 1e6 is exact
//! in float32 (the ulp there is 1/16); only the scalings round.

use crate::common;

use collidoscope::mesh::{Mesh, PreparedMesh, box_mesh};
use collidoscope::progress::Progress;
use collidoscope::stages::adaptive::{self, AdaptiveGpu, AdaptiveParams};
use collidoscope::stages::sdf::{self, Backend, SdfGpu, SdfParams, SignMode};
use glam::{Mat4, Vec3};

/// A tetrahedron with a corner at the origin (the example).
fn tetrahedron() -> Mesh {
    let positions = vec![
        Vec3::ZERO,
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
    ];
    Mesh::new(
        "tetrahedron",
        positions,
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
}

/// The box [-½, ½]³ without its +z face, moved off-centre.
fn open_box() -> Mesh {
    let cube = box_mesh(2);
    let top = |t: &[u32; 3]| t.iter().all(|&v| cube.positions[v as usize].z > 0.0);
    let triangles = cube.triangles.iter().filter(|t| !top(t)).copied().collect();
    Mesh::new("open box", cube.positions.clone(), triangles)
        .transformed(Mat4::from_translation(Vec3::new(0.25, 0.5, 0.75)))
}

/// The transforms of the issue: a move by 1e6 and five scalings.
fn transforms() -> Vec<(String, Mat4, f32)> {
    let mut t = vec![(
        "moved by 1e6".to_string(),
        Mat4::from_translation(Vec3::splat(1e6)),
        1.0,
    )];
    for s in [1e-6f32, 1e-3, 1e3, 1e6] {
        t.push((
            format!("scaled by {s:e}"),
            Mat4::from_scale(Vec3::splat(s)),
            s,
        ));
    }
    t
}

/// Largest coordinate magnitude of a box.
fn largest(min: Vec3, max: Vec3) -> f32 {
    min.abs().max(max.abs()).max_element()
}

/// `values` (of the transformed mesh, world units) equal `s · original`
/// within `tol · s`, with the same signs; names the first that does not.
fn assert_scaled(label: &str, original: &[f32], values: &[f32], s: f32, tol: f32) {
    assert_eq!(original.len(), values.len(), "{label}: sizes");
    let mut worst = 0.0f32;
    for (i, (&o, &v)) in original.iter().zip(values).enumerate() {
        let d = (v / s - o).abs();
        worst = worst.max(d);
        assert!(
            d <= tol && v.is_finite(),
            "{label}: cell {i}: {v} / {s:e} = {} against {o} (|Δ| {d:e} > {tol:e})",
            v / s
        );
        assert_eq!(
            v.is_sign_negative(),
            o.is_sign_negative(),
            "{label}: cell {i}: sign of {v} against {o}"
        );
    }
    eprintln!("{label}: worst |Δ| {worst:e} (tolerance {tol:e})");
}

fn grid_fields(
    mesh: &PreparedMesh,
    sign_mode: SignMode,
    gpu: &SdfGpu,
) -> Vec<(Backend, Vec<f32>, f32)> {
    let params = SdfParams {
        resolution: 16,
        sign_mode,
        ..SdfParams::default()
    };
    Backend::ALL
        .into_iter()
        .map(|backend| {
            let f = sdf::compute(mesh, &params, backend, Some(gpu), &Progress::default())
                .unwrap_or_else(|e| panic!("{}: {e}", backend.name()));
            let b = f.grid.bounds();
            (backend, f.values, largest(b.min, b.max))
        })
        .collect()
}

/// The adaptive field's values in canonical node order (the GPU appends
/// children in no fixed order) and the largest coordinate of its cube.
fn adaptive_field(
    mesh: &PreparedMesh,
    sign_mode: SignMode,
    backend: adaptive::Backend,
    gpu: &AdaptiveGpu,
) -> (Vec<(u32, u32)>, Vec<f32>, f32) {
    let params = AdaptiveParams {
        start_depth: 2,
        // Nodes of depth 5 (1/29 of the mesh) would collide in float32 a
        // million units out; depth 4 ones do not.
        max_depth: 4,
        sign_mode,
        ..AdaptiveParams::default()
    };
    let f = adaptive::run(mesh, &params, backend, Some(gpu))
        .unwrap_or_else(|e| panic!("adaptive {}: {e}", backend.name()));
    let mut order: Vec<usize> = (0..f.octree.nodes.len()).collect();
    order.sort_by_key(|&i| (f.octree.nodes[i].depth, f.octree.nodes[i].code));
    let keys = order
        .iter()
        .map(|&i| (f.octree.nodes[i].depth, f.octree.nodes[i].code))
        .collect();
    let values = order.iter().map(|&i| f.values[i]).collect();
    let cube = f.octree.cube;
    let far = cube.origin + Vec3::splat(cube.size);
    (keys, values, largest(cube.origin, far))
}

#[test]
fn moved_and_scaled_meshes_give_the_original_field() {
    let ctx = common::gpu();
    let (sdf_gpu, adaptive_gpu) = (SdfGpu::new(&ctx), AdaptiveGpu::new(&ctx));
    for mesh in [tetrahedron(), open_box()] {
        let original = PreparedMesh::new(&mesh).unwrap();
        for sign_mode in SignMode::ALL {
            let grids = grid_fields(&original, sign_mode, &sdf_gpu);
            let adaptive = adaptive::Backend::ALL
                .map(|b| adaptive_field(&original, sign_mode, b, &adaptive_gpu));
            for (name, transform, s) in transforms() {
                let moved = PreparedMesh::new(&mesh.transformed(transform))
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let label =
                    |what: &str| format!("{}, {name}, {}, {what}", mesh.name, sign_mode.name());
                let moved_grids = grid_fields(&moved, sign_mode, &sdf_gpu);
                for ((backend, values, _), (_, original_values, l)) in
                    moved_grids.iter().zip(&grids)
                {
                    let tol = 32.0 * f32::EPSILON / 2.0 * l;
                    assert_scaled(&label(backend.name()), original_values, values, s, tol);
                }
                for (backend, (keys, original_values, l)) in
                    adaptive::Backend::ALL.into_iter().zip(&adaptive)
                {
                    let (moved_keys, values, _) =
                        adaptive_field(&moved, sign_mode, backend, &adaptive_gpu);
                    let what = format!("adaptive {}", backend.name());
                    assert_eq!(keys, &moved_keys, "{}: the same octree", label(&what));
                    let tol = 32.0 * f32::EPSILON / 2.0 * l;
                    assert_scaled(&label(&what), original_values, &values, s, tol);
                }
            }
        }
    }
}
