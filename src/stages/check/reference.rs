//! The exact field at the samples' points, with the robust sign.
//!
//! Grids go through the `sdf` stage on the samples' own grid in
//! winding sign mode (any of its backends, the GPU by default); point sets
//! through [`sdf::points::signed_at_points`] with the same
//! winding-number sign: a BVH nearest-triangle query per point, on the GPU
//! for the GPU backends ([`SdfGpu::exact_at_points`], the points its
//! float32 bound leaves undecided signed exactly on the CPU), on all CPU
//! cores for the CPU ones.

use super::{CheckError, FieldSamples, Layout};
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::stages::sdf::{self, Backend, SdfGpu, SdfParams, SignMode};

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
            let field = sdf::compute_on_grid(mesh, *grid, &params, backend, gpu, progress)?;
            (field.values, backend)
        }
        Layout::Points(points) => {
            let got = sdf::points::signed_at_points(
                mesh,
                points,
                SignMode::Winding,
                backend,
                gpu,
                progress,
            )
            .map_err(|e| match e {
                sdf::SdfError::Cancelled => CheckError::Cancelled,
                e => e.into(),
            })?;
            (got.values, got.backend)
        }
    };
    if let Some(band) = samples.band_world {
        for v in &mut values {
            *v = v.clamp(-band, band);
        }
    }
    Ok(Exact { values, backend })
}
