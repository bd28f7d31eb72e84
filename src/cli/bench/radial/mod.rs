//! `collidoscope bench radial`: radial fields on an animated, skinned
//! character with a cloth falling on it (Friston & Steed 2019, §9, table
//! 1): GPU time per frame of the structure update — skinning the mesh and
//! rasterising every bone's field — and of collision detection and
//! response of every cloth particle, beside the cloth's own constraint
//! projection, and the fields' memory.
//!
//! The character is the procedural humanoid
//! ([`crate::sim::radial::character::humanoid`], 21 bones, one field per bone)
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
//! the rasteriser's positions, `shaders/radial_skinning.wgsl`, the same dispatch
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
//! `radial.md` holds the rows as the book's table.
//!
//! Each cloth size runs once per `--rasterisers`: `render` (the paper's
//! method, the render pipeline) and `compute` (the stage's compute
//! rasteriser, which fills the same cells without the graphics slice).
//!
//! Beside the first rasteriser's rows, table 1's alternatives run on the
//! same frames ([`alternatives`], `--alternatives`): per-bone distance
//! grids rebuilt each frame (`--sdf-res`), a uniform spatial hash rebuilt
//! each frame (`--hash-cell`) and a BVH refitted each frame, each querying
//! every cloth particle within `--reach`; `radial-alternatives.md`/`.csv`
//! hold the comparison (structure update, query, memory, contacts).

mod alternatives;
mod rows;
mod scene;

use std::time::Instant;

use crate::gpu::{GpuContext, GpuPhase, GpuRun};
use crate::sim::radial::character::Character;
use crate::sim::radial::character::skinning::SkinningGpu;
use crate::sim::radial::table1::{self, AltKernels, AltSetup, Technique};
use crate::sim::radial::techniques::{GpuMesh, Points};
use crate::sim::radial::{
    ClothGpu, ClothParams, CollideParams, GpuCloth, GpuFields, RadialSimGpu, StepParams,
};
use crate::stages::radial::{
    FieldFrameGpu, RadialGpu, RadialInput, RadialParams, RadialScene, Rasteriser,
};
use alternatives::{AltRow, RowScene};
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
    /// Table 1's alternatives timed on the same frames (none: `--alternatives ''`).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "sdf,hash,bvh"
    )]
    pub alternatives: Vec<Technique>,
    /// Cells per axis of the per-bone distance grids, one row each.
    #[arg(long, value_delimiter = ',', default_value = "32,64")]
    pub sdf_res: Vec<u32>,
    /// Contact distance of the alternatives' queries (m).
    #[arg(long, default_value_t = 0.02)]
    pub reach: f32,
    /// Cell size of the spatial hash (m, at least --reach).
    #[arg(long, default_value_t = 0.05)]
    pub hash_cell: f32,
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
    let alt_report = Report::create(&args.common.out, "radial-alternatives")?;
    if !(args.reach > 0.0 && args.hash_cell >= args.reach) {
        anyhow::bail!(
            "--reach {} and --hash-cell {}: need 0 < reach ≤ hash cell",
            args.reach,
            args.hash_cell
        );
    }
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
        alt: AltKernels::new(&ctx),
    };
    let alt = AltSetup {
        techniques: &args.alternatives,
        sdf_res: &args.sdf_res,
        reach: args.reach,
        hash_cell: args.hash_cell,
    };
    let setup = Setup {
        character: &character,
        raster: &raster,
        collide: &collide,
        constraints: &constraints,
        repeats: args.common.repeats,
    };
    let mut rows = Vec::new();
    let mut alt_rows = Vec::new();
    for &count in &args.cloth {
        for (i, &rasteriser) in args.rasterisers.iter().enumerate() {
            // The alternatives beside the first rasteriser only.
            let with = (i == 0).then_some(&alt);
            let (row, alts) = measure(&ctx, &kernels, &setup, count, rasteriser, with)?;
            rows.push(row);
            alt_rows.extend(alts);
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
    write_alternatives(&alt_report, &adapter, &alt_rows)
}

/// `radial-alternatives.json`, `.csv`, `.md` and `.png`, and the table.
fn write_alternatives(report: &Report<'_>, adapter: &str, rows: &[AltRow]) -> anyhow::Result<()> {
    report.write(Some(adapter), &[("date", report::today().into())], rows)?;
    report.write_markdown(&alternatives::readme_table(rows))?;
    let mut names: Vec<String> = Vec::new();
    for r in rows {
        let name = format!("{} {}", r.technique, r.structure);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let lines: Vec<_> = (names.iter())
        .map(|name| {
            series(name.clone(), rows, |r| {
                (format!("{} {}", r.technique, r.structure) == *name)
                    .then(|| r.total_gpu_ms.map(|m| (r.particles as f64, m)))
                    .flatten()
            })
        })
        .collect();
    report.plot(
        800,
        500,
        &[report::log_log(
            "Table 1: structure update + query, GPU per frame",
            "cloth particles",
            "GPU ms",
            &lines,
        )],
    )?;
    print_table(
        &format!("Radial fields and table 1's alternatives — {adapter}"),
        rows,
    );
    Ok(())
}

/// The pipelines, made once per device.
struct Kernels {
    radial: RadialGpu,
    sim: RadialSimGpu,
    cloth: ClothGpu,
    alt: AltKernels,
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
/// rasterised by `rasteriser`, frames timed; with `alt`, the radial
/// fields' and the alternatives' rows of the comparison too.
fn measure(
    ctx: &GpuContext,
    k: &Kernels,
    s: &Setup<'_>,
    count: usize,
    rasteriser: RasteriserArg,
    alt: Option<&AltSetup<'_>>,
) -> anyhow::Result<(Row, Vec<AltRow>)> {
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
    let mesh = GpuMesh::new(ctx, &scene.positions, &character.triangles)?;
    let points = Points {
        buffer: &cloth_state.particles.pos,
        count: particles as u32,
    };
    let techniques = match alt {
        Some(a) => table1::bind(ctx, &k.alt, a, character, &mesh, points)?,
        None => Vec::new(),
    };
    let mut frame = 0u32;
    // Each frame: the radial run's phases and wall time, then each
    // alternative's phases (the radial run's skinning first).
    type Sample = (Vec<GpuPhase>, f64, Vec<Vec<GpuPhase>>);
    let mut run_frame = || -> anyhow::Result<Sample> {
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
        let wall_ms = start.elapsed().as_secs_f64() * 1e3;
        let skinning: Vec<GpuPhase> = (phases.iter())
            .filter(|p| p.name == "skinning")
            .cloned()
            .collect();
        let mut alt_phases = Vec::new();
        for t in &techniques {
            t.gpu.write_pose(ctx, &pose.skin_matrices);
            let mut run = GpuRun::new(ctx, "bench radial alternative")?;
            t.gpu.record_update(&mut run);
            t.gpu.record_query(&mut run);
            let (own, _) = run.finish()?;
            alt_phases.push(skinning.iter().cloned().chain(own).collect());
        }
        Ok((phases, wall_ms, alt_phases))
    };
    warm_up(|| Ok(rows::update_cd(&run_frame()?.0)))?;
    let mut samples: Vec<(Vec<GpuPhase>, f64)> = Vec::new();
    let mut alt_samples: Vec<Vec<Vec<GpuPhase>>> = vec![Vec::new(); techniques.len()];
    for _ in 0..s.repeats.max(1) {
        let (phases, wall, alts) = run_frame()?;
        samples.push((phases, wall));
        for (t, p) in alts.into_iter().enumerate() {
            alt_samples[t].push(p);
        }
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
    let row_scene = RowScene {
        triangles: character.triangles.len(),
        bones: joints,
        particles,
    };
    let mut alt_rows = Vec::new();
    if alt.is_some() {
        let radial: Vec<Vec<GpuPhase>> = samples.iter().map(|(p, _)| p.clone()).collect();
        alt_rows.push(AltRow::from_samples(
            &row_scene,
            (
                format!("radial fields ({})", rasteriser.name()),
                format!("{}×{} × {fields}", raster.n_theta, raster.n_z),
            ),
            &radial,
            (alternatives::RADIAL_UPDATE, alternatives::RADIAL_QUERY),
            (cells * 4 + fields * 64 * 2) as u64,
            contacts,
        ));
    }
    for (t, phases) in techniques.iter().zip(&alt_samples) {
        alt_rows.push(AltRow::from_samples(
            &row_scene,
            (t.technique.clone(), t.structure.clone()),
            phases,
            (alternatives::ALT_UPDATE, alternatives::ALT_QUERY),
            t.gpu.memory_bytes(),
            table1::contacts(ctx, t.gpu.as_ref())?,
        ));
    }
    let row = Row::from_samples(
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
    );
    Ok((row, alt_rows))
}
