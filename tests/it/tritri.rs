//! Triangle–triangle collision of two models: hand-made cases on every
//! backend, 10,000+ random pairs GPU vs exact CPU, brute force vs BVH on
//! model pairs, batches, and the tutorial's five-edge claim.

use crate::common;

use std::collections::BTreeSet;

use collidoscope::geom::{
    Triangle, f32_decision_margin, intersect_triangle_triangle,
    intersect_triangle_triangle_tutorial,
};
use collidoscope::mesh::{Mesh, box_mesh, torus};
use collidoscope::stages::tritri::{
    self, Backend, Pose, Predicate, TriModel, TritriGpu, TritriParams, query, query_batch,
};
use glam::{Quat, Vec3};

const ALL: TritriParams = TritriParams {
    all_pairs: true,
    predicate: Predicate::Exact,
};
const YES_NO: TritriParams = TritriParams {
    all_pairs: false,
    predicate: Predicate::Exact,
};

fn one(t: Triangle) -> TriModel {
    TriModel::new(&Mesh::new("tri", t.to_vec(), vec![[0, 1, 2]])).expect("triangle model")
}

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

/// Small deterministic generator (no rand dependency in tests).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
    fn grid(&mut self) -> f32 {
        ((self.next() * 9.0).floor() - 4.0) * 0.25
    }
}

#[test]
fn hand_made_cases_on_every_backend() {
    let gpu = TritriGpu::new(&common::gpu());
    let t = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let cases: [(&str, Triangle, bool); 8] = [
        (
            "crossing",
            [v(0.2, 0.2, -1.0), v(0.3, 0.2, 1.0), v(0.2, 0.3, 1.0)],
            true,
        ),
        (
            "touching at an edge",
            [v(0.2, 0.0, 0.0), v(0.6, 0.0, 0.0), v(0.4, 0.0, 1.0)],
            true,
        ),
        (
            "touching at a vertex",
            [v(0.25, 0.25, 0.0), v(1.0, 1.0, 1.0), v(0.0, 1.0, 1.0)],
            true,
        ),
        (
            "coplanar overlapping",
            [v(0.2, 0.2, 0.0), v(1.2, 0.2, 0.0), v(0.2, 1.2, 0.0)],
            true,
        ),
        (
            "coplanar contained",
            [v(0.1, 0.1, 0.0), v(0.2, 0.1, 0.0), v(0.1, 0.2, 0.0)],
            true,
        ),
        (
            "coplanar disjoint",
            [v(0.6, 0.6, 0.0), v(1.6, 0.6, 0.0), v(0.6, 1.6, 0.0)],
            false,
        ),
        (
            "parallel close",
            [v(0.0, 0.0, 1e-4), v(1.0, 0.0, 1e-4), v(0.0, 1.0, 1e-4)],
            false,
        ),
        (
            "skew close",
            [v(0.6, 0.6, -1.0), v(0.6, 0.6, 1.0), v(2.0, 2.0, 0.0)],
            false,
        ),
    ];
    let a = one(t);
    for (name, tb, expected) in cases {
        let b = one(tb);
        for backend in Backend::ALL {
            for params in [YES_NO, ALL] {
                let r = query(
                    &a,
                    Pose::IDENTITY,
                    &b,
                    Pose::IDENTITY,
                    &params,
                    backend,
                    Some(&gpu),
                )
                .expect("query");
                assert_eq!(
                    r.collides,
                    expected,
                    "{name}: {} all_pairs={}",
                    backend.name(),
                    params.all_pairs
                );
                if params.all_pairs {
                    assert_eq!(r.contacts.len(), usize::from(expected), "{name}");
                }
            }
        }
        // The same pair moved by a common pose answers the same on the CPU.
        let pose = Pose::new(v(3.0, -2.0, 0.5), Quat::from_rotation_z(0.7));
        let r = query(&a, pose, &b, pose, &ALL, Backend::CpuReference, None).expect("cpu");
        if r.near_touching == Some(0) {
            assert_eq!(r.collides, expected, "{name} moved");
        }
    }
}

/// Random triangles: half in a unit box, half on a coarse grid (exact
/// touches and coplanar pairs).
fn random_model(rng: &mut Rng, n: usize, name: &str) -> TriModel {
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    while triangles.len() < n {
        let grid = triangles.len() % 2 == 1;
        let mut p = || {
            if grid {
                v(rng.grid(), rng.grid(), rng.grid())
            } else {
                v(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                )
            }
        };
        let t = [p(), p(), p()];
        if collidoscope::geom::is_degenerate(t) {
            continue;
        }
        let base = positions.len() as u32;
        positions.extend_from_slice(&t);
        triangles.push([base, base + 1, base + 2]);
    }
    TriModel::new(&Mesh::new(name, positions, triangles)).expect("random model")
}

#[test]
fn random_pairs_gpu_match_exact_cpu() {
    let gpu = TritriGpu::new(&common::gpu());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let a = random_model(&mut rng, 110, "random-a");
    let b = random_model(&mut rng, 110, "random-b");
    // 12,100 pairs; identity poses, so GPU and CPU see the same f32 inputs.
    let cpu = query(
        &a,
        Pose::IDENTITY,
        &b,
        Pose::IDENTITY,
        &ALL,
        Backend::CpuReference,
        None,
    )
    .expect("cpu");
    let exact: BTreeSet<[u32; 2]> = cpu.pairs().into_iter().collect();
    let ambiguous: BTreeSet<[u32; 2]> = (0..a.triangle_count())
        .flat_map(|i| (0..b.triangle_count()).map(move |j| [i as u32, j as u32]))
        .filter(|&[i, j]| {
            f32_decision_margin(a.triangles[i as usize], b.triangles[j as usize], 0.0) < 1.0
        })
        .collect();
    assert!(exact.len() > 500, "only {} colliding pairs", exact.len());
    let mut results = Vec::new();
    for backend in [Backend::GpuBrute, Backend::Gpu] {
        let r = query(
            &a,
            Pose::IDENTITY,
            &b,
            Pose::IDENTITY,
            &ALL,
            backend,
            Some(&gpu),
        )
        .expect("gpu");
        let got: BTreeSet<[u32; 2]> = r.pairs().into_iter().collect();
        let wrong: Vec<_> = got.symmetric_difference(&exact).collect();
        let unexplained: Vec<_> = wrong.iter().filter(|p| !ambiguous.contains(**p)).collect();
        assert!(
            unexplained.is_empty(),
            "{}: {} pairs differ from the exact CPU away from touching, e.g. {:?}",
            backend.name(),
            unexplained.len(),
            &unexplained[..unexplained.len().min(5)]
        );
        eprintln!(
            "{}: {} colliding of 12100, {} differ from exact, {} pairs within f32 rounding of touching",
            backend.name(),
            got.len(),
            wrong.len(),
            ambiguous.len()
        );
        results.push(got);
    }
    assert_eq!(results[0], results[1], "brute force and BVH differ");
}

#[test]
fn tutorial_five_edges_equal_six_except_coplanar() {
    let mut rng = Rng(12345);
    let (mut differ5, mut differ6, mut missed_coplanar, mut coplanar_overlaps) = (0, 0, 0, 0);
    let mut general = 0;
    for _ in 0..20_000 {
        let mut p = || {
            v(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            )
        };
        let (a, b) = ([p(), p(), p()], [p(), p(), p()]);
        let exact = intersect_triangle_triangle(a, b);
        if f32_decision_margin(a, b, 0.0) > 1.0 {
            general += 1;
            differ5 += usize::from(intersect_triangle_triangle_tutorial(a, b, false) != exact);
            differ6 += usize::from(intersect_triangle_triangle_tutorial(a, b, true) != exact);
        }
        // Coplanar copies on z = 0.
        let flat = |t: Triangle| t.map(|q| v(q.x, q.y, 0.0));
        let (fa, fb) = (flat(a), flat(b));
        if !collidoscope::geom::is_degenerate(fa)
            && !collidoscope::geom::is_degenerate(fb)
            && intersect_triangle_triangle(fa, fb)
        {
            coplanar_overlaps += 1;
            missed_coplanar += usize::from(!intersect_triangle_triangle_tutorial(fa, fb, true));
        }
    }
    eprintln!(
        "tutorial: {general} general pairs, 5 edges wrong on {differ5}, 6 edges on {differ6}; coplanar overlaps missed {missed_coplanar} of {coplanar_overlaps}"
    );
    assert_eq!(differ5, 0);
    assert_eq!(differ6, 0);
    assert_eq!(missed_coplanar, coplanar_overlaps);
}

fn chain_links(gap: f32) -> (TriModel, Pose, Pose) {
    let t = TriModel::new(&torus(20, 10, 1.0, 0.25)).expect("torus");
    let pb = Pose::new(
        v(1.0 + gap, 0.0, 0.0),
        Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
    );
    (t, Pose::IDENTITY, pb)
}

#[test]
fn model_pairs_brute_and_pruned_agree() {
    let gpu = TritriGpu::new(&common::gpu());
    let (torus_model, pa, pb) = chain_links(0.0);
    let cube = TriModel::new(&box_mesh(3)).expect("box");
    let mut rng = Rng(777);
    let mut cases = vec![
        (
            "linked tori",
            torus_model.clone(),
            pa,
            torus_model.clone(),
            pb,
        ),
        (
            "pushed tori",
            torus_model.clone(),
            pa,
            torus_model.clone(),
            chain_links(-0.6).2,
        ),
    ];
    for k in 0..4 {
        let axis = v(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 1.0).normalize();
        let pose = Pose::new(
            v(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-0.5, 0.5),
            ),
            Quat::from_axis_angle(axis, rng.range(0.0, 6.0)),
        );
        let name: &'static str = ["random 0", "random 1", "random 2", "random 3"][k];
        cases.push((
            name,
            torus_model.clone(),
            Pose::IDENTITY,
            cube.clone(),
            pose,
        ));
    }
    let mut colliding = 0;
    for (name, a, pa, b, pb) in cases {
        let cpu = query(&a, pa, &b, pb, &ALL, Backend::CpuReference, None).expect("cpu");
        let cpu_fast = query(&a, pa, &b, pb, &ALL, Backend::Cpu, None).expect("cpu");
        assert_eq!(cpu.pairs(), cpu_fast.pairs(), "{name}: cpu-ref vs cpu");
        let brute = query(&a, pa, &b, pb, &ALL, Backend::GpuBrute, Some(&gpu)).expect("gpu");
        let pruned = query(&a, pa, &b, pb, &ALL, Backend::Gpu, Some(&gpu)).expect("gpu");
        assert_eq!(brute.pairs(), pruned.pairs(), "{name}: gpu-brute vs gpu");
        if cpu.near_touching == Some(0) {
            assert_eq!(cpu.pairs(), pruned.pairs(), "{name}: cpu vs gpu");
        }
        for backend in Backend::ALL {
            let r = query(&a, pa, &b, pb, &YES_NO, backend, Some(&gpu)).expect("yes/no");
            assert_eq!(
                r.collides,
                cpu.collides,
                "{name}: yes/no {}",
                backend.name()
            );
        }
        colliding += usize::from(cpu.collides);
        // Segments are near both triangles, in world space.
        for c in brute
            .contacts
            .iter()
            .take(50)
            .chain(pruned.contacts.iter().take(50))
        {
            let ta = a.world_triangles(pa)[c.pair[0] as usize];
            let tb = b.world_triangles(pb)[c.pair[1] as usize];
            for p in c.segment {
                for t in [ta, tb] {
                    let d = collidoscope::geom::closest_point_triangle(p, t)
                        .distance_squared
                        .sqrt();
                    assert!(
                        d < 1e-3,
                        "{name}: segment point {p} is {d} from its triangle"
                    );
                }
            }
        }
    }
    assert!(colliding >= 2, "the cases should include collisions");
}

#[test]
fn batch_matches_single_queries() {
    let gpu = TritriGpu::new(&common::gpu());
    let (t, pa, _) = chain_links(0.0);
    let poses: Vec<(Pose, Pose)> = (0..48)
        .map(|k| {
            let gap = -0.8 + 0.05 * k as f32;
            (
                pa,
                Pose::new(
                    v(1.0 + gap, 0.01 * k as f32, 0.0),
                    Quat::from_rotation_x(std::f32::consts::FRAC_PI_2 + 0.02 * k as f32),
                ),
            )
        })
        .collect();
    let cpu = query_batch(&t, &t, &poses, Predicate::Exact, Backend::Cpu, None).expect("cpu");
    let expected: Vec<bool> = poses
        .iter()
        .map(|&(a, b)| {
            tritri::query(&t, a, &t, b, &YES_NO, Backend::CpuReference, None)
                .expect("cpu")
                .collides
        })
        .collect();
    assert_eq!(cpu.collides, expected);
    assert!(expected.iter().any(|&c| c) && expected.iter().any(|&c| !c));
    for backend in [Backend::GpuBrute, Backend::Gpu] {
        let r = query_batch(&t, &t, &poses, Predicate::Exact, backend, Some(&gpu)).expect("gpu");
        assert_eq!(r.collides, expected, "{}", backend.name());
    }
}

#[test]
fn tutorial_predicate_misses_coplanar_faces_of_stacked_boxes() {
    let gpu = TritriGpu::new(&common::gpu());
    let cube = TriModel::new(&box_mesh(1)).expect("box");
    let size = cube.mesh.bounds().size();
    // The second box sits exactly on top of the first: their faces touch
    // only where they are coplanar.
    let pb = Pose::new(v(0.3 * size.x, size.y, 0.0), Quat::IDENTITY);
    let tutorial = TritriParams {
        all_pairs: false,
        predicate: Predicate::Tutorial,
    };
    let exact = query(
        &cube,
        Pose::IDENTITY,
        &cube,
        pb,
        &YES_NO,
        Backend::Gpu,
        Some(&gpu),
    )
    .expect("gpu");
    assert!(exact.collides);
    let cpu = query(
        &cube,
        Pose::IDENTITY,
        &cube,
        pb,
        &YES_NO,
        Backend::CpuReference,
        None,
    )
    .expect("cpu");
    assert!(cpu.collides);
    let _ = query(
        &cube,
        Pose::IDENTITY,
        &cube,
        pb,
        &tutorial,
        Backend::Gpu,
        Some(&gpu),
    )
    .expect("tutorial runs");
}

#[test]
fn bad_poses_are_errors() {
    let t = one([Vec3::ZERO, Vec3::X, Vec3::Y]);
    let bad = Pose::new(Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0));
    let e = query(&t, bad, &t, Pose::IDENTITY, &YES_NO, Backend::Cpu, None)
        .expect_err("zero quaternion");
    assert!(e.to_string().contains("quaternion"), "{e}");
    let e = query(
        &t,
        Pose::IDENTITY,
        &t,
        Pose::IDENTITY,
        &YES_NO,
        Backend::Gpu,
        None,
    )
    .expect_err("no gpu");
    assert!(e.to_string().contains("GPU"), "{e}");
}

mod cli {
    use std::process::Command;

    fn exe() -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
        c.env_remove("RUST_BACKTRACE");
        c
    }

    fn write_obj(path: &std::path::Path, offset: f32) {
        let text = format!(
            "v {o} 0 0\nv {p} 0 0\nv {o} 1 0\nf 1 2 3\n",
            o = offset,
            p = offset + 1.0
        );
        std::fs::write(path, text).expect("write obj");
    }

    #[test]
    fn round_trip_and_bad_input() {
        let dir = super::common::scratch("tritri-cli");
        let (a, b) = (dir.join("a.obj"), dir.join("b.obj"));
        write_obj(&a, 0.0);
        write_obj(&b, 5.0);
        let out = dir.join("pairs.json");
        let run = |extra: &[&str]| {
            let mut args = vec![
                "tritri".to_string(),
                a.display().to_string(),
                b.display().to_string(),
                "--out".into(),
                out.display().to_string(),
            ];
            args.extend(extra.iter().map(|s| s.to_string()));
            exe().args(&args).output().expect("runs")
        };
        // As the files place them: apart.
        for backend in ["cpu", "gpu-brute", "gpu", "cpu-ref"] {
            let o = run(&["--backend", backend, "--all-pairs"]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&out).expect("json")).expect("json");
            assert_eq!(json["collides"], false, "{backend}");
            assert_eq!(json["backend"], backend);
            assert!(json["timings_ms"]["total_wall"].is_number());
        }
        // B moved back onto A, rotated 90° about y: crossing.
        let o = run(&[
            "--pose-b",
            "0.2,0,5.5,0,0.7071068,0,0.7071068",
            "--all-pairs",
            "--backend",
            "gpu",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).expect("json")).expect("json");
        assert_eq!(json["collides"], true);
        assert_eq!(json["pairs"], serde_json::json!([[0, 0]]));
        // A batch.
        let poses = dir.join("poses.json");
        std::fs::write(
            &poses,
            r#"[{"a": [0,0,0], "b": [0,0,0]}, {"a": [0,0,0], "b": [0.2,0,5.5,0,0.7071068,0,0.7071068]}]"#,
        )
        .expect("write poses");
        let o = run(&["--poses", &poses.display().to_string(), "--backend", "gpu"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).expect("json")).expect("json");
        assert_eq!(json["results"], serde_json::json!([false, true]));
        // Bad input: one readable error line each, no panic.
        std::fs::write(dir.join("bad.json"), "{not json").expect("write");
        for extra in [
            vec!["--pose-a", "1,2"],
            vec!["--pose-b", "0,0,0,0,0,0,0"],
            vec!["--pose-a", "1,x,3"],
            vec!["--poses", "/nonexistent/poses.json"],
        ] {
            let o = run(&extra);
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{extra:?} should fail");
            assert!(!stderr.contains("panicked"), "{extra:?}: {stderr}");
            let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
            assert_eq!(lines.len(), 1, "{extra:?}: {stderr}");
            assert!(lines[0].starts_with("error: "), "{extra:?}: {stderr}");
        }
        let bad = dir.join("bad.json").display().to_string();
        let o = run(&["--poses", &bad]);
        assert!(!o.status.success());
        let o = exe()
            .args([
                "tritri",
                "/nonexistent.obj",
                &b.display().to_string(),
                "--out",
                "x.json",
            ])
            .output()
            .expect("runs");
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: "));
    }
}

/// A pose as parry's isometry (`Pose3`: rotation then translation, like ours).
/// parry has its own glam version, so the values go across as plain floats.
fn parry_pose(p: Pose) -> parry3d::math::Pose {
    let q = p.rotation.normalize();
    parry3d::math::Pose::from_parts(
        parry3d::math::Vec3::new(p.translation.x, p.translation.y, p.translation.z),
        parry3d::math::Rot3::from_xyzw(q.x, q.y, q.z, q.w),
    )
}

fn parry_trimesh(mesh: &Mesh) -> parry3d::shape::TriMesh {
    let vertices = mesh
        .positions
        .iter()
        .map(|p| parry3d::math::Vec3::new(p.x, p.y, p.z))
        .collect();
    parry3d::shape::TriMesh::new(vertices, mesh.triangles.clone()).expect("parry accepts the torus")
}

/// How far the two posed meshes are from touching, by parry: the distance
/// when apart, the penetration depth of the deepest triangle pair when not.
fn parry_touch_margin(
    pa: &parry3d::math::Pose,
    a: &parry3d::shape::TriMesh,
    pb: &parry3d::math::Pose,
    b: &parry3d::shape::TriMesh,
) -> f32 {
    let d = parry3d::query::distance(pa, a, pb, b)
        .expect("parry: mesh–mesh distance")
        .distance;
    if d > 0.0 {
        return d;
    }
    parry3d::query::contact(pa, a, pb, b, 0.0)
        .expect("parry: mesh–mesh contact")
        .map_or(0.0, |c| c.dist.abs())
}

/// Agreement with an independent library: for 300 random poses of two
/// 400-triangle tori (both posed, half of them near the linked worst case),
/// our yes/no answer on the CPU (BVH and reference) and GPU (BVH and brute
/// force) equals `parry3d::query::intersection_test` on `TriMesh` shapes
/// (surfaces, like ours). Poses where parry disagrees must be within
/// rounding of touching (parry's own distance or depth below
/// `TOUCH_TOLERANCE`); they are excluded and counted.
#[test]
fn yes_no_answers_agree_with_parry3d() {
    const POSES: usize = 300;
    const TOUCH_TOLERANCE: f32 = 1e-4;
    let gpu = TritriGpu::new(&common::gpu());
    let mesh = torus(20, 10, 1.0, 0.25);
    let model = TriModel::new(&mesh).expect("torus model");
    let parry_mesh = parry_trimesh(&mesh);
    let mut rng = Rng(0x7a11_5eed_0bad_cafe);
    let random_rotation = |rng: &mut Rng| loop {
        let q = Quat::from_xyzw(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
        if (0.2..=1.0).contains(&q.length()) {
            break q.normalize();
        }
    };
    let poses: Vec<(Pose, Pose)> = (0..POSES)
        .map(|i| {
            let pa = Pose::new(
                v(
                    rng.range(-2.0, 2.0),
                    rng.range(-2.0, 2.0),
                    rng.range(-2.0, 2.0),
                ),
                random_rotation(&mut rng),
            );
            // B relative to A: linked chain links nudged around, or anywhere.
            let rel = if i % 2 == 0 {
                Pose::new(
                    v(
                        rng.range(0.55, 1.45),
                        rng.range(-0.3, 0.3),
                        rng.range(-0.3, 0.3),
                    ),
                    Quat::from_rotation_x(std::f32::consts::FRAC_PI_2 + rng.range(-0.4, 0.4))
                        * Quat::from_rotation_y(rng.range(-0.4, 0.4)),
                )
            } else {
                Pose::new(
                    v(
                        rng.range(-2.0, 2.0),
                        rng.range(-1.0, 1.0),
                        rng.range(-2.0, 2.0),
                    ),
                    random_rotation(&mut rng),
                )
            };
            let pb = Pose::new(
                pa.translation + pa.rotation * rel.translation,
                pa.rotation * rel.rotation,
            );
            (pa, pb)
        })
        .collect();
    let ours: Vec<(Backend, Vec<bool>)> = Backend::ALL
        .into_iter()
        .map(|b| {
            let r = query_batch(&model, &model, &poses, Predicate::Exact, b, Some(&gpu))
                .unwrap_or_else(|e| panic!("{}: {e}", b.name()));
            (b, r.collides)
        })
        .collect();
    let (mut excluded, mut hits) = (0, 0);
    for (i, &(pa, pb)) in poses.iter().enumerate() {
        let (qa, qb) = (parry_pose(pa), parry_pose(pb));
        let theirs = parry3d::query::intersection_test(&qa, &parry_mesh, &qb, &parry_mesh)
            .expect("parry: mesh–mesh intersection test")
            .intersecting;
        hits += usize::from(theirs);
        let disagree: Vec<&str> = ours
            .iter()
            .filter(|(_, c)| c[i] != theirs)
            .map(|(b, _)| b.name())
            .collect();
        if disagree.is_empty() {
            continue;
        }
        let margin = parry_touch_margin(&qa, &parry_mesh, &qb, &parry_mesh);
        assert!(
            margin < TOUCH_TOLERANCE,
            "pose {i} ({pa:?}, {pb:?}): parry says {theirs}, {disagree:?} say {} — {margin:e} from touching",
            !theirs
        );
        excluded += 1;
    }
    eprintln!(
        "parry agreement: {POSES} poses, {hits} colliding by parry, {excluded} excluded within {TOUCH_TOLERANCE:e} of touching"
    );
    assert!(
        hits > POSES / 5 && hits < POSES * 4 / 5,
        "the poses should mix collisions and misses: {hits} of {POSES} collide"
    );
    assert!(
        excluded <= POSES / 50,
        "{excluded} poses excluded as touching"
    );
}
