//! `collidoscope simulate SCENE.json --frames N --out trajectory.json
//! [--backend cpu|gpu] [--broad sweep|image|image-stencil]`: the full
//! collision pipeline headless
//! ([`crate::sim::simulate`]; formats in
//! [`crate::sim::simulate::scene_file`]).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;

use crate::gpu::GpuContext;
use crate::io::{Format, OutputPlan};
use crate::sim::simulate::scene_file::{
    Frame, MAX_TRAJECTORY_BYTES, SceneFile, run_frames, trajectory_bytes,
};
use crate::sim::simulate::{BroadPhase, FieldParams, Pipeline};
use crate::stages::collide::ColliderParams;
use crate::stages::sampling::SamplingParams;
use crate::stages::sdf::SdfParams;

crate::stages::backend::backends! {
    /// `--backend` values of `simulate`.
    #[derive(Clone, Copy, Debug)]
    pub enum SimulateBackendArg {
        Gpu { name: "gpu", gpu: true },
        Cpu { name: "cpu", gpu: false },
    }
}

/// The broad phase ([`BroadPhase`]).
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum BroadArg {
    /// Sort-and-sweep over the bodies' boxes.
    Sweep,
    /// The interference test's compute rays (image space).
    Image,
    /// The interference test's stencil passes (image space).
    ImageStencil,
}

impl BroadArg {
    pub fn phase(self) -> BroadPhase {
        match self {
            BroadArg::Sweep => BroadPhase::SortAndSweep,
            BroadArg::Image => BroadPhase::ImageCompute,
            BroadArg::ImageStencil => BroadPhase::ImageStencil,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub load: super::LoadOpts,
    /// The scene (JSON; mesh paths relative to it).
    pub scene: PathBuf,
    /// Frames to simulate. The trajectory takes at most 280 bytes per
    /// body and frame; a run whose trajectory could exceed 16 GiB is
    /// refused before it starts.
    #[arg(long)]
    pub frames: u32,
    /// Output trajectory (JSON), one entry per frame, written as the
    /// frames are made.
    #[arg(long)]
    pub out: PathBuf,
    /// Where the broad and narrow phases run.
    #[arg(long, value_enum, default_value = "gpu")]
    pub backend: SimulateBackendArg,
    /// Field cells along each mesh's longest axis (8–512).
    #[arg(long, default_value_t = 32)]
    pub res: u32,
    /// Edge sampling threshold (world units; the cell diagonal is the minimum).
    #[arg(long, default_value_t = 0.0)]
    pub threshold: f32,
    /// Contact threshold (world units, ≥ 0): samples closer than this to
    /// the other surface are contacts, so bodies rest about this far apart.
    #[arg(long, default_value_t = 0.0)]
    pub contact_threshold: f32,
    /// The broad phase. An image-space one with `--backend gpu` runs the
    /// `gpu-detect` path (GPU broad and narrow phase, CPU solver): the
    /// resident step sweeps its own boxes.
    #[arg(long, value_enum, default_value = "sweep")]
    pub broad: BroadArg,
    /// Pixels along each side of the image-space views (16–4096).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(16..=4096))]
    pub image_res: u32,
}

pub fn run(args: SimulateArgs) -> anyhow::Result<()> {
    ColliderParams::checked_contact_threshold(args.contact_threshold)
        .map_err(|e| anyhow::anyhow!("--contact-threshold: {e}"))?;
    let scene =
        SceneFile::read(&args.scene).with_context(|| format!("{}", args.scene.display()))?;
    let bound = trajectory_bytes(u64::from(args.frames), scene.bodies.len() as u64);
    if bound > MAX_TRAJECTORY_BYTES {
        anyhow::bail!(
            "--frames {} with {} {} could write {:.1} GiB of trajectory; the limit is {} GiB",
            args.frames,
            scene.bodies.len(),
            if scene.bodies.len() == 1 {
                "body"
            } else {
                "bodies"
            },
            bound as f64 / f64::from(1u32 << 30),
            MAX_TRAJECTORY_BYTES >> 30
        );
    }
    let mut plan = OutputPlan::new();
    plan.input("the scene", &args.scene);
    for mesh in &scene.meshes {
        plan.input("the scene's mesh", mesh);
    }
    plan.output("--out", &args.out, Format::JSON).check()?;
    let fields = FieldParams {
        sdf: SdfParams {
            resolution: args.res,
            ..SdfParams::default()
        },
        sampling: SamplingParams {
            threshold: args.threshold,
            ..SamplingParams::default()
        },
    };
    fields.sdf.validate()?;
    let meshes = scene
        .meshes
        .iter()
        .map(|path| super::load_mesh(path, args.load))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let on_gpu = matches!(args.backend, SimulateBackendArg::Gpu);
    let params = scene.params_for(
        on_gpu,
        args.broad.phase(),
        args.image_res,
        args.contact_threshold,
    );
    let gpu = on_gpu.then(GpuContext::headless).transpose()?;
    let mut pipeline = Pipeline::new(&meshes, &scene.bodies, scene.ground, &fields, gpu.as_ref())?;
    for (i, &exact) in scene.exact.iter().enumerate() {
        pipeline.set_exact(i, exact);
    }
    let start = Instant::now();
    // The trajectory is written frame by frame as it is made (the same
    // JSON as `Trajectory` serialised whole), never held in memory; the
    // file appears only once every frame is written.
    let frames = args.frames as usize;
    let mut failed: Option<anyhow::Error> = None;
    let written = crate::io::write_streamed(&args.out, &mut |out| {
        out.write_all(b"{\"frames\":[")?;
        let mut write_error: Option<std::io::Error> = None;
        let ran = run_frames(
            &mut pipeline,
            &params,
            frames,
            |p, frame, states, contacts| {
                if write_error.is_some() {
                    return;
                }
                let record = Frame::at(p, frame, states, contacts, params.timestep);
                let written = if frame > 1 {
                    out.write_all(b",")
                } else {
                    Ok(())
                }
                .and_then(|()| serde_json::to_writer(&mut *out, &record).map_err(Into::into));
                write_error = written.err();
            },
        );
        if let Some(e) = write_error {
            return Err(e);
        }
        if let Err(e) = ran {
            failed = Some(e.into());
            return Err(std::io::Error::other("the simulation stopped"));
        }
        out.write_all(b"]}")
    });
    if let Some(e) = failed {
        return Err(e);
    }
    written.with_context(|| format!("cannot write {}", args.out.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{} bodies, {} frames in {:.2} s ({} backend, {} broad phase; {} contacts in the last frame); wrote {}",
        pipeline.body_count(),
        args.frames,
        seconds,
        params.backend.name(),
        params.broad.name(),
        pipeline.summary.contacts,
        args.out.display()
    );
    Ok(())
}
