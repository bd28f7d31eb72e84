//! The integration tests, in one crate: one binary to build and link
//! instead of one per file. Each module is the tests of one feature or
//! surface; the helpers they share are in `tests/common/`. GPU tests run
//! on any Vulkan adapter (in CI, Mesa's lavapipe).

#[path = "../common/mod.rs"]
mod common;

mod character;
mod check_cli;
mod check_points;
mod cli;
mod collide_cases;
mod collide_cli;
mod collide_gpu_cpu;
mod collide_readback;
mod collide_sampling;
mod gltf_character;
mod install;
mod interfere_cli;
mod interference_answers;
mod interference_compute;
mod interference_counts;
mod interference_culling;
mod interference_identification;
mod iso_surface;
mod module_graph;
mod obj_fuzz;
mod outputs;
mod outputs_refused;
mod particles_bench;
mod particles_cli;
mod particles_gpu;
mod pipeline;
mod radial;
mod radial_alternatives;
mod radial_cli;
mod radial_sim;
mod radix_sort;
mod readme_bench;
mod sdf_adaptive;
mod sdf_bench;
mod sdf_grid;
mod sdf_range;
mod sdf_winding;
mod shader_bindings;
mod shader_layouts;
mod shader_validation;
mod simulate;
mod staging_ring;
mod tri_tri;
mod view_render;
mod viewer_layout;
mod viewer_smoke;
mod viewer_views;
