//! The per-depth statistics table of an adaptive field.
//!
//! The table is [`COLUMNS`], a list of (header, hover text, formatter)
//! over [`LevelStats`]: the octree's own counts, the parent bound measured
//! against the true distance, and the stage's per-depth query counts (the
//! paper's table 1: BVHs and BVs tested per sample point). A new figure is
//! a field filled in [`level_stats`] and one line in [`COLUMNS`].

use super::probe::parent_bound;
use crate::mesh::PreparedMesh;
use crate::stages::adaptive::{AdaptiveField, DepthStats};

/// What one depth of the octree holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LevelStats {
    pub depth: u32,
    pub nodes: usize,
    pub leaves: usize,
    /// Nodes holding at least one triangle centroid.
    pub occupied: usize,
    /// Edge length of the depth's cells (world units).
    pub edge: f32,
    /// Nodes with a parent, whose query started from the parent's bound.
    pub bounded: usize,
    /// Sum over those of (upper bound − true distance).
    pub slack_sum: f64,
    /// Of those, how many had the parent's closest triangle as their own.
    pub kept: usize,
    /// The stage's own counts per sample point (the paper's table 1), when
    /// it reports them for this depth.
    pub queries: Option<DepthStats>,
}

impl LevelStats {
    fn mean_slack(&self) -> Option<f64> {
        (self.bounded > 0).then(|| self.slack_sum / self.bounded as f64)
    }
}

/// A column of the table.
pub struct Column {
    pub header: &'static str,
    pub help: &'static str,
    pub cell: fn(&LevelStats) -> String,
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "—".into()
    } else {
        format!("{:.0}%", 100.0 * part as f64 / whole as f64)
    }
}

pub const COLUMNS: &[Column] = &[
    Column {
        header: "depth",
        help: "octree depth (the roots are the start depth)",
        cell: |s| s.depth.to_string(),
    },
    Column {
        header: "nodes",
        help: "sample points at this depth (node centres)",
        cell: |s| s.nodes.to_string(),
    },
    Column {
        header: "leaves",
        help: "nodes not split: at most α triangles, or the maximum depth",
        cell: |s| s.leaves.to_string(),
    },
    Column {
        header: "occupied",
        help: "nodes holding at least one triangle centroid",
        cell: |s| s.occupied.to_string(),
    },
    Column {
        header: "edge",
        help: "cell edge length (mesh units)",
        cell: |s| format!("{:.4}", s.edge),
    },
    Column {
        header: "bound slack",
        help: "mean of (distance to the parent's closest triangle − true distance), \
               in cell edges: how far the §5.1 upper bound starts above the answer",
        cell: |s| {
            s.mean_slack().map_or("—".into(), |m| {
                format!("{:.3}", m / s.edge.max(f32::MIN_POSITIVE) as f64)
            })
        },
    },
    Column {
        header: "BVHs",
        help: "BVHs per sample point that survive the axis and RSS culling (§5.3, table 1)",
        cell: |s| per_point(s, |q| q.bvhs_per_point),
    },
    Column {
        header: "BVs",
        help: "bounding volumes whose distance was computed, per sample point (table 1)",
        cell: |s| per_point(s, |q| q.bvs_per_point),
    },
    Column {
        header: "triangles",
        help: "exact point–triangle distances per sample point, the seed included",
        cell: |s| per_point(s, |q| q.triangles_per_point),
    },
    Column {
        header: "GPU ms",
        help: "GPU time of this depth's query dispatch (timestamp queries)",
        cell: |s| {
            s.queries
                .and_then(|q| q.query_gpu_ms)
                .map_or("—".into(), |ms| format!("{ms:.3}"))
        },
    },
    Column {
        header: "parent's kept",
        help: "nodes whose closest triangle is their parent's (the bound was already exact)",
        cell: |s| percent(s.kept, s.bounded),
    },
];

fn per_point(s: &LevelStats, figure: fn(&DepthStats) -> f64) -> String {
    s.queries
        .as_ref()
        .map_or("—".into(), |q| format!("{:.2}", figure(q)))
}

/// One row per depth from the start depth to the deepest node.
pub fn level_stats(mesh: &PreparedMesh, field: &AdaptiveField) -> Vec<LevelStats> {
    let tree = &field.octree;
    let deepest = tree.nodes.iter().map(|n| n.depth).max().unwrap_or(0);
    let mut rows: Vec<LevelStats> = (tree.start_depth..=deepest)
        .map(|depth| LevelStats {
            depth,
            edge: tree.cube.size / (1u32 << depth) as f32,
            queries: field.stats.iter().find(|d| d.depth == depth).copied(),
            ..Default::default()
        })
        .collect();
    for (i, n) in tree.nodes.iter().enumerate() {
        let row = &mut rows[(n.depth - tree.start_depth) as usize];
        row.nodes += 1;
        row.leaves += n.is_leaf() as usize;
        row.occupied += (n.tri_count > 0) as usize;
        if let Some(b) = parent_bound(mesh, field, i) {
            row.bounded += 1;
            row.slack_sum += (b.distance - field.values[i].abs()).max(0.0) as f64;
            row.kept += b.kept as usize;
        }
    }
    rows
}
