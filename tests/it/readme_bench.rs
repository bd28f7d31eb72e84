//! The book's benchmark tables agree with the CSVs in `docs/bench/` that
//! `collidoscope bench` wrote and the tables were made from.
//!
//! The tables in the pages' prose are written by hand from the CSVs, where
//! one row pasted from the wrong table would go unnoticed; these tests read
//! each table row's numbers back from the CSV. (The generated tables are
//! checked by `bench_docs.rs`.)

use std::collections::HashMap;
use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every page of the book (`docs/src/**/*.md`), one after another.
fn book() -> String {
    crate::common::book::pages()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The body rows of the book's table whose header line starts with
/// `header`, as trimmed cells.
fn book_table(book: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = book.lines().skip_while(|l| !l.starts_with(header));
    assert!(lines.next().is_some(), "no table {header:?} in the book");
    lines
        .skip(1) // |---|---|
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().replace("**", ""))
                .collect()
        })
        .collect()
}

/// The rows of a CSV without quoted cells, as maps from column name to cell.
fn csv(path: &str) -> Vec<HashMap<String, String>> {
    let text = read(path);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split(','))
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect()
        })
        .collect()
}

/// "1,234,567" → 1234567.
fn count(cell: &str) -> u64 {
    cell.replace(',', "")
        .parse()
        .unwrap_or_else(|_| panic!("{cell:?} is not a count"))
}

fn ms(row: &HashMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column} of {row:?}"))
}

#[test]
fn the_adaptive_table_rows_are_the_csv_rows_of_their_model() {
    let rows = csv("docs/bench/adaptive-h100.csv");
    let table = book_table(&book(), "| model | triangles | nodes | rss-multi");
    assert_eq!(table.len(), 4, "bunny, ogre and the two subdivided bunnies");
    for cells in &table {
        let what = &cells[0];
        let triangles = count(&cells[1]);
        let of = |backend: &str, config: &str| {
            rows.iter()
                .find(|r| {
                    r["triangles"] == triangles.to_string()
                        && r["backend"] == backend
                        && r["config"] == config
                })
                .unwrap_or_else(|| panic!("{what}: no {backend} {config} row in the CSV"))
        };
        let base = of("gpu", "rss-multi");
        assert_eq!(count(&cells[2]), count(&base["points"]), "{what}: nodes");
        let phases = ["sort_ms", "octree_ms", "bvh_build_ms", "queries_ms"]
            .map(|p| format!("{:.2}", ms(base, p)))
            .join(" / ");
        assert_eq!(
            cells[3],
            format!("{:.2} ms ({phases})", ms(base, "gpu_ms")),
            "{what}: the paper's method"
        );
        for (k, config) in ["no-axis-approx", "arbitrary-bound", "rss-single", "aabb"]
            .iter()
            .enumerate()
        {
            let gpu = ms(of("gpu", config), "gpu_ms");
            assert_eq!(cells[4 + k], format!("{gpu:.2} ms"), "{what}: {config}");
        }
        assert_eq!(
            cells[8],
            format!("{:.0} ms", ms(base, "wall_ms")),
            "{what}: end to end"
        );
        let cpu = rows
            .iter()
            .find(|r| r["triangles"] == triangles.to_string() && r["backend"] == "cpu-ref");
        let cpu_cell = cpu.map_or("—".into(), |r| format!("{:.2} s", ms(r, "wall_ms") / 1e3));
        assert_eq!(cells[9], cpu_cell, "{what}: CPU reference");
    }
}

#[test]
fn the_table_7_1_rows_are_the_csv_rows_of_their_model() {
    let rows = csv("docs/bench/sdf-h100.csv");
    let table = book_table(&book(), "| model | triangles | cells | cpu-ref (1 thread)");
    assert_eq!(table.len(), 11, "Sundholm's models, the bunny and the ogre");
    for cells in &table {
        let model = &cells[0];
        let gpu = rows
            .iter()
            .find(|r| &r["model"] == model && r["resolution"] == "128" && r["backend"] == "gpu")
            .unwrap_or_else(|| panic!("{model}: no gpu row at 128³ in the CSV"));
        assert_eq!(count(&cells[1]), count(&gpu["triangles"]), "{model}");
        assert_eq!(count(&cells[2]), count(&gpu["cells"]), "{model}");
        assert_eq!(
            cells[6],
            format!("{:.2} ms", ms(gpu, "gpu_ms")),
            "{model}: gpu"
        );
    }
}

/// `12.345 ms`, or "–" for a time the CSV leaves empty (no GPU pass ran).
fn ms_cell(row: &HashMap<String, String>, column: &str, digits: usize) -> String {
    if row[column].is_empty() {
        "–".into()
    } else {
        format!("{:.digits$} ms", ms(row, column))
    }
}

#[test]
fn the_compute_interference_rows_are_the_csv_rows_of_both_backends() {
    let rows = csv("docs/bench/interfere-compute-h100.csv");
    let table = book_table(
        &book(),
        "| scene | mode | cull | stencil GPU | stencil wall | compute GPU",
    );
    assert_eq!(table.len(), 12, "three scenes, four modes");
    for cells in &table {
        let what = cells[..3].join(" ");
        let of = |backend: &str| {
            rows.iter()
                .find(|r| {
                    r["study"] == "target"
                        && r["scene"] == cells[0]
                        && r["mode"] == cells[1]
                        && r["culling"] == (cells[2] == "yes").to_string()
                        && r["backend"] == backend
                })
                .unwrap_or_else(|| panic!("{what}: no {backend} row in the CSV"))
        };
        let (stencil, compute) = (of("stencil"), of("compute"));
        assert_eq!(
            cells[3],
            ms_cell(stencil, "gpu_ms", 3),
            "{what}: stencil GPU"
        );
        assert_eq!(
            cells[4],
            ms_cell(stencil, "wall_ms", 3),
            "{what}: stencil wall"
        );
        assert_eq!(
            cells[5],
            ms_cell(compute, "gpu_ms", 3),
            "{what}: compute GPU"
        );
        assert_eq!(
            cells[6],
            ms_cell(compute, "wall_ms", 3),
            "{what}: compute wall"
        );
        assert_eq!(
            cells[7],
            format!("{} / {}", stencil["interfering"], compute["interfering"]),
            "{what}: interfering"
        );
    }
}

#[test]
fn the_radial_rows_are_the_csv_rows_of_their_cloth() {
    let rows = csv("docs/bench/radial-h100.csv");
    let table = book_table(
        &book(),
        "| character | fields | cloth particles | field cells | rasteriser",
    );
    assert_eq!(
        table.len(),
        rows.len(),
        "one row per cloth size and rasteriser"
    );
    for (cells, row) in table.iter().zip(&rows) {
        let what = format!("{} {}", cells[2], cells[4]);
        assert_eq!(
            count(cells[0].trim_end_matches(" triangles")),
            count(&row["triangles"]),
            "{what}"
        );
        assert_eq!(count(&cells[2]), count(&row["particles"]), "{what}");
        assert_eq!(cells[4], row["rasteriser"], "{what}");
        for (k, column) in [
            "skinning_gpu_ms",
            "rasterise_gpu_ms",
            "collision_gpu_ms",
            "cloth_gpu_ms",
            "update_cd_gpu_ms",
        ]
        .iter()
        .enumerate()
        {
            assert_eq!(cells[6 + k], ms_cell(row, column, 3), "{what}: {column}");
        }
        assert_eq!(cells[13], ms_cell(row, "frame_wall_ms", 2), "{what}: wall");
    }
}

#[test]
fn the_winding_rows_are_the_csv_rows_of_their_model() {
    let rows = csv("docs/bench/sdf-winding-h100.csv");
    let json: serde_json::Value =
        serde_json::from_str(&read("docs/bench/sdf-winding-h100.json")).expect("bench JSON");
    let table = book_table(
        &book(),
        "| model | res | pseudo-normal GPU | winding GPU + exact",
    );
    assert_eq!(table.len(), 4, "two bunnies at 128³ and 256³");
    for cells in &table {
        let what = format!("{} {}", cells[0], cells[1]);
        let res = cells[1].trim_end_matches('³');
        let of = |sign: &str| {
            rows.iter()
                .find(|r| r["model"] == cells[0] && r["resolution"] == res && r["sign"] == sign)
                .unwrap_or_else(|| panic!("{what}: no {sign} row in the CSV"))
        };
        let (pseudo, winding) = (of("pseudo-normal"), of("winding"));
        assert_eq!(
            cells[2],
            ms_cell(pseudo, "gpu_ms", 2),
            "{what}: pseudo-normal"
        );
        assert_eq!(cells[3], ms_cell(winding, "gpu_ms", 1), "{what}: winding");
        let phases = json["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| {
                r["model"] == cells[0].as_str()
                    && r["resolution"].as_u64().map(|v| v.to_string()).as_deref() == Some(res)
                    && r["sign"] == "winding"
            })
            .and_then(|r| r["gpu_phases"].as_array())
            .unwrap_or_else(|| panic!("{what}: no winding row in the JSON"));
        let phase = |name: &str| {
            phases
                .iter()
                .find(|ph| ph[0] == name)
                .and_then(|ph| ph[1].as_f64())
                .unwrap_or_else(|| panic!("{what}: no {name} phase in the JSON"))
        };
        // `cap walk` is its own phase in newer runs (older ones count it in
        // `cap winding`): counted where the JSON has it.
        let walk = phases
            .iter()
            .find(|ph| ph[0] == "cap walk")
            .and_then(|ph| ph[1].as_f64())
            .unwrap_or(0.0);
        let cap: f64 = ["cap crossings", "prefix sum", "cap winding"]
            .iter()
            .map(|name| phase(name))
            .sum::<f64>()
            + walk;
        assert_eq!(cells[4], format!("{cap:.2} ms"), "{what}: cap passes");
        // The refining walks: every pass of both walk steps (each step's
        // parts and decide passes and their dispatch arguments are phases
        // of their own; the CSV column is the total).
        assert_eq!(
            cells[5],
            ms_cell(winding, "winding_refine_ms", 2),
            "{what}: refining walks"
        );
        assert_eq!(
            cells[6],
            format!("{:.2} ms", phase("winding refine exact")),
            "{what}: exact sums"
        );
        assert_eq!(
            cells[7],
            ms_cell(winding, "fallback_ms", 1),
            "{what}: CPU decisions"
        );
        let (refined, cpu) = cells[8].split_once(" / ").expect("refined / cpu");
        assert_eq!(count(refined), count(&winding["refined_cells"]), "{what}");
        assert_eq!(count(cpu), count(&winding["exact_cells"]), "{what}");
        let ratio = ms(winding, "gpu_ms") / ms(pseudo, "gpu_ms");
        assert_eq!(cells[9], format!("{ratio:.2}×"), "{what}: ratio");
    }
}

#[test]
fn the_simulate_rows_are_the_csv_rows_of_their_body_count() {
    let rows = csv("docs/bench/simulate-h100.csv");
    let table = book_table(&book(), "| bodies | backend | wall / frame | pipelined");
    assert_eq!(
        table.len(),
        rows.len(),
        "one row per body count and backend"
    );
    for (cells, row) in table.iter().zip(&rows) {
        let what = format!("{} {}", cells[0], cells[1]);
        assert_eq!(count(&cells[0]), count(&row["bodies"]), "{what}");
        assert_eq!(cells[1], row["backend"], "{what}: backend");
        assert_eq!(cells[2], ms_cell(row, "wall_ms", 2), "{what}: wall");
        assert_eq!(
            cells[3],
            ms_cell(row, "pipelined_ms", 3),
            "{what}: pipelined"
        );
        let phases =
            ["broad", "narrow", "solve", "integrate", "summary"].map(|p| format!("{p}_gpu_ms"));
        if row["broad_gpu_ms"].is_empty() {
            assert_eq!(cells[4], "–", "{what}: phases");
        } else {
            let split = phases.map(|c| format!("{:.3}", ms(row, &c))).join(" / ");
            assert_eq!(cells[4], split, "{what}: phases");
        }
        if row["backend"] != "gpu" {
            assert_eq!(cells[5], ms_cell(row, "response_ms", 2), "{what}: response");
        }
        assert_eq!(
            count(&cells[7]),
            count(&row["contacts"]),
            "{what}: contacts"
        );
    }
}

/// The bounds table (written by `scripts/bench-tables.py`): each row's
/// measured value, limit and verdict read back from the H200 run's CSVs.
#[test]
fn the_bound_rows_are_the_h200_csv_rows() {
    let table = book_table(&book(), "| bound | case | measured | limit | holds |");
    let sdf = csv("docs/bench/sdf-h200.csv");
    let simulate = csv("docs/bench/simulate-h200.csv");
    let verdict = |ok: bool| if ok { "yes" } else { "no" };
    let sdf_row = |model: &str, res: &str, sign: &str| {
        sdf.iter()
            .find(|r| r["model"] == model && r["resolution"] == res && r["sign"] == sign)
            .unwrap_or_else(|| panic!("no {model} {res} {sign} row in sdf-h200.csv"))
    };
    let mut kinds = [0; 4];
    for cells in &table {
        let [bound, case, measured, target, met] = &cells[..] else {
            panic!("{cells:?}: five cells")
        };
        if bound.starts_with("winding") {
            let (model, res) = case.rsplit_once(' ').expect("model res");
            let res = res.trim_end_matches('³');
            let ratio = ms(sdf_row(model, res, "winding"), "gpu_ms")
                / ms(sdf_row(model, res, "pseudo-normal"), "gpu_ms");
            assert_eq!(*measured, format!("{ratio:.2}×"), "{case}");
            assert_eq!(met, verdict(ratio <= 1.3), "{case}");
            kinds[0] += 1;
        } else if bound.contains("bench sdf") {
            let (rest, call) = case.rsplit_once(", ").expect("case, call");
            let (rest, sign) = rest.rsplit_once(' ').expect("sign");
            let (model, res) = rest.rsplit_once(' ').expect("model res");
            let row = sdf_row(model, res.trim_end_matches('³'), sign);
            let (wall, target_met) = match call {
                "cold" => ("wall_ms", "wall_target_met"),
                "warm" => ("warm_wall_ms", "warm_target_met"),
                other => panic!("{case}: call {other}"),
            };
            assert_eq!(*measured, format!("{:.2} ms", ms(row, wall)), "{case}");
            assert_eq!(
                *target,
                format!("{:.2} ms", ms(row, "wall_target_ms")),
                "{case}"
            );
            assert_eq!(met, verdict(row[target_met] == "true"), "{case}");
            kinds[1] += 1;
        } else if bound.contains("bench collide") {
            let (_, run) = case.rsplit_once(", ").expect("pairs, run");
            let rows = csv(&format!("docs/bench/{run}-h200.csv"));
            let row = rows
                .iter()
                .find(|r| r["pairs"] == "1000" && r["mode"] == "gpu batched")
                .unwrap_or_else(|| panic!("{case}: no batched row at 1000 pairs"));
            let ratio = ms(row, "wall_over_gpu");
            assert_eq!(*measured, format!("{ratio:.2}×"), "{case}");
            assert_eq!(met, verdict(ratio <= 3.0), "{case}");
            kinds[2] += 1;
        } else if bound.contains("bench simulate") {
            let bodies = case.trim_end_matches(" bodies");
            let row = simulate
                .iter()
                .find(|r| r["bodies"] == bodies && r["backend"] == "gpu")
                .unwrap_or_else(|| panic!("{case}: no gpu row"));
            let (wall, limit_ms) = (ms(row, "wall_ms"), ms(row, "target_ms"));
            assert_eq!(*measured, format!("{wall:.2} ms"), "{case}");
            assert_eq!(*target, format!("{limit_ms:.2} ms"), "{case}");
            assert_eq!(met, verdict(wall <= limit_ms), "{case}");
            kinds[3] += 1;
        } else {
            panic!("a bound row of no known kind: {cells:?}");
        }
    }
    assert_eq!(kinds, [4, 16, 2, 2], "rows of each bound");
}
