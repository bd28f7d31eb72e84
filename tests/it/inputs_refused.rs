//! Inputs are read safely: a FIFO, a device or a folder given as a file is
//! refused at once (never opened, so nothing blocks), a file over its
//! kind's size limit is refused before it is read, counts whose run would
//! not end or not fit (frames, lives per particle) are refused before
//! anything is allocated, and sidecars and arrays that make no sense
//! (a negative band, a shape whose size overflows, an axis beyond float32)
//! give one error line instead of a panic or a silently wrong output.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use collidoscope::io::{CHECKSUM_KEY, SCENE_LIMIT, encode_npy_f32};

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 scratch paths")
}

/// `check FIELD --mesh MESH --out OUT` of a bare grid (origin 0, cell 0.1,
/// zyx) on the CPU.
fn bare_grid_check<'a>(field: &'a Path, mesh: &'a Path, out: &'a Path) -> Vec<&'a str> {
    let mut args = vec!["check", s(field), "--mesh", s(mesh), "--out", s(out)];
    args.extend([
        "--origin",
        "0,0,0",
        "--cell-size",
        "0.1",
        "--axis-order",
        "zyx",
    ]);
    args.extend(["--backend", "cpu"]);
    args
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Runs the binary with `args`, which must fail within `seconds` with one
/// `error:` line (no panic) holding every one of `needles`; kills it and
/// fails the test if it is still running then.
fn refused_within(seconds: u64, args: &[&str], needles: &[&str]) -> String {
    let mut child = common::cli::exe()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let start = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if start.elapsed() > Duration::from_secs(seconds) {
            child.kill().expect("kill");
            let _ = child.wait();
            panic!("{args:?} still running after {seconds} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{args:?}: one error line: {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    for needle in needles {
        assert!(lines[0].contains(needle), "{needle:?} in {stderr}");
    }
    stderr
}

#[test]
fn fifos_devices_and_folders_are_refused_without_blocking() {
    let dir = common::scratch("inputs-fifo");
    let fifo = dir.join("scene.json");
    mkfifo(&fifo);
    let out = dir.join("out.json");
    let not_a_file = "not a regular file (a FIFO)";
    refused_within(
        30,
        &["simulate", s(&fifo), "--frames", "1", "--out", s(&out)],
        &[s(&fifo), not_a_file],
    );
    refused_within(
        30,
        &["particles", s(&fifo), "--out", s(&dir.join("events.csv"))],
        &[s(&fifo), not_a_file],
    );
    let fifo_obj = dir.join("mesh.obj");
    mkfifo(&fifo_obj);
    refused_within(30, &["info", s(&fifo_obj)], &[s(&fifo_obj), not_a_file]);
    let fifo_npy = dir.join("field.npy");
    mkfifo(&fifo_npy);
    let spot = common::cli::asset("spot.obj");
    refused_within(
        30,
        &bare_grid_check(&fifo_npy, &spot, &dir.join("r.json")),
        &[s(&fifo_npy), not_a_file],
    );
    // A symlink to a device is followed and refused.
    let zero = dir.join("zero.obj");
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
    refused_within(30, &["info", s(&zero)], &[s(&zero), "(a device)"]);
    refused_within(30, &["info", s(&dir)], &["(a folder)"]);
}

#[test]
fn files_over_their_limit_are_refused_before_reading() {
    let dir = common::scratch("inputs-large");
    let scene = dir.join("scene.json");
    // Sparse: the size is there, the bytes are not written.
    let file = std::fs::File::create(&scene).expect("create");
    file.set_len(SCENE_LIMIT + 1).expect("set_len");
    let out = dir.join("out.json");
    refused_within(
        30,
        &["simulate", s(&scene), "--frames", "1", "--out", s(&out)],
        &[s(&scene), "over the 64 MiB limit for scene"],
    );
    refused_within(
        30,
        &["particles", s(&scene), "--out", s(&dir.join("e.csv"))],
        &["over the 64 MiB limit"],
    );
}

#[test]
fn the_help_lists_the_input_limits() {
    let help = common::cli::run_ok(&["--help"]);
    for line in ["OBJ meshes", "2 GiB", "64 MiB", "8 GiB", "16 MiB", "FIFO"] {
        assert!(help.contains(line), "{line:?} in --help: {help}");
    }
}

/// The hail scene (one emitter) with its lifetime replaced.
fn hail_with_lifetime(dir: &Path, lifetime: &str) -> PathBuf {
    let hail = std::fs::read_to_string(common::cli::asset("hail.json")).expect("hail.json");
    let path = dir.join(format!("hail-{lifetime}.json"));
    std::fs::write(
        &path,
        hail.replace("\"lifetime\": 1.6", &format!("\"lifetime\": {lifetime}")),
    )
    .expect("write");
    path
}

#[test]
fn particle_counts_that_would_not_end_are_refused_up_front() {
    let dir = common::scratch("inputs-particles");
    let hail = hail_with_lifetime(&dir, "1.6");
    let out = dir.join("events.csv");
    refused_within(
        30,
        &[
            "particles",
            s(&hail),
            "--frames",
            "4294967295",
            "--backend",
            "cpu",
            "--out",
            s(&out),
        ],
        &["frames is 4294967295", "at most 1000000 frames"],
    );
    refused_within(
        30,
        &[
            "particles",
            s(&hail),
            "--dt",
            "1e300",
            "--backend",
            "cpu",
            "--out",
            s(&out),
        ],
        &["emitters[0]", "lives per particle", "over the limit"],
    );
    let short = hail_with_lifetime(&dir, "1e-9");
    refused_within(
        30,
        &["particles", s(&short), "--backend", "cpu", "--out", s(&out)],
        &["a lifetime of 0.000000001 s", "lives per particle"],
    );
    assert!(!out.exists(), "nothing written");
}

/// A float32 `.npy` with `shape` written as given and `data` after it.
pub fn npy_with_shape(shape: &str, data: &[u8]) -> Vec<u8> {
    npy_bytes("<f4", shape, data)
}

/// An `.npy` of dtype `descr` with `shape` written as given and `data`
/// after it.
pub fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(data);
    out
}

/// A grid `.npy` beside a collidoscope sidecar whose `band_world` is
/// `band` and checksum matches.
fn field_with_band(dir: &Path, band: f64) -> PathBuf {
    let npy = dir.join("field.npy");
    let data = encode_npy_f32(&[2, 2, 2], &[0.5; 8]);
    std::fs::write(&npy, &data).expect("npy");
    let sidecar = serde_json::json!({
        "format": "collidoscope sdf grid 1",
        "shape": [2, 2, 2],
        "axis_order": "zyx",
        "origin": [0.0, 0.0, 0.0],
        "cell_size": 0.5,
        "band_world": band,
        (CHECKSUM_KEY): collidoscope::io::checksum_hex(&data),
    });
    std::fs::write(npy.with_extension("json"), sidecar.to_string()).expect("json");
    npy
}

#[test]
fn a_negative_band_and_an_overflowing_shape_are_one_error_line() {
    let dir = common::scratch("inputs-check");
    let spot = common::cli::asset("spot.obj");
    let npy = field_with_band(&dir, -1.0);
    let report = dir.join("report.json");
    refused_within(
        60,
        &[
            "check",
            s(&npy),
            "--mesh",
            s(&spot),
            "--out",
            s(&report),
            "--backend",
            "cpu",
        ],
        &["band_world -1.0 is not a finite number >= 0"],
    );
    // (2^32, 2^32, 2) values: their count overflows 64 bits of bytes.
    let overflow = dir.join("overflow.npy");
    let bytes = npy_with_shape("(4294967296, 4294967296, 2)", &[0; 64]);
    std::fs::write(&overflow, &bytes).expect("npy");
    refused_within(
        60,
        &bare_grid_check(&overflow, &spot, &report),
        &[s(&overflow), "4294967296"],
    );
    assert!(!report.exists());
}

#[test]
fn an_axis_beyond_float32_is_refused() {
    let dir = common::scratch("inputs-radial");
    let spot = common::cli::asset("spot.obj");
    let out = dir.join("radial.npy");
    refused_within(
        60,
        &[
            "radial",
            s(&spot),
            "--axis",
            "0,0,0,3e38,0,0",
            "--normal",
            "0,1,0",
            "--backend",
            "cpu",
            "--out",
            s(&out),
        ],
        &["3.000e38 long, beyond float32"],
    );
    assert!(!out.exists() && !out.with_extension("json").exists());
}

#[test]
fn a_gltf_buffer_that_is_a_device_or_fifo_is_refused() {
    use collidoscope::sim::radial::character::gltf::load_gltf;
    let dir = common::scratch("inputs-gltf");
    let (mut document, bin) = common::gltf::strip(4, 2);
    std::fs::write(dir.join("strip.bin"), &bin).expect("bin");
    document["buffers"][0]["uri"] = serde_json::json!("strip.bin");
    let gltf = dir.join("strip.gltf");
    std::fs::write(&gltf, document.to_string()).expect("gltf");
    load_gltf(&gltf).expect("the buffer beside it loads");
    std::fs::remove_file(dir.join("strip.bin")).expect("rm");
    std::os::unix::fs::symlink("/dev/zero", dir.join("strip.bin")).expect("symlink");
    let e = load_gltf(&gltf).expect_err("a device").to_string();
    assert!(e.contains("not a regular file (a device)"), "{e}");
    std::fs::remove_file(dir.join("strip.bin")).expect("rm");
    mkfifo(&dir.join("strip.bin"));
    let e = load_gltf(&gltf).expect_err("a FIFO").to_string();
    assert!(e.contains("strip.bin") && e.contains("(a FIFO)"), "{e}");
    let glb = dir.join("fifo.glb");
    mkfifo(&glb);
    let e = load_gltf(&glb).expect_err("a FIFO").to_string();
    assert!(e.contains("fifo.glb: not a regular file (a FIFO)"), "{e}");
}
