//! The integration tests, in one crate: one binary to build and link
//! instead of one per file. Each module is the tests of one feature or
//! surface; the helpers they share are in `tests/common/`. GPU tests run
//! on any Vulkan adapter (in CI, Mesa's lavapipe).

#[path = "../common/mod.rs"]
mod common;

mod adaptive;
mod bench_docs;
mod book;
mod check_cli;
mod check_far;
mod check_points;
mod cli;
mod cli_docs;
mod collide_cases;
mod collide_cli;
mod collide_gpu_cpu;
mod collide_readback;
mod collide_sampling;
mod dataset;
mod dataset_signs;
mod duplicate_faces;
mod input_fuzz;
mod inputs_refused;
mod install;
mod interfere_answers;
mod interfere_cli;
mod interfere_compute;
mod interfere_counts;
mod interfere_culling;
mod interfere_identification;
mod iso_surface;
mod mesh_formats;
mod module_graph;
mod obj_fuzz;
mod outputs;
mod outputs_refused;
mod particles_bench;
mod particles_cli;
mod particles_gpu;

mod radial;
mod radial_alternatives;
mod radial_character;
mod radial_cli;
mod radial_gltf;
mod radial_no_fields;
mod radial_sim;
mod radix_sort;
mod readme_bench;
mod sdf;
mod sdf_bench;
mod sdf_range;
mod sdf_winding;
mod sdf_winding_open;
mod shader_bindings;
mod shader_layouts;
mod shader_validation;
mod simulate;
mod simulate_cli;
mod simulate_pile;
mod simulate_scale;
mod staging_ring;
mod tritri;
mod view_render;
mod viewer_layout;
mod viewer_load;
mod viewer_smoke;
mod viewer_views;
