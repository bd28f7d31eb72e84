//! Fuzzing the other inputs the way `obj_fuzz` fuzzes OBJ: scene files
//! (`simulate` and `particles`), glTF characters (document and buffer) and
//! `.npy`/`.npz` arrays. A seeded generator starts from a valid input and
//! corrupts it — truncation, byte flips, numbers replaced by extreme ones
//! (0, −1, 2³², 1e308, indices far out of range), keys removed, shapes
//! whose size overflows — and every input must give `Ok` or a clean error
//! (one non-empty line), never a panic; each test runs a bounded number of
//! cases (seconds in a debug build). `COLLIDOSCOPE_FUZZ_CASES` and
//! `COLLIDOSCOPE_FUZZ_SEED` run more or other cases; a failure names the
//! seed and the case.

use crate::common;

use common::fuzz::{Rng, cases_and_seed};
use serde_json::{Value, json};

/// Runs `f` on case `label`: a panic fails the test naming the case; an
/// error must be one non-empty line.
fn clean<T, E: std::fmt::Display>(label: &str, f: impl FnOnce() -> Result<T, E>) -> bool {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Err(_) => panic!("{label}: panicked"),
        Ok(Ok(_)) => true,
        Ok(Err(e)) => {
            let text = e.to_string();
            assert!(
                !text.trim().is_empty() && !text.contains('\n'),
                "{label}: not one line: {text:?}"
            );
            false
        }
    }
}

/// Numbers that break assumptions.
const EXTREMES: [f64; 9] = [
    0.0,
    -1.0,
    1e-9,
    2.5,
    50.0,
    4294967296.0,
    1e308,
    -1e308,
    3e38,
];

/// Every number in `v` (depth first), as paths of keys and indices.
fn number_paths(v: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Number(_) => out.push(at.clone()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                at.push(json!(i));
                number_paths(item, at, out);
                at.pop();
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                at.push(json!(k));
                number_paths(item, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn at_path<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |v, k| match k {
        Value::String(k) => &mut v[k.as_str()],
        k => &mut v[k.as_u64().expect("an index") as usize],
    })
}

/// `document` with a few of its numbers replaced by extreme ones, or an
/// object key removed.
fn mutate_document(document: &Value, rng: &mut Rng) -> Value {
    let mut v = document.clone();
    let mut paths = Vec::new();
    number_paths(&v, &mut Vec::new(), &mut paths);
    for _ in 0..1 + rng.below(3) {
        let path = rng.pick(&paths).clone();
        let target = at_path(&mut v, &path);
        *target = if rng.chance(50) {
            json!(*rng.pick(&EXTREMES))
        } else {
            json!(rng.below(60))
        };
    }
    if rng.chance(20) {
        let path = rng.pick(&paths).clone();
        if let Some((Value::String(key), parent)) = path.split_last()
            && let Some(map) = at_path(&mut v, parent).as_object_mut()
        {
            map.remove(key);
        }
    }
    v
}

/// `bytes` truncated or with a few bytes flipped.
fn mutate_bytes(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if rng.chance(30) {
        out.truncate(rng.below(out.len() + 1));
    } else {
        for _ in 0..1 + rng.below(4) {
            if !out.is_empty() {
                let at = rng.below(out.len());
                out[at] = rng.next() as u8;
            }
        }
    }
    out
}

/// A text input: its JSON mutated, or its text cut or flipped.
fn mutate_text(document: &Value, rng: &mut Rng) -> Vec<u8> {
    if rng.chance(70) {
        mutate_document(document, rng).to_string().into_bytes()
    } else {
        mutate_bytes(document.to_string().as_bytes(), rng)
    }
}

#[test]
fn scene_files_never_panic() {
    use collidoscope::sim::simulate::scene_file::SceneFile;
    use collidoscope::stages::particles::{ParticleParams, ParticleScene};
    let (cases, seed) = cases_and_seed(400, 0x5ce7e);
    let hail: Value = serde_json::from_str(
        &std::fs::read_to_string(common::cli::asset("hail.json")).expect("hail.json"),
    )
    .expect("hail.json is JSON");
    let bodies = json!({"timestep": 0.0166, "substeps": 2, "gravity": [0, -9.81, 0],
    "ground": {"point": [0, 0, 0], "normal": [0, 1, 0]}, "restitution": 0.2,
    "bodies": [
        {"mesh": "cube.obj", "position": [0, 1, 0], "orientation": [0, 0, 0, 1]},
        {"mesh": "cube.obj", "position": [3, 1, 0], "velocity": [0, -6, 0], "density": 500},
        {"mesh": "cube.obj", "position": [-3, 0, 0], "static": true}
    ]});
    let dir = common::scratch("scene-fuzz");
    std::fs::write(
        dir.join("cube.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
    )
    .expect("cube.obj");
    let mut rng = Rng(seed);
    let mut parsed = [0u64; 2];
    for case in 0..cases {
        let label = format!("seed {seed:#x} case {case}");
        let text = mutate_text(&hail, &mut rng);
        let text = String::from_utf8_lossy(&text);
        parsed[0] += u64::from(clean(&format!("{label} (particles)"), || {
            let scene = ParticleScene::from_json(&text, "fuzz.json")?;
            ParticleParams::default().validate_for(&scene)
        }));
        let text = mutate_text(&bodies, &mut rng);
        let text = String::from_utf8_lossy(&text);
        parsed[1] += u64::from(clean(&format!("{label} (simulate)"), || {
            SceneFile::parse(&text, &dir)
        }));
    }
    println!(
        "{cases} cases; accepted: particles {}, simulate {}",
        parsed[0], parsed[1]
    );
    assert!(parsed.iter().all(|&n| n > 0 && n < cases), "{parsed:?}");
}

#[test]
fn gltf_documents_and_buffers_never_panic() {
    use collidoscope::sim::radial::character::gltf::from_slice;
    let (cases, seed) = cases_and_seed(400, 0x917f);
    let mut rng = Rng(seed);
    let mut loaded = 0u64;
    for case in 0..cases {
        let (document, bin) = common::gltf::strip(2 + rng.below(6), 1 + rng.below(3));
        let (document, bin) = match rng.below(3) {
            0 => (mutate_document(&document, &mut rng), bin),
            1 => (document, mutate_bytes(&bin, &mut rng)),
            _ => (
                mutate_document(&document, &mut rng),
                mutate_bytes(&bin, &mut rng),
            ),
        };
        let file = common::gltf::glb(&document, &bin);
        let file = if rng.chance(10) {
            mutate_bytes(&file, &mut rng)
        } else {
            file
        };
        let label = format!("seed {seed:#x} case {case}");
        loaded += u64::from(clean(&label, || from_slice("fuzz", &file, None)));
    }
    println!("{cases} cases, {loaded} loaded");
    assert!(loaded > 0 && loaded < cases, "{loaded} of {cases} loaded");
}

/// A valid `.npy` of float32 or float64 values with a random shape.
fn valid_npy(rng: &mut Rng) -> (Vec<usize>, Vec<u8>) {
    let shape: Vec<usize> = (0..1 + rng.below(3)).map(|_| rng.below(4)).collect();
    let n: usize = shape.iter().product();
    let values: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 1.0).collect();
    (
        shape.clone(),
        collidoscope::io::encode_npy_f32(&shape, &values),
    )
}

/// The header of `npy` with its shape replaced by `shape` (the header's
/// length kept when it fits, else recomputed).
fn with_shape(npy: &[u8], shape: &str) -> Vec<u8> {
    let data = &npy[npy
        .len()
        .min(10 + u16::from_le_bytes([npy[8], npy[9]]) as usize)..];
    crate::inputs_refused::npy_with_shape(shape, data)
}

fn mutate_npy(npy: &[u8], rng: &mut Rng) -> Vec<u8> {
    match rng.below(5) {
        4 => {
            // As format version 2 or 3 (a 32-bit header length), the
            // length kept or claiming up to 4 GiB.
            let kept = u32::from(u16::from_le_bytes([npy[8], npy[9]]));
            let mut out = b"\x93NUMPY".to_vec();
            out.extend_from_slice(&[*rng.pick(&[2u8, 3]), 0]);
            let length = if rng.chance(50) {
                kept
            } else {
                u32::MAX - rng.below(4) as u32
            };
            out.extend_from_slice(&length.to_le_bytes());
            out.extend_from_slice(&npy[10..]);
            out
        }
        0 => {
            let dims: Vec<String> = (0..1 + rng.below(3))
                .map(|_| {
                    rng.pick(&[
                        "0",
                        "1",
                        "3",
                        "4294967296",
                        "18446744073709551615",
                        "-1",
                        "x",
                        "((((((((((((((((((((((((((((((((((((((((",
                    ])
                    .to_string()
                })
                .collect();
            with_shape(npy, &format!("({},)", dims.join(", ")))
        }
        1 => {
            // Only the header's bytes.
            let mut out = npy.to_vec();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(out.len().min(64));
                out[at] = rng.next() as u8;
            }
            out
        }
        _ => mutate_bytes(npy, rng),
    }
}

/// `entries` deflated (`np.savez_compressed`), as zip64 entries or not.
fn deflated_zip(entries: &[(String, Vec<u8>)], zip64: bool) -> Vec<u8> {
    use std::io::Write;
    use zip::write::SimpleFileOptions;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in entries {
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(zip64);
        zip.start_file(name.as_str(), options).expect("entry");
        zip.write_all(data).expect("data");
    }
    zip.finish().expect("archive").into_inner()
}

/// What `np.savez_compressed` writes (deflated entries), as zip64 entries
/// or not, reads back entry for entry.
#[test]
fn deflated_and_zip64_archives_are_read() {
    let values: Vec<f32> = (0..300).map(|i| i as f32 * 0.5).collect();
    let entries = vec![
        (
            "points.npy".to_string(),
            collidoscope::io::encode_npy_f32(&[100, 3], &values),
        ),
        ("empty.npy".to_string(), Vec::new()),
    ];
    for zip64 in [false, true] {
        let zip = deflated_zip(&entries, zip64);
        assert!(zip.len() < entries[0].1.len(), "deflated");
        let back = collidoscope::io::read_npz_entries(&zip).expect("read");
        assert_eq!(back, entries, "zip64: {zip64}");
    }
}

#[test]
fn npy_and_npz_inputs_never_panic() {
    use collidoscope::io::{
        decode_npy_f32, decode_npy_f64, decode_npy_i32, read_npz_entries, stored_zip,
    };
    use collidoscope::stages::check::{ReadOptions, read_samples};
    let (cases, seed) = cases_and_seed(1500, 0x4e9);
    let dir = common::scratch("npy-fuzz");
    let mut rng = Rng(seed);
    let mut decoded = 0u64;
    for case in 0..cases {
        let label = format!("seed {seed:#x} case {case}");
        let (_, npy) = valid_npy(&mut rng);
        let bad = mutate_npy(&npy, &mut rng);
        decoded += u64::from(clean(&label, || decode_npy_f32(&bad)));
        clean(&label, || decode_npy_f64(&bad));
        clean(&label, || decode_npy_i32(&bad));
        // Through `check`'s reader, as a bare grid and inside a point set.
        let grid = dir.join("grid.npy");
        std::fs::write(&grid, &bad).expect("write");
        let options = ReadOptions {
            origin: Some(glam::Vec3::ZERO),
            cell_size: Some(0.5),
            axis_order: Some(collidoscope::stages::check::AxisOrder::Zyx),
            ..ReadOptions::default()
        };
        clean(&label, || read_samples(&grid, &options));
        let (_, points) = valid_npy(&mut rng);
        let entries = vec![
            ("points.npy".to_string(), bad.clone()),
            ("values.npy".to_string(), points),
        ];
        let zip = if rng.chance(30) {
            deflated_zip(&entries, rng.chance(50))
        } else {
            stored_zip(&entries).expect("small archive")
        };
        let zip = if rng.chance(50) {
            mutate_bytes(&zip, &mut rng)
        } else {
            zip
        };
        clean(&label, || read_npz_entries(&zip));
        let npz = dir.join("points.npz");
        std::fs::write(&npz, &zip).expect("write");
        clean(&label, || read_samples(&npz, &ReadOptions::default()));
    }
    println!("{cases} cases, {decoded} decoded");
    assert!(decoded > 0 && decoded < cases, "{decoded} of {cases}");
}
