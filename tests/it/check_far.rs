//! `check` far from the origin: collidoscope's own field of a mesh moved
//! by 1e4 or 1e6 checks with no error and no sign disagreement, and a point
//! set given in float64 a million units away is checked where its points
//! are, not at their float32 roundings (1/16 apart there).

use crate::common;

use std::path::{Path, PathBuf};

use collidoscope::io::{encode_npy_f32, stored_zip};
use collidoscope::mesh::{Mesh, PreparedMesh};
use collidoscope::progress::Progress;
use collidoscope::stages::sdf::points::signed_at_points;
use collidoscope::stages::sdf::{Backend, SignMode};
use common::cli::run_ok;
use glam::{DVec3, Mat4, Vec3};

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 scratch paths")
}

/// `mesh` as an OBJ file (float32 values written to round-trip).
fn write_obj(mesh: &Mesh, path: &Path) {
    let mut text = String::new();
    for p in &mesh.positions {
        text.push_str(&format!("v {} {} {}\n", p.x, p.y, p.z));
    }
    for t in &mesh.triangles {
        text.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    std::fs::write(path, text).expect("write the mesh");
}

/// Spot scaled by `scale` (a power of two) with its coordinates rounded to
/// multiples of `scale`/1024: a move by 1e4 (scale 1) or 1e6 (scale 64)
/// is then exact in float32.
fn spot(scale: f32) -> Mesh {
    let mut m = common::sample("spot").transformed(Mat4::from_scale(Vec3::splat(scale)));
    let quantum = scale / 1024.0;
    for p in &mut m.positions {
        *p = (*p / quantum).round() * quantum;
    }
    m
}

/// `check FIELD --mesh MESH --backend BACKEND --out OUT`: the report.
fn check(field: &Path, mesh: &Path, backend: &str, out: &Path) -> serde_json::Value {
    let (field, mesh, out) = (s(field), s(mesh), s(out));
    run_ok(&[
        "check",
        field,
        "--mesh",
        mesh,
        "--backend",
        backend,
        "--out",
        out,
    ]);
    serde_json::from_slice(&std::fs::read(out).expect("report")).expect("JSON")
}

#[test]
fn sdf_then_check_far_from_the_origin_finds_nothing_wrong() {
    let _ = common::gpu();
    let dir = common::scratch("check-far");
    for (offset, scale) in [(1e4f32, 1.0f32), (1e6, 64.0)] {
        let mesh = spot(scale).transformed(Mat4::from_translation(Vec3::splat(offset)));
        let obj = dir.join(format!("spot-{offset:e}.obj"));
        write_obj(&mesh, &obj);
        let field = dir.join(format!("field-{offset:e}.npy"));
        // A field of collidoscope's own, CPU-exact.
        let mut sdf = vec!["sdf", s(&obj), "--res", "16", "--backend", "cpu"];
        sdf.extend(["--no-cache", "--out", s(&field)]);
        run_ok(&sdf);
        for backend in ["cpu", "gpu"] {
            let out = dir.join(format!("report-{offset:e}-{backend}.json"));
            let r = check(&field, &obj, backend, &out);
            let label = format!("moved by {offset:e}, checked on {backend}");
            assert_eq!(r["sign_disagreements"], 0, "{label}: {r}");
            let cells = r["max_abs_error_cells"].as_f64().expect("cells");
            assert!(cells < 1e-4, "{label}: max error {cells} cells");
        }
    }
}

/// A float64 `.npy` of `values` with `shape`.
fn npy_f64(shape: &str, values: &[f64]) -> Vec<u8> {
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    crate::inputs_refused::npy_bytes("<f8", shape, &data)
}

/// Points 0.01 to 0.03 off spot's surface (scaled by 64) on both sides,
/// along each vertex's direction from the centre.
fn points_near(mesh: &Mesh) -> Vec<Vec3> {
    let centre = mesh.bounds().center();
    mesh.positions
        .iter()
        .step_by(3)
        .enumerate()
        .map(|(i, &p)| {
            let d = [-0.03, -0.01, 0.01, 0.03][i % 4];
            p + (p - centre).normalize() * d
        })
        .collect()
}

#[test]
fn float64_points_far_away_are_checked_where_they_are() {
    let _ = common::gpu();
    let dir = common::scratch("check-far-points");
    let near = spot(64.0);
    let points = points_near(&near);
    let prepared = PreparedMesh::new(&near).expect("prepares");
    let exact = signed_at_points(
        &prepared,
        &points,
        SignMode::Winding,
        Backend::CpuFast,
        None,
        &Progress::default(),
    )
    .expect("exact values");
    let offset = 1e6;
    let far = near.transformed(Mat4::from_translation(Vec3::splat(offset as f32)));
    let obj = dir.join("spot-far.obj");
    write_obj(&far, &obj);
    let far_points: Vec<f64> = points
        .iter()
        .flat_map(|p| (p.as_dvec3() + DVec3::splat(offset)).to_array())
        .collect();
    let npz: PathBuf = dir.join("points.npz");
    let n = points.len();
    let zip = stored_zip(&[
        (
            "points.npy".into(),
            npy_f64(&format!("({n}, 3)"), &far_points),
        ),
        ("values.npy".into(), encode_npy_f32(&[n], &exact.values)),
    ])
    .expect("zip");
    std::fs::write(&npz, zip).expect("write");
    for backend in ["cpu", "gpu"] {
        let r = check(
            &npz,
            &obj,
            backend,
            &dir.join(format!("report-{backend}.json")),
        );
        assert_eq!(r["sign_disagreements"], 0, "{backend}: {r}");
        let worst = r["max_abs_error"].as_f64().expect("error");
        assert!(worst < 1e-4, "{backend}: max error {worst}");
    }
}
