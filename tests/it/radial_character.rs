//! The skinned character (Friston & Steed 2019, §4.3): the whole frame on
//! the GPU — skinning into the rasteriser's buffer, then every bone's
//! field — with each stage against its CPU reference on the same input:
//! the skinned vertices against CPU skinning, the fields against the CPU
//! rasteriser run on the GPU's skinned vertices, cell by cell, naming the
//! bone. (Fed CPU-skinned vertices instead, cells whose distance hangs on
//! a near-degenerate face may differ: rounding of 1e-6 there is not a
//! rasteriser difference.)

use crate::common;

use collidoscope::gpu::{GpuContext, read_buffer};
use collidoscope::progress::Progress;
use collidoscope::sim::radial::character::humanoid::{Detail, humanoid};
use collidoscope::sim::radial::character::skinning::SkinningGpu;
use collidoscope::stages::radial::{
    Backend, Radial, RadialGpu, RadialInput, RadialParams, RadialScene, Rasteriser,
};
use eframe::egui_wgpu::wgpu;

fn encode(gpu: &GpuContext, record: impl FnOnce(&mut wgpu::CommandEncoder)) {
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    record(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
}

#[test]
fn gpu_skinning_and_fields_match_the_cpu_through_the_loop() {
    through_the_loop(Rasteriser::Render, false);
}

/// As the benchmark's frame: the compute rasteriser, the fields' clear
/// folded into the skinning dispatch (a missed clear leaves the previous
/// pose's nearer cells behind).
#[test]
fn skinning_that_clears_the_fields_matches_the_cpu_through_the_loop() {
    through_the_loop(Rasteriser::Compute, true);
}

fn through_the_loop(rasteriser: Rasteriser, clear_with_skinning: bool) {
    let gpu = common::gpu();
    let radial = RadialGpu::new(&gpu);
    let c = humanoid(Detail::LOW);
    let params = RadialParams::new(64, 32);
    let specs = c.field_specs(&c.pose(0.0)).unwrap();
    let input = RadialInput {
        positions: &c.rest,
        triangles: &c.triangles,
        fields: &specs,
    };
    let scene = RadialScene::with_rasteriser(&gpu, &radial, input, &params, rasteriser).unwrap();
    let cells = params.cells_per_field() as u32 * specs.len() as u32;
    let skinning = SkinningGpu::with_clear(
        &gpu,
        &c.rest,
        &c.skin,
        c.skeleton.joints.len(),
        &scene.positions,
        clear_with_skinning.then_some((&scene.values, cells)),
    )
    .unwrap();
    for t in [0.0, 0.6, 1.0, 2.3, 3.1] {
        let pose = c.pose(t);
        let frames = c.field_frames(&pose.skin_matrices).unwrap();
        skinning.write_matrices(&gpu, &pose.skin_matrices);
        scene.write_frames(&gpu, &frames);
        encode(&gpu, |e| {
            let mut pass = e.begin_compute_pass(&Default::default());
            skinning.record(&mut pass);
            drop(pass);
            if clear_with_skinning {
                scene.record_draw(&radial, e);
            } else {
                scene.record(&radial, e);
            }
        });
        let skinned_gpu: Vec<[f32; 4]> = read_buffer(&gpu, &scene.positions, c.rest.len()).unwrap();
        let skinned = c.skinned(&pose);
        for (v, (g, p)) in skinned_gpu.iter().zip(&skinned).enumerate() {
            let g = glam::Vec3::new(g[0], g[1], g[2]);
            assert!(
                g.abs_diff_eq(*p, 1e-5),
                "t {t}: vertex {v}: GPU {g} vs CPU {p}"
            );
        }
        let on_gpu = scene.read_values(&gpu).unwrap();
        let specs = c.field_specs(&pose).unwrap();
        let input = RadialInput {
            positions: &skinned,
            triangles: &c.triangles,
            fields: &specs,
        };
        let cpu = Radial::run(input, &params, Backend::Cpu, None, &Progress::default()).unwrap();
        let n = params.cells_per_field();
        let mut covered = 0;
        for (j, (&x, &y)) in cpu.values.iter().zip(&on_gpu).enumerate() {
            let (f, cell) = (j / n, j % n);
            let same =
                (x.is_infinite() && y.is_infinite()) || (x - y).abs() <= 1e-4 * x.abs().max(1.0);
            assert!(
                same,
                "t {t}: bone {} (field {f}), cell θ {} z {}: CPU {x} vs GPU {y}",
                c.field_name(f),
                cell % 64,
                cell / 64
            );
            covered += usize::from(x.is_finite());
        }
        assert!(
            covered > cpu.values.len() / 3,
            "t {t}: only {covered} cells covered"
        );
    }
}
