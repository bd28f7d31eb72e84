//! The command-line tool: `sdf` round trip, the cache, and one readable
//! error line for every kind of bad input.

use crate::common;

use std::path::{Path, PathBuf};

use collidoscope::io::read_npy_f32;
use collidoscope::mesh::PreparedMesh;
use collidoscope::progress::Progress;
use collidoscope::stages::sdf::{self, Backend, SdfParams, SignMode};

use common::cli::{asset, exe, run_err, run_ok};

#[test]
fn sdf_writes_npy_and_sidecar_that_match_the_library() {
    let dir = common::scratch("cli-sdf");
    let out = dir.join("field.npy");
    let spot = asset("spot.obj");
    let stdout = run_ok(&[
        "sdf",
        spot.to_str().unwrap(),
        "--res",
        "16",
        "--backend",
        "cpu",
        "--no-cache",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("pseudo-normal"),
        "the CLI says which sign mode it used: {stdout}"
    );
    let npy = read_npy_f32(&out).expect("npy reads");
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("field.json")).unwrap()).unwrap();
    let shape: Vec<usize> = meta["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(npy.shape, shape);
    assert_eq!(meta["axis_order"], "zyx");
    assert_eq!(meta["sign"], "negative inside");
    assert_eq!(meta["sign_mode"], "pseudo-normal");
    assert_eq!(meta["backend"], "cpu");
    assert!(meta["mesh_hash"].as_str().unwrap().len() == 16);
    assert!(meta["timings_ms"]["distance"].as_f64().unwrap() >= 0.0);

    let mesh = PreparedMesh::new(&collidoscope::mesh::load_obj_merged(&spot).unwrap()).unwrap();
    let params = SdfParams {
        resolution: 16,
        padding: 0.1,
        band: None,
        sign_mode: SignMode::PseudoNormal,
    };
    let lib = sdf::compute(&mesh, &params, Backend::CpuFast, None, &Progress::default()).unwrap();
    assert_eq!(npy.data, lib.values, "the file holds the library's field");
    let origin: Vec<f32> = meta["origin"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    assert_eq!(origin, lib.grid.origin.to_array().to_vec());
    // Index convention: npy[k][j][i] is cell (i, j, k).
    let (nx, ny) = (shape[2], shape[1]);
    let (i, j, k) = (3usize, 5usize, 7usize);
    assert_eq!(
        npy.data[i + nx * (j + ny * k)],
        lib.values[lib.grid.index(glam::UVec3::new(3, 5, 7))]
    );
}

#[test]
fn open_mesh_defaults_to_winding_sign_and_says_so() {
    let dir = common::scratch("cli-open");
    let out = dir.join("teapot.npy");
    let stdout = run_ok(&[
        "sdf",
        asset("teapot.obj").to_str().unwrap(),
        "--res",
        "12",
        "--backend",
        "cpu",
        "--no-cache",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("winding") && stdout.contains("open"),
        "{stdout}"
    );
}

#[test]
fn gpu_backend_round_trip() {
    let _ = common::gpu();
    let dir = common::scratch("cli-gpu");
    let out = dir.join("f.npy");
    run_ok(&[
        "sdf",
        asset("suzanne.obj").to_str().unwrap(),
        "--res",
        "16",
        "--backend",
        "gpu",
        "--sign",
        "winding",
        "--no-cache",
        "--out",
        out.to_str().unwrap(),
    ]);
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("f.json")).unwrap()).unwrap();
    assert_eq!(meta["backend"], "gpu");
    assert!(meta["adapter"].as_str().is_some_and(|a| !a.is_empty()));
}

#[test]
fn cache_hits_on_second_run_and_rebuilds_a_corrupt_file() {
    let dir = common::scratch("cli-cache");
    let cache = dir.join("cache");
    let out = dir.join("f.npy");
    let args = |out: &Path| {
        vec![
            "sdf".to_string(),
            asset("woody.obj").display().to_string(),
            "--res".into(),
            "12".into(),
            "--backend".into(),
            "cpu".into(),
            "--cache-dir".into(),
            cache.display().to_string(),
            "--out".into(),
            out.display().to_string(),
        ]
    };
    let cache_state = |out: &Path| -> String {
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.with_extension("json")).unwrap()).unwrap();
        meta["cache"].as_str().unwrap().to_string()
    };
    let a: Vec<String> = args(&out);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    run_ok(&a);
    assert_eq!(cache_state(&out), "miss");
    let first = read_npy_f32(&out).unwrap();
    run_ok(&a);
    assert_eq!(cache_state(&out), "hit");
    assert_eq!(
        read_npy_f32(&out).unwrap(),
        first,
        "a cache hit gives the same field"
    );

    // Corrupt the cached file: flip a byte in the middle.
    let entry = std::fs::read_dir(&cache)
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| e.path().extension().is_some_and(|x| x == "sdfcache"))
        .expect("a cache file")
        .path();
    let mut bytes = std::fs::read(&entry).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x5a;
    std::fs::write(&entry, &bytes).unwrap();
    run_ok(&a);
    assert!(
        cache_state(&out).starts_with("rejected"),
        "{}",
        cache_state(&out)
    );
    assert_eq!(read_npy_f32(&out).unwrap(), first);
    // Truncated.
    std::fs::write(&entry, &bytes[..100]).unwrap();
    run_ok(&a);
    assert!(cache_state(&out).starts_with("rejected"));
    run_ok(&a);
    assert_eq!(cache_state(&out), "hit", "the rebuilt entry is used again");
}

#[test]
fn info_reports_open_and_closed_meshes() {
    let spot = run_ok(&["info", asset("spot.obj").to_str().unwrap()]);
    let teapot = run_ok(&["info", asset("teapot.obj").to_str().unwrap()]);
    assert!(!spot.contains("warning"), "spot is closed: {spot}");
    assert!(teapot.contains("warning"), "teapot is open: {teapot}");
    let json = run_ok(&["info", "--json", asset("teapot.obj").to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["closed"], false);
    assert!(v["boundary_edges"].as_u64().unwrap() > 0);
}

#[test]
fn every_bad_input_gets_one_readable_error_line() {
    let dir = common::scratch("cli-bad");
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let out = dir.join("out.npy").display().to_string();
    let cases: Vec<(String, &str)> = vec![
        (dir.join("missing.obj").display().to_string(), "cannot read"),
        (
            write(
                "garbage.obj",
                &[0xff, 0x00, 0x13, 0x37, 0x80, 0x81, 0xfe, 0x0a, 0x00, 0x00],
            ),
            "",
        ),
        (
            write("range.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"),
            "",
        ),
        (
            write("nan.obj", b"v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n"),
            "",
        ),
        (write("empty.obj", b"# nothing here\n"), "no triangles"),
        (
            write("flat.obj", b"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n"),
            "zero area",
        ),
    ];
    for (path, expect) in &cases {
        for sub in [
            vec!["info", path.as_str()],
            vec![
                "sdf",
                path.as_str(),
                "--backend",
                "cpu",
                "--no-cache",
                "--out",
                out.as_str(),
            ],
        ] {
            let err = run_err(&sub);
            assert!(
                err.contains(expect),
                "{sub:?}: expected {expect:?} in {err}"
            );
        }
    }
    let spot = asset("spot.obj").display().to_string();
    let err = run_err(&["sdf", &spot, "--res", "4096", "--no-cache", "--out", &out]);
    assert!(err.contains("resolution"), "{err}");
    assert!(!Path::new(&out).exists(), "a failed run writes no output");
}

#[test]
fn a_grid_beyond_the_gpu_limits_names_the_limit() {
    let gpu = common::gpu();
    let limit = gpu.device.limits().max_storage_buffer_binding_size;
    let err = gpu
        .check_storage_size("a test buffer", limit + 1)
        .expect_err("one byte over the limit");
    assert!(
        err.to_string().contains("max_storage_buffer_binding_size"),
        "{err}"
    );
    // 512³ cells × 4 bytes = 512 MiB; lavapipe binds at most 128 MiB.
    if limit >= 512 * 512 * 512 * 4 {
        eprintln!("this adapter binds {limit} bytes; a 512³ grid fits, nothing to check here");
        return;
    }
    let dir = common::scratch("cli-limit");
    let out = dir.join("big.npy").display().to_string();
    let err = run_err(&[
        "sdf",
        asset("suzanne.obj").to_str().unwrap(),
        "--res",
        "512",
        "--backend",
        "gpu-brute",
        "--no-cache",
        "--out",
        &out,
    ]);
    assert!(
        err.contains("max_storage_buffer_binding_size") || err.contains("max_buffer_size"),
        "{err}"
    );
}

#[test]
fn sdf_adaptive_writes_an_npz_that_matches_the_library() {
    use collidoscope::io::{decode_npy_f32, decode_npy_i32, read_npz_entries};
    use collidoscope::stages::adaptive::{AdaptiveParams, compute_cpu};
    let _ = common::gpu();
    let dir = common::scratch("cli-adaptive");
    let out = dir.join("field.npz");
    let spot = asset("spot.obj");
    let stdout = run_ok(&[
        "sdf",
        spot.to_str().unwrap(),
        "--adaptive",
        "--depth",
        "6",
        "--pad",
        "0.1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(stdout.contains("nodes"), "{stdout}");
    let entries = read_npz_entries(&std::fs::read(&out).unwrap()).unwrap();
    let get = |name: &str| {
        &entries
            .iter()
            .find(|(n, _)| n == &format!("{name}.npy"))
            .unwrap_or_else(|| panic!("{name}.npy missing"))
            .1
    };
    let mesh = PreparedMesh::new(&common::sample("spot")).unwrap();
    let params = AdaptiveParams {
        max_depth: 6,
        padding: 0.1,
        ..AdaptiveParams::default()
    };
    let reference = compute_cpu(&mesh, &params).unwrap();
    let canonical = reference.octree.canonical();
    let n = canonical.len();
    let centers = decode_npy_f32(get("centers")).unwrap();
    assert_eq!(centers.shape, vec![n, 3]);
    let values = decode_npy_f32(get("values")).unwrap();
    let half = decode_npy_f32(get("half_sizes")).unwrap();
    let (shape, depth) = decode_npy_i32(get("depth")).unwrap();
    assert_eq!(shape, vec![n]);
    let (_, parent) = decode_npy_i32(get("parent")).unwrap();
    let (_, first_child) = decode_npy_i32(get("first_child")).unwrap();
    assert_eq!(values.data.len(), n);
    assert_eq!(half.data.len(), n);
    // Links are consistent: children of a node name it as parent.
    for i in 0..n {
        if first_child[i] >= 0 {
            for k in 0..8 {
                assert_eq!(parent[first_child[i] as usize + k], i as i32, "node {i}");
                assert_eq!(depth[first_child[i] as usize + k], depth[i] + 1, "node {i}");
            }
        }
    }
    assert_eq!(parent.iter().filter(|&&p| p < 0).count(), 512, "8^3 roots");
    // The same values as the library's CPU reference, node by node (matched
    // by centre and depth, since the GPU appends children in any order).
    let mut expected: std::collections::HashMap<(i32, [u32; 3]), f32> = Default::default();
    for (i, node) in reference.octree.nodes.iter().enumerate() {
        let key = node.center.map(|c| (c * 1e4).round() as i64 as u32);
        expected.insert((node.depth as i32, key), reference.values[i]);
    }
    let tol = 2e-5 * reference.octree.cube.size;
    for (i, (c, &d)) in centers.data.chunks_exact(3).zip(&depth).enumerate() {
        let c = [c[0], c[1], c[2]];
        let key = c.map(|c| (c * 1e4).round() as i64 as u32);
        let e = expected
            .get(&(d, key))
            .unwrap_or_else(|| panic!("node {i} at {c:?} is not in the reference"));
        assert!(
            (e - values.data[i]).abs() <= tol,
            "node {i}: {e} vs {}",
            values.data[i]
        );
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("field.json")).unwrap()).unwrap();
    assert_eq!(meta["nodes"], n);
    assert_eq!(meta["max_depth"], 6);
    assert_eq!(meta["backend"], "gpu");
    assert_eq!(meta["bvh"], "rss-multi");
    assert_eq!(meta["per_depth"].as_array().unwrap().len(), 4);

    for (bvh, groups) in [("rss-single", 0), ("aabb", 0)] {
        run_ok(&[
            "sdf",
            spot.to_str().unwrap(),
            "--adaptive",
            "--depth",
            "4",
            "--bvh",
            bvh,
            "--small-node",
            "8",
            "--no-axis-approximation",
            "--out",
            out.to_str().unwrap(),
        ]);
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("field.json")).unwrap()).unwrap();
        assert_eq!(meta["bvh"], bvh);
        assert_eq!(meta["group_level"], groups);
        assert_eq!(meta["small_node"], 8);
        assert_eq!(meta["axis_approximation"], false);
    }

    let err = run_err(&[
        "sdf",
        spot.to_str().unwrap(),
        "--adaptive",
        "--out",
        dir.join("f.npy").to_str().unwrap(),
    ]);
    assert!(err.contains(".npz"), "{err}");
    let err = run_err(&[
        "sdf",
        spot.to_str().unwrap(),
        "--adaptive",
        "--depth",
        "11",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(err.contains("depth"), "{err}");
}

/// Writes `text` as `NAME.obj` into a fresh scratch directory.
fn obj_file(name: &str, text: &str) -> PathBuf {
    let path = common::scratch(name).join(format!("{name}.obj"));
    std::fs::write(&path, text).expect("write obj");
    path
}

#[test]
fn info_and_sdf_reject_a_vanishing_tetrahedron_alike() {
    let tiny = obj_file(
        "tiny",
        "v 0 0 0\nv 1e-40 0 0\nv 0 1e-40 0\nv 0 0 1e-40\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
    );
    let tiny = tiny.to_str().unwrap();
    let out = common::scratch("tiny-out").join("tiny.npy");
    let info = run_err(&["info", tiny]);
    let sdf = run_err(&[
        "sdf",
        tiny,
        "--backend",
        "cpu",
        "--no-cache",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(info.contains("every triangle has zero area"), "{info}");
    assert_eq!(info, sdf);
}

#[test]
fn bad_face_indices_and_cr_line_endings_get_accurate_messages() {
    let triangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    for (face, expected) in [
        ("f 0 1 2", "uses index 0, but OBJ indices count from 1"),
        (
            "f -4 1 2",
            "uses relative index -4, which points before the first vertex",
        ),
        (
            "f 1 2 99999999999",
            "uses vertex 99999999999, but there are only 3 vertices",
        ),
    ] {
        let path = obj_file("index", &format!("{triangle}{face}\n"));
        let err = run_err(&["info", path.to_str().unwrap()]);
        assert!(err.contains(expected), "{face}: {err}");
    }
    let old_mac = obj_file(
        "old-mac",
        &format!("{triangle}f 1 2 3\n").replace('\n', "\r"),
    );
    let report = run_ok(&["info", old_mac.to_str().unwrap()]);
    assert!(
        report
            .lines()
            .any(|l| l.split_whitespace().eq(["triangles", "1"])),
        "{report}"
    );
}

#[test]
fn an_upload_beyond_the_gpu_binding_names_the_limit_and_the_cpu_backend() {
    let gpu = common::gpu();
    let limit = gpu.device.limits().max_storage_buffer_binding_size;
    let words = usize::try_from(limit / 4 + 1).expect("fits in memory");
    let err = collidoscope::gpu::storage_buffer_init(&gpu, "SdfGpu::tri_pos", &vec![0u32; words])
        .expect_err("one word over the limit")
        .to_string();
    assert!(err.contains("max_storage_buffer_binding_size"), "{err}");
    assert!(err.contains(&limit.to_string()), "{err}");
    assert!(err.contains("--backend cpu"), "{err}");
    assert!(!err.contains("resolution"), "{err}");
}

/// A 2-vertex face used to be dropped without a word
/// (and the cube became open, switching the sign mode silently); it is
/// reported with its line number, and `--strict` refuses the file.
#[test]
fn malformed_faces_are_reported_with_line_numbers_and_refused_by_strict() {
    let cube = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
                f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1\n";
    let path = obj_file("two-vertex-face", cube);
    let path = path.to_str().unwrap();
    let out = exe().args(["info", path]).output().expect("runs");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 14: a face of 2 vertices, left out"),
        "info must name the dropped face and its line: {stderr}"
    );
    let err = run_err(&["info", "--strict", path]);
    assert!(err.contains("line 14") && err.contains("--strict"), "{err}");
    let out_dir = common::scratch("strict-sdf");
    let out = out_dir.join("f.npy");
    let err = run_err(&[
        "sdf",
        path,
        "--strict",
        "--backend",
        "cpu",
        "--res",
        "8",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(err.contains("line 14"), "{err}");
    assert!(!out.exists(), "a refused file writes nothing");
}

#[test]
fn out_of_range_padding_and_sizes_are_refused() {
    let dir = common::scratch("cli-range");
    let out = dir.join("out.npy").display().to_string();
    let spot = asset("spot.obj").display().to_string();
    for pad in ["1e30", "-0.5", "10.5"] {
        let pad = format!("--pad={pad}");
        let err = run_err(&["sdf", &spot, &pad, "--no-cache", "--out", &out]);
        assert!(
            err.contains("padding") && err.contains("[0, 10]"),
            "{pad}: {err}"
        );
    }
    let huge = tetrahedron(&dir, 1e25);
    for backend in ["cpu", "gpu"] {
        let err = run_err(&[
            "sdf",
            &huge,
            "--backend",
            backend,
            "--no-cache",
            "--out",
            &out,
        ]);
        assert!(err.contains("beyond what float32"), "{backend}: {err}");
    }
    assert!(!Path::new(&out).exists(), "a failed run writes no output");
}

/// The unit tetrahedron with a corner at the origin, scaled by `scale`, as
/// an OBJ file in `dir`.
fn tetrahedron(dir: &Path, scale: f64) -> String {
    let path = dir.join(format!("tetrahedron-{scale:e}.obj"));
    let text = format!(
        "v 0 0 0\nv {scale:e} 0 0\nv 0 {scale:e} 0\nv 0 0 {scale:e}\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
    );
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The issue's examples: a unit tetrahedron scaled by 1e7 (2,018 of 4,096
/// cells wrong at 16³ on the gpu backend) and by 1e10 (NaN and inf) now
/// gives the unit field scaled, on every backend; a cell whose centres
/// float32 cannot keep apart is refused.
#[test]
fn large_meshes_give_the_scaled_unit_field_or_are_refused() {
    let dir = common::scratch("cli-scaled");
    let field = |scale: f64, backend: &str| {
        let out = dir.join(format!("{backend}-{scale:e}.npy"));
        let mesh = tetrahedron(&dir, scale);
        let res = ["--res", "16", "--backend", backend, "--no-cache"];
        let o = out.display().to_string();
        run_ok(&[&["sdf", &mesh][..], &res, &["--out", &o]].concat());
        read_npy_f32(&out).unwrap().data
    };
    for backend in ["gpu", "gpu-brute", "cpu"] {
        let unit = field(1.0, backend);
        for scale in [1e7, 1e10] {
            let scaled = field(scale, backend);
            for (i, (&u, &v)) in unit.iter().zip(&scaled).enumerate() {
                let v = (f64::from(v) / scale) as f32;
                assert!(
                    (v - u).abs() <= 1e-5 && v.is_sign_negative() == u.is_sign_negative(),
                    "{backend}, ×{scale:e}: cell {i}: {v} against {u}"
                );
            }
        }
    }
    // A unit tetrahedron a million units out at 64³: cells of 0.019, where
    // float32 numbers are 0.0625 apart.
    let far = dir.join("far.obj");
    std::fs::write(
        &far,
        "v 1e6 1e6 1e6\nv 1000001 1e6 1e6\nv 1e6 1000001 1e6\nv 1e6 1e6 1000001\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
    )
    .unwrap();
    let out = dir.join("far.npy").display().to_string();
    let far = far.display().to_string();
    let err = run_err(&["sdf", &far, "--res", "64", "--no-cache", "--out", &out]);
    assert!(err.contains("would collide"), "{err}");
    let npz = dir.join("far.npz").display().to_string();
    let err = run_err(&["sdf", &far, "--adaptive", "--no-cache", "--out", &npz]);
    assert!(err.contains("would collide"), "{err}");
}
