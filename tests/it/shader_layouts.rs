//! The Rust types the shaders mirror, checked against the WGSL as naga
//! reads it: one side changed alone fails here, not as garbage on the GPU.
//! The checker (`common::shader_mirror`) loads each shader module as the
//! stages load it and compares struct layouts, vertex inputs, constants,
//! workgroup sizes and the colour-map table; every mismatch is collected
//! and reported with the shader, the WGSL name, the Rust name and both
//! values.

use crate::common;

use collidoscope::geom::{self, BvhNode, TriangleFeature};
use collidoscope::gpu::layouts as gl;
use collidoscope::sim::layouts as siml;
use collidoscope::stages::layouts as sl;
use collidoscope::stages::sampling::FeatureKind;
use collidoscope::view::ColorMap;
use collidoscope::view::layouts as vl;

use common::shader_mirror::{Checks, constant, mirror, ramp_stops, vertex};

#[test]
fn shared_bvh_and_closest_point() {
    let mut c = Checks::default();
    // shared/bvh_bounds.wgsl, in each module that includes it.
    for shader in ["tritri.wgsl", "sdf.wgsl", "adaptive.wgsl"] {
        mirror! { c, shader, "BvhNode", BvhNode { min, a, max, b } }
        constant!(c, shader, LEAF_BIT, geom::LEAF_BIT);
    }
    constant!(c, "tritri.wgsl", STACK, sl::TRITRI_GPU_STACK);
    constant!(c, "sdf.wgsl", STACK, sl::SDF_GRID_GPU_STACK);
    constant!(c, "adaptive.wgsl", STACK, sl::SDF_ADAPTIVE_GPU_STACK);
    constant!(c, "adaptive.wgsl", NONE, sl::NONE);
    // shared/closest_point.wgsl.
    let features = [
        ("FEATURE_FACE", TriangleFeature::Face),
        ("FEATURE_EDGE01", TriangleFeature::Edge01),
        ("FEATURE_EDGE12", TriangleFeature::Edge12),
        ("FEATURE_EDGE20", TriangleFeature::Edge20),
        ("FEATURE_V0", TriangleFeature::Vertex0),
        ("FEATURE_V1", TriangleFeature::Vertex1),
        ("FEATURE_V2", TriangleFeature::Vertex2),
    ];
    for (wgsl, feature) in features {
        let rust = format!("TriangleFeature::{feature:?} as u32");
        c.constant("sdf.wgsl", wgsl, &rust, (feature as u32).into());
    }
    constant!(c, "sdf.wgsl", SNAP_WEIGHT, geom::SNAP_WEIGHT);
    constant!(c, "sdf.wgsl", SLIVER, geom::SLIVER);
    c.finish();
}

#[test]
fn tritri() {
    let mut c = Checks::default();
    mirror! { c, "tritri.wgsl", "Params", sl::TritriParams {
        num_a, num_b, num_queries, mode, capacity, _pad0, _pad1, _pad2,
    } }
    mirror! { c, "tritri.wgsl", "QueryPose", sl::QueryPose {
        r0 = rows, r1 = rows + 16, r2 = rows + 32,
    } }
    constant!(c, "tritri.wgsl", MODE_ALL_PAIRS, sl::MODE_ALL_PAIRS);
    constant!(c, "tritri.wgsl", MODE_TUTORIAL, sl::MODE_TUTORIAL);
    constant!(c, "tritri.wgsl", WG, sl::TRITRI_WORKGROUP);
    constant!(c, "tritri.wgsl", B_PER_GROUP, sl::B_PER_GROUP);
    let size = [sl::TRITRI_WORKGROUP, 1, 1];
    let entries = ["brute", "pruned", "segments_of_pairs"];
    c.workgroup("tritri.wgsl", &entries, "TRITRI_WORKGROUP", size);
    c.finish();
}

#[test]
fn sampling_and_colliders() {
    let mut c = Checks::default();
    mirror! { c, "sampling.wgsl", "Params", sl::SamplingParams {
        num_vertices, num_edges, num_faces, capacity, cos_tol, step, g_face, g_vnormal,
        g_enormal, t_vfaces, t_evert, t_eoff, t_efaces, t_fedges, edges_on, flat_vertices,
    } }
    for shader in ["sampling.wgsl", "collide.wgsl"] {
        mirror! { c, shader, "Sample", sl::GpuSample { position, kind_sub, normal, feature } }
    }
    constant!(c, "sampling.wgsl", KIND_VERTEX, FeatureKind::Vertex as u32);
    constant!(c, "sampling.wgsl", KIND_EDGE, FeatureKind::Edge as u32);
    let size = [sl::SAMPLING_WORKGROUP, 1, 1];
    let entries = ["vertices", "edges", "labels_init", "labels_propagate"];
    c.workgroup("sampling.wgsl", &entries, "SAMPLING_WORKGROUP", size);

    mirror! { c, "collide.wgsl", "Params", sl::CollidersParams {
        num_tasks, total_threads, capacity, flags, num_groups, pass_kind,
        first_point, contact_threshold,
    } }
    mirror! { c, "collide.wgsl", "Task", sl::Task {
        world_from_a, b_from_world, world_from_b, prim, prim2, kind, body, other, field,
        sample_start, sample_count, thread_start, extra, pair,
        _pad0 = _pad, _pad1 = _pad + 4, _pad2 = _pad + 8,
    } }
    mirror! { c, "collide.wgsl", "FieldInfo", sl::FieldInfo {
        origin, cell_size, dims, offset,
    } }
    mirror! { c, "collide.wgsl", "Contact", sl::GpuContact { point, depth, aux, normal } }
    constant!(
        c,
        "collide.wgsl",
        TASK_SAMPLES_FIELD,
        sl::TASK_SAMPLES_FIELD
    );
    constant!(
        c,
        "collide.wgsl",
        TASK_SAMPLES_PLANE,
        sl::TASK_SAMPLES_PLANE
    );
    constant!(
        c,
        "collide.wgsl",
        TASK_SAMPLES_SPHERE,
        sl::TASK_SAMPLES_SPHERE
    );
    constant!(c, "collide.wgsl", TASK_SAMPLES_BOX, sl::TASK_SAMPLES_BOX);
    constant!(c, "collide.wgsl", PASS_COUNT, sl::PASS_COUNT);
    constant!(c, "collide.wgsl", PASS_WRITE, sl::PASS_WRITE);
    constant!(c, "collide.wgsl", ZERO_NORMAL, sl::ZERO_NORMAL);
    constant!(
        c,
        "collide.wgsl",
        SUMMARY_START,
        sl::COLLIDERS_SUMMARY_START
    );
    constant!(
        c,
        "collide.wgsl",
        TASK_SEGMENT_FIELD,
        sl::TASK_SEGMENT_FIELD
    );
    let size = [sl::COLLIDERS_WORKGROUP, 1, 1];
    c.workgroup(
        "collide.wgsl",
        &["contacts_main", "scan_groups"],
        "COLLIDERS_WORKGROUP",
        size,
    );
    c.finish();
}

#[test]
fn sdf() {
    let mut c = Checks::default();
    mirror! { c, "sdf.wgsl", "Params", sl::SdfGridParams {
        origin, cell_size, dims, num_tris, bricks, band, num_cells,
        write_closest, _pad1 = _pad, _pad2 = _pad + 4,
    } }
    // No padding members: WGSL rounds the size up to the vec3's alignment.
    mirror! { c, "sdf_packet.wgsl", "SlabNode", sl::SlabNode {
        min, a, max, b, normal, lo, hi,
    } }
    constant!(c, "sdf_packet.wgsl", BRICK, sl::BRICK);
    mirror! { c, "sdf_slabs.wgsl", "Params", sl::SlabParams {
        num_nodes, slab_max, _pad1 = _pad, _pad2 = _pad + 4,
    } }
    mirror! { c, "sdf_slabs.wgsl", "SlabNode", sl::SlabNode {
        min, a, max, b, normal, lo, hi, first, end,
    } }
    mirror! { c, "sdf_corners.wgsl", "Params", sl::CornerParams {
        num_tris, _pad1 = _pad, _pad2 = _pad + 4, _pad3 = _pad + 8,
    } }
    let corners = [sl::CORNERS_WORKGROUP, 1, 1];
    c.workgroup(
        "sdf_corners.wgsl",
        &["expand_corners"],
        "CORNERS_WORKGROUP",
        corners,
    );
    let slabs = [sl::SLABS_WORKGROUP, 1, 1];
    c.workgroup("sdf_slabs.wgsl", &["slab_nodes"], "SLABS_WORKGROUP", slabs);
    let size = [sl::SDF_GRID_WORKGROUP, 1, 1];
    c.workgroup("sdf.wgsl", &["brute"], "SDF_GRID_WORKGROUP", size);
    let entries = ["packet_cells", "finish_cells"];
    c.workgroup("sdf_packet.wgsl", &entries, "SDF_GRID_WORKGROUP", size);
    mirror! { c, "sdf_winding.wgsl", "WindingParams", sl::SdfWindingParams {
        origin, cell_size, dims, capacity, frame, slack, direct_budget,
    } }
    mirror! { c, "sdf_winding_cap.wgsl", "CapParams", sl::CapParams {
        origin, cell_size, dims, capacity, frame, slack, mesh_tris, cap_tris, near, beta,
    } }
    mirror! { c, "sdf_winding.wgsl", "WindingNode", sl::WindingNode {
        centroid, radius, normal_sum, area, m0, a, m1, b, m2, _pad,
    } }
    constant!(c, "sdf_winding.wgsl", WINDING_STACK, sl::SDF_WINDING_STACK);
    constant!(
        c,
        "sdf_winding.wgsl",
        REFINE_STEPS,
        sl::WINDING_REFINE_STEPS
    );
    constant!(
        c,
        "sdf_winding.wgsl",
        EXACT_CAPACITY,
        sl::WINDING_EXACT_CAPACITY
    );
    constant!(c, "sdf_winding.wgsl", EXACT_BLOCK, sl::WINDING_EXACT_BLOCK);
    constant!(
        c,
        "sdf_winding.wgsl",
        WALK_TARGET_GROUPS,
        sl::WINDING_WALK_TARGET_GROUPS
    );
    constant!(c, "sdf_winding.wgsl", REFINE_ARGS, sl::WINDING_REFINE_ARGS);
    constant!(c, "sdf_winding.wgsl", WALK_LIST, sl::WINDING_WALK_LIST);
    let refine = [
        "winding_refine_first_args",
        "winding_walk12_parts",
        "winding_walk12_decide",
        "winding_walk32_parts",
        "winding_walk32_decide",
        "winding_exact_parts",
        "winding_exact_decide",
    ];
    for shader in ["sdf_winding.wgsl", "winding_points.wgsl"] {
        let size = [sl::WINDING_REFINE_WORKGROUP as u32, 1, 1];
        c.workgroup(shader, &refine, "REFINE_WORKGROUP", size);
    }
    constant!(
        c,
        "sdf_winding_cap.wgsl",
        WINDING_STACK,
        sl::SDF_WINDING_STACK
    );
    let entries = ["cap_crossings", "cap_prefix", "cap_sign", "cap_walk"];
    let size = [sl::CAP_WORKGROUP, 1, 1];
    c.workgroup("sdf_winding_cap.wgsl", &entries, "CAP_WORKGROUP", size);
    mirror! { c, "winding_points.wgsl", "PointWindingParams", sl::PointWindingParams {
        frame, count, stride, capacity, beta, slack, direct_budget,
    } }
    constant!(
        c,
        "winding_points.wgsl",
        WINDING_STACK,
        sl::POINT_WINDING_STACK
    );
    c.workgroup(
        "winding_points.wgsl",
        &["winding_points"],
        "POINT_WINDING_WORKGROUP",
        [sl::POINT_WINDING_WORKGROUP, 1, 1],
    );
    c.finish();
}

#[test]
fn adaptive_and_rss_bvh() {
    let mut c = Checks::default();
    mirror! { c, "adaptive.wgsl", "Params", sl::SdfAdaptiveParams {
        origin, size, scale, num_tris, start_depth, max_depth, alpha, capacity, parent_bound,
        use_rss, wide_below, _pad0 = _pad, _pad1 = _pad + 4, _pad2 = _pad + 8,
    } }
    mirror! { c, "adaptive.wgsl", "OctreeNode", sl::OctreeNode {
        center, half_size, code, depth, parent, first_child, tri_first, tri_count,
        _pad0 = _pad, _pad1 = _pad + 4,
    } }
    // shared/rss.wgsl, in both modules that include it.
    for shader in ["adaptive.wgsl", "adaptive_rss_bvh.wgsl"] {
        mirror! { c, shader, "RssNode", sl::RssNode {
            center, radius, axis_u, half_u, axis_v, half_v, first, count, left, _pad,
        } }
    }
    constant!(c, "adaptive.wgsl", NODE_COUNT, sl::STATE_NODE_COUNT);
    constant!(c, "adaptive.wgsl", OVERFLOW, sl::STATE_OVERFLOW);
    constant!(c, "adaptive.wgsl", GROUP_COUNT, sl::STATE_GROUP_COUNT);
    constant!(c, "adaptive.wgsl", STATS, sl::STATE_STATS);
    constant!(c, "adaptive.wgsl", QUERY_ARGS, sl::QUERY_ARGS);
    constant!(c, "adaptive.wgsl", WIDE_ARGS, sl::WIDE_ARGS);
    let size = [sl::SDF_ADAPTIVE_WORKGROUP, 1, 1];
    let entries = ["morton", "init_roots", "split", "query", "query_wide"];
    c.workgroup("adaptive.wgsl", &entries, "SDF_ADAPTIVE_WORKGROUP", size);

    mirror! { c, "adaptive_rss_bvh.wgsl", "BuildParams", sl::BuildParams {
        num_tris, group_level, large, axis_approximation, levels, leaf, max_small_depth,
        children,
    } }
    constant!(c, "adaptive_rss_bvh.wgsl", NONE, sl::NONE);
    constant!(c, "adaptive_rss_bvh.wgsl", RSS_SLACK, geom::RSS_SLACK);
    constant!(
        c,
        "adaptive_rss_bvh.wgsl",
        RSS_NODE_COUNT,
        sl::STATE_RSS_NODE_COUNT
    );
    constant!(
        c,
        "adaptive_rss_bvh.wgsl",
        GROUP_COUNT,
        sl::STATE_GROUP_COUNT
    );
    constant!(c, "adaptive_rss_bvh.wgsl", LARGE_ARGS, sl::LARGE_ARGS);
    constant!(c, "adaptive_rss_bvh.wgsl", SMALL_ARGS, sl::SMALL_ARGS);
    c.finish();
}

#[test]
fn broad_phase() {
    let mut c = Checks::default();
    mirror! { c, "broad_phase.wgsl", "Params", siml::BroadParams {
        n, capacity, ground, ground_index, plane,
    } }
    mirror! { c, "broad_phase.wgsl", "Box", siml::BodyBox { lo, flags, hi, body } }
    constant!(c, "broad_phase.wgsl", STATIC, siml::FLAG_STATIC);
    c.finish();
}

#[test]
fn simulate_step() {
    let mut c = Checks::default();
    let shader = "simulate_step.wgsl";
    mirror! { c, shader, "Params", siml::StepParams {
        gravity, dt, plane, bodies, ground, flags, pair_capacity, contact_capacity, contact_threshold,
        recovery_speed, gravity_steps, restitution, friction, baumgarte, slop, margin, damping, _pad3,
        _pad4,
    } }
    mirror! { c, shader, "Body", siml::GpuBody {
        position, inverse_mass, rotation, velocity, shape, angular_velocity, _pad0,
        inverse_inertia, size,
    } }
    mirror! { c, shader, "Shape", siml::GpuShape { lo, sample_start, hi, sample_count } }
    mirror! { c, shader, "Box", siml::BodyBox { lo, flags, hi, body } }
    mirror! { c, shader, "Row", siml::GpuRow {
        position, depth, normal, mass_n, ra, target_speed, rb, acc_n, acc_t, body, other,
        bounce_speed, _pad0 = _pad, _pad1 = _pad + 4,
    } }
    mirror! { c, shader, "Summary", siml::GpuSummary {
        pairs, contacts, max_depth, energy, pair_capacity, contact_capacity,
        _pad0 = _pad, _pad1 = _pad + 4,
    } }
    mirror! { c, shader, "Sample", sl::GpuSample { position, kind_sub, normal, feature } }
    mirror! { c, shader, "FieldInfo", sl::FieldInfo { origin, cell_size, dims, offset } }
    constant!(c, shader, STATIC, siml::FLAG_STATIC);
    constant!(c, shader, ACCUM, siml::STEP_ACCUM);
    constant!(c, shader, SCALE, siml::STEP_SCALE);
    c.finish();
}

#[test]
fn radix_sort() {
    let mut c = Checks::default();
    mirror! { c, "radix_sort.wgsl", "Params", gl::RadixSortParams { n, shift, bits, tiles } }
    constant!(c, "radix_sort.wgsl", TILE, gl::RADIX_TILE);
    constant!(c, "radix_sort.wgsl", RADIX_BITS, gl::RADIX_BITS);
    constant!(c, "radix_sort.wgsl", RADIX, gl::RADIX);
    c.finish();
}

#[test]
fn sdf_points() {
    let mut c = Checks::default();
    mirror! { c, "sdf_points.wgsl", "PointsParams", sl::PointsParams {
        count, _pad, _pad2,
    } }
    constant!(c, "sdf_points.wgsl", POINTS_WORKGROUP, sl::POINTS_WORKGROUP);
    let size = [sl::POINTS_WORKGROUP, 1, 1];
    c.workgroup(
        "sdf_points.wgsl",
        &["exact_points"],
        "POINTS_WORKGROUP",
        size,
    );
    c.finish();
}

#[test]
fn marching_cubes() {
    let mut c = Checks::default();
    mirror! { c, "iso_surface.wgsl", "Params", sl::IsoParams {
        origin, color, cells, cubes, level, blocks, _pad,
    } }
    constant!(c, "iso_surface.wgsl", WORKGROUP, sl::ISO_WORKGROUP);
    constant!(c, "iso_surface.wgsl", CASE_WORDS, sl::ISO_CASE_WORDS as u32);
    constant!(c, "iso_surface.wgsl", SCAN_WG, sl::ISO_WORKGROUP);
    let entries = ["count", "scan_blocks", "emit"];
    c.workgroup(
        "iso_surface.wgsl",
        &entries,
        "ISO_WORKGROUP",
        [sl::ISO_WORKGROUP, 1, 1],
    );
    c.finish();
}

#[test]
fn interfere() {
    let mut c = Checks::default();
    for shader in ["interfere.wgsl", "interfere_cull.wgsl"] {
        mirror! { c, shader, "Uniforms", sl::InterferenceUniforms { clip_from_world, params } }
    }
    vertex! { c, "interfere.wgsl", "vs_edge", sl::EdgeVertex { pos, normal, ids } }
    mirror! { c, "interfere_cull.wgsl", "CullJob", sl::CullJob {
        slot, first_triangle, triangles, first_edge, edges, faces_out, edges_out, pad,
        scissor, region_min, region_max,
    } }
    constant!(c, "interfere_cull.wgsl", GROUP, sl::CULL_GROUP);
    let size = [sl::CULL_GROUP, 1, 1];
    c.workgroup("interfere_cull.wgsl", &["cull"], "CULL_GROUP", size);
    mirror! { c, "interfere_identify.wgsl", "Params", sl::IdentifyParams {
        objects, width, height, pad,
    } }
    let size = [sl::IDENTIFY_GROUP, sl::IDENTIFY_GROUP, 1];
    c.workgroup(
        "interfere_identify.wgsl",
        &["identify"],
        "IDENTIFY_GROUP",
        size,
    );
    for shader in ["interfere_compute.wgsl", "interfere_compute_int64.wgsl"] {
        mirror! { c, shader, "Params", sl::ComputeParams {
            screen_x, screen_y, screen_z, width, height, objects, faces, edges, pair_passes,
            edge_offset, images,
        } }
        mirror! { c, shader, "Edge", sl::ComputeEdge { a, b, na, nb } }
        constant!(c, shader, WORKGROUP, sl::COMPUTE_WORKGROUP);
        constant!(c, shader, REGION_WORDS, sl::COMPUTE_REGION_WORDS);
    }
    let compute = "interfere_compute.wgsl";
    constant!(c, compute, LARGE_GROUP, sl::COMPUTE_LARGE_GROUP);
    constant!(c, compute, SMALL_FACE, sl::COMPUTE_SMALL_FACE);
    constant!(c, compute, TALLY_HEAD, sl::COMPUTE_TALLY_HEAD);
    let size = [sl::COMPUTE_WORKGROUP, 1, 1];
    c.workgroup(
        compute,
        &[
            "edge_depth",
            "edge_ids",
            "count_faces",
            "decode",
            "pair_counts",
        ],
        "COMPUTE_WORKGROUP",
        size,
    );
    let size = [sl::COMPUTE_LARGE_GROUP, 1, 1];
    c.workgroup(compute, &["count_large_faces"], "COMPUTE_LARGE_GROUP", size);
    let size = [sl::COMPUTE_WORKGROUP, 1, 1];
    c.workgroup(
        "interfere_compute_int64.wgsl",
        &["edge_nearest"],
        "COMPUTE_WORKGROUP",
        size,
    );
    c.finish();
}

#[test]
fn view() {
    let mut c = Checks::default();
    mirror! { c, "view.wgsl", "ViewUniforms", vl::ViewUniforms {
        clip_from_world, view_from_world, eye, viewport, clip_plane, cell_params, cell_flags,
    } }
    vertex! { c, "view.wgsl", "vs_mesh", vl::MeshVertex { pos, normal, color } }
    vertex! { c, "view.wgsl", "vs_lines", vl::LineVertex { pos, color } }
    vertex! { c, "view.wgsl", "vs_wire", vl::LineVertex { pos, color } }
    constant!(c, "view.wgsl", FILTER_INSIDE, vl::FILTER_INSIDE);
    constant!(c, "view.wgsl", FILTER_OUTSIDE, vl::FILTER_OUTSIDE);
    constant!(c, "view.wgsl", FILTER_BAND, vl::FILTER_BAND);
    constant!(c, "view.wgsl", FILTER_CLIP, vl::FILTER_CLIP);

    // The colour maps: stop `i` of a ramp is `ColorMap::color` at
    // |value| = i/4 of the range (just below 0 for the inside's first), and
    // case `10·shader_id + 5·side + i` of `ramp_stop` (the default the last).
    let stops = ramp_stops(c.module("view.wgsl"));
    let explicit: Vec<u32> = stops.iter().filter_map(|(v, _)| *v).collect();
    for map in ColorMap::ALL {
        for (side, sign) in [(0, -1.0), (1, 1.0)] {
            for i in 0..5u32 {
                let case = 10 * map.shader_id() + 5 * side + i;
                let value = sign * (i as f32 / 4.0 * 4.0).max(1e-6);
                let rust: Vec<f64> = map.color(value, 4.0)[..3]
                    .iter()
                    .map(|&v| v.into())
                    .collect();
                let wgsl = stops
                    .iter()
                    .find(|(v, _)| *v == Some(case) || (v.is_none() && !explicit.contains(&case)))
                    .map(|(_, rgb)| rgb.clone());
                if wgsl.as_ref() != Some(&rust) {
                    c.problems.push(format!(
                        "view.wgsl `ramp_stop` case {case} / Rust ColorMap::{map:?} side {side} stop {i}: {wgsl:?} in WGSL, {rust:?} in Rust"
                    ));
                }
            }
        }
    }
    c.finish();
}

#[test]
fn radial_particles() {
    use collidoscope::sim::layouts as siml;
    use collidoscope::stages::radial::FieldFrameGpu;
    let mut c = Checks::default();
    mirror! { c, "radial_particles.wgsl", "Params", siml::RadialParticleParams {
        gravity, dt, num_particles, num_fields, substeps, friction, floor, damping,
        _pad0 = _pad, _pad1 = _pad + 4,
    } }
    mirror! { c, "radial_particles.wgsl", "FieldFrame", FieldFrameGpu {
        a, length, u, n_theta, v, n_z, w, offset,
    } }
    constant!(c, "radial_particles.wgsl", WG, siml::RADIAL_WORKGROUP);
    constant!(
        c,
        "radial_particles.wgsl",
        LANES,
        siml::RADIAL_COLLIDE_LANES
    );
    constant!(
        c,
        "radial_particles.wgsl",
        NO_CONTACT,
        siml::RADIAL_NO_CONTACT
    );
    let size = [siml::RADIAL_WORKGROUP, 1, 1];
    c.workgroup(
        "radial_particles.wgsl",
        &["predict", "collide", "update"],
        "RADIAL_WORKGROUP",
        size,
    );
    c.finish();
}

#[test]
fn radial_cloth() {
    use collidoscope::sim::layouts as siml;
    let mut c = Checks::default();
    mirror! { c, "radial_cloth.wgsl", "Params", siml::ClothParams {
        num_particles, stretch, bend, _pad,
    } }
    mirror! { c, "radial_cloth.wgsl", "Link", siml::ClothLink { other, rest, kind, _pad } }
    constant!(c, "radial_cloth.wgsl", WG, siml::RADIAL_WORKGROUP);
    constant!(c, "radial_cloth.wgsl", LINK_BEND, siml::LINK_BEND);
    let size = [siml::RADIAL_WORKGROUP, 1, 1];
    c.workgroup("radial_cloth.wgsl", &["project"], "RADIAL_WORKGROUP", size);
    c.finish();
}

#[test]
fn radial() {
    let mut c = Checks::default();
    mirror! { c, "radial.wgsl", "Params", sl::RadialParams {
        n_theta, n_z, pairs, cells, min_facing, clamp_far, _pad0, _pad1,
    } }
    mirror! { c, "radial.wgsl", "FieldFrame", sl::FieldFrameGpu {
        a, length, u, n_theta, v, n_z, w, offset,
    } }
    constant!(c, "radial.wgsl", CLEAR_GROUP, sl::RADIAL_CLEAR_GROUP);
    constant!(c, "radial.wgsl", INF_BITS, sl::RADIAL_INF_BITS);
    constant!(c, "radial.wgsl", MAX_DISTANCE, sl::RADIAL_MAX_DISTANCE);
    constant!(c, "radial.wgsl", NEAR_AXIS, sl::RADIAL_NEAR_AXIS);
    c.workgroup(
        "radial.wgsl",
        &["clear"],
        "RADIAL_CLEAR_GROUP",
        [sl::RADIAL_CLEAR_GROUP, 1, 1],
    );
    // The compute rasteriser (the same Params, FieldFrame and constants
    // through shared/radial_setup.wgsl).
    mirror! { c, "radial_compute.wgsl", "Params", sl::RadialParams {
        n_theta, n_z, pairs, cells, min_facing, clamp_far, _pad0, _pad1,
    } }
    constant!(
        c,
        "radial_compute.wgsl",
        CLEAR_GROUP,
        sl::RADIAL_CLEAR_GROUP
    );
    constant!(
        c,
        "radial_compute.wgsl",
        RASTER_GROUP,
        sl::RADIAL_RASTER_GROUP
    );
    constant!(
        c,
        "radial_compute.wgsl",
        SMALL_CELLS,
        sl::RADIAL_SMALL_CELLS
    );
    constant!(
        c,
        "radial_compute.wgsl",
        SUBPIXEL,
        1i32 << sl::RADIAL_SUBPIXEL_BITS
    );
    for (entry, size) in [
        ("clear", sl::RADIAL_COMPUTE_CLEAR_GROUP),
        ("raster", sl::RADIAL_RASTER_GROUP),
    ] {
        c.workgroup(
            "radial_compute.wgsl",
            &[entry],
            "the compute rasteriser",
            [size, 1, 1],
        );
    }
    c.finish();
}

#[test]
fn skinning() {
    use collidoscope::sim::radial::character::skinning::{SKIN_GROUP, SkinParams};
    let mut c = Checks::default();
    mirror! { c, "radial_skinning.wgsl", "Params", SkinParams { vertices, joints, clear, _pad } }
    constant!(c, "radial_skinning.wgsl", SKIN_GROUP, SKIN_GROUP);
    c.workgroup(
        "radial_skinning.wgsl",
        &["skin_vertices"],
        "SKIN_GROUP",
        [SKIN_GROUP, 1, 1],
    );
    c.finish();
}

#[test]
fn particles() {
    let mut c = Checks::default();
    for shader in ["particles_eval.wgsl", "particles_map.wgsl"] {
        mirror! { c, shader, "Frame", sl::ParticleFrame {
            t_begin, dt, _pad, restitution, num_particles, num_emitters, num_colliders,
            bounces, capacity, flight_capacity, record_flights, map_res,
        } }
        mirror! { c, shader, "Emitter", sl::ParticleEmitter {
            position, position_jitter, velocity, velocity_jitter, acc, lifetime, first, count,
            seed, _pad,
        } }
        mirror! { c, shader, "Collider", sl::ParticleCollider {
            q, con, half, kinds, map_origin, map_axes,
        } }
        mirror! { c, shader, "Impact", sl::ParticleImpact {
            p, t, n, speed, p0, t0, v0, collider, particle, generation, flight, _pad,
        } }
        mirror! { c, shader, "FlightRecord", sl::ParticleFlight {
            p0, t0, v0, hit, particle, generation, flight, _pad,
        } }
        constant!(c, shader, MAP_LINEAR, sl::ParticleMapKind::Linear as u32);
        constant!(
            c,
            shader,
            MAP_ANGLE_HEIGHT,
            sl::ParticleMapKind::AngleHeight as u32
        );
        constant!(
            c,
            shader,
            MAP_SPHERICAL,
            sl::ParticleMapKind::Spherical as u32
        );
    }
    let size = [sl::PARTICLES_WORKGROUP, 1, 1];
    for (shader, entry) in [
        ("particles_scan.wgsl", "scan_main"),
        ("particles_eval.wgsl", "solve_main"),
    ] {
        constant!(c, shader, WORKGROUP, sl::PARTICLES_WORKGROUP);
        c.workgroup(shader, &[entry], "PARTICLES_WORKGROUP", size);
    }
    c.finish();
}

#[test]
fn radial_alternatives() {
    use collidoscope::sim::layouts as siml;
    let mut c = Checks::default();
    mirror! { c, "radial_hash.wgsl", "HashParams", siml::RadialHashParams {
        num_triangles, num_points, table_size, capacity, cell, reach, num_blocks, _pad,
    } }
    mirror! { c, "radial_bvh.wgsl", "BvhParams", siml::RadialBvhParams {
        num_triangles, num_points, level_start, level_end, reach,
        _pad0 = _pad, _pad1 = _pad + 4, _pad2 = _pad + 8,
    } }
    constant!(c, "radial_hash.wgsl", WG, siml::RADIAL_HASH_WORKGROUP);
    constant!(c, "radial_hash.wgsl", SCAN_WG, siml::RADIAL_HASH_SCAN_GROUP);
    constant!(c, "radial_hash.wgsl", FAR, siml::RADIAL_FAR);
    constant!(c, "radial_bvh.wgsl", WG, siml::RADIAL_BVH_WORKGROUP);
    constant!(c, "radial_bvh.wgsl", FAR, siml::RADIAL_FAR);
    let wg = [siml::RADIAL_HASH_WORKGROUP, 1, 1];
    c.workgroup(
        "radial_hash.wgsl",
        &["clear", "count", "fill", "query"],
        "RADIAL_HASH_WORKGROUP",
        wg,
    );
    let scan = [siml::RADIAL_HASH_SCAN_GROUP, 1, 1];
    c.workgroup(
        "radial_hash.wgsl",
        &["scan_blocks", "scan_totals", "scan_add"],
        "RADIAL_HASH_SCAN_GROUP",
        scan,
    );
    mirror! { c, "radial_bone_sdf.wgsl", "SdfParams", siml::RadialSdfParams {
        num_bones, res, num_points, reach,
    } }
    mirror! { c, "radial_bone_sdf.wgsl", "BoneBox", siml::RadialBoneBox { lo, first, hi, count } }
    constant!(c, "radial_bone_sdf.wgsl", WG, siml::RADIAL_SDF_WORKGROUP);
    constant!(c, "radial_bone_sdf.wgsl", FAR, siml::RADIAL_FAR);
    let wg = [siml::RADIAL_SDF_WORKGROUP, 1, 1];
    c.workgroup(
        "radial_bone_sdf.wgsl",
        &["build", "query"],
        "RADIAL_SDF_WORKGROUP",
        wg,
    );
    let wg = [siml::RADIAL_BVH_WORKGROUP, 1, 1];
    c.workgroup(
        "radial_bvh.wgsl",
        &["gather", "refit", "query"],
        "RADIAL_BVH_WORKGROUP",
        wg,
    );
    c.finish();
}
