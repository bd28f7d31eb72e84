//! The CPU reference: every cube in order, the same table and vertex
//! formula as the GPU.

use glam::{UVec3, Vec3};
use rayon::prelude::*;

use super::{FieldGrid, edge_vertex, table};

/// The triangles of the level set `level` of `field`, in cube order.
pub fn extract_cpu(field: FieldGrid<'_>, level: f32) -> Vec<[Vec3; 3]> {
    let d = field.cube_dims();
    let grid = &field.grid;
    // One z-slab of cubes per task, joined in order.
    (0..d.z)
        .into_par_iter()
        .flat_map_iter(|k| {
            let mut out = Vec::new();
            for j in 0..d.y {
                for i in 0..d.x {
                    let cube = UVec3::new(i, j, k);
                    let corner_value = |c: usize| {
                        let o = UVec3::new(c as u32 & 1, c as u32 >> 1 & 1, c as u32 >> 2 & 1);
                        field.values[grid.index(cube + o)]
                    };
                    let values: [f32; 8] = std::array::from_fn(corner_value);
                    let case =
                        (0..8).fold(0u8, |case, c| case | (u8::from(values[c] < level) << c));
                    for tri in table::triangles(case) {
                        out.push(tri.map(|e| {
                            let (a, b) = table::edge_corners(e as usize);
                            edge_vertex(grid, cube, e as usize, values[a], values[b], level)
                        }));
                    }
                }
            }
            out
        })
        .collect()
}
