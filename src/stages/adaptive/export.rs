//! The adaptive field as an `.npz` that numpy reads, plus a JSON sidecar.
//!
//! ```text
//! centers      float32 (N, 3)  node centres, world space (the sample points)
//! half_sizes   float32 (N,)    half the cell edge
//! values       float32 (N,)    signed distance at the centre, negative inside
//! depth        int32   (N,)    octree depth (roots: the start depth)
//! parent       int32   (N,)    parent index, -1 for roots
//! first_child  int32   (N,)    first of 8 consecutive children, -1 for leaves
//! closest      int32   (N,)    closest triangle (prepared mesh index)
//! ```

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{AdaptiveField, NONE};
use crate::io::{encode_npy_f32, encode_npy_i32, stored_zip};
use crate::mesh::PreparedMesh;

/// Where the sidecar goes: beside the `.npz`, extension `.json`.
pub fn sidecar_path(npz: &Path) -> PathBuf {
    npz.with_extension("json")
}

fn link(i: u32) -> i32 {
    if i == NONE { -1 } else { i as i32 }
}

/// The `.npz` bytes of a field.
pub(crate) fn encode_npz(field: &AdaptiveField) -> Result<Vec<u8>, String> {
    let nodes = &field.octree.nodes;
    let n = nodes.len();
    let centers: Vec<f32> = nodes.iter().flat_map(|n| n.center).collect();
    let half: Vec<f32> = nodes.iter().map(|n| n.half_size).collect();
    let depth: Vec<i32> = nodes.iter().map(|n| n.depth as i32).collect();
    let parent: Vec<i32> = nodes.iter().map(|n| link(n.parent)).collect();
    let first_child: Vec<i32> = nodes.iter().map(|n| link(n.first_child)).collect();
    let closest: Vec<i32> = field.closest.iter().map(|c| (c >> 3) as i32).collect();
    stored_zip(&[
        ("centers.npy".into(), encode_npy_f32(&[n, 3], &centers)),
        ("half_sizes.npy".into(), encode_npy_f32(&[n], &half)),
        ("values.npy".into(), encode_npy_f32(&[n], &field.values)),
        ("depth.npy".into(), encode_npy_i32(&[n], &depth)),
        ("parent.npy".into(), encode_npy_i32(&[n], &parent)),
        ("first_child.npy".into(), encode_npy_i32(&[n], &first_child)),
        ("closest.npy".into(), encode_npy_i32(&[n], &closest)),
    ])
}

/// The sidecar: parameters, counts, timings and where the field came from.
pub fn sidecar(
    field: &AdaptiveField,
    mesh: &PreparedMesh,
    mesh_file: &str,
    backend: &str,
    adapter: Option<String>,
) -> serde_json::Value {
    let mut gpu_ms = serde_json::Map::new();
    let mut wall_ms = serde_json::Map::new();
    for p in &field.timings.phases {
        wall_ms.insert(p.name.clone(), json!(p.wall_ms));
        if let Some(g) = p.gpu_ms {
            gpu_ms.insert(p.name.clone(), json!(g));
        }
    }
    let p = &field.params;
    json!({
        "format": "collidoscope adaptive sdf 1",
        "arrays": ["centers", "half_sizes", "values", "depth", "parent", "first_child", "closest"],
        "sign": "negative inside",
        "sign_mode": "pseudo-normal",
        "backend": backend,
        "start_depth": p.start_depth,
        "max_depth": p.max_depth,
        "alpha": p.alpha,
        "padding": p.padding,
        "parent_bound": p.parent_bound,
        "bvh": p.bvh.name(),
        "group_level": p.effective_group_level(),
        "small_node": p.small_node,
        "axis_approximation": p.axis_approximation,
        "per_depth": field.stats,
        "memory_bytes": field.memory,
        "cube_origin": field.octree.cube.origin.to_array(),
        "cube_size": field.octree.cube.size,
        "nodes": field.octree.nodes.len(),
        "nodes_per_depth": field.octree.nodes_per_depth(),
        "mesh": mesh_file,
        "mesh_hash": format!("{:016x}", mesh.source_hash),
        "triangles": mesh.triangle_count(),
        "degenerate_triangles_skipped": mesh.degenerate_skipped,
        "mesh_warnings": mesh.report.warnings(),
        "distance_evaluations": field.distance_evaluations,
        "timings_ms": wall_ms,
        "gpu_timings_ms": gpu_ms,
        "adapter": adapter,
    })
}

/// Writes the `.npz` and its sidecar as one output set
/// (`crate::io::write_set`), adding the `.npz`'s checksum to the sidecar.
pub fn write_adaptive_field(
    npz: &Path,
    field: &AdaptiveField,
    sidecar_json: &serde_json::Value,
) -> std::io::Result<()> {
    let bytes = encode_npz(field).map_err(std::io::Error::other)?;
    let mut meta = sidecar_json.clone();
    meta[crate::io::CHECKSUM_KEY] = crate::io::checksum_hex(&bytes).into();
    let text = serde_json::to_string_pretty(&meta).map_err(std::io::Error::other)?;
    crate::io::write_set(&[(npz, &bytes), (&sidecar_path(npz), text.as_bytes())])
}
