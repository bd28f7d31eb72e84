//! `collidoscope bench interfere`: image-space interference detection
//! (Knott 2003, §4.7) — time against the number of objects (figure 4.15)
//! and against the number of polygons (figure 4.16), read pixels against
//! occlusion queries at 256×256 and 640×480 (table 4.1), and early
//! non-interference (queries only) with and without interference (table
//! 4.2).
//!
//! Scenes are boxes subdivided to the wanted polygon count, at seeded
//! random poses in a cube of side 1.6·⌈∛n⌉ (dense: most boxes touch
//! another, "interfering"), or axis-aligned on a grid with unit gaps
//! ("apart"). One view axis
//! (z). Per row: GPU time (timestamp queries, all passes) where the
//! adapter has them and wall-clock time end to end (recording, passes,
//! read-back), the median of `--repeats` runs after one warm-up.

use std::path::Path;

use anyhow::Context;
use glam::{Mat4, Quat, Vec3};
use serde::Serialize;

use super::bench::BenchArgs;
use crate::gpu::GpuContext;
use crate::mesh::box_mesh;
use crate::plot::{Panel, Series};
use crate::stages::interference::{
    InterferenceGpu, InterferenceObject, InterferenceParams, InterferenceScene,
    InterferenceSummary, OrthoView, RunOptions, StencilPasses, ViewAxis,
};

#[derive(Serialize, Clone, Debug)]
struct Row {
    study: &'static str,
    scene: &'static str,
    objects: usize,
    triangles: usize,
    width: u32,
    height: u32,
    mode: &'static str,
    gpu_ms: Option<f64>,
    wall_ms: f64,
    /// Interfering pairs where the pair queries ran, otherwise the number
    /// of objects whose edges are inside something (pass 4 queries).
    interfering: usize,
}

impl Row {
    fn best_ms(&self) -> f64 {
        self.gpu_ms.unwrap_or(self.wall_ms)
    }
}

/// A small deterministic generator (xorshift), so runs are comparable.
struct Rng(u64);

impl Rng {
    fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `objects` unit boxes of `12·k²` triangles each, randomly posed
/// (interfering) or on a grid with gaps (apart).
fn boxes(objects: usize, k: u32, apart: bool, seed: u64) -> InterferenceScene {
    let mesh = box_mesh(k);
    let mut rng = Rng(seed | 1);
    let side = (objects as f32).cbrt().ceil() as usize;
    let list = (0..objects)
        .map(|n| {
            let rotation = Quat::from_euler(
                glam::EulerRot::XYZ,
                rng.next_f32() * 6.3,
                rng.next_f32() * 6.3,
                rng.next_f32() * 6.3,
            );
            let at = if apart {
                let (x, y, z) = (n % side, (n / side) % side, n / (side * side));
                Vec3::new(x as f32, y as f32, z as f32) * 2.0
            } else {
                // Density: a cube of side ~1.6·cbrt(n) holds n boxes with
                // a fair share of them touching.
                let extent = 1.6 * side as f32;
                Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32()) * extent
            };
            let rotation = if apart { Quat::IDENTITY } else { rotation };
            InterferenceObject::new(&mesh, Mat4::from_rotation_translation(rotation, at))
        })
        .collect();
    InterferenceScene::new(list).expect("boxes are valid meshes")
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[allow(clippy::too_many_arguments)]
fn time_run(
    gpu: &GpuContext,
    stage: &InterferenceGpu,
    scene: &InterferenceScene,
    study: &'static str,
    name: &'static str,
    (width, height): (u32, u32),
    mode: &'static str,
    options: RunOptions,
    repeats: usize,
) -> anyhow::Result<Row> {
    let params = InterferenceParams {
        width,
        height,
        ..Default::default()
    };
    let uploaded = stage.upload(gpu, scene);
    let offset = scene.edge_offset(&params);
    let view = OrthoView::fit(scene, ViewAxis::Z, width, height, offset);
    let mut gpu_ms = Vec::new();
    let mut wall_ms = Vec::new();
    let mut pairs = 0;
    for rep in 0..=repeats.max(1) {
        let run = stage.run(gpu, &uploaded, &view, offset, options)?;
        if rep == 0 {
            pairs = if options.pairs {
                InterferenceSummary::from_runs(scene.objects.len(), &[run])
                    .pairs
                    .len()
            } else {
                run.queries.object_pixels.iter().filter(|&&p| p > 0).count()
            };
            continue;
        }
        if run.phases.iter().all(|p| p.gpu_ms.is_some()) && !run.phases.is_empty() {
            gpu_ms.push(run.phases.iter().filter_map(|p| p.gpu_ms).sum());
        }
        wall_ms.push(run.wall_ms);
    }
    Ok(Row {
        study,
        scene: name,
        objects: scene.objects.len(),
        triangles: scene.triangle_count(),
        width,
        height,
        mode,
        gpu_ms: (!gpu_ms.is_empty()).then(|| median(&mut gpu_ms)),
        wall_ms: median(&mut wall_ms),
        interfering: pairs,
    })
}

const READ_PIXELS: RunOptions = RunOptions {
    passes: StencilPasses::TwoSided,
    read_pixels: true,
    pairs: false,
};
const QUERIES: RunOptions = RunOptions {
    passes: StencilPasses::TwoSided,
    read_pixels: false,
    pairs: false,
};
const QUERIES_PAIRS: RunOptions = RunOptions {
    passes: StencilPasses::TwoSided,
    read_pixels: false,
    pairs: true,
};

pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let gpu = GpuContext::headless()?;
    let adapter = gpu.describe();
    let stage = InterferenceGpu::new(&gpu)?;
    let repeats = args.repeats;
    let mut rows = Vec::new();
    // Figure 4.15: time against objects (boxes of 300 triangles).
    for &n in &[4usize, 16, 64, 256] {
        let scene = boxes(n, 5, false, 7 + n as u64);
        let row = time_run(
            &gpu,
            &stage,
            &scene,
            "objects",
            "boxes",
            (1024, 1024),
            "occlusion queries + pairs",
            QUERIES_PAIRS,
            repeats,
        )?;
        eprintln!("{row:?}");
        rows.push(row);
    }
    // Figure 4.16: time against polygons (16 boxes).
    for &k in &[2u32, 8, 32, 64] {
        let scene = boxes(16, k, false, 99);
        let row = time_run(
            &gpu,
            &stage,
            &scene,
            "polygons",
            "boxes",
            (1024, 1024),
            "occlusion queries + pairs",
            QUERIES_PAIRS,
            repeats,
        )?;
        eprintln!("{row:?}");
        rows.push(row);
    }
    // Tables 4.1–4.2: read pixels vs queries; with and without interference.
    for res in [(640, 480), (256, 256)] {
        for (name, apart) in [("interfering", false), ("apart", true)] {
            let scene = boxes(27, 3, apart, 5);
            for (mode, options) in [("read pixels", READ_PIXELS), ("occlusion queries", QUERIES)] {
                let row = time_run(
                    &gpu,
                    &stage,
                    &scene,
                    "read-back",
                    name,
                    res,
                    mode,
                    options,
                    repeats,
                )?;
                eprintln!("{row:?}");
                rows.push(row);
            }
        }
    }
    print_table(&rows, &adapter);
    write_outputs(&args.out, &rows, &adapter)
}

fn write_outputs(dir: &Path, rows: &[Row], adapter: &str) -> anyhow::Result<()> {
    let json = serde_json::json!({
        "benchmark": "interfere",
        "adapter": adapter,
        "rows": rows,
    });
    crate::io::write_atomically(
        &dir.join("interfere.json"),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    let mut csv = String::from(
        "study,scene,objects,triangles,width,height,mode,gpu_ms,wall_ms,interfering\n",
    );
    for r in rows {
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{:.4},{}\n",
            r.study,
            r.scene,
            r.objects,
            r.triangles,
            r.width,
            r.height,
            r.mode,
            r.gpu_ms.map(|v| format!("{v:.4}")).unwrap_or_default(),
            r.wall_ms,
            r.interfering,
        ));
    }
    crate::io::write_atomically(&dir.join("interfere.csv"), csv.as_bytes())?;
    let series = |study: &str, x: fn(&Row) -> f64| -> Vec<Series> {
        vec![Series {
            name: "occlusion queries + pairs".into(),
            points: rows
                .iter()
                .filter(|r| r.study == study)
                .map(|r| (x(r), r.best_ms()))
                .collect(),
        }]
    };
    let by_objects = series("objects", |r| r.objects as f64);
    let by_polygons = series("polygons", |r| r.triangles as f64);
    let title = format!("interference, 1024² — {adapter}");
    crate::plot::write_png(
        &dir.join("interfere.png"),
        1600,
        650,
        &[
            Panel {
                title: &title,
                x_label: "objects",
                y_label: "ms",
                log_x: true,
                log_y: true,
                series: &by_objects,
            },
            Panel {
                title: "16 objects",
                x_label: "triangles",
                y_label: "ms",
                log_x: true,
                log_y: true,
                series: &by_polygons,
            },
        ],
    )
    .map_err(|e| anyhow::anyhow!("plot: {e}"))
}

fn print_table(rows: &[Row], adapter: &str) {
    println!("Interference benchmark — {adapter}");
    println!(
        "{:<10} {:<12} {:>7} {:>9} {:>9} {:<26} {:>9} {:>9} {:>6}",
        "study",
        "scene",
        "objects",
        "triangles",
        "viewport",
        "mode",
        "gpu ms",
        "wall ms",
        "interf."
    );
    for r in rows {
        println!(
            "{:<10} {:<12} {:>7} {:>9} {:>9} {:<26} {:>9} {:>9.3} {:>6}",
            r.study,
            r.scene,
            r.objects,
            r.triangles,
            format!("{}x{}", r.width, r.height),
            r.mode,
            r.gpu_ms.map_or("-".into(), |v| format!("{v:.3}")),
            r.wall_ms,
            r.interfering,
        );
    }
}
