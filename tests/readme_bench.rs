//! The README's benchmark tables agree with the CSVs in `docs/bench/` that
//! `collidoscope bench` wrote and the tables were made from.
//!
//! The tables are written by hand from the CSVs; an edit once replaced the
//! ogre row of the adaptive table with the ogre row of the SDF table
//! (issue 19). These tests read each table row's numbers back from the CSV.

use std::collections::HashMap;
use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The body rows of the README table whose header line starts with
/// `header`, as trimmed cells.
fn readme_table(readme: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = readme.lines().skip_while(|l| !l.starts_with(header));
    assert!(lines.next().is_some(), "no table {header:?} in the README");
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
    let table = readme_table(
        &read("README.md"),
        "| model | triangles | nodes | rss-multi",
    );
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
    let table = readme_table(
        &read("README.md"),
        "| model | triangles | cells | cpu-ref (1 thread)",
    );
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
