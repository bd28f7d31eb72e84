//! Outputs are planned before any work: an output that is the same file as
//! an input (also as `./x` or a hard link), two outputs of one file, a
//! wrong extension or a missing folder is refused in one `error:` line that
//! names the flag and the paths, and every file is left as it was. Also:
//! two writers of one `--out` leave a matching pair, `info` prints each
//! warning once, and usage errors are one line.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::cli::{asset, exe, run_ok};
use common::file_names as names;

/// A file's bytes, to check that a refused command left it as it was.
struct Kept {
    path: PathBuf,
    bytes: Vec<u8>,
}

impl Kept {
    fn new(path: &Path) -> Kept {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Kept {
            path: path.to_path_buf(),
            bytes,
        }
    }

    fn assert_unchanged(&self) {
        let now = std::fs::read(&self.path).expect("the input still exists");
        assert!(now == self.bytes, "{} was changed", self.path.display());
    }
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 scratch paths")
}

/// The command failed with exit code `code` and one `error:` line holding
/// every one of `needles`; that line.
fn assert_refused(out: &Output, code: i32, needles: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "exit code; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one error line: {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    for needle in needles {
        assert!(lines[0].contains(needle), "{needle:?} in {stderr}");
    }
    lines[0].to_string()
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    exe().current_dir(dir).args(args).output().expect("runs")
}

/// A copy of spot (a closed mesh) as `name` in `dir`.
fn mesh_copy(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::copy(asset("spot.obj"), &path).unwrap();
    path
}

const SDF: [&str; 6] = ["--res", "8", "--backend", "cpu", "--no-cache", "--out"];

#[test]
fn sdf_out_naming_its_mesh_is_refused_also_as_dot_path_and_hard_link() {
    let dir = common::scratch("refused-sdf-mesh");
    let mesh = mesh_copy(&dir, "c2.obj");
    std::fs::hard_link(&mesh, dir.join("hard.obj")).unwrap();
    let kept = Kept::new(&mesh);
    for out in ["c2.obj", "./c2.obj", "hard.obj"] {
        let args = [&["sdf", "c2.obj"][..], &SDF, &[out]].concat();
        let line = assert_refused(&run_in(&dir, &args), 1, &["--out", out, "the mesh c2.obj"]);
        assert!(line.contains("same file"), "{line}");
        kept.assert_unchanged();
    }
    assert_eq!(names(&dir), ["c2.obj", "hard.obj"]);
}

#[test]
fn check_out_naming_the_field_its_sidecar_or_the_mesh_is_refused() {
    let dir = common::scratch("refused-check");
    let mesh = mesh_copy(&dir, "m.obj");
    run_ok(&[&["sdf", s(&mesh)][..], &SDF, &[s(&dir.join("f.npy"))]].concat());
    let kept: Vec<Kept> = ["f.npy", "f.json", "m.obj"]
        .iter()
        .map(|n| Kept::new(&dir.join(n)))
        .collect();
    for (out, input) in [
        ("f.npy", "the field f.npy"),
        ("f.json", "the field's sidecar f.json"),
        ("m.obj", "--mesh m.obj"),
    ] {
        let args = [
            "check",
            "f.npy",
            "--mesh",
            "m.obj",
            "--backend",
            "cpu",
            "--out",
            out,
        ];
        assert_refused(&run_in(&dir, &args), 1, &["--out", input]);
        kept.iter().for_each(Kept::assert_unchanged);
    }
    assert_eq!(names(&dir), ["f.json", "f.npy", "m.obj"]);
}

#[test]
fn radial_out_naming_its_mesh_is_refused() {
    let dir = common::scratch("refused-radial");
    let kept = Kept::new(&mesh_copy(&dir, "cube.obj"));
    let args = [
        "radial",
        "cube.obj",
        "--axis",
        "0,-1,0,0,1,0",
        "--normal",
        "1,0,0",
        "--res",
        "16x8",
        "--backend",
        "cpu",
        "--out",
        "cube.obj",
    ];
    assert_refused(
        &run_in(&dir, &args),
        1,
        &["--out cube.obj", "the mesh cube.obj"],
    );
    kept.assert_unchanged();
    assert_eq!(names(&dir), ["cube.obj"]);
}

/// A scene of a few hundred hail particles as `base.json` in `dir`.
fn small_hail(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(asset("hail.json")).unwrap();
    let text = text.replace("\"count\": 100000", "\"count\": 300");
    assert!(text.contains("\"count\": 300"));
    let path = dir.join("base.json");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn particles_out_or_flights_naming_the_scene_or_each_other_is_refused() {
    let dir = common::scratch("refused-particles");
    let kept = Kept::new(&small_hail(&dir));
    let run = |extra: &[&str]| {
        let args = [
            &[
                "particles",
                "base.json",
                "--frames",
                "2",
                "--backend",
                "cpu",
            ][..],
            extra,
        ]
        .concat();
        run_in(&dir, &args)
    };
    let r = run(&["--out", "base.json"]);
    assert_refused(&r, 1, &["--out base.json", "the scene base.json"]);
    let r = run(&["--out", "e.csv", "--flights", "base.json"]);
    assert_refused(&r, 1, &["--flights base.json", "the scene base.json"]);
    let r = run(&["--out", "e.csv", "--flights", "./e.csv"]);
    assert_refused(
        &r,
        1,
        &["--out e.csv", "--flights ./e.csv", "share the name"],
    );
    kept.assert_unchanged();
    assert_eq!(names(&dir), ["base.json"]);
}

#[test]
fn simulate_out_naming_the_scene_or_its_mesh_is_refused() {
    let dir = common::scratch("refused-simulate");
    std::fs::create_dir(dir.join("meshes")).unwrap();
    let mesh = Kept::new(&mesh_copy(&dir.join("meshes"), "cube.obj"));
    let scene = dir.join("s.json");
    std::fs::write(
        &scene,
        r#"{"timestep": 0.0166, "ground": {"point": [0,0,0], "normal": [0,1,0]},
            "bodies": [{"mesh": "meshes/cube.obj", "position": [0,2,0]}]}"#,
    )
    .unwrap();
    let scene = Kept::new(&scene);
    let run = |out: &str| {
        let args = [
            "simulate",
            "s.json",
            "--frames",
            "2",
            "--backend",
            "cpu",
            "--out",
            out,
        ];
        run_in(&dir, &args)
    };
    assert_refused(&run("s.json"), 1, &["--out s.json", "the scene s.json"]);
    let line = assert_refused(&run("meshes/cube.obj"), 1, &["--out meshes/cube.obj"]);
    assert!(line.contains("the scene's mesh"), "{line}");
    scene.assert_unchanged();
    mesh.assert_unchanged();
    assert_eq!(names(&dir), ["meshes", "s.json"]);
}

#[test]
fn sdf_out_whose_extension_is_not_what_is_written_is_refused() {
    let dir = common::scratch("refused-extension");
    let spot = asset("spot.obj");
    let other = dir.join("x.obj");
    std::fs::write(&other, b"v 0 0 0\n").unwrap();
    let kept = Kept::new(&other);
    let r = exe()
        .args([&["sdf", s(&spot)][..], &SDF, &[s(&other)]].concat())
        .output()
        .unwrap();
    assert_refused(&r, 1, &["--out", s(&other), "must end in .npy"]);
    let npy = dir.join("x.npy");
    let r = exe()
        .args(
            [
                &["sdf", s(&spot), "--adaptive", "--depth", "4"][..],
                &SDF,
                &[s(&npy)],
            ]
            .concat(),
        )
        .output()
        .unwrap();
    assert_refused(&r, 1, &["--out", "must end in .npz"]);
    kept.assert_unchanged();
    assert_eq!(names(&dir), ["x.obj"]);
}

#[test]
fn sdf_out_in_a_missing_folder_is_refused_before_the_field_is_computed() {
    let dir = common::scratch("refused-folder");
    let missing = dir.join("no-such-folder");
    let out = missing.join("f.npy");
    // The CPU reference on a 128³ grid takes minutes: the refusal must not
    // wait for it.
    let start = std::time::Instant::now();
    let r = exe()
        .args([
            "sdf",
            s(&asset("spot.obj")),
            "--res",
            "128",
            "--backend",
            "cpu-ref",
            "--no-cache",
            "--out",
            s(&out),
        ])
        .output()
        .unwrap();
    assert_refused(&r, 1, &["--out", s(&missing), "does not exist"]);
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    assert!(names(&dir).is_empty());
}

#[test]
fn every_writing_subcommand_refuses_an_output_naming_its_input() {
    let dir = common::scratch("refused-commands");
    let a = mesh_copy(&dir, "a.obj");
    let poses = dir.join("poses.json");
    std::fs::write(&poses, "[null, [0.1, 0, 0]]").unwrap();
    let scene = small_hail(&dir);
    let bench_scene = dir.join("particles.json");
    std::fs::copy(&scene, &bench_scene).unwrap();
    let camera = dir.join("camera.json");
    std::fs::write(&camera, b"{}").unwrap();
    let kept: Vec<Kept> = [&a, &poses, &scene, &bench_scene, &camera]
        .into_iter()
        .map(|p| Kept::new(p))
        .collect();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["tritri", "a.obj", "a.obj", "--out", "a.obj"],
            "model A a.obj",
        ),
        (
            vec!["collide", "a.obj", "a.obj", "--out", "./a.obj"],
            "mesh A a.obj",
        ),
        (vec!["render", "a.obj", "--out", "a.obj"], "the mesh a.obj"),
        (
            vec![
                "render",
                "a.obj",
                "--camera",
                "camera.json",
                "--out",
                "camera.json",
            ],
            "--camera camera.json",
        ),
        (
            vec![
                "interfere",
                "a.obj",
                "a.obj",
                "--poses",
                "poses.json",
                "--out",
                "poses.json",
            ],
            "--poses poses.json",
        ),
        (
            vec![
                "bench",
                "particles",
                "--scene",
                "particles.json",
                "--out",
                ".",
            ],
            "--scene particles.json",
        ),
    ];
    for (args, input) in cases {
        assert_refused(&run_in(&dir, &args), 1, &["--out", input]);
        kept.iter().for_each(Kept::assert_unchanged);
    }
    // The viewer's exports are planned before the window opens.
    let r = run_in(
        &dir,
        &["a.obj", "--script", "compute; export-view:a.obj; quit"],
    );
    assert_refused(&r, 2, &["export-view:", "the file a.obj"]);
    let r = run_in(
        &dir,
        &["--script", "open:a.obj; export-field:nowhere/f.npy; quit"],
    );
    assert_refused(&r, 2, &["export-field:", "does not exist"]);
    kept.iter().for_each(Kept::assert_unchanged);
    assert_eq!(
        names(&dir),
        [
            "a.obj",
            "base.json",
            "camera.json",
            "particles.json",
            "poses.json"
        ]
    );
}

/// Two `sdf` runs writing one `--out` at once: each time, the field and
/// the sidecar left are one run's pair (the sidecar's checksum matches).
#[test]
fn two_sdf_runs_writing_one_out_leave_a_matching_pair() {
    let dir = common::scratch("refused-concurrent");
    let out = dir.join("f.npy");
    let spot = asset("spot.obj");
    for round in 0..12 {
        let children: Vec<_> = ["0.1", "0.3"]
            .iter()
            .map(|pad| {
                exe()
                    .args([&["sdf", s(&spot), "--pad", pad][..], &SDF, &[s(&out)]].concat())
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .expect("runs")
            })
            .collect();
        for mut child in children {
            assert!(child.wait().unwrap().success(), "round {round}");
        }
        collidoscope::io::read_verified(&out, &dir.join("f.json"))
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert_eq!(names(&dir), ["f.json", "f.npy"], "round {round}");
    }
}

#[test]
fn info_prints_each_warning_once() {
    let report = run_ok(&["info", s(&asset("teapot.obj"))]);
    let warnings: Vec<&str> = report
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert!(!warnings.is_empty(), "the teapot is open: {report}");
    let mut unique = warnings.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), warnings.len(), "{report}");
}

#[test]
fn a_usage_error_is_one_line_and_help_is_kept() {
    let r = exe().args(["sdf", "--bogus"]).output().unwrap();
    let line = assert_refused(&r, 2, &[]);
    assert_eq!(
        line,
        "error: unexpected argument '--bogus' for 'sdf' (see 'collidoscope sdf --help')"
    );
    let r = exe().args(["sdf", "m.obj"]).output().unwrap();
    assert_refused(&r, 2, &["--out <OUT>", "see 'collidoscope sdf --help'"]);
    let help = exe().args(["sdf", "--help"]).output().unwrap();
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("Usage:") && text.lines().count() > 10,
        "{text}"
    );
}
