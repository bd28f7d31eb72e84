//! `collidoscope interfere`: result JSON, stencil PNG and counts .npy, and
//! one readable error line for bad input.

use crate::common;
use crate::common::cli::run;

use std::path::Path;

use collidoscope::io::read_npy_f32;

/// A unit cube as OBJ text (outward, counter-clockwise faces).
fn write_cube(path: &Path, at: [f32; 3]) {
    let mut text = String::new();
    for i in 0..8 {
        let c = |bit: usize, k: usize| at[k] + if i & bit != 0 { 0.5 } else { -0.5 };
        text.push_str(&format!("v {} {} {}\n", c(1, 0), c(2, 1), c(4, 2)));
    }
    // Quads as pairs of triangles; vertex index = 1 + x + 2y + 4z.
    for f in [
        [1, 3, 4, 2],
        [5, 6, 8, 7],
        [1, 2, 6, 5],
        [3, 7, 8, 4],
        [1, 5, 7, 3],
        [2, 4, 8, 6],
    ] {
        text.push_str(&format!(
            "f {} {} {}\nf {} {} {}\n",
            f[0], f[1], f[2], f[0], f[2], f[3]
        ));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn interfere_writes_pairs_images_and_counts() {
    let dir = common::scratch("interfere-cli");
    let a = dir.join("a.obj");
    let b = dir.join("b.obj");
    let c = dir.join("c.obj");
    write_cube(&a, [0.0, 0.0, 0.0]);
    write_cube(&b, [0.7, 0.2, 0.1]);
    write_cube(&c, [3.0, 0.0, 0.0]);
    let out = dir.join("result.json");
    let s = |p: &Path| p.display().to_string();
    let o = run(&[
        "interfere",
        &s(&a),
        &s(&b),
        &s(&c),
        "--res",
        "64x48",
        "--axes",
        "x,z",
        "--out",
        &s(&out),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["interfering_pairs"], serde_json::json!([[0, 1]]));
    let objects = json["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 3);
    assert_eq!(objects[0]["file"], s(&a));
    let flags: Vec<bool> = objects
        .iter()
        .map(|o| o["interfering"].as_bool().unwrap())
        .collect();
    assert_eq!(flags, vec![true, true, false]);
    // Localisation (§4.5.5): every point is on an edge of cube 0 or 1,
    // inside the other one, and its edge is listed as interfering.
    let points = json["localised_points"].as_array().unwrap();
    assert!(!points.is_empty());
    assert_eq!(json["localised_point_count"], points.len());
    let edges = json["interfering_edges"].as_array().unwrap();
    for p in points {
        let (object, inside) = (p["object"].as_u64().unwrap(), p["inside"].as_u64().unwrap());
        assert!(matches!((object, inside), (0, 1) | (1, 0)), "point {p}");
        let edge = serde_json::json!({"object": object, "edge": p["edge"]});
        assert!(edges.contains(&edge), "{edge} not in interfering_edges");
        let x = p["position"][0].as_f64().unwrap();
        assert!((-0.6..=1.3).contains(&x), "point {p}");
    }
    assert_eq!(json["self_interference"]["pixels"], 0);
    assert_eq!(json["open_meshes"]["open_objects"], serde_json::json!([]));
    assert!(objects.iter().all(|o| o["negative_pixels"] == 0));
    // Along x, B's nearer edges hide every interfering edge (figure 4.11),
    // so only some axes see the interference (§4.5.4).
    let mut positive = 0;
    for axis in ["x", "z"] {
        let png = dir.join(format!("result_stencil_{axis}.png"));
        let img = image::open(&png).unwrap();
        assert_eq!((img.width(), img.height()), (64, 48));
        let npy = read_npy_f32(&dir.join(format!("result_counts_{axis}.npy"))).unwrap();
        assert_eq!(npy.shape, vec![48, 64]);
        positive += npy.data.iter().filter(|&&c| c > 0.0).count();
    }
    assert!(positive > 0);

    // Poses move the third cube onto the first: now every pair interferes
    // with something; the first cube stays where its file puts it.
    let poses = dir.join("poses.json");
    std::fs::write(
        &poses,
        "[null, [3.0, 0.0, 0.0], [-2.6, 0.1, 0.0, 0.0, 0.0, 0.0, 1.0]]",
    )
    .unwrap();
    let o = run(&[
        "interfere",
        &s(&a),
        &s(&b),
        &s(&c),
        "--poses",
        &s(&poses),
        "--res",
        "64x64",
        "--out",
        &s(&out),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["interfering_pairs"], serde_json::json!([[0, 2]]));
}

#[test]
fn bad_interfere_input_gets_one_error_line() {
    let dir = common::scratch("interfere-cli-bad");
    let a = dir.join("a.obj");
    write_cube(&a, [0.0, 0.0, 0.0]);
    let out = dir.join("r.json");
    let s = |p: &Path| p.display().to_string();
    let bad_poses = dir.join("poses.json");
    std::fs::write(&bad_poses, "[null, null]").unwrap();
    for args in [
        vec!["interfere", &s(&a), "--res", "64", "--out", &s(&out)],
        vec!["interfere", &s(&a), "--axes", "x,w", "--out", &s(&out)],
        vec![
            "interfere",
            &s(&a),
            "--poses",
            &s(&bad_poses),
            "--out",
            &s(&out),
        ],
        vec!["interfere", "/nonexistent/m.obj", "--out", &s(&out)],
        vec![
            "interfere",
            &s(&a),
            "--backend",
            "raster",
            "--out",
            &s(&out),
        ],
    ] {
        let o = run(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} should fail");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(
            lines[0].starts_with("error: ") && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
    }
}

/// Every backend (and `gpu`, the stencil path's old name) finds the same
/// pair and names itself in the JSON; the penetrated objects of the
/// localised points agree.
#[test]
fn interfere_backends_agree() {
    let dir = common::scratch("interfere-cli-backends");
    let a = dir.join("a.obj");
    let b = dir.join("b.obj");
    write_cube(&a, [0.0, 0.0, 0.0]);
    write_cube(&b, [0.7, 0.2, 0.1]);
    let s = |p: &Path| p.display().to_string();
    for (backend, name) in [
        ("stencil", "stencil"),
        ("gpu", "stencil"),
        ("compute", "compute"),
        ("cpu", "cpu"),
    ] {
        let out = dir.join(format!("{backend}.json"));
        let o = run(&[
            "interfere",
            &s(&a),
            &s(&b),
            "--res",
            "64x48",
            "--backend",
            backend,
            "--out",
            &s(&out),
        ]);
        assert!(
            o.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(json["backend"], name);
        assert_eq!(
            json["interfering_pairs"],
            serde_json::json!([[0, 1]]),
            "{backend}"
        );
        let points = json["localised_points"].as_array().unwrap();
        assert!(!points.is_empty(), "{backend}: no localised point");
        for p in points {
            let pair = (p["object"].as_u64().unwrap(), p["inside"].as_u64().unwrap());
            assert!(matches!(pair, (0, 1) | (1, 0)), "{backend}: point {p}");
        }
    }
}
