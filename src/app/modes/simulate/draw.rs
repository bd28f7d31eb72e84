//! What the simulate mode draws: the bodies' meshes at their poses, the
//! ground as a line grid, contacts as points coloured by depth with their
//! normals, candidate pairs as lines between body centres, and for the
//! picked body its sampling points, its field's inside cells and, when it
//! is exact, its pairs' intersection segments.

use glam::{Mat4, Vec3};

use crate::app::shell::Viewport;
use crate::mesh::Mesh;
use crate::sim::simulate::Pipeline;
use crate::stages::collide::BodyShape;
use crate::view::LineVertex;

const PAIR_COLOR: [f32; 4] = [0.3, 0.8, 1.0, 1.0];
const GROUND_COLOR: [f32; 4] = [0.4, 0.4, 0.45, 1.0];
const SEGMENT_COLOR: [f32; 4] = [1.0, 0.2, 1.0, 1.0];

use crate::app::shell::legend::{
    ViewKey, contact_depth_key, contact_value, linear_swatch, normal_color,
};
use crate::view::ColorMap;

/// Value of the picked body's sampling points and inside cells.
const SAMPLE_VALUE: f32 = 0.6;
const INSIDE_VALUE: f32 = 0.15;

/// The keys of what [`draw`] shows: contacts by depth, and the lines and
/// points of the pairs and the picked body.
pub fn keys(
    sim: &Pipeline,
    picked: Option<usize>,
    show_pairs: bool,
    map: ColorMap,
) -> Vec<ViewKey> {
    let mut keys = Vec::new();
    if !sim.contacts.is_empty() {
        keys.push(contact_depth_key(map, deepest(sim)));
    }
    let mut entries = Vec::new();
    if !sim.contacts.is_empty() {
        entries.push((
            "contact normal".to_string(),
            linear_swatch(normal_color(1.0)),
        ));
    }
    if show_pairs {
        entries.push(("candidate pair".into(), linear_swatch(PAIR_COLOR)));
    }
    if let Some(i) = picked {
        let cell = |v| map.color_between(v, -1.0, 1.0);
        entries.push((format!("body {i}: sampling point"), cell(SAMPLE_VALUE)));
        entries.push((format!("body {i}: inside its field"), cell(INSIDE_VALUE)));
        if sim.summary.segments.iter().any(|s| s.touches(i)) {
            entries.push(("tri–tri intersection".into(), linear_swatch(SEGMENT_COLOR)));
        }
    }
    if !entries.is_empty() {
        keys.push(ViewKey::classes("lines and points", entries));
    }
    keys
}

/// Where body `i` is now (a mesh body), for framing it.
pub fn body_bounds(sim: &Pipeline, meshes: &[Mesh], i: usize) -> Option<crate::geom::Aabb> {
    let BodyShape::Mesh(m) = sim.bodies.get(i)?.shape else {
        return None;
    };
    let (p, q) = sim.mesh_pose(i);
    Some(
        meshes
            .get(m)?
            .transformed(Mat4::from_rotation_translation(q, p))
            .bounds(),
    )
}

/// The deepest contact's depth (at least 1e-3, the scale's floor).
fn deepest(sim: &Pipeline) -> f32 {
    sim.contacts.iter().map(|c| c.depth).fold(1e-3f32, f32::max)
}

pub fn draw(
    sim: &Pipeline,
    meshes: &[Mesh],
    picked: Option<usize>,
    show_pairs: bool,
    viewport: &mut Viewport,
    frame: bool,
) {
    let mut posed = Vec::with_capacity(sim.body_count());
    let mut cells: Vec<[f32; 4]> = Vec::new();
    let mut lines = Vec::new();
    for i in 0..sim.body_count() {
        let BodyShape::Mesh(m) = sim.bodies[i].shape else {
            continue;
        };
        let (p, q) = sim.mesh_pose(i);
        posed.push(meshes[m].transformed(Mat4::from_rotation_translation(q, p)));
        if picked == Some(i) {
            // Samples and field are in the centred frame the body moves.
            let world = sim.bodies[i].world_from_object();
            let shape = &sim.shapes[m];
            for s in &shape.samples.samples {
                let w = world.transform_point3(s.position);
                cells.push([w.x, w.y, w.z, SAMPLE_VALUE]);
            }
            let grid = &shape.field.grid;
            for (k, &v) in shape.field.values.iter().enumerate() {
                if v < 0.0 {
                    let w = world.transform_point3(grid.center_of(k));
                    cells.push([w.x, w.y, w.z, INSIDE_VALUE]);
                }
            }
        }
    }
    if let Some(g) = sim.ground {
        let u = g.normal.any_orthonormal_vector();
        let v = g.normal.cross(u);
        for k in -8..=8 {
            let t = k as f32 * 0.5;
            for (a, b) in [(u, v), (v, u)] {
                lines.push(LineVertex::new(g.point + a * t - b * 4.0, GROUND_COLOR));
                lines.push(LineVertex::new(g.point + a * t + b * 4.0, GROUND_COLOR));
            }
        }
    }
    if show_pairs {
        let ground = sim.body_count() as u32;
        for &(i, j) in &sim.summary.pairs {
            let a = sim.bodies[i as usize].state.position;
            let b = if j == ground {
                // Straight down to the ground.
                sim.ground
                    .map_or(a, |g| a - g.normal * g.normal.dot(a - g.point))
            } else {
                sim.bodies[j as usize].state.position
            };
            lines.push(LineVertex::new(a, PAIR_COLOR));
            lines.push(LineVertex::new(b, PAIR_COLOR));
        }
    }
    if let Some(i) = picked {
        for s in sim.summary.segments.iter().filter(|s| s.touches(i)) {
            lines.push(LineVertex::new(s.segment[0], SEGMENT_COLOR));
            lines.push(LineVertex::new(s.segment[1], SEGMENT_COLOR));
        }
    }
    let max_depth = deepest(sim);
    for c in &sim.contacts {
        let t = c.depth / max_depth;
        cells.push([c.position.x, c.position.y, c.position.z, contact_value(t)]);
        let color = normal_color(t);
        lines.push(LineVertex::new(c.position, color));
        lines.push(LineVertex::new(c.position + c.normal * 0.1, color));
    }
    viewport.range_override = Some((-1.0, 1.0));
    viewport.point_size_min = Some(5.0);
    let merged = Mesh::merge(&posed, "pipeline scene");
    if frame {
        // The ground where the pile settles, not the tall spawn column.
        viewport.frame_bounds(crate::geom::Aabb {
            min: Vec3::new(-3.0, 0.0, -3.0),
            max: Vec3::new(3.0, 2.5, 3.0),
        });
    }
    viewport.set_demo_mesh(&merged);
    viewport.set_cells(&cells);
    viewport.set_pick_lines(&lines);
}
