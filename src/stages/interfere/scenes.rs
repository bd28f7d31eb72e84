//! Ready-made scenes of many objects for the viewer and `bench interfere`:
//! boxes, or boxes mixed with non-convex shapes (tori, the `spot` sample),
//! at seeded random poses in a cube whose side grows with the cube root of
//! the count, so a fair share of them touch (the paper's figures 4.13–4.14
//! and §4.7.3's timing scenes); or axis-aligned on a grid with unit gaps,
//! none touching (table 4.2's "no interference").

use glam::{EulerRot, Mat4, Quat, Vec3};

use super::{InterferenceError, InterferenceObject, InterferenceScene};
use crate::mesh::{Mesh, box_mesh, torus};

/// Which shapes a scene draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Shapes {
    /// Unit boxes.
    #[default]
    Boxes,
    /// Unit boxes, tori (non-convex, with a hole) and the `spot` sample.
    Mixed,
}

impl Shapes {
    pub const ALL: [Shapes; 2] = [Shapes::Boxes, Shapes::Mixed];

    pub fn name(self) -> &'static str {
        match self {
            Shapes::Boxes => "boxes",
            Shapes::Mixed => "mixed",
        }
    }

    pub fn from_name(name: &str) -> Option<Shapes> {
        Shapes::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The meshes, each about a unit across and centred on the origin;
    /// boxes are split `box_k × box_k` per side (`12·box_k²` triangles).
    pub fn meshes(self, box_k: u32) -> Vec<Mesh> {
        let mut meshes = vec![box_mesh(box_k)];
        if self == Shapes::Mixed {
            meshes.push(torus(32, 12, 0.38, 0.12));
            let spot = crate::assets::load_sample("spot").expect("the embedded spot sample parses");
            let b = spot.bounds();
            let scale = 1.0 / (b.max - b.min).max_element();
            meshes.push(spot.transformed(
                Mat4::from_scale(Vec3::splat(scale)) * Mat4::from_translation(-b.center()),
            ));
        }
        meshes
    }
}

/// Where one object goes: which mesh, and its pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    pub shape: usize,
    pub translation: Vec3,
    /// Yaw (about y), pitch (about x), roll (about z), degrees.
    pub angles: Vec3,
}

impl Placement {
    pub fn world_from_object(&self) -> Mat4 {
        let [yaw, pitch, roll] = self.angles.to_array().map(f32::to_radians);
        Mat4::from_rotation_translation(
            Quat::from_euler(EulerRot::YXZ, yaw, pitch, roll),
            self.translation,
        )
    }
}

/// A small deterministic generator (xorshift), so scenes are repeatable.
struct Rng(u64);

impl Rng {
    fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Side (in objects) of the cube `count` objects fill.
fn side(count: usize) -> usize {
    (count as f32).cbrt().ceil().max(1.0) as usize
}

/// How a scene's objects are laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    /// Random poses in a cube of side `spread·⌈∛count⌉`.
    Random { spread: f32 },
    /// Axis-aligned on a grid of pitch 2: none touching.
    Grid,
}

impl Layout {
    /// Random poses, dense: most objects touch several others.
    pub const DENSE: Layout = Layout::Random { spread: 1.6 };
    /// Random poses in a cube twice as wide: most objects touch none or one.
    pub const SPARSE: Layout = Layout::Random { spread: 3.2 };
}

/// `count` placements cycling through `shapes` meshes, laid out by
/// `layout` (the random draws are the same for every layout, so a seed
/// gives the same poses at every spread).
pub fn placements(count: usize, shapes: usize, seed: u64, layout: Layout) -> Vec<Placement> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let side = side(count);
    (0..count)
        .map(|n| {
            let angles = Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32()) * 360.0;
            let random = Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32());
            let (translation, angles) = match layout {
                Layout::Grid => {
                    let cell = Vec3::new(
                        (n % side) as f32,
                        ((n / side) % side) as f32,
                        (n / (side * side)) as f32,
                    );
                    (cell * 2.0, Vec3::ZERO)
                }
                Layout::Random { spread } => (random * spread * side as f32, angles - 180.0),
            };
            Placement {
                shape: n % shapes.max(1),
                translation,
                angles,
            }
        })
        .collect()
}

/// The scene of `meshes` placed by `placements`.
pub fn build(
    meshes: &[Mesh],
    placements: &[Placement],
) -> Result<InterferenceScene, InterferenceError> {
    InterferenceScene::new(
        placements
            .iter()
            .map(|p| {
                InterferenceObject::new(&meshes[p.shape % meshes.len()], p.world_from_object())
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_closed_and_placements_repeat() {
        for shapes in Shapes::ALL {
            for (k, mesh) in shapes.meshes(2).iter().enumerate() {
                let o = InterferenceObject::new(mesh, Mat4::IDENTITY);
                assert!(o.closed, "{shapes:?} mesh {k} is open");
                let size = (mesh.bounds().max - mesh.bounds().min).max_element();
                assert!((0.5..=1.01).contains(&size), "{shapes:?} mesh {k}: {size}");
            }
        }
        let a = placements(20, 3, 7, Layout::DENSE);
        assert_eq!(a, placements(20, 3, 7, Layout::DENSE));
        assert_ne!(a, placements(20, 3, 8, Layout::DENSE));
        // The same poses spread twice as wide.
        for (d, s) in a.iter().zip(placements(20, 3, 7, Layout::SPARSE)) {
            assert_eq!(d.angles, s.angles);
            assert!((s.translation - 2.0 * d.translation).length() < 1e-4);
        }
        assert_eq!(a.iter().map(|p| p.shape).max(), Some(2));
        // Apart: unit objects (diagonal < 2) on a grid of pitch 2, axis-aligned.
        let grid = placements(27, 1, 1, Layout::Grid);
        for (i, p) in grid.iter().enumerate() {
            for q in &grid[i + 1..] {
                assert!((p.translation - q.translation).abs().max_element() >= 2.0);
            }
        }
    }
}
