//! `collidoscope tritri A.obj B.obj [--pose-a …] [--pose-b …] [--all-pairs]
//! [--poses poses.json] [--backend …] --out pairs.json`.
//!
//! A pose is `tx,ty,tz` or `tx,ty,tz,qx,qy,qz,qw` (rotation quaternion,
//! normalised). With no pose a model stays where its file puts it.
//! `--poses` takes a JSON array of `{"a": [...], "b": [...]}` (3 or 7
//! numbers each) and answers all of them in one batch.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use glam::{Quat, Vec3};

use crate::gpu::GpuContext;
use crate::io::{Format, OutputPlan};
use crate::stages::tritri::{self, Backend, Pose, Predicate, TriModel, TritriGpu, TritriParams};

crate::stages::backend::backends! {
    /// `--backend` values of `tritri`.
    #[derive(Clone, Copy, Debug)]
    pub enum TriBackendArg {
        Gpu { name: "gpu", gpu: true, help: "GPU, BVH traversal" },
        GpuBrute { name: "gpu-brute", gpu: true, help: "GPU brute force over all pairs" },
        Cpu { name: "cpu", gpu: false, help: "CPU, BVH-pruned, all cores" },
        CpuRef { name: "cpu-ref", gpu: false, help: "CPU reference: every pair" },
    }
}

impl From<TriBackendArg> for Backend {
    fn from(b: TriBackendArg) -> Self {
        match b {
            TriBackendArg::Gpu => Backend::Gpu,
            TriBackendArg::GpuBrute => Backend::GpuBrute,
            TriBackendArg::Cpu => Backend::Cpu,
            TriBackendArg::CpuRef => Backend::CpuReference,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct TritriArgs {
    #[command(flatten)]
    pub load: super::LoadOpts,
    /// First model (OBJ, PLY, STL or OFF; an OBJ's objects merged).
    pub a: PathBuf,
    /// Second model.
    pub b: PathBuf,
    /// Pose of A: tx,ty,tz[,qx,qy,qz,qw].
    #[arg(long, allow_hyphen_values = true)]
    pub pose_a: Option<String>,
    /// Pose of B: tx,ty,tz[,qx,qy,qz,qw].
    #[arg(long, allow_hyphen_values = true)]
    pub pose_b: Option<String>,
    /// Every colliding pair with its intersection segment.
    #[arg(long)]
    pub all_pairs: bool,
    /// A JSON file of pose pairs answered as one batch (yes/no each).
    #[arg(long, conflicts_with_all = ["pose_a", "pose_b", "all_pairs"])]
    pub poses: Option<PathBuf>,
    /// Where the pairs are tested.
    #[arg(long, value_enum, default_value = "gpu")]
    pub backend: TriBackendArg,
    /// Use the tutorial's five-edge test instead of the exact predicate.
    #[arg(long)]
    pub tutorial: bool,
    /// Output JSON file.
    #[arg(long)]
    pub out: PathBuf,
}

/// Parses `tx,ty,tz[,qx,qy,qz,qw]`.
pub fn parse_pose(text: &str) -> anyhow::Result<Pose> {
    let values: Vec<f32> = text
        .split(',')
        .map(|s| {
            s.trim()
                .parse::<f32>()
                .map_err(|_| anyhow::anyhow!("'{}' is not a number", s.trim()))
        })
        .collect::<anyhow::Result<_>>()
        .with_context(|| format!("pose '{text}'"))?;
    pose_from_values(&values).with_context(|| format!("pose '{text}'"))
}

pub(crate) fn pose_from_values(v: &[f32]) -> anyhow::Result<Pose> {
    let pose = match v.len() {
        3 => Pose::new(Vec3::new(v[0], v[1], v[2]), Quat::IDENTITY),
        7 => Pose::new(
            Vec3::new(v[0], v[1], v[2]),
            Quat::from_xyzw(v[3], v[4], v[5], v[6]),
        ),
        n => bail!(
            "expected 3 numbers (translation) or 7 (translation and quaternion x,y,z,w), got {n}"
        ),
    };
    pose.validate()?;
    Ok(pose)
}

#[derive(serde::Deserialize)]
struct PosePairJson {
    a: Vec<f32>,
    b: Vec<f32>,
}

/// Reads a `--poses` file.
pub fn read_poses(path: &Path) -> anyhow::Result<Vec<(Pose, Pose)>> {
    let text = crate::io::read_input_text(path, crate::io::InputKind::Scene)?;
    let pairs: Vec<PosePairJson> = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: expected a JSON array of {{\"a\": [...], \"b\": [...]}}",
            path.display()
        )
    })?;
    if pairs.is_empty() {
        bail!("{}: no pose pairs", path.display());
    }
    pairs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            Ok((
                pose_from_values(&p.a)
                    .with_context(|| format!("{}: pair {i}, a", path.display()))?,
                pose_from_values(&p.b)
                    .with_context(|| format!("{}: pair {i}, b", path.display()))?,
            ))
        })
        .collect()
}

fn timings_json(t: &crate::timing::Timings) -> serde_json::Value {
    serde_json::json!({
        "total_wall": t.total_wall_ms(),
        "total_gpu": t.total_gpu_ms(),
        "phases": t.phases.iter().map(|p| serde_json::json!({
            "name": p.name, "wall": p.wall_ms, "gpu": p.gpu_ms,
        })).collect::<Vec<_>>(),
    })
}

pub fn run(args: TritriArgs) -> anyhow::Result<()> {
    let mut plan = OutputPlan::new();
    plan.input("model A", &args.a).input("model B", &args.b);
    if let Some(poses) = &args.poses {
        plan.input("--poses", poses);
    }
    plan.output("--out", &args.out, Format::JSON).check()?;
    let ma = TriModel::new(&super::load_mesh(&args.a, args.load)?)
        .with_context(|| format!("{}", args.a.display()))?;
    let mb = TriModel::new(&super::load_mesh(&args.b, args.load)?)
        .with_context(|| format!("{}", args.b.display()))?;
    let backend = Backend::from(args.backend);
    let predicate = if args.tutorial {
        Predicate::Tutorial
    } else {
        Predicate::Exact
    };
    let batch = args.poses.as_deref().map(read_poses).transpose()?;
    let pose_a = args.pose_a.as_deref().map(parse_pose).transpose()?;
    let pose_b = args.pose_b.as_deref().map(parse_pose).transpose()?;
    let (gpu, adapter) = if backend.is_gpu() {
        let ctx = GpuContext::headless()?;
        let name = ctx.describe();
        (Some(TritriGpu::new(&ctx)), Some(name))
    } else {
        (None, None)
    };
    let common = serde_json::json!({
        "a": args.a.display().to_string(),
        "b": args.b.display().to_string(),
        "triangles": [ma.triangle_count(), mb.triangle_count()],
        "backend": backend.name(),
        "predicate": predicate.name(),
        "adapter": adapter,
    });
    let (json, summary) = if let Some(poses) = batch {
        let r = tritri::query_batch(&ma, &mb, &poses, predicate, backend, gpu.as_ref())?;
        let hits = r.collides.iter().filter(|&&c| c).count();
        let ms = r.timings.total_wall_ms();
        let mut json = common;
        json["collides"] = serde_json::json!(hits > 0);
        json["queries"] = serde_json::json!(poses.len());
        json["results"] = serde_json::json!(r.collides);
        json["timings_ms"] = timings_json(&r.timings);
        json["queries_per_s"] = serde_json::json!(poses.len() as f64 / (ms / 1e3).max(1e-9));
        (
            json,
            format!(
                "{} pose pairs by {}: {hits} collide, {ms:.2} ms",
                poses.len(),
                backend.name()
            ),
        )
    } else {
        let params = TritriParams {
            all_pairs: args.all_pairs,
            predicate,
        };
        let r = tritri::query(
            &ma,
            pose_a.unwrap_or_default(),
            &mb,
            pose_b.unwrap_or_default(),
            &params,
            backend,
            gpu.as_ref(),
        )?;
        let mut json = common;
        json["collides"] = serde_json::json!(r.collides);
        json["pairs"] = serde_json::json!(r.pairs());
        json["segments"] = serde_json::json!(
            r.contacts
                .iter()
                .map(|c| c.segment.map(|p| p.to_array()))
                .collect::<Vec<_>>()
        );
        json["near_touching"] = serde_json::json!(r.near_touching);
        json["timings_ms"] = timings_json(&r.timings);
        let summary = format!(
            "{} ({}) vs {} ({}) by {}: {}{} in {:.2} ms",
            args.a.display(),
            ma.triangle_count(),
            args.b.display(),
            mb.triangle_count(),
            backend.name(),
            if r.collides {
                "collide"
            } else {
                "no collision"
            },
            if args.all_pairs {
                format!(", {} triangle pairs", r.contacts.len())
            } else {
                String::new()
            },
            r.timings.total_wall_ms()
        );
        (json, summary)
    };
    crate::io::write_atomically(&args.out, serde_json::to_string_pretty(&json)?.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!("{summary} → {}", args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poses_parse_and_reject() {
        let p = parse_pose("1,2,3").expect("translation");
        assert_eq!(p.translation, Vec3::new(1.0, 2.0, 3.0));
        let p = parse_pose("0,0,0,0,0,1,1").expect("quaternion");
        assert!(p.validate().is_ok());
        assert!(parse_pose("1,2").is_err());
        assert!(parse_pose("1,x,3").is_err());
        assert!(parse_pose("0,0,0,0,0,0,0").is_err());
        assert!(parse_pose("0,0,inf").is_err());
    }
}
