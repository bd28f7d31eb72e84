//! What the collide mode draws: the bodies' meshes, sampling points
//! coloured by feature kind, contacts coloured by depth with their normals,
//! lines and planes as line grids.

use crate::app::shell::Viewport;
use crate::mesh::Mesh;
use crate::sim::collide::World;
use crate::stages::collide::BodyShape;
use crate::stages::sampling::FeatureKind;
use crate::view::LineVertex;

use crate::app::shell::legend::{ViewKey, contact_depth_key, linear_swatch};
pub use crate::app::shell::legend::{contact_value, normal_color};
use crate::view::ColorMap;

/// Line colours of segment bodies and of planes.
const SEGMENT_COLOR: [f32; 4] = [1.0, 1.0, 0.3, 1.0];
const PLANE_COLOR: [f32; 4] = [0.4, 0.4, 0.45, 1.0];

/// The keys of what [`draw`] shows: contacts by depth, sampling points by
/// feature kind, contact normals.
pub fn keys(world: &World, show_samples: bool, map: ColorMap) -> Vec<ViewKey> {
    let mut keys = Vec::new();
    let contacts = &world.contacts.contacts;
    if !contacts.is_empty() {
        keys.push(contact_depth_key(map, deepest(world)));
    }
    let mut entries = Vec::new();
    if show_samples {
        for (kind, name) in [
            (FeatureKind::Vertex, "vertex"),
            (FeatureKind::Edge, "edge"),
            (FeatureKind::Face, "face"),
        ] {
            let color = map.color_between(kind_value(kind), -1.0, 1.0);
            entries.push((format!("sample on a {name}"), color));
        }
    }
    if !contacts.is_empty() {
        entries.push((
            "contact normal".to_string(),
            linear_swatch(normal_color(1.0)),
        ));
    }
    if world
        .bodies
        .iter()
        .any(|b| matches!(b.shape, BodyShape::Segment { .. }))
    {
        entries.push(("line body".into(), linear_swatch(SEGMENT_COLOR)));
    }
    if !entries.is_empty() {
        keys.push(ViewKey::classes("points and lines", entries));
    }
    keys
}

/// The deepest contact's depth (at least 1e-3, the scale's floor).
fn deepest(world: &World) -> f32 {
    world
        .contacts
        .contacts
        .iter()
        .map(|c| c.depth)
        .fold(1e-3f32, f32::max)
}

/// Value a sampling point is drawn with: its kind, spread over the colour map.
pub fn kind_value(kind: FeatureKind) -> f32 {
    match kind {
        FeatureKind::Vertex => 0.9,
        FeatureKind::Edge => 0.5,
        FeatureKind::Face => 0.1,
        FeatureKind::Primitive | FeatureKind::Cell => 0.3,
    }
}

pub fn draw(world: &World, show_samples: bool, viewport: &mut Viewport, frame: bool) {
    let mut meshes = Vec::new();
    let mut cells: Vec<[f32; 4]> = Vec::new();
    let mut lines = Vec::new();
    for b in &world.bodies {
        let m = b.world_from_object();
        match b.shape {
            BodyShape::Mesh(s) => {
                meshes.push(world.meshes[s].transformed(m));
                if show_samples {
                    for p in &world.shapes[s].samples.samples {
                        let w = m.transform_point3(p.position);
                        cells.push([w.x, w.y, w.z, kind_value(p.kind)]);
                    }
                }
            }
            BodyShape::Segment { a, b: e } => {
                lines.push(LineVertex::new(m.transform_point3(a), SEGMENT_COLOR));
                lines.push(LineVertex::new(m.transform_point3(e), SEGMENT_COLOR));
            }
            BodyShape::Plane { normal, offset } => {
                // A grid of lines on the plane around the origin.
                let n = m.transform_vector3(normal).normalize();
                let c = m.transform_point3(normal * offset);
                let u = n.any_orthonormal_vector();
                let v = n.cross(u);
                let color = PLANE_COLOR;
                for k in -5..=5 {
                    let t = k as f32 * 0.4;
                    lines.push(LineVertex::new(c + u * t - v * 2.0, color));
                    lines.push(LineVertex::new(c + u * t + v * 2.0, color));
                    lines.push(LineVertex::new(c + v * t - u * 2.0, color));
                    lines.push(LineVertex::new(c + v * t + u * 2.0, color));
                }
            }
            BodyShape::Sphere { .. } | BodyShape::Cuboid { .. } => {}
        }
    }
    let max_depth = deepest(world);
    for c in &world.contacts.contacts {
        let t = c.depth / max_depth;
        cells.push([c.position.x, c.position.y, c.position.z, contact_value(t)]);
        let color = normal_color(t);
        lines.push(LineVertex::new(c.position, color));
        lines.push(LineVertex::new(c.position + c.normal * 0.15, color));
    }
    // Sample and contact values are laid out on a fixed ±1 scale.
    viewport.range_override = Some((-1.0, 1.0));
    viewport.point_size_min = Some(6.0);
    let merged = Mesh::merge(&meshes, "collide scene");
    if frame {
        viewport.frame_bounds(merged.bounds());
    }
    viewport.set_demo_mesh(&merged);
    viewport.set_cells(&cells);
    viewport.set_pick_lines(&lines);
}
