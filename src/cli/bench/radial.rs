//! `collidoscope bench radial`: radial fields on an animated character
//! with a cloth falling on it (Friston & Steed 2019, §9, table 1): GPU
//! time per frame of the structure update (clearing and rasterising every
//! bone's field) and of collision detection and response of every cloth
//! particle, beside the cloth's own constraint projection, and the
//! fields' memory.
//!
//! The character is a procedural stand-in: 20 bones of a humanoid
//! skeleton, each a tube of quads around its bone with a bulging radius,
//! tessellated to `--triangles` in all, arms swinging and legs striding
//! by rigid per-bone transforms (no skinning: the CPU poses the vertices
//! and uploads them, which is not timed). One field per bone, around the
//! bone extended by a tenth each way. The cloth (`--cloth` particle
//! counts; table 1's 1,297 / 4,825 / 13,090 by default) is a square held
//! by its corners above the shoulders that sags onto the head, shoulders
//! and arms; a particle that slips below the floor starts again from its
//! spawn point.
//!
//! A frame is: upload the pose, then in one command buffer the phases
//! `rasterise` (clear + draw), `predict`, `cloth` (constraints),
//! `collision` and `update`, each a timestamp scope. The table reports
//! their medians over `--repeats` frames after the warm-up, and update +
//! CD (rasterise + collision) against the paper's target of 0.1 ms.
//!
//! Not built (yet): the table's alternatives on this scene — per-bone
//! uniform distance fields rebuilt each frame, a uniform spatial hash,
//! BVH point–triangle tests — and GPU skinning.

use glam::{Mat4, Quat, Vec3};
use serde::Serialize;

use super::common::CommonArgs;
use super::report::{self, Column, Report, or_dash, or_empty, print_table, series};
use super::timing::warm_up;
use crate::gpu::{GpuContext, GpuPhase, GpuRun};
use crate::sim::radial::{
    Cloth, ClothGpu, ClothParams, CollideParams, GpuCloth, GpuFields, RadialSimGpu, StepParams,
};
use crate::stages::radial::{
    BoneFrame, FieldFrameGpu, FieldSpec, RadialGpu, RadialInput, RadialParams, RadialScene,
};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Triangles of the character, about (20 bones share them).
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
}

#[derive(Serialize, Clone, Debug)]
struct Row {
    triangles: usize,
    bones: usize,
    particles: usize,
    resolution: String,
    substeps: u32,
    field_memory_mb: f64,
    rasterise_gpu_ms: Option<f64>,
    collision_gpu_ms: Option<f64>,
    cloth_gpu_ms: Option<f64>,
    /// Structure update plus collision detection and response.
    update_cd_gpu_ms: Option<f64>,
    frame_wall_ms: f64,
    /// Particles in contact with a field in the last frame.
    contacts: usize,
    /// Share of the fields' cells a face covers in the last frame (%).
    filled_cells_pct: f64,
}

/// A bone: its rest segment, tube radius, and the limb it swings with.
struct Bone {
    a: Vec3,
    b: Vec3,
    radius: f32,
    limb: Limb,
}

#[derive(Clone, Copy, PartialEq)]
enum Limb {
    Torso,
    Arm(f32),
    Leg(f32),
}

/// The stand-in skeleton: 6 torso and head bones, 4 per arm, 3 per leg.
fn skeleton() -> Vec<Bone> {
    let bone = |a: [f32; 3], b: [f32; 3], radius, limb| Bone {
        a: a.into(),
        b: b.into(),
        radius,
        limb,
    };
    let mut bones = vec![
        bone([0.0, 0.95, 0.0], [0.0, 1.05, 0.0], 0.14, Limb::Torso),
        bone([0.0, 1.05, 0.0], [0.0, 1.2, 0.0], 0.14, Limb::Torso),
        bone([0.0, 1.2, 0.0], [0.0, 1.35, 0.0], 0.15, Limb::Torso),
        bone([0.0, 1.35, 0.0], [0.0, 1.45, 0.0], 0.16, Limb::Torso),
        bone([0.0, 1.45, 0.0], [0.0, 1.55, 0.0], 0.05, Limb::Torso),
        bone([0.0, 1.55, 0.0], [0.0, 1.78, 0.0], 0.1, Limb::Torso),
    ];
    for side in [1.0f32, -1.0] {
        let x = |v: f32| v * side;
        bones.push(bone(
            [x(0.02), 1.42, 0.0],
            [x(0.18), 1.42, 0.0],
            0.05,
            Limb::Torso,
        ));
        bones.push(bone(
            [x(0.18), 1.42, 0.0],
            [x(0.45), 1.42, 0.0],
            0.05,
            Limb::Arm(side),
        ));
        bones.push(bone(
            [x(0.45), 1.42, 0.0],
            [x(0.7), 1.42, 0.0],
            0.04,
            Limb::Arm(side),
        ));
        bones.push(bone(
            [x(0.7), 1.42, 0.0],
            [x(0.8), 1.42, 0.0],
            0.035,
            Limb::Arm(side),
        ));
        bones.push(bone(
            [x(0.1), 0.95, 0.0],
            [x(0.1), 0.5, 0.0],
            0.07,
            Limb::Leg(side),
        ));
        bones.push(bone(
            [x(0.1), 0.5, 0.0],
            [x(0.1), 0.08, 0.0],
            0.05,
            Limb::Leg(side),
        ));
        bones.push(bone(
            [x(0.1), 0.05, -0.02],
            [x(0.1), 0.05, 0.2],
            0.04,
            Limb::Leg(side),
        ));
    }
    bones
}

/// The rigid transform of a bone of `limb` at time `t` (seconds): arms
/// swing up and down about the shoulder, legs stride about the hip.
fn pose(limb: Limb, t: f32) -> Mat4 {
    let phase = std::f32::consts::TAU * t;
    let about = |pivot: Vec3, rotation: Quat| {
        Mat4::from_translation(pivot) * Mat4::from_quat(rotation) * Mat4::from_translation(-pivot)
    };
    match limb {
        Limb::Torso => Mat4::IDENTITY,
        Limb::Arm(side) => about(
            Vec3::new(0.18 * side, 1.42, 0.0),
            Quat::from_rotation_z(side * 0.7 * phase.sin()),
        ),
        Limb::Leg(side) => about(
            Vec3::new(0.1 * side, 0.95, 0.0),
            Quat::from_rotation_x(side * 0.5 * phase.sin()),
        ),
    }
}

/// The character: rest positions, triangles, each vertex's bone, and
/// tubes of `around × along` quads per bone.
struct Character {
    bones: Vec<Bone>,
    rest: Vec<Vec3>,
    bone_of: Vec<usize>,
    triangles: Vec<[u32; 3]>,
    faces: Vec<Vec<u32>>,
}

impl Character {
    fn new(target_triangles: usize) -> Self {
        let bones = skeleton();
        let per_bone = (target_triangles / (2 * bones.len())).max(16);
        let around = ((per_bone as f32).sqrt().round() as usize).max(4);
        let along = (per_bone / around).max(2);
        let (mut rest, mut bone_of, mut triangles) = (Vec::new(), Vec::new(), Vec::new());
        let mut faces = Vec::new();
        for (b, bone) in bones.iter().enumerate() {
            let frame = BoneFrame::new(bone.a, bone.b, normal_of(bone)).expect("bones are long");
            let first = rest.len() as u32;
            for k in 0..=along {
                let s = k as f32 / along as f32;
                let r = bone.radius * (0.8 + 0.2 * (std::f32::consts::PI * s).sin());
                for i in 0..around {
                    let angle = std::f32::consts::TAU * i as f32 / around as f32;
                    let centre = bone.a + (bone.b - bone.a) * s;
                    rest.push(centre + (frame.u * angle.cos() + frame.v * angle.sin()) * r);
                    bone_of.push(b);
                }
            }
            let start = triangles.len() as u32;
            let at = |i: usize, k: usize| first + (k * around + i % around) as u32;
            for k in 0..along {
                for i in 0..around {
                    let (p, q, r, s) = (at(i, k), at(i + 1, k), at(i + 1, k + 1), at(i, k + 1));
                    // Wound so the normals face away from the bone.
                    triangles.push([p, r, q]);
                    triangles.push([p, s, r]);
                }
            }
            faces.push((start..triangles.len() as u32).collect());
        }
        Character {
            bones,
            rest,
            bone_of,
            triangles,
            faces,
        }
    }

    /// Vertex positions at time `t`.
    fn positions(&self, t: f32) -> Vec<Vec3> {
        let poses: Vec<Mat4> = self.bones.iter().map(|b| pose(b.limb, t)).collect();
        self.rest
            .iter()
            .zip(&self.bone_of)
            .map(|(&p, &b)| poses[b].transform_point3(p))
            .collect()
    }

    /// Each bone's field at time `t`: its axis extended by a tenth each way.
    fn frames(&self, t: f32) -> Vec<BoneFrame> {
        self.bones
            .iter()
            .map(|bone| {
                let m = pose(bone.limb, t);
                let d = (bone.b - bone.a) * 0.1;
                let (a, b) = (
                    m.transform_point3(bone.a - d),
                    m.transform_point3(bone.b + d),
                );
                let n = m.transform_vector3(normal_of(bone));
                BoneFrame::new(a, b, n).expect("bones are long")
            })
            .collect()
    }
}

/// A normal not along the bone.
fn normal_of(bone: &Bone) -> Vec3 {
    let w = (bone.b - bone.a).normalize();
    if w.y.abs() > 0.9 { Vec3::Z } else { Vec3::Y }
}

/// A square cloth of about `count` particles held above the shoulders by
/// its four corners (the paper's attachment points), sagging onto them.
fn cloth(count: usize) -> anyhow::Result<Cloth> {
    let side = ((count as f32).sqrt().round() as u32).max(2);
    Ok(Cloth::grid(
        side,
        side,
        Vec3::new(-0.7, 1.9, -0.7),
        Vec3::X * 1.4,
        Vec3::Z * 1.4,
        |i, j| (i == 0 || i == side - 1) && (j == 0 || j == side - 1),
    )?)
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
    let character = Character::new(args.triangles);
    eprintln!(
        "character: {} triangles, {} bones; fields {}×{}",
        character.triangles.len(),
        character.bones.len(),
        raster.n_theta,
        raster.n_z
    );
    let radial = RadialGpu::new(&ctx);
    let sim = RadialSimGpu::new(&ctx);
    let cloth_gpu = ClothGpu::new(&ctx);
    let mut rows = Vec::new();
    for &count in &args.cloth {
        rows.push(measure(
            &ctx,
            args,
            &character,
            (&radial, &sim, &cloth_gpu),
            &raster,
            count,
            (&collide, &constraints),
        )?);
    }
    report.write(Some(&adapter), &[("date", report::today().into())], &rows)?;
    let phases: Vec<_> = [
        (
            "update + CD",
            (|r: &Row| r.update_cd_gpu_ms) as fn(&Row) -> Option<f64>,
        ),
        ("rasterise", |r| r.rasterise_gpu_ms),
        ("collision", |r| r.collision_gpu_ms),
        ("cloth constraints", |r| r.cloth_gpu_ms),
    ]
    .into_iter()
    .map(|(name, ms)| series(name, &rows, |r| ms(r).map(|m| (r.particles as f64, m))))
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

/// One row: the scene with a cloth of `count` particles, frames timed.
fn measure(
    ctx: &GpuContext,
    args: &Args,
    character: &Character,
    (radial, sim, cloth_gpu): (&RadialGpu, &RadialSimGpu, &ClothGpu),
    raster: &RadialParams,
    count: usize,
    (collide, constraints): (&CollideParams, &ClothParams),
) -> anyhow::Result<Row> {
    let fields: Vec<FieldSpec> = character
        .frames(0.0)
        .into_iter()
        .zip(&character.faces)
        .map(|(frame, faces)| FieldSpec {
            frame,
            faces: Some(faces.clone()),
        })
        .collect();
    let positions = character.positions(0.0);
    let input = RadialInput {
        positions: &positions,
        triangles: &character.triangles,
        fields: &fields,
    };
    let scene = RadialScene::new(ctx, radial, input, raster)?;
    let gpu_frames = |t: f32| -> Vec<FieldFrameGpu> {
        let n = raster.cells_per_field() as u32;
        (character.frames(t).iter().enumerate())
            .map(|(f, fr)| FieldFrameGpu::new(fr, raster.n_theta, raster.n_z, f as u32 * n))
            .collect()
    };
    let radius: Vec<f32> = character.bones.iter().map(|b| b.radius * 1.5).collect();
    let fields_gpu =
        GpuFields::resident(ctx, &scene.frames, &scene.values, &gpu_frames(0.0), &radius)?;
    let cloth = cloth(count)?;
    let particles = cloth.particles.len();
    let cloth_state = GpuCloth::new(ctx, &cloth)?;
    let step = StepParams {
        dt: DT,
        floor: 0.0,
        collide: *collide,
        ..StepParams::default()
    };
    let bound = sim.bind(&fields_gpu, &cloth_state.particles, &step)?;
    let bound_cloth = cloth_gpu.bind(&cloth_state, constraints)?;
    let mut frame = 0u32;
    let mut run_frame = || -> anyhow::Result<(Vec<GpuPhase>, f64)> {
        let t = frame as f32 * DT;
        frame += 1;
        fields_gpu.write_prev(ctx, &gpu_frames(t - DT));
        scene.write_frames(ctx, &character.frames(t));
        scene.write_positions(ctx, &character.positions(t));
        let mut run = GpuRun::new(ctx, "bench radial")?;
        run.encoder_work("rasterise", |encoder| scene.record(radial, encoder));
        cloth_gpu.record_step(&mut run, sim, &cloth_state, &bound, &bound_cloth);
        Ok(run.finish()?)
    };
    let phase = |phases: &[GpuPhase], name: &str| {
        phases
            .iter()
            .find(|p| p.name == name)
            .and_then(|p| p.gpu_ms)
    };
    let total =
        |phases: &[GpuPhase]| Some(phase(phases, "rasterise")? + phase(phases, "collision")?);
    warm_up(|| Ok(total(&run_frame()?.0)))?;
    let mut samples: Vec<(Vec<GpuPhase>, f64)> = Vec::new();
    for _ in 0..args.common.repeats.max(1) {
        samples.push(run_frame()?);
    }
    let median_of = |pick: &dyn Fn(&[GpuPhase]) -> Option<f64>| {
        let mut v: Vec<f64> = samples.iter().filter_map(|(p, _)| pick(p)).collect();
        (v.len() == samples.len()).then(|| median(&mut v))
    };
    let mut wall: Vec<f64> = samples.iter().map(|(_, w)| *w).collect();
    let contacts = cloth_state
        .particles
        .read(ctx)?
        .contacts
        .iter()
        .filter(|&&c| c != crate::sim::radial::NO_CONTACT)
        .count();
    let cells = raster.cells_per_field() * character.bones.len();
    let filled = scene
        .read_values(ctx)?
        .iter()
        .filter(|v| v.is_finite())
        .count();
    Ok(Row {
        triangles: character.triangles.len(),
        bones: character.bones.len(),
        particles,
        resolution: format!("{}x{}", raster.n_theta, raster.n_z),
        substeps: collide.substeps,
        field_memory_mb: (cells * 4 + character.bones.len() * 64 * 2) as f64 / 1e6,
        rasterise_gpu_ms: median_of(&|p| phase(p, "rasterise")),
        collision_gpu_ms: median_of(&|p| phase(p, "collision")),
        cloth_gpu_ms: median_of(&|p| phase(p, "cloth")),
        update_cd_gpu_ms: median_of(&total),
        frame_wall_ms: median(&mut wall),
        contacts,
        filled_cells_pct: 100.0 * filled as f64 / cells as f64,
    })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

impl report::Row for Row {
    fn csv_header() -> Vec<&'static str> {
        vec![
            "triangles",
            "bones",
            "particles",
            "resolution",
            "substeps",
            "field_memory_mb",
            "rasterise_gpu_ms",
            "collision_gpu_ms",
            "cloth_gpu_ms",
            "update_cd_gpu_ms",
            "frame_wall_ms",
            "contacts",
            "filled_cells_pct",
        ]
    }

    fn csv_cells(&self) -> Vec<String> {
        let ms = |v: Option<f64>| or_empty(v, |m| format!("{m:.4}"));
        vec![
            self.triangles.to_string(),
            self.bones.to_string(),
            self.particles.to_string(),
            self.resolution.clone(),
            self.substeps.to_string(),
            format!("{:.3}", self.field_memory_mb),
            ms(self.rasterise_gpu_ms),
            ms(self.collision_gpu_ms),
            ms(self.cloth_gpu_ms),
            ms(self.update_cd_gpu_ms),
            format!("{:.3}", self.frame_wall_ms),
            self.contacts.to_string(),
            format!("{:.1}", self.filled_cells_pct),
        ]
    }

    fn table_columns() -> Vec<Column> {
        vec![
            Column::right("tris", 7),
            Column::right("bones", 5),
            Column::right("particles", 9),
            Column::right("res", 7),
            Column::right("n", 3),
            Column::right("mem MB", 7),
            Column::right("raster ms", 10),
            Column::right("CD ms", 8),
            Column::right("upd+CD ms", 10),
            Column::right("≤0.1", 4),
            Column::right("cloth ms", 9),
            Column::right("wall ms", 8),
            Column::right("contacts", 8),
            Column::right("filled %", 8),
        ]
    }

    fn table_cells(&self) -> Vec<String> {
        let ms = |v: Option<f64>| or_dash(v, |m| format!("{m:.4}"));
        vec![
            self.triangles.to_string(),
            self.bones.to_string(),
            self.particles.to_string(),
            self.resolution.clone(),
            self.substeps.to_string(),
            format!("{:.3}", self.field_memory_mb),
            ms(self.rasterise_gpu_ms),
            ms(self.collision_gpu_ms),
            ms(self.update_cd_gpu_ms),
            or_dash(self.update_cd_gpu_ms, |m| {
                if m <= 0.1 { "yes" } else { "no" }.into()
            }),
            ms(self.cloth_gpu_ms),
            format!("{:.2}", self.frame_wall_ms),
            self.contacts.to_string(),
            format!("{:.1}", self.filled_cells_pct),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_character_has_its_triangles_and_one_field_per_bone() {
        let c = Character::new(64_000);
        assert_eq!(c.bones.len(), 20);
        assert!(
            (60_000..=68_000).contains(&c.triangles.len()),
            "{}",
            c.triangles.len()
        );
        assert_eq!(c.faces.len(), 20);
        assert_eq!(
            c.faces.iter().map(Vec::len).sum::<usize>(),
            c.triangles.len()
        );
        // Every vertex lies within its bone's field, inside its radius.
        for t in [0.0, 0.3] {
            let (pos, frames) = (c.positions(t), c.frames(t));
            for (v, (&p, &b)) in pos.iter().zip(&c.bone_of).enumerate() {
                let cyl = frames[b].to_cylindrical(p);
                assert!((0.0..=1.0).contains(&cyl.z), "vertex {v} at z {}", cyl.z);
                assert!(
                    cyl.r <= c.bones[b].radius * 1.01,
                    "vertex {v} at r {}",
                    cyl.r
                );
            }
        }
        assert_eq!(cloth(13_090).unwrap().particles.len(), 114 * 114);
        assert!(parse_res("63x32").is_err() && parse_res("64").is_err());
    }
}
