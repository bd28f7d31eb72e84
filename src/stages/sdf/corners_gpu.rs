//! The uniform SDF's triangle corners on the GPU, expanded there from the
//! indexed mesh (`shaders/sdf_corners.wgsl`): the host uploads the mesh's
//! positions (12 bytes a vertex, one contiguous copy) and each triangle's
//! three vertex indices in the backend's order (12 bytes a triangle), and
//! one invocation per triangle writes its three corners (a `vec4` each,
//! the distance kernels' layout, `tri_pos` in [`super`]'s buffer layout).
//! The corners are copies of the host's floats, bit for bit.
//!
//! Why: a cold call's host work before the kernels is bounded by the bytes
//! it writes into the uploads' staging memory (see [`super::resident`]),
//! and a closed mesh has
//! half as many vertices as triangles: the 1.1 M-triangle bunny's corners
//! are 53 MB as `vec4`s, 20 MB indexed.

use eframe::egui_wgpu::wgpu;

use crate::gpu::{
    BufferCheck, GpuContext, GpuError, GpuRun, Kernels, dispatch_dims, shader_source,
    storage_buffer_init, storage_buffer_streamed, storage_buffer_zeroed, uniform_buffer,
};
use crate::mesh::PreparedMesh;

/// `struct Params` of shaders/sdf_corners.wgsl (checked by
/// tests/it/shader_layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CornerParams {
    pub num_tris: u32,
    pub _pad: [u32; 3],
}

/// Invocations per workgroup of `expand_corners`.
pub const CORNERS_WORKGROUP: u32 = 64;

/// Bytes of one triangle's corners in `tri_pos`.
const CORNER_BYTES: u64 = 3 * 16;

/// The expansion's pipeline.
pub struct CornerPass {
    kernels: Kernels,
    pipeline: wgpu::ComputePipeline,
}

impl CornerPass {
    pub fn new(gpu: &GpuContext) -> Self {
        let kernels = Kernels::new(gpu, "SdfCorners", shader_source("sdf_corners.wgsl"));
        CornerPass {
            pipeline: kernels.pipeline(gpu, "expand_corners"),
            kernels,
        }
    }

    /// The corners of `mesh`'s triangles, triangle `slot(i)` in place `i`
    /// (3 `vec4` a triangle), in a new buffer labelled `label`: the indexed
    /// mesh uploaded and the expansion submitted on its own, ahead of every
    /// later submission (its buffers freed when it is done).
    pub fn corners(
        &self,
        gpu: &GpuContext,
        label: &str,
        mesh: &PreparedMesh,
        slot: impl Fn(usize) -> usize + Sync,
    ) -> Result<wgpu::Buffer, GpuError> {
        let triangles = mesh.triangle_count();
        let tri_pos = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label,
                bytes: triangles as u64 * CORNER_BYTES,
            },
        )?;
        let positions = storage_buffer_init(gpu, "SdfCorners::positions", &mesh.mesh.positions)?;
        let vertices = storage_buffer_streamed(gpu, "SdfCorners::vertices", triangles, |i| {
            mesh.mesh.triangles[slot(i)]
        })?;
        let params = CornerParams {
            num_tris: triangles as u32,
            _pad: [0; 3],
        };
        let uniform = uniform_buffer(gpu, "SdfCorners::params", &params);
        let group = self.kernels.bind(
            gpu,
            &[
                ("params", &uniform),
                ("positions", &positions),
                ("vertices", &vertices),
                ("tri_pos", &tri_pos),
            ],
        );
        let mut run = GpuRun::untimed(gpu, "SdfCorners::encoder")?;
        run.compute_pass("corners", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &group, &[]);
            let (x, y) = dispatch_dims((triangles as u32).div_ceil(CORNERS_WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
        });
        run.submit();
        Ok(tri_pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::read_buffer;
    use crate::mesh::{Mesh, uv_sphere};

    /// The expanded corners are the host's, bit for bit, in the BVH's
    /// order and in the mesh's.
    #[test]
    fn expanded_corners_are_the_hosts_in_either_order() {
        let gpu = crate::gpu::test_gpu();
        let pass = CornerPass::new(&gpu);
        let sphere: Mesh = uv_sphere(40, 80);
        let mesh = PreparedMesh::new(&sphere).expect("prepared");
        let n = mesh.triangle_count();
        let order = &mesh.bvh.order;
        for (what, slot) in [
            (
                "BVH order",
                &(|i: usize| order[i] as usize) as &(dyn Fn(usize) -> usize + Sync),
            ),
            ("mesh order", &|i: usize| i),
        ] {
            let buffer = pass
                .corners(&gpu, "test::tri_pos", &mesh, slot)
                .expect("corners");
            let got: Vec<[[f32; 4]; 3]> = read_buffer(&gpu, &buffer, n).expect("read back");
            for (i, g) in got.iter().enumerate() {
                let want = mesh.gpu_corners(slot(i));
                assert!(
                    g.iter()
                        .flatten()
                        .map(|x| x.to_bits())
                        .eq(want.iter().flatten().map(|x| x.to_bits())),
                    "{what}: triangle in place {i}: {g:?}, not {want:?}"
                );
            }
        }
    }
}
