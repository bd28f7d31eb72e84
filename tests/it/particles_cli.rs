//! `collidoscope particles`: the CSV columns, the maps' counts against the
//! events per collider, and one readable line for a bad scene.

use std::path::{Path, PathBuf};
use std::process::Output;

use collidoscope::io::read_npy_f32;

fn exe(args: &[&str]) -> Output {
    let mut c = crate::common::cli::exe();
    let xdg = std::env::temp_dir().join(format!("collidoscope-xdg-{}", std::process::id()));
    std::fs::create_dir_all(&xdg).unwrap();
    c.env("XDG_RUNTIME_DIR", xdg);
    c.arg("particles").args(args).output().expect("runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "collidoscope-particles-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The sample hail scene with fewer particles.
fn small_hail(dir: &Path) -> PathBuf {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/hail.json"))
            .unwrap();
    let text = text.replace("\"count\": 100000", "\"count\": 4000");
    assert!(text.contains("\"count\": 4000"));
    let path = dir.join("hail.json");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn events_flights_and_maps_agree_cpu() {
    events_flights_and_maps_agree("cpu");
}

#[test]
fn events_flights_and_maps_agree_gpu() {
    events_flights_and_maps_agree("gpu");
}

fn events_flights_and_maps_agree(backend: &str) {
    let dir = scratch(backend);
    let scene = small_hail(&dir);
    let (events, flights, maps) = (
        dir.join("events.csv"),
        dir.join("flights.csv"),
        dir.join("maps"),
    );
    let out = exe(&[
        scene.to_str().unwrap(),
        "--frames",
        "40",
        "--dt",
        "0.0166",
        "--out",
        events.to_str().unwrap(),
        "--flights",
        flights.to_str().unwrap(),
        "--maps",
        maps.to_str().unwrap(),
        "--map-res",
        "64",
        "--backend",
        "cpu",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ev = std::fs::read_to_string(&events).unwrap();
    let mut lines = ev.lines();
    assert_eq!(
        lines.next().unwrap(),
        "frame,particle,generation,flight,collider,t0,p0x,p0y,p0z,v0x,v0y,v0z,t,x,y,z,nx,ny,nz,speed"
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert!(rows.len() > 50, "{} events", rows.len());
    assert!(rows.iter().all(|r| r.len() == 20));
    for r in &rows {
        let (frame, t) = (r[0], r[12]);
        assert!(
            t >= frame * 0.0166 - 1e-9 && t < (frame + 1.0) * 0.0166 + 1e-9,
            "{r:?}"
        );
        assert!(t > r[5], "impact after its flight's start");
    }
    let fl = std::fs::read_to_string(&flights).unwrap();
    assert_eq!(
        fl.lines().next().unwrap(),
        "frame,particle,generation,flight,t0,p0x,p0y,p0z,v0x,v0y,v0z,hit"
    );
    assert!(fl.lines().count() > rows.len() / 2);

    let mut hit_colliders = 0;
    for (i, kind) in ["plane", "plane", "plane", "cylinder", "ellipsoid", "cone"]
        .iter()
        .enumerate()
    {
        let map = read_npy_f32(&maps.join(format!("collider{i}_{kind}.npy"))).unwrap();
        assert_eq!(map.shape, vec![3, 64, 64]);
        let n = 64 * 64;
        let total: f64 = map.data[..n].iter().map(|&c| f64::from(c)).sum();
        let events_here = rows.iter().filter(|r| r[4] == i as f64).count();
        assert_eq!(
            total as usize, events_here,
            "collider {i}: map counts vs events"
        );
        hit_colliders += usize::from(events_here > 0);
        // Earliest times and speeds where counted, NaN/0 elsewhere.
        for k in 0..n {
            let (count, time, speed) = (map.data[k], map.data[n + k], map.data[2 * n + k]);
            assert_eq!(count > 0.0, time.is_finite(), "texel {k}");
            assert!(count > 0.0 || speed == 0.0);
        }
        // One figure per channel: the map with its key, axes and caption
        // around it, so larger than the map.
        for channel in ["count", "time", "speed"] {
            let png = maps.join(format!("collider{i}_{kind}_{channel}.png"));
            let (w, h) =
                image::image_dimensions(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
            assert!(w > 256 + 100 && h > 256 + 40, "{}: {w}×{h}", png.display());
        }
    }
    assert!(hit_colliders >= 4);
}

#[test]
fn bad_scenes_fail_with_one_line_naming_the_field() {
    let dir = scratch("bad");
    let good = std::fs::read_to_string(small_hail(&dir)).unwrap();
    let cases = [
        (
            good.replace("\"normal\": [0, 1, 0]", "\"normal\": [0, 0, 0]"),
            "colliders[2].normal",
        ),
        (
            good.replace("\"count\": 4000", "\"count\": -3"),
            "emitters[0].count",
        ),
        (good.replace("\"radius\": 0.6", "\"radius\": NaN"), "NaN"),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad{i}.json"));
        std::fs::write(&path, text).unwrap();
        let out = exe(&[
            path.to_str().unwrap(),
            "--out",
            dir.join("e.csv").to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{err}");
        assert!(
            lines[0].starts_with("error: ") && lines[0].contains(want),
            "{err}"
        );
        assert!(
            !dir.join("e.csv").exists(),
            "nothing written for a bad scene"
        );
    }
    let out = exe(&[
        dir.join("hail.json").to_str().unwrap(),
        "--frames",
        "0",
        "--out",
        dir.join("e.csv").to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("frames is 0"));
}

/// A window longer than 63 lifetimes would make the GPU drop lives past
/// the 64 it evaluates per particle: refused in one line that says what
/// to do, while the CPU runs it.
#[test]
fn a_window_of_more_lives_than_the_gpu_evaluates_is_refused_on_the_gpu() {
    let dir = scratch("lives");
    let scene = small_hail(&dir);
    let run = |backend: &str| {
        exe(&[
            scene.to_str().unwrap(),
            "--frames",
            "1",
            "--dt",
            "300",
            "--out",
            dir.join(format!("{backend}.csv")).to_str().unwrap(),
            "--backend",
            backend,
        ])
    };
    let out = run("gpu");
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!out.status.success(), "{err}");
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("emitters[0]") && lines[0].contains("cpu backend"),
        "{err}"
    );
    assert!(!dir.join("gpu.csv").exists());
    let out = run("cpu");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
