//! What the triangle–triangle mode draws: both models, colliding
//! triangles highlighted, and the intersection segments.

use glam::Vec3;

use super::TritriMode;
use crate::app::shell::Shell;
use crate::app::shell::legend::{ViewKey, linear_swatch};
use crate::mesh::Mesh;
use crate::stages::tritri::Pose;
use crate::view::LineVertex;

const COLOR_A: [f32; 4] = [0.42, 0.50, 0.62, 1.0];
const COLOR_B: [f32; 4] = [0.66, 0.60, 0.48, 1.0];
const COLOR_HIT_A: [f32; 4] = [0.95, 0.12, 0.10, 1.0];
const COLOR_HIT_B: [f32; 4] = [1.0, 0.55, 0.0, 1.0];
const COLOR_SEGMENT: [f32; 4] = [0.15, 1.0, 0.25, 1.0];

/// The key of the colours [`TritriMode::draw`] uses.
pub fn key() -> ViewKey {
    let entries = [
        ("first model", COLOR_A),
        ("second model", COLOR_B),
        ("first: colliding triangle", COLOR_HIT_A),
        ("second: colliding triangle", COLOR_HIT_B),
        ("intersection segment", COLOR_SEGMENT),
    ]
    .into_iter()
    .map(|(label, color)| (label.to_string(), linear_swatch(color)))
    .collect();
    ViewKey::classes("triangles", entries)
}

impl TritriMode {
    /// Uploads both models (colliding triangles highlighted) and the segments.
    pub(super) fn draw(&mut self, shell: &mut Shell) {
        let Some((ka, kb, (a, b))) = &self.models else {
            return;
        };
        let key = Some((ka.clone(), kb.clone()));
        let frame = self.framed != key;
        self.framed = key;
        let pose_b = self.result_pose;
        let mut hit_a = vec![false; a.triangle_count()];
        let mut hit_b = vec![false; b.triangle_count()];
        let contacts = self.result.as_ref().map_or(&[][..], |r| &r.contacts[..]);
        for c in contacts {
            hit_a[c.pair[0] as usize] = true;
            hit_b[c.pair[1] as usize] = true;
        }
        // One vertex per triangle corner, so each triangle has its own colour.
        let mut positions = Vec::with_capacity(3 * (hit_a.len() + hit_b.len()));
        let mut colors = Vec::with_capacity(positions.capacity());
        let mut triangles = Vec::with_capacity(hit_a.len() + hit_b.len());
        let mut add =
            |tris: &[crate::geom::Triangle], hits: &[bool], base: [f32; 4], hit: [f32; 4]| {
                for (t, h) in tris.iter().zip(hits) {
                    let first = positions.len() as u32;
                    positions.extend_from_slice(t);
                    colors.extend([if *h { hit } else { base }; 3]);
                    triangles.push([first, first + 1, first + 2]);
                }
            };
        add(
            &a.world_triangles(Pose::IDENTITY),
            &hit_a,
            COLOR_A,
            COLOR_HIT_A,
        );
        add(&b.world_triangles(pose_b), &hit_b, COLOR_B, COLOR_HIT_B);
        let mesh = Mesh::new("triangle–triangle scene", positions, triangles);
        let bounds = mesh.bounds();
        // Segments lie on both surfaces: a bundle of parallel copies, offset a
        // little off the segment, keeps them visible through the depth test.
        let eps = 0.004 * bounds.size().length();
        let mut lines = Vec::with_capacity(contacts.len() * 10);
        for c in contacts {
            let [p, q] = c.segment;
            let dir = (q - p).try_normalize().unwrap_or(Vec3::X);
            let u = dir.any_orthonormal_vector();
            let v = dir.cross(u);
            for off in [Vec3::ZERO, u, -u, v, -v] {
                lines.push(LineVertex::new(p + off * eps, COLOR_SEGMENT));
                lines.push(LineVertex::new(q + off * eps, COLOR_SEGMENT));
            }
        }
        shell
            .viewport
            .set_demo_mesh_colored(&mesh, Some(&colors), frame);
        shell.viewport.set_cells(&[]);
        shell.viewport.set_pick_lines(&lines);
    }
}
