//! The winding-number sign on the GPU (`gpu` and `gpu-brute`): every cell
//! signed as the CPU backend and the exact winding number sign it, on open,
//! inward-facing, nested and doubled meshes and random open meshes, with the
//! fast pass and the refining pass on the GPU and only the cells their
//! bounds leave open decided on the CPU.

use crate::common;

use collidoscope::geom::winding_number_exact;
use collidoscope::mesh::{Mesh, PreparedMesh, box_mesh};
use collidoscope::progress::Progress;
use collidoscope::stages::sdf::{
    self, Backend, FieldOutputs, OpenCells, SdfField, SdfGpu, SdfParams, SignMode,
};
use eframe::egui_wgpu::wgpu;
use glam::Vec3;

fn winding_field(mesh: &PreparedMesh, resolution: u32, backend: Backend, gpu: &SdfGpu) -> SdfField {
    let params = SdfParams {
        resolution,
        sign_mode: SignMode::Winding,
        ..SdfParams::default()
    };
    sdf::compute(mesh, &params, backend, Some(gpu), &Progress::default())
        .unwrap_or_else(|e| panic!("{} failed: {e}", backend.name()))
}

/// `mesh` with every triangle wound the other way.
fn inside_out(mesh: &Mesh) -> Mesh {
    let triangles = mesh.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect();
    Mesh::new(mesh.name.clone(), mesh.positions.clone(), triangles)
}

/// The box [-½, ½]³ without its +z face.
fn lidless_box() -> Mesh {
    let cube = box_mesh(2);
    let top = |t: &[u32; 3]| t.iter().all(|&v| cube.positions[v as usize].z > 0.0);
    let triangles = cube.triangles.iter().filter(|t| !top(t)).copied().collect();
    Mesh::new("lidless box", cube.positions.clone(), triangles)
}

/// [`lidless_box`] and a small closed cube above it that centres the
/// bounds on z = ½ + `shift`: at an odd resolution a layer of cell centres
/// lies in that plane. With no shift it is the hole's plane, where w = ½
/// (the cube adds 0), which no float32 bound can decide.
fn open_box(shift: f32) -> Mesh {
    under_a_cube(lidless_box(), shift, "open box")
}

/// `base` (within [-½, ½]³) and a small closed cube above it that centres
/// the bounds on z = ½ + `shift` (see [`open_box`]).
fn under_a_cube(base: Mesh, shift: f32, name: &str) -> Mesh {
    let lid = box_mesh(2).transformed(
        glam::Mat4::from_translation(Vec3::new(0.0, 0.0, 1.375 + 2.0 * shift))
            * glam::Mat4::from_scale(Vec3::splat(0.25)),
    );
    Mesh::merge(&[base, lid], name)
}

/// Both GPU backends and the CPU backend give every cell the exact
/// winding number's side (|w| > ½ inside), the GPU ones from a GPU pass;
/// names the first cell that differs. Returns who decided how many cells:
/// the crossing count and the cap, the refining pass, the CPU.
fn assert_exact_signs(label: &str, mesh: &Mesh, resolution: u32, gpu: &SdfGpu) -> OpenCells {
    let prepared = PreparedMesh::new(mesh).unwrap();
    let (positions, triangles) = (&prepared.mesh.positions, &prepared.mesh.triangles);
    let fields = [Backend::CpuFast, Backend::GpuBrute, Backend::Gpu]
        .map(|b| winding_field(&prepared, resolution, b, gpu));
    let grid = fields[0].grid;
    let mut inside = 0;
    for cell in 0..grid.num_cells() {
        let p = grid.center_of(cell);
        let w = winding_number_exact(positions, triangles, p);
        inside += usize::from(w.abs() > 0.5);
        for f in &fields {
            let v = f.values[cell];
            assert_eq!(
                v.is_sign_negative(),
                w.abs() > 0.5,
                "{label}, {}: cell {cell} ({}) at {p}: value {v}, exact w = {w}",
                f.backend.name(),
                grid.coords(cell)
            );
        }
    }
    assert!(
        inside > 0 && inside < grid.num_cells(),
        "{label}: {inside} inside"
    );
    for f in &fields[1..] {
        assert!(
            f.timings
                .phases
                .iter()
                .any(|p| p.name == "cap winding" && p.wall_ms >= 0.0),
            "{label}, {}: no GPU winding pass in {:?}",
            f.backend.name(),
            f.timings.phases
        );
    }
    let params = fields[2].params;
    let (_, open) = gpu
        .time(&prepared, &params, true, FieldOutputs::ALL)
        .unwrap();
    let open = open.expect("winding mode reports the cells left to the CPU");
    assert!(
        (open.refined + open.cpu) * 20 < grid.num_cells(),
        "{label}: {open:?} of {} cells left open by the crossing count",
        grid.num_cells()
    );
    eprintln!(
        "{label}: of {} cells, {} signed by the crossing count and the cap ({} walked the cap's tree), {} decided by the refining pass, {} on the CPU",
        grid.num_cells(),
        open.counted,
        open.walked,
        open.refined,
        open.cpu
    );
    open
}

#[test]
fn gpu_winding_signs_equal_the_exact_winding_numbers() {
    let ctx = common::gpu();
    let sdf_gpu = SdfGpu::new(&ctx);
    eprintln!(
        "exact GPU step in {}",
        if sdf_gpu.winding_exact_in_f64() {
            "f64"
        } else {
            "float32"
        }
    );
    let cube = box_mesh(2);
    let inner = cube.transformed(glam::Mat4::from_scale(Vec3::splat(0.5)));

    // An open box: w = ½ exactly in the plane of its hole, which no float32
    // bound can decide; the CPU's exact sum does.
    let open = open_box(0.0);
    let cells = assert_exact_signs("open box", &open, 21, &sdf_gpu);
    assert!(cells.cpu > 0, "the hole's plane goes to the exact sum");
    // The layer a twentieth of a cell above the hole's plane: w is within
    // about 0.005 of ½ there, which the cap's exact solid angles decide on
    // the GPU.
    let cell = 2.4 / 21.0;
    let shifted = open_box(0.05 * cell);
    let cells = assert_exact_signs("open box, layer off the sheet", &shifted, 21, &sdf_gpu);
    assert_eq!(cells.cpu, 0, "no cell is within float32 rounding of w = ½");
    // Two small lidless boxes far apart: two caps, and the cells between
    // them signed by the count.
    let small = lidless_box().transformed(glam::Mat4::from_scale(Vec3::splat(0.2)));
    let apart = Mesh::merge(
        &[
            small.transformed(glam::Mat4::from_translation(-Vec3::X)),
            small.transformed(glam::Mat4::from_translation(Vec3::X)),
        ],
        "two boxes",
    );
    let cells = assert_exact_signs("two distant boxes", &apart, 64, &sdf_gpu);
    assert!(
        (cells.refined + cells.cpu) * 100 < cells.counted,
        "the cells are signed by the crossing count: {cells:?}"
    );
    // Only the cells near the two small caps walk them.
    assert!(
        cells.walked * 20 < cells.counted,
        "the cap's bound decides the cells away from the holes: {cells:?}"
    );
    // The same facing inward: w ≈ −5/6 inside, still inside.
    assert_exact_signs("inward open box", &inside_out(&open), 21, &sdf_gpu);
    // A shell in a shell (w = 2 in the middle) and a hollow box.
    assert_exact_signs(
        "nested boxes",
        &Mesh::merge(&[cube.clone(), inner.clone()], "nested"),
        20,
        &sdf_gpu,
    );
    let hollow = Mesh::merge(&[cube.clone(), inside_out(&inner)], "hollow");
    assert_exact_signs("hollow box", &hollow, 20, &sdf_gpu);
    // A face stored once more, wound the other way: the pair cancels.
    let mut paired = cube.clone();
    let [a, b, c] = cube.triangles[3];
    paired.triangles.push([a, c, b]);
    assert_exact_signs("box with a face stored both ways", &paired, 20, &sdf_gpu);
    // A hole as wide as the mesh: the cap's 4³ bricks straddle it, and
    // grids whose sides are no multiple of 4 end in partial bricks (no
    // layer of cell centres on the hole's plane, where w = ½ exactly).
    for resolution in [13, 26] {
        assert_exact_signs(
            &format!("lidless box at {resolution}³, bricks across its hole"),
            &lidless_box(),
            resolution,
            &sdf_gpu,
        );
    }
    // A real open scan.
    assert_exact_signs("teapot", &common::sample("teapot"), 24, &sdf_gpu);
}

/// A device without f64 (here: lavapipe with `SHADER_F64` left out) runs
/// the float32 cap walk and refining passes; their bounds leave more cells
/// open, and whatever they leave the CPU decides, so the signs are still
/// the exact winding number's.
#[test]
fn float32_winding_passes_give_the_exact_signs_without_f64() {
    let ctx = common::gpu_without(wgpu::Features::SHADER_F64);
    let sdf_gpu = SdfGpu::new(&ctx);
    assert!(!sdf_gpu.winding_exact_in_f64());
    let open = assert_exact_signs("open box, float32", &open_box(0.0), 21, &sdf_gpu);
    assert!(open.cpu > 0, "the hole's plane goes to the CPU: {open:?}");
    let cell = 2.4 / 21.0;
    let shifted = open_box(0.05 * cell);
    assert_exact_signs("open box off the sheet, float32", &shifted, 21, &sdf_gpu);
    assert_exact_signs("teapot, float32", &common::sample("teapot"), 24, &sdf_gpu);
    let adaptive_gpu = collidoscope::stages::adaptive::AdaptiveGpu::new(&ctx);
    let pad = (
        2,
        collidoscope::stages::adaptive::AdaptiveParams::default().padding,
    );
    assert_exact_adaptive_signs(
        "open box, adaptive, float32",
        &open_box(0.0),
        pad,
        &adaptive_gpu,
    );
}

/// Cells within a hair of a triangle's plane: a closed box under a cube
/// that puts a layer of cell centres 3e-7 above the box's top face (a few
/// float32 ulps; over the face, not on it). With the corners stored
/// exactly (geom::exact_frame) the refining pass's f64 leaves decide every
/// such cell on the GPU, at β = 12; with the corners' float32 storage
/// error in the bound (2⁻²⁴ of their size: the pair (num, den) off by
/// 1.5e-5 of |a||b||c| here, against 3e-6 for the cell's height) the whole
/// layer went to the exact sum and then to the CPU.
#[test]
fn cells_a_hair_off_a_face_are_decided_on_the_gpu() {
    let ctx = common::gpu();
    let sdf_gpu = SdfGpu::new(&ctx).with_walks_always();
    if !sdf_gpu.winding_exact_in_f64() {
        eprintln!("no f64 on this adapter: the float32 leaves cannot decide such cells");
        return;
    }
    let resolution = 21;
    let mesh = under_a_cube(box_mesh(2), 3e-7, "closed box, a layer 3e-7 above its top");
    let label = "closed box, layer 3e-7 above a face";
    let cells = assert_exact_signs(label, &mesh, resolution, &sdf_gpu);
    // The layer over the face: the cells with |x|, |y| < ½ at a spacing of
    // 2.4/21 (the padded bounds), 9 × 9 of them.
    assert!(
        cells.refined >= 81,
        "the layer reaches the refining pass: {cells:?}"
    );
    assert!(
        cells.by_step[0] >= 81,
        "the β = 12 walk decides the layer: {cells:?}"
    );
    assert_eq!(
        cells.cpu, 0,
        "no cell is within f64 rounding of a face: {cells:?}"
    );
    assert_eq!(cells.by_step[2], 0, "none needs the exact sum: {cells:?}");
    // By default so few open cells on so small a mesh skip the walks: the
    // exact sum decides each of them (winding_refine_first_args).
    let direct = assert_exact_signs(label, &mesh, resolution, &SdfGpu::new(&ctx));
    assert_eq!(direct.refined, cells.refined, "{direct:?}");
    assert_eq!(
        direct.by_step,
        [0, 0, direct.refined],
        "the open cells go straight to the exact sum: {direct:?}"
    );
}

/// Cells a hair off the |w| = ½ sheet of a hole, on a mesh of several
/// blocks of the exact sum: a lidless box of 1,210 triangles (11 × 11
/// quads a face; two blocks of EXACT_BLOCK = 1024) under a cube that puts
/// a layer of cell centres 3e-6 above the hole's plane, where w is within
/// a few 1e-6 of ½ (at 1e-4 off the β = 32 walk decides the whole layer).
/// The cap walk's float32 bound cannot decide them, nor can the β = 12 and
/// 32 walks for the cells nearest the sheet; the exact sum, spread over
/// the device (one workgroup per cell and block, its parts summed by a
/// second pass), decides them on the GPU, every cell with the exact
/// winding number's sign. With its float32 additions counted exactly in
/// the bound (shared/winding_refine.wgsl, winding_exact_part) it decides
/// all 49 on lavapipe; counted as 64 + blocks before, it decided 24 and left
/// 25 within its bound of the sheet to the CPU.
#[test]
fn cells_a_hair_off_the_sheet_are_decided_by_the_exact_sum_over_blocks() {
    let ctx = common::gpu();
    let sdf_gpu = SdfGpu::new(&ctx).with_walks_always();
    if !sdf_gpu.winding_exact_in_f64() {
        eprintln!("no f64 on this adapter: the float32 exact sum cannot decide such cells");
        return;
    }
    let cube = box_mesh(11);
    let top = |t: &[u32; 3]| t.iter().all(|&v| cube.positions[v as usize].z > 0.49);
    let triangles: Vec<[u32; 3]> = cube.triangles.iter().filter(|t| !top(t)).copied().collect();
    assert_eq!(triangles.len(), 1210);
    let lidless = Mesh::new("fine lidless box", cube.positions.clone(), triangles);
    let mesh = under_a_cube(lidless, 3e-6, "fine open box, a layer 3e-6 off the sheet");
    let cells = assert_exact_signs("fine open box, layer off the sheet", &mesh, 21, &sdf_gpu);
    // The layer over the hole: 9 × 9 cells (see cells_a_hair_off_a_face…).
    assert!(
        cells.by_step[2] > 0 && cells.by_step[1] + cells.by_step[2] + cells.cpu >= 81,
        "the walks leave the layer's cells nearest the sheet to the exact sum: {cells:?}"
    );
    assert_eq!(
        cells.cpu, 0,
        "the exact sum's bound decides every cell 3e-6 off the sheet: {cells:?}"
    );
}

/// The open Stanford bunny at 40³ (holes in its base): every cell's GPU
/// sign is the CPU backend's (the exact winding number's, by
/// FastWinding::is_inside), the refining pass leaves no cell to the CPU,
/// and the cap pass walks the cap's tree only for the few cells near the
/// holes (the bound on the cap decides all the others).
#[test]
fn open_bunny_gpu_signs_leave_nothing_to_the_cpu_and_walk_the_cap_only_near_its_holes() {
    let ctx = common::gpu();
    let sdf_gpu = SdfGpu::new(&ctx);
    let mesh = PreparedMesh::new(&common::sample("stanford-bunny")).unwrap();
    let cpu = winding_field(&mesh, 40, Backend::CpuFast, &sdf_gpu);
    let gpu = winding_field(&mesh, 40, Backend::Gpu, &sdf_gpu);
    for (cell, (c, g)) in cpu.values.iter().zip(&gpu.values).enumerate() {
        assert_eq!(
            c.is_sign_negative(),
            g.is_sign_negative(),
            "cell {cell} ({}): cpu {c}, gpu {g}",
            cpu.grid.coords(cell)
        );
    }
    let (_, open) = sdf_gpu
        .time(&mesh, &gpu.params, true, FieldOutputs::ALL)
        .unwrap();
    let open = open.expect("winding mode reports its passes' counts");
    let cells = cpu.grid.num_cells();
    eprintln!("open bunny 40³: {open:?} of {cells} cells");
    if sdf_gpu.winding_exact_in_f64() {
        assert_eq!(open.cpu, 0, "{open:?}");
    }
    assert!(
        open.walked * 20 < cells,
        "{} of {cells} cells walked the cap's tree",
        open.walked
    );
}

#[test]
fn adaptive_winding_signs_equal_the_exact_winding_numbers() {
    use collidoscope::stages::adaptive::{self, AdaptiveGpu, AdaptiveParams};
    let ctx = common::gpu();
    let adaptive_gpu = AdaptiveGpu::new(&ctx);
    let mesh = PreparedMesh::new(&common::sample("teapot")).unwrap();
    let (positions, triangles) = (&mesh.mesh.positions, &mesh.mesh.triangles);
    let params = |sign_mode| AdaptiveParams {
        max_depth: 6,
        sign_mode,
        ..AdaptiveParams::default()
    };
    for backend in [adaptive::Backend::Cpu, adaptive::Backend::Gpu] {
        let run = |sign_mode| {
            adaptive::run(&mesh, &params(sign_mode), backend, Some(&adaptive_gpu))
                .unwrap_or_else(|e| panic!("{backend:?}: {e}"))
        };
        let (winding, pseudo) = (run(SignMode::Winding), run(SignMode::PseudoNormal));
        let exact = |node: &collidoscope::stages::adaptive::OctreeNode| {
            let p = Vec3::from_array(node.center);
            winding_number_exact(positions, triangles, p).abs() > 0.5
        };
        for (i, node) in winding.octree.nodes.iter().enumerate() {
            assert_eq!(
                winding.values[i].is_sign_negative(),
                exact(node),
                "{backend:?}: node {i} (depth {}) at {:?}: value {}",
                node.depth,
                node.center,
                winding.values[i]
            );
        }
        // The GPU appends children in no fixed order: each run's nodes are
        // checked against their own centres.
        let pseudo_wrong = pseudo
            .octree
            .nodes
            .iter()
            .zip(&pseudo.values)
            .filter(|(node, v)| v.is_sign_negative() != exact(node))
            .count();
        // The open teapot's pseudo-normal sign is wrong somewhere: the
        // winding sign fixes real nodes.
        assert!(pseudo_wrong > 0, "{backend:?}");
        eprintln!(
            "{backend:?}: {pseudo_wrong} of {} nodes signed wrongly by pseudo-normal",
            winding.values.len()
        );
    }
}

/// The adaptive field in winding mode on both backends signs every node as
/// the exact winding number does, the GPU backend with its GPU pass (a
/// "winding" phase); names the first node that differs. Returns the GPU
/// run's phases.
fn assert_exact_adaptive_signs(
    label: &str,
    mesh: &Mesh,
    (start_depth, padding): (u32, f32),
    gpu: &collidoscope::stages::adaptive::AdaptiveGpu,
) -> Vec<String> {
    use collidoscope::stages::adaptive::{self, AdaptiveParams};
    let prepared = PreparedMesh::new(mesh).unwrap();
    let (positions, triangles) = (&prepared.mesh.positions, &prepared.mesh.triangles);
    let params = AdaptiveParams {
        start_depth,
        max_depth: 5,
        padding,
        sign_mode: SignMode::Winding,
        ..AdaptiveParams::default()
    };
    let mut phases = Vec::new();
    for backend in adaptive::Backend::ALL {
        let field = adaptive::run(&prepared, &params, backend, Some(gpu))
            .unwrap_or_else(|e| panic!("{label}, {backend:?}: {e}"));
        let mut inside = 0;
        // Each run's nodes by their own centres (the GPU appends children
        // in no fixed order).
        for (i, node) in field.octree.nodes.iter().enumerate() {
            let p = Vec3::from_array(node.center);
            let w = winding_number_exact(positions, triangles, p);
            inside += usize::from(w.abs() > 0.5);
            assert_eq!(
                field.values[i].is_sign_negative(),
                w.abs() > 0.5,
                "{label}, adaptive {backend:?}: node {i} (depth {}) at {p}: value {}, exact w = {w}",
                node.depth,
                field.values[i]
            );
        }
        assert!(inside > 0, "{label}, {backend:?}: no node inside");
        if backend == adaptive::Backend::Gpu {
            phases = field
                .timings
                .phases
                .iter()
                .map(|p| p.name.clone())
                .collect();
            assert!(
                phases.iter().any(|p| p == "winding"),
                "{label}: no GPU winding pass in {phases:?}"
            );
        }
    }
    phases
}

#[test]
fn adaptive_gpu_winding_signs_equal_the_exact_winding_numbers() {
    use collidoscope::stages::adaptive::AdaptiveParams;
    let ctx = common::gpu();
    let adaptive_gpu = collidoscope::stages::adaptive::AdaptiveGpu::new(&ctx);
    let cube = box_mesh(2);
    let inner = cube.transformed(glam::Mat4::from_scale(Vec3::splat(0.5)));
    // The box without its top face under a closed bar x ∈ [-1, 1],
    // z ∈ [1, 1¼]: the octree cube (no padding) is [-1, 1]² × [-⅝, 1⅜],
    // so depth-3 centres (¼ apart) lie in the hole's plane z = ½ at
    // x, y = ±⅛, ±⅜, where w = ½ (the bar adds 0): no float32 bound
    // decides them, the CPU's exact sum does.
    let top = |t: &[u32; 3]| t.iter().all(|&v| cube.positions[v as usize].z > 0.0);
    let holed = cube.triangles.iter().filter(|t| !top(t)).copied().collect();
    let holed = Mesh::new("holed box", cube.positions.clone(), holed);
    let bar = cube.transformed(
        glam::Mat4::from_translation(Vec3::new(0.0, 0.0, 1.125))
            * glam::Mat4::from_scale(Vec3::new(2.0, 0.5, 0.25)),
    );
    let barred = Mesh::merge(&[holed, bar], "holed box under a bar");
    let phases = assert_exact_adaptive_signs("holed box", &barred, (3, 0.0), &adaptive_gpu);
    assert!(
        phases.iter().any(|p| p == sdf::FALLBACK_PHASE),
        "the hole's plane goes to the exact sum: {phases:?}"
    );
    let pad = (2, AdaptiveParams::default().padding);
    assert_exact_adaptive_signs("open box", &open_box(0.0), pad, &adaptive_gpu);
    assert_exact_adaptive_signs(
        "inward open box",
        &inside_out(&open_box(0.0)),
        pad,
        &adaptive_gpu,
    );
    assert_exact_adaptive_signs(
        "nested boxes",
        &Mesh::merge(&[cube.clone(), inner.clone()], "nested"),
        pad,
        &adaptive_gpu,
    );
    let hollow = Mesh::merge(&[cube.clone(), inside_out(&inner)], "hollow");
    assert_exact_adaptive_signs("hollow box", &hollow, pad, &adaptive_gpu);
    let mut paired = cube.clone();
    let [a, b, c] = cube.triangles[3];
    paired.triangles.push([a, c, b]);
    assert_exact_adaptive_signs(
        "box with a face stored both ways",
        &paired,
        pad,
        &adaptive_gpu,
    );
}

/// The winding sign's per-cell buffers (the refining lists, the cap's
/// crossing counts) are kept from run to run, sized for the largest grid so
/// far, and each run clears what it relies on being zero: runs on one stage
/// alternating meshes and grid sizes (large, small, large, and the same run
/// twice) give every cell the exact winding number's side, bit for bit
/// the field of a stage whose buffers are new (released before each run),
/// and the same counts of who decided what. Stale crossings would flip signs; a stale
/// count would list cells twice or leave stale cells to the CPU.
#[test]
fn kept_winding_buffers_sign_later_runs_as_new_buffers_do() {
    let ctx = common::gpu();
    let kept = SdfGpu::new(&ctx);
    let fresh = SdfGpu::new(&ctx);
    let small = lidless_box().transformed(glam::Mat4::from_scale(Vec3::splat(0.2)));
    let apart = Mesh::merge(
        &[
            small.transformed(glam::Mat4::from_translation(-Vec3::X)),
            small.transformed(glam::Mat4::from_translation(Vec3::X)),
        ],
        "two boxes",
    );
    let runs = [
        ("two distant boxes", &apart, 64),
        ("open box", &open_box(0.0), 21),
        ("two distant boxes again", &apart, 64),
        ("teapot", &common::sample("teapot"), 24),
    ];
    for (label, mesh, resolution) in runs {
        let prepared = PreparedMesh::new(mesh).unwrap();
        let (positions, triangles) = (&prepared.mesh.positions, &prepared.mesh.triangles);
        fresh.release_mesh();
        let expected = winding_field(&prepared, resolution, Backend::Gpu, &fresh);
        let field = winding_field(&prepared, resolution, Backend::Gpu, &kept);
        for cell in 0..field.grid.num_cells() {
            let (v, e) = (field.values[cell], expected.values[cell]);
            let p = field.grid.center_of(cell);
            let w = winding_number_exact(positions, triangles, p);
            assert!(
                v.to_bits() == e.to_bits() && v.is_sign_negative() == (w.abs() > 0.5),
                "{label} at {resolution}³, kept buffers: cell {cell} ({}) at {p}: value {v}, \
                 with new buffers {e}, exact w = {w}",
                field.grid.coords(cell)
            );
        }
        let params = field.params;
        fresh.release_mesh();
        let counts = [&fresh, &kept].map(|g| {
            let (_, open) = g.time(&prepared, &params, true, FieldOutputs::ALL).unwrap();
            open.expect("winding mode counts the open cells")
        });
        assert_eq!(
            counts[1], counts[0],
            "{label} at {resolution}³: kept buffers' counts (right) against new ones' (left)"
        );
        if label.starts_with("open box") {
            assert!(
                counts[1].cpu > 0,
                "{label}: the hole's plane goes to the CPU"
            );
        }
    }
}

/// The points' winding sign (the adaptive field's nodes) keeps its lists
/// from run to run as the grid's does: runs on one stage alternating meshes
/// and octree depths (many nodes, few, many) sign every node as the exact
/// winding number does and count the nodes each step decided as a new
/// stage does.
#[test]
fn kept_point_lists_sign_later_adaptive_runs_as_new_lists_do() {
    use collidoscope::stages::adaptive::{self, AdaptiveGpu, AdaptiveParams};
    let ctx = common::gpu();
    let kept = AdaptiveGpu::new(&ctx);
    let open = open_box(0.0);
    let runs = [
        ("open box", &open, 6),
        ("nested boxes", &box_mesh(2), 3),
        ("open box again", &open, 6),
        ("teapot", &common::sample("teapot"), 5),
    ];
    for (label, mesh, max_depth) in runs {
        let prepared = PreparedMesh::new(mesh).unwrap();
        let (positions, triangles) = (&prepared.mesh.positions, &prepared.mesh.triangles);
        let params = AdaptiveParams {
            start_depth: 2,
            max_depth,
            sign_mode: SignMode::Winding,
            ..AdaptiveParams::default()
        };
        let field = adaptive::run(&prepared, &params, adaptive::Backend::Gpu, Some(&kept))
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        for (i, node) in field.octree.nodes.iter().enumerate() {
            let p = Vec3::from_array(node.center);
            let w = winding_number_exact(positions, triangles, p);
            assert_eq!(
                field.values[i].is_sign_negative(),
                w.abs() > 0.5,
                "{label}, depth {max_depth}, kept lists: node {i} at {p}: value {}, exact w = {w}",
                field.values[i]
            );
        }
        let fresh = AdaptiveGpu::new(&ctx);
        let counts = [&fresh, &kept].map(|g| g.time(&prepared, &params).unwrap().1);
        assert_eq!(
            counts[1], counts[0],
            "{label}, depth {max_depth}: kept lists' counts (right) against new ones' (left)"
        );
        assert!(
            counts[1].is_some(),
            "{label}: winding mode counts the open nodes"
        );
    }
}

/// The open cube [-½, ½]³ without its +z face, `k`×`k` quads a face, every
/// vertex moved by up to `jitter` along each axis, from `seed`: the grid
/// spans the hole's mouth, where w crosses ½ away from the surface.
fn random_open_box(seed: u64, k: u32, jitter: f32) -> Mesh {
    let cube = box_mesh(k);
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    let top = |t: &[u32; 3]| t.iter().all(|&v| cube.positions[v as usize].z > 0.49);
    let triangles: Vec<[u32; 3]> = cube.triangles.iter().filter(|t| !top(t)).copied().collect();
    let positions = cube
        .positions
        .iter()
        .map(|&p| p + Vec3::new(next(), next(), next()) * jitter)
        .collect();
    Mesh::new("random open box", positions, triangles)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(6))]
    /// Random jittered open boxes: the GPU sign of every cell, the sheet over
    /// the hole included, is the exact winding number's.
    #[test]
    fn gpu_winding_signs_are_exact_on_random_open_meshes(
        seed in 1u64..u64::MAX,
        k in 2u32..5,
        jitter in 0.0f32..0.08,
        resolution in 13u32..19,
    ) {
        let ctx = common::gpu();
        let sdf_gpu = SdfGpu::new(&ctx);
        let prepared = PreparedMesh::new(&random_open_box(seed, k, jitter)).unwrap();
        let (positions, triangles) = (&prepared.mesh.positions, &prepared.mesh.triangles);
        let field = winding_field(&prepared, resolution, Backend::Gpu, &sdf_gpu);
        for cell in 0..field.grid.num_cells() {
            let p = field.grid.center_of(cell);
            let w = winding_number_exact(positions, triangles, p);
            proptest::prop_assert_eq!(
                field.values[cell].is_sign_negative(),
                w.abs() > 0.5,
                "cell {} at {}: value {}, exact w = {}",
                cell,
                p,
                field.values[cell],
                w
            );
        }
    }
}

/// More points left open by the first pass than a walk step once took
/// (WALK_CAPACITY = 16,384 items; the rest went to the CPU's exact sum one
/// by one, 24,000 of the ogre's octree nodes at depth 8):
/// 22,500 points 1e-4 above the hole of a lidless box, where w is within
/// about 1e-4 of ½, past the float32 first pass's bound and within the f64
/// walks'. Every point is decided on the GPU, on the exact winding
/// number's side.
#[test]
fn more_open_points_than_a_walk_took_are_decided_on_the_gpu() {
    let ctx = common::gpu();
    let sdf_gpu = SdfGpu::new(&ctx);
    if !sdf_gpu.winding_exact_in_f64() {
        eprintln!("no f64 on this adapter: the float32 walks cannot decide such points");
        return;
    }
    let prepared = PreparedMesh::new(&lidless_box()).unwrap();
    let side = 150;
    let at = |k: usize| -0.45 + 0.9 * k as f32 / (side - 1) as f32;
    let points: Vec<Vec3> = (0..side * side)
        .map(|k| Vec3::new(at(k % side), at(k / side), 0.5 + 1e-4))
        .collect();
    let collidoscope::stages::sdf::PointsRun {
        values,
        cpu_signed: cpu,
        ..
    } = sdf_gpu.exact_at_points(&prepared, &points).unwrap();
    let (positions, triangles) = (&prepared.mesh.positions, &prepared.mesh.triangles);
    for (i, p) in points.iter().enumerate() {
        let w = winding_number_exact(positions, triangles, *p);
        assert_eq!(
            values[i].is_sign_negative(),
            w.abs() > 0.5,
            "point {i} at {p}: value {}, exact w = {w}",
            values[i]
        );
    }
    assert_eq!(cpu, 0, "points left to the CPU");
}

/// On a device with f64 the points' first pass evaluates the leaves it
/// opens in f64 (shaders/winding_points_f64.wgsl), as the refining steps
/// do: near a dense surface the float32 leaves' bounds left most points to
/// the refining steps (the 1.1 M-triangle bunny's octree: 4.5 M of 4.6 M
/// nodes). The bunny's octree at depth 7: the f64 first pass leaves far
/// fewer nodes open than a float32 one (a device without f64), and both
/// sign every node as the CPU does.
#[test]
fn the_f64_first_pass_leaves_fewer_points_open_than_float32() {
    use collidoscope::stages::adaptive::{self, AdaptiveGpu, AdaptiveParams};
    let mesh = PreparedMesh::new(&common::sample("stanford-bunny")).unwrap();
    let params = AdaptiveParams {
        max_depth: 7,
        sign_mode: SignMode::Winding,
        ..AdaptiveParams::default()
    };
    let cpu = adaptive::run(&mesh, &params, adaptive::Backend::Cpu, None).unwrap();
    let open_with = |ctx: &collidoscope::gpu::GpuContext| {
        let gpu = AdaptiveGpu::new(ctx);
        let field = adaptive::run(&mesh, &params, adaptive::Backend::Gpu, Some(&gpu)).unwrap();
        assert_eq!(field.octree.nodes.len(), cpu.octree.nodes.len());
        let (_, open) = gpu.time(&mesh, &params).unwrap();
        (field, open.expect("winding mode reports its counts"))
    };
    let f64_ctx = common::gpu();
    if !SdfGpu::new(&f64_ctx).winding_exact_in_f64() {
        eprintln!("no f64 on this adapter: nothing to compare");
        return;
    }
    let (with_f64, open_f64) = open_with(&f64_ctx);
    let (with_f32, open_f32) = open_with(&common::gpu_without(wgpu::Features::SHADER_F64));
    eprintln!(
        "bunny octree, {} nodes: open after the first pass {} (f64 leaves), {} (float32)",
        cpu.octree.nodes.len(),
        open_f64.refined + open_f64.cpu,
        open_f32.refined + open_f32.cpu
    );
    assert!(
        3 * (open_f64.refined + open_f64.cpu) < open_f32.refined + open_f32.cpu,
        "f64 {open_f64:?}, float32 {open_f32:?}"
    );
    // Nodes by their centres: the GPU appends children in no fixed order.
    let signs = |f: &adaptive::AdaptiveField| {
        let mut s: Vec<([u32; 3], bool)> = f
            .octree
            .nodes
            .iter()
            .zip(&f.values)
            .map(|(n, v)| (n.center.map(f32::to_bits), v.is_sign_negative()))
            .collect();
        s.sort();
        s
    };
    let expected = signs(&cpu);
    assert!(
        signs(&with_f64) == expected,
        "f64 signs differ from the CPU's"
    );
    assert!(
        signs(&with_f32) == expected,
        "float32 signs differ from the CPU's"
    );
}
