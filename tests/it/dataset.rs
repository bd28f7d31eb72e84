//! `collidoscope dataset`: resumes skip complete meshes and redo
//! half-written ones, bad meshes are recorded and skipped, shards take
//! every mesh once, one seed gives the same files, the time limit stops a
//! mesh, and no output replaces an input.

use std::path::{Path, PathBuf};
use std::time::Instant;

use collidoscope::mesh::{Mesh, box_mesh, uv_sphere};
use glam::{Mat4, Vec3};
use serde_json::Value;

use crate::common::cli::{run, run_ok};
use crate::common::mesh_files::obj;
use crate::common::scratch;

/// `n` small meshes as OBJ files in `dir/<i>/shape.obj` (one name in many
/// folders, as ShapeNet's).
fn meshes(dir: &Path, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let m: Mesh = if i % 2 == 0 {
                box_mesh(1)
            } else {
                uv_sphere(4, 6)
            };
            let m = m.transformed(Mat4::from_translation(Vec3::splat(i as f32)));
            let path = dir.join(i.to_string()).join("shape.obj");
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, obj(&m)).unwrap();
            path
        })
        .collect()
}

/// The arguments of `dataset` on the CPU with few points (unless `args`
/// say how many), the extra `args` appended.
fn arguments<'a>(manifest: &'a Path, out: &'a Path, args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec![
        "dataset",
        manifest.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--backend",
        "cpu",
    ];
    for (flag, few) in [("--near", "400"), ("--uniform", "100")] {
        if !args.contains(&flag) {
            all.extend([flag, few]);
        }
    }
    all.extend_from_slice(args);
    all
}

/// Runs `dataset` (see [`arguments`]), which must succeed.
fn dataset(manifest: &Path, out: &Path, args: &[&str]) -> String {
    run_ok(&arguments(manifest, out, args))
}

/// The results manifest's lines.
fn results(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn statuses(path: &Path) -> Vec<String> {
    results(path)
        .iter()
        .map(|r| r["status"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_rerun_skips_complete_meshes_and_redoes_half_written_ones() {
    let dir = scratch("dataset-resume");
    let input = dir.join("in");
    meshes(&input, 3);
    let out = dir.join("out");
    dataset(&input, &out, &["--report"]);
    let log = out.join("results.jsonl");
    assert_eq!(statuses(&log), ["written"; 3]);
    let npz = out.join("1/shape.npz");
    let first = std::fs::read(&npz).unwrap();

    dataset(&input, &out, &["--report"]);
    assert_eq!(statuses(&log), ["skipped"; 3]);
    assert_eq!(std::fs::read(&npz).unwrap(), first);

    // A cut-off archive, a missing sidecar, a changed report: each redone.
    std::fs::write(&npz, &first[..first.len() / 2]).unwrap();
    std::fs::remove_file(out.join("0/shape.json")).unwrap();
    std::fs::write(out.join("2/shape.report.json"), "{}").unwrap();
    dataset(&input, &out, &["--report"]);
    let lines = results(&log);
    assert_eq!(statuses(&log), ["written"; 3]);
    assert!(
        lines[1]["redone"].as_str().unwrap().contains("checksum"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2]["redone"].as_str().unwrap().contains("checksum"),
        "{}",
        lines[2]
    );
    assert_eq!(
        std::fs::read(&npz).unwrap(),
        first,
        "the redone mesh is the same"
    );

    // Other settings are other outputs.
    dataset(&input, &out, &["--report", "--seed", "5"]);
    assert_eq!(statuses(&log), ["written"; 3]);
    assert_ne!(std::fs::read(&npz).unwrap(), first);
}

#[test]
fn bad_meshes_are_recorded_and_skipped() {
    let dir = scratch("dataset-bad");
    let input = dir.join("in");
    meshes(&input, 1);
    std::fs::write(input.join("corrupt.obj"), b"\x00\x01 not a mesh \xff").unwrap();
    std::fs::write(input.join("no-faces.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\n").unwrap();
    std::fs::write(
        input.join("nan.obj"),
        "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n",
    )
    .unwrap();
    let out = dir.join("out");
    dataset(&input, &out, &[]);
    let lines = results(&out.join("results.jsonl"));
    let by_name = |name: &str| {
        lines
            .iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .unwrap()
            .clone()
    };
    for bad in ["corrupt.obj", "no-faces.obj", "nan.obj"] {
        let r = by_name(bad);
        assert_eq!(r["status"], "failed", "{r}");
        assert!(!r["error"].as_str().unwrap().is_empty(), "{r}");
    }
    assert!(
        by_name("nan.obj")["error"]
            .as_str()
            .unwrap()
            .contains("NaN")
            || by_name("nan.obj")["error"]
                .as_str()
                .unwrap()
                .contains("finite")
    );
    assert_eq!(by_name("0/shape.obj")["status"], "written");
    assert!(!out.join("corrupt.npz").exists() && !out.join("corrupt.json").exists());
}

#[test]
fn shards_cover_every_mesh_once_with_the_unsharded_files() {
    let dir = scratch("dataset-shards");
    let input = dir.join("in");
    let paths = meshes(&input, 5);
    let list = dir.join("list.txt");
    let lines: Vec<String> = paths
        .iter()
        .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
        .collect();
    std::fs::write(&list, format!("# meshes\n{}\n\n", lines.join("\n"))).unwrap();
    let whole = dir.join("whole");
    dataset(&list, &whole, &["--seed", "3"]);
    let sharded = dir.join("sharded");
    let mut seen = Vec::new();
    for shard in ["0/3", "1/3", "2/3"] {
        dataset(&list, &sharded, &["--seed", "3", "--shard", shard]);
        let name = format!("results-{}-of-3.jsonl", &shard[..1]);
        seen.extend(
            results(&sharded.join(name))
                .iter()
                .map(|r| r["path"].as_str().unwrap().to_string()),
        );
    }
    seen.sort();
    let mut all: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    all.sort();
    assert_eq!(seen, all);
    for i in 0..5 {
        let name = format!("{i}/shape.npz");
        assert_eq!(
            std::fs::read(whole.join(&name)).unwrap(),
            std::fs::read(sharded.join(&name)).unwrap(),
            "{name}: one seed, one file"
        );
    }
    // A glob takes the same meshes.
    let glob = format!("{}/*/shape.obj", input.display());
    let globbed = dir.join("globbed");
    dataset(Path::new(&glob), &globbed, &["--seed", "3"]);
    assert_eq!(
        std::fs::read(whole.join("4/shape.npz")).unwrap(),
        std::fs::read(globbed.join("4/shape.npz")).unwrap()
    );
}

#[test]
fn the_time_limit_stops_a_mesh() {
    let dir = scratch("dataset-limit");
    let input = dir.join("in");
    meshes(&input, 2);
    let out = dir.join("out");
    let started = Instant::now();
    // Millions of points would take the CPU about a minute here.
    dataset(&input, &out, &["--near", "3000000", "--time-limit", "0.5"]);
    let took = started.elapsed().as_secs_f64();
    let lines = results(&out.join("results.jsonl"));
    for r in &lines {
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(r["timed_out"], true, "{r}");
        assert!(
            r["error"].as_str().unwrap().contains("time limit of 0.5 s"),
            "{r}"
        );
    }
    assert!(took < 12.0, "two meshes of a 0.5 s limit took {took:.1} s");
    assert!(!out.join("0/shape.npz").exists());
}

#[test]
fn no_output_replaces_an_input() {
    let dir = scratch("dataset-inputs");
    let input = dir.join("in");
    meshes(&input, 1);
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    // The list file sits where the mesh's sidecar would go (its one mesh's
    // folder is the root).
    let list = out.join("shape.json");
    std::fs::write(&list, format!("{}\n", input.join("0/shape.obj").display())).unwrap();
    let before = std::fs::read(&list).unwrap();
    let output = run(&arguments(&list, &out, &["--near", "10", "--uniform", "0"]));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let r = &results(&out.join("results.jsonl"))[0];
    assert_eq!(r["status"], "failed", "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("refusing to overwrite an input"),
        "{r}"
    );
    assert_eq!(std::fs::read(&list).unwrap(), before);
}
