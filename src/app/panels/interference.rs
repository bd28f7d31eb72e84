//! Interference panel: image-space interference detection by stencil ray
//! counting ([`crate::stages::interference`], Knott 2003 ch. 4) on a scene
//! of many objects — boxes, or boxes mixed with tori and `spot` — at seeded
//! random poses, any one of them posed by sliders (the paper's figures
//! 4.13–4.14).
//!
//! While "show in viewport" is on, the panel owns the viewport: every
//! object in one merged mesh, grey-blue when apart, red when in an
//! interfering pair (the selected one lighter), and the localised points
//! (§4.5.5) as green crosses. The right panel shows the read-back images
//! live — stencil counts in false colour with a legend and per-class pixel
//! counts, edge depth, and the three identity images (Alg. 2–4) — with the
//! pixel under the mouse described, and "verify vs CPU" compares the
//! counts with the CPU reference. "occlusion queries" mode reads no
//! pixels (Alg. 5): only the pairs and the timing come back. "bounding-box
//! culling" (on by default, exact: [`crate::stages::interference::CullPlan`])
//! draws each object only where its box meets another's; the panel shows
//! how many triangles and edges the passes drew.
//!
//! A run renders into small viewports and takes milliseconds, so it runs
//! on the UI thread whenever an input changes.

use std::sync::Arc;

use eframe::egui;
use glam::Vec3;

use crate::app::viewer::Viewer;
use crate::mesh::Mesh;
use crate::stages::interference::images::{self, ImageKind};
use crate::stages::interference::scenes::{self, Placement, Shapes};
use crate::stages::interference::{
    CountImage, CullPlan, Identification, InterferenceGpu, InterferenceParams, InterferenceRun,
    InterferenceScene, InterferenceSummary, Localisation, RunOptions, ViewAxis, count_cpu,
    detect_gpu,
};
use crate::view::LineVertex;

const COLOR_APART: [f32; 4] = [0.45, 0.52, 0.62, 1.0];
const COLOR_HIT: [f32; 4] = [0.92, 0.16, 0.12, 1.0];
const COLOR_SELECTED: [f32; 4] = [0.95, 0.85, 0.35, 1.0];
const COLOR_SELECTED_HIT: [f32; 4] = [1.0, 0.55, 0.45, 1.0];
const COLOR_POINT: [f32; 4] = [0.15, 1.0, 0.25, 1.0];
/// At most this many localised points are drawn.
const MAX_DRAWN_POINTS: usize = 20_000;
/// Viewport sizes the slider offers.
const RESOLUTIONS: std::ops::RangeInclusive<u32> = 16..=2048;
const MAX_OBJECTS: usize = 500;

/// Read the images back (Alg. 2–4) or only the occlusion queries (Alg. 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReadMode {
    #[default]
    ReadPixels,
    OcclusionQueries,
}

impl ReadMode {
    pub fn from_name(name: &str) -> Option<ReadMode> {
        match name {
            "read-pixels" | "pixels" => Some(ReadMode::ReadPixels),
            "occlusion" | "queries" => Some(ReadMode::OcclusionQueries),
            _ => None,
        }
    }
}

/// One run over the chosen axes, and what it found.
struct Outcome {
    scene: InterferenceScene,
    runs: Vec<InterferenceRun>,
    summary: InterferenceSummary,
    located: Localisation,
    wall_ms: f64,
    gpu_ms: Option<f64>,
}

/// The panel's state (one field of the viewer).
pub struct InterferenceState {
    active: bool,
    open_header: bool,
    shapes: Shapes,
    count: usize,
    seed: u64,
    /// Meshes of `shapes` (built once per choice).
    meshes: Option<(Shapes, Arc<Vec<Mesh>>)>,
    placements: Vec<Placement>,
    /// The inputs `placements` were generated from.
    placed: Option<(Shapes, usize, u64)>,
    selected: usize,
    resolution: u32,
    /// Edge offset in thousandths of the scene's diagonal.
    offset_permille: f32,
    axes: [bool; 3],
    mode: ReadMode,
    cull: bool,
    identification: Identification,
    image: ImageKind,
    /// Which run's images are shown.
    image_run: usize,
    gpu: Option<Arc<InterferenceGpu>>,
    result: Option<Outcome>,
    texture: Option<(egui::TextureHandle, usize, ImageKind)>,
    dirty: bool,
    shown: bool,
    redraw: bool,
    framed: Option<(Shapes, usize, u64)>,
    error: Option<String>,
    /// The shown image against the CPU reference, with its run and view.
    verified: Option<(usize, String)>,
}

/// What a run depends on besides the poses: shapes, count, seed,
/// resolution, edge offset, axes, read mode, culling and identification.
type Inputs = (
    Shapes,
    usize,
    u64,
    u32,
    f32,
    [bool; 3],
    ReadMode,
    (bool, Identification),
);

impl Default for InterferenceState {
    fn default() -> Self {
        InterferenceState {
            active: false,
            open_header: false,
            shapes: Shapes::Boxes,
            count: 40,
            seed: 1,
            meshes: None,
            placements: Vec::new(),
            placed: None,
            selected: 0,
            resolution: 256,
            offset_permille: 1.0,
            axes: [false, false, true],
            mode: ReadMode::ReadPixels,
            cull: true,
            identification: Identification::default(),
            image: ImageKind::Counts,
            image_run: 0,
            gpu: None,
            result: None,
            texture: None,
            dirty: false,
            shown: false,
            redraw: false,
            framed: None,
            error: None,
            verified: None,
        }
    }
}

impl InterferenceState {
    /// Whether the panel owns the viewport.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Stops showing (another panel takes the viewport over).
    pub fn deactivate(&mut self) {
        self.active = false;
    }

    /// True while a run is due.
    pub fn busy(&self) -> bool {
        self.active && self.dirty
    }

    /// Shows a random scene (script `interfere:random-boxes`,
    /// `interfere:random-mixed`).
    pub fn activate_scene(&mut self, name: &str) -> Result<(), String> {
        let shapes = name
            .strip_prefix("random-")
            .and_then(Shapes::from_name)
            .ok_or(format!(
                "unknown interference scene {name} (random-boxes, random-mixed)"
            ))?;
        self.shapes = shapes;
        self.active = true;
        self.open_header = true;
        self.dirty = true;
        Ok(())
    }

    pub fn set_count(&mut self, count: usize) -> Result<(), String> {
        if !(1..=MAX_OBJECTS).contains(&count) {
            return Err(format!(
                "interference scene: {count} objects (1 to {MAX_OBJECTS})"
            ));
        }
        self.count = count;
        self.dirty = true;
        Ok(())
    }

    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
        self.dirty = true;
    }

    pub fn set_resolution(&mut self, res: u32) -> Result<(), String> {
        if !RESOLUTIONS.contains(&res) {
            return Err(format!(
                "interference viewport {res}² (from {} to {})",
                RESOLUTIONS.start(),
                RESOLUTIONS.end()
            ));
        }
        self.resolution = res;
        self.dirty = true;
        Ok(())
    }

    /// `x`, `y`, `z` or a combination (`xyz`, `x,z`).
    pub fn set_axes(&mut self, text: &str) -> Result<(), String> {
        let mut axes = [false; 3];
        for c in text.chars().filter(|c| !matches!(c, ',' | ' ')) {
            let axis = ViewAxis::parse(&c.to_string()).ok_or(format!(
                "interference axes {text:?}: {c:?} is not x, y or z"
            ))?;
            axes[ViewAxis::ALL.iter().position(|&a| a == axis).unwrap_or(0)] = true;
        }
        if axes == [false; 3] {
            return Err(format!("interference axes {text:?}: none given"));
        }
        self.axes = axes;
        self.dirty = true;
        Ok(())
    }

    pub fn set_mode(&mut self, name: &str) -> Result<(), String> {
        self.mode = ReadMode::from_name(name).ok_or(format!(
            "unknown interference mode {name} (read-pixels, occlusion)"
        ))?;
        self.dirty = true;
        Ok(())
    }

    pub fn set_image(&mut self, name: &str) -> Result<(), String> {
        self.image = match name {
            "counts" | "stencil" => ImageKind::Counts,
            "depth" => ImageKind::EdgeDepth,
            "ids" => ImageKind::EdgeObjects,
            "penetrating" => ImageKind::Penetrating,
            "penetrated" => ImageKind::Penetrated,
            _ => {
                return Err(format!(
                    "unknown interference image {name} (counts, depth, ids, penetrating, penetrated)"
                ));
            }
        };
        Ok(())
    }

    pub fn select(&mut self, object: usize) -> Result<(), String> {
        if object >= self.count {
            return Err(format!(
                "no object {object}: the scene has {} (from 0)",
                self.count
            ));
        }
        self.selected = object;
        self.redraw = true;
        Ok(())
    }

    /// Compares every run's counts with the CPU reference (script
    /// `interfere-verify`); an error names the first differing pixel.
    pub fn verify(&mut self) -> Result<String, String> {
        let r = self
            .result
            .as_ref()
            .ok_or("no interference run to verify")?;
        let mut lines = Vec::new();
        for run in &r.runs {
            let image = run
                .image
                .as_ref()
                .ok_or("occlusion-query mode read no pixels")?;
            lines.push(verify_image(&r.scene, image, run.cull.as_ref())?);
        }
        let text = lines.join("; ");
        self.verified = Some((self.image_run, text.clone()));
        Ok(text)
    }

    /// Moves the selected object (script `interfere-move:x,y,z`).
    pub fn move_selected(&mut self, to: Vec3) -> Result<(), String> {
        self.place();
        let p = self
            .placements
            .get_mut(self.selected)
            .ok_or("no object selected")?;
        p.translation = to;
        self.dirty = true;
        Ok(())
    }

    /// What a run depends on besides the poses.
    fn inputs(&self) -> Inputs {
        (
            self.shapes,
            self.count,
            self.seed,
            self.resolution,
            self.offset_permille,
            self.axes,
            self.mode,
            (self.cull, self.identification),
        )
    }

    fn axes(&self) -> Vec<ViewAxis> {
        ViewAxis::ALL
            .into_iter()
            .zip(self.axes)
            .filter_map(|(a, on)| on.then_some(a))
            .collect()
    }

    fn meshes(&mut self) -> Arc<Vec<Mesh>> {
        match &self.meshes {
            Some((s, m)) if *s == self.shapes => m.clone(),
            _ => {
                let m = Arc::new(self.shapes.meshes(3));
                self.meshes = Some((self.shapes, m.clone()));
                m
            }
        }
    }

    /// New random placements when the shapes, count or seed changed.
    fn place(&mut self) {
        let key = (self.shapes, self.count, self.seed);
        if self.placed != Some(key) {
            let shapes = self.meshes().len();
            self.placements =
                scenes::placements(self.count, shapes, self.seed, scenes::Layout::DENSE);
            self.placed = Some(key);
            self.selected = self.selected.min(self.count - 1);
        }
    }
}

/// The collapsible section in the left panel; also runs and draws.
pub fn interference_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    let open = std::mem::take(&mut viewer.interference.open_header);
    super::stage_section(
        ui,
        open,
        "Interference (stencil ray counting)",
        "interference_panel",
        |ui| controls_ui(&mut viewer.interference, ui),
    );
    update(viewer);
}

fn controls_ui(st: &mut InterferenceState, ui: &mut egui::Ui) {
    ui.checkbox(&mut st.active, "show in viewport");
    let before = st.inputs();
    ui.horizontal(|ui| {
        ui.label("objects");
        for s in Shapes::ALL {
            ui.selectable_value(&mut st.shapes, s, s.name());
        }
    });
    ui.add(egui::Slider::new(&mut st.count, 1..=MAX_OBJECTS).text("objects"));
    ui.add(egui::Slider::new(&mut st.seed, 0..=999).text("seed"));
    ui.add(
        egui::Slider::new(&mut st.resolution, RESOLUTIONS)
            .logarithmic(true)
            .text("viewport px"),
    );
    ui.add(
        egui::Slider::new(&mut st.offset_permille, 0.0..=10.0).text("edge offset ‰ of diagonal"),
    );
    ui.horizontal(|ui| {
        ui.label("view axes");
        for (k, axis) in ViewAxis::ALL.into_iter().enumerate() {
            ui.checkbox(&mut st.axes[k], axis.name());
        }
    });
    if st.axes == [false; 3] {
        st.axes[2] = true;
    }
    ui.horizontal(|ui| {
        ui.selectable_value(&mut st.mode, ReadMode::ReadPixels, "read pixels");
        ui.selectable_value(
            &mut st.mode,
            ReadMode::OcclusionQueries,
            "occlusion queries",
        );
    });
    ui.checkbox(&mut st.cull, "bounding-box culling")
        .on_hover_text(
            "Exact: each object's faces are drawn only inside the screen rectangle of \
         its overlap with other objects' boxes, only edges reaching that overlap \
         are drawn, and objects overlapping nothing are not drawn at all.",
        );
    ui.horizontal(|ui| {
        ui.label("penetrated by");
        for id in Identification::ALL {
            ui.selectable_value(&mut st.identification, id, id.name());
        }
    })
    .response
    .on_hover_text(
        "Pair passes: the paper's Alg. 4, a stencil count per candidate object. \
         Weighted sums: the counting pass also sums s·(1, j+1, (j+1)²) per face, \
         which names the one or two objects an edge point is inside; only \
         objects with other pixels get pair passes.",
    );
    st.dirty |= before != st.inputs();
    st.place();
    pose_ui(st, ui);
    if let Some(e) = &st.error {
        ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
    }
    if let Some(r) = &st.result {
        result_ui(r, ui);
    }
}

/// The selected object's pose sliders.
fn pose_ui(st: &mut InterferenceState, ui: &mut egui::Ui) {
    let mut selected = st.selected;
    ui.add(egui::Slider::new(&mut selected, 0..=st.count - 1).text("selected object"));
    if selected != st.selected {
        st.selected = selected;
        st.redraw = true;
    }
    let reach = 1.6 * (st.count as f32).cbrt().ceil() + 1.0;
    let Some(p) = st.placements.get_mut(st.selected) else {
        return;
    };
    let old = *p;
    let mut t = p.translation.to_array();
    let mut a = p.angles.to_array();
    for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
        ui.add(egui::Slider::new(&mut t[i], -1.0..=reach).text(format!("move {axis}")));
    }
    for (i, name) in ["yaw", "pitch", "roll"].into_iter().enumerate() {
        ui.add(egui::Slider::new(&mut a[i], -180.0..=180.0).text(format!("{name} °")));
    }
    p.translation = Vec3::from(t);
    p.angles = Vec3::from(a);
    st.dirty |= *p != old;
}

fn result_ui(r: &Outcome, ui: &mut egui::Ui) {
    let triangles = r.scene.triangle_count();
    let pairs = &r.summary.pairs;
    let color = if pairs.is_empty() {
        egui::Color32::from_rgb(120, 200, 120)
    } else {
        egui::Color32::from_rgb(240, 110, 80)
    };
    ui.colored_label(
        color,
        format!(
            "{} objects, {triangles} triangles: {} interfering pairs",
            r.scene.objects.len(),
            pairs.len()
        ),
    );
    let gpu = r.gpu_ms.map_or("-".into(), |g| format!("{g:.3}"));
    ui.label(format!("wall {:.2} ms · GPU {gpu} ms", r.wall_ms));
    for run in &r.runs {
        let (px, py) = run.view.pixel_size();
        let early = if run.queries.early_exit {
            " · early non-interference"
        } else {
            ""
        };
        ui.label(format!(
            "{}: {}×{}, pixel {px:.4}×{py:.4} world{early}",
            run.view.axis.name(),
            run.view.width,
            run.view.height
        ));
        let d = &run.drawn;
        ui.label(format!(
            "  drew {}/{} objects, {}/{} triangles, {}/{} edges; pairs {}/{} triangles, {}/{} edges",
            d.objects.drawn,
            d.objects.total,
            d.triangles.drawn,
            d.triangles.total,
            d.edges.drawn,
            d.edges.total,
            d.pair_triangles.drawn,
            d.pair_triangles.total,
            d.pair_edges.drawn,
            d.pair_edges.total,
        ));
        let id = &run.identification;
        if let Some(used) = id.used {
            let ambiguous: u64 = id.ambiguous_pixels.iter().sum();
            ui.label(format!(
                "  penetrated by {}: pair passes for {} objects, {ambiguous} ambiguous pixels",
                used.name(),
                id.pair_pass_objects.len(),
            ));
        }
        if let Some(why) = &id.fallback {
            ui.label(format!("  weighted sums not used: {why}"));
        }
    }
    if r.runs.iter().any(|run| run.image.is_some()) {
        let si = &r.located.self_interference;
        ui.label(format!(
            "{} localised points on {} edges",
            r.located.points.len(),
            r.located.edges.len()
        ));
        ui.label(format!(
            "self-interference (filtered): {} px on objects {:?}",
            si.pixels, si.objects
        ));
    }
    if !r.summary.self_only.is_empty() {
        ui.label(format!("self only: {:?}", r.summary.self_only));
    }
    let open = &r.located.open_meshes;
    if !open.open_objects.is_empty() || !open.negative_pixels.is_empty() {
        ui.label(format!(
            "open meshes {:?}; negative counts (object, px) {:?}",
            open.open_objects, open.negative_pixels
        ));
    }
    egui::ScrollArea::vertical()
        .id_salt("interference_pairs")
        .max_height(160.0)
        .show(ui, |ui| {
            egui::Grid::new("interference_pairs_grid")
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("pair");
                    ui.strong("pixels (i in j, j in i)");
                    ui.end_row();
                    for &[i, j] in pairs {
                        let px = |a: usize, b: usize| -> u64 {
                            r.runs
                                .iter()
                                .flat_map(|run| &run.queries.pairs)
                                .filter(|q| q.penetrating == a && q.penetrated == b)
                                .map(|q| q.pixels)
                                .sum()
                        };
                        ui.label(format!("{i} – {j}"));
                        ui.label(format!("{}, {}", px(i, j), px(j, i)));
                        ui.end_row();
                    }
                });
        });
}

/// Runs when inputs changed, takes or gives back the viewport, draws.
fn update(viewer: &mut Viewer) {
    let st = &mut viewer.interference;
    if st.active && !st.shown {
        viewer.collide.deactivate();
        viewer.tri_tri.deactivate();
        viewer.adaptive.deactivate();
        let st = &mut viewer.interference;
        st.shown = true;
        st.dirty = true;
        st.framed = None;
    } else if st.active
        && (viewer.collide.is_active() || viewer.tri_tri.is_active() || viewer.adaptive.is_active())
    {
        st.active = false;
    }
    let st = &mut viewer.interference;
    if !st.active {
        if st.shown {
            st.shown = false;
            st.redraw = false;
            if !viewer.collide.is_active()
                && !viewer.tri_tri.is_active()
                && !viewer.adaptive.is_active()
            {
                viewer.refresh_cells();
                viewer.refresh_overlays();
            }
        }
        return;
    }
    if st.dirty {
        st.dirty = false;
        if let Err(e) = run(viewer) {
            // The previous result stays on screen.
            viewer.interference.error = Some(e.clone());
            viewer.notify(format!("interference: {e}"), true);
        }
    }
    if viewer.busy() || viewer.tri_tri.owns_viewport() {
        viewer.interference.redraw = true;
    } else if viewer.interference.redraw {
        viewer.interference.redraw = false;
        draw(viewer);
    }
}

/// Builds the scene and runs the stage on every chosen axis.
fn run(viewer: &mut Viewer) -> Result<(), String> {
    let st = &mut viewer.interference;
    if st.gpu.is_none() {
        st.gpu = Some(Arc::new(
            InterferenceGpu::new(&viewer.render_gpu).map_err(|e| e.to_string())?,
        ));
    }
    st.place();
    let meshes = st.meshes();
    let scene = scenes::build(&meshes, &st.placements).map_err(|e| e.to_string())?;
    let diagonal = {
        let b = scene.bounds();
        (b.max - b.min).length()
    };
    let params = InterferenceParams {
        width: st.resolution,
        height: st.resolution,
        edge_offset: Some(1e-3 * st.offset_permille * diagonal),
        cull: st.cull,
        identification: st.identification,
        ..Default::default()
    };
    let options = RunOptions {
        read_pixels: st.mode == ReadMode::ReadPixels,
        ..Default::default()
    };
    let stage = st.gpu.clone().expect("created above");
    let (runs, summary) = detect_gpu(
        &viewer.render_gpu,
        &stage,
        &scene,
        &params,
        &st.axes(),
        options,
    )
    .map_err(|e| e.to_string())?;
    let located = Localisation::from_runs(&scene, &runs);
    let phases = runs.iter().flat_map(|r| &r.phases);
    let gpu_ms = phases
        .clone()
        .map(|p| p.gpu_ms)
        .sum::<Option<f64>>()
        .filter(|_| phases.count() > 0);
    let st = &mut viewer.interference;
    st.result = Some(Outcome {
        wall_ms: runs.iter().map(|r| r.wall_ms).sum(),
        gpu_ms,
        scene,
        runs,
        summary,
        located,
    });
    st.image_run = st.image_run.min(st.axes().len() - 1);
    st.texture = None;
    st.verified = None;
    st.error = None;
    st.redraw = true;
    Ok(())
}

/// Uploads the objects (interfering ones highlighted) and the points.
fn draw(viewer: &mut Viewer) {
    let st = &mut viewer.interference;
    let Some(r) = &st.result else {
        return;
    };
    let key = st.placed;
    let frame = st.framed != key;
    st.framed = key;
    let mut meshes = Vec::with_capacity(r.scene.objects.len());
    let mut colors = Vec::new();
    for (k, o) in r.scene.objects.iter().enumerate() {
        let hit = r.summary.interfering.get(k).copied().unwrap_or(false);
        let color = match (hit, k == st.selected) {
            (false, false) => COLOR_APART,
            (true, false) => COLOR_HIT,
            (false, true) => COLOR_SELECTED,
            (true, true) => COLOR_SELECTED_HIT,
        };
        colors.extend(std::iter::repeat_n(color, o.mesh.positions.len()));
        meshes.push(o.mesh.clone());
    }
    let mesh = Mesh::merge(&meshes, "interference scene");
    let b = mesh.bounds();
    let arm = 0.01 * (b.max - b.min).length();
    let mut lines = Vec::new();
    for p in r.located.points.iter().take(MAX_DRAWN_POINTS) {
        let at = p.position.as_vec3();
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            lines.push(LineVertex::new(at - axis * arm, COLOR_POINT));
            lines.push(LineVertex::new(at + axis * arm, COLOR_POINT));
        }
    }
    viewer
        .viewport
        .set_demo_mesh_colored(&mesh, Some(&colors), frame);
    viewer.viewport.set_cells(&[]);
    viewer.viewport.set_pick_lines(&lines);
}

/// The read-back images in the right panel, with legend and hover details.
pub fn images_ui(viewer: &mut Viewer, ui: &mut egui::Ui) {
    let st = &mut viewer.interference;
    if !st.active {
        return;
    }
    ui.heading("Interference images");
    let Some(r) = &st.result else {
        ui.label("no run yet");
        return;
    };
    let with_images: Vec<usize> = (0..r.runs.len())
        .filter(|&k| r.runs[k].image.is_some())
        .collect();
    if with_images.is_empty() {
        ui.label("occlusion-query mode reads no pixels (Alg. 5): only the pairs come back.");
        return;
    }
    ui.horizontal_wrapped(|ui| {
        for &k in &with_images {
            let name = format!("view {}", r.runs[k].view.axis.name());
            ui.selectable_value(&mut st.image_run, k, name);
        }
    });
    egui::ComboBox::from_id_salt("interference_image_kind")
        .selected_text(st.image.name())
        .show_ui(ui, |ui| {
            for kind in ImageKind::ALL {
                ui.selectable_value(&mut st.image, kind, kind.name());
            }
        });
    let run_index = if with_images.contains(&st.image_run) {
        st.image_run
    } else {
        with_images[0]
    };
    let cull = r.runs[run_index].cull.as_ref();
    let image = r.runs[run_index].image.as_ref().expect("filtered above");
    let stale = st
        .texture
        .as_ref()
        .is_none_or(|(_, k, kind)| (*k, *kind) != (run_index, st.image));
    if stale {
        let (w, h) = (image.view.width as usize, image.view.height as usize);
        let pixels: Vec<u8> = images::rgba(image, st.image).concat();
        let color = egui::ColorImage::from_rgba_unmultiplied([w, h], &pixels);
        let texture =
            ui.ctx()
                .load_texture("interference image", color, egui::TextureOptions::NEAREST);
        st.texture = Some((texture, run_index, st.image));
    }
    let (texture, _, _) = st.texture.as_ref().expect("loaded above");
    let width = ui.available_width().min(300.0);
    let aspect = image.view.height as f32 / image.view.width as f32;
    let response = ui.add(
        egui::Image::new((texture.id(), egui::vec2(width, width * aspect)))
            .sense(egui::Sense::hover()),
    );
    if let Some(pos) = response.hover_pos() {
        let rel = (pos - response.rect.min) / response.rect.size();
        let x = ((rel.x * image.view.width as f32) as u32).min(image.view.width - 1);
        let y = ((rel.y * image.view.height as f32) as u32).min(image.view.height - 1);
        let i = (y * image.view.width + x) as usize;
        let object = |v: u32| {
            (v as usize)
                .checked_sub(1)
                .map_or("-".into(), |k| k.to_string())
        };
        ui.label(format!(
            "pixel ({x}, {y}): count {}, depth {:.4}, edge of object {} (edge {}), inside {}",
            image.counts[i],
            image.edge_depth[i],
            object(image.ids[i][0]),
            image.ids[i][1].saturating_sub(1),
            object(image.penetrated[i]),
        ));
    }
    legend_ui(ui, image, st.image);
    if cull.is_some() {
        ui.label(
            "culled: faces count only inside each object's overlap rectangle and only \
             edges reaching an overlap are drawn, so elsewhere there is no edge or a \
             count of 0",
        );
    }
    ui.horizontal(|ui| {
        if ui.button("verify vs CPU").clicked() {
            let outcome = verify_image(&r.scene, image, cull).unwrap_or_else(|e| e);
            st.verified = Some((run_index, outcome));
        }
        if let Some((_, text)) = st.verified.as_ref().filter(|(k, _)| *k == run_index) {
            ui.label(text);
        }
    });
}

/// The GPU counts of `image` against [`count_cpu`] for the same rays and
/// culling: pixels compared (those the rasteriser's tie rules cannot
/// decide) and the first difference as an error.
fn verify_image(
    scene: &InterferenceScene,
    image: &CountImage,
    cull: Option<&CullPlan>,
) -> Result<String, String> {
    let cpu = count_cpu(scene, &image.view, &image.edge_depth, cull);
    let width = image.view.width as usize;
    let compared = cpu.ambiguous.iter().filter(|&&a| !a).count();
    let differ: Vec<usize> = (0..cpu.counts.len())
        .filter(|&i| !cpu.ambiguous[i] && cpu.counts[i] != image.counts[i])
        .collect();
    let axis = image.view.axis.name();
    match differ.first() {
        None => Ok(format!("{axis}: {compared} pixels equal the CPU counts")),
        Some(&i) => Err(format!(
            "{axis}: {} of {compared} pixels differ from the CPU, first ({}, {}): GPU {} CPU {}",
            differ.len(),
            i % width,
            i / width,
            image.counts[i],
            cpu.counts[i]
        )),
    }
}

fn swatch(ui: &mut egui::Ui, color: [u8; 4], label: String) {
    ui.horizontal(|ui| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
        let [r, g, b, _] = color;
        ui.painter()
            .rect_filled(rect, 2.0, egui::Color32::from_rgb(r, g, b));
        ui.painter().rect_stroke(
            rect,
            2.0,
            egui::Stroke::new(1.0, egui::Color32::GRAY),
            egui::StrokeKind::Inside,
        );
        ui.label(label);
    });
}

fn legend_ui(ui: &mut egui::Ui, image: &CountImage, kind: ImageKind) {
    match kind {
        ImageKind::Counts => {
            let mut per_class = [0usize; images::COUNT_LEGEND.len()];
            for (&c, &d) in image.counts.iter().zip(&image.edge_depth) {
                let color = images::count_color(c, d < 1.0);
                if let Some(k) = images::COUNT_LEGEND.iter().position(|e| e.1 == color) {
                    per_class[k] += 1;
                }
            }
            ui.label("stencil count at the nearest edge point (pixels):");
            for ((label, color), n) in images::COUNT_LEGEND.iter().zip(per_class) {
                swatch(ui, *color, format!("{label}: {n}"));
            }
        }
        ImageKind::EdgeDepth => {
            ui.label("nearest (offset) edge depth: white near, dark far; black no edge");
        }
        _ => {
            let mut objects: Vec<usize> = match kind {
                ImageKind::EdgeObjects => image.ids.iter().map(|i| i[0]).collect(),
                ImageKind::Penetrating => image.inside_ids.iter().map(|i| i[0]).collect(),
                _ => image.penetrated.clone(),
            }
            .into_iter()
            .filter_map(|v| (v as usize).checked_sub(1))
            .collect();
            objects.sort_unstable();
            objects.dedup();
            ui.label(format!(
                "{} objects in this image, one colour each:",
                objects.len()
            ));
            // A grid keeps the side panel at its width.
            egui::Grid::new("interference_id_legend").show(ui, |ui| {
                for (n, &k) in objects.iter().take(24).enumerate() {
                    let [r, g, b, _] = images::object_color(Some(k));
                    ui.colored_label(egui::Color32::from_rgb(r, g, b), k.to_string());
                    if n % 6 == 5 {
                        ui.end_row();
                    }
                }
            });
        }
    }
}
