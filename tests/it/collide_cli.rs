//! The `collide` subcommand: the contacts JSON it writes, and one readable
//! error line for bad input.

use crate::common;

use common::cli::exe;

fn spot_obj() -> String {
    format!("{}/assets/spot.obj", env!("CARGO_MANIFEST_DIR"))
}

/// `collide` writes the documented JSON: world positions, depth ≥ 0, unit
/// normals, body/other indices and feature names, with parameters and
/// timings; separated meshes give an empty list and succeed.
#[test]
fn cli_collide_writes_contacts_json_and_empty_list_when_apart() {
    let dir = common::scratch("collide-cli");
    let out = dir.join("contacts.json");
    let spot = spot_obj();
    let status = exe()
        .args([
            "collide",
            &spot,
            &spot,
            "--pose-b",
            "0.2,0.1,0,0,0.38,0,0.92",
            "--res",
            "24",
            "--plane",
            "0,1,0,-0.4",
            "--line",
            "-2,0,0,2,0.05,0.02",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("runs");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("json")).expect("parses");
    let contacts = json["contacts"].as_array().expect("contacts");
    assert!(!contacts.is_empty());
    let mut features = std::collections::BTreeSet::new();
    for c in contacts {
        let p = c["position"].as_array().expect("position");
        let n: Vec<f64> = c["normal"]
            .as_array()
            .expect("normal")
            .iter()
            .map(|v| v.as_f64().expect("number"))
            .collect();
        assert_eq!(p.len(), 3);
        assert!((n.iter().map(|v| v * v).sum::<f64>().sqrt() - 1.0).abs() < 1e-3);
        assert!(c["depth"].as_f64().expect("depth") >= 0.0);
        assert!(c["body"].as_u64().expect("body") < 4 && c["other"].as_u64().expect("other") < 4);
        features.insert(c["feature"].as_str().expect("feature").to_string());
    }
    assert!(
        features.contains("vertex") && features.contains("cell"),
        "{features:?}"
    );
    assert!(json["parameters"]["resolution"].as_u64() == Some(24));
    assert!(json["timings"].as_object().is_some_and(|t| !t.is_empty()));
    assert!(out.with_extension("csv").exists());

    let apart = dir.join("apart.json");
    let status = exe()
        .args([
            "collide",
            &spot,
            &spot,
            "--pose-b",
            "5,0,0",
            "--res",
            "16",
            "--backend",
            "cpu",
            "--out",
        ])
        .arg(&apart)
        .output()
        .expect("runs");
    assert!(status.status.success());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&apart).expect("json")).expect("parses");
    assert_eq!(json["contacts"].as_array().map(Vec::len), Some(0));
}

#[test]
fn cli_collide_bad_input_gives_one_error_line() {
    let spot = spot_obj();
    for args in [
        vec![
            "collide",
            spot.as_str(),
            spot.as_str(),
            "--pose-a",
            "1,2",
            "--out",
            "x.json",
        ],
        vec![
            "collide",
            spot.as_str(),
            "--sphere",
            "0,0,0,-1",
            "--out",
            "x.json",
        ],
        vec!["collide", spot.as_str(), "--out", "x.json"],
        vec![
            "collide",
            "/nonexistent.obj",
            spot.as_str(),
            "--out",
            "x.json",
        ],
        vec![
            "collide",
            spot.as_str(),
            "--plane",
            "0,0,0,1",
            "--out",
            "x.json",
        ],
    ] {
        let out = exe().args(&args).output().expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(lines[0].starts_with("error:"), "{args:?}: {stderr}");
    }
}
