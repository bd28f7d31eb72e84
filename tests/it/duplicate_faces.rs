//! Opposite duplicate faces cancel in the sign, not in the distance: a cube
//! with two thin flaps sticking out of it, each a face and its reverse (two
//! opposite-duplicate pairs), has the exact distance to all its input
//! triangles — flaps included, as libigl and Warp compute it — on every
//! backend, and the cube's sign (the flaps add nothing to the winding
//! number).

use crate::common;

use collidoscope::geom::closest_point_triangle;
use collidoscope::mesh::{Mesh, PreparedMesh, box_mesh};
use collidoscope::progress::Progress;
use collidoscope::stages::sdf::{self, Backend, SdfGpu, SdfParams, SignMode};
use glam::Vec3;

/// The unit cube and two flaps on its top face's edges, each a triangle
/// and the same triangle wound the other way, reaching 0.6 out.
fn cube_with_flaps() -> Mesh {
    let mut mesh = box_mesh(1);
    let corner = |p: Vec3| {
        mesh.positions
            .iter()
            .position(|q| q.abs_diff_eq(p, 1e-6))
            .expect("a cube corner") as u32
    };
    let (a, b) = (
        corner(Vec3::new(-0.5, 0.5, -0.5)),
        corner(Vec3::new(0.5, 0.5, -0.5)),
    );
    let (c, d) = (
        corner(Vec3::new(0.5, 0.5, 0.5)),
        corner(Vec3::new(0.5, -0.5, 0.5)),
    );
    let tips = [Vec3::new(0.0, 1.1, -0.5), Vec3::new(1.1, 0.0, 0.5)];
    let first = mesh.positions.len() as u32;
    mesh.positions.extend(tips);
    mesh.triangles.extend([
        [a, b, first],
        [a, first, b],
        [c, d, first + 1],
        [d, c, first + 1],
    ]);
    mesh
}

/// The distance from `p` to the nearest of `mesh`'s triangles.
fn brute_distance(mesh: &Mesh, p: Vec3) -> f32 {
    (0..mesh.triangles.len())
        .map(|t| closest_point_triangle(p, mesh.corners(t)).distance_squared)
        .fold(f32::INFINITY, f32::min)
        .sqrt()
}

#[test]
fn flaps_of_opposite_faces_are_surface_for_the_distance_only() {
    let mesh = cube_with_flaps();
    let prepared = PreparedMesh::new(&mesh).expect("prepares");
    assert_eq!(prepared.triangle_count(), 12 + 2, "one copy of each flap");
    assert_eq!(prepared.oriented_triangles().len(), 12, "the cube orients");
    let gpu = SdfGpu::new(&common::gpu());
    let mut near_flaps = 0;
    for sign_mode in SignMode::ALL {
        let params = SdfParams {
            resolution: 12,
            sign_mode,
            ..SdfParams::default()
        };
        for backend in Backend::ALL {
            let field = sdf::compute(
                &prepared,
                &params,
                backend,
                Some(&gpu),
                &Progress::default(),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", backend.name()));
            let label = format!("{}, {}", backend.name(), sign_mode.name());
            near_flaps = 0;
            for (c, &v) in field.values.iter().enumerate() {
                let p = field.grid.center_of(c);
                let exact = brute_distance(&mesh, p);
                let cube = brute_distance(&box_mesh(1), p);
                near_flaps += usize::from(exact + 1e-3 < cube);
                assert!(
                    (v.abs() - exact).abs() <= 1e-5,
                    "{label}: cell {c} at {p}: |{v}| against {exact} (cube alone {cube})"
                );
                let inside = p.abs().max_element() < 0.5;
                assert_eq!(v < 0.0, inside, "{label}: cell {c} at {p}: sign of {v}");
            }
        }
    }
    assert!(
        near_flaps > 20,
        "{near_flaps} cells nearer a flap than the cube"
    );
}
