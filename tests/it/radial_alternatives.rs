//! Table 1's alternatives on the GPU (lavapipe here) against their CPU
//! references, point by point, on the procedural humanoid skinned into a
//! pose away from the one the structures were made for: the spatial hash
//! rebuilt from the posed triangles, the BVH refitted to them, the
//! per-bone distance grids rebuilt in the bones' posed frames.

use crate::common;

use collidoscope::geom::closest_point_triangle;
use collidoscope::sim::radial::alternatives::{SpatialHash, bvh_build, bvh_query};
use collidoscope::sim::radial::bone_sdf::BoneSdfs;
use collidoscope::sim::radial::bone_sdf_gpu::{BoneSdfKernels, GpuBoneSdfs};
use collidoscope::sim::radial::bvh_gpu::{BvhKernels, GpuBvh};
use collidoscope::sim::radial::character::Character;
use collidoscope::sim::radial::character::humanoid::{Detail, humanoid};
use collidoscope::sim::radial::hash_gpu::{GpuHash, HashKernels};
use collidoscope::sim::radial::techniques::{
    GpuMesh, GpuTechnique, Points, run_once, upload_points,
};
use glam::{Mat4, UVec3, Vec3};

const REACH: f32 = 0.04;

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

struct Scene {
    character: Character,
    skin_matrices: Vec<Mat4>,
    rest: Vec<Vec3>,
    posed: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    points: Vec<Vec3>,
}

/// The humanoid (coarse capsules) in a pose of its clip, and points
/// scattered up to 1.5 reach around its posed vertices.
fn scene() -> Scene {
    let character = humanoid(Detail {
        around: 8,
        along: 3,
        cap: 2,
    });
    let pose = character.pose(0.9);
    let posed = character.skinned(&pose);
    let mut rng = Lcg(7);
    let points = (0..3000)
        .map(|i| {
            let v = posed[(i * 7919) % posed.len()];
            let dir = Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            v + dir.normalize_or_zero() * rng.range(0.0, 1.5 * REACH)
        })
        .collect();
    Scene {
        rest: character.rest.clone(),
        triangles: character.triangles.clone(),
        skin_matrices: pose.skin_matrices,
        character,
        posed,
        points,
    }
}

/// The signs of the triangles nearest to `p` (all within rounding of the
/// nearest): where several meet at an edge or corner their planes may
/// disagree, and either answer is right.
fn nearest_signs(s: &Scene, p: Vec3) -> Vec<bool> {
    nearest_signs_of(s, p, 0..s.triangles.len() as u32)
}

/// [`nearest_signs`] among `candidates`.
fn nearest_signs_of(s: &Scene, p: Vec3, candidates: impl Iterator<Item = u32>) -> Vec<bool> {
    let d: Vec<(f32, bool)> = candidates
        .map(|t| {
            let tri = s.triangles[t as usize].map(|v| s.posed[v as usize]);
            let c = closest_point_triangle(p, tri);
            let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
            (c.distance_squared.sqrt(), (p - c.point).dot(n) < 0.0)
        })
        .collect();
    let best = d.iter().map(|x| x.0).fold(f32::INFINITY, f32::min);
    d.iter()
        .filter(|x| x.0 <= best + 1e-5)
        .map(|x| x.1)
        .collect()
}

/// Compares the GPU answers with the CPU's point by point.
fn compare(what: &str, s: &Scene, cpu: &[Option<f32>], gpu: &[Option<f32>]) {
    assert_eq!(cpu.len(), gpu.len());
    let near = cpu.iter().filter(|d| d.is_some()).count();
    assert!(
        near > 1000 && near < cpu.len(),
        "{what}: {near} of {} points within reach: the test must have both",
        cpu.len()
    );
    let inside = cpu.iter().filter(|d| d.is_some_and(|d| d < 0.0)).count();
    assert!(inside > 100, "{what}: only {inside} points inside the skin");
    for (j, (c, g)) in cpu.iter().zip(gpu).enumerate() {
        let p = s.points[j];
        match (c, g) {
            (None, None) => {}
            (Some(c), Some(g)) => {
                assert!(
                    (c.abs() - g.abs()).abs() < 1e-5,
                    "{what}: point {j} at {p}: cpu {c}, gpu {g}"
                );
                let signs = nearest_signs(s, p);
                assert!(
                    signs.contains(&(*g < 0.0)),
                    "{what}: point {j} at {p}: gpu {g} has a sign no nearest triangle has ({signs:?}; cpu {c})"
                );
            }
            // Within rounding of the reach either answer is right.
            (Some(d), None) | (None, Some(d)) => assert!(
                (d.abs() - REACH).abs() < 1e-5,
                "{what}: point {j} at {p}: cpu {c:?}, gpu {g:?}"
            ),
        }
    }
}

#[test]
fn gpu_hash_and_bvh_match_their_cpu_references_on_a_posed_humanoid() {
    let gpu = common::gpu();
    let s = scene();
    let mesh = GpuMesh::upload(&gpu, &s.posed, &s.triangles).unwrap();
    let buffer = upload_points(&gpu, &s.points).unwrap();
    let points = Points {
        buffer: &buffer,
        count: s.points.len() as u32,
    };

    let cell = 1.5 * REACH;
    let cpu_hash = SpatialHash::build(&s.posed, &s.triangles, cell);
    let cpu = cpu_hash.query(&s.posed, &s.triangles, &s.points, REACH);
    let hash_kernels = HashKernels::new(&gpu);
    // Sized at the rest pose, rebuilt at the posed one.
    let hash = GpuHash::new(&hash_kernels, &gpu, &mesh, &s.rest, points, cell, REACH).unwrap();
    let got = run_once(&gpu, &hash).unwrap();
    compare("hash", &s, &cpu, &got);
    assert!(hash.memory_bytes() > 4 * s.triangles.len() as u64);

    let (bvh, _) = bvh_build(&s.posed, &s.triangles);
    let cpu = bvh_query(&bvh, &s.posed, &s.triangles, &s.points, REACH);
    let bvh_kernels = BvhKernels::new(&gpu);
    // Built at the rest pose, refitted to the posed one.
    let tree = GpuBvh::new(&bvh_kernels, &gpu, &mesh, &s.rest, points, REACH).unwrap();
    let got = run_once(&gpu, &tree).unwrap();
    compare("bvh", &s, &cpu, &got);
    assert!(tree.memory_bytes() > 32 * s.triangles.len() as u64);
}

#[test]
fn gpu_bone_sdfs_match_the_cpu_cell_by_cell_and_point_by_point() {
    let gpu = common::gpu();
    let s = scene();
    let c = &s.character;
    let res = 10;
    let grids = BoneSdfs::fit(&c.rest, &c.triangles, &c.fields, res, REACH).unwrap();
    assert_eq!(grids.bones.len(), c.fields.len());
    let cpu_cells = grids.build(&s.posed, &s.triangles, &s.skin_matrices);
    let mesh = GpuMesh::upload(&gpu, &s.posed, &s.triangles).unwrap();
    let buffer = upload_points(&gpu, &s.points).unwrap();
    let points = Points {
        buffer: &buffer,
        count: s.points.len() as u32,
    };
    let kernels = BoneSdfKernels::new(&gpu);
    let sdfs = GpuBoneSdfs::new(&kernels, &gpu, &mesh, grids.clone(), points, REACH).unwrap();
    sdfs.write_pose(&gpu, &s.skin_matrices);
    let got = run_once(&gpu, &sdfs).unwrap();
    let cells = sdfs.read_cells(&gpu).unwrap();
    assert_eq!(cells.len(), cpu_cells.len());
    let per_bone = grids.cells_per_bone();
    let mut inside = 0;
    for (i, (&cpu, &g)) in cpu_cells.iter().zip(&cells).enumerate() {
        let (b, cell) = (i / per_bone, (i % per_bone) as u32);
        let at = UVec3::new(cell % res, (cell / res) % res, cell / (res * res));
        let bone = &grids.bones[b];
        let p = s.skin_matrices[bone.joint].transform_point3(grids.cell_centre(b, at));
        assert!(
            (cpu.abs() - g.abs()).abs() < 1e-4,
            "bone {b} cell {at} at {p}: cpu {cpu}, gpu {g}"
        );
        if (cpu < 0.0) != (g < 0.0) {
            let signs = nearest_signs_of(&s, p, bone.triangles.iter().copied());
            assert!(
                signs.contains(&(g < 0.0)),
                "bone {b} cell {at} at {p}: gpu {g}, cpu {cpu}, nearest signs {signs:?}"
            );
        }
        inside += usize::from(g < 0.0);
    }
    assert!(inside > 50, "only {inside} cells inside the skin");
    // The query, from the GPU's cells on both sides.
    let cpu = grids.query(&cells, &s.skin_matrices, &s.points, REACH);
    let near = got.iter().filter(|d| d.is_some()).count();
    assert!(near > 300, "only {near} of {} points in contact", got.len());
    for (j, (c, g)) in cpu.iter().zip(&got).enumerate() {
        let p = s.points[j];
        match (c, g) {
            (None, None) => {}
            (Some(c), Some(g)) => {
                assert!((c - g).abs() < 1e-4, "point {j} at {p}: cpu {c}, gpu {g}")
            }
            (Some(d), None) | (None, Some(d)) => assert!(
                (d.abs() - REACH).abs() < 1e-4,
                "point {j} at {p}: cpu {c:?}, gpu {g:?}"
            ),
        }
    }
}
