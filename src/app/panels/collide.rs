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
use crate::sim::rigid::{RigidParams, Scene, World};
use crate::stages::colliders::{self, BodyShape, ColliderBackend, ColliderGpu, Contact};
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
    pub(crate) use_gpu: bool,
    pub(crate) show_samples: bool,
    line_offset: [f32; 2],
    line_angle: f32,
    gpu: Option<ColliderGpu>,
    comparison: Option<PanelComparison>,
    step_ms: f64,
    error: Option<String>,
    /// Frame the bodies on the next draw (a scene was just built).
    frame_pending: bool,
}

type ContactKey = (u32, u32, u32, u32);

fn contact_key(c: &Contact) -> ContactKey {
    (c.body, c.other, c.feature as u32, c.sample)
}

/// CPU and GPU contacts of one state, compared as sets
/// ([`colliders::compare_contacts`]).
struct PanelComparison {
    /// The step compared; the table falls back to the live contacts after.
    step: usize,
    cpu: Vec<Contact>,
    gpu: std::collections::HashMap<ContactKey, Contact>,
    gpu_count: usize,
    result: colliders::ContactComparison,
    /// Wall-clock ms of each backend's detection, and the GPU kernel's ms
    /// where the adapter has timestamps.
    cpu_ms: f64,
    gpu_ms: f64,
    kernel_ms: Option<f64>,
}

impl CollideState {
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Shows the panel's view with `scene`, built afresh and paused.
    pub fn open_scene(&mut self, scene: Scene) -> Result<(), String> {
        let world = World::new(scene).map_err(|e| e.to_string())?;
        self.scene = scene;
        self.world = Some(world);
        self.active = true;
        self.playing = false;
        self.comparison = None;
        self.error = None;
        self.frame_pending = true;
        Ok(())
    }

    fn sync_backend(&mut self, render_gpu: &crate::gpu::GpuContext, gpu_ok: bool) {
        self.params.backend = if self.use_gpu && gpu_ok {
            ColliderBackend::Gpu
        } else {
            ColliderBackend::Cpu
        };
        if self.params.backend == ColliderBackend::Gpu && self.gpu.is_none() {
            self.gpu = Some(ColliderGpu::new(render_gpu));
        }
    }

    /// Advances the scene by `n` physics steps now.
    pub fn advance(
        &mut self,
        n: usize,
        render_gpu: &crate::gpu::GpuContext,
        gpu_ok: bool,
    ) -> Result<(), String> {
        self.sync_backend(render_gpu, gpu_ok);
        let world = self.world.as_mut().ok_or("no collide scene is open")?;
        let start = Instant::now();
        for _ in 0..n {
            world
                .step(&self.params, self.gpu.as_ref())
                .map_err(|e| e.to_string())?;
        }
        self.step_ms = start.elapsed().as_secs_f64() * 1e3 / n.max(1) as f64;
        Ok(())
    }

    /// Compares CPU and GPU contacts of the current state; an error when a
    /// difference is not explained by float rounding.
    pub fn compare_now(&mut self, render_gpu: &crate::gpu::GpuContext) -> Result<(), String> {
        let world = self.world.as_mut().ok_or("no collide scene is open")?;
        let c = compare(world, &self.params, render_gpu, &mut self.gpu)?;
        let unexplained = c.result.unexplained_count();
        let summary = c.result.summary();
        self.comparison = Some(c);
        if unexplained > 0 {
            return Err(format!("CPU and GPU contacts differ: {summary}"));
        }
        Ok(())
    }
}

impl CollideState {
    /// Stops showing (another panel takes the viewport over).
    pub fn deactivate(&mut self) {
        self.active = false;
        self.playing = false;
    }
}

pub fn collide_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    ui.heading("Collisions (rigid bodies)");
    let gpu_ok = viewer.sdf_gpu.is_some();
    let color_map = viewer.settings.view.color_map;
    let st = &mut viewer.collide;
    let was_active = st.active;
    ui.checkbox(&mut st.active, "show in viewport");
    if !st.active {
        if was_active {
            viewer.viewport.range_override = None;
            viewer.viewport.point_size_min = None;
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
                st.frame_pending = true;
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
    st.sync_backend(&viewer.render_gpu, gpu_ok);
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
            "step {} ({} kept for rewind) · {} contacts · {:.2} ms per {} ({})",
            world.steps,
            world.history_len(),
            world.contacts.contacts.len(),
            st.step_ms,
            if st.playing || step_once {
                "step"
            } else {
                "detection"
            },
            st.params.backend.name()
        ));
        if gpu_ok && ui.button("compare CPU vs GPU contacts").clicked() {
            match compare(world, &st.params, &viewer.render_gpu, &mut st.gpu) {
                Ok(c) => st.comparison = Some(c),
                Err(e) => st.error = Some(e),
            }
        }
        draw(
            world,
            st.show_samples,
            &mut viewer.viewport,
            st.frame_pending,
        );
        st.frame_pending = false;
    }
    if let Some(e) = &st.error {
        ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
    }
    legend_ui(ui, st.show_samples, color_map);
    if let Some(world) = &st.world {
        let current = st.comparison.as_ref().filter(|c| c.step == world.steps);
        contact_table_ui(ui, &world.contacts.contacts, current);
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
) -> Result<PanelComparison, String> {
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
        .map_err(|e| e.to_string())
    };
    let cpu_set = run(ColliderBackend::Cpu)?;
    let gpu_set = run(ColliderBackend::Gpu)?;
    let (cpu, gpu) = (cpu_set.contacts, gpu_set.contacts);
    let result = colliders::compare_contacts(
        &world.shapes,
        &bodies,
        &pairs,
        &params.colliders,
        &cpu,
        &gpu,
        &colliders::ContactTolerance::default(),
    )
    .map_err(|e| e.to_string())?;
    Ok(PanelComparison {
        step: world.steps,
        gpu_count: gpu.len(),
        gpu: gpu.iter().map(|c| (contact_key(c), *c)).collect(),
        cpu,
        result,
        cpu_ms: cpu_set.timings.total_wall_ms(),
        gpu_ms: gpu_set.timings.total_wall_ms(),
        kernel_ms: gpu_set.timings.total_gpu_ms(),
    })
}

/// The viewport's colours: sampling points by feature kind, contacts by
/// depth, normals from yellow (shallow) to red (deep).
fn legend_ui(ui: &mut egui::Ui, show_samples: bool, map: crate::view::ColorMap) {
    let swatch = |ui: &mut egui::Ui, [r, g, b, _]: [u8; 4], text: &str| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
        ui.painter()
            .rect_filled(rect, 2.0, egui::Color32::from_rgb(r, g, b));
        ui.label(text);
    };
    ui.horizontal_wrapped(|ui| {
        if show_samples {
            ui.label("samples:");
            for kind in [FeatureKind::Vertex, FeatureKind::Edge, FeatureKind::Face] {
                swatch(ui, map.color(kind_value(kind), 1.0), kind.name());
            }
        }
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("contacts by depth:");
        swatch(ui, map.color(contact_value(0.0), 1.0), "shallow");
        swatch(ui, map.color(contact_value(1.0), 1.0), "deepest");
        ui.label("normals:");
        swatch(ui, normal_color(0.0).map(|c| (c * 255.0) as u8), "shallow");
        swatch(ui, normal_color(1.0).map(|c| (c * 255.0) as u8), "deep");
    });
}

fn contact_table_ui(ui: &mut egui::Ui, contacts: &[Contact], cmp: Option<&PanelComparison>) {
    let rows: &[Contact] = match cmp {
        Some(c) => {
            ui.label(format!(
                "CPU vs GPU at step {}: CPU {} contacts in {:.2} ms, GPU {} in {:.2} ms{} · {}",
                c.step,
                c.cpu.len(),
                c.cpu_ms,
                c.gpu_count,
                c.gpu_ms,
                c.kernel_ms
                    .map_or(String::new(), |k| format!(" (kernel {k:.3} ms)")),
                c.result.summary()
            ));
            &c.cpu
        }
        None => {
            ui.label(format!(
                "{} contacts (first {} listed)",
                contacts.len(),
                contacts.len().min(200)
            ));
            contacts
        }
    };
    egui::ScrollArea::vertical()
        .max_height(260.0)
        .id_salt("collide_contacts")
        .show(ui, |ui| {
            egui::Grid::new("collide_contact_table")
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("body");
                    ui.strong("other");
                    ui.strong("feature");
                    ui.strong("depth");
                    if cmp.is_some() {
                        ui.strong("depth gpu");
                    }
                    ui.strong("cell depth");
                    ui.strong("normal");
                    ui.end_row();
                    for a in rows.iter().take(200) {
                        ui.label(a.body.to_string());
                        ui.label(a.other.to_string());
                        ui.label(a.feature.name());
                        ui.label(format!("{:.4}", a.depth));
                        if let Some(c) = cmp {
                            ui.label(
                                c.gpu
                                    .get(&contact_key(a))
                                    .map_or("missing".into(), |g| format!("{:.4}", g.depth)),
                            );
                        }
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

/// Value a contact of relative depth `t` (0 shallow … 1 deepest) is drawn
/// with: spread over the inside half of the colour map, so depth shows
/// whatever its scale.
fn contact_value(t: f32) -> f32 {
    -(0.25 + 0.75 * t.clamp(0.0, 1.0))
}

/// Colour of a contact normal of relative depth `t` (linear RGBA).
fn normal_color(t: f32) -> [f32; 4] {
    [1.0, 1.0 - 0.8 * t.clamp(0.0, 1.0), 0.2, 1.0]
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

fn draw(
    world: &World,
    show_samples: bool,
    viewport: &mut crate::app::viewport::Viewport,
    frame: bool,
) {
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
        let t = c.depth / max_depth;
        cells.push([c.position.x, c.position.y, c.position.z, contact_value(t)]);
        let color = normal_color(t);
        lines.push(LineVertex::new(c.position, color));
        lines.push(LineVertex::new(c.position + c.normal * 0.15, color));
    }
    // Sample and contact values are laid out on a fixed ±1 scale.
    viewport.range_override = Some(1.0);
    viewport.point_size_min = Some(6.0);
    let merged = Mesh::merge(&meshes, "collide scene");
    if frame {
        viewport.frame_bounds(merged.bounds());
    }
    viewport.set_demo_mesh(&merged);
    viewport.set_cells(&cells);
    viewport.set_pick_lines(&lines);
}
