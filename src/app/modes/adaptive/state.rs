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

use super::draw::{self, NodeCells, Split};
use super::probe::{NodeProbe, UniformComparison, compare_with_uniform, probe_lines, probe_node};
use super::stats::{LevelStats, level_stats};
use crate::app::shell::Shell;
use crate::mesh::PreparedMesh;
use crate::scene::{InflatingMesh, Job, JobError};
use crate::stages::adaptive::{
    AdaptiveField, AdaptiveGpu, AdaptiveParams, Backend, NONE, RssBvh, compute_cpu,
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
    pub(super) frames_wanted: u64,
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
    pub(super) fn running(&self) -> bool {
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

/// The mode's state.
pub struct AdaptiveMode {
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
    pub(super) changed_at: Option<Instant>,
    pub product: Option<Product>,
    /// Counts products, to know when derived things are stale.
    generation: u64,
    pub pick: Option<NodeProbe>,
    /// The comparison and the (generation, uniform field) it was made for.
    pub comparison: Option<(u64, usize, UniformComparison)>,
    /// The node each uploaded sprite shows ([`NONE`]: a uniform cell).
    pub(super) cell_nodes: Vec<u32>,
    /// Boxes drawn and boxes on the chosen level.
    pub boxes: (usize, usize),
    /// RSS volumes drawn and volumes on the chosen BVH level.
    pub rss_volumes: (usize, usize),
    pub(super) redraw: bool,
    /// The generation whose mesh the viewport shows, so a redraw uploads
    /// the mesh only for a new product.
    pub(super) mesh_shown: Option<u64>,
    /// The clip plane the boxes were cut with.
    drawn_clip: Option<ClipPlane>,
}

impl Default for AdaptiveMode {
    fn default() -> Self {
        AdaptiveMode {
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

impl AdaptiveMode {
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
        self.changed_at.is_some()
            || self.redraw
            || (self.job.is_some() && !self.deform.running())
            || self.deform.frames < self.deform.frames_wanted
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
    pub(super) fn default_pick(&self, eye: glam::Vec3, clip: Option<ClipPlane>) -> Option<usize> {
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
                let d = |n: &crate::stages::adaptive::OctreeNode| {
                    glam::Vec3::from_array(n.center).distance_squared(eye)
                };
                d(a).total_cmp(&d(b))
            })
            .map(|(i, _)| i)
    }
}

/// The mesh a rebuild runs on.
enum MeshInput {
    Prepared(Arc<PreparedMesh>),
    Inflated(Arc<InflatingMesh>, f32),
}

impl AdaptiveMode {
    /// Polls the rebuild, starts the next one, keeps the comparison current
    /// and uploads the drawing.
    pub fn run_frame(&mut self, shell: &mut Shell) {
        self.poll(shell);
        if let (Some(p), Some(scene)) = (&self.product, &shell.mesh.scene)
            && !self.deform.on
            && !Arc::ptr_eq(&p.mesh, &scene.prepared)
            && self.changed_at.is_none()
            && self.job.is_none()
        {
            // A new mesh was opened, or the deformation ended.
            self.request();
        }
        self.deform.tick();
        let due = self.changed_at.is_some_and(|t| t.elapsed() >= DEBOUNCE);
        if self.job.is_none() && shell.mesh.scene.is_some() {
            if due {
                self.changed_at = None;
                self.start_job(shell);
            } else if self.deform.running() {
                self.start_job(shell);
            }
        }
        if let Some(t) = self.changed_at {
            shell
                .ctx()
                .request_repaint_after(DEBOUNCE.saturating_sub(t.elapsed()));
        }
        if self.deform.running() || self.job.is_some() {
            shell.ctx().request_repaint();
        }
        self.refresh_comparison(shell);
        if self.show_boxes && self.drawn_clip != shell.settings.view.filter.clip {
            self.redraw = true;
        }
        if self.redraw {
            self.redraw = false;
            self.draw_scene(shell);
        }
    }

    fn poll(&mut self, shell: &mut Shell) {
        let Some(result) = self.job.as_ref().and_then(Job::poll) else {
            return;
        };
        self.job = None;
        match result {
            Ok(product) => {
                if product.frame.is_some() {
                    self.deform.frames += 1;
                } else {
                    shell.history.record_run(
                        "adaptive",
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
                let cell = self
                    .pick
                    .as_ref()
                    .zip(self.product.as_ref())
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
                self.product = Some(product);
                self.generation += 1;
                self.set_pick(picked);
            }
            Err(JobError::Cancelled) => {}
            Err(e) => {
                // A failing deformation would fail every frame: stop it.
                self.deform.playing = false;
                shell.notify(
                    format!("adaptive field: {e} — the previous field is kept"),
                    true,
                );
            }
        }
    }

    fn start_job(&mut self, shell: &mut Shell) {
        let Some(scene) = &shell.mesh.scene else {
            return;
        };
        if !shell.gpu_ok() {
            self.backend = Backend::Cpu;
        }
        let backend = self.backend;
        let gpu = (backend == Backend::Gpu).then(|| {
            self.gpu
                .get_or_insert_with(|| Arc::new(AdaptiveGpu::new(&shell.render_gpu)))
                .clone()
        });
        let input = if self.deform.on {
            let key = scene.prepared.source_hash;
            let inflating = match &self.deform.inflating {
                Some((k, m)) if *k == key => m.clone(),
                _ => {
                    let m = Arc::new(InflatingMesh::new(scene.prepared.mesh.clone()));
                    self.deform.inflating = Some((key, m.clone()));
                    m
                }
            };
            let offset = self.deform.amplitude
                * scene.prepared.mesh.bounds().diagonal()
                * self.deform.phase.sin();
            MeshInput::Inflated(inflating, offset)
        } else {
            MeshInput::Prepared(scene.prepared.clone())
        };
        let params = self.params;
        let label = format!(
            "{} adaptive field, depth {}..{}",
            backend.name(),
            params.start_depth,
            params.max_depth
        );
        self.job = Some(shell.spawn(label, move |_| {
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
        }));
    }

    /// Recomputes the adaptive-vs-uniform numbers when either field changed.
    fn refresh_comparison(&mut self, shell: &Shell) {
        let (Some(p), Some(uniform), true) = (&self.product, &shell.mesh.field, self.compare)
        else {
            return;
        };
        let key = (self.generation, Arc::as_ptr(uniform) as usize);
        if self
            .comparison
            .as_ref()
            .is_some_and(|(g, u, _)| (*g, *u) == key)
        {
            return;
        }
        self.comparison = Some((key.0, key.1, compare_with_uniform(&p.field, uniform)));
        self.redraw = true;
    }

    /// Uploads the mesh, the sprites and the lines of the scene.
    fn draw_scene(&mut self, shell: &mut Shell) {
        let (Some(p), Some(scene)) = (&self.product, &shell.mesh.scene) else {
            return;
        };
        if self.mesh_shown != Some(self.generation) {
            self.mesh_shown = Some(self.generation);
            if p.frame.is_some() {
                shell.viewport.set_demo_mesh(&p.mesh.mesh);
            } else {
                shell.viewport.set_scene(scene, &shell.settings.overlays);
            }
        }
        let points_level = self.level.filter(|_| self.level_points);
        let cells = match &shell.mesh.field {
            Some(uniform) if self.compare && p.frame.is_none() => {
                let right = shell.viewport.camera.view_from_world().row(0).truncate();
                let split = Split::facing(scene.prepared.mesh.bounds().center(), right);
                draw::split_cells(uniform, &p.field, points_level, split)
            }
            _ => draw::node_cells(&p.field, points_level),
        };
        let NodeCells { cells, nodes } = cells;
        let clip = shell.settings.view.filter.clip;
        let mut lines = Vec::new();
        self.boxes = (0, 0);
        if self.show_boxes {
            self.drawn_clip = clip;
            let (boxes, drawn, total) = draw::box_lines(&p.field, self.level, clip);
            lines = boxes;
            self.boxes = (drawn, total);
        }
        self.rss_volumes = (0, 0);
        if let (Some(level), Some(bvh)) = (self.rss_level, &p.bvh) {
            let (rss, drawn, total) = draw::rss_lines(bvh, level, clip);
            lines.extend(rss);
            self.rss_volumes = (drawn, total);
        }
        if let Some(probe) = &self.pick {
            lines.extend(probe_lines(probe));
        }
        self.cell_nodes = nodes;
        shell.viewport.set_cells(&cells);
        shell.viewport.set_pick_lines(&lines);
    }
}
