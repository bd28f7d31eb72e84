//! Particles against radial fields on the GPU (lavapipe here) against the
//! CPU reference, particle by particle: collision alone on moving, bumpy,
//! partly empty fields, and whole particle steps.

use crate::common;

use collidoscope::gpu::GpuRun;
use collidoscope::sim::radial::{
    CollideParams, FieldSet, GpuFields, GpuParticles, NO_CONTACT, Particles, RadialSimGpu,
    StepParams, collide, stream,
};
use collidoscope::stages::radial::{BoneFrame, FieldFrameGpu};
use glam::Vec3;

/// A small deterministic generator (tests need no seed crate).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
}

/// Three fields like limbs: bumpy radii r(θ, z), a few empty cells, and
/// (when `moving`) frames that moved since the last step.
fn limbs(moving: bool) -> FieldSet {
    let axes = [
        (Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0), Vec3::X),
        (Vec3::new(0.4, 0.2, 0.0), Vec3::new(1.1, 0.5, 0.1), Vec3::Y),
        (
            Vec3::new(-0.3, 0.9, 0.2),
            Vec3::new(-0.3, 0.3, 0.8),
            Vec3::Z,
        ),
    ];
    let res = [(64u32, 32u32), (32, 16), (48, 24)];
    let (mut frames, mut prev, mut values) = (Vec::new(), Vec::new(), Vec::new());
    for (f, (&(a, b, n), &(nt, nz))) in axes.iter().zip(&res).enumerate() {
        let frame = BoneFrame::new(a, b, n).unwrap();
        let shift = if moving {
            Vec3::new(0.05, -0.03, 0.02) * (f as f32 + 1.0)
        } else {
            Vec3::ZERO
        };
        let before = BoneFrame::new(a - shift, b - shift * 0.5, n).unwrap();
        frames.push(FieldFrameGpu::new(&frame, nt, nz, values.len() as u32));
        prev.push(FieldFrameGpu::new(&before, nt, nz, values.len() as u32));
        for k in 0..nz {
            for i in 0..nt {
                let (t, z) = ((i as f32 + 0.5) / nt as f32, (k as f32 + 0.5) / nz as f32);
                let r = 0.15 + 0.04 * (3.0 * std::f32::consts::TAU * t).sin() + 0.05 * z;
                values.push(if (i * 7 + k * 3) % 29 == 0 {
                    f32::INFINITY
                } else {
                    r
                });
            }
        }
    }
    FieldSet {
        frames,
        prev,
        radius: vec![0.3; 3],
        values,
    }
}

/// Particles around the fields moving by up to `reach`.
fn motions(n: usize, reach: f32, seed: u64) -> (Vec<Vec3>, Vec<Vec3>) {
    let mut rng = Lcg(seed);
    (0..n)
        .map(|_| {
            let q = Vec3::new(
                rng.range(-0.6, 1.2),
                rng.range(-0.2, 1.1),
                rng.range(-0.4, 0.9),
            );
            let d = Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            (q, q + d * reach)
        })
        .unzip()
}

#[test]
fn gpu_collision_matches_the_cpu_particle_by_particle() {
    let gpu = common::gpu();
    let sim = RadialSimGpu::new(&gpu);
    for (moving, substeps, friction, reach) in [
        (false, 1, 0.0, 0.1),
        (true, 8, 0.5, 0.3),
        (true, 32, 1.0, 0.6),
    ] {
        let set = limbs(moving);
        let params = CollideParams { substeps, friction };
        let (q, q1) = motions(4000, reach, substeps as u64);
        let cpu = collide(&set, &params, &q, &q1).unwrap();
        let got = sim.collide(&set, &params, &q, &q1).unwrap();
        let hits = cpu.iter().filter(|c| c.field != NO_CONTACT).count();
        assert!(hits > 200, "the test hits the fields ({hits} of 4000)");
        let mut mismatched = 0;
        for (i, (c, g)) in cpu.iter().zip(&got).enumerate() {
            let err = (c.predicted - g.predicted).length();
            if c.field != g.field || err > 1e-4 {
                // A substep point within rounding of a cell edge or a plane
                // may decide differently on the two sides: rare, and then
                // the outcome stays on the surface near the CPU's.
                mismatched += 1;
                assert!(
                    err < 0.02,
                    "particle {i} (moving {moving}, n {substeps}, μ {friction}): cpu {c:?}, gpu {g:?}"
                );
            }
        }
        assert!(
            mismatched <= 4,
            "{mismatched} of 4000 particles differ beyond rounding"
        );
    }
}

#[test]
fn gpu_particle_steps_match_the_cpu() {
    let gpu = common::gpu();
    let sim = RadialSimGpu::new(&gpu);
    let set = limbs(false);
    let mut cpu = Particles::at(stream(96, Vec3::new(0.75, 0.7, 0.05), 0.15, 0.3));
    let fields = GpuFields::new(&gpu, &set).unwrap();
    let state = GpuParticles::new(&gpu, &cpu).unwrap();
    let params = StepParams {
        floor: -0.5,
        ..StepParams::default()
    };
    let bound = sim.bind(&fields, &state, &params).unwrap();
    let steps = 40;
    let mut run = GpuRun::new(&gpu, "test").unwrap();
    let mut touched = vec![false; cpu.len()];
    for _ in 0..steps {
        sim.record_step(&mut run, &bound);
        cpu.step(&set, &params).unwrap();
        for (t, &c) in touched.iter_mut().zip(&cpu.contacts) {
            *t |= c != NO_CONTACT;
        }
    }
    run.finish().unwrap();
    let got = state.read(&gpu).unwrap();
    let touched = cpu.contacts.iter().filter(|&&c| c != NO_CONTACT).count();
    assert!(
        touched > 10,
        "the stream reaches the fields ({touched} of 96)"
    );
    for i in 0..cpu.len() {
        let err = (cpu.pos[i] - got.pos[i]).length();
        assert!(
            err < 1e-3,
            "particle {i} after {steps} steps: cpu {}, gpu {}",
            cpu.pos[i],
            got.pos[i]
        );
        assert_eq!(cpu.contacts[i], got.contacts[i], "particle {i}'s contact");
    }
    let fallen = got
        .pos
        .iter()
        .zip(&got.spawn)
        .filter(|(p, s)| p.y < s.y - 0.2)
        .count();
    assert!(fallen > 48, "the particles fall ({fallen} of 96)");
}

#[test]
fn gpu_cloth_matches_the_cpu() {
    use collidoscope::sim::radial::{Cloth, ClothGpu, ClothParams, GpuCloth};
    let gpu = common::gpu();
    let sim = RadialSimGpu::new(&gpu);
    let cloth_gpu = ClothGpu::new(&gpu);
    let set = limbs(false);
    // A small cloth falling on the slanted limb, one corner pinned.
    let mut cpu = Cloth::grid(
        12,
        10,
        Vec3::new(0.45, 0.75, -0.25),
        Vec3::X * 0.6,
        Vec3::Z * 0.5,
        |i, j| i == 0 && j == 0,
    )
    .unwrap();
    let fields = GpuFields::new(&gpu, &set).unwrap();
    let cloth = GpuCloth::new(&gpu, &cpu).unwrap();
    let step = StepParams::default();
    // An odd iteration count exercises the copy back from scratch.
    let params = ClothParams {
        iterations: 5,
        ..ClothParams::default()
    };
    let bound = sim.bind(&fields, &cloth.particles, &step).unwrap();
    let constraints = cloth_gpu.bind(&cloth, &params).unwrap();
    let steps = 30;
    let mut run = GpuRun::new(&gpu, "test").unwrap();
    let mut touched = 0;
    for _ in 0..steps {
        cloth_gpu.record_step(&mut run, &sim, &cloth, &bound, &constraints);
        cpu.step(&set, &step, &params).unwrap();
        touched += cpu
            .particles
            .contacts
            .iter()
            .filter(|&&c| c != NO_CONTACT)
            .count();
    }
    run.finish().unwrap();
    assert!(
        touched > 50,
        "the cloth reaches the fields ({touched} contacts)"
    );
    let got = cloth.particles.read(&gpu).unwrap();
    for i in 0..cpu.particles.len() {
        let (c, g) = (cpu.particles.pos[i], got.pos[i]);
        assert!(
            (c - g).length() < 1e-3,
            "cloth particle {i} after {steps} steps: cpu {c}, gpu {g}"
        );
    }
    assert_eq!(
        got.pos[0], cpu.particles.spawn[0],
        "the pinned corner stays"
    );
}

#[test]
fn bench_radial_writes_its_table_small() {
    let dir = common::scratch("bench-radial");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_collidoscope"))
        .args([
            "bench",
            "radial",
            "--triangles",
            "2000",
            "--cloth",
            "64,300",
        ])
        .args(["--res", "16x8", "--repeats", "1", "--sdf-res", "6"])
        .args(["--reach", "0.05", "--out"])
        .arg(&dir)
        .output()
        .expect("run collidoscope");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "bench radial failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("upd+CD ms"),
        "the table is printed: {stdout}"
    );
    let csv = std::fs::read_to_string(dir.join("radial.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines.len(),
        5,
        "a header and a row per cloth and rasteriser: {csv}"
    );
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let expected = [
        ("64", "render"),
        ("64", "compute"),
        ("289", "render"),
        ("289", "compute"),
    ];
    for (line, (particles, rasteriser)) in lines[1..].iter().zip(expected) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[col("particles")], particles, "{line}");
        assert_eq!(cells[col("rasteriser")], rasteriser, "{line}");
        assert_eq!(cells[col("bones")], "21", "{line}");
        assert_eq!(cells[col("fields")], "21", "{line}");
        let triangles: usize = cells[col("triangles")].parse().unwrap();
        assert!((1_500..=2_500).contains(&triangles), "{line}");
        let mem: f64 = cells[col("field_memory_mb")].parse().unwrap();
        assert!(
            (mem - (21.0 * 16.0 * 8.0 * 4.0 + 21.0 * 128.0) / 1e6).abs() < 1e-3,
            "{line}"
        );
        // The skinned character fills cells of its fields.
        let filled: f64 = cells[col("filled_cells_pct")].parse().unwrap();
        assert!(filled > 20.0, "{line}");
        for phase in ["skinning_gpu_ms", "rasterise_gpu_ms", "collision_gpu_ms"] {
            let cell = cells[col(phase)];
            assert!(
                cell.is_empty() || cell.parse::<f64>().unwrap() > 0.0,
                "{phase}: {line}"
            );
        }
    }
    let md = std::fs::read_to_string(dir.join("radial.md")).unwrap();
    assert_eq!(md.lines().count(), 6, "the book's table: {md}");
    assert!(
        md.starts_with("| character | fields | cloth particles"),
        "{md}"
    );
    assert!(dir.join("radial.json").exists() && dir.join("radial.png").exists());

    // Table 1's comparison: per cloth, the radial fields (first
    // rasteriser) and each alternative on the same frames.
    let csv = std::fs::read_to_string(dir.join("radial-alternatives.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 9, "a header and 4 rows per cloth: {csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let techniques = [
        "radial fields (render)",
        "per-bone SDF",
        "spatial hash",
        "BVH (refit)",
    ];
    for (cloth, rows) in lines[1..].chunks(4).enumerate() {
        let mut contacts = Vec::new();
        for (line, technique) in rows.iter().zip(techniques) {
            let cells: Vec<&str> = line.split(',').collect();
            assert_eq!(cells[col("technique")], technique, "{line}");
            assert_eq!(cells[col("particles")], ["64", "289"][cloth], "{line}");
            let mem: f64 = cells[col("memory_mb")].parse().unwrap();
            assert!(mem > 0.0, "{line}");
            for phase in ["update_gpu_ms", "query_gpu_ms", "total_gpu_ms"] {
                let cell = cells[col(phase)];
                assert!(
                    cell.is_empty() || cell.parse::<f64>().unwrap() > 0.0,
                    "{phase}: {line}"
                );
            }
            contacts.push(cells[col("contacts")].parse::<usize>().unwrap());
        }
        // The hash and the BVH answer the same question exactly.
        assert!(
            contacts[2].abs_diff(contacts[3]) <= 1,
            "hash and BVH contacts: {contacts:?}"
        );
    }
    let md = std::fs::read_to_string(dir.join("radial-alternatives.md")).unwrap();
    assert_eq!(md.lines().count(), 10, "the book's table: {md}");
    assert!(md.starts_with("| technique | structure |"), "{md}");
    assert!(dir.join("radial-alternatives.png").exists());
}
