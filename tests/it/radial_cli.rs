//! `collidoscope radial`: the (nz, nθ) float32 array, its JSON sidecar and
//! PNG for a cylinder around the axis on both backends, and one readable
//! error line for bad input.

use crate::common;
use crate::common::cli::run;

use std::path::Path;

use collidoscope::io::{read_npy_f32, read_verified};

/// The library's 64-segment cylinder (radius 0.5, y from −0.5 to 0.5) as OBJ.
fn write_cylinder(path: &Path) {
    let mesh = collidoscope::mesh::cylinder(64);
    let mut text = String::new();
    for p in &mesh.positions {
        text.push_str(&format!("v {} {} {}\n", p.x, p.y, p.z));
    }
    for t in &mesh.triangles {
        text.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn radial_writes_the_unwrap_of_a_cylinder() {
    let dir = common::scratch("radial-cli");
    let mesh = dir.join("cyl.obj");
    write_cylinder(&mesh);
    let chord = 0.5 * (std::f32::consts::PI / 64.0).cos();
    for backend in ["cpu", "gpu"] {
        let out = dir.join(format!("unwrap_{backend}.npy"));
        let s = |p: &Path| p.display().to_string();
        let o = run(&[
            "radial",
            &s(&mesh),
            "--axis",
            "0,-0.25,0,0,0.75,0",
            "--normal",
            "1,0,0",
            "--res",
            "64x16",
            "--out",
            &s(&out),
            "--png",
            "--backend",
            backend,
        ]);
        assert!(
            o.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let arr = read_npy_f32(&out).unwrap();
        assert_eq!(arr.shape, vec![16, 64], "{backend}");
        // z = (k + ½)/16 of the axis from y = −0.25: the cylinder ends at
        // y = 0.5, i.e. z = 0.75.
        for k in 0..16 {
            let z = (k as f32 + 0.5) / 16.0;
            for i in 0..64 {
                let v = arr.data[k * 64 + i];
                if z < 0.75 {
                    assert!(
                        v >= chord * 0.9999 && v <= 0.50005,
                        "{backend} θ {i} z {k}: {v}"
                    );
                } else {
                    assert!(
                        v.is_infinite(),
                        "{backend} θ {i} z {k}: {v} beyond the cylinder"
                    );
                }
            }
        }
        let (_, meta) = read_verified(&out, &out.with_extension("json")).unwrap();
        assert_eq!(meta["resolution"]["n_theta"], 64);
        assert_eq!(meta["shape"], serde_json::json!([16, 64]));
        assert_eq!(meta["u"], serde_json::json!([1.0, 0.0, 0.0]));
        assert_eq!(meta["w"], serde_json::json!([0.0, 1.0, 0.0]));
        assert!(meta["inf"].as_str().unwrap().contains("no face"));
        assert_eq!(meta["covered_cells"], 12 * 64);
        let png = image::open(out.with_extension("png")).unwrap().to_rgba8();
        assert_eq!(png.dimensions(), (64, 16));
        assert_ne!(
            png.get_pixel(0, 0),
            png.get_pixel(0, 15),
            "covered vs empty"
        );
    }
}

#[test]
fn bad_radial_input_gets_one_error_line() {
    let dir = common::scratch("radial-cli-bad");
    let mesh = dir.join("cyl.obj");
    write_cylinder(&mesh);
    let out = dir.join("u.npy");
    let (m, o) = (mesh.display().to_string(), out.display().to_string());
    let cases: [(&[&str], &str); 7] = [
        (
            &["--axis", "1,1,1,1,1,1", "--normal", "1,0,0"],
            "degenerate",
        ),
        (&["--axis", "0,0,0,0,1,0", "--normal", "0,2,0"], "parallel"),
        (
            &["--axis", "0,0,0,0,1,0", "--normal", "1,0,0", "--res", "0x8"],
            "resolution",
        ),
        (
            &[
                "--axis",
                "0,0,0,0,1,0",
                "--normal",
                "1,0,0",
                "--res",
                "63x8",
            ],
            "even",
        ),
        (
            &[
                "--axis",
                "0,0,0,0,1,0",
                "--normal",
                "1,0,0",
                "--res",
                "64x99999",
            ],
            "16384",
        ),
        (
            &["--axis", "0,0,0,1", "--normal", "1,0,0"],
            "6 comma-separated",
        ),
        (
            &[
                "--axis",
                "0,0,0,0,1,0",
                "--normal",
                "1,0,0",
                "--backend",
                "gpux",
            ],
            "gpu, gpu-compute or cpu",
        ),
    ];
    for (args, phrase) in cases {
        let mut all = vec!["radial", m.as_str(), "--out", o.as_str()];
        all.extend_from_slice(args);
        let r = run(&all);
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert!(!r.status.success(), "{args:?} should fail");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(
            lines[0].starts_with("error: ") && lines[0].contains(phrase),
            "{args:?}: {stderr}"
        );
        assert!(!out.exists(), "{args:?} wrote {o}");
    }
}
