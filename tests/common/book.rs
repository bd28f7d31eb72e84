//! The book's pages: every Markdown file under `docs/src/`, for the tests
//! that read the book (its links, its benchmark tables).

use std::path::{Path, PathBuf};

/// Every `.md` file under `docs/src/`, sorted.
pub fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src"),
        &mut out,
    );
    out.sort();
    out
}
