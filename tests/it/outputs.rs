//! Outputs never destroy data: `--out` that names a special file, a link, a
//! directory or its own sidecar is refused with one `error:` line; only the
//! named files are written; a field's sidecar records the field's checksum;
//! stale temporaries of dead processes go.

use crate::common;
use crate::common::cli::run;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use collidoscope::io::CHECKSUM_KEY;
use collidoscope::stages::sdf::export::read_field;

fn spot() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/spot.obj")
        .display()
        .to_string()
}

/// `sdf spot.obj` on a small grid, CPU, no cache, into `out`.
fn sdf(out: &Path, extra: &[&str]) -> Output {
    let out = out.display().to_string();
    let mut args = vec![
        "sdf",
        "--res",
        "8",
        "--backend",
        "cpu",
        "--no-cache",
        "--out",
        &out,
    ];
    args.extend_from_slice(extra);
    let spot = spot();
    args.insert(1, &spot);
    run(&args)
}

/// The command failed with one `error:` line that contains `needle`.
fn assert_refused(o: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "should fail; stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one error line: {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    assert!(lines[0].contains(needle), "{needle:?} in {stderr}");
}

fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

fn fifo(path: &Path) {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(ok.success());
}

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path)
        .unwrap()
        .file_type()
        .is_fifo()
}

#[test]
fn sdf_writes_only_the_field_and_its_sidecar_which_records_the_checksum() {
    let dir = common::scratch("outputs-pair");
    let out = dir.join("field.npy");
    let o = sdf(&out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(names(&dir), ["field.json", "field.npy"]);
    let (field, meta) = read_field(&out).expect("the pair matches");
    assert_eq!(field.data.len(), field.shape.iter().product::<usize>());
    let recorded = meta[CHECKSUM_KEY].as_str().unwrap();
    assert_eq!(recorded.len(), 16);
    // The pair of another run is detected: a field beside an older sidecar.
    let old_meta = std::fs::read(dir.join("field.json")).unwrap();
    let o = sdf(&out, &["--pad", "0.25"]);
    assert!(o.status.success());
    std::fs::write(dir.join("field.json"), old_meta).unwrap();
    let err = read_field(&out).unwrap_err();
    assert!(err.contains("does not belong to"), "{err}");
}

#[test]
fn sdf_out_that_is_its_own_sidecar_is_refused() {
    let dir = common::scratch("outputs-self");
    let o = sdf(&dir.join("x.json"), &[]);
    assert_refused(&o, "share the name");
    assert!(names(&dir).is_empty(), "{:?}", names(&dir));
    let o = sdf(&dir.join("x.json"), &["--adaptive", "--depth", "4"]);
    assert!(!o.status.success());
    assert!(names(&dir).is_empty());
}

#[test]
fn special_files_directories_and_links_are_refused_and_kept() {
    let dir = common::scratch("outputs-special");
    let pipe = dir.join("pipe.npy");
    fifo(&pipe);
    assert_refused(&sdf(&pipe, &[]), "not a regular file");
    assert!(is_fifo(&pipe), "the FIFO is still a FIFO");

    // A special file as the sidecar is refused as well.
    let sidecar_pipe = dir.join("other.json");
    fifo(&sidecar_pipe);
    assert_refused(&sdf(&dir.join("other.npy"), &[]), "not a regular file");
    assert!(is_fifo(&sidecar_pipe));

    let sub = dir.join("sub.npy");
    std::fs::create_dir(&sub).unwrap();
    assert_refused(&sdf(&sub, &[]), "is a directory");
    assert!(sub.is_dir());

    let target = dir.join("target.npy");
    std::fs::write(&target, b"precious").unwrap();
    let link = dir.join("link.npy");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_refused(&sdf(&link, &[]), "symbolic link");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), b"precious");
    assert_eq!(
        names(&dir),
        [
            "link.npy",
            "other.json",
            "pipe.npy",
            "sub.npy",
            "target.npy"
        ]
    );
}

#[test]
fn every_writing_subcommand_refuses_a_special_out() {
    let dir = common::scratch("outputs-commands");
    let pipe = dir.join("pipe");
    fifo(&pipe);
    let p = pipe.display().to_string();
    let s = spot();
    for args in [
        vec!["tritri", &s, &s, "--out", &p],
        vec!["collide", &s, &s, "--out", &p],
        vec!["render", &s, "--out", &p],
        vec!["interfere", &s, &s, "--out", &p],
    ] {
        assert_refused(&run(&args), "not a regular file");
        assert!(is_fifo(&pipe), "{args:?} kept the FIFO");
    }
    // collide's CSV is --out with extension .csv.
    let csv = dir.join("contacts.csv").display().to_string();
    assert_refused(&run(&["collide", &s, &s, "--out", &csv]), "share the name");
    // A benchmark's files go into --out; one of them a directory: refused.
    let bench = dir.join("bench");
    std::fs::create_dir_all(bench.join("collide.json")).unwrap();
    let b = bench.display().to_string();
    assert_refused(
        &run(&["bench", "collide", "--out", &b, "--repeats", "1"]),
        "is a directory",
    );
    assert_eq!(names(&bench), ["collide.json"]);
    assert_eq!(names(&dir), ["bench", "pipe"]);
}

#[test]
fn interfere_refuses_before_writing_when_one_of_its_files_is_a_link() {
    let dir = common::scratch("outputs-interfere");
    let out = dir.join("result.json");
    std::fs::write(&out, b"old result").unwrap();
    let target = dir.join("elsewhere.png");
    std::fs::write(&target, b"precious").unwrap();
    std::os::unix::fs::symlink(&target, dir.join("result_stencil_z.png")).unwrap();
    let (s, o) = (spot(), out.display().to_string());
    let r = run(&["interfere", &s, &s, "--axes", "z", "--out", &o]);
    assert_refused(&r, "symbolic link");
    assert_eq!(std::fs::read(&out).unwrap(), b"old result");
    assert_eq!(std::fs::read(&target).unwrap(), b"precious");
    assert_eq!(
        names(&dir),
        ["elsewhere.png", "result.json", "result_stencil_z.png"]
    );
}

#[test]
fn stale_temporaries_of_dead_processes_are_removed_when_writing() {
    let dir = common::scratch("outputs-stale");
    // Left by a `kill -9` of a process that is gone (pids stay below 2^22).
    let stale: Vec<PathBuf> = [".field.npy.99999999.tmp", ".field.json.99999999.tmp"]
        .iter()
        .map(|n| dir.join(n))
        .collect();
    for f in &stale {
        std::fs::write(f, b"partial").unwrap();
    }
    // Another file's temporary and a live process's (pid 1) are not ours.
    std::fs::write(dir.join(".notes.txt.99999999.tmp"), b"x").unwrap();
    std::fs::write(dir.join(".field.npy.1.tmp"), b"x").unwrap();
    let o = sdf(&dir.join("field.npy"), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        names(&dir),
        [
            ".field.npy.1.tmp",
            ".notes.txt.99999999.tmp",
            "field.json",
            "field.npy"
        ]
    );
}

#[test]
fn the_adaptive_sidecar_records_the_archive_checksum() {
    let dir = common::scratch("outputs-adaptive");
    let out = dir.join("field.npz");
    let o = sdf(&out, &["--adaptive", "--depth", "4", "--start-depth", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(names(&dir), ["field.json", "field.npz"]);
    let (_, meta) = collidoscope::io::read_verified(&out, &dir.join("field.json"))
        .expect("the archive matches its sidecar");
    assert_eq!(meta["format"], "collidoscope adaptive sdf 1");
}

#[test]
fn interfere_writes_only_its_files_and_records_their_checksums() {
    let dir = common::scratch("outputs-interfere-ok");
    let out = dir.join("result.json");
    let (s, o) = (spot(), out.display().to_string());
    let r = run(&[
        "interfere",
        &s,
        &s,
        "--res",
        "32x32",
        "--axes",
        "z",
        "--out",
        &o,
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(
        names(&dir),
        ["result.json", "result_counts_z.npy", "result_stencil_z.png"]
    );
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let view = &json["views"][0];
    for (file, key) in [
        ("result_stencil_z.png", "stencil_png_xxh3_64"),
        ("result_counts_z.npy", "counts_npy_xxh3_64"),
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        assert_eq!(view[key], collidoscope::io::checksum_hex(&bytes), "{file}");
    }
}
