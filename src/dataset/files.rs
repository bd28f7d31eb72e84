//! One mesh's files, written as one set and checked on a rerun.
//!
//! ```text
//! NAME.npz          points (N,3) f32, sdf (N,) f32, [closest (N,3) f32],
//!                   [normals (N,3) f32], center (3,) f64, scale () f64
//! NAME.grid.npy     optional: the field on a grid, + NAME.grid.json (as `sdf` writes them)
//! NAME.report.json  optional: the mesh report (as `info --json` prints it)
//! NAME.json         the sidecar: the settings, the result, and the xxh3-64
//!                   checksum of every other file
//! ```
//!
//! All files go through [`crate::io::write_set`] with the sidecar last: a
//! killed run leaves temporaries (removed by the next write) or a complete
//! set whose sidecar names every file's checksum. A rerun skips a mesh only
//! when its sidecar exists, holds this run's settings and every checksum
//! matches ([`verified`]); anything else is written again.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::MeshSamples;
use super::manifest::Job;
use crate::io::{
    CHECKSUM_KEY, InputKind, checksum_hex, encode_npy_f32, encode_npy_f64, read_input, stored_zip,
};

/// The sidecar's `format`.
pub const FORMAT: &str = "collidoscope dataset samples 1";

/// A mesh's `.npz` bytes.
pub fn encode_samples(s: &MeshSamples) -> Result<Vec<u8>, String> {
    let n = s.points.len();
    let rows = |v: &[glam::Vec3]| -> Vec<u8> {
        let flat: Vec<f32> = v.iter().flat_map(|p| p.to_array()).collect();
        encode_npy_f32(&[v.len(), 3], &flat)
    };
    let mut entries = vec![
        ("points.npy".to_string(), rows(&s.points)),
        ("sdf.npy".to_string(), encode_npy_f32(&[n], &s.sdf)),
    ];
    if let Some(c) = &s.closest {
        entries.push(("closest.npy".to_string(), rows(c)));
    }
    if let Some(g) = &s.normals {
        entries.push(("normals.npy".to_string(), rows(g)));
    }
    entries.push((
        "center.npy".to_string(),
        encode_npy_f64(&[3], &s.normalized.center),
    ));
    entries.push((
        "scale.npy".to_string(),
        encode_npy_f64(&[], &[s.normalized.scale]),
    ));
    stored_zip(&entries)
}

/// The files of one mesh, besides the sidecar: (path, bytes).
pub type Extra = (PathBuf, Vec<u8>);

/// Writes `npz` and `extra` files of `job`, then the sidecar `meta` (with
/// every checksum added), as one set.
pub fn write_mesh(job: &Job, npz: &[u8], extra: &[Extra], mut meta: Value) -> std::io::Result<()> {
    meta[CHECKSUM_KEY] = checksum_hex(npz).into();
    let mut sums = serde_json::Map::new();
    for (path, bytes) in extra {
        sums.insert(file_name(path), checksum_hex(bytes).into());
    }
    meta["files"] = Value::Object(sums);
    let text = serde_json::to_string_pretty(&meta).map_err(std::io::Error::other)?;
    let npz_path = job.file(".npz");
    let sidecar = job.file(".json");
    let mut set: Vec<(&Path, &[u8])> = vec![(&npz_path, npz)];
    set.extend(extra.iter().map(|(p, b)| (p.as_path(), b.as_slice())));
    set.push((&sidecar, text.as_bytes()));
    crate::io::write_set(&set)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The settings a sidecar must hold for its files to count on a rerun.
pub fn settings(job: &Job, params: &super::SampleParams, grid: Option<u32>, report: bool) -> Value {
    json!({
        "mesh": job.mesh.display().to_string(),
        "seed": job.seed,
        "params": params,
        "grid_resolution": grid,
        "report": report,
    })
}

/// The stored sidecar of `job` when its files are complete: the sidecar
/// holds `settings`, and the `.npz` and every file it lists match their
/// checksums. `Err` says why the files are written again (`Ok(None)`:
/// there is no sidecar).
pub fn verified(job: &Job, settings: &Value) -> Result<Option<Value>, String> {
    let sidecar = job.file(".json");
    if !sidecar.exists() {
        return Ok(None);
    }
    let (_, meta) = crate::io::read_verified(&job.file(".npz"), &sidecar)?;
    if meta["format"] != FORMAT || meta["settings"] != *settings {
        return Err("written with other settings".into());
    }
    let dir = sidecar.parent().unwrap_or(Path::new(""));
    let files = meta["files"].as_object().cloned().unwrap_or_default();
    for (name, sum) in &files {
        let path = dir.join(name);
        let bytes = read_input(&path, InputKind::Array).map_err(|e| e.to_string())?;
        if sum.as_str() != Some(checksum_hex(&bytes).as_str()) {
            return Err(format!("{} does not match its checksum", path.display()));
        }
    }
    Ok(Some(meta))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{Normalization, Normalized};
    use crate::io::read_npz_entries;
    use crate::stages::sdf::SignMode;

    #[test]
    fn the_archive_holds_the_named_arrays() {
        let s = MeshSamples {
            points: vec![glam::Vec3::new(1.0, 2.0, 3.0); 2],
            sdf: vec![0.5, -0.5],
            closest: None,
            normals: Some(vec![glam::Vec3::X; 2]),
            normalized: Normalized {
                mode: Normalization::UnitSphere,
                center: [1.0, 2.0, 3.0],
                scale: 0.25,
            },
            sign: SignMode::Winding,
            backend: "cpu",
        };
        let bytes = encode_samples(&s).unwrap();
        let entries = read_npz_entries(&bytes).unwrap();
        let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "points.npy",
                "sdf.npy",
                "normals.npy",
                "center.npy",
                "scale.npy"
            ]
        );
        let (shape, scale) = crate::io::decode_npy_f64(&entries[4].1).unwrap();
        assert_eq!((shape, scale), (vec![], vec![0.25]));
    }
}
