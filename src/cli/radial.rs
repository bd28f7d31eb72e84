//! `collidoscope radial MESH.obj --axis ax,ay,az,bx,by,bz --normal
//! ux,uy,uz --res 256x128 --out unwrap.npy [--png] [--backend gpu|gpu-compute|cpu]`:
//! the radial field (Friston & Steed 2019, §4–5) of a static mesh around
//! one axis.
//!
//! Writes a float32 array of shape (nz, nθ) in C order: row k is the z
//! cell, column i the θ cell, cell centres at ((i+½)/nθ, (k+½)/nz), each
//! the distance from the axis to the nearest surface along the ray through
//! the centre, `+inf` where no face covers the cell. Beside it
//! `unwrap.json` records the axis, u, v, w, the resolution, the meaning of
//! +inf, the parameters and the array's xxh3-64; with `--png`,
//! `unwrap.png` is the false-colour unwrap (`crate::view::unwrap`, 0 blue to
//! the largest distance red). All
//! are written as one output set (`crate::io::write_set`).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use glam::Vec3;

use crate::gpu::GpuContext;
use crate::io::{Format, OutputPlan};
use crate::progress::Progress;
use crate::stages::radial::{
    Backend, BoneFrame, DEFAULT_MIN_FACING, FieldSpec, Radial, RadialInput, RadialParams,
};

#[derive(clap::Args, Debug)]
pub struct RadialArgs {
    #[command(flatten)]
    pub load: super::LoadOpts,
    /// The mesh (OBJ, PLY, STL or OFF; an OBJ's objects merged).
    pub mesh: PathBuf,
    /// The field axis A→B: ax,ay,az,bx,by,bz.
    #[arg(long, allow_hyphen_values = true)]
    pub axis: String,
    /// The normal u (θ = 0): ux,uy,uz, made orthogonal to the axis.
    #[arg(long, allow_hyphen_values = true)]
    pub normal: String,
    /// Resolution θ×z (nθ even).
    #[arg(long, default_value = "256x128")]
    pub res: String,
    /// The array (.npy); the sidecar (.json) and --png go beside it.
    #[arg(long)]
    pub out: PathBuf,
    /// Also write the false-colour unwrap as PNG.
    #[arg(long)]
    pub png: bool,
    /// gpu (the render pipeline), gpu-compute (compute shaders) or cpu.
    #[arg(long, default_value = "gpu")]
    pub backend: String,
    /// Cull faces whose normal meets the radial direction with a cosine
    /// below this (back-facing or nearly perpendicular).
    #[arg(long, default_value_t = DEFAULT_MIN_FACING)]
    pub min_facing: f32,
    /// Keep ray–plane distances beyond the face's farthest vertex (no
    /// §5.2.2 filtering).
    #[arg(long)]
    pub no_filter: bool,
}

/// Parses `n` comma-separated finite numbers.
fn numbers<const N: usize>(flag: &str, text: &str) -> anyhow::Result<[f32; N]> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let values: Option<Vec<f32>> = parts
        .iter()
        .map(|p| p.parse::<f32>().ok().filter(|v| v.is_finite()))
        .collect();
    match values {
        Some(v) if v.len() == N => Ok(v.try_into().expect("length checked")),
        _ => bail!("--{flag} '{text}': expected {N} comma-separated finite numbers"),
    }
}

fn beside(out: &Path, extension: &str) -> PathBuf {
    out.with_extension(extension)
}

pub fn run(args: RadialArgs) -> anyhow::Result<()> {
    let json_path = beside(&args.out, "json");
    let png_path = beside(&args.out, "png");
    let mut plan = OutputPlan::new();
    plan.input("the mesh", &args.mesh)
        .output("--out", &args.out, Format::NPY);
    if args.png {
        plan.output("--png", &png_path, Format::PNG);
    }
    plan.output("--out's sidecar", &json_path, Format::JSON)
        .check()?;
    let [ax, ay, az, bx, by, bz] = numbers::<6>("axis", &args.axis)?;
    let normal = Vec3::from(numbers::<3>("normal", &args.normal)?);
    let frame = BoneFrame::new(Vec3::new(ax, ay, az), Vec3::new(bx, by, bz), normal)
        .with_context(|| format!("--axis {} --normal {}", args.axis, args.normal))?;
    let (n_theta, n_z) = super::interfere::parse_resolution(&args.res)?;
    let Some(backend) = Backend::from_name(&args.backend) else {
        bail!(
            "--backend '{}': expected gpu, gpu-compute or cpu",
            args.backend
        );
    };
    let params = RadialParams {
        n_theta,
        n_z,
        min_facing: args.min_facing,
        filter: !args.no_filter,
    };
    params.validate()?;
    let mesh = super::load_mesh(&args.mesh, args.load)?;
    let fields = [FieldSpec { frame, faces: None }];
    let input = RadialInput {
        positions: &mesh.positions,
        triangles: &mesh.triangles,
        fields: &fields,
    };
    let (gpu, adapter) = if backend.is_gpu() {
        let ctx = GpuContext::headless()?;
        let adapter = ctx.describe();
        (Some(Radial::gpu(&ctx)?), Some(adapter))
    } else {
        (None, None)
    };
    let product = Radial::run(input, &params, backend, gpu.as_ref(), &Progress::default())?;
    let values = product.field(0);
    let npy = crate::io::encode_npy_f32(&[n_z as usize, n_theta as usize], values);
    let covered = values.iter().filter(|v| v.is_finite()).count();
    let range = crate::view::unwrap::finite_max(values);
    let png = args
        .png
        .then(|| -> anyhow::Result<Vec<u8>> {
            let pixels = crate::view::unwrap::unwrap_rgba(values, n_theta, (0.0, range));
            let image = image::RgbaImage::from_fn(n_theta, n_z, |x, y| {
                image::Rgba(pixels[(y * n_theta + x) as usize])
            });
            let mut bytes = Vec::new();
            image.write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )?;
            Ok(bytes)
        })
        .transpose()?;
    let sidecar = serde_json::json!({
        "mesh": args.mesh.display().to_string(),
        "triangles": mesh.triangles.len(),
        "axis": { "a": frame.a.to_array(), "b": frame.b.to_array(), "length": frame.length },
        "u": frame.u.to_array(),
        "v": frame.v.to_array(),
        "w": frame.w.to_array(),
        "resolution": { "n_theta": n_theta, "n_z": n_z },
        "shape": [n_z, n_theta],
        "layout": "float32 (nz, ntheta), C order: row k = z cell, column i = theta cell; cell centre theta = (i+0.5)/ntheta turns from u towards v, z = (k+0.5)/nz of |AB| from A",
        "value": "distance from the axis to the nearest surface along the ray through the cell centre",
        "inf": "+inf: no face covers the cell (none there, or culled: crossing the axis, back-facing or nearly perpendicular)",
        "covered_cells": covered,
        "max_distance": range,
        "min_facing": params.min_facing,
        "vertex_filter": params.filter,
        "backend": backend.name(),
        "adapter": adapter,
        "timings_ms": product.timings.phases.iter().map(|p| serde_json::json!({
            "phase": p.name, "wall": p.wall_ms, "gpu": p.gpu_ms,
        })).collect::<Vec<_>>(),
        "png": args.png.then(|| png_path.display().to_string()),
        (crate::io::CHECKSUM_KEY): crate::io::checksum_hex(&npy),
    });
    let json = serde_json::to_vec_pretty(&sidecar)?;
    let mut files: Vec<(&Path, &[u8])> = vec![(args.out.as_path(), &npy)];
    if let Some(png) = &png {
        files.push((&png_path, png));
    }
    files.push((&json_path, &json));
    crate::io::write_set(&files).with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "radial field {n_theta}x{n_z} of {} ({} triangles) on {}: {covered} of {} cells covered, distances up to {range:.4} → {}",
        args.mesh.display(),
        mesh.triangles.len(),
        backend.name(),
        values.len(),
        args.out.display()
    );
    Ok(())
}
