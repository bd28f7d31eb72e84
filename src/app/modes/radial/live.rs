//! One frame of the radial mode: pose the character, skin it, rasterise
//! every bone's field on the chosen backend, and time the phases.
//!
//! On `gpu` the skinning kernel writes straight into the rasteriser's
//! positions buffer and both passes run in one submission (profiler
//! scopes "skinning" and "rasterise"); the fields are read back for the
//! unwraps. On `cpu` both run on the CPU references. The drawn mesh is the
//! CPU-skinned one on both (the GPU's is tested equal to it).

use std::time::Instant;

use glam::Vec3;

use crate::gpu::{GpuContext, GpuRun};
use crate::progress::Progress;
use crate::sim::radial::character::Character;
use crate::sim::radial::character::skinning::SkinningGpu;
use crate::stages::radial::{Backend, Radial, RadialGpu, RadialInput, RadialParams, RadialScene};
use crate::timing::Timings;

/// The GPU state of one character at one resolution.
struct GpuScene {
    params: RadialParams,
    scene: RadialScene,
    skinning: SkinningGpu,
}

/// What one frame produced.
pub struct Frame {
    pub skinned: Vec<Vec3>,
    /// Every field's cells, row-major by z, field after field.
    pub values: Vec<f32>,
    pub timings: Timings,
}

/// The long-lived GPU objects; rebuilt when the resolution or the fields
/// change.
#[derive(Default)]
pub struct Live {
    radial: Option<RadialGpu>,
    scene: Option<GpuScene>,
}

impl Live {
    pub fn frame(
        &mut self,
        gpu: &GpuContext,
        character: &Character,
        t: f32,
        params: &RadialParams,
        backend: Backend,
    ) -> Result<Frame, String> {
        let mut timings = Timings::default();
        let start = Instant::now();
        let pose = character.pose(t);
        let skinned = character.skinned(&pose);
        let specs = character.field_specs(&pose).map_err(|e| e.to_string())?;
        let cpu_skinning_ms = start.elapsed().as_secs_f64() * 1e3;
        let input = RadialInput {
            positions: &skinned,
            triangles: &character.triangles,
            fields: &specs,
        };
        let values = match backend {
            Backend::Cpu => {
                timings.push("skinning", cpu_skinning_ms, None);
                let p = Radial::run(input, params, Backend::Cpu, None, &Progress::default())
                    .map_err(|e| e.to_string())?;
                timings.phases.extend(p.timings.phases);
                p.values
            }
            Backend::Gpu | Backend::GpuCompute => {
                let radial = self.radial.get_or_insert_with(|| RadialGpu::new(gpu));
                let rasteriser = backend.rasteriser().expect("a GPU backend");
                if (self.scene.as_ref())
                    .is_none_or(|s| s.params != *params || s.scene.rasteriser() != rasteriser)
                {
                    let rest = RadialInput {
                        positions: &character.rest,
                        ..input
                    };
                    let scene = RadialScene::with_rasteriser(gpu, radial, rest, params, rasteriser)
                        .map_err(|e| e.to_string())?;
                    let joints = character.skeleton.joints.len();
                    let skinning = SkinningGpu::new(
                        gpu,
                        &character.rest,
                        &character.skin,
                        joints,
                        &scene.positions,
                    )
                    .map_err(|e| e.to_string())?;
                    self.scene = Some(GpuScene {
                        params: *params,
                        scene,
                        skinning,
                    });
                }
                let s = self.scene.as_ref().expect("made above");
                let frames: Vec<_> = specs.iter().map(|f| f.frame).collect();
                let start = Instant::now();
                s.scene.write_frames(gpu, &frames);
                s.skinning.write_matrices(gpu, &pose.skin_matrices);
                let mut run = GpuRun::new(gpu, "radial frame").map_err(|e| e.to_string())?;
                run.compute_pass("skinning", |pass| s.skinning.record(pass));
                run.encoder_work("rasterise", |e| s.scene.record(radial, e));
                let (phases, wall_ms) = run.finish().map_err(|e| e.to_string())?;
                for p in phases {
                    timings.push(p.name, 0.0, p.gpu_ms);
                }
                timings.push("gpu frame (wall)", wall_ms, None);
                let values = s.scene.read_values(gpu).map_err(|e| e.to_string())?;
                timings.push(
                    "read back",
                    start.elapsed().as_secs_f64() * 1e3 - wall_ms,
                    None,
                );
                values
            }
        };
        Ok(Frame {
            skinned,
            values,
            timings,
        })
    }
}
