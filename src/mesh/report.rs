//! A mesh health report: what `collidoscope info MESH.obj` prints.
//!
//! [`MeshReport::analyze`] welds the raw mesh with
//! [`DEFAULT_WELD_TOLERANCE`] (so seams split by the exporter do not count as
//! holes), builds its [`Topology`] and counts what decides whether the
//! pseudo-normal sign test (Sundholm 2010, §4.3.2) can be trusted:
//!
//! * boundary edges (one face) — the mesh is open;
//! * non-manifold edges (more than two faces);
//! * orientation: the two faces of every manifold edge must traverse it in
//!   opposite directions (`a→b` in one, `b→a` in the other);
//! * the signed volume of every closed shell, and the shells that face
//!   inward (an outermost shell with negative volume; the field flips them,
//!   see [`super::shells`]);
//! * degenerate faces (zero area, including those the weld collapsed) and
//!   duplicate faces (same vertex set after welding, in any order), among
//!   them the pairs wound opposite ways, which cancel in the field's sign
//!   (its distance keeps one copy, see [`super::prepared`]).
//!
//! `pseudo_normal_sign_trusted = closed && consistently_oriented &&
//! non_manifold_edges == 0`.

use std::fmt;

use super::shells::{Shell, cancel_duplicates, closed_shells, runs_forward};
use super::{DEFAULT_WELD_TOLERANCE, Mesh, Topology};
use glam::Vec3;
use rayon::prelude::*;

/// Counts and verdicts for one mesh; serialises to JSON for `info --json`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MeshReport {
    pub name: String,
    /// Triangles in the raw (unwelded) mesh.
    pub triangles: usize,
    pub vertices_before_weld: usize,
    pub vertices_after_weld: usize,
    pub bounds_min: [f32; 3],
    pub bounds_max: [f32; 3],
    pub boundary_edges: usize,
    pub non_manifold_edges: usize,
    /// Zero-area faces, including those collapsed by the weld.
    pub degenerate_faces: usize,
    /// Faces beyond the first with the same vertex set (after welding).
    pub duplicate_faces: usize,
    /// Pairs of duplicate faces wound opposite ways: they cancel in the sign
    /// (the distance keeps one copy of a group that cancels completely).
    pub opposite_duplicate_pairs: usize,
    /// Signed volume of each closed, manifold, consistently oriented
    /// component (negative: its faces point inward).
    pub closed_shell_volumes: Vec<f64>,
    /// Shells flipped for the field: outermost shells that face inward and
    /// the shells they enclose.
    pub inward_shells: usize,
    /// Components of faces connected through shared vertices.
    pub connected_components: usize,
    /// No boundary edges (and at least one triangle).
    pub closed: bool,
    pub consistently_oriented: bool,
    /// Pairs of vertex-disjoint triangles that cross each other.
    pub self_intersecting_pairs: usize,
    /// Closed, consistently oriented, manifold and free of
    /// self-intersections: the conditions under which the pseudo-normal
    /// sign is exact (Bærentzen & Aanæs).
    pub pseudo_normal_sign_trusted: bool,
}

/// The report and what it was computed from, for [`super::PreparedMesh`]
/// to build on instead of computing it again (on the 1.1 M-triangle bunny
/// the weld, the topology, the duplicate groups and the shells are about a
/// quarter of the mesh's preparation): the welded mesh, its topology, the
/// faces [`cancel_duplicates`] keeps (all of them, in order, when none
/// cancel) and its closed shells.
pub(super) struct Analysis {
    pub report: MeshReport,
    pub welded: Mesh,
    /// The face of the raw mesh each triangle of `welded` came from.
    pub source_faces: Vec<u32>,
    pub topology: Topology,
    pub unique: Vec<usize>,
    pub shells: Vec<Shell>,
}

impl MeshReport {
    pub fn analyze(raw: &Mesh) -> MeshReport {
        Self::analysis(raw).report
    }

    /// [`MeshReport::analyze`] with what it computed on the way.
    pub(super) fn analysis(raw: &Mesh) -> Analysis {
        let welded = raw.weld(DEFAULT_WELD_TOLERANCE);
        let mesh = &welded.mesh;
        let topo = Topology::build(mesh);

        let mut boundary_edges = 0;
        let mut non_manifold_edges = 0;
        let mut consistently_oriented = true;
        for e in 0..topo.num_edges() {
            match topo.edge_faces(e) {
                [_] => boundary_edges += 1,
                &[f, g] => {
                    let edge = topo.edge_vertices(e);
                    let forward = |f: u32| runs_forward(mesh.triangles[f as usize], edge);
                    if forward(f) == forward(g) {
                        consistently_oriented = false;
                    }
                }
                _ => non_manifold_edges += 1,
            }
        }

        let degenerate_faces = welded.collapsed_triangles
            + (0..mesh.triangles.len())
                .into_par_iter()
                .filter(|&t| mesh.face_normal(t) == Vec3::ZERO)
                .count();
        let (unique, duplicates) = cancel_duplicates(&mesh.triangles);
        let shells = closed_shells(mesh, &topo);

        let bounds = raw.bounds();
        let closed = boundary_edges == 0 && !mesh.triangles.is_empty();
        let self_intersecting_pairs = super::self_intersecting_pairs(mesh);
        let report = MeshReport {
            name: raw.name.clone(),
            triangles: raw.triangles.len(),
            vertices_before_weld: welded.vertices_before,
            vertices_after_weld: welded.vertices_after,
            bounds_min: bounds.min.to_array(),
            bounds_max: bounds.max.to_array(),
            boundary_edges,
            non_manifold_edges,
            degenerate_faces,
            duplicate_faces: duplicates.faces,
            opposite_duplicate_pairs: duplicates.opposite_pairs,
            closed_shell_volumes: shells.iter().map(|s| s.signed_volume).collect(),
            inward_shells: shells.iter().filter(|s| s.flip).count(),
            connected_components: topo.components(),
            closed,
            consistently_oriented,
            self_intersecting_pairs,
            pseudo_normal_sign_trusted: closed
                && consistently_oriented
                && non_manifold_edges == 0
                && self_intersecting_pairs == 0,
        };
        Analysis {
            report,
            source_faces: welded.source_faces,
            welded: welded.mesh,
            topology: topo,
            unique,
            shells,
        }
    }

    /// One sentence per problem found, most serious first; empty if none.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.triangles == 0 {
            warnings.push("the mesh has no triangles".to_string());
        }
        if self.boundary_edges > 0 {
            warnings.push(format!(
                "open mesh: {} boundary edges — the pseudo-normal sign is not reliable; use --sign winding",
                self.boundary_edges
            ));
        }
        if self.non_manifold_edges > 0 {
            warnings.push(format!(
                "{} non-manifold edges (shared by more than two faces) — the pseudo-normal sign is not reliable; use --sign winding",
                self.non_manifold_edges
            ));
        }
        if !self.consistently_oriented {
            warnings.push(
                "inconsistent orientation: some neighbouring faces wind in the same direction across their shared edge — inside and outside are ambiguous; use --sign winding"
                    .to_string(),
            );
        }
        if self.inward_shells > 0 {
            let (shells, have, their, them) = if self.inward_shells == 1 {
                ("closed shell", "has", "its", "it")
            } else {
                ("closed shells", "have", "their", "them")
            };
            warnings.push(format!(
                "faces inward: {} {shells} {have} {their} faces pointing inward (negative signed volume, or inside such a shell) — the field flips {them}, so inside is inside in both sign modes",
                self.inward_shells
            ));
        }
        if self.self_intersecting_pairs > 0 {
            warnings.push(format!(
                "self-intersecting: {} pairs of triangles cross each other — inside and outside are ambiguous and the pseudo-normal sign is not reliable; use --sign winding",
                self.self_intersecting_pairs
            ));
        }
        if self.degenerate_faces > 0 {
            warnings.push(format!(
                "{} degenerate faces (zero area) — they are skipped when computing normals",
                self.degenerate_faces
            ));
        }
        if self.duplicate_faces > 0 {
            warnings.push(format!(
                "{} duplicate faces (same three vertices as another face), {} of them pairs wound opposite ways — the sign leaves out each opposite pair (they cancel), the distance keeps one copy of it, and the other copies count once",
                self.duplicate_faces, self.opposite_duplicate_pairs
            ));
        }
        if self.connected_components > 1 {
            warnings.push(format!(
                "{} separate connected components",
                self.connected_components
            ));
        }
        warnings
    }
}

/// Volumes listed in the `closed shells` row before "…".
const LISTED_VOLUMES: usize = 6;

impl MeshReport {
    /// `N (signed volumes v1, v2, …; K facing inward)`.
    fn shells_summary(&self) -> String {
        let v = &self.closed_shell_volumes;
        if v.is_empty() {
            return "0".to_string();
        }
        let mut listed: Vec<String> = v
            .iter()
            .take(LISTED_VOLUMES)
            .map(|x| format!("{x:.4e}"))
            .collect();
        if v.len() > LISTED_VOLUMES {
            listed.push("…".to_string());
        }
        let inward = if self.inward_shells > 0 {
            format!("; {} facing inward", self.inward_shells)
        } else {
            String::new()
        };
        format!(
            "{} (signed volume{} {}{inward})",
            v.len(),
            if v.len() == 1 { "" } else { "s" },
            listed.join(", ")
        )
    }

    /// Why the pseudo-normal sign cannot be trusted, in words; `None` when
    /// it can.
    pub fn pseudo_normal_problem(&self) -> Option<String> {
        let mut problems = Vec::new();
        if self.boundary_edges > 0 {
            problems.push(format!("open ({} boundary edges)", self.boundary_edges));
        }
        if self.non_manifold_edges > 0 {
            problems.push(format!("{} non-manifold edges", self.non_manifold_edges));
        }
        if !self.consistently_oriented {
            problems.push("inconsistently oriented".to_string());
        }
        if self.self_intersecting_pairs > 0 {
            problems.push(format!(
                "self-intersecting ({} pairs)",
                self.self_intersecting_pairs
            ));
        }
        if self.triangles == 0 {
            problems.push("empty".to_string());
        }
        (!problems.is_empty()).then(|| problems.join(", "))
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

impl fmt::Display for MeshReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x0, y0, z0] = self.bounds_min;
        let [x1, y1, z1] = self.bounds_max;
        let rows = [
            ("triangles", self.triangles.to_string()),
            (
                "vertices",
                format!(
                    "{} ({} after welding)",
                    self.vertices_before_weld, self.vertices_after_weld
                ),
            ),
            ("bounds min", format!("({x0:.4}, {y0:.4}, {z0:.4})")),
            ("bounds max", format!("({x1:.4}, {y1:.4}, {z1:.4})")),
            ("boundary edges", self.boundary_edges.to_string()),
            ("non-manifold edges", self.non_manifold_edges.to_string()),
            ("degenerate faces", self.degenerate_faces.to_string()),
            ("duplicate faces", self.duplicate_faces.to_string()),
            (
                "opposite duplicate pairs",
                self.opposite_duplicate_pairs.to_string(),
            ),
            ("components", self.connected_components.to_string()),
            ("closed", yes_no(self.closed).to_string()),
            ("closed shells", self.shells_summary()),
            (
                "consistently oriented",
                yes_no(self.consistently_oriented).to_string(),
            ),
            (
                "self-intersecting pairs",
                self.self_intersecting_pairs.to_string(),
            ),
            (
                "pseudo-normal sign",
                if self.pseudo_normal_sign_trusted {
                    "trusted"
                } else {
                    "NOT trusted"
                }
                .to_string(),
            ),
        ];
        writeln!(f, "mesh {}", self.name)?;
        let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        for (key, value) in rows {
            writeln!(f, "  {key:<width$}  {value}")?;
        }
        for warning in self.warnings() {
            writeln!(f, "  warning: {warning}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::box_mesh;

    #[test]
    fn cube_is_healthy() {
        let report = MeshReport::analyze(&box_mesh(1));
        assert!(report.closed && report.consistently_oriented && report.pseudo_normal_sign_trusted);
        assert_eq!(report.triangles, 12);
        assert_eq!(report.vertices_after_weld, 8);
        assert_eq!(report.bounds_min, [-0.5; 3]);
        assert_eq!(report.bounds_max, [0.5; 3]);
        assert!(report.warnings().is_empty(), "{:?}", report.warnings());
        let text = report.to_string();
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with("pseudo-normal sign")
                    && l.trim_end().ends_with(" trusted")),
            "{text}"
        );
        let json = serde_json::to_string(&report).expect("serialises");
        assert!(
            json.contains("\"pseudo_normal_sign_trusted\":true"),
            "{json}"
        );
    }

    #[test]
    fn flipped_triangle_breaks_orientation() {
        let mut cube = box_mesh(2);
        cube.triangles[5].swap(1, 2);
        let report = MeshReport::analyze(&cube);
        assert!(report.closed);
        assert!(!report.consistently_oriented);
        assert!(!report.pseudo_normal_sign_trusted);
        assert!(
            report
                .warnings()
                .iter()
                .any(|w| w.contains("inconsistent orientation"))
        );
    }

    #[test]
    fn open_unwelded_and_duplicated_faces_are_reported() {
        let cube = box_mesh(1);
        // Every triangle with its own three vertices: only welding closes it.
        let positions = (0..12).flat_map(|t| cube.corners(t)).collect();
        let triangles = (0..12u32).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect();
        let soup = Mesh::new("soup", positions, triangles);
        let report = MeshReport::analyze(&soup);
        assert_eq!(report.vertices_before_weld, 36);
        assert_eq!(report.vertices_after_weld, 8);
        assert!(report.pseudo_normal_sign_trusted);

        let mut open = cube.clone();
        open.triangles.pop();
        let report = MeshReport::analyze(&open);
        assert_eq!(report.boundary_edges, 3);
        assert!(!report.closed && !report.pseudo_normal_sign_trusted);
        assert!(report.warnings()[0].starts_with("open mesh: 3 boundary edges"));

        let mut doubled = cube.clone();
        doubled.triangles.push(cube.triangles[0]);
        doubled.triangles.push([
            cube.triangles[1][0],
            cube.triangles[1][0],
            cube.triangles[1][2],
        ]);
        let report = MeshReport::analyze(&doubled);
        assert_eq!(report.duplicate_faces, 1);
        assert_eq!(report.degenerate_faces, 1);
        assert_eq!(report.non_manifold_edges, 3);
        assert!(!report.pseudo_normal_sign_trusted);
    }

    #[test]
    fn empty_mesh_reports_without_panicking() {
        let report = MeshReport::analyze(&Mesh::default());
        assert!(!report.closed);
        assert!(!report.warnings().is_empty());
        assert!(!report.to_string().is_empty());
    }

    /// The inward-shell warning and row read right for one shell and for
    /// several (once "1 closed shells have their faces", "1 face inward").
    #[test]
    fn inward_shells_are_counted_in_words_that_agree() {
        let inward = |mesh: &Mesh| {
            let mut m = mesh.clone();
            m.triangles.iter_mut().for_each(|t| t.swap(1, 2));
            m
        };
        let one = MeshReport::analyze(&inward(&box_mesh(1)));
        let text = one.to_string();
        assert!(
            text.contains("1 closed shell has its faces pointing inward"),
            "{text}"
        );
        assert!(text.contains("the field flips it,"), "{text}");
        assert!(text.contains("; 1 facing inward)"), "{text}");

        let near = inward(&box_mesh(1));
        let far = near.transformed(glam::Mat4::from_translation(glam::Vec3::splat(5.0)));
        let two = Mesh::merge(&[near, far], "two inward boxes");
        let text = MeshReport::analyze(&two).to_string();
        assert!(
            text.contains("2 closed shells have their faces pointing inward"),
            "{text}"
        );
        assert!(text.contains("the field flips them,"), "{text}");
        assert!(text.contains("; 2 facing inward)"), "{text}");
    }
}
