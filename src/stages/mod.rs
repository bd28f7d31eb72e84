//! Pipeline stages: each one computes one product from its input, with a
//! CPU reference and one or more GPU implementations behind one entry
//! point.
//!
//! # The stage contract
//!
//! Every stage module keeps the same shape, written down as the [`Stage`]
//! trait and implemented by a marker type per stage ([`sdf_grid::SdfGrid`],
//! [`sdf_adaptive::SdfAdaptive`], [`sampling::Sampling`],
//! [`colliders::Colliders`], [`tri_tri::TriTri`],
//! [`interference::Interference`], [`radial::Radial`],
//! [`particles::Particles`], [`iso_surface::IsoSurfaceStage`]):
//!
//! * **Params** — plain data (`Copy` or `Clone`, serialisable where the CLI
//!   or the viewer store it), checked before anything runs (a `validate`,
//!   or the run's own checks) so that a bad value gives one readable error
//!   line.
//! * **Product** — the answer and how it was made (backend, timings). The
//!   CPU reference and the GPU path return the *same* type, so tests and
//!   callers compare them field by field. A field one backend cannot
//!   compute is an `Option` or documented as such on the product, never
//!   made up.
//! * **Error** — a `thiserror` enum, one readable line per variant, with a
//!   transparent [`crate::gpu::GpuError`] variant.
//! * **Backend** — a `Copy` enum naming the implementations (`cpu-ref`,
//!   `cpu`, `gpu-brute`, `gpu`, …), with [`StageBackend`]'s `name`,
//!   `from_name` and `is_gpu`; the names are the CLI's and the viewer's.
//! * **Gpu** — the stage's long-lived GPU state: shader modules and
//!   pipelines, created once per device (and caches of resident data), so
//!   that a run only uploads what changed.
//! * **One `run`** — `run(input, &params, backend, gpu, progress)`: it
//!   validates the parameters, runs the chosen backend, and returns the
//!   product. A GPU backend without a [`Stage::Gpu`] answers with the
//!   stage's "no GPU" error; a CPU backend ignores `gpu`. `progress` is
//!   reported to and checked for cancellation by the stages that can stop
//!   early (the SDF grid); the others run to the end.
//!
//! Stages use only [`crate::mesh`], [`crate::geom`], [`crate::gpu`] and
//! [`crate::io`] (and each other, one way): the viewer, the CLI and the
//! simulations build on them, never the reverse.

/// Largest padding ("grid thickness") a field accepts, as a fraction of the
/// mesh's longest side on every side: a grid 21 times the mesh. Beyond it
/// the mesh is a speck in the grid, and the extent limits of
/// [`crate::mesh::PreparedMesh`] assume it.
pub const MAX_PADDING: f32 = crate::mesh::MAX_PADDING;

pub mod check;
pub mod colliders;
pub mod interference;
pub mod iso_surface;
#[doc(hidden)]
pub mod layouts;
pub mod particles;
pub mod radial;
pub mod sampling;
pub mod sdf_adaptive;
pub mod sdf_grid;
pub mod tri_tri;

use crate::gpu::GpuContext;
use crate::progress::Progress;

/// The backends of one stage: a closed list of named implementations.
pub trait StageBackend: Copy + Eq + std::fmt::Debug + 'static {
    /// Every backend, in the order the CLI and the viewer list them.
    const ALL: &'static [Self];

    /// The name the CLI and the viewer use.
    fn name(self) -> &'static str;

    /// True for the backends that need the stage's [`Stage::Gpu`].
    fn is_gpu(self) -> bool;

    /// The backend called `name`.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|b| b.name() == name)
    }
}

/// The contract every stage keeps (see the module docs).
pub trait Stage {
    /// What one run works on, borrowed (cheap to copy, so one input can go
    /// to several backends).
    type Input<'a>: Copy;
    type Params;
    type Product;
    type Error: std::error::Error + From<crate::gpu::GpuError>;
    type Backend: StageBackend;
    /// The long-lived GPU state of the stage.
    type Gpu;

    /// Creates the GPU state on `gpu` (once per device).
    fn gpu(gpu: &GpuContext) -> Result<Self::Gpu, Self::Error>;

    /// One run with `backend`; `gpu` is needed by the GPU backends.
    fn run(
        input: Self::Input<'_>,
        params: &Self::Params,
        backend: Self::Backend,
        gpu: Option<&Self::Gpu>,
        progress: &Progress,
    ) -> Result<Self::Product, Self::Error>;
}

/// The "this run has no GPU context" error of a GPU backend run without
/// its [`Stage::Gpu`].
pub(crate) fn no_gpu() -> crate::gpu::GpuError {
    crate::gpu::GpuError::NoAdapter("this run has no GPU context".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_round_trip<B: StageBackend>() {
        for &b in B::ALL {
            assert_eq!(B::from_name(b.name()), Some(b), "{b:?}");
        }
        assert_eq!(B::from_name("no such backend"), None);
    }

    /// Every stage's backends have distinct names that parse back.
    #[test]
    fn every_backend_name_round_trips() {
        names_round_trip::<sdf_grid::Backend>();
        names_round_trip::<sdf_adaptive::Backend>();
        names_round_trip::<sampling::SamplingBackend>();
        names_round_trip::<colliders::ColliderBackend>();
        names_round_trip::<tri_tri::Backend>();
        names_round_trip::<interference::Backend>();
        names_round_trip::<radial::Backend>();
        names_round_trip::<particles::Backend>();
    }
}
