//! Collide panel: the rigid-body demonstrator (Sundholm's figures 7.6–7.8)
//! with sampling points, contacts and a CPU-vs-GPU contact table.
//!
//! While "show in viewport" is on, the panel owns the viewport's mesh,
//! points and lines: the bodies' meshes, sampling points coloured by feature
//! kind (vertex / edge / face) and contact points coloured by depth with
//! their normals. Turning it off gives the viewport back to the field.

use std::time::Instant;

use eframe::egui;
use glam::{Quat, Vec3};

use crate::app::viewer::Viewer;
use crate::mesh::Mesh;
use crate::stages::colliders::{self, BodyShape, ColliderBackend, ColliderGpu, Contact};
use crate::stages::rigid::{RigidParams, Scene, World};
use crate::stages::sampling::FeatureKind;
use crate::view::LineVertex;

/// The panel's state (one field of the viewer).
#[derive(Default)]
pub struct CollideState {
    scene: Scene,
    world: Option<World>,
    params: RigidParams,
    active: bool,
    playing: bool,
    use_gpu: bool,
    show_samples: bool,
    line_offset: [f32; 2],
    line_angle: f32,
    gpu: Option<ColliderGpu>,
    comparison: Option<ContactComparison>,
    step_ms: f64,
    error: Option<String>,
}

/// CPU and GPU contacts of the same state, side by side.
struct ContactComparison {
    cpu: Vec<Contact>,
    gpu: Vec<Contact>,
    max_position: f32,
    max_depth: f32,
}

impl CollideState {
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Stops showing (another panel takes the viewport over).
    pub fn deactivate(&mut self) {
        self.active = false;
        self.playing = false;
    }
}

pub fn collide_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    ui.heading("Collisions (rigid bodies)");
    let gpu_ok = viewer.sdf_gpu.is_some();
    let st = &mut viewer.collide;
    let was_active = st.active;
    ui.checkbox(&mut st.active, "show in viewport");
    if !st.active {
        if was_active {
            viewer.viewport.range_override = None;
            viewer.refresh_cells();
            viewer.refresh_overlays();
        }
        return;
    }
    let mut rebuild = st.world.is_none();
    egui::ComboBox::from_label("scene")
        .selected_text(st.scene.name())
        .show_ui(ui, |ui| {
            for s in Scene::ALL {
                rebuild |= ui.selectable_value(&mut st.scene, s, s.name()).changed();
            }
        });
    if rebuild {
        match World::new(st.scene) {
            Ok(w) => {
                st.world = Some(w);
                st.error = None;
            }
            Err(e) => st.error = Some(e.to_string()),
        }
        st.playing = false;
        st.comparison = None;
    }
    ui.horizontal(|ui| {
        ui.add_enabled_ui(gpu_ok, |ui| ui.checkbox(&mut st.use_gpu, "GPU contacts"));
        ui.checkbox(
            &mut st.params.colliders.interpolated_depth,
            "interpolated depth",
        );
        ui.checkbox(&mut st.params.colliders.reject_flipped, "reject flipped");
    });
    ui.add(egui::Slider::new(&mut st.params.restitution, 0.0..=1.0).text("restitution"));
    ui.add(egui::Slider::new(&mut st.params.friction, 0.0..=1.5).text("friction"));
    ui.checkbox(
        &mut st.show_samples,
        "sampling points (vertex / edge / face)",
    );
    if st.scene == Scene::LineThroughMesh {
        ui.add(egui::Slider::new(&mut st.line_offset[0], -0.6..=0.6).text("line height"));
        ui.add(egui::Slider::new(&mut st.line_offset[1], -1.0..=1.0).text("line depth"));
        ui.add(egui::Slider::new(&mut st.line_angle, -1.5..=1.5).text("line angle"));
    }
    let mut step_once = false;
    ui.horizontal(|ui| {
        let label = if st.playing { "pause" } else { "play" };
        if ui.button(label).clicked() {
            st.playing = !st.playing;
        }
        step_once = ui.button("step").clicked();
        let Some(world) = &mut st.world else { return };
        if ui.button("rewind 1 s").clicked() {
            world.rewind((1.0 / st.params.dt) as usize);
        }
        if ui.button("reset").clicked() {
            st.world = World::new(st.scene).ok();
            st.playing = false;
        }
    });
    st.params.backend = if st.use_gpu && gpu_ok {
        ColliderBackend::Gpu
    } else {
        ColliderBackend::Cpu
    };
    if st.params.backend == ColliderBackend::Gpu && st.gpu.is_none() {
        st.gpu = Some(ColliderGpu::new(&viewer.render_gpu));
    }
    if let Some(world) = &mut st.world {
        world.set_line(
            Vec3::new(0.0, st.line_offset[0], st.line_offset[1]),
            Quat::from_rotation_z(st.line_angle),
        );
        let start = Instant::now();
        let result = if st.playing || step_once {
            world.step(&st.params, st.gpu.as_ref())
        } else {
            world.detect(&st.params, st.gpu.as_ref()).map(|_| ())
        };
        st.step_ms = start.elapsed().as_secs_f64() * 1e3;
        if let Err(e) = result {
            st.error = Some(e.to_string());
            st.playing = false;
        }
        ui.label(format!(
            "step {} ({} kept for rewind) · {} contacts · {:.1} ms",
            world.steps,
            world.history_len(),
            world.contacts.contacts.len(),
            st.step_ms
        ));
        if gpu_ok && ui.button("compare CPU vs GPU contacts").clicked() {
            st.comparison = compare(world, &st.params, &viewer.render_gpu, &mut st.gpu);
        }
        draw(world, st.show_samples, &mut viewer.viewport);
    }
    if let Some(e) = &st.error {
        ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
    }
    if let Some(c) = &st.comparison {
        contact_table_ui(ui, c);
    }
    if st.playing {
        ui.ctx().request_repaint();
    }
}

fn compare(
    world: &mut World,
    params: &RigidParams,
    render_gpu: &crate::gpu::GpuContext,
    gpu: &mut Option<ColliderGpu>,
) -> Option<ContactComparison> {
    let gpu = gpu.get_or_insert_with(|| ColliderGpu::new(render_gpu));
    let bodies = world.collider_bodies();
    let pairs = world.pairs();
    let run = |backend| {
        colliders::detect(
            &world.shapes,
            &bodies,
            &pairs,
            &params.colliders,
            backend,
            Some(gpu),
        )
        .ok()
        .map(|s| s.contacts)
    };
    let cpu = run(ColliderBackend::Cpu)?;
    let gpu = run(ColliderBackend::Gpu)?;
    let (mut max_position, mut max_depth) = (0f32, 0f32);
    for (a, b) in cpu.iter().zip(&gpu) {
        max_position = max_position.max(a.position.distance(b.position));
        max_depth = max_depth.max((a.depth - b.depth).abs());
    }
    Some(ContactComparison {
        cpu,
        gpu,
        max_position,
        max_depth,
    })
}

fn contact_table_ui(ui: &mut egui::Ui, c: &ContactComparison) {
    ui.label(format!(
        "CPU {} contacts, GPU {} · max |Δposition| {:.2e} · max |Δdepth| {:.2e}",
        c.cpu.len(),
        c.gpu.len(),
        c.max_position,
        c.max_depth
    ));
    egui::ScrollArea::vertical()
        .max_height(220.0)
        .id_salt("collide_contacts")
        .show(ui, |ui| {
            egui::Grid::new("collide_contact_table")
                .striped(true)
                .show(ui, |ui| {
                    for h in [
                        "body",
                        "other",
                        "feature",
                        "depth cpu",
                        "depth gpu",
                        "cell depth",
                        "normal",
                    ] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    for (i, a) in c.cpu.iter().enumerate().take(200) {
                        ui.label(a.body.to_string());
                        ui.label(a.other.to_string());
                        ui.label(a.feature.name());
                        ui.label(format!("{:.4}", a.depth));
                        ui.label(
                            c.gpu
                                .get(i)
                                .map_or("-".into(), |g| format!("{:.4}", g.depth)),
                        );
                        ui.label(format!("{:.4}", a.depth_cell));
                        ui.label(format!(
                            "{:+.2} {:+.2} {:+.2}",
                            a.normal.x, a.normal.y, a.normal.z
                        ));
                        ui.end_row();
                    }
                });
        });
}

/// Value a sampling point is drawn with: its kind, spread over the colour map.
fn kind_value(kind: FeatureKind) -> f32 {
    match kind {
        FeatureKind::Vertex => 0.9,
        FeatureKind::Edge => 0.5,
        FeatureKind::Face => 0.1,
        FeatureKind::Primitive | FeatureKind::Cell => 0.3,
    }
}

fn draw(world: &World, show_samples: bool, viewport: &mut crate::app::viewport::Viewport) {
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
                let color = [1.0, 1.0, 0.3, 1.0];
                lines.push(LineVertex::new(m.transform_point3(a), color));
                lines.push(LineVertex::new(m.transform_point3(e), color));
            }
            BodyShape::Plane { normal, offset } => {
                // A grid of lines on the plane around the origin.
                let n = m.transform_vector3(normal).normalize();
                let c = m.transform_point3(normal * offset);
                let u = n.any_orthonormal_vector();
                let v = n.cross(u);
                let color = [0.4, 0.4, 0.45, 1.0];
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
    let max_depth = world
        .contacts
        .contacts
        .iter()
        .map(|c| c.depth)
        .fold(1e-3f32, f32::max);
    for c in &world.contacts.contacts {
        // Contacts are negative values (the inside colours), deeper = darker.
        cells.push([c.position.x, c.position.y, c.position.z, -c.depth.max(1e-4)]);
        let color = [1.0, 0.3 + 0.7 * (1.0 - c.depth / max_depth), 0.2, 1.0];
        lines.push(LineVertex::new(c.position, color));
        lines.push(LineVertex::new(c.position + c.normal * 0.15, color));
    }
    viewport.range_override = Some(1.0f32.max(max_depth));
    viewport.set_demo_mesh(&Mesh::merge(&meshes, "collide scene"));
    viewport.set_cells(&cells);
    viewport.set_pick_lines(&lines);
}
