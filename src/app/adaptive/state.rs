//! The adaptive scene's parameters, its product and its jobs.
//!
//! A parameter change marks the scene dirty; the rebuild starts once no
//! change came for [`DEBOUNCE`] and no rebuild is running (a GPU run cannot
//! be interrupted, so a newer change waits for it instead of racing it).
//! While the mesh deforms, a rebuild starts as soon as the previous one
//! ends, for the mesh inflated to the current phase: the frame rate shown
//! is the rebuild rate. A failed rebuild leaves the previous product shown
//! and says why in the banner.

use std::sync::Arc;
use std::time::{Duration, Instant};

use eframe::egui;

use super::draw::{self, NodeCells, Split};
use super::probe::{NodeProbe, UniformComparison, compare_with_uniform, probe_lines, probe_node};
use super::stats::{LevelStats, level_stats};
use crate::app::script::AdaptiveStep;
use crate::app::viewer::Viewer;
use crate::mesh::PreparedMesh;
use crate::scene::{InflatingMesh, Job};
use crate::stages::sdf_adaptive::{
    AdaptiveField, AdaptiveGpu, AdaptiveParams, Backend, NONE, RssBvh, compute_cpu, export,
};
use crate::view::ClipPlane;

/// Quiet time after the last parameter change before a rebuild starts.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// One deformed frame: how far the mesh was inflated and what preparing
/// it (welding, normals, BVH) cost before the stage ran.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeformFrame {
    pub offset: f32,
    pub prepare_ms: f64,
}

/// A finished rebuild.
pub struct Product {
    pub field: Arc<AdaptiveField>,
    /// The mesh the field was computed for (inflated while deforming).
    pub mesh: Arc<PreparedMesh>,
    pub levels: Vec<LevelStats>,
    pub backend: Backend,
    pub frame: Option<DeformFrame>,
    /// The RSS BVHs the GPU built and queried (read back; the CPU
    /// reference's are not kept).
    pub bvh: Option<Arc<RssBvh>>,
    /// Wall time of the whole job: preparing, the stage, the statistics.
    pub job_ms: f64,
}

/// The inflate/deflate animation (Liu & Kim's inflating bunny).
pub struct Deform {
    pub on: bool,
    pub playing: bool,
    /// Inflation amplitude as a fraction of the mesh's bounding diagonal.
    pub amplitude: f32,
    /// Radians of the `sin` per second.
    pub speed: f32,
    pub phase: f32,
    last_tick: Option<Instant>,
    /// The rest mesh's normals, for the mesh of this source hash.
    inflating: Option<(u64, Arc<InflatingMesh>)>,
    /// Frames rebuilt since deforming started, and the count a script
    /// step waits for.
    pub frames: u64,
    frames_wanted: u64,
}

impl Default for Deform {
    fn default() -> Self {
        Deform {
            on: false,
            playing: true,
            amplitude: 0.02,
            speed: 2.0,
            phase: 0.0,
            last_tick: None,
            inflating: None,
            frames: 0,
            frames_wanted: 0,
        }
    }
}

impl Deform {
    fn running(&self) -> bool {
        self.on && self.playing
    }

    /// Advances the phase by the time since the last tick while playing.
    fn tick(&mut self) {
        let now = Instant::now();
        if self.running()
            && let Some(last) = self.last_tick
        {
            self.phase = (self.phase + self.speed * (now - last).as_secs_f32())
                .rem_euclid(std::f32::consts::TAU);
        }
        self.last_tick = Some(now);
    }
}

/// The scene's state (one field of the viewer).
pub struct AdaptiveState {
    pub active: bool,
    /// The scene owns the viewport (it was active last frame).
    shown: bool,
    /// Open the panel's header on the next frame (script steps).
    pub open_header: bool,
    pub params: AdaptiveParams,
    pub backend: Backend,
    /// The depth whose boxes (and, with `level_points`, points) are drawn;
    /// `None`: all depths.
    pub level: Option<u32>,
    pub level_points: bool,
    pub show_boxes: bool,
    /// The BVH level whose RSS volumes are drawn (roots: 0); `None`: none.
    pub rss_level: Option<u32>,
    /// Side by side with the uniform field, and the numbers.
    pub compare: bool,
    pub deform: Deform,
    gpu: Option<Arc<AdaptiveGpu>>,
    job: Option<Job<Product>>,
    changed_at: Option<Instant>,
    pub product: Option<Product>,
    /// Counts products, to know when derived things are stale.
    generation: u64,
    pub pick: Option<NodeProbe>,
    /// The comparison and the (generation, uniform field) it was made for.
    pub comparison: Option<(u64, usize, UniformComparison)>,
    /// The node each uploaded sprite shows ([`NONE`]: a uniform cell).
    cell_nodes: Vec<u32>,
    /// Boxes drawn and boxes on the chosen level.
    pub boxes: (usize, usize),
    /// RSS volumes drawn and volumes on the chosen BVH level.
    pub rss_volumes: (usize, usize),
    redraw: bool,
    /// The generation whose mesh the viewport shows, so a redraw uploads
    /// the mesh only for a new product.
    mesh_shown: Option<u64>,
    /// The clip plane the boxes were cut with.
    drawn_clip: Option<ClipPlane>,
}

impl Default for AdaptiveState {
    fn default() -> Self {
        AdaptiveState {
            active: false,
            shown: false,
            open_header: false,
            // Depth 8 keeps a software rasteriser interactive; the paper's
            // 10 is one slider away.
            params: AdaptiveParams {
                max_depth: 8,
                ..Default::default()
            },
            backend: Backend::Gpu,
            level: Some(6),
            level_points: false,
            show_boxes: true,
            rss_level: None,
            compare: false,
            deform: Deform::default(),
            gpu: None,
            job: None,
            changed_at: None,
            product: None,
            generation: 0,
            pick: None,
            comparison: None,
            cell_nodes: Vec::new(),
            boxes: (0, 0),
            rss_volumes: (0, 0),
            redraw: false,
            mesh_shown: None,
            drawn_clip: None,
        }
    }
}

impl AdaptiveState {
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Stops showing without giving the viewport back (another view takes
    /// it over).
    pub fn deactivate(&mut self) {
        self.active = false;
        self.shown = false;
    }

    /// Shows the scene (or gives the viewport back).
    pub fn set_active(&mut self, on: bool) {
        self.active = on;
        self.open_header |= on;
    }

    /// A parameter changed: rebuild after the debounce.
    pub fn request(&mut self) {
        self.changed_at = Some(Instant::now());
    }

    /// Something about the drawing changed (level, boxes, side by side).
    pub fn request_redraw(&mut self) {
        self.redraw = true;
    }

    pub fn job_label(&self) -> Option<&str> {
        self.job.as_ref().map(|j| j.label.as_str())
    }

    /// Work a script step must wait for: a pending or running rebuild (not
    /// the endless ones of a playing deformation), frames a step asked for,
    /// a drawing not uploaded yet.
    pub fn script_busy(&self) -> bool {
        self.active
            && (self.changed_at.is_some()
                || !self.shown
                || self.redraw
                || (self.job.is_some() && !self.deform.running())
                || self.deform.frames < self.deform.frames_wanted)
    }

    /// The node a sprite shows, for a click in the viewport.
    pub fn node_of_cell(&self, cell: usize) -> Option<usize> {
        self.cell_nodes
            .get(cell)
            .filter(|&&n| n != NONE)
            .map(|&n| n as usize)
    }

    /// Picks a node (or clears the pick) and draws its probe.
    pub fn set_pick(&mut self, node: Option<usize>) {
        self.pick = match (node, &self.product) {
            (Some(n), Some(p)) if n < p.field.values.len() => {
                Some(probe_node(&p.mesh, &p.field, n))
            }
            _ => None,
        };
        self.redraw = true;
    }

    /// The node a script's bare `adaptive-pick` takes: on the shown level
    /// (else the deepest), among those the clip plane keeps, the one
    /// nearest the eye — in front, near the surface (below the start depth
    /// only cells holding triangles split).
    fn default_pick(&self, eye: glam::Vec3, clip: Option<ClipPlane>) -> Option<usize> {
        let field = &self.product.as_ref()?.field;
        let deepest = field.octree.nodes.iter().map(|n| n.depth).max()?;
        let level = self.level.filter(|&l| l <= deepest).unwrap_or(deepest);
        field
            .octree
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                n.depth == level && draw::clip_keeps(clip, glam::Vec3::from_array(n.center))
            })
            .min_by(|(_, a), (_, b)| {
                let d = |n: &crate::stages::sdf_adaptive::OctreeNode| {
                    glam::Vec3::from_array(n.center).distance_squared(eye)
                };
                d(a).total_cmp(&d(b))
            })
            .map(|(i, _)| i)
    }
}

/// Polls the rebuild, starts the next one, keeps the comparison current
/// and uploads the drawing; gives the viewport back when turned off.
pub fn update(viewer: &mut Viewer, ctx: &egui::Context) {
    poll(viewer);
    let st = &mut viewer.adaptive;
    if st.active && !st.shown {
        // Taking the viewport over.
        viewer.collide.deactivate();
        viewer.tri_tri.deactivate();
        viewer.interference.deactivate();
        let st = &mut viewer.adaptive;
        st.shown = true;
        st.redraw = true;
        st.mesh_shown = None;
        if st.product.is_none() {
            st.request();
        }
    } else if st.active
        && (viewer.collide.is_active()
            || viewer.tri_tri.is_active()
            || viewer.interference.is_active())
    {
        // Another view was turned on: it owns the viewport now.
        st.deactivate();
        return;
    }
    let st = &mut viewer.adaptive;
    if !st.active {
        if st.shown {
            st.shown = false;
            st.cell_nodes.clear();
            viewer.viewport.range_override = None;
            viewer.refresh_cells();
            viewer.refresh_overlays();
        }
        return;
    }
    if let (Some(p), Some(scene)) = (&st.product, &viewer.scene)
        && !st.deform.on
        && !Arc::ptr_eq(&p.mesh, &scene.prepared)
        && st.changed_at.is_none()
        && st.job.is_none()
    {
        // A new mesh was opened, or the deformation ended.
        st.request();
    }
    st.deform.tick();
    let due = st.changed_at.is_some_and(|t| t.elapsed() >= DEBOUNCE);
    if st.job.is_none() && viewer.scene.is_some() {
        if due {
            st.changed_at = None;
            start_job(viewer, ctx);
        } else if st.deform.running() {
            start_job(viewer, ctx);
        }
    }
    let st = &mut viewer.adaptive;
    if let Some(t) = st.changed_at {
        ctx.request_repaint_after(DEBOUNCE.saturating_sub(t.elapsed()));
    }
    if st.deform.running() || st.job.is_some() {
        ctx.request_repaint();
    }
    refresh_comparison(viewer);
    let st = &mut viewer.adaptive;
    if st.show_boxes && st.drawn_clip != viewer.settings.view.filter.clip {
        st.redraw = true;
    }
    if viewer.busy() {
        // The viewer's own jobs upload their products when they finish;
        // draw ours again afterwards.
        viewer.adaptive.redraw = true;
    } else if viewer.adaptive.redraw {
        viewer.adaptive.redraw = false;
        draw_scene(viewer);
    }
}

fn poll(viewer: &mut Viewer) {
    let st = &mut viewer.adaptive;
    let Some(result) = st.job.as_ref().and_then(Job::poll) else {
        return;
    };
    st.job = None;
    match result {
        Ok(product) => {
            if product.frame.is_some() {
                st.deform.frames += 1;
            } else {
                viewer.history.record_run(
                    format!(
                        "adaptive {} depth {}",
                        product.backend.name(),
                        product.field.params.max_depth
                    ),
                    product.field.timings.phases.clone(),
                );
            }
            // Keep the picked cell (depth and code): node indices change
            // between builds.
            let st = &mut viewer.adaptive;
            let cell = st
                .pick
                .as_ref()
                .zip(st.product.as_ref())
                .map(|(pick, old)| {
                    let n = &old.field.octree.nodes[pick.node];
                    (n.depth, n.code)
                });
            let picked = cell.and_then(|cell| {
                product
                    .field
                    .octree
                    .nodes
                    .iter()
                    .position(|n| (n.depth, n.code) == cell)
            });
            st.product = Some(product);
            st.generation += 1;
            st.set_pick(picked);
        }
        Err(e) => {
            // A failing deformation would fail every frame: stop it.
            st.deform.playing = false;
            viewer.notify(
                format!("adaptive field: {e} — the previous field is kept"),
                true,
            );
        }
    }
}

/// The mesh a rebuild runs on.
enum MeshInput {
    Prepared(Arc<PreparedMesh>),
    Inflated(Arc<InflatingMesh>, f32),
}

fn start_job(viewer: &mut Viewer, ctx: &egui::Context) {
    let Some(scene) = &viewer.scene else { return };
    let gpu_ok = viewer.sdf_gpu.is_some();
    let st = &mut viewer.adaptive;
    if !gpu_ok {
        st.backend = Backend::Cpu;
    }
    let backend = st.backend;
    let gpu = (backend == Backend::Gpu).then(|| {
        st.gpu
            .get_or_insert_with(|| Arc::new(AdaptiveGpu::new(&viewer.render_gpu)))
            .clone()
    });
    let input = if st.deform.on {
        let key = scene.prepared.source_hash;
        let inflating = match &st.deform.inflating {
            Some((k, m)) if *k == key => m.clone(),
            _ => {
                let m = Arc::new(InflatingMesh::new(scene.prepared.mesh.clone()));
                st.deform.inflating = Some((key, m.clone()));
                m
            }
        };
        let offset =
            st.deform.amplitude * scene.prepared.mesh.bounds().diagonal() * st.deform.phase.sin();
        MeshInput::Inflated(inflating, offset)
    } else {
        MeshInput::Prepared(scene.prepared.clone())
    };
    let params = st.params;
    let repaint = ctx.clone();
    let label = format!(
        "{} adaptive field, depth {}..{}",
        backend.name(),
        params.start_depth,
        params.max_depth
    );
    st.job = Some(Job::spawn(
        label,
        move || repaint.request_repaint(),
        move |_| {
            let start = Instant::now();
            let (mesh, frame) = match input {
                MeshInput::Prepared(m) => (m, None),
                MeshInput::Inflated(inflating, offset) => {
                    let mesh =
                        PreparedMesh::new(&inflating.at(offset)).map_err(|e| e.to_string())?;
                    let prepare_ms = start.elapsed().as_secs_f64() * 1e3;
                    (Arc::new(mesh), Some(DeformFrame { offset, prepare_ms }))
                }
            };
            let (field, bvh) = match &gpu {
                Some(g) => g.compute_with_bvh(&mesh, &params),
                None => compute_cpu(&mesh, &params).map(|f| (f, None)),
            }
            .map_err(|e| e.to_string())?;
            let levels = level_stats(&mesh, &field);
            Ok(Product {
                field: Arc::new(field),
                mesh,
                levels,
                backend,
                frame,
                bvh: bvh.map(Arc::new),
                job_ms: start.elapsed().as_secs_f64() * 1e3,
            })
        },
    ));
}

/// Recomputes the adaptive-vs-uniform numbers when either field changed.
fn refresh_comparison(viewer: &mut Viewer) {
    let st = &mut viewer.adaptive;
    let (Some(p), Some(uniform), true) = (&st.product, &viewer.field, st.compare) else {
        return;
    };
    let key = (st.generation, Arc::as_ptr(uniform) as usize);
    if st
        .comparison
        .as_ref()
        .is_some_and(|(g, u, _)| (*g, *u) == key)
    {
        return;
    }
    st.comparison = Some((key.0, key.1, compare_with_uniform(&p.field, uniform)));
    st.redraw = true;
}

/// Uploads the mesh, the sprites and the lines of the scene.
fn draw_scene(viewer: &mut Viewer) {
    let st = &mut viewer.adaptive;
    let (Some(p), Some(scene)) = (&st.product, &viewer.scene) else {
        return;
    };
    if st.mesh_shown != Some(st.generation) {
        st.mesh_shown = Some(st.generation);
        if p.frame.is_some() {
            viewer.viewport.set_demo_mesh(&p.mesh.mesh);
        } else {
            viewer.viewport.set_scene(scene, &viewer.settings.overlays);
        }
    }
    let points_level = st.level.filter(|_| st.level_points);
    let cells = match &viewer.field {
        Some(uniform) if st.compare && p.frame.is_none() => {
            let right = viewer.viewport.camera.view_from_world().row(0).truncate();
            let split = Split::facing(scene.prepared.mesh.bounds().center(), right);
            draw::split_cells(uniform, &p.field, points_level, split)
        }
        _ => draw::node_cells(&p.field, points_level),
    };
    let NodeCells { cells, nodes } = cells;
    let mut lines = Vec::new();
    st.boxes = (0, 0);
    if st.show_boxes {
        let clip = viewer.settings.view.filter.clip;
        st.drawn_clip = clip;
        let (boxes, drawn, total) = draw::box_lines(&p.field, st.level, clip);
        lines = boxes;
        st.boxes = (drawn, total);
    }
    st.rss_volumes = (0, 0);
    if let (Some(level), Some(bvh)) = (st.rss_level, &p.bvh) {
        let (rss, drawn, total) = draw::rss_lines(bvh, level, viewer.settings.view.filter.clip);
        lines.extend(rss);
        st.rss_volumes = (drawn, total);
    }
    if let Some(probe) = &st.pick {
        lines.extend(probe_lines(probe));
    }
    st.cell_nodes = nodes;
    viewer.viewport.range_override = None;
    viewer.viewport.point_size_min = None;
    viewer.viewport.set_cells(&cells);
    viewer.viewport.set_pick_lines(&lines);
}

/// Applies a script step.
pub fn apply_step(viewer: &mut Viewer, step: AdaptiveStep) -> Result<(), String> {
    let gpu_ok = viewer.sdf_gpu.is_some();
    let st = &mut viewer.adaptive;
    match step {
        AdaptiveStep::Show(on) => st.set_active(on),
        AdaptiveStep::StartDepth(d) => {
            st.params.start_depth = d;
            st.request();
        }
        AdaptiveStep::MaxDepth(d) => {
            st.params.max_depth = d;
            st.request();
        }
        AdaptiveStep::Alpha(a) => {
            st.params.alpha = a;
            st.request();
        }
        AdaptiveStep::ParentBound(on) => {
            st.params.parent_bound = on;
            st.request();
        }
        AdaptiveStep::Backend(name) => {
            let b = Backend::from_name(&name)
                .ok_or(format!("unknown adaptive backend {name} (gpu, cpu)"))?;
            if b == Backend::Gpu && !gpu_ok {
                return Err("the GPU backend needs GPU compute, which this adapter lacks".into());
            }
            st.backend = b;
            st.request();
        }
        AdaptiveStep::Level(level) => {
            st.level = level;
            st.redraw = true;
        }
        AdaptiveStep::Boxes(on) => {
            st.show_boxes = on;
            st.redraw = true;
        }
        AdaptiveStep::RssLevel(level) => {
            st.rss_level = level;
            st.redraw = true;
        }
        AdaptiveStep::LevelPoints(on) => {
            st.level_points = on;
            st.redraw = true;
        }
        AdaptiveStep::Compare(on) => {
            st.compare = on;
            st.redraw = true;
        }
        AdaptiveStep::Deform(on) => {
            st.deform.on = on;
            st.deform.playing = true;
            st.deform.frames = 0;
            st.deform.frames_wanted = 0;
            if !on {
                st.request();
            }
        }
        AdaptiveStep::Frames(n) => {
            if !st.deform.running() {
                return Err(
                    "adaptive-frames needs a playing deformation (adaptive-deform:on)".into(),
                );
            }
            st.deform.frames_wanted = st.deform.frames + n as u64;
        }
        AdaptiveStep::Pick(node) => {
            let eye = viewer.viewport.camera.eye();
            let clip = viewer.settings.view.filter.clip;
            let st = &mut viewer.adaptive;
            let count = st
                .product
                .as_ref()
                .ok_or("no adaptive field to pick from")?
                .field
                .values
                .len();
            let node = match node {
                Some(n) if n < count => n,
                Some(n) => return Err(format!("node {n} is not in the octree of {count} nodes")),
                None => st
                    .default_pick(eye, clip)
                    .ok_or("the octree has no nodes")?,
            };
            st.set_pick(Some(node));
        }
        AdaptiveStep::Export(path) => {
            let (p, scene) = (
                st.product.as_ref().ok_or("no adaptive field to export")?,
                viewer.scene.as_ref().ok_or("no mesh")?,
            );
            let adapter = (p.backend == Backend::Gpu).then(|| viewer.render_gpu.describe());
            let meta = export::sidecar(
                &p.field,
                &p.mesh,
                &scene.source.label(),
                p.backend.name(),
                adapter,
            );
            export::write_adaptive_field(&path, &p.field, &meta).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
