//! The 3D viewport: an offscreen render target shown as an egui image, an
//! orbit camera (drag: orbit, right/middle drag: pan, wheel: zoom,
//! double-click: frame all; views along the axes, frame and reset from
//! the keys) and cell picking by click.
//!
//! A camera given at start (saved with the settings, or `--camera`) is
//! kept when the first mesh arrives instead of framing it.

use std::time::Instant;

use eframe::egui;
use eframe::egui_wgpu::{self, wgpu};
use glam::{Vec2, Vec3};

use super::overlays;
use super::profiler::ProfilerHistory;
use super::settings::Overlays;
use crate::geom::Aabb;
use crate::gpu::GpuContext;
use crate::scene::LoadedMesh;
use crate::view::{AxisView, Camera, LineVertex, RenderTarget, ViewRenderer, ViewSettings};

/// Pick radius around the click, in pixels.
const PICK_RADIUS: f32 = 8.0;

pub struct Viewport {
    renderer: ViewRenderer,
    render_state: egui_wgpu::RenderState,
    target: Option<RenderTarget>,
    texture: Option<egui::TextureId>,
    pub camera: Camera,
    bounds: Aabb,
    mesh_lines: Vec<LineVertex>,
    pick_lines: Vec<LineVertex>,
    /// The uploaded cells, kept for picking.
    cells: Vec<[f32; 4]>,
    /// The colour bar's histogram of the cells' values and its range's bits.
    histogram: Option<((u32, u32), Vec<f32>)>,
    /// Set when something changed and the view must be rendered again.
    dirty: bool,
    /// The colour range (lo, hi) a mode's cells use instead of the
    /// settings' (a heat map from 0, classes over ±1).
    pub range_override: Option<(f32, f32)>,
    /// The mesh's opacity at most (a verify view shows the flagged cells
    /// inside and behind the mesh through it).
    pub opacity_max: Option<f32>,
    /// The smallest point size in pixels (the collide view's sparse
    /// samples and contacts need bigger points than a dense cell cloud).
    pub point_size_min: Option<f32>,
    /// What the target shows now.
    last_rendered: Option<(ViewSettings, Camera)>,
    /// The next new mesh keeps the camera (one given at start).
    keep_camera: bool,
}

impl Viewport {
    pub fn new(gpu: &GpuContext, render_state: &egui_wgpu::RenderState) -> Self {
        Viewport {
            renderer: ViewRenderer::new(&gpu.device),
            render_state: render_state.clone(),
            target: None,
            texture: None,
            camera: Camera::framing(Aabb {
                min: Vec3::splat(-1.0),
                max: Vec3::splat(1.0),
            }),
            bounds: Aabb {
                min: Vec3::splat(-1.0),
                max: Vec3::splat(1.0),
            },
            mesh_lines: Vec::new(),
            pick_lines: Vec::new(),
            cells: Vec::new(),
            dirty: true,
            histogram: None,
            range_override: None,
            opacity_max: None,
            point_size_min: None,
            last_rendered: None,
            keep_camera: false,
        }
    }

    /// Uses `camera`, also for the next mesh opened (instead of framing
    /// it): a camera saved with the settings or given with `--camera`.
    pub fn set_camera(&mut self, camera: Camera) {
        self.camera = camera;
        self.keep_camera = true;
        self.dirty = true;
    }

    /// Looks at the scene from `side`, keeping target and distance.
    pub fn view_from(&mut self, side: AxisView) {
        self.camera = self.camera.viewed_from(side);
        self.dirty = true;
    }

    /// The default camera framing the scene ("reset").
    pub fn reset_camera(&mut self) {
        self.camera = Camera::framing(self.bounds);
        self.dirty = true;
    }

    pub fn request_redraw(&mut self) {
        self.dirty = true;
    }

    /// Drops what one mode set for its drawing (another takes over).
    pub fn clear_overrides(&mut self) {
        self.range_override = None;
        self.opacity_max = None;
        self.point_size_min = None;
    }

    /// The scene's bounds (what "frame all" fits).
    pub fn bounds(&self) -> crate::geom::Aabb {
        self.bounds
    }

    /// Frames `bounds` (a scene without one mesh, e.g. the collide mode's
    /// bodies).
    pub fn frame_bounds(&mut self, bounds: crate::geom::Aabb) {
        self.bounds = bounds;
        self.reset_camera();
    }

    /// Fits `bounds` (a part of the scene) into the view, looking from
    /// where the camera looks; "frame all" still frames the whole scene.
    pub fn fit(&mut self, bounds: Aabb) {
        self.camera = self.camera.fitted(bounds);
        self.dirty = true;
    }

    /// Fits the scene into the view, looking from where the camera looks.
    pub fn frame_all(&mut self) {
        self.camera = self.camera.fitted(self.bounds);
        self.dirty = true;
    }

    /// A new mesh: upload it and its overlay lines; frame it if it is new.
    pub fn set_scene(&mut self, scene: &LoadedMesh, overlays: &Overlays) {
        let device = &self.render_state.device;
        let mesh = &scene.prepared.mesh;
        self.renderer.set_mesh(device, mesh);
        let bounds = mesh.bounds();
        if bounds != self.bounds {
            self.bounds = bounds;
            if !std::mem::take(&mut self.keep_camera) {
                self.camera = Camera::framing(bounds);
            }
        }
        self.mesh_lines = overlays::mesh_lines(mesh, overlays);
        self.upload_lines();
    }

    /// No mesh (a field viewed on its own): the mesh and its overlay
    /// lines go, and the camera frames `bounds`.
    pub fn clear_scene(&mut self, bounds: Aabb) {
        self.renderer.clear_mesh();
        self.mesh_lines.clear();
        self.upload_lines();
        self.bounds = bounds;
        self.camera = Camera::framing(bounds);
        self.dirty = true;
    }

    /// A clip plane through `center` facing the camera along the nearest
    /// axis: the cells behind it stay, so the cut shows the field inside.
    pub fn facing_clip_plane(&self, center: Vec3) -> crate::view::ClipPlane {
        let back = self.camera.backward();
        let axis = [Vec3::X, Vec3::Y, Vec3::Z]
            .into_iter()
            .map(|a| a * back.dot(a).signum())
            .max_by(|a, b| a.dot(back).total_cmp(&b.dot(back)))
            .unwrap_or(Vec3::Z);
        crate::view::ClipPlane {
            normal: axis,
            offset: axis.dot(center),
        }
    }

    /// Shows `mesh` without overlays or re-framing (the collide mode's
    /// moving bodies).
    pub fn set_demo_mesh(&mut self, mesh: &crate::mesh::Mesh) {
        self.renderer.set_mesh(&self.render_state.device, mesh);
        self.mesh_lines.clear();
        self.upload_lines();
    }

    /// Like [`Self::set_demo_mesh`] with a colour per mesh vertex; with
    /// `frame` the camera is fitted to the mesh (the bounds are kept for
    /// "frame all").
    pub fn set_demo_mesh_colored(
        &mut self,
        mesh: &crate::mesh::Mesh,
        vertex_colors: Option<&[[f32; 4]]>,
        frame: bool,
    ) {
        self.renderer
            .set_mesh_colored(&self.render_state.device, mesh, vertex_colors);
        self.mesh_lines.clear();
        self.upload_lines();
        if frame {
            self.bounds = mesh.bounds();
            self.reset_camera();
        }
    }

    /// Shows a surface made on this GPU (`count` vertices of the view's
    /// `MeshVertex` layout, 3 per triangle), or none.
    pub fn set_surface(&mut self, surface: Option<(eframe::egui_wgpu::wgpu::Buffer, u32)>) {
        self.renderer.set_surface(surface);
        self.dirty = true;
    }

    pub fn set_cells(&mut self, cells: &[[f32; 4]]) {
        self.renderer.set_cells(&self.render_state.device, cells);
        self.cells = cells.to_vec();
        self.histogram = None;
        self.dirty = true;
    }

    /// Cells written on the GPU each frame (see
    /// [`ViewRenderer::set_gpu_cells`]); not pickable. `None` removes them.
    pub fn set_gpu_cells(&mut self, cells: Option<(wgpu::Buffer, wgpu::Buffer)>) {
        self.renderer.set_gpu_cells(cells);
        self.dirty = true;
    }

    /// The histogram of the shown cells' values over `lo..hi` for the
    /// colour bar ([`super::image_view::histogram`]), remade when the
    /// cells or the range change.
    pub fn value_histogram(&mut self, lo: f32, hi: f32) -> Vec<f32> {
        let key = (lo.to_bits(), hi.to_bits());
        if let Some((k, h)) = &self.histogram
            && *k == key
        {
            return h.clone();
        }
        let values: Vec<f32> = self.cells.iter().map(|c| c[3]).collect();
        let h = super::image_view::histogram(&values, lo, hi, super::image_view::HISTOGRAM_BINS);
        self.histogram = Some((key, h.clone()));
        h
    }

    /// Alpha-blended triangles over the scene ([`ViewRenderer::set_translucent`]).
    pub fn set_translucent(&mut self, vertices: &[crate::view::MeshVertex]) {
        self.renderer
            .set_translucent(&self.render_state.device, vertices);
        self.dirty = true;
    }

    pub fn set_pick_lines(&mut self, lines: &[LineVertex]) {
        self.pick_lines = lines.to_vec();
        self.upload_lines();
    }

    fn upload_lines(&mut self) {
        let all: Vec<LineVertex> = self
            .mesh_lines
            .iter()
            .chain(&self.pick_lines)
            .copied()
            .collect();
        self.renderer.set_lines(&self.render_state.device, &all);
        self.dirty = true;
    }

    fn effective(&self, view: &ViewSettings) -> ViewSettings {
        let mut v = *view;
        if let Some(range) = self.range_override {
            (v.value_min, v.value_max) = range;
        }
        if let Some(alpha) = self.opacity_max {
            v.mesh_opacity = v.mesh_opacity.min(alpha);
        }
        if let Some(px) = self.point_size_min {
            v.point_size = v.point_size.max(px);
        }
        v
    }

    /// Shows the view in `rect`; returns `Some(pick)` when the user
    /// clicked (a cell, or `None` for a click on nothing).
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        rect: egui::Rect,
        gpu: &GpuContext,
        view: &ViewSettings,
        history: &mut ProfilerHistory,
    ) -> Option<Option<usize>> {
        let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
        let ppp = ui.ctx().pixels_per_point();
        let (w, h) = (
            (rect.width() * ppp).round().max(1.0) as u32,
            (rect.height() * ppp).round().max(1.0) as u32,
        );
        self.ensure_target(w, h);

        if response.dragged_by(egui::PointerButton::Primary) {
            let d = response.drag_delta();
            self.camera.orbit(-d.x * 0.01, d.y * 0.01);
            self.dirty = true;
        }
        if response.dragged_by(egui::PointerButton::Secondary)
            || response.dragged_by(egui::PointerButton::Middle)
        {
            let d = response.drag_delta() * ppp;
            self.camera.pan(d.x, d.y, h as f32);
            self.dirty = true;
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                self.camera.zoom((-scroll * 0.002).exp());
                self.dirty = true;
            }
        }
        if response.double_clicked() {
            self.frame_all();
        }
        let mut picked = None;
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            let ndc = Vec2::new(
                (pos.x - rect.left()) / rect.width() * 2.0 - 1.0,
                1.0 - (pos.y - rect.top()) / rect.height() * 2.0,
            );
            let radius = Vec2::new(
                PICK_RADIUS / rect.width() * 2.0,
                PICK_RADIUS / rect.height() * 2.0,
            );
            picked = Some(self.pick(ndc, radius, rect.width() / rect.height(), view));
        }

        // Anything that changes the picture — view settings from a panel or
        // a script, the camera — makes the view render again.
        let effective = self.effective(view);
        if self.last_rendered != Some((effective, self.camera)) {
            self.dirty = true;
        }
        if self.dirty
            && let Some(target) = &self.target
        {
            let start = Instant::now();
            let gpu_ms = self.renderer.render(gpu, target, &self.camera, &effective);
            history.record_frame(start.elapsed().as_secs_f64() * 1e3, gpu_ms);
            self.dirty = false;
            self.last_rendered = Some((effective, self.camera));
        }
        if let Some(tex) = self.texture {
            ui.painter().image(
                tex,
                rect,
                egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                egui::Color32::WHITE,
            );
        }
        ui.painter().text(
            rect.left_bottom() + egui::vec2(8.0, -8.0),
            egui::Align2::LEFT_BOTTOM,
            "drag: orbit · right-drag: pan · wheel: zoom · double-click: frame all · click: inspect a cell",
            egui::FontId::proportional(12.0),
            egui::Color32::from_gray(200),
        );
        picked
    }

    fn ensure_target(&mut self, w: u32, h: u32) {
        if self.target.as_ref().is_some_and(|t| t.size() == (w, h)) {
            return;
        }
        let device = &self.render_state.device;
        let target = RenderTarget::new(device, w, h);
        let mut renderer = self.render_state.renderer.write();
        match self.texture {
            Some(id) => renderer.update_egui_texture_from_wgpu_texture(
                device,
                target.color_view(),
                wgpu::FilterMode::Linear,
                id,
            ),
            None => {
                self.texture = Some(renderer.register_native_texture(
                    device,
                    target.color_view(),
                    wgpu::FilterMode::Linear,
                ))
            }
        }
        self.target = Some(target);
        self.dirty = true;
    }

    /// The visible cell nearest the viewer among those within `radius`
    /// (NDC) of `ndc`, applying the same filters as the point shader.
    fn pick(&self, ndc: Vec2, radius: Vec2, aspect: f32, view: &ViewSettings) -> Option<usize> {
        let clip_from_world = self.camera.clip_from_world(aspect);
        let f = &view.filter;
        let mut best: Option<(usize, f32)> = None;
        for (i, c) in self.cells.iter().enumerate() {
            let (p, v) = (Vec3::new(c[0], c[1], c[2]), c[3]);
            if (f.inside_only && v >= 0.0)
                || (f.outside_only && v < 0.0)
                || f.band.is_some_and(|b| v.abs() >= b)
            {
                continue;
            }
            if let Some(clip) = &f.clip
                && clip.normal.dot(p) > clip.offset
            {
                continue;
            }
            let h = clip_from_world * p.extend(1.0);
            if h.w <= 0.0 {
                continue;
            }
            let s = Vec2::new(h.x, h.y) / h.w;
            let d = ((s - ndc) / radius).length_squared();
            let depth = h.z / h.w;
            if d <= 1.0 && best.is_none_or(|(_, bd)| depth < bd) {
                best = Some((i, depth));
            }
        }
        best.map(|(i, _)| i)
    }

    /// Renders the 3D view offscreen at `factor` × its current size, the
    /// cell sprites `factor` × as large so the picture looks the same.
    pub fn render_scaled(
        &self,
        gpu: &GpuContext,
        view: &ViewSettings,
        factor: u32,
    ) -> Result<image::RgbaImage, String> {
        let shown = self
            .target
            .as_ref()
            .ok_or("the view has not been shown yet")?;
        let (w, h) = shown.size();
        let target = crate::view::RenderTarget::new(&gpu.device, w * factor, h * factor);
        if target.size() != (w * factor, h * factor) {
            return Err(format!(
                "{}×{} pixels is beyond this adapter's texture limit",
                w * factor,
                h * factor
            ));
        }
        let mut v = self.effective(view);
        v.point_size *= factor as f32;
        self.renderer.render(gpu, &target, &self.camera, &v);
        target.read_rgba(gpu).map_err(|e| e.to_string())
    }

    /// Renders the 3D view offscreen at its current size and writes a PNG.
    pub fn export_png(
        &self,
        gpu: &GpuContext,
        view: &ViewSettings,
        path: &std::path::Path,
    ) -> Result<(), String> {
        let target = self
            .target
            .as_ref()
            .ok_or("the view has not been shown yet")?;
        self.renderer
            .render(gpu, target, &self.camera, &self.effective(view));
        let img = target.read_rgba(gpu).map_err(|e| e.to_string())?;
        super::export::write_png(&img, path)
    }
}
