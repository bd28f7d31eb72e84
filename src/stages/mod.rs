//! Pipeline stages: each one computes one product from its input, with a
//! CPU reference and one or more GPU implementations behind one entry
//! point.
//!
//! # The stage contract
//!
//! Every stage module keeps the same shape:
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
//!   `cpu`, `gpu-brute`, `gpu`, …), declared with the one backend
//!   definition (`backends!` in `stages/backend.rs`), which writes its
//!   `ALL`, `name`, `from_name`, `is_gpu` and its CLI values; the names are
//!   the CLI's and the viewer's.
//! * **GPU state** — the stage's shader modules and pipelines, created once
//!   per device (and caches of resident data), so that a run only uploads
//!   what changed.
//! * **A marker type with one `run`** ([`sdf::SdfGrid`],
//!   [`adaptive::SdfAdaptive`], [`sampling::Sampling`],
//!   [`collide::Colliders`], [`tritri::Tritri`],
//!   [`interfere::Interference`], [`radial::Radial`],
//!   [`particles::Particles`], [`iso_surface::IsoSurfaceStage`]):
//!   `X::gpu(ctx)` makes the GPU state and `X::run(input, &params, backend,
//!   gpu, progress)` validates the parameters, runs the chosen backend and
//!   returns the product. A GPU backend without the GPU state answers with
//!   the stage's "no GPU" error; a CPU backend ignores `gpu`. `progress` is
//!   reported to and checked for cancellation by the stages that can stop
//!   early (the SDF grid); the others run to the end. Tests run every
//!   backend through it and compare; the radial and particle callers use it
//!   as their entry point.
//!
//! The `run`s are alike but not one trait: no caller drives a stage without
//! knowing which one it is. Where a caller needs more than one run gives,
//! the stage offers the entry point it uses beside `run`, with the same
//! parameters, backend and product: a field with a given GPU state and
//! progress or on a given grid ([`sdf::compute_with`],
//! [`sdf::compute_on_grid`]), contacts of given pairs
//! ([`collide::detect`]), one query or a batch ([`tritri::query`],
//! [`tritri::query_batch`]), a test over given views
//! ([`interfere::detect_with`]).
//!
//! Stages use only [`crate::mesh`], [`crate::geom`], [`crate::gpu`] and
//! [`crate::io`] (and each other, one way): the viewer, the CLI and the
//! simulations build on them, never the reverse.

/// Largest padding ("grid thickness") a field accepts, as a fraction of the
/// mesh's longest side on every side: a grid 21 times the mesh. Beyond it
/// the mesh is a speck in the grid, and the extent limits of
/// [`crate::mesh::PreparedMesh`] assume it.
pub const MAX_PADDING: f32 = crate::mesh::MAX_PADDING;

pub mod adaptive;
pub(crate) mod backend;
pub mod check;
pub mod collide;
pub mod interfere;
pub mod iso_surface;
#[doc(hidden)]
pub mod layouts;
pub mod particles;
pub mod radial;
pub mod sampling;
pub mod sdf;
pub mod tritri;

/// The "this run has no GPU context" error of a GPU backend run without
/// its stage's GPU state.
pub(crate) fn no_gpu() -> crate::gpu::GpuError {
    crate::gpu::GpuError::NoAdapter("this run has no GPU context".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! names_round_trip {
        ($($backend:ty),+ $(,)?) => {$(
            for b in <$backend>::ALL {
                assert_eq!(<$backend>::from_name(b.name()), Some(b), "{b:?}");
            }
            assert_eq!(<$backend>::from_name("no such backend"), None);
        )+};
    }

    /// Every stage's backends have distinct names that parse back.
    #[test]
    fn every_backend_name_round_trips() {
        names_round_trip!(
            sdf::Backend,
            adaptive::Backend,
            sampling::Backend,
            collide::Backend,
            tritri::Backend,
            interfere::Backend,
            radial::Backend,
            particles::Backend,
            iso_surface::Backend,
        );
    }
}
