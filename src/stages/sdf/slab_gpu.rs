//! The slabs of the GPU tree ([`super::slab_bvh`]), computed on the GPU
//! (`shaders/sdf_slabs.wgsl`): the host uploads the collapsed tree without
//! slabs ([`slab_bvh::Shape`], each node with its slot range) and the
//! triangles' corners in slot order, and one invocation per node sums its
//! triangles' normals and bounds its corners, as [`slab_bvh::slab`] does on
//! the CPU. The pass is recorded ahead of the distance kernels in the same
//! submission, the first time a tree is used (phase `slabs`).
//!
//! Why on the GPU: every level of nodes up to [`slab_bvh::SLAB_MAX`]
//! triangles reads each corner again, from the mesh's order through the
//! BVH's; for a mesh of a million triangles that is most of the host's
//! tree time in a cold call. The GPU reads the corners in slot order from
//! its own memory. The host's part left is the upload of the corners
//! ([`super::resident`]); the measurements are in
//! `docs/bench/design-measurements.md`.

use eframe::egui_wgpu::wgpu;

use super::slab_bvh::SLAB_MAX;
use crate::gpu::{GpuContext, GpuRun, Kernels, dispatch_dims, shader_source, uniform_buffer};

/// `struct Params` of shaders/sdf_slabs.wgsl (checked by
/// tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SlabParams {
    pub num_nodes: u32,
    pub slab_max: u32,
    pub _pad: [u32; 2],
}

/// Invocations per workgroup of `slab_nodes`.
pub const SLABS_WORKGROUP: u32 = 64;

/// The slab pass's pipeline.
pub struct SlabPass {
    kernels: Kernels,
    pipeline: wgpu::ComputePipeline,
}

impl SlabPass {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "SdfSlabs", shader_source("sdf_slabs.wgsl"));
        SlabPass {
            pipeline: kernels.pipeline(gpu, "slab_nodes"),
            kernels,
        }
    }

    /// Records the slabs of the `count` nodes in `nodes` (collapsed, with
    /// slot ranges) from the corners in `tri_pos` (3 `vec4` a triangle, in
    /// slot order), as compute pass `slabs` of `run`.
    pub fn record(
        &self,
        gpu: &GpuContext,
        run: &mut GpuRun<'_>,
        tri_pos: &wgpu::Buffer,
        nodes: &wgpu::Buffer,
        count: usize,
    ) {
        let params = SlabParams {
            num_nodes: count as u32,
            slab_max: SLAB_MAX as u32,
            _pad: [0; 2],
        };
        let uniform = uniform_buffer(gpu, "SdfSlabs::params", &params);
        let group = self.kernels.bind(
            gpu,
            &[("params", &uniform), ("tri_pos", tri_pos), ("nodes", nodes)],
        );
        let (x, y) = dispatch_dims((count as u32).div_ceil(SLABS_WORKGROUP));
        run.compute_pass("slabs", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        });
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::geom::test_rng::Rng;
    use crate::gpu::{read_buffer, storage_buffer_init};
    use crate::stages::sdf::slab_bvh::tests::{sheet, slot_triangle, slotted};
    use crate::stages::sdf::slab_bvh::{SlabNode, build, collapse};

    /// The nodes of `bvh`'s collapsed tree with the GPU's slabs from
    /// `corners` (slot order).
    fn gpu_slabs(gpu: &GpuContext, bvh: &crate::geom::Bvh, corners: &[[f32; 4]]) -> Vec<SlabNode> {
        let nodes = collapse(bvh).nodes;
        let tri_pos = storage_buffer_init(gpu, "test::tri_pos", corners).expect("tri_pos");
        let buffer = storage_buffer_init(gpu, "test::nodes", &nodes).expect("nodes");
        let mut run = GpuRun::new(gpu, "test::slabs").expect("run");
        SlabPass::new(gpu).record(gpu, &mut run, &tri_pos, &buffer, nodes.len());
        run.finish().expect("slab pass");
        read_buffer(gpu, &buffer, nodes.len()).expect("read back")
    }

    /// Each GPU node against the CPU reference's: the tree's fields equal,
    /// the slab present in both or neither, normals within `1e-5`, bands
    /// within `1e-5` of the corners' scale; and the GPU's band holds every
    /// corner of the node for its own normal (in f64, within rounding).
    fn assert_like_cpu(what: &str, gpu_nodes: &[SlabNode], cpu: &[SlabNode], corners: &[[f32; 4]]) {
        assert_eq!(gpu_nodes.len(), cpu.len(), "{what}: node count");
        let scale = corners
            .iter()
            .map(|c| Vec3::from_slice(&c[..3]).abs().max_element())
            .fold(1.0f32, f32::max);
        let mut slabbed = 0;
        for (k, (g, c)) in gpu_nodes.iter().zip(cpu).enumerate() {
            let tree = |n: &SlabNode| (n.min, n.a, n.max, n.b, n.first, n.end);
            assert_eq!(tree(g), tree(c), "{what}: node {k}'s tree fields");
            assert_eq!(
                g.normal == [0.0; 3],
                c.normal == [0.0; 3],
                "{what}: node {k}: GPU normal {:?}, CPU {:?}",
                g.normal,
                c.normal
            );
            if c.normal == [0.0; 3] {
                assert_eq!((g.lo, g.hi), (f32::MIN, f32::MAX), "{what}: node {k}");
                continue;
            }
            slabbed += 1;
            let dn = (Vec3::from(g.normal) - Vec3::from(c.normal))
                .abs()
                .max_element();
            assert!(
                dn <= 1e-5,
                "{what}: node {k}: normals {:?} / {:?}",
                g.normal,
                c.normal
            );
            let tol = 1e-5 * scale;
            assert!(
                (g.lo - c.lo).abs() <= tol && (g.hi - c.hi).abs() <= tol,
                "{what}: node {k}: GPU band {}..{}, CPU {}..{}",
                g.lo,
                g.hi,
                c.lo,
                c.hi
            );
            let n = Vec3::from(g.normal).as_dvec3();
            let round = 4.0 * f64::from(f32::EPSILON) * f64::from(scale);
            for s in g.first..g.end {
                for v in slot_triangle(corners, s) {
                    let d = n.dot(v.as_dvec3());
                    assert!(
                        d >= f64::from(g.lo) - round && d <= f64::from(g.hi) + round,
                        "{what}: node {k}: corner of slot {s} at {d} outside {}..{}",
                        g.lo,
                        g.hi
                    );
                }
            }
        }
        assert!(slabbed > 0, "{what}: no node got a slab");
    }

    /// The GPU's slabs are the CPU reference's: on a bumpy sheet; on
    /// random soups near the origin, far from it and tiny; and on a soup
    /// holding runs of zero-area triangles (nodes whose normals sum to
    /// nothing get no slab on either).
    #[test]
    fn gpu_slabs_match_the_cpu_reference() {
        let gpu = crate::gpu::test_gpu();
        let (bvh, corners) = sheet(40, 1.5);
        let cpu = build(&bvh, |s| slot_triangle(&corners, s));
        assert_like_cpu("sheet", &gpu_slabs(&gpu, &bvh, &corners), &cpu, &corners);
        let mut rng = Rng::new(7);
        for (what, offset, size) in [
            ("soup", Vec3::ZERO, 10.0),
            ("far soup", Vec3::new(1e5, -2e5, 3e4), 10.0),
            ("tiny soup", Vec3::new(0.3, 0.1, -0.2), 1e-4),
        ] {
            let mut point = || offset + rng.vec3(-1.0, 1.0) * size;
            let mut tris: Vec<[Vec3; 3]> = (0..3000).map(|_| [point(), point(), point()]).collect();
            if what == "soup" {
                // Degenerate runs: a point repeated, and collinear corners.
                for i in 0..200 {
                    let p = tris[i][0];
                    tris.push([p, p, p]);
                    tris.push([p, p + Vec3::X, p + 2.0 * Vec3::X]);
                }
            }
            let (bvh, corners) = slotted(&tris);
            let cpu = build(&bvh, |s| slot_triangle(&corners, s));
            assert_like_cpu(what, &gpu_slabs(&gpu, &bvh, &corners), &cpu, &corners);
        }
    }
}
