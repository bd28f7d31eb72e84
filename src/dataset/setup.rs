//! The start of a run, shared by the CLI and the Python package: the
//! output plan checked before any work, the output folder made, the jobs.

use std::path::{Path, PathBuf};

use super::DatasetError;
use super::manifest::{Job, Manifest, Shard};
use crate::io::{Format, OutputPlan};

/// The results manifest: one JSON document a line.
pub const JSON_LINES: Format = Format {
    what: "JSON lines",
    extensions: &["jsonl"],
};

/// The results manifest's default name in the output folder.
pub fn results_name(shard: Option<Shard>) -> String {
    match shard {
        Some(s) => format!("results-{}-of-{}.jsonl", s.index, s.count),
        None => "results.jsonl".into(),
    }
}

/// Checks that the results manifest `results` replaces no input (`source`,
/// the manifest's own path where it is a file) and can be written, makes
/// `out`, and gives the jobs of `shard`.
pub fn start(
    manifest: &Manifest,
    source: Option<&Path>,
    out: &Path,
    shard: Option<Shard>,
    seed: u64,
    results: Option<&Path>,
) -> Result<Vec<Job>, DatasetError> {
    let mut plan = OutputPlan::new();
    if let Some(source) = source {
        plan.input("the manifest", source);
    }
    plan.folder("the output folder", out);
    if let Some(results) = results {
        plan.output("the results manifest", results, JSON_LINES);
    }
    plan.check()?;
    let jobs = manifest.jobs(out, shard, seed)?;
    std::fs::create_dir_all(out).map_err(|e| DatasetError::Io {
        path: out.display().to_string(),
        source: e,
    })?;
    Ok(jobs)
}

/// The files a run reads besides its meshes: `source` where it is a file.
pub fn inputs(source: Option<&Path>) -> Vec<PathBuf> {
    source
        .filter(|s| s.is_file())
        .map(Path::to_path_buf)
        .into_iter()
        .collect()
}
