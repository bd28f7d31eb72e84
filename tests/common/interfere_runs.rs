//! Running the interference stage in the tests: all passes with the
//! default options, and the query-only options. Shared by the
//! tests/it/interfere_*.rs binaries.

use collidoscope::stages::interfere::{
    Identification, InterferenceGpu, InterferenceParams, InterferenceRun, InterferenceScene,
    InterferenceSummary, RunOptions, StencilPasses, ViewAxis, detect_gpu,
};

/// All passes with the default options, which must succeed.
pub fn detect(
    gpu: &collidoscope::gpu::GpuContext,
    stage: &InterferenceGpu,
    scene: &InterferenceScene,
    params: &InterferenceParams,
    axes: &[ViewAxis],
) -> (Vec<InterferenceRun>, InterferenceSummary) {
    detect_gpu(gpu, stage, scene, params, axes, RunOptions::default()).unwrap()
}

pub const QUERIES: RunOptions = RunOptions {
    passes: StencilPasses::TwoSided,
    read_pixels: false,
    pairs: true,
    cull: true,
    identification: Identification::WeightedSums,
};
