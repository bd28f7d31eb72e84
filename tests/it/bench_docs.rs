//! The generated benchmark tables — the book's "Every measurement" page,
//! the H200 bounds and the summary in the README and the book — are what
//! `scripts/bench-tables.py` writes from the CSVs in `docs/bench/` today.

use std::process::Command;

#[test]
fn generated_benchmark_tables_are_up_to_date() {
    let out = Command::new("python3")
        .arg("scripts/bench-tables.py")
        .arg("--check")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("python3 could not start ({e}); the tables need Python 3.9+"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
