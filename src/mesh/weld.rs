//! Vertex welding: merge vertices that are (nearly) at the same place.
//!
//! OBJ exporters often split vertices along UV seams or between groups, which
//! makes a closed surface look open to [`Topology`](super::Topology). Welding
//! merges every vertex that lies within `h = relative_tolerance × (bounds
//! diagonal)` of an earlier kept vertex into it.
//!
//! Method: a spatial hash of grid cells of side slightly above `h`, so any
//! vertex within `h` of a query lies in one of the 27 cells around it.
//! Vertices are visited in order; each is compared (exact distance) with the
//! kept vertices of the neighbouring cells and merged into the lowest-index
//! one within `h`, or else kept. Hence it is deterministic and the first
//! occurrence wins; kept vertices are pairwise more than `h` apart, so
//! welding is idempotent.
//!
//! ```text
//! before: v0 v1 v2 v3 v4      (v3 ≈ v1)
//! after:  v0 v1 v2 v4         remap: 0→0 1→1 2→2 3→1 4→3
//! ```
//!
//! Vertex order is otherwise kept; unused vertices are kept too (dropping
//! them is not welding's business). Triangles are remapped, and those whose
//! corners collapse onto a repeated index are dropped and counted.

use glam::Vec3;

use super::Mesh;
use super::fast_hash::FastMap;

/// Relative tolerance for [`Mesh::weld`] used by reports and the CLI: merges
/// exact and float-noise duplicates without touching real detail.
pub const DEFAULT_WELD_TOLERANCE: f32 = 1e-6;

/// The result of [`Mesh::weld`].
#[derive(Clone, Debug)]
pub struct Welded {
    pub mesh: Mesh,
    pub vertices_before: usize,
    pub vertices_after: usize,
    /// Triangles dropped because two or more corners merged.
    pub collapsed_triangles: usize,
}

impl Mesh {
    /// Merges vertices within `relative_tolerance × bounds diagonal` of each
    /// other (see the module doc). A tolerance of 0 merges exact duplicates.
    pub fn weld(&self, relative_tolerance: f32) -> Welded {
        let h = relative_tolerance.max(0.0) * self.bounds().diagonal();
        let h = if h.is_finite() { h } else { 0.0 };
        let remap = if h > 0.0 {
            weld_within(&self.positions, h)
        } else {
            weld_exact(&self.positions)
        };
        let mut positions = Vec::new();
        // New indices are handed out in order, so a vertex is kept exactly
        // when its new index is the next one.
        for (&r, &p) in remap.iter().zip(&self.positions) {
            if r as usize == positions.len() {
                positions.push(p);
            }
        }
        let mut triangles = Vec::with_capacity(self.triangles.len());
        let mut collapsed_triangles = 0;
        for tri in &self.triangles {
            // Out-of-range indices (an unvalidated mesh) are kept as they are.
            let [a, b, c] = tri.map(|i| remap.get(i as usize).copied().unwrap_or(i));
            if a == b || b == c || c == a {
                collapsed_triangles += 1;
            } else {
                triangles.push([a, b, c]);
            }
        }
        Welded {
            vertices_before: self.positions.len(),
            vertices_after: positions.len(),
            mesh: Mesh::new(self.name.clone(), positions, triangles),
            collapsed_triangles,
        }
    }
}

/// New index of every vertex, merging bitwise-equal positions (+0 and -0
/// count as equal; NaN never merges).
fn weld_exact(positions: &[Vec3]) -> Vec<u32> {
    let mut seen: FastMap<[u32; 3], u32> = FastMap::default();
    let mut kept = 0u32;
    positions
        .iter()
        .map(|p| {
            if p.is_nan() {
                kept += 1;
                return kept - 1;
            }
            let key = (*p + Vec3::ZERO).to_array().map(f32::to_bits);
            *seen.entry(key).or_insert_with(|| {
                kept += 1;
                kept - 1
            })
        })
        .collect()
}

/// New index of every vertex, merging into the lowest-index kept vertex
/// within distance `h` (`h > 0`).
fn weld_within(positions: &[Vec3], h: f32) -> Vec<u32> {
    // 1% slack so rounding in `p / cell` never hides a neighbour two cells away.
    let cell = h * 1.01;
    let cell_of = |p: Vec3| -> [i64; 3] { (p / cell).floor().to_array().map(|c| c as i64) };
    let mut grid: FastMap<[i64; 3], Vec<u32>> = FastMap::default();
    let mut kept_positions: Vec<Vec3> = Vec::new();
    let h2 = h * h;
    positions
        .iter()
        .map(|&p| {
            let [x, y, z] = cell_of(p);
            let mut best: Option<u32> = None;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let key = [
                            x.saturating_add(dx),
                            y.saturating_add(dy),
                            z.saturating_add(dz),
                        ];
                        for &k in grid.get(&key).map_or(&[][..], Vec::as_slice) {
                            if kept_positions[k as usize].distance_squared(p) <= h2
                                && best.is_none_or(|b| k < b)
                            {
                                best = Some(k);
                            }
                        }
                    }
                }
            }
            best.unwrap_or_else(|| {
                let k = kept_positions.len() as u32;
                kept_positions.push(p);
                grid.entry([x, y, z]).or_default().push(k);
                k
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Two triangles of a quad with the shared edge's vertices duplicated,
    /// one copy off by float noise.
    fn split_quad() -> Mesh {
        Mesh::new(
            "split",
            vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.0, 1.0 + 1e-6, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
            ],
            vec![[0, 1, 2], [3, 4, 5]],
        )
    }

    #[test]
    fn merges_duplicates_and_reports_counts() {
        let w = split_quad().weld(DEFAULT_WELD_TOLERANCE);
        assert_eq!(w.vertices_before, 6);
        assert_eq!(w.vertices_after, 4);
        assert_eq!(w.collapsed_triangles, 0);
        assert_eq!(w.mesh.triangles, vec![[0, 1, 2], [0, 2, 3]]);
        assert_eq!(w.mesh.positions[3], Vec3::new(0.0, 1.0, 0.0));
    }

    #[test]
    fn exact_weld_keeps_near_duplicates_apart() {
        let w = split_quad().weld(0.0);
        assert_eq!(w.vertices_after, 5);
        assert_eq!(w.mesh.triangles, vec![[0, 1, 2], [0, 3, 4]]);
    }

    #[test]
    fn drops_collapsed_triangles_and_keeps_unused_vertices() {
        let mut m = split_quad();
        m.positions.push(Vec3::new(5.0, 5.0, 5.0)); // unused
        m.positions.push(Vec3::new(1.0, 1e-7, 0.0)); // ≈ v1
        m.triangles.push([1, 7, 2]);
        let w = m.weld(1e-6);
        assert_eq!(w.collapsed_triangles, 1, "{w:?}");
        assert_eq!(w.mesh.triangles.len(), 2);
        assert_eq!(w.vertices_after, 5);
        assert_eq!(w.mesh.positions[4], Vec3::new(5.0, 5.0, 5.0));
    }

    #[test]
    fn first_occurrence_wins() {
        let m = Mesh::new(
            "chain",
            vec![
                Vec3::ZERO,
                Vec3::new(0.6, 0.0, 0.0),
                Vec3::new(1.2, 0.0, 0.0),
            ],
            vec![[0, 1, 2]],
        );
        // h = 0.5 × 1.2 = 0.6: v1 joins v0; v2 is 1.2 from v0 (the kept one), so stays.
        let w = m.weld(0.5);
        assert_eq!(w.vertices_after, 2);
        assert_eq!(w.mesh.positions, vec![Vec3::ZERO, Vec3::new(1.2, 0.0, 0.0)]);
        assert_eq!(w.collapsed_triangles, 1);
    }

    fn arb_mesh() -> impl Strategy<Value = Mesh> {
        // Coordinates on a coarse lattice so that duplicates are common.
        let point = (0i32..6, 0i32..6, 0i32..6)
            .prop_map(|(x, y, z)| Vec3::new(x as f32, y as f32, z as f32) * 0.25);
        (prop::collection::vec(point, 3..40), any::<u64>()).prop_map(|(positions, seed)| {
            let n = positions.len() as u64;
            let triangles = (0..positions.len() as u64)
                .map(|t| {
                    let h = seed.wrapping_mul(t + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    [h % n, (h >> 20) % n, (h >> 40) % n].map(|i| i as u32)
                })
                .collect();
            Mesh::new("prop", positions, triangles)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn welding_is_idempotent(mesh in arb_mesh(), tol in prop_oneof![Just(0.0f32), Just(1e-6), 0.01f32..0.3]) {
            let once = mesh.weld(tol);
            let twice = once.mesh.weld(tol);
            prop_assert_eq!(twice.collapsed_triangles, 0);
            prop_assert_eq!(&twice.mesh.positions, &once.mesh.positions);
            prop_assert_eq!(&twice.mesh.triangles, &once.mesh.triangles);
            // Brute force: no two kept vertices within the tolerance.
            let h = tol * mesh.bounds().diagonal();
            let p = &once.mesh.positions;
            for i in 0..p.len() {
                for j in i + 1..p.len() {
                    prop_assert!(p[i].distance_squared(p[j]) > h * h, "vertices {} and {} within {}", i, j, h);
                }
            }
        }
    }
}
