//! The field benchmarks from the command line: `bench adaptive` writes its
//! tables, ablations, CSV and plot; `bench sdf` its CSV with the expected
//! header and, on the GPU, cold and warm calls split by phase; and a flag
//! of another bench target is refused before anything runs.

use crate::common;

use common::cli::{exe, run_ok};

#[test]
fn bench_adaptive_writes_tables_ablations_csv_and_plot() {
    let _ = common::gpu();
    let dir = common::scratch("cli-bench-adaptive");
    let stdout = run_ok(&[
        "bench",
        "adaptive",
        "--models",
        "bunny",
        "--depth",
        "4",
        "--repeats",
        "1",
        "--winding",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("stanford-bunny") && stdout.contains("Table 1"),
        "{stdout}"
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("adaptive.json")).unwrap()).unwrap();
    let rows = meta["rows"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["backend"].as_str().unwrap(),
                r["config"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("gpu", "rss-multi"),
            ("gpu", "arbitrary-bound"),
            ("gpu", "rss-single"),
            ("gpu", "no-axis-approx"),
            ("gpu", "aabb"),
            ("gpu", "winding"),
            ("cpu-ref", "rss-multi"),
        ]
    );
    let nodes: Vec<u64> = rows.iter().map(|r| r["nodes"].as_u64().unwrap()).collect();
    assert!(nodes.iter().all(|&n| n == nodes[0] && n > 512), "{nodes:?}");
    for r in rows {
        let depths = r["per_depth"].as_array().unwrap();
        assert_eq!(depths.len(), 2, "depths 3 and 4: {r}");
        assert!(r["bvh_bytes"].as_u64().unwrap() > 0, "{r}");
    }
    let csv = std::fs::read_to_string(dir.join("adaptive.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + rows.len(), "{csv}");
    assert!(csv.starts_with("model,") && csv.lines().next().unwrap().contains(",winding_ms,"));
    let png = std::fs::read(dir.join("adaptive.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "adaptive.png is not a PNG");
}

#[test]
fn bench_sdf_writes_its_csv_with_the_expected_header() {
    let dir = common::scratch("cli-bench-sdf");
    let stdout = run_ok(&[
        "bench",
        "sdf",
        "--backends",
        "cpu",
        "--models",
        "box-12",
        "--res",
        "16",
        "--repeats",
        "1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0], "SDF grid benchmark — CPU backends only",
        "{stdout}"
    );
    // One row per sign mode of the default `--signs pseudo-normal,winding`.
    assert!(lines[1].starts_with("model"), "{stdout}");
    assert!(
        lines[2].starts_with("box-12") && lines[2].contains("pseudo-normal"),
        "{stdout}"
    );
    assert!(
        lines[3].starts_with("box-12") && lines[3].contains("winding"),
        "{stdout}"
    );
    assert_eq!(lines[4], "* estimated from a strided sample of cells");
    let csv = std::fs::read_to_string(dir.join("sdf.csv")).unwrap();
    let csv: Vec<&str> = csv.lines().collect();
    assert_eq!(
        csv[0],
        "model,triangles,resolution,cells,backend,sign,exact_cells,gpu_ms,wall_ms,estimated,\
         million_cells_per_s,evaluations_per_cell,max_abs_diff_vs_cpu,sign_mismatches_vs_cpu,\
         refined_cells,fallback_ms,counted_cells,cap_walked_cells,cap_crossings_ms,prefix_sum_ms,cap_winding_ms,cap_walk_ms,\
         winding_refine_ms,winding_exact_ms,prepare_ms,bvh_ms,upload_ms,kernels_wall_ms,readback_ms,host_ms,other_ms,\
         copy_ms,wall_target_ms,wall_target_met,warm_wall_ms,warm_bvh_ms,warm_upload_ms,\
         warm_kernels_wall_ms,warm_readback_ms,warm_host_ms,warm_other_ms,warm_target_met,refined_beta12_cells,refined_beta32_cells,\
         refined_exact_cells,refine_args_ms,walk12_parts_ms,walk12_decide_ms,walk32_parts_ms,\
         walk32_decide_ms"
    );
    assert_eq!(csv.len(), 3, "{csv:?}");
    assert!(
        csv[1].starts_with("box-12,12,16,4096,cpu,pseudo-normal,"),
        "{csv:?}"
    );
    assert!(
        csv[2].starts_with("box-12,12,16,4096,cpu,winding,"),
        "{csv:?}"
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("sdf.json")).unwrap()).unwrap();
    assert_eq!(meta["benchmark"], "sdf");
    assert!(meta["adapter"].is_null(), "CPU only: {meta}");
    assert_eq!(meta["winding_exact_step"], "none", "CPU only: {meta}");
    let png = std::fs::read(dir.join("sdf.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "sdf.png is not a PNG");
}

/// A GPU row's wall time comes from a cold call (nothing on the GPU) and a
/// warm one (the mesh and the run's buffers resident, so no tree is
/// built), each split by phase and checked against the target, in the CSV
/// and in `sdf.md`.
#[test]
fn bench_sdf_reports_cold_and_warm_calls_on_the_gpu() {
    let dir = common::scratch("cli-bench-sdf-gpu");
    run_ok(&[
        "bench",
        "sdf",
        "--backends",
        "gpu",
        "--models",
        "box-12",
        "--res",
        "8",
        "--signs",
        "pseudo-normal",
        "--repeats",
        "1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let csv = std::fs::read_to_string(dir.join("sdf.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    let row: Vec<&str> = lines[1].split(',').collect();
    let cell = |name: &str| {
        let k = header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no {name}"));
        row[k]
    };
    let ms = |name: &str| -> f64 {
        cell(name)
            .parse()
            .unwrap_or_else(|e| panic!("{name} = {:?}: {e}", cell(name)))
    };
    assert!(ms("wall_ms") > 0.0 && ms("warm_wall_ms") > 0.0, "{csv}");
    assert_eq!(ms("warm_bvh_ms"), 0.0, "a warm call builds no tree: {csv}");
    for met in ["wall_target_met", "warm_target_met"] {
        assert!(["true", "false"].contains(&cell(met)), "{met}: {csv}");
    }
    let md = std::fs::read_to_string(dir.join("sdf.md")).unwrap();
    for call in ["cold", "warm"] {
        assert!(
            md.lines()
                .any(|l| l.starts_with("| box-12 |") && l.contains(&format!("| {call} |"))),
            "no {call} row in {md}"
        );
    }
}

#[test]
fn bench_refuses_a_flag_of_another_target() {
    let dir = common::scratch("cli-bench-refused");
    let out = exe()
        .args(["bench", "sdf", "--sizes", "128", "--out"])
        .arg(&dir)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: unexpected argument '--sizes' for 'sdf'"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        !dir.join("sdf.csv").exists(),
        "nothing runs when the flags are wrong"
    );
}

/// The GPU passes' account, `sdf-passes.csv`: a row per pass of each GPU
/// run, their shares making up the run, the distance pass's evaluations
/// those the field counted (the run's evaluations per cell in `sdf.csv`),
/// the finishing pass one a cell, and the refining passes' cells those
/// `sdf.csv` says reached them; the device limits unknown on an adapter
/// not in the table.
#[test]
fn bench_sdf_accounts_for_each_gpu_pass() {
    let dir = common::scratch("cli-bench-sdf-passes");
    let flags = "bench sdf --backends gpu --models teapot --res 16 --repeats 1 --out";
    let mut args: Vec<&str> = flags.split(' ').collect();
    args.push(dir.to_str().unwrap());
    let stdout = run_ok(&args);
    let table = |name: &str| -> Vec<std::collections::HashMap<String, String>> {
        let text = std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}\n{stdout}"));
        let mut lines = text.lines();
        let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
        lines
            .map(|l| {
                header
                    .iter()
                    .cloned()
                    .zip(l.split(',').map(String::from))
                    .collect()
            })
            .collect()
    };
    let (runs, passes) = (table("sdf.csv"), table("sdf-passes.csv"));
    assert_eq!(runs.len(), 2, "pseudo-normal and winding");
    assert!(stdout.contains("GPU passes — device limits"), "{stdout}");
    for run in &runs {
        let of_run: Vec<_> = passes
            .iter()
            .filter(|p| p["sign"] == run["sign"] && p["backend"] == run["backend"])
            .collect();
        let pass = |name: &str| {
            of_run
                .iter()
                .find(|p| p["pass"] == name)
                .unwrap_or_else(|| panic!("no {name} pass in {of_run:?}"))
        };
        let share: f64 = of_run
            .iter()
            .map(|p| p["share"].parse::<f64>().unwrap())
            .sum();
        assert!((share - 1.0).abs() < 1e-3, "{share}: {of_run:?}");
        let cells: f64 = run["cells"].parse().unwrap();
        let per_cell: f64 = pass("cells")["evaluations_per_cell"].parse().unwrap();
        let expected: f64 = run["evaluations_per_cell"].parse().unwrap();
        assert!(
            (per_cell - expected).abs() < 0.01,
            "{per_cell} against {expected}"
        );
        assert!(per_cell >= 1.0, "every cell evaluates a triangle");
        assert_eq!(pass("finish")["evaluations"], run["cells"]);
        assert_eq!(
            pass("cells")["device_gb_per_s"],
            "",
            "lavapipe has no known limits"
        );
        if run["sign"] == "winding" {
            let refined = &run["refined_cells"];
            for p in of_run
                .iter()
                .filter(|p| p["pass"].starts_with("winding refine β12"))
            {
                assert_eq!(&p["cells"], refined, "{p:?}");
            }
            assert!(
                of_run.iter().any(|p| p["pass"] == "cap winding"),
                "{of_run:?}"
            );
        }
        assert!(cells > 0.0);
    }
}
