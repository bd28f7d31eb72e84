//! `collidoscope bench particles`: a tiny run of every study on whatever
//! adapter there is (lavapipe here), and one readable line for sizes out of
//! range or beyond the adapter.

use crate::common;

use common::cli::{run_err, run_ok};

#[test]
fn a_tiny_run_writes_every_study_json_csv_plot_and_table() {
    let _ = common::gpu();
    let dir = common::scratch("bench-particles");
    let stdout = run_ok(&[
        "bench",
        "particles",
        "--particles",
        "2000,8000",
        "--map-res",
        "16,64",
        "--map-particles",
        "2000",
        "--goal-particles",
        "8000",
        "--frames",
        "20",
        "--repeats",
        "3",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(stdout.contains("Particles benchmark"), "{stdout}");
    assert!(
        stdout.contains("| study | particles | map |") && stdout.contains("| ---: |"),
        "no Markdown table: {stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("particles.json")).unwrap()).unwrap();
    let rows = json["rows"].as_array().unwrap();
    let plan: Vec<(&str, u64, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["study"].as_str().unwrap(),
                r["particles"].as_u64().unwrap(),
                r["map_res"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        plan,
        [
            ("count", 2000, 512),
            ("count", 8000, 512),
            ("maps", 2000, 16),
            ("maps", 2000, 64),
            ("goal", 8000, 512),
        ]
    );
    let timestamps = json["timestamps"].as_bool().unwrap();
    for r in rows {
        assert_eq!(r["colliders"], 6, "{r}");
        assert!(r["windows"].as_u64().unwrap() >= 3, "{r}");
        assert!(r["impacts"].as_f64().unwrap() > 0.0, "no impacts: {r}");
        assert!(r["frame_ms"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["particles_per_s"].as_f64().unwrap() > 0.0, "{r}");
        // Warm windows: the scan lists a few particles for the solve, not all.
        let (solved, n) = (
            r["solved"].as_f64().unwrap(),
            r["particles"].as_f64().unwrap(),
        );
        assert!(solved > 0.0 && solved < 0.25 * n, "{r}");
        // The live particles: a few from birth with the kept state, and
        // timed both ways.
        let from_birth = r["points_from_birth"].as_f64().unwrap();
        assert!(from_birth > 0.0 && from_birth < 0.25 * n, "{r}");
        assert!(r["points_ms"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["points_birth_ms"].as_f64().unwrap() > 0.0, "{r}");
        if timestamps {
            let (scan, solve) = (
                r["scan_ms"].as_f64().unwrap(),
                r["solve_ms"].as_f64().unwrap(),
            );
            assert!(scan > 0.0 && solve > 0.0, "{r}");
            let eval = r["evaluation_ms"].as_f64().unwrap();
            let compute = r["compute_ms"].as_f64().unwrap();
            assert!(eval > 0.0 && compute >= eval, "{r}");
            let rate = r["particles_per_s"].as_f64().unwrap();
            let n = r["particles"].as_f64().unwrap();
            assert!((rate * eval / 1e3 / n - 1.0).abs() < 1e-6, "{r}");
        } else {
            assert!(r["compute_ms"].is_null(), "{r}");
        }
    }
    // Four times the map side: sixteen times the atlas to read back.
    let bytes = |i: usize| rows[i]["readback_bytes"].as_f64().unwrap();
    assert!(
        bytes(3) - bytes(2) > 10.0 * 3.0 * 6.0 * 16.0 * 16.0 * 4.0,
        "{rows:?}"
    );
    let paced = &rows[4]["paced"];
    assert_eq!(paced["frames"], 20, "{paced}");
    let depth = paced["ring_depth"].as_u64().unwrap();
    assert!((1..=3).contains(&depth), "{paced}");
    assert!(rows[4]["goal"].is_boolean(), "{}", rows[4]);
    assert!(rows[..4].iter().all(|r| r["paced"].is_null()));

    let csv = std::fs::read_to_string(dir.join("particles.csv")).unwrap();
    assert!(
        csv.starts_with("study,particles,colliders,map_res,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + rows.len(), "{csv}");
    let png = std::fs::read(dir.join("particles.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "particles.png is not a PNG");
}

#[test]
fn sizes_out_of_range_or_beyond_the_adapter_are_refused_in_one_line() {
    let dir = common::scratch("bench-particles-bad");
    let out = dir.to_str().unwrap();
    let err = run_err(&[
        "bench",
        "particles",
        "--studies",
        "count",
        "--particles",
        "0",
        "--out",
        out,
    ]);
    assert!(err.contains("count study: 0 particles"), "{err}");
    let err = run_err(&[
        "bench",
        "particles",
        "--studies",
        "maps",
        "--map-res",
        "8192",
        "--out",
        out,
    ]);
    assert!(err.contains("map resolution 8192"), "{err}");
    // Six maps of 4096² stack into an atlas 24,576 texels high.
    let _ = common::gpu();
    let err = run_err(&[
        "bench",
        "particles",
        "--studies",
        "maps",
        "--map-res",
        "4096",
        "--map-particles",
        "1000",
        "--out",
        out,
    ]);
    assert!(err.contains("24576 texels high"), "{err}");
    assert!(!dir.join("particles.json").exists());
}
