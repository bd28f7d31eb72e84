//! What the radial mode draws in 3D: the skinned character, each vertex
//! coloured by its main bone (the selected bone's bright), and every field
//! as a cylinder at the field's mean distance — translucent (alpha-blended
//! over the body, back faces culled so each reads as one shell) with its
//! axis, or as wire (rings at A and B and lines along the axis); the seam
//! (θ = 0, along u) in magenta; the selected field in yellow. The
//! translucent cylinders are drawn back to front ([`super::depth_order`]),
//! re-sorted when the camera moves. The live scene ([`super::scene`]): the cloth
//! shaded in teal with the particles that touch a field this step in red,
//! and the free particles as small crosses, white, red on contact.

use glam::Vec3;

use super::RadialMode;
use super::depth_order::{self, Surface};
use crate::app::shell::Shell;
use crate::mesh::Mesh;
use crate::sim::radial::NO_CONTACT;
use crate::stages::radial::BoneFrame;
use crate::view::{LineVertex, MeshVertex};

const BODY: [f32; 4] = [0.55, 0.58, 0.64, 1.0];
const SELECTED_BODY: [f32; 4] = [0.95, 0.75, 0.35, 1.0];
const FIELD: [f32; 4] = [0.2, 0.75, 0.9, 1.0];
const SELECTED_FIELD: [f32; 4] = [1.0, 0.95, 0.2, 1.0];
const SEAM: [f32; 4] = [1.0, 0.0, 0.8, 1.0];
const CLOTH: [f32; 4] = [0.15, 0.6, 0.55, 1.0];
const CONTACT: [f32; 4] = [1.0, 0.15, 0.1, 1.0];
const PARTICLE: [f32; 4] = [0.95, 0.95, 0.95, 1.0];

/// The key of the colours [`RadialMode::draw`] uses.
pub fn key(show_scene: bool) -> crate::app::shell::legend::ViewKey {
    use crate::app::shell::legend::{ViewKey, linear_swatch};
    let mut entries = vec![
        ("body", BODY),
        ("selected bone's skin", SELECTED_BODY),
        ("field (mean distance)", FIELD),
        ("selected field", SELECTED_FIELD),
        ("seam, θ = 0", SEAM),
    ];
    if show_scene {
        entries.extend([
            ("cloth", CLOTH),
            ("free particle", PARTICLE),
            ("touching a field", CONTACT),
        ]);
    }
    let entries = entries
        .into_iter()
        .map(|(label, color)| (label.to_string(), linear_swatch(color)))
        .collect();
    ViewKey::classes("character and fields", entries)
}

/// Half the size of a particle's cross, as a fraction of the body's height.
const CROSS: f32 = 0.004;

/// A particle as three short axis-aligned lines.
fn cross(p: Vec3, h: f32, color: [f32; 4], out: &mut Vec<LineVertex>) {
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        out.push(LineVertex::new(p - axis * h, color));
        out.push(LineVertex::new(p + axis * h, color));
    }
}

/// Segments around a drawn cylinder.
const SEGMENTS: u32 = 24;
/// Opacity of the translucent cylinders (the selected one a little more).
const ALPHA: f32 = 0.22;
const SELECTED_ALPHA: f32 = 0.35;

/// The point at segment `i`, height `z` ∈ [0, 1] and radius `r` of `frame`.
fn on_cylinder(frame: &BoneFrame, r: f32, i: u32, z: f32) -> Vec3 {
    let a = std::f32::consts::TAU * i as f32 / SEGMENTS as f32;
    frame.a + frame.w * (z * frame.length) + radial(frame, a) * r
}

fn radial(frame: &BoneFrame, angle: f32) -> Vec3 {
    frame.u * angle.cos() + frame.v * angle.sin()
}

/// The side of `frame`'s cylinder at radius `r` as triangles wound
/// counter-clockwise seen from outside, normals pointing out.
fn cylinder_surface(frame: &BoneFrame, r: f32, color: [f32; 4], out: &mut Vec<MeshVertex>) {
    for i in 0..SEGMENTS {
        let quad = [
            (i, 0.0),
            (i + 1, 0.0),
            (i + 1, 1.0),
            (i, 0.0),
            (i + 1, 1.0),
            (i, 1.0),
        ];
        for tri in quad.chunks_exact(3) {
            let p: Vec<Vec3> = tri
                .iter()
                .map(|&(k, z)| on_cylinder(frame, r, k, z))
                .collect();
            let mid = (i as f32 + 0.5) / SEGMENTS as f32 * std::f32::consts::TAU;
            let outward = radial(frame, mid);
            let order = if (p[1] - p[0]).cross(p[2] - p[0]).dot(outward) >= 0.0 {
                [0, 1, 2]
            } else {
                [0, 2, 1]
            };
            for k in order {
                let (segment, _) = tri[k];
                let angle = std::f32::consts::TAU * segment as f32 / SEGMENTS as f32;
                out.push(MeshVertex {
                    pos: p[k].to_array(),
                    normal: radial(frame, angle).to_array(),
                    color,
                });
            }
        }
    }
}

/// The wire cylinder of `frame` at radius `r` (with `rings`), or only its
/// seam and axis.
fn cylinder(frame: &BoneFrame, r: f32, color: [f32; 4], rings: bool, out: &mut Vec<LineVertex>) {
    let n = SEGMENTS;
    let at = |i: u32, z: f32| on_cylinder(frame, r, i, z);
    if !rings {
        out.push(LineVertex::new(at(0, 0.0), SEAM));
        out.push(LineVertex::new(at(0, 1.0), SEAM));
        out.push(LineVertex::new(frame.a, color));
        out.push(LineVertex::new(frame.b, color));
        return;
    }
    for z in [0.0, 1.0] {
        for i in 0..n {
            out.push(LineVertex::new(at(i, z), color));
            out.push(LineVertex::new(at(i + 1, z), color));
        }
    }
    for i in (0..n).step_by(6) {
        let c = if i == 0 { SEAM } else { color };
        out.push(LineVertex::new(at(i, 0.0), c));
        out.push(LineVertex::new(at(i, 1.0), c));
    }
    out.push(LineVertex::new(frame.a, color));
    out.push(LineVertex::new(frame.b, color));
}

impl RadialMode {
    /// Uploads the character, the live scene and the field cylinders.
    pub(super) fn draw(&mut self, shell: &mut Shell, skinned: &[Vec3], frames: &[BoneFrame]) {
        let Some(c) = &self.character else { return };
        let contact = |id: u32| id != NO_CONTACT;
        let selected_joint = c.fields.get(self.bone).map(|f| f.joint as u32);
        let mut colors: Vec<[f32; 4]> = (0..skinned.len())
            .map(|v| {
                if Some(c.skin.dominant(v)) == selected_joint {
                    SELECTED_BODY
                } else {
                    BODY
                }
            })
            .collect();
        let mut positions = skinned.to_vec();
        let mut triangles = c.triangles.clone();
        let mut lines = Vec::new();
        if let Some(scene) = self.scene.as_ref().filter(|_| self.show_scene) {
            let cloth = &scene.cloth.particles;
            let base = positions.len() as u32;
            positions.extend(cloth.pos.iter().map(|p| p.truncate()));
            colors.extend(
                cloth
                    .contacts
                    .iter()
                    .map(|&id| if contact(id) { CONTACT } else { CLOTH }),
            );
            triangles.extend(scene.cloth.triangles().iter().map(|t| t.map(|v| v + base)));
            let (lo, hi) = skinned
                .iter()
                .fold((f32::MAX, f32::MIN), |(l, h), p| (l.min(p.y), h.max(p.y)));
            let h = CROSS * (hi - lo).max(1e-3);
            let free = &scene.particles;
            for (p, &id) in free.pos.iter().zip(&free.contacts) {
                let color = if contact(id) { CONTACT } else { PARTICLE };
                cross(p.truncate(), h, color, &mut lines);
            }
        }
        let mesh = Mesh::new(c.name.clone(), positions, triangles);
        let frame_camera = !self.framed;
        self.framed = true;
        shell
            .viewport
            .set_demo_mesh_colored(&mesh, Some(&colors), frame_camera);
        let n = (self.params.n_theta * self.params.n_z) as usize;
        let mut shells = Vec::new();
        for (f, frame) in frames.iter().enumerate() {
            let cells = self.values.get(f * n..(f + 1) * n).unwrap_or(&[]);
            let finite: Vec<f32> = cells.iter().copied().filter(|v| v.is_finite()).collect();
            let r = if finite.is_empty() {
                0.02
            } else {
                finite.iter().sum::<f32>() / finite.len() as f32
            };
            let color = if f == self.bone {
                SELECTED_FIELD
            } else {
                FIELD
            };
            cylinder(frame, r, color, !self.translucent, &mut lines);
            if self.translucent {
                let alpha = if f == self.bone {
                    SELECTED_ALPHA
                } else {
                    ALPHA
                };
                let [r0, g0, b0, _] = color;
                let mut vertices = Vec::new();
                cylinder_surface(frame, r, [r0, g0, b0, alpha], &mut vertices);
                shells.push(Surface {
                    centre: (frame.a + frame.b) * 0.5,
                    vertices,
                });
            }
        }
        shell.viewport.set_cells(&[]);
        shell.viewport.set_pick_lines(&lines);
        self.cylinders = shells;
        self.sorted_for = None;
        self.sort_cylinders(shell);
    }

    /// Uploads the translucent cylinders back to front for the current
    /// camera, unless they already are.
    pub(super) fn sort_cylinders(&mut self, shell: &mut Shell) {
        let eye = shell.viewport.camera.eye();
        if self.sorted_for == Some(eye) {
            return;
        }
        self.sorted_for = Some(eye);
        let vertices = depth_order::sorted_vertices(&shell.viewport.camera, &self.cylinders);
        shell.viewport.set_translucent(&vertices);
    }
}
