//! The winding-number sign on open meshes whose |w| is near ½ over large
//! regions — a sphere with a missing cap, a sphere with a slit, a scan-like
//! open shell with noise and drop-outs (`common::open_meshes`, the grid
//! benchmark's meshes at a small size): every cell of the CPU and both GPU
//! backends signed as the exact winding number signs it, and how many
//! cells each of the GPU's passes decided.

use crate::common;
use crate::common::open_meshes::{NAMES, open_mesh};
use crate::sdf_winding::assert_exact_signs;

use collidoscope::stages::sdf::SdfGpu;

#[test]
fn open_meshes_near_one_half_get_the_exact_winding_signs() {
    let ctx = common::gpu();
    let sdf_gpu = SdfGpu::new(&ctx);
    for name in NAMES {
        let mesh = open_mesh(name, 12);
        assert!(
            mesh.triangles.len() > 300,
            "{name}: {} triangles",
            mesh.triangles.len()
        );
        for resolution in [20, 27] {
            let cells = assert_exact_signs(
                &format!("{name} {resolution}³"),
                &mesh,
                resolution,
                &sdf_gpu,
            );
            eprintln!(
                "{name} {resolution}³: {} walked the cap, {} reached the refining pass \
                 (β12 decided {}, β32 {}, the exact sum {}), {} left to the CPU",
                cells.walked,
                cells.refined,
                cells.by_step[0],
                cells.by_step[1],
                cells.by_step[2],
                cells.cpu
            );
        }
    }
}

/// The generator leaves the holes where it says: the capless sphere and
/// the scan open along a whole ring, the slit along one slice's width, and
/// no edge shared by more than two triangles.
#[test]
fn open_meshes_are_open_where_they_say() {
    use std::collections::HashMap;
    for name in NAMES {
        let mesh = open_mesh(name, 12);
        let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
        for t in &mesh.triangles {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
        let boundary = edges.values().filter(|&&c| c == 1).count();
        assert!(edges.values().all(|&c| c <= 2), "{name}");
        // 24 slices around; the slit is 1/16 of them (1) wide over bands 2..10.
        let least = match name {
            "slit-sphere" => 2 * 8 + 2,
            _ => 24,
        };
        assert!(boundary >= least, "{name}: {boundary} boundary edges");
    }
}
