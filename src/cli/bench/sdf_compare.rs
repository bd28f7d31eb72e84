//! `bench sdf`'s exactness check: a field against the CPU fast backend's in
//! the same sign mode — the largest difference of magnitudes, and the cells
//! whose sign differs, the first few of them printed with where they are,
//! both values and the exact winding number there (who is right).
//!
//! A sign is the sign bit: a winding-mode cell on the surface (distance 0)
//! is `-0.0` inside, so a backend that finds it a hair off the surface
//! (`-1e-8`) agrees with one that finds it on it.

use crate::mesh::PreparedMesh;
use crate::stages::sdf::SdfField;

/// Mismatched cells printed per row.
const SHOWN: usize = 5;

/// `(max |Δ| of magnitudes, sign mismatches)` of `field` against `cpu`
/// (same grid), printing the first mismatches.
pub fn against_cpu(mesh: &PreparedMesh, field: &SdfField, cpu: &SdfField) -> (f32, usize) {
    let max = field
        .values
        .iter()
        .zip(&cpu.values)
        .map(|(a, b)| (a.abs() - b.abs()).abs())
        .fold(0.0, f32::max);
    let mismatched: Vec<usize> = field
        .values
        .iter()
        .zip(&cpu.values)
        .enumerate()
        .filter(|(_, (a, b))| a.is_sign_negative() != b.is_sign_negative())
        .map(|(c, _)| c)
        .collect();
    let local = field.grid.to_local(&mesh.frame());
    for &c in mismatched.iter().take(SHOWN) {
        let ijk = field.grid.coords(c);
        let w = mesh.local().winding().exact(local.center_of(c));
        eprintln!(
            "  sign mismatch at cell {c} {ijk} (centre {}): {} {} vs cpu {}, exact w = {w}",
            field.grid.center_of(c),
            field.backend.name(),
            field.values[c],
            cpu.values[c],
        );
    }
    let zero_sided = field
        .values
        .iter()
        .zip(&cpu.values)
        .filter(|(a, b)| a.is_sign_negative() == b.is_sign_negative() && (**a < 0.0) != (**b < 0.0))
        .count();
    if zero_sided > 0 {
        eprintln!(
            "  {zero_sided} cells have the same sign but are ±0 on one side (not mismatches)"
        );
    }
    (max, mismatched.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::sdf::{Backend, GridSpec, SdfParams};
    use glam::{UVec3, Vec3};

    fn field(backend: Backend, values: Vec<f32>) -> SdfField {
        SdfField {
            grid: GridSpec {
                origin: Vec3::ZERO,
                cell_size: 0.5,
                dims: UVec3::new(values.len() as u32, 1, 1),
            },
            params: SdfParams::default(),
            backend,
            values,
            closest: Vec::new(),
            distance_evaluations: 0,
            timings: Default::default(),
        }
    }

    /// A cell on the surface (`-0.0` inside) agrees with a hair inside;
    /// a flipped sign counts, and the magnitudes' largest difference is
    /// reported.
    #[test]
    fn a_signed_zero_agrees_and_a_flipped_sign_counts() {
        let mesh = PreparedMesh::new(&crate::mesh::box_mesh(1)).expect("a box");
        let cpu = field(Backend::CpuFast, vec![-0.0, 0.25, -2.0, 1.0]);
        let gpu = field(Backend::Gpu, vec![-1e-8, -0.25, -2.0, 1.5]);
        let (max, mismatches) = against_cpu(&mesh, &gpu, &cpu);
        assert_eq!(mismatches, 1);
        assert_eq!(max, 0.5);
    }
}
