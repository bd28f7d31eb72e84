//! `bench radial`'s comparison with table 1's alternatives (Friston &
//! Steed 2019, §9), on the same character, frames and cloth: per
//! technique the structure update (skinning of the mesh plus the
//! technique's own rebuild or refit), the query of every cloth particle,
//! their sum, the structure's memory and the particles found within the
//! contact distance in the last frame — `radial-alternatives.md`/`.csv`.
//!
//! The radial rows are the radial table's own frames (update: skinning +
//! rasterise; query: collision, which also responds). The alternatives run
//! in a second command buffer right after each radial frame, on that
//! frame's skinned vertices and cloth positions, bound by
//! [`crate::sim::radial::table1::bind`]: per-bone SDFs at each
//! `--sdf-res`, the spatial hash and the BVH refit; their query
//! is detection only (the signed distance to the nearest triangle within
//! `--reach`).

use serde::Serialize;

use super::super::report::{Column, or_dash, or_empty};
use crate::gpu::GpuPhase;

/// A row of the comparison.
#[derive(Serialize, Clone, Debug)]
pub struct AltRow {
    pub triangles: usize,
    pub bones: usize,
    pub particles: usize,
    pub technique: String,
    pub structure: String,
    /// Skinning plus the structure's rebuild, refit or rasterisation.
    pub update_gpu_ms: Option<f64>,
    /// Every particle's query (the radial rows: collision and response).
    pub query_gpu_ms: Option<f64>,
    pub total_gpu_ms: Option<f64>,
    pub memory_mb: f64,
    /// Particles within the contact distance (radial: touching a field)
    /// in the last frame.
    pub contacts: usize,
}

/// What a row is measured on, beside its technique.
pub struct RowScene {
    pub triangles: usize,
    pub bones: usize,
    pub particles: usize,
}

/// Which phases a column sums.
pub type Phases<'a> = &'a dyn Fn(&str) -> bool;

/// The GPU time of the phases `which` picks (`None` without timestamps or
/// without such a phase).
fn phase_sum(phases: &[GpuPhase], which: Phases<'_>) -> Option<f64> {
    let picked: Vec<Option<f64>> = (phases.iter())
        .filter(|p| which(&p.name))
        .map(|p| p.gpu_ms)
        .collect();
    if picked.is_empty() {
        return None;
    }
    picked.into_iter().sum()
}

fn median_of(samples: &[Vec<GpuPhase>], pick: impl Fn(&[GpuPhase]) -> Option<f64>) -> Option<f64> {
    let mut v: Vec<f64> = samples.iter().filter_map(|p| pick(p)).collect();
    if v.is_empty() || v.len() != samples.len() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// The phases of an alternative's frame: the radial run's skinning and
/// the technique's own passes, the query being the one named "… query".
pub const ALT_UPDATE: Phases<'static> = &|n| !n.ends_with("query");
pub const ALT_QUERY: Phases<'static> = &|n| n.ends_with("query");
/// The radial fields' update (skinning + rasterise) and query (collision
/// and response).
pub const RADIAL_UPDATE: Phases<'static> = &|n| n == "skinning" || n == "rasterise";
pub const RADIAL_QUERY: Phases<'static> = &|n| n == "collision";

impl AltRow {
    /// The medians over `samples` (each frame's phases) of the `update`
    /// and `query` phases' sums, and of their total.
    pub fn from_samples(
        scene: &RowScene,
        (technique, structure): (String, String),
        samples: &[Vec<GpuPhase>],
        (update, query): (Phases<'_>, Phases<'_>),
        memory_bytes: u64,
        contacts: usize,
    ) -> AltRow {
        let both = |n: &str| update(n) || query(n);
        AltRow {
            triangles: scene.triangles,
            bones: scene.bones,
            particles: scene.particles,
            technique,
            structure,
            update_gpu_ms: median_of(samples, |p| phase_sum(p, update)),
            query_gpu_ms: median_of(samples, |p| phase_sum(p, query)),
            total_gpu_ms: median_of(samples, |p| phase_sum(p, &both)),
            memory_mb: memory_bytes as f64 / 1e6,
            contacts,
        }
    }
}

/// The book's table of `rows`.
pub fn readme_table(rows: &[AltRow]) -> String {
    let ms = |v: Option<f64>| or_dash(v, |m| format!("{m:.3} ms"));
    let mut out = String::from(
        "| technique | structure | cloth particles | structure update GPU | query GPU | update + query GPU | memory | contacts |\n\
         |---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let cells = [
            r.technique.clone(),
            r.structure.clone(),
            r.particles.to_string(),
            ms(r.update_gpu_ms),
            ms(r.query_gpu_ms),
            ms(r.total_gpu_ms),
            format!("{:.3} MB", r.memory_mb),
            r.contacts.to_string(),
        ];
        out += &format!("| {} |\n", cells.join(" | "));
    }
    out
}

impl super::super::report::Row for AltRow {
    fn csv_header() -> Vec<&'static str> {
        vec![
            "triangles",
            "bones",
            "particles",
            "technique",
            "structure",
            "update_gpu_ms",
            "query_gpu_ms",
            "total_gpu_ms",
            "memory_mb",
            "contacts",
        ]
    }

    fn csv_cells(&self) -> Vec<String> {
        let ms = |v: Option<f64>| or_empty(v, |m| format!("{m:.4}"));
        vec![
            self.triangles.to_string(),
            self.bones.to_string(),
            self.particles.to_string(),
            self.technique.clone(),
            self.structure.clone(),
            ms(self.update_gpu_ms),
            ms(self.query_gpu_ms),
            ms(self.total_gpu_ms),
            format!("{:.3}", self.memory_mb),
            self.contacts.to_string(),
        ]
    }

    fn table_columns() -> Vec<Column> {
        vec![
            Column::right("particles", 9),
            Column::left("technique", 23),
            Column::left("structure", 18),
            Column::right("update ms", 10),
            Column::right("query ms", 9),
            Column::right("total ms", 9),
            Column::right("mem MB", 8),
            Column::right("contacts", 8),
        ]
    }

    fn table_cells(&self) -> Vec<String> {
        let ms = |v: Option<f64>| or_dash(v, |m| format!("{m:.4}"));
        vec![
            self.particles.to_string(),
            self.technique.clone(),
            self.structure.clone(),
            ms(self.update_gpu_ms),
            ms(self.query_gpu_ms),
            ms(self.total_gpu_ms),
            format!("{:.3}", self.memory_mb),
            self.contacts.to_string(),
        ]
    }
}
