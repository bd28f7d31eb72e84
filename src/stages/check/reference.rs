//! The exact field at the samples' points, with the robust sign.
//!
//! Grids go through the `sdf_grid` stage on the samples' own grid in
//! winding sign mode (any of its backends, the GPU by default); point sets
//! through a BVH nearest-triangle query per point and the same winding-number
//! sign — on the GPU for the GPU backends ([`SdfGpu::exact_at_points`], the
//! points its float32 bound leaves undecided signed exactly on the CPU), on
//! all CPU cores for the CPU ones.

use rayon::prelude::*;

use super::{CheckError, FieldSamples, Layout};
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::stages::sdf_grid::{self, Backend, SdfGpu, SdfParams, SignMode, nearest_triangle};

/// The exact values and the backend that computed them.
#[derive(Clone, Debug)]
pub struct Exact {
    pub values: Vec<f32>,
    pub backend: Backend,
}

/// The exact signed distance at every sample of `samples` (clamped to the
/// field's band, if it has one). A GPU backend without `gpu` is the
/// stage's "no GPU" error.
pub fn exact_values(
    mesh: &PreparedMesh,
    samples: &FieldSamples,
    backend: Backend,
    gpu: Option<&SdfGpu>,
    progress: &Progress,
) -> Result<Exact, CheckError> {
    let (mut values, backend) = match &samples.layout {
        Layout::Grid(grid) => {
            let params = SdfParams {
                resolution: grid.dims.max_element(),
                padding: 0.0,
                band: None,
                sign_mode: SignMode::Winding,
            };
            let field = sdf_grid::compute_on_grid(mesh, *grid, &params, backend, gpu, progress)?;
            (field.values, backend)
        }
        Layout::Points(points) if backend.is_gpu() => {
            let gpu = gpu
                .ok_or_else(crate::stages::no_gpu)
                .map_err(sdf_grid::SdfError::from)?;
            (gpu.exact_at_points(mesh, points)?.0, Backend::Gpu)
        }
        Layout::Points(points) => (points_exact(mesh, points, progress)?, Backend::CpuFast),
    };
    if let Some(band) = samples.band_world {
        for v in &mut values {
            *v = v.clamp(-band, band);
        }
    }
    Ok(Exact { values, backend })
}

fn points_exact(
    mesh: &PreparedMesh,
    points: &[glam::Vec3],
    progress: &Progress,
) -> Result<Vec<f32>, CheckError> {
    // In the mesh's frame, as the grids (sdf_grid::compute).
    let frame = mesh.frame();
    let mesh = mesh.local();
    let points: Vec<glam::Vec3> = points.iter().map(|&p| frame.to_local(p)).collect();
    progress.start(points.len() as u64);
    const CHUNK: usize = 4096;
    let magnitudes: Vec<f32> = points
        .par_chunks(CHUNK)
        .flat_map_iter(|chunk| {
            let cancelled = progress.is_cancelled();
            let out: Vec<f32> = chunk
                .iter()
                .map(|&p| {
                    if cancelled {
                        return f32::NAN;
                    }
                    nearest_triangle(mesh, p, f32::INFINITY, &mut 0)
                        .map_or(f32::INFINITY, |(_, d2)| d2.sqrt())
                })
                .collect();
            progress.advance(chunk.len() as u64);
            out
        })
        .collect();
    if progress.is_cancelled() {
        return Err(CheckError::Cancelled);
    }
    let inside = mesh.winding().inside_flags(&points);
    Ok(magnitudes
        .into_iter()
        .zip(inside)
        .map(|(d, inside)| frame.length_to_world(if inside { -d } else { d }))
        .collect())
}
