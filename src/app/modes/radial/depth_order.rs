//! The translucent field cylinders drawn back to front: alpha blending
//! without depth writes is right only when farther surfaces are drawn
//! first, so every shell (one cylinder, its back faces culled) is ordered
//! by the view depth of its centre, farthest first, whenever the pose or
//! the camera changes. Cylinders that interpenetrate (at the joints) can
//! still blend in the wrong order where they cross — per-fragment order
//! would take depth peeling — but each one's share of the picture is right
//! and nearer cylinders tint farther ones, not the other way round.

use glam::Vec3;

use crate::view::{Camera, MeshVertex};

/// One translucent shell and the point its depth is taken at.
pub struct Surface {
    pub centre: Vec3,
    pub vertices: Vec<MeshVertex>,
}

/// Depth along the view direction from `eye` looking along `forward`.
fn depth(eye: Vec3, forward: Vec3, p: Vec3) -> f32 {
    (p - eye).dot(forward)
}

/// Indices of `centres` farthest first, seen by `camera` (ties keep their
/// order).
pub fn back_to_front(camera: &Camera, centres: &[Vec3]) -> Vec<usize> {
    let eye = camera.eye();
    let forward = -camera.backward();
    let mut order: Vec<usize> = (0..centres.len()).collect();
    order.sort_by(|&i, &j| {
        depth(eye, forward, centres[j]).total_cmp(&depth(eye, forward, centres[i]))
    });
    order
}

/// The shells' vertices, farthest shell first.
pub fn sorted_vertices(camera: &Camera, shells: &[Surface]) -> Vec<MeshVertex> {
    let centres: Vec<Vec3> = shells.iter().map(|s| s.centre).collect();
    back_to_front(camera, &centres)
        .into_iter()
        .flat_map(|i| shells[i].vertices.iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shells_come_farthest_first_from_any_side() {
        let centres = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(5.0, 0.0, 0.5),
        ];
        let mut camera = Camera {
            target: Vec3::ZERO,
            distance: 10.0,
            yaw: 0.0,
            pitch: 0.0,
            ..Camera::default()
        };
        // Looking down −z from +z: the most negative z is farthest; depth is
        // along the view direction, so x does not matter.
        assert!(camera.eye().z > 0.0, "eye at {}", camera.eye());
        assert_eq!(back_to_front(&camera, &centres), vec![2, 0, 3, 1]);
        // From the other side the order turns round.
        camera.yaw = std::f32::consts::PI;
        assert_eq!(back_to_front(&camera, &centres), vec![1, 3, 0, 2]);
        let shells: Vec<Surface> = centres
            .iter()
            .enumerate()
            .map(|(i, &c)| Surface {
                centre: c,
                vertices: vec![
                    MeshVertex {
                        pos: c.to_array(),
                        normal: [0.0, 1.0, 0.0],
                        color: [i as f32, 0.0, 0.0, 1.0],
                    };
                    3
                ],
            })
            .collect();
        let v = sorted_vertices(&camera, &shells);
        let firsts: Vec<f32> = v.chunks(3).map(|t| t[0].color[0]).collect();
        assert_eq!(firsts, vec![1.0, 3.0, 0.0, 2.0]);
    }
}
