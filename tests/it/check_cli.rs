//! `collidoscope check`: a field written by `sdf` checks clean; planted sign
//! flips and magnitude errors are reported at exactly their indices, in
//! either axis order and in point sets; bad inputs get one error line.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use collidoscope::io::{encode_npy_f32, stored_zip};
use collidoscope::mesh::PreparedMesh;
use collidoscope::progress::Progress;
use collidoscope::stages::sdf::{self, Backend, SdfField, SdfParams, SignMode};
use common::cli::{asset, run_err, run_ok};
use serde_json::Value;

fn report(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("report written")).expect("JSON")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The exact field of spot (winding sign, CPU reference) on a 16-cell grid.
fn truth() -> SdfField {
    let mesh = PreparedMesh::new(&common::sample("spot")).unwrap();
    let params = SdfParams {
        resolution: 16,
        padding: 0.1,
        band: None,
        sign_mode: SignMode::Winding,
    };
    sdf::compute(
        &mesh,
        &params,
        Backend::CpuReference,
        None,
        &Progress::default(),
    )
    .unwrap()
}

/// `values` with three sign flips and three magnitude errors planted at
/// cells far from the surface: (the flipped cells, all planted cells).
fn plant(field: &SdfField, values: &mut [f32]) -> (Vec<usize>, BTreeSet<usize>) {
    let h = field.grid.cell_size;
    let far: Vec<usize> = (0..values.len())
        .filter(|&c| values[c].abs() > 3.0 * h)
        .collect();
    assert!(far.len() > 600, "enough cells to plant in");
    let flips = vec![far[10], far[250], far[500]];
    for &c in &flips {
        values[c] = -values[c];
    }
    for (&c, delta) in [far[100], far[300], far[600]].iter().zip([0.7, 1.3, 2.5]) {
        values[c] += values[c].signum() * delta * h;
    }
    let planted = flips
        .iter()
        .chain(&[far[100], far[300], far[600]])
        .copied()
        .collect();
    (flips, planted)
}

fn kji(field: &SdfField, c: usize) -> Value {
    let ijk = field.grid.coords(c);
    serde_json::json!([ijk.z, ijk.y, ijk.x])
}

/// The indices of the report's worst samples with an error above `floor`.
fn worst_above(r: &Value, floor: f64) -> BTreeSet<String> {
    r["worst"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["error"].as_f64().unwrap() > floor)
        .map(|w| w["index"].to_string())
        .collect()
}

#[test]
fn a_field_written_by_sdf_checks_clean_on_the_gpu() {
    let _ = common::gpu();
    let dir = common::scratch("check-clean");
    let field = dir.join("field.npy");
    let spot = asset("spot.obj");
    run_ok(&[
        "sdf",
        s(&spot),
        "--res",
        "16",
        "--backend",
        "cpu",
        "--no-cache",
        "--out",
        s(&field),
    ]);
    let out = dir.join("report.json");
    let stdout = run_ok(&["check", s(&field), "--mesh", s(&spot), "--out", s(&out)]);
    assert!(stdout.contains("0 sign disagreements"), "{stdout}");
    let r = report(&out);
    assert_eq!(r["reference"]["backend"], "gpu");
    assert_eq!(r["points"].as_u64().unwrap() as usize, truth().values.len());
    assert_eq!(r["sign_disagreements"], 0);
    assert!(r["max_abs_error_cells"].as_f64().unwrap() < 1e-4, "{r}");
    assert_eq!(r["worst"].as_array().unwrap().len(), 20);
    assert_eq!(r["histogram_unit"], "cells");
    let total: u64 = r["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(total, r["points"].as_u64().unwrap());
}

#[test]
fn planted_errors_are_found_at_their_cells_in_either_axis_order() {
    let dir = common::scratch("check-planted");
    let spot = asset("spot.obj");
    let field = truth();
    let mut values = field.values.clone();
    let (flips, planted) = plant(&field, &mut values);
    let d = field.grid.dims;
    let (nx, ny, nz) = (d.x as usize, d.y as usize, d.z as usize);
    let zyx = dir.join("zyx.npy");
    std::fs::write(&zyx, encode_npy_f32(&[nz, ny, nx], &values)).unwrap();
    let mut xyz_values = vec![0.0; values.len()];
    for (c, &v) in values.iter().enumerate() {
        let ijk = field.grid.coords(c);
        xyz_values[ijk.z as usize + nz * (ijk.y as usize + ny * ijk.x as usize)] = v;
    }
    let xyz = dir.join("xyz.npy");
    std::fs::write(&xyz, encode_npy_f32(&[nx, ny, nz], &xyz_values)).unwrap();
    let o = field.grid.origin;
    let origin = format!("{},{},{}", o.x, o.y, o.z);
    let h = field.grid.cell_size.to_string();
    let expected_flips: Vec<Value> = flips.iter().map(|&c| kji(&field, c)).collect();
    let expected_worst: BTreeSet<String> = planted
        .iter()
        .map(|&c| kji(&field, c).to_string())
        .collect();
    for (file, order, backend) in [(&zyx, "zyx", "gpu"), (&xyz, "xyz", "cpu")] {
        if backend == "gpu" {
            let _ = common::gpu();
        }
        let out = dir.join(format!("{order}.report.json"));
        run_ok(&[
            "check",
            s(file),
            "--mesh",
            s(&spot),
            "--out",
            s(&out),
            "--origin",
            &origin,
            "--cell-size",
            &h,
            "--axis-order",
            order,
            "--backend",
            backend,
        ]);
        let r = report(&out);
        assert_eq!(r["sign_disagreements"], 3, "{order}");
        assert_eq!(
            r["sign_disagreement_indices"].as_array().unwrap(),
            &expected_flips,
            "{order}"
        );
        assert_eq!(
            worst_above(&r, 0.01 * field.grid.cell_size as f64),
            expected_worst,
            "{order}: the planted cells are the worst, and only they are wrong"
        );
        let above_half: u64 = r["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["from"].as_f64().unwrap() >= 0.5)
            .map(|b| b["count"].as_u64().unwrap())
            .sum();
        assert_eq!(above_half, 6, "{order}");
        assert_eq!(r["layout"]["axis_order"], order);
    }
    // The same array read in the wrong order is wrong almost everywhere.
    let out = dir.join("wrong.json");
    run_ok(&[
        "check",
        s(&xyz),
        "--mesh",
        s(&spot),
        "--out",
        s(&out),
        "--origin",
        &origin,
        "--cell-size",
        &h,
        "--axis-order",
        "zyx",
        "--backend",
        "cpu",
    ]);
    assert!(report(&out)["sign_disagreements"].as_u64().unwrap() > 10);
}

/// `.npy` bytes of float64 `data` (numpy's default dtype).
fn npy_f64(shape: &[usize], data: &[f64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| format!("{d},")).collect();
    let mut header = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({}), }}",
        dims.join(" ")
    );
    header.push_str(&" ".repeat(63 - (10 + header.len()) % 64));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend(data.iter().flat_map(|v| v.to_le_bytes()));
    out
}

#[test]
fn point_sets_report_point_indices() {
    let dir = common::scratch("check-points");
    let spot = asset("spot.obj");
    let field = truth();
    let cells: Vec<usize> = (0..field.values.len()).step_by(7).collect();
    let mut values: Vec<f32> = cells.iter().map(|&c| field.values[c]).collect();
    let h = field.grid.cell_size;
    let flipped: Vec<usize> = (0..values.len())
        .filter(|&p| values[p].abs() > 2.0 * h)
        .step_by(97)
        .take(3)
        .collect();
    for &p in &flipped {
        values[p] = -values[p];
    }
    let points: Vec<f64> = cells
        .iter()
        .flat_map(|&c| field.grid.center_of(c).to_array())
        .map(f64::from)
        .collect();
    let values64: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
    let npz = dir.join("points.npz");
    let zip = stored_zip(&[
        ("points.npy".into(), npy_f64(&[cells.len(), 3], &points)),
        ("values.npy".into(), npy_f64(&[cells.len()], &values64)),
    ])
    .unwrap();
    std::fs::write(&npz, zip).unwrap();
    let out = dir.join("report.json");
    run_ok(&[
        "check",
        s(&npz),
        "--mesh",
        s(&spot),
        "--out",
        s(&out),
        "--cell-size",
        &h.to_string(),
    ]);
    let r = report(&out);
    assert_eq!(r["points"].as_u64().unwrap() as usize, cells.len());
    // Point sets too are checked on the GPU by default.
    assert_eq!(r["reference"]["backend"], "gpu");
    let listed: Vec<usize> = r["sign_disagreement_indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(listed, flipped);
    let worst: BTreeSet<String> = flipped.iter().map(|p| p.to_string()).collect();
    assert_eq!(worst_above(&r, 1e-3 * h as f64), worst);

    // collidoscope's own adaptive field (with its sidecar) checks clean.
    let adaptive = dir.join("adaptive.npz");
    run_ok(&[
        "sdf",
        s(&spot),
        "--adaptive",
        "--depth",
        "5",
        "--backend",
        "cpu",
        "--out",
        s(&adaptive),
    ]);
    run_ok(&["check", s(&adaptive), "--mesh", s(&spot), "--out", s(&out)]);
    let r = report(&out);
    assert_eq!(r["sign_disagreements"], 0);
    assert!(r["max_abs_error_cells"].as_f64().unwrap() < 1e-4, "{r}");
}

#[test]
fn bad_inputs_get_one_readable_line() {
    let dir = common::scratch("check-bad");
    let spot = asset("spot.obj");
    let suzanne = asset("suzanne.obj");
    let field = dir.join("field.npy");
    spot_field_8(&spot, &field);
    let out = dir.join("report.json");
    let bare = dir.join("bare.npy");
    std::fs::copy(&field, &bare).unwrap();
    let flat = dir.join("flat.npy");
    std::fs::write(&flat, encode_npy_f32(&[4, 2], &[0.0; 8])).unwrap();
    let empty = dir.join("empty.npy");
    std::fs::write(&empty, encode_npy_f32(&[0, 2, 2], &[])).unwrap();
    let lost = dir.join("lost.npz");
    std::fs::write(
        &lost,
        stored_zip(&[("points.npy".into(), encode_npy_f32(&[1, 3], &[0.0; 3]))]).unwrap(),
    )
    .unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![s(&bare)], "no collidoscope sidecar"),
        (
            vec![s(&bare), "--origin", "0,0,0"],
            "--cell-size h and --axis-order",
        ),
        (
            vec![
                s(&bare),
                "--origin",
                "1e6,0,0",
                "--cell-size",
                "0.1",
                "--axis-order",
                "zyx",
            ],
            "do not overlap",
        ),
        (
            vec![
                s(&flat),
                "--origin",
                "0,0,0",
                "--cell-size",
                "1",
                "--axis-order",
                "xyz",
            ],
            "3-D",
        ),
        (
            vec![
                s(&empty),
                "--origin",
                "0,0,0",
                "--cell-size",
                "1",
                "--axis-order",
                "zyx",
            ],
            "no cells",
        ),
        (vec![s(&lost)], "no `values` array"),
        (vec![s(&lost), "--axis-order", "xyz"], "describe grids"),
    ];
    for (field_args, expect) in &cases {
        let mut args = vec!["check"];
        args.extend(field_args);
        args.extend(["--mesh", s(&spot), "--out", s(&out), "--backend", "cpu"]);
        let err = run_err(&args);
        assert!(
            err.contains(expect),
            "{args:?}: expected {expect:?} in {err}"
        );
    }
    let parse = common::cli::exe()
        .args([
            "check",
            s(&bare),
            "--origin",
            "0,0",
            "--mesh",
            s(&spot),
            "--out",
            s(&out),
        ])
        .output()
        .unwrap();
    assert!(!parse.status.success());
    assert!(String::from_utf8_lossy(&parse.stderr).contains("three finite numbers"));
    let err = run_err(&["check", s(&field), "--mesh", s(&suzanne), "--out", s(&out)]);
    assert!(err.contains("hash"), "another mesh: {err}");
    let sidecar = dir.join("field.json");
    let err = run_err(&["check", s(&field), "--mesh", s(&spot), "--out", s(&sidecar)]);
    assert!(err.contains("overwrite"), "{err}");
    let mut meta: Value = serde_json::from_slice(&std::fs::read(&sidecar).unwrap()).unwrap();
    meta["shape"] = serde_json::json!([1, 2, 3]);
    std::fs::write(&sidecar, meta.to_string()).unwrap();
    let err = run_err(&["check", s(&field), "--mesh", s(&spot), "--out", s(&out)]);
    assert!(err.contains("does not match the array"), "{err}");
    assert!(!out.exists(), "no report from a failed check");
}

/// `sdf` of `spot` at 8 cells (CPU) written to `field`.
fn spot_field_8(spot: &Path, field: &Path) {
    run_ok(&[
        "sdf",
        s(spot),
        "--res",
        "8",
        "--backend",
        "cpu",
        "--no-cache",
        "--out",
        s(field),
    ]);
}

fn refs(a: &[String]) -> Vec<&str> {
    a.iter().map(String::as_str).collect()
}

/// A field of a slightly different mesh (its sidecar's mesh hash differs)
/// and an edited `.npy` (its checksum differs) are refused, naming the
/// flag that reads them anyway; with it they are checked, and the report
/// and the terminal say what was read past.
#[test]
fn mesh_hash_and_checksum_overrides_are_flagged() {
    let dir = common::scratch("check-overrides");
    let spot = asset("spot.obj");
    let field = dir.join("field.npy");
    spot_field_8(&spot, &field);
    // The same mesh moved by a hair: another hash, nearly the same field.
    let moved = dir.join("moved.obj");
    let text = std::fs::read_to_string(&spot).unwrap();
    let shifted: String = text
        .lines()
        .map(|l| match l.strip_prefix("v ") {
            Some(rest) => {
                let c: Vec<f32> = rest
                    .split_whitespace()
                    .map(|w| w.parse().unwrap())
                    .collect();
                format!("v {} {} {}\n", c[0] + 1e-4, c[1], c[2])
            }
            None => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&moved, shifted).unwrap();
    let out = dir.join("report.json");
    let args = |mesh: &Path, extra: &[&'static str]| {
        let mut a: Vec<String> = ["check", s(&field), "--mesh", s(mesh), "--out", s(&out)]
            .map(String::from)
            .to_vec();
        a.extend(["--backend".into(), "cpu".into()]);
        a.extend(extra.iter().map(|x| x.to_string()));
        a
    };
    let err = run_err(&refs(&args(&moved, &[])));
    assert!(err.contains("--ignore-mesh-hash"), "{err}");
    let run = common::cli::exe()
        .args(args(&moved, &["--ignore-mesh-hash"]))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("warning: mesh hash differs: values may not match this mesh"));
    let r = report(&out);
    let overrides = r["overrides"].as_array().unwrap();
    assert_eq!(overrides.len(), 1, "{r}");
    assert!(
        overrides[0]
            .as_str()
            .unwrap()
            .starts_with("mesh hash differs")
    );
    assert_eq!(
        r["sign_disagreements"], 0,
        "a hair's move flips no sign here"
    );

    // An edited .npy: its checksum no longer matches the sidecar's.
    let mut bytes = std::fs::read(&field).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&field, bytes).unwrap();
    let err = run_err(&refs(&args(&spot, &[])));
    assert!(err.contains("--ignore-checksum"), "{err}");
    run_ok(&refs(&args(&spot, &["--ignore-checksum"])));
    let r = report(&out);
    assert!(
        r["overrides"][0]
            .as_str()
            .unwrap()
            .starts_with("checksum differs"),
        "{r}"
    );
}
