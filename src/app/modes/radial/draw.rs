//! What the radial mode draws in 3D: the skinned character, each vertex
//! coloured by its main bone (the selected bone's bright), and every field
//! as a wire cylinder — rings at A and B and lines along the axis at the
//! field's mean distance, the seam (θ = 0, along u) in magenta; the
//! selected field in yellow.

use glam::Vec3;

use super::RadialMode;
use crate::app::shell::Shell;
use crate::mesh::Mesh;
use crate::stages::radial::BoneFrame;
use crate::view::LineVertex;

const BODY: [f32; 4] = [0.55, 0.58, 0.64, 1.0];
const SELECTED_BODY: [f32; 4] = [0.95, 0.75, 0.35, 1.0];
const FIELD: [f32; 4] = [0.2, 0.75, 0.9, 1.0];
const SELECTED_FIELD: [f32; 4] = [1.0, 0.95, 0.2, 1.0];
const SEAM: [f32; 4] = [1.0, 0.0, 0.8, 1.0];

/// The wire cylinder of `frame` at radius `r`.
fn cylinder(frame: &BoneFrame, r: f32, color: [f32; 4], out: &mut Vec<LineVertex>) {
    let n = 24;
    let at = |i: u32, z: f32| {
        let a = std::f32::consts::TAU * i as f32 / n as f32;
        frame.a + frame.w * (z * frame.length) + (frame.u * a.cos() + frame.v * a.sin()) * r
    };
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
    /// Uploads the character and the field cylinders.
    pub(super) fn draw(&mut self, shell: &mut Shell, skinned: &[Vec3], frames: &[BoneFrame]) {
        let Some(c) = &self.character else { return };
        let selected_joint = c.fields.get(self.bone).map(|f| f.joint as u32);
        let colors: Vec<[f32; 4]> = (0..skinned.len())
            .map(|v| {
                if Some(c.skin.dominant(v)) == selected_joint {
                    SELECTED_BODY
                } else {
                    BODY
                }
            })
            .collect();
        let mesh = Mesh::new(c.name.clone(), skinned.to_vec(), c.triangles.clone());
        let frame_camera = !self.framed;
        self.framed = true;
        shell
            .viewport
            .set_demo_mesh_colored(&mesh, Some(&colors), frame_camera);
        let n = (self.params.n_theta * self.params.n_z) as usize;
        let mut lines = Vec::new();
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
            cylinder(frame, r, color, &mut lines);
        }
        shell.viewport.set_cells(&[]);
        shell.viewport.set_pick_lines(&lines);
    }
}
