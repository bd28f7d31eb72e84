//! `collidoscope bench radial`: radial fields on an animated, skinned
//! character with a cloth falling on it (Friston & Steed 2019, §9, table
//! 1): GPU time per frame of the structure update — skinning the mesh and
//! rasterising every bone's field — and of collision detection and
//! response of every cloth particle, beside the cloth's own constraint
//! projection, and the fields' memory.
//!
//! The character is the procedural humanoid
//! ([`crate::sim::character::humanoid`], 21 bones, one field per bone)
//! tessellated to about `--triangles` ([`scene::detail_for`]: 63,798 for
//! the default 64K), looping through its extreme motions (deep knee
//! bends, arms crossing and raised). The cloth (`--cloth` particle counts;
//! table 1's 1,297 / 4,825 / 13,090 by default) is a square held by its
//! corners above the head ([`scene::cloth`]); a particle that slips below
//! the floor starts again from its spawn point.
//!
//! A frame is: sample the clip into skin matrices and pose the fields on
//! the CPU (21 joints), write them, then in one command buffer the phases
//! `skinning + clear` (linear blend skinning of every vertex straight into
//! the rasteriser's positions, `shaders/skinning.wgsl`, the same dispatch
//! clearing every field to +inf), `rasterise` (draw every field),
//! `predict`, `cloth` (constraints), `collision` (all n substeps of every
//! particle in one dispatch) and `update`, each a timestamp scope; the
//! CSV's `skinning_gpu_ms` is the first. The table reports their medians over
//! `--repeats` frames after the warm-up, the wall time of the whole frame
//! (CPU pose, writes, submission, wait), and update + CD (skinning +
//! rasterise + collision) against the paper's target of 0.1 ms, and the
//! GPU commands (dispatches, draws, copies) each waiting on the one before:
//! `update_cd_dispatches` of update + CD and `dispatches_per_frame` in all
//! (at this size a phase costs its launches and barriers more than its
//! work, so fewer of them is the way to the target).
//! `radial.md` holds the rows as the README's table.
//!
//! Each cloth size runs once per `--rasterisers`: `render` (the paper's
//! method, the render pipeline) and `compute` (the stage's compute
//! rasteriser, which fills the same cells without the graphics slice).
//!
//! Not built (yet): the table's alternatives on this scene — per-bone
//! uniform distance fields rebuilt each frame, a uniform spatial hash,
//! BVH point–triangle tests.

mod rows;
mod scene;

use std::time::Instant;

use crate::gpu::{GpuContext, GpuPhase, GpuRun};
use crate::sim::character::Character;
use crate::sim::character::skinning::SkinningGpu;
use crate::sim::radial::{
    ClothGpu, ClothParams, CollideParams, GpuCloth, GpuFields, RadialSimGpu, StepParams,
};
use crate::stages::radial::{
    FieldFrameGpu, RadialGpu, RadialInput, RadialParams, RadialScene, Rasteriser,
};
use rows::Row;

use super::common::CommonArgs;
use super::report::{self, Report, print_table, series};
use super::timing::warm_up;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Triangles of the character, about (its 21 bones share them).
    #[arg(long, default_value_t = 64_000)]
    pub triangles: usize,
    /// Cloth particle counts, one row each (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "1297,4825,13090")]
    pub cloth: Vec<usize>,
    /// Cells per field, θ×z (θ even).
    #[arg(long, default_value = "64x32")]
    pub res: String,
    /// pCCD substeps n.
    #[arg(long, default_value_t = 8)]
    pub substeps: u32,
    /// Cloth constraint iterations per frame.
    #[arg(long, default_value_t = 8)]
    pub iterations: u32,
    /// The field rasterisers timed, one row each per cloth.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "render,compute"
    )]
    pub rasterisers: Vec<RasteriserArg>,
}

/// `--rasterisers`: the stage's two GPU rasterisers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RasteriserArg {
    Render,
    Compute,
}

impl RasteriserArg {
    fn rasteriser(self) -> Rasteriser {
        match self {
            RasteriserArg::Render => Rasteriser::Render,
            RasteriserArg::Compute => Rasteriser::Compute,
        }
    }

    fn name(self) -> &'static str {
        match self {
            RasteriserArg::Render => "render",
            RasteriserArg::Compute => "compute",
        }
    }
}

fn parse_res(text: &str) -> anyhow::Result<RadialParams> {
    let (t, z) = text
        .split_once('x')
        .ok_or_else(|| anyhow::anyhow!("--res {text}: expected θ×z, e.g. 64x32"))?;
    let parse = |s: &str| {
        s.parse::<u32>()
            .map_err(|_| anyhow::anyhow!("--res {text}: {s} is not a cell count"))
    };
    let params = RadialParams::new(parse(t)?, parse(z)?);
    params.validate()?;
    Ok(params)
}

const DT: f32 = 1.0 / 60.0;

pub fn run(args: &Args) -> anyhow::Result<()> {
    let report = Report::create(&args.common.out, "radial")?;
    let raster = parse_res(&args.res)?;
    let collide = CollideParams {
        substeps: args.substeps,
        friction: 0.5,
    };
    collide.validate()?;
    let constraints = ClothParams {
        iterations: args.iterations,
        ..ClothParams::default()
    };
    constraints.validate()?;
    let ctx = GpuContext::headless()?;
    let adapter = ctx.describe();
    eprintln!("adapter: {adapter}");
    let character = scene::character(args.triangles);
    eprintln!(
        "character: {} triangles, {} bones, {} fields of {}×{}",
        character.triangles.len(),
        character.skeleton.joints.len(),
        character.fields.len(),
        raster.n_theta,
        raster.n_z
    );
    let kernels = Kernels {
        radial: RadialGpu::new(&ctx),
        sim: RadialSimGpu::new(&ctx),
        cloth: ClothGpu::new(&ctx),
    };
    let setup = Setup {
        character: &character,
        raster: &raster,
        collide: &collide,
        constraints: &constraints,
        repeats: args.common.repeats,
    };
    let mut rows = Vec::new();
    for &count in &args.cloth {
        for &rasteriser in &args.rasterisers {
            rows.push(measure(&ctx, &kernels, &setup, count, rasteriser)?);
        }
    }
    report.write(Some(&adapter), &[("date", report::today().into())], &rows)?;
    report.write_markdown(&rows::readme_table(&rows))?;
    // One line per phase and rasteriser (the rows alternate between them).
    let phases: Vec<_> = args
        .rasterisers
        .iter()
        .flat_map(|&rasteriser| {
            let rows = &rows;
            rows::PLOTTED.iter().map(move |&(name, ms)| {
                let name = format!("{name} ({})", rasteriser.name());
                series(name, rows, |r| {
                    (r.rasteriser == rasteriser.name())
                        .then(|| ms(r).map(|m| (r.scene.particles as f64, m)))
                        .flatten()
                })
            })
        })
        .collect();
    report.plot(
        800,
        500,
        &[report::log_log(
            "Radial fields: GPU time per frame",
            "cloth particles",
            "GPU ms",
            &phases,
        )],
    )?;
    print_table(&format!("Radial fields — {adapter}"), &rows);
    Ok(())
}

/// The pipelines, made once per device.
struct Kernels {
    radial: RadialGpu,
    sim: RadialSimGpu,
    cloth: ClothGpu,
}

/// What every row shares.
struct Setup<'a> {
    character: &'a Character,
    raster: &'a RadialParams,
    collide: &'a CollideParams,
    constraints: &'a ClothParams,
    repeats: usize,
}

/// One row: the scene with a cloth of `count` particles, fields
/// rasterised by `rasteriser`, frames timed.
fn measure(
    ctx: &GpuContext,
    k: &Kernels,
    s: &Setup<'_>,
    count: usize,
    rasteriser: RasteriserArg,
) -> anyhow::Result<Row> {
    let character = s.character;
    let raster = s.raster;
    let rest_specs = character.field_specs(&character.pose(0.0))?;
    let input = RadialInput {
        positions: &character.rest,
        triangles: &character.triangles,
        fields: &rest_specs,
    };
    let scene =
        RadialScene::with_rasteriser(ctx, &k.radial, input, raster, rasteriser.rasteriser())?;
    let joints = character.skeleton.joints.len();
    let cells = raster.cells_per_field() as u32 * character.fields.len() as u32;
    let skinning = SkinningGpu::with_clear(
        ctx,
        &character.rest,
        &character.skin,
        joints,
        &scene.positions,
        Some((&scene.values, cells)),
    )?;
    let gpu_frames = |t: f32| -> anyhow::Result<Vec<FieldFrameGpu>> {
        let pose = character.pose(t);
        let frames = character.field_frames(&pose.skin_matrices)?;
        let n = raster.cells_per_field() as u32;
        Ok((frames.iter().enumerate())
            .map(|(f, fr)| FieldFrameGpu::new(fr, raster.n_theta, raster.n_z, f as u32 * n))
            .collect())
    };
    let radius = scene::field_radii(character);
    let fields_gpu = GpuFields::resident(
        ctx,
        &scene.frames,
        &scene.values,
        &gpu_frames(0.0)?,
        &radius,
    )?;
    let cloth = scene::cloth(count)?;
    let particles = cloth.particles.len();
    let cloth_state = GpuCloth::new(ctx, &cloth)?;
    let step = StepParams {
        dt: DT,
        floor: 0.0,
        collide: *s.collide,
        ..StepParams::default()
    };
    let bound = k.sim.bind(&fields_gpu, &cloth_state.particles, &step)?;
    let bound_cloth = k.cloth.bind(&cloth_state, s.constraints)?;
    let mut frame = 0u32;
    let mut run_frame = || -> anyhow::Result<(Vec<GpuPhase>, f64)> {
        let start = Instant::now();
        let t = frame as f32 * DT;
        frame += 1;
        let pose = character.pose(t);
        let frames = character.field_frames(&pose.skin_matrices)?;
        fields_gpu.write_prev(ctx, &gpu_frames(t - DT)?);
        scene.write_frames(ctx, &frames);
        skinning.write_matrices(ctx, &pose.skin_matrices);
        let mut run = GpuRun::new(ctx, "bench radial")?;
        run.compute_pass(rows::SKINNING, |pass| skinning.record(pass));
        run.encoder_work("rasterise", |encoder| scene.record_draw(&k.radial, encoder));
        k.cloth
            .record_step(&mut run, &k.sim, &cloth_state, &bound, &bound_cloth);
        let (phases, _) = run.finish()?;
        Ok((phases, start.elapsed().as_secs_f64() * 1e3))
    };
    warm_up(|| Ok(rows::update_cd(&run_frame()?.0)))?;
    let mut samples: Vec<(Vec<GpuPhase>, f64)> = Vec::new();
    for _ in 0..s.repeats.max(1) {
        samples.push(run_frame()?);
    }
    // Skinning, rasterise and collision; the whole frame adds predict,
    // update and the constraints.
    let update_cd_dispatches = SkinningGpu::DISPATCHES + scene.draw_commands() + 1;
    let dispatches_per_frame =
        update_cd_dispatches + (RadialSimGpu::STEP_DISPATCHES - 1) + bound_cloth.commands();
    let contacts = cloth_state
        .particles
        .read(ctx)?
        .contacts
        .iter()
        .filter(|&&c| c != crate::sim::radial::NO_CONTACT)
        .count();
    let fields = character.fields.len();
    let cells = raster.cells_per_field() * fields;
    let filled = scene
        .read_values(ctx)?
        .iter()
        .filter(|v| v.is_finite())
        .count();
    Ok(Row::from_samples(
        rows::Scene {
            triangles: character.triangles.len(),
            bones: joints,
            fields,
            particles,
            resolution: format!("{}x{}", raster.n_theta, raster.n_z),
            substeps: s.collide.substeps,
            dispatches_per_frame,
            update_cd_dispatches,
            // The cells, and the current and previous frame of each field.
            field_memory_mb: (cells * 4 + fields * 64 * 2) as f64 / 1e6,
        },
        rasteriser.name(),
        &samples,
        contacts,
        100.0 * filled as f64 / cells as f64,
    ))
}
