//! Vertex welding: merge vertices that are (nearly) at the same place.
//!
//! OBJ exporters often split vertices along UV seams or between groups, which
//! makes a closed surface look open to [`Topology`](super::Topology). Welding
//! merges every vertex that lies within `h = relative_tolerance × (bounds
//! diagonal)` of an earlier kept vertex into it.
//!
//! Method: a spatial hash of grid cells of side slightly above `2h`, so any
//! vertex within `h` of a query lies in one of the (at most 8) cells its
//! ball of radius `h` reaches.
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
    /// For each triangle of `mesh`, the index of the face it came from.
    pub source_faces: Vec<u32>,
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
        let mut source_faces = Vec::with_capacity(self.triangles.len());
        for (face, tri) in self.triangles.iter().enumerate() {
            // Out-of-range indices (an unvalidated mesh) are kept as they are.
            let [a, b, c] = tri.map(|i| remap.get(i as usize).copied().unwrap_or(i));
            if a == b || b == c || c == a {
                collapsed_triangles += 1;
            } else {
                triangles.push([a, b, c]);
                source_faces.push(face as u32);
            }
        }
        Welded {
            vertices_before: self.positions.len(),
            vertices_after: positions.len(),
            mesh: Mesh::new(self.name.clone(), positions, triangles),
            collapsed_triangles,
            source_faces,
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
///
/// The grid's cells are a little over `2h` wide, so the ball of radius `h`
/// around a vertex reaches at most two cells along each axis: at most 8
/// cells are searched, not the 27 around the vertex's own of a grid of
/// side `h` (on the 1.1 M-triangle bunny's 556 K vertices the lookups were
/// most of the weld). Each cell's kept vertices are a chain through
/// `next` (no list allocated per cell).
fn weld_within(positions: &[Vec3], h: f32) -> Vec<u32> {
    // Cells of 2.02 h: the ball spans 0.99 of a cell; searching a whole
    // cell's width around the vertex leaves 1% of `h` on each side for
    // rounding in `p / cell`.
    let cell = h * 2.02;
    const NONE: u32 = u32::MAX;
    let mut head: FastMap<[i64; 3], u32> = FastMap::default();
    let mut next: Vec<u32> = Vec::new();
    let mut kept_positions: Vec<Vec3> = Vec::new();
    let h2 = h * h;
    positions
        .iter()
        .map(|&p| {
            let u = p / cell;
            let lo = (u - 0.5).floor().to_array().map(|c| c as i64);
            let hi = (u + 0.5).floor().to_array().map(|c| c as i64);
            let mut best: Option<u32> = None;
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        let mut k = head.get(&[x, y, z]).copied().unwrap_or(NONE);
                        while k != NONE {
                            if kept_positions[k as usize].distance_squared(p) <= h2
                                && best.is_none_or(|b| k < b)
                            {
                                best = Some(k);
                            }
                            k = next[k as usize];
                        }
                    }
                }
            }
            best.unwrap_or_else(|| {
                let k = kept_positions.len() as u32;
                kept_positions.push(p);
                let own = u.floor().to_array().map(|c| c as i64);
                next.push(head.insert(own, k).unwrap_or(NONE));
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

    /// The weld by its definition: each vertex in order merges into the
    /// lowest-index kept vertex within `h`, or is kept.
    fn weld_by_definition(positions: &[Vec3], h: f32) -> Vec<u32> {
        let mut kept: Vec<Vec3> = Vec::new();
        positions
            .iter()
            .map(
                |&p| match kept.iter().position(|q| q.distance_squared(p) <= h * h) {
                    Some(k) => k as u32,
                    None => {
                        kept.push(p);
                        (kept.len() - 1) as u32
                    }
                },
            )
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// The grid search finds what the definition does, on clouds of
        /// near-duplicates at every offset from a cell's corner (points
        /// within `h`, just beyond it, and exactly at it along an axis).
        #[test]
        fn the_grid_weld_is_the_weld_by_definition(
            centres in prop::collection::vec((-20i32..20, -20i32..20, -20i32..20), 1..30),
            jitter in prop::collection::vec((-1.2f32..1.2, -1.2f32..1.2, -1.2f32..1.2), 1..120),
            h in 1e-3f32..2.0,
            offset in -1e3f32..1e3,
        ) {
            let positions: Vec<Vec3> = jitter
                .iter()
                .enumerate()
                .map(|(i, &(x, y, z))| {
                    let (cx, cy, cz) = centres[i % centres.len()];
                    let centre = Vec3::new(cx as f32, cy as f32, cz as f32) * h * 0.7;
                    // Some points exactly h apart along an axis.
                    let d = if i % 7 == 0 { Vec3::new(x.signum(), 0.0, 0.0) } else { Vec3::new(x, y, z) };
                    Vec3::splat(offset) + centre + d * h
                })
                .collect();
            prop_assert_eq!(weld_within(&positions, h), weld_by_definition(&positions, h));
        }

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
