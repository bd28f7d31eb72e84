//! `collidoscope simulate`: the trajectory format, the physical checks on
//! its output (both backends) and one readable line for a bad scene.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use collidoscope::mesh::box_mesh;
use collidoscope::sim::simulate::scene_file::Trajectory;

/// A unit cube centred at (0, 0.5, 0) in its own coordinates: resting on
/// the ground at the identity pose.
fn write_box(dir: &Path) {
    let m = box_mesh(2);
    let mut text = String::new();
    for p in &m.positions {
        text.push_str(&format!("v {} {} {}\n", p.x, p.y + 0.5, p.z));
    }
    for t in &m.triangles {
        text.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    std::fs::create_dir_all(dir.join("meshes")).expect("dir");
    std::fs::write(dir.join("meshes/cube.obj"), text).expect("obj");
}

/// A scratch folder `name` with the box of [`write_box`] and `scene` as
/// its scene.json: the folder and the scene's path.
fn box_scene(name: &str, scene: &str) -> (PathBuf, PathBuf) {
    let dir = common::scratch(name);
    write_box(&dir);
    let path = dir.join("scene.json");
    std::fs::write(&path, scene).expect("scene");
    (dir, path)
}

/// Frames of each run: a dropped box lands and rests by frame 40 (the
/// stacked ones stand from the start, creeping by under 2 mm), so the
/// checks from frame 50 (rest) and 100 (energy) on see 100 frames or more
/// at rest.
const FRAMES: usize = 200;

/// The last frame.
const LAST: usize = FRAMES - 1;

/// [`box_scene`] with the usual constants and one box at height `y`.
fn one_box_scene(name: &str, y: f32) -> (PathBuf, PathBuf) {
    let scene = format!(
        r#"{{"timestep": 0.0166, "substeps": 1, "gravity": [0,-9.81,0],
            "ground": {{"point": [0,0,0], "normal": [0,1,0]}}, "restitution": 0.2, "friction": 0.5,
            "bodies": [{{"mesh": "meshes/cube.obj", "position": [0,{y},0]}}]}}"#
    );
    box_scene(name, &scene)
}

fn simulate(scene: &Path, out: &Path, backend: &str, broad: &str) -> std::process::Output {
    simulate_with(scene, out, backend, broad, FRAMES, &[])
}

fn simulate_with(
    scene: &Path,
    out: &Path,
    backend: &str,
    broad: &str,
    frames: usize,
    extra: &[&str],
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_collidoscope"))
        .env_remove("RUST_BACKTRACE")
        .args(["simulate"])
        .arg(scene)
        .args(["--frames", &frames.to_string()])
        .args([
            "--res",
            "16",
            "--backend",
            backend,
            "--broad",
            broad,
            "--out",
        ])
        .arg(out)
        .args(extra)
        .output()
        .expect("runs")
}

/// The trajectory a successful run wrote to `out`.
fn trajectory(run: &std::process::Output, out: &Path, what: &str) -> Trajectory {
    assert!(
        run.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&std::fs::read(out).expect("read")).expect("trajectory")
}

#[test]
fn simulate_writes_a_trajectory_that_passes_the_physical_checks() {
    // A box at rest, a stack of two beside it, one box dropped onto a
    // static one.
    let scene = r#"{"timestep": 0.0166, "substeps": 1, "gravity": [0,-9.81,0],
        "ground": {"point": [0,0,0], "normal": [0,1,0]}, "restitution": 0.2, "friction": 0.5,
        "bodies": [
          {"mesh": "meshes/cube.obj", "position": [0,0,0]},
          {"mesh": "meshes/cube.obj", "position": [3,0,0]},
          {"mesh": "meshes/cube.obj", "position": [3,1.02,0], "orientation": [0,0,0,1]},
          {"mesh": "meshes/cube.obj", "position": [-3,0,0], "static": true},
          {"mesh": "meshes/cube.obj", "position": [-3,2.5,0], "velocity": [0,-6,0], "density": 500}
        ]}"#;
    let (dir, scene) = box_scene("simulate", scene);
    // The image-space broad phase with the GPU backend runs gpu-detect.
    for (backend, broad) in [("cpu", "sweep"), ("gpu", "sweep"), ("gpu", "image")] {
        let out = dir.join(format!("trajectory-{backend}-{broad}.json"));
        let run = simulate(&scene, &out, backend, broad);
        let backend = format!("{backend} ({broad})");
        let t = trajectory(&run, &out, &backend);
        assert_eq!(t.frames.len(), FRAMES, "{backend}");
        assert!(
            (t.frames[0].t - 0.0166).abs() < 1e-6,
            "{backend}: t = {}",
            t.frames[0].t
        );
        let last = t.frames.last().expect("frames");
        assert!(last.contacts > 0, "{backend}");
        let y = |f: usize, b: usize| t.frames[f].bodies[b].position[1];
        // The resting box: poses of the mesh's coordinates, so y stays 0.
        for f in 50..FRAMES {
            assert!(
                y(f, 0).abs() < 0.03,
                "{backend} frame {f}: resting box at {}",
                y(f, 0)
            );
        }
        assert!(
            (y(LAST, 0) - y(50, 0)).abs() < 0.01,
            "{backend}: the resting box drifted"
        );
        // The stack stands.
        assert!(
            (y(LAST, 2) - 1.0).abs() < 0.06,
            "{backend}: top box at {}",
            y(LAST, 2)
        );
        assert!((last.bodies[2].position[0] - 3.0).abs() < 0.1, "{backend}");
        // The static box never moves; the dropped one lands on it.
        assert_eq!(last.bodies[3].position, [-3.0, 0.0, 0.0], "{backend}");
        for f in 0..FRAMES {
            assert!(
                y(f, 4) > 0.8,
                "{backend} frame {f}: dropped box at {}",
                y(f, 4)
            );
        }
        assert!(
            (y(LAST, 4) - 1.0).abs() < 0.06,
            "{backend}: dropped box at {}",
            y(LAST, 4)
        );
        // Energy (per unit mass, the dropped box) does not grow once it lands.
        let v = |f: usize| glam::Vec3::from(t.frames[f].bodies[4].velocity).length();
        let e = |f: usize| 0.5 * v(f) * v(f) + 9.81 * y(f, 4);
        for f in 100..FRAMES {
            assert!(
                e(f) <= e(99) + 9.81 * 0.005,
                "{backend} frame {f}: {} > {}",
                e(f),
                e(99)
            );
        }
    }
}

#[test]
fn an_exact_body_simulates_and_passes_the_physical_checks() {
    // An exact box, turned 45° about y so that its sides cross the static
    // box's top face, dropped onto it: their pair is narrowed by the
    // triangle–triangle stage (the ground's by the fields).
    let scene = r#"{"timestep": 0.0166, "ground": {"point": [0,0,0], "normal": [0,1,0]},
        "bodies": [
          {"mesh": "meshes/cube.obj", "position": [0,0,0], "static": true},
          {"mesh": "meshes/cube.obj", "position": [0,2.5,0], "velocity": [0,-6,0],
           "orientation": [0,0.38268343,0,0.92387953], "exact": true}
        ]}"#;
    let (dir, scene) = box_scene("simulate-exact", scene);
    // The GPU backend runs gpu-detect: the resident step has no exact phase.
    for backend in ["cpu", "gpu"] {
        let out = dir.join(format!("trajectory-{backend}.json"));
        let run = simulate(&scene, &out, backend, "sweep");
        let t = trajectory(&run, &out, backend);
        let y = |f: usize| t.frames[f].bodies[1].position[1];
        for f in 0..FRAMES {
            assert!(y(f) > 0.8, "{backend} frame {f}: exact box at {}", y(f));
        }
        assert!(
            (y(LAST) - 1.0).abs() < 0.06,
            "{backend}: exact box rests at {}",
            y(LAST)
        );
        assert!(t.frames[LAST].contacts > 0, "{backend}");
        let v = |f: usize| glam::Vec3::from(t.frames[f].bodies[1].velocity).length();
        let e = |f: usize| 0.5 * v(f) * v(f) + 9.81 * y(f);
        for f in 100..FRAMES {
            assert!(
                e(f) <= e(99) + 9.81 * 0.005,
                "{backend} frame {f}: {} > {}",
                e(f),
                e(99)
            );
        }
    }
}

/// `--contact-threshold`: a box resting on the ground settles about the
/// threshold above it (less the solver's slop), on both backends; a
/// negative threshold is one readable line and writes nothing.
#[test]
fn a_contact_threshold_keeps_a_resting_box_that_far_above_the_ground() {
    let (dir, scene) = one_box_scene("simulate-threshold", 0.03);
    // It rests there from the first frame on.
    for backend in ["cpu", "gpu"] {
        let out = dir.join(format!("t-{backend}.json"));
        let run = simulate_with(
            &scene,
            &out,
            backend,
            "sweep",
            60,
            &["--contact-threshold", "0.03"],
        );
        let t = trajectory(&run, &out, backend);
        let last = t.frames.last().expect("frames");
        let y = last.bodies[0].position[1];
        assert!(y > 0.015 && y < 0.035, "{backend}: the box rests at {y}");
        assert!(last.contacts > 0, "{backend}");
    }
    let out = dir.join("t-bad.json");
    let run = simulate_with(
        &scene,
        &out,
        "cpu",
        "sweep",
        FRAMES,
        &["--contact-threshold=-0.1"],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert_eq!(
        stderr.lines().filter(|l| !l.trim().is_empty()).count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("--contact-threshold"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn a_bad_scene_gets_one_line_naming_the_field() {
    let (dir, scene) = box_scene(
        "simulate-bad",
        r#"{"timestep": 0.01, "bodies": [{"mesh": "meshes/cube.obj", "orientation": [0,0,1]}]}"#,
    );
    let run = simulate(&scene, &dir.join("t.json"), "cpu", "sweep");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("bodies[0].orientation: expected 4 numbers, got 3"),
        "{stderr}"
    );
    assert!(!dir.join("t.json").exists());
}

#[test]
fn bench_simulate_writes_a_row_per_body_count_and_backend() {
    let dir = common::scratch("bench-simulate");
    let run = Command::new(env!("CARGO_BIN_EXE_collidoscope"))
        .args(["bench", "simulate", "--bodies", "4,9", "--triangles", "200"])
        .args([
            "--res",
            "16",
            "--warm",
            "2",
            "--repeats",
            "2",
            "--cpu",
            "--broad",
            "sweep,image",
            "--image-res",
            "64",
            "--out",
        ])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let csv = std::fs::read_to_string(dir.join("simulate.csv")).expect("csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "bodies,triangles,samples_per_body,backend,broad,frames,wall_ms,upload_ms,kernels_ms,\
             gpu_ms,readback_ms,response_ms,pairs,contacts,target_ms,record_ms,pipelined_ms,\
             broad_gpu_ms,narrow_gpu_ms,solve_gpu_ms,integrate_gpu_ms,summary_gpu_ms"
        )
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let keys: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r[0], r[3], r[4])).collect();
    // The resident step sweeps only.
    let per_count = |n| {
        [
            (n, "gpu", "sweep"),
            (n, "gpu-detect", "sweep"),
            (n, "gpu-detect", "image"),
            (n, "cpu", "sweep"),
            (n, "cpu", "image"),
        ]
    };
    assert_eq!(keys, [per_count("4"), per_count("9")].concat());
    for r in &rows {
        let wall: f64 = r[6].parse().expect("wall");
        let parts: f64 = [7, 8, 10, 11]
            .iter()
            .map(|&k| r[k].parse::<f64>().expect("ms"))
            .sum();
        assert!(
            wall > 0.0 && parts <= wall * 1.5 + 0.5,
            "{r:?}: phases {parts} vs wall {wall}"
        );
        // The resident step's columns: its rows only.
        let resident = r[3] == "gpu";
        for k in [15, 16] {
            assert_eq!(!r[k].is_empty(), resident, "{r:?}: column {k}");
        }
        if resident {
            let pipelined: f64 = r[16].parse().expect("pipelined");
            assert!(pipelined > 0.0 && r[7] == "0.0000", "{r:?}");
        }
    }
    assert!(dir.join("simulate.png").exists() && dir.join("simulate.json").exists());
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("Pipeline benchmark"), "{stdout}");
}

/// A run whose trajectory could pass the stated limit is refused at once,
/// with one line and no file, instead of writing for days.
#[test]
fn simulate_refuses_a_trajectory_over_the_limit_before_running() {
    let scene = r#"{"timestep": 0.0166, "substeps": 1, "gravity": [0,-9.81,0],
        "ground": {"point": [0,0,0], "normal": [0,1,0]}, "restitution": 0.2, "friction": 0.5,
        "bodies": [{"mesh": "meshes/cube.obj", "position": [0,0,0]},
                   {"mesh": "meshes/cube.obj", "position": [3,0,0]}]}"#;
    let (dir, scene) = box_scene("simulate-frames-limit", scene);
    let out = dir.join("trajectory.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_collidoscope"))
        .env_remove("RUST_BACKTRACE")
        .arg("simulate")
        .arg(&scene)
        .args(["--frames", "4294967295", "--backend", "cpu", "--out"])
        .arg(&out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed().as_secs() > 60 {
            child.kill().expect("kill");
            panic!("simulate --frames 4294967295 was still running after a minute");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let run = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    assert!(
        stderr.trim().lines().count() == 1 && stderr.contains("the limit is 16 GiB"),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// The bound holds for the longest numbers serde writes.
#[test]
fn the_trajectory_bound_holds_for_the_longest_numbers() {
    use collidoscope::sim::simulate::scene_file::{BodyFrame, Frame, trajectory_bytes};
    let x = -1.175_494_2e-38f32;
    let frame = Frame {
        t: -1.234_567_890_123_456_7e-300,
        contacts: usize::MAX,
        bodies: vec![
            BodyFrame {
                position: [x; 3],
                orientation: [x; 4],
                velocity: [x; 3],
                angular_velocity: [x; 3],
            };
            3
        ],
    };
    let text = serde_json::to_string(&Trajectory {
        frames: vec![frame.clone(), frame],
    })
    .expect("json");
    assert!(
        text.len() as u64 <= trajectory_bytes(2, 3),
        "{}",
        text.len()
    );
}

/// A negative number given to a numeric flag reaches the flag's own check
/// (which names the flag and the range), instead of being taken for an
/// unknown flag.
#[test]
fn negative_values_reach_the_flags_own_checks() {
    let (dir, scene) = one_box_scene("simulate-negative", 0.0);
    let out = dir.join("t.json");
    let (scene, out) = (scene.to_string_lossy(), out.to_string_lossy());
    let simulate = common::cli::run_err(&[
        "simulate",
        &scene,
        "--frames",
        "1",
        "--contact-threshold",
        "-1",
        "--out",
        &out,
    ]);
    assert!(simulate.contains("--contact-threshold"), "{simulate}");
    let hail = common::cli::asset("hail.json");
    let events = dir.join("events.csv");
    let particles = common::cli::run_err(&[
        "particles",
        &hail.to_string_lossy(),
        "--dt",
        "-1",
        "--backend",
        "cpu",
        "--out",
        &events.to_string_lossy(),
    ]);
    assert!(particles.contains("dt is -1"), "{particles}");
}
