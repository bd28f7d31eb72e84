//! Writing a field as `.npy` + JSON sidecar (the CLI's `sdf --out` and the
//! viewer's export share this).
//!
//! The array is float32, C order, shape `(nz, ny, nx)`: `field[k][j][i]` is
//! the signed distance at `origin + (i, j, k) * cell_size`, negative inside.
//! In Python: `f = np.load("field.npy"); meta = json.load(open("field.json"))`.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::SdfField;
use crate::mesh::PreparedMesh;

/// What the sidecar says about where the field came from.
pub struct FieldSource<'a> {
    /// The mesh file as given.
    pub mesh_file: &'a str,
    /// "hit", "miss", "off" or "rejected: …".
    pub cache: &'a str,
    /// The GPU adapter, if a GPU backend ran.
    pub adapter: Option<String>,
}

/// The JSON sidecar of a field.
pub fn sidecar(
    field: &SdfField,
    mesh: &PreparedMesh,
    source: &FieldSource<'_>,
) -> serde_json::Value {
    let d = field.grid.dims;
    let mut gpu_ms = serde_json::Map::new();
    let mut wall_ms = serde_json::Map::new();
    for p in &field.timings.phases {
        wall_ms.insert(p.name.clone(), json!(p.wall_ms));
        if let Some(g) = p.gpu_ms {
            gpu_ms.insert(p.name.clone(), json!(g));
        }
    }
    json!({
        "format": "collidoscope sdf grid 1",
        "shape": [d.z, d.y, d.x],
        "axis_order": "zyx",
        "dtype": "float32",
        "origin": field.grid.origin.to_array(),
        "origin_f64": origin_f64(field, mesh).map(|o| o.to_array()),
        "cell_size": field.grid.cell_size,
        "sign": "negative inside",
        "sign_mode": field.params.sign_mode.name(),
        "backend": field.backend.name(),
        "resolution": field.params.resolution,
        "padding": field.params.padding,
        "band_cells": field.params.band,
        "band_world": field.band_world(),
        "far_value_meaning": "cells farther than the band hold ±band_world",
        "far_cells": field.far_cells(),
        "inside_cells": field.inside_cells(),
        "mesh": source.mesh_file,
        "mesh_hash": format!("{:016x}", mesh.source_hash),
        "triangles": mesh.triangle_count(),
        "degenerate_triangles_skipped": mesh.degenerate_skipped,
        "mesh_warnings": mesh.report.warnings(),
        "distance_evaluations": field.distance_evaluations,
        "timings_ms": wall_ms,
        "gpu_timings_ms": gpu_ms,
        "adapter": source.adapter,
        "cache": source.cache,
    })
}

/// The grid's origin in float64, exactly where the values were computed.
/// A field is computed on a grid in the mesh's frame ([`super::compute`]);
/// its float32 world origin is that grid's origin rounded, which for a mesh
/// far from the origin is off by up to half a float32 spacing there (1/32
/// at 1e6). `None` for a grid other than the one [`super::compute`] makes
/// for the field's parameters (one given from outside).
fn origin_f64(field: &SdfField, mesh: &PreparedMesh) -> Option<glam::DVec3> {
    let frame = mesh.frame();
    let local = super::GridSpec::around(
        mesh.local().bounds(),
        field.params.resolution,
        field.params.padding,
    );
    (local.to_world(&frame) == field.grid).then(|| frame.to_world_f64(local.origin))
}

/// The sidecar path of `npy`: same name, `.json`.
pub fn sidecar_path(npy: &Path) -> PathBuf {
    npy.with_extension("json")
}

/// Writes `field` to `npy` and its sidecar beside it as one output set
/// (`crate::io::write_set`); the sidecar records the `.npy`'s checksum.
pub fn write_field(
    npy: &Path,
    field: &SdfField,
    mesh: &PreparedMesh,
    source: &FieldSource<'_>,
) -> std::io::Result<()> {
    let d = field.grid.dims;
    let shape = [d.z as usize, d.y as usize, d.x as usize];
    write_values(npy, &shape, &field.values, sidecar(field, mesh, source))
}

/// Writes float32 `values` of `shape` to `npy` and the sidecar `meta`
/// beside it, recording the `.npy`'s checksum, as one output set.
pub fn write_values(
    npy: &Path,
    shape: &[usize],
    values: &[f32],
    mut meta: serde_json::Value,
) -> std::io::Result<()> {
    let bytes = crate::io::encode_npy_f32(shape, values);
    meta[crate::io::CHECKSUM_KEY] = crate::io::checksum_hex(&bytes).into();
    let text = serde_json::to_string_pretty(&meta).map_err(std::io::Error::other)?;
    crate::io::write_set(&[(npy, &bytes), (&sidecar_path(npy), text.as_bytes())])
}

/// Reads a field written by [`write_field`] with its sidecar, refusing a
/// pair whose checksum does not match (one of them is from another run).
pub fn read_field(npy: &Path) -> Result<(crate::io::NpyArray, serde_json::Value), String> {
    let (bytes, meta) = crate::io::read_verified(npy, &sidecar_path(npy))?;
    let array = crate::io::decode_npy_f32(&bytes).map_err(|e| format!("{}: {e}", npy.display()))?;
    Ok((array, meta))
}
