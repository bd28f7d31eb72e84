//! `collidoscope interfere A.obj B.obj … [--poses poses.json] [--res WxH]
//! [--axes x,y,z] --out result.json`: image-space interference detection
//! (Knott 2003, ch. 4) of the models in command-line order.
//!
//! `--poses` is a JSON array with one entry per model: `null` (stay where
//! the file puts it) or 3 (`tx,ty,tz`) or 7 (`…,qx,qy,qz,qw`) numbers.
//! Beside `result.json` go, per view axis, `result_stencil_<axis>.png`
//! (false-colour counts) and `result_counts_<axis>.npy` (float32 counts,
//! rows from the top). All of them and the JSON are written as one output
//! set (`crate::io::write_set`): a failure leaves the old ones untouched,
//! and each view records its files' xxh3-64 (`stencil_png_xxh3_64`,
//! `counts_npy_xxh3_64`).
//!
//! The JSON: `interfering_pairs`, `objects` (`interfering`, `closed`,
//! `negative_pixels`), `localised_points` (world position, count,
//! penetrating object and edge, the object it is `inside`, axis; §4.5.5),
//! `interfering_edges`, `self_interference` (spurious, filtered by
//! identity, §4.5.8), `open_meshes`, and per view the pixel size,
//! per-object query pixels, early non-interference, the objects,
//! triangles and edges each pass drew (`drawn`: drawn and total without
//! culling), how the pairs were identified (`identification`: weighted
//! sums or pair passes, for which objects, and why the sums were not used
//! where they were not) and timings. `--no-cull` draws everything (the
//! bounding-box culling is exact; it only draws less); `--pair-passes`
//! identifies the penetrated objects by the paper's Alg. 4 alone.
//! `--backend` picks the implementation: `stencil` (the default; the
//! rendering passes, also called `gpu`), `compute` (the same rays and
//! counts on the compute units, no rasteriser) or `cpu` (the reference,
//! no GPU needed); the JSON names it (`backend`).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::gpu::GpuContext;
use crate::io::{Format, OutputPlan};
use crate::stages::interfere::{
    Backend, CountImage, Identification, InterferenceGpu, InterferenceObject, InterferenceParams,
    InterferenceScene, Localisation, RunOptions, StencilPasses, ViewAxis, detect_cpu, detect_with,
    images,
};

#[derive(clap::Args, Debug)]
pub struct InterfereArgs {
    #[command(flatten)]
    pub load: super::LoadOpts,
    /// Models (OBJ, PLY, STL or OFF; an OBJ's objects merged), numbered from 0.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// JSON array of poses, one per model (null, 3 or 7 numbers).
    #[arg(long)]
    pub poses: Option<PathBuf>,
    /// Viewport resolution, WxH.
    #[arg(long, default_value = "256x256")]
    pub res: String,
    /// View axes, comma-separated (x, y, z).
    #[arg(long, default_value = "x,y,z")]
    pub axes: String,
    /// Edge offset along the vertex normals (world units); default 1/1000
    /// of the scene's bounding-box diagonal.
    #[arg(long)]
    pub edge_offset: Option<f32>,
    /// Draw passes 2–3 separately (cull back / cull front) instead of one
    /// two-sided stencil pass.
    #[arg(long)]
    pub separate_passes: bool,
    /// Draw every object, face and edge: no bounding-box culling.
    #[arg(long)]
    pub no_cull: bool,
    /// Identify the penetrated objects by the paper's pair passes (Alg. 4)
    /// alone, not by the weighted sums of the counting pass.
    #[arg(long)]
    pub pair_passes: bool,
    /// Implementation: stencil (rendering passes; `gpu` is an alias),
    /// compute (compute units, no rasteriser) or cpu (the reference).
    #[arg(long, default_value = "stencil")]
    pub backend: String,
    /// Result JSON; the images go beside it.
    #[arg(long)]
    pub out: PathBuf,
}

/// Parses `WxH` (also `W×H`).
pub fn parse_resolution(text: &str) -> anyhow::Result<(u32, u32)> {
    let parse = || -> Option<(u32, u32)> {
        let (w, h) = text.split_once(['x', 'X', '×'])?;
        let (w, h) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
        (w > 0 && h > 0).then_some((w, h))
    };
    parse().with_context(|| format!("resolution '{text}': expected WxH, e.g. 256x256"))
}

/// Parses `x,y,z` (any non-empty subset, no repeats).
pub fn parse_axes(text: &str) -> anyhow::Result<Vec<ViewAxis>> {
    let mut axes = Vec::new();
    for part in text.split(',') {
        let axis = ViewAxis::parse(part)
            .with_context(|| format!("axes '{text}': '{part}' is not x, y or z"))?;
        if axes.contains(&axis) {
            bail!("axes '{text}': {} given twice", axis.name());
        }
        axes.push(axis);
    }
    Ok(axes)
}

fn read_poses(path: &Path, count: usize) -> anyhow::Result<Vec<glam::Mat4>> {
    let text = crate::io::read_input_text(path, crate::io::InputKind::Scene)?;
    let poses: Vec<Option<Vec<f32>>> = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: expected a JSON array of poses (null, [tx,ty,tz] or [tx,ty,tz,qx,qy,qz,qw])",
            path.display()
        )
    })?;
    if poses.len() != count {
        bail!(
            "{}: {} poses for {count} models",
            path.display(),
            poses.len()
        );
    }
    poses
        .iter()
        .enumerate()
        .map(|(i, p)| match p {
            None => Ok(glam::Mat4::IDENTITY),
            Some(v) => super::tritri::pose_from_values(v)
                .map(|pose| pose.to_mat4())
                .with_context(|| format!("{}: pose {i}", path.display())),
        })
        .collect()
}

/// The count image as an RGBA picture.
fn count_image_rgba(image: &CountImage) -> image::RgbaImage {
    let pixels = images::rgba(image, images::ImageKind::Counts);
    image::RgbaImage::from_fn(image.view.width, image.view.height, |x, y| {
        image::Rgba(pixels[(y * image.view.width + x) as usize])
    })
}

fn sibling(out: &Path, suffix: &str) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "interfere".into());
    out.with_file_name(format!("{stem}_{suffix}"))
}

/// At most this many localised points go into the JSON (all are counted).
const MAX_POINTS: usize = 10_000;

pub fn run(args: InterfereArgs) -> anyhow::Result<()> {
    let (width, height) = parse_resolution(&args.res)?;
    let backend = Backend::from_name(&args.backend).with_context(|| {
        format!(
            "--backend '{}': expected stencil, compute or cpu",
            args.backend
        )
    })?;
    let axes = parse_axes(&args.axes)?;
    let mut plan = OutputPlan::new();
    for file in &args.files {
        plan.input("the model", file);
    }
    if let Some(poses) = &args.poses {
        plan.input("--poses", poses);
    }
    plan.output("--out", &args.out, Format::JSON);
    for axis in &axes {
        let axis = axis.name();
        let png = sibling(&args.out, &format!("stencil_{axis}.png"));
        let npy = sibling(&args.out, &format!("counts_{axis}.npy"));
        plan.output("--out's stencil image", png, Format::PNG)
            .output("--out's counts", npy, Format::NPY);
    }
    plan.check()?;
    if let Some(o) = args.edge_offset
        && !(o.is_finite() && o >= 0.0)
    {
        bail!("--edge-offset {o}: must be a finite number ≥ 0");
    }
    let poses = match &args.poses {
        Some(p) => read_poses(p, args.files.len())?,
        None => vec![glam::Mat4::IDENTITY; args.files.len()],
    };
    let mut objects = Vec::with_capacity(args.files.len());
    for (file, pose) in args.files.iter().zip(&poses) {
        let mesh = super::load_mesh(file, args.load)?;
        objects.push(InterferenceObject::new(&mesh, *pose));
    }
    let scene = InterferenceScene::new(objects)?;
    let params = InterferenceParams {
        width,
        height,
        edge_offset: args.edge_offset,
        stencil_passes: if args.separate_passes {
            StencilPasses::Separate
        } else {
            StencilPasses::TwoSided
        },
        cull: !args.no_cull,
        identification: if args.pair_passes {
            Identification::PairPasses
        } else {
            Identification::WeightedSums
        },
    };
    let (runs, summary, adapter) = match backend {
        Backend::Cpu => {
            let (runs, summary) = detect_cpu(&scene, &params, &axes);
            (runs, summary, "CPU reference".to_string())
        }
        _ => {
            let gpu = GpuContext::headless()?;
            let stage = InterferenceGpu::new(&gpu)?;
            let options = RunOptions::default();
            let (runs, summary) = detect_with(backend, &stage, &scene, &params, &axes, options)?;
            (runs, summary, gpu.describe())
        }
    };

    let mut views = Vec::new();
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for run in &runs {
        let Some(image) = &run.image else { continue };
        let axis = run.view.axis.name();
        let png = sibling(&args.out, &format!("stencil_{axis}.png"));
        let npy = sibling(&args.out, &format!("counts_{axis}.npy"));
        let mut png_bytes = Vec::new();
        count_image_rgba(image)
            .write_to(
                &mut std::io::Cursor::new(&mut png_bytes),
                image::ImageFormat::Png,
            )
            .context("cannot encode the stencil PNG")?;
        let counts: Vec<f32> = image.counts.iter().map(|&c| c as f32).collect();
        let npy_bytes = crate::io::encode_npy_f32(&[height as usize, width as usize], &counts);
        let (px, py) = run.view.pixel_size();
        views.push(serde_json::json!({
            "axis": axis,
            "width": width,
            "height": height,
            "pixel_size": [px, py],
            "stencil_png": png.display().to_string(),
            "counts_npy": npy.display().to_string(),
            "interfering_pixels": image.counts.iter().filter(|&&c| c > 0).count(),
            "negative_pixels": image.negative_pixels(),
            "object_query_pixels": run.queries.object_pixels,
            "early_non_interference": run.queries.early_exit,
            "culling": run.cull.is_some(),
            "drawn": run.drawn,
            "identification": run.identification,
            "gpu_ms": run.phases.iter().filter_map(|p| p.gpu_ms).sum::<f64>(),
            "wall_ms": run.wall_ms,
            "stencil_png_xxh3_64": crate::io::checksum_hex(&png_bytes),
            "counts_npy_xxh3_64": crate::io::checksum_hex(&npy_bytes),
        }));
        files.push((png, png_bytes));
        files.push((npy, npy_bytes));
    }
    let located = Localisation::from_runs(&scene, &runs);
    let negative = |k: usize| {
        located
            .open_meshes
            .negative_pixels
            .iter()
            .find(|&&(o, _)| o == k)
            .map_or(0, |&(_, n)| n)
    };
    let points: Vec<_> = located
        .points
        .iter()
        .take(MAX_POINTS)
        .map(|p| {
            serde_json::json!({
                "position": p.position.to_array(),
                "count": p.count,
                "object": p.object,
                "edge": p.edge,
                "inside": p.penetrated,
                "axis": p.axis.name(),
            })
        })
        .collect();
    let edges: Vec<_> = located
        .edges
        .iter()
        .map(|&(object, edge)| serde_json::json!({"object": object, "edge": edge}))
        .collect();
    let objects: Vec<_> = args
        .files
        .iter()
        .zip(&scene.objects)
        .enumerate()
        .map(|(k, (file, o))| {
            serde_json::json!({
                "file": file.display().to_string(),
                "interfering": summary.interfering[k],
                "closed": o.closed,
                "negative_pixels": negative(k),
                "triangles": o.mesh.triangles.len(),
            })
        })
        .collect();
    let json = serde_json::json!({
        "interfering_pairs": summary.pairs,
        "objects": objects,
        "self_only": summary.self_only,
        "touching_pairs": summary.touching,
        "edge_offset": scene.edge_offset(&params),
        "views": views,
        "localised_points": points,
        "localised_point_count": located.points.len(),
        "interfering_edges": edges,
        "self_interference": located.self_interference,
        "open_meshes": located.open_meshes,
        "backend": backend.name(),
        "adapter": adapter,
    });
    let text = serde_json::to_string_pretty(&json)?;
    files.push((args.out.clone(), text.into_bytes()));
    let set: Vec<(&Path, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_path(), b.as_slice()))
        .collect();
    crate::io::write_set(&set).with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "{} objects, {} interfering pairs {:?} → {}",
        scene.objects.len(),
        summary.pairs.len(),
        summary.pairs,
        args.out.display()
    );
    if !summary.touching.is_empty() {
        let tied: u64 = summary.touching.iter().map(|t| t.tied_pixels).sum();
        let pairs: Vec<_> = summary.touching.iter().map(|t| t.objects).collect();
        println!(
            "{} touching pairs {pairs:?}: surfaces coincide at {tied} tied pixels",
            pairs.len()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_resolution_and_axes() {
        assert_eq!(parse_resolution("640x480").unwrap(), (640, 480));
        assert_eq!(parse_resolution("64×32").unwrap(), (64, 32));
        assert!(parse_resolution("0x4").is_err());
        assert!(parse_resolution("big").is_err());
        assert_eq!(parse_axes("z,x").unwrap(), vec![ViewAxis::Z, ViewAxis::X]);
        assert!(parse_axes("x,x").is_err());
        assert!(parse_axes("w").is_err());
    }
}
