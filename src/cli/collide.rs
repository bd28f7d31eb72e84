//! `collidoscope collide A.obj [B.obj] [--pose-a …] [--pose-b …] [--plane …]
//! [--line …] [--sphere …] [--box …] --out contacts.json`: contact points
//! as JSON (and CSV beside it), with the parameters and timings.
//!
//! Bodies are numbered in the order A, B, plane, line, sphere, box (those
//! given); every mesh is paired with every other body. Positions are world
//! space; a mesh without a pose stays where its file puts it.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use glam::{Mat4, Quat, Vec3};

use crate::gpu::GpuContext;
use crate::io::{Format, OutputPlan};
use crate::stages::collide::{self, Body, BodyShape, ColliderGpu, ColliderParams, ColliderShape};
use crate::stages::sampling::{FeatureKind, SamplingParams};
use crate::stages::sdf::SdfParams;

crate::stages::backend::backends! {
    /// `--backend` values of `collide`.
    #[derive(Clone, Copy, Debug)]
    pub enum CollideBackendArg {
        Gpu { name: "gpu", gpu: true },
        Cpu { name: "cpu", gpu: false },
    }
}

#[derive(clap::Args, Debug)]
pub struct CollideArgs {
    #[command(flatten)]
    pub load: super::LoadOpts,
    /// First mesh (OBJ, PLY, STL or OFF).
    pub a: PathBuf,
    /// Second mesh (optional when primitives are given).
    pub b: Option<PathBuf>,
    /// Pose of A: tx,ty,tz or tx,ty,tz,qx,qy,qz,qw (rotation quaternion).
    #[arg(long, allow_hyphen_values = true)]
    pub pose_a: Option<String>,
    /// Pose of B, as --pose-a.
    #[arg(long, allow_hyphen_values = true)]
    pub pose_b: Option<String>,
    /// Field cells along each mesh's longest axis (8–512).
    #[arg(long, default_value_t = 64)]
    pub res: u32,
    /// Plane nx,ny,nz,d: the boundary n·x = d of the solid half-space below it.
    #[arg(long, allow_hyphen_values = true)]
    pub plane: Option<String>,
    /// Line segment x0,y0,z0,x1,y1,z1.
    #[arg(long, allow_hyphen_values = true)]
    pub line: Option<String>,
    /// Sphere cx,cy,cz,r.
    #[arg(long, allow_hyphen_values = true)]
    pub sphere: Option<String>,
    /// Axis-aligned box cx,cy,cz,hx,hy,hz (centre, half extents).
    #[arg(long = "box", allow_hyphen_values = true)]
    pub cuboid: Option<String>,
    /// Depth (and inside test) by trilinear interpolation instead of the cell value.
    #[arg(long)]
    pub interpolated_depth: bool,
    /// Keep contacts whose normal points along the sample's own normal.
    #[arg(long)]
    pub keep_flipped: bool,
    /// Edge sampling threshold (world units; the cell diagonal is the minimum).
    #[arg(long, default_value_t = 0.0)]
    pub threshold: f32,
    /// Where the contacts are computed.
    #[arg(long, value_enum, default_value = "gpu")]
    pub backend: CollideBackendArg,
    /// Output JSON file; a CSV with the same stem goes beside it.
    #[arg(long)]
    pub out: PathBuf,
}

/// Parses `n` comma-separated finite numbers for `flag` (any of `counts`).
fn numbers(flag: &str, text: &str, counts: &[usize]) -> anyhow::Result<Vec<f32>> {
    let values: Vec<f32> = text
        .split(',')
        .map(|s| s.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow::anyhow!("--{flag} {text:?}: expected comma-separated numbers"))?;
    if !counts.contains(&values.len()) {
        let want: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
        bail!(
            "--{flag} {text:?}: expected {} numbers, got {}",
            want.join(" or "),
            values.len()
        );
    }
    if values.iter().any(|v| !v.is_finite()) {
        bail!("--{flag} {text:?}: numbers must be finite");
    }
    Ok(values)
}

fn pose(flag: &str, text: Option<&str>) -> anyhow::Result<Mat4> {
    let Some(text) = text else {
        return Ok(Mat4::IDENTITY);
    };
    let v = numbers(flag, text, &[3, 7])?;
    let t = Vec3::new(v[0], v[1], v[2]);
    let q = if v.len() == 7 {
        let q = Quat::from_xyzw(v[3], v[4], v[5], v[6]);
        if q.length() < 1e-6 {
            bail!("--{flag} {text:?}: the quaternion has zero length");
        }
        q.normalize()
    } else {
        Quat::IDENTITY
    };
    Ok(Mat4::from_rotation_translation(q, t))
}

pub fn run(args: CollideArgs) -> anyhow::Result<()> {
    let csv_path = args.out.with_extension("csv");
    let mut plan = OutputPlan::new();
    plan.input("mesh A", &args.a);
    if let Some(b) = &args.b {
        plan.input("mesh B", b);
    }
    plan.output("--out", &args.out, Format::JSON)
        .output("--out's CSV", &csv_path, Format::CSV)
        .check()?;
    let sdf = SdfParams {
        resolution: args.res,
        ..SdfParams::default()
    };
    sdf.validate()?;
    let sampling = SamplingParams {
        threshold: args.threshold,
        ..SamplingParams::default()
    };
    let params = ColliderParams {
        interpolated_depth: args.interpolated_depth,
        reject_flipped: !args.keep_flipped,
        ..ColliderParams::default()
    };
    // Parse everything before the slow work.
    let pose_a = pose("pose-a", args.pose_a.as_deref())?;
    let pose_b = pose("pose-b", args.pose_b.as_deref())?;
    if args.b.is_none() && args.pose_b.is_some() {
        bail!("--pose-b given without a second mesh");
    }
    let mut primitives: Vec<(&str, Body)> = Vec::new();
    if let Some(text) = &args.plane {
        let v = numbers("plane", text, &[4])?;
        let normal = Vec3::new(v[0], v[1], v[2]);
        if normal.length() < 1e-6 {
            bail!("--plane {text:?}: the normal has zero length");
        }
        // n·x = d with a unit normal: scale d with the normalisation.
        let len = normal.length();
        primitives.push((
            "plane",
            Body {
                shape: BodyShape::Plane {
                    normal: normal / len,
                    offset: v[3] / len,
                },
                world_from_object: Mat4::IDENTITY,
            },
        ));
    }
    if let Some(text) = &args.line {
        let v = numbers("line", text, &[6])?;
        primitives.push((
            "line",
            Body {
                shape: BodyShape::Segment {
                    a: Vec3::new(v[0], v[1], v[2]),
                    b: Vec3::new(v[3], v[4], v[5]),
                },
                world_from_object: Mat4::IDENTITY,
            },
        ));
    }
    if let Some(text) = &args.sphere {
        let v = numbers("sphere", text, &[4])?;
        if v[3] <= 0.0 {
            bail!("--sphere {text:?}: the radius must be > 0");
        }
        primitives.push((
            "sphere",
            Body {
                shape: BodyShape::Sphere { radius: v[3] },
                world_from_object: Mat4::from_translation(Vec3::new(v[0], v[1], v[2])),
            },
        ));
    }
    if let Some(text) = &args.cuboid {
        let v = numbers("box", text, &[6])?;
        let half = Vec3::new(v[3], v[4], v[5]);
        if half.min_element() <= 0.0 {
            bail!("--box {text:?}: half extents must be > 0");
        }
        primitives.push((
            "box",
            Body {
                shape: BodyShape::Cuboid { half_extents: half },
                world_from_object: Mat4::from_translation(Vec3::new(v[0], v[1], v[2])),
            },
        ));
    }
    if args.b.is_none() && primitives.is_empty() {
        bail!("nothing to collide with: give a second mesh or --plane/--line/--sphere/--box");
    }

    let mut timings = serde_json::Map::new();
    let mut shapes = Vec::new();
    let mut bodies = Vec::new();
    let mut names = Vec::new();
    for (path, pose) in [(Some(&args.a), pose_a), (args.b.as_ref(), pose_b)] {
        let Some(path) = path else { continue };
        let mesh = super::load_mesh(path, args.load)?;
        let start = Instant::now();
        let shape = ColliderShape::from_mesh(&mesh, &sdf, &sampling)
            .with_context(|| format!("{}", path.display()))?;
        timings.insert(
            format!("field+samples {}", bodies.len()),
            (start.elapsed().as_secs_f64() * 1e3).into(),
        );
        names.push(serde_json::json!({
            "index": bodies.len(),
            "kind": "mesh",
            "file": path.display().to_string(),
            "samples": shape.samples.samples.len(),
            "samples_by_kind": {
                "vertex": shape.samples.count(FeatureKind::Vertex),
                "edge": shape.samples.count(FeatureKind::Edge),
                "face": shape.samples.count(FeatureKind::Face),
            },
            "grid_dims": shape.field.grid.dims.to_array(),
            "cell_size": shape.field.grid.cell_size,
        }));
        bodies.push(Body {
            shape: BodyShape::Mesh(shapes.len()),
            world_from_object: pose,
        });
        shapes.push(shape);
    }
    for (name, body) in primitives {
        names.push(serde_json::json!({"index": bodies.len(), "kind": name}));
        bodies.push(body);
    }
    let pairs = collide::all_pairs(&bodies);

    let (backend, gpu) = match args.backend {
        CollideBackendArg::Cpu => (collide::Backend::Cpu, None),
        CollideBackendArg::Gpu => {
            let ctx = GpuContext::headless()?;
            (collide::Backend::Gpu, Some(ColliderGpu::new(&ctx)))
        }
    };
    let set = collide::detect(&shapes, &bodies, &pairs, &params, backend, gpu.as_ref())?;
    for p in &set.timings.phases {
        timings.insert(p.name.clone(), p.wall_ms.into());
        if let Some(g) = p.gpu_ms {
            timings.insert(format!("{} (gpu)", p.name), g.into());
        }
    }
    let json = serde_json::json!({
        "contacts": set.contacts,
        "bodies": names,
        "pairs": pairs,
        "parameters": {
            "resolution": args.res,
            "sampling": sampling,
            "colliders": params,
            "backend": backend.name(),
            "adapter": gpu.as_ref().map(|g| g.context().describe()),
        },
        "points_tested": set.tests,
        "timings": timings,
    });
    let mut csv = String::from("body,other,feature,sample,x,y,z,nx,ny,nz,depth,depth_cell\n");
    for c in &set.contacts {
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            c.body,
            c.other,
            c.feature.name(),
            c.sample,
            c.position.x,
            c.position.y,
            c.position.z,
            c.normal.x,
            c.normal.y,
            c.normal.z,
            c.depth,
            c.depth_cell
        ));
    }
    let text = serde_json::to_string_pretty(&json)?;
    crate::io::write_set(&[(&args.out, text.as_bytes()), (&csv_path, csv.as_bytes())])
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let max_depth = set.contacts.iter().map(|c| c.depth).fold(0.0f32, f32::max);
    println!(
        "{} contacts from {} points tested over {} pairs (max depth {max_depth:.4}); wrote {} and {}",
        set.contacts.len(),
        set.tests,
        pairs.len(),
        args.out.display(),
        csv_path.display()
    );
    Ok(())
}
