//! Field cache on disk (Sundholm §6.2.6): reopening the same mesh with the
//! same settings is instant.
//!
//! One file per (mesh content, parameters, backend), named by their hashes:
//!
//! ```text
//! "CLDSDF\x01\n"             8 bytes magic + format version
//! header length              u64 little-endian
//! header                     JSON: key, grid, params, backend, counts
//! values                     f32 LE × cells
//! closest                    u32 LE × cells
//! checksum                   u64 LE, xxh3 of everything above
//! ```
//!
//! A file that is truncated, corrupt (checksum), of another format version
//! or whose header does not match the request (stale) is rejected with the
//! reason and rebuilt, never used. Writes go to a temporary file that is
//! renamed into place, so a crash never leaves a half-written entry.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use super::{Backend, GridSpec, SdfField, SdfParams};
use crate::io::write_atomically;
use crate::timing::Timings;

const MAGIC: &[u8; 8] = b"CLDSDF\x01\n";

/// A directory of cached fields.
pub struct FieldCache {
    dir: PathBuf,
}

/// What a cache lookup found.
#[derive(Debug)]
pub enum CacheOutcome {
    Hit(Box<SdfField>),
    Miss,
    /// A file was there but could not be trusted; it will be rebuilt.
    Rejected(String),
}

#[derive(Serialize, Deserialize, PartialEq)]
struct Header {
    mesh_hash: u64,
    params: SdfParams,
    backend: Backend,
    grid: GridSpec,
    cells: u64,
    distance_evaluations: u64,
}

impl FieldCache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        FieldCache { dir: dir.into() }
    }

    /// `$XDG_CACHE_HOME/collidoscope` or `~/.cache/collidoscope`.
    pub fn default_dir() -> PathBuf {
        std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(std::env::temp_dir)
            .join("collidoscope")
    }

    pub(crate) fn path_for(&self, mesh_hash: u64, params: &SdfParams, backend: Backend) -> PathBuf {
        let key = serde_json::to_vec(&(params, backend)).unwrap_or_default();
        self.dir
            .join(format!("{mesh_hash:016x}-{:016x}.sdfcache", xxh3_64(&key)))
    }

    pub fn load(&self, mesh_hash: u64, params: &SdfParams, backend: Backend) -> CacheOutcome {
        let path = self.path_for(mesh_hash, params, backend);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return CacheOutcome::Miss,
            Err(e) => return CacheOutcome::Rejected(format!("{}: {e}", path.display())),
        };
        match decode(&bytes, mesh_hash, params, backend) {
            Ok(field) => CacheOutcome::Hit(Box::new(field)),
            Err(reason) => CacheOutcome::Rejected(format!("{}: {reason}", path.display())),
        }
    }

    pub fn store(&self, mesh_hash: u64, field: &SdfField) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path_for(mesh_hash, &field.params, field.backend);
        write_atomically(&path, &encode(mesh_hash, field))?;
        Ok(path)
    }
}

fn encode(mesh_hash: u64, field: &SdfField) -> Vec<u8> {
    let header = Header {
        mesh_hash,
        params: field.params,
        backend: field.backend,
        grid: field.grid,
        cells: field.values.len() as u64,
        distance_evaluations: field.distance_evaluations,
    };
    let header = serde_json::to_vec(&header).unwrap_or_default();
    let mut out = Vec::with_capacity(32 + header.len() + field.values.len() * 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(header.len() as u64).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(bytemuck::cast_slice(&field.values));
    out.extend_from_slice(bytemuck::cast_slice(&field.closest));
    let checksum = xxh3_64(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

fn decode(
    bytes: &[u8],
    mesh_hash: u64,
    params: &SdfParams,
    backend: Backend,
) -> Result<SdfField, String> {
    let body_len = bytes
        .len()
        .checked_sub(8)
        .ok_or("truncated (no checksum)")?;
    if body_len < 16 || &bytes[..8] != MAGIC {
        return Err("not a collidoscope field cache of this version".into());
    }
    let (body, checksum) = bytes.split_at(body_len);
    if xxh3_64(body) != u64::from_le_bytes(checksum.try_into().map_err(|_| "truncated")?) {
        return Err("checksum mismatch (corrupt or truncated)".into());
    }
    let header_len = u64::from_le_bytes(body[8..16].try_into().map_err(|_| "truncated")?) as usize;
    let header_end = 16usize
        .checked_add(header_len)
        .filter(|&e| e <= body.len())
        .ok_or("truncated header")?;
    let header: Header =
        serde_json::from_slice(&body[16..header_end]).map_err(|e| format!("bad header: {e}"))?;
    if header.mesh_hash != mesh_hash || header.params != *params || header.backend != backend {
        return Err("stale: made for another mesh or other parameters".into());
    }
    let cells = header.cells as usize;
    if cells != header.grid.num_cells() || body.len() - header_end != cells * 8 {
        return Err("cell count does not match the grid".into());
    }
    let (values, closest) = body[header_end..].split_at(cells * 4);
    Ok(SdfField {
        grid: header.grid,
        params: header.params,
        backend: header.backend,
        values: bytemuck::pod_collect_to_vec(values),
        closest: bytemuck::pod_collect_to_vec(closest),
        distance_evaluations: header.distance_evaluations,
        timings: Timings::default(),
    })
}
