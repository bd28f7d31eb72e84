//! The rows of `bench radial`: per-phase medians of the timed frames, the
//! CSV and console columns, and the book's table (`radial.md`).

use serde::Serialize;

use super::super::report::{self, Column, or_dash, or_empty};
use crate::gpu::GpuPhase;

/// What a row measured on.
#[derive(Serialize, Clone, Debug)]
pub struct Scene {
    pub triangles: usize,
    pub bones: usize,
    pub fields: usize,
    pub particles: usize,
    pub resolution: String,
    pub substeps: u32,
    /// GPU commands (dispatches, draws, copies) a frame records, each
    /// waiting on the one before.
    pub dispatches_per_frame: u32,
    /// Those of skinning + rasterise + collision.
    pub update_cd_dispatches: u32,
    pub field_memory_mb: f64,
}

#[derive(Serialize, Clone, Debug)]
pub struct Row {
    #[serde(flatten)]
    pub scene: Scene,
    /// `render` or `compute`.
    pub rasteriser: &'static str,
    pub skinning_gpu_ms: Option<f64>,
    pub rasterise_gpu_ms: Option<f64>,
    pub collision_gpu_ms: Option<f64>,
    pub cloth_gpu_ms: Option<f64>,
    /// Structure update (skinning + rasterise) plus collision detection
    /// and response.
    pub update_cd_gpu_ms: Option<f64>,
    /// Every phase of the frame on the GPU.
    pub frame_gpu_ms: Option<f64>,
    /// The whole frame: CPU pose, writes, submission and wait.
    pub frame_wall_ms: f64,
    /// Particles in contact with a field in the last frame.
    pub contacts: usize,
    /// Share of the fields' cells a face covers in the last frame (%).
    pub filled_cells_pct: f64,
}

/// The phase of skinning, with the fields' clear in the same dispatch.
pub const SKINNING: &str = "skinning + clear";

/// The GPU time of phase `name`.
fn phase(phases: &[GpuPhase], name: &str) -> Option<f64> {
    phases
        .iter()
        .find(|p| p.name == name)
        .and_then(|p| p.gpu_ms)
}

/// Skinning + rasterise + collision: the paper's update + CD.
pub fn update_cd(phases: &[GpuPhase]) -> Option<f64> {
    Some(phase(phases, SKINNING)? + phase(phases, "rasterise")? + phase(phases, "collision")?)
}

/// Every phase's GPU time.
fn frame_gpu(phases: &[GpuPhase]) -> Option<f64> {
    phases.iter().map(|p| p.gpu_ms).sum()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

impl Row {
    /// The medians of `samples` (each frame's phases and wall ms).
    pub fn from_samples(
        scene: Scene,
        rasteriser: &'static str,
        samples: &[(Vec<GpuPhase>, f64)],
        contacts: usize,
        filled_cells_pct: f64,
    ) -> Row {
        let median_of = |pick: &dyn Fn(&[GpuPhase]) -> Option<f64>| {
            let mut v: Vec<f64> = samples.iter().filter_map(|(p, _)| pick(p)).collect();
            (!v.is_empty() && v.len() == samples.len()).then(|| median(&mut v))
        };
        let mut wall: Vec<f64> = samples.iter().map(|(_, w)| *w).collect();
        Row {
            scene,
            rasteriser,
            skinning_gpu_ms: median_of(&|p| phase(p, SKINNING)),
            rasterise_gpu_ms: median_of(&|p| phase(p, "rasterise")),
            collision_gpu_ms: median_of(&|p| phase(p, "collision")),
            cloth_gpu_ms: median_of(&|p| phase(p, "cloth")),
            update_cd_gpu_ms: median_of(&update_cd),
            frame_gpu_ms: median_of(&frame_gpu),
            frame_wall_ms: median(&mut wall),
            contacts,
            filled_cells_pct,
        }
    }
}

/// The plotted series: name and time of a row.
pub type Pick = fn(&Row) -> Option<f64>;
pub const PLOTTED: [(&str, Pick); 5] = [
    ("update + CD", |r| r.update_cd_gpu_ms),
    ("skinning", |r| r.skinning_gpu_ms),
    ("rasterise", |r| r.rasterise_gpu_ms),
    ("collision", |r| r.collision_gpu_ms),
    ("cloth constraints", |r| r.cloth_gpu_ms),
];

/// "1234567" → "1,234,567".
fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The book's table of `rows` (header, rule, one line per row); times
/// to 3 decimals of a ms, as the CSV rounds them further.
pub fn readme_table(rows: &[Row]) -> String {
    // Each cell rounds the CSV's value (4 decimals), not the unrounded
    // median, so that the table reads the same as its CSV
    // (tests/it/readme_bench.rs compares them).
    let as_csv = |m: f64| format!("{m:.4}").parse::<f64>().unwrap_or(m);
    let ms = |v: Option<f64>| or_dash(v, |m| format!("{:.3} ms", as_csv(m)));
    let mut out = String::from(
        "| character | fields | cloth particles | field cells | rasteriser | substeps | skinning GPU | rasterise GPU | collision GPU | cloth GPU | update + CD GPU | ≤ 0.1 ms | frame GPU | wall / frame | field memory |\n\
         |---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n",
    );
    for r in rows {
        let s = &r.scene;
        let cells = [
            format!("{} triangles", thousands(s.triangles)),
            s.fields.to_string(),
            thousands(s.particles),
            s.resolution.replace('x', "×"),
            r.rasteriser.to_string(),
            s.substeps.to_string(),
            ms(r.skinning_gpu_ms),
            ms(r.rasterise_gpu_ms),
            ms(r.collision_gpu_ms),
            ms(r.cloth_gpu_ms),
            ms(r.update_cd_gpu_ms),
            meets(r.update_cd_gpu_ms),
            ms(r.frame_gpu_ms),
            format!("{:.2} ms", as_csv(r.frame_wall_ms)),
            format!("{:.3} MB", s.field_memory_mb),
        ];
        out += &format!("| {} |\n", cells.join(" | "));
    }
    out
}

/// Whether update + CD meets the 0.1 ms target.
fn meets(ms: Option<f64>) -> String {
    or_dash(ms, |m| if m <= 0.1 { "yes" } else { "no" }.into())
}

impl report::Row for Row {
    fn csv_header() -> Vec<&'static str> {
        vec![
            "triangles",
            "bones",
            "fields",
            "particles",
            "resolution",
            "rasteriser",
            "substeps",
            "field_memory_mb",
            "skinning_gpu_ms",
            "rasterise_gpu_ms",
            "collision_gpu_ms",
            "cloth_gpu_ms",
            "update_cd_gpu_ms",
            "frame_gpu_ms",
            "frame_wall_ms",
            "contacts",
            "filled_cells_pct",
            "dispatches_per_frame",
            "update_cd_dispatches",
        ]
    }

    fn csv_cells(&self) -> Vec<String> {
        let ms = |v: Option<f64>| or_empty(v, |m| format!("{m:.4}"));
        let s = &self.scene;
        vec![
            s.triangles.to_string(),
            s.bones.to_string(),
            s.fields.to_string(),
            s.particles.to_string(),
            s.resolution.clone(),
            self.rasteriser.to_string(),
            s.substeps.to_string(),
            format!("{:.3}", s.field_memory_mb),
            ms(self.skinning_gpu_ms),
            ms(self.rasterise_gpu_ms),
            ms(self.collision_gpu_ms),
            ms(self.cloth_gpu_ms),
            ms(self.update_cd_gpu_ms),
            ms(self.frame_gpu_ms),
            format!("{:.3}", self.frame_wall_ms),
            self.contacts.to_string(),
            format!("{:.1}", self.filled_cells_pct),
            s.dispatches_per_frame.to_string(),
            s.update_cd_dispatches.to_string(),
        ]
    }

    fn table_columns() -> Vec<Column> {
        vec![
            Column::right("tris", 7),
            Column::right("fields", 6),
            Column::right("particles", 9),
            Column::right("res", 7),
            Column::left("raster", 7),
            Column::right("n", 3),
            Column::right("mem MB", 7),
            Column::right("skin ms", 8),
            Column::right("raster ms", 10),
            Column::right("CD ms", 8),
            Column::right("upd+CD ms", 10),
            Column::right("≤0.1", 4),
            Column::right("cloth ms", 9),
            Column::right("frame ms", 9),
            Column::right("wall ms", 8),
            Column::right("contacts", 8),
            Column::right("filled %", 8),
            Column::right("disp CD/all", 11),
        ]
    }

    fn table_cells(&self) -> Vec<String> {
        let ms = |v: Option<f64>| or_dash(v, |m| format!("{m:.4}"));
        let s = &self.scene;
        vec![
            s.triangles.to_string(),
            s.fields.to_string(),
            s.particles.to_string(),
            s.resolution.clone(),
            self.rasteriser.to_string(),
            s.substeps.to_string(),
            format!("{:.3}", s.field_memory_mb),
            ms(self.skinning_gpu_ms),
            ms(self.rasterise_gpu_ms),
            ms(self.collision_gpu_ms),
            ms(self.update_cd_gpu_ms),
            meets(self.update_cd_gpu_ms),
            ms(self.cloth_gpu_ms),
            ms(self.frame_gpu_ms),
            format!("{:.2}", self.frame_wall_ms),
            self.contacts.to_string(),
            format!("{:.1}", self.filled_cells_pct),
            format!("{}/{}", s.update_cd_dispatches, s.dispatches_per_frame),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phases(ms: [f64; 3]) -> Vec<GpuPhase> {
        [SKINNING, "rasterise", "collision"]
            .iter()
            .zip(ms)
            .map(|(n, m)| GpuPhase {
                name: n.to_string(),
                gpu_ms: Some(m),
            })
            .collect()
    }

    #[test]
    fn rows_take_per_phase_medians_and_print_the_readme_line() {
        let scene = Scene {
            triangles: 63_798,
            bones: 21,
            fields: 21,
            particles: 12_996,
            resolution: "64x32".into(),
            substeps: 8,
            dispatches_per_frame: 15,
            update_cd_dispatches: 4,
            field_memory_mb: 0.175,
        };
        let samples = [
            (phases([0.01, 0.05, 0.02]), 1.0),
            (phases([0.03, 0.07, 0.02]), 3.0),
            (phases([0.02, 0.06, 0.04]), 2.0),
        ];
        let row = Row::from_samples(scene, "compute", &samples, 7, 80.0);
        assert_eq!(row.skinning_gpu_ms, Some(0.02));
        assert_eq!(row.rasterise_gpu_ms, Some(0.06));
        assert_eq!(row.cloth_gpu_ms, None, "no cloth phase was timed");
        // The median of each frame's sum (0.08, 0.12, 0.12), not the sum of medians.
        assert!((row.update_cd_gpu_ms.unwrap() - 0.12).abs() < 1e-12);
        assert_eq!(row.frame_wall_ms, 2.0);
        let table = readme_table(&[row]);
        let line = table.lines().nth(2).unwrap();
        assert_eq!(
            line,
            "| 63,798 triangles | 21 | 12,996 | 64×32 | compute | 8 | 0.020 ms | 0.060 ms | 0.020 ms | - | 0.120 ms | no | 0.120 ms | 2.00 ms | 0.175 MB |"
        );
    }
}
