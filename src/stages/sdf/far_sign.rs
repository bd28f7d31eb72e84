//! The finishing step shared by every backend: signs of far cells, and the
//! winding-number sign mode.
//!
//! *Far cells* (outside the narrow band) carry no closest triangle. With the
//! band at least one cell wide, two 6-neighbouring far cells cannot lie on
//! opposite sides of the surface: a surface crossing the segment between
//! their centres (length h) would be within h/2 of one of them. So every
//! 6-connected component of far cells has one sign, which one exactly
//! evaluated representative decides (a full BVH query, pseudo-normal sign).
//!
//! In *winding* mode (the CPU backends here; the GPU backends sign on the
//! GPU, [`super::winding_gpu`]) every cell's sign is the generalised
//! winding number's:
//! inside where |w| > ½ (an inward-facing closed mesh has w = −1 inside),
//! decided by [`crate::geom::FastWinding::is_inside`], whose fast evaluation
//! falls back to the exact sum where its error bound leaves the side open,
//! so the sign is the exact winding number's. Magnitudes stay untouched.

use std::time::Instant;

use rayon::prelude::*;

use super::cpu::{nearest_triangle, signed_cell};
use super::{FAR, SdfField, SignMode};
use crate::mesh::PreparedMesh;

pub(super) fn finish_signs(mesh: &PreparedMesh, field: &mut SdfField) {
    let start = Instant::now();
    let mut touched = false;
    if field.params.sign_mode == SignMode::Winding {
        let points: Vec<_> = (0..field.grid.num_cells())
            .map(|c| field.grid.center_of(c))
            .collect();
        let inside = mesh.winding().inside_flags(&points);
        field
            .values
            .par_iter_mut()
            .zip(inside)
            .for_each(|(v, inside)| {
                let magnitude = v.abs();
                *v = if inside { -magnitude } else { magnitude };
            });
        touched = true;
    } else if field.params.band.is_some() && field.closest.contains(&FAR) {
        sign_far_components(mesh, field);
        touched = true;
    }
    if touched {
        field
            .timings
            .push("sign", start.elapsed().as_secs_f64() * 1e3, None);
    }
}

fn sign_far_components(mesh: &PreparedMesh, field: &mut SdfField) {
    let grid = field.grid;
    let n = grid.num_cells();
    let dims = grid.dims;
    let mut visited = vec![false; n];
    let mut stack = Vec::new();
    let mut component = Vec::new();
    for start in 0..n {
        if visited[start] || field.closest[start] != FAR {
            continue;
        }
        // Flood the component, then sign it from its first cell.
        visited[start] = true;
        stack.push(start);
        component.clear();
        while let Some(c) = stack.pop() {
            component.push(c);
            let ijk = grid.coords(c);
            let neighbours = [
                (ijk.x > 0).then(|| c - 1),
                (ijk.x + 1 < dims.x).then(|| c + 1),
                (ijk.y > 0).then(|| c - dims.x as usize),
                (ijk.y + 1 < dims.y).then(|| c + dims.x as usize),
                (ijk.z > 0).then(|| c - (dims.x * dims.y) as usize),
                (ijk.z + 1 < dims.z).then(|| c + (dims.x * dims.y) as usize),
            ];
            for nb in neighbours.into_iter().flatten() {
                if !visited[nb] && field.closest[nb] == FAR {
                    visited[nb] = true;
                    stack.push(nb);
                }
            }
        }
        let p = grid.center_of(start);
        let sign = nearest_triangle(mesh, p, f32::INFINITY, &mut 0)
            .map_or(1.0, |(t, d2)| signed_cell(mesh, p, t, d2).0.signum());
        for &c in &component {
            field.values[c] = sign * field.values[c].abs();
        }
    }
}
