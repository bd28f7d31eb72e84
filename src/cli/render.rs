//! `collidoscope render MESH.obj --out shot.png`: an offscreen picture of a
//! mesh, its field's cells or a field slice, from the framing camera or
//! one saved as JSON (`--camera`), and (`--frames N`) frame timings. Field
//! and slice images carry their colour bar, axes and caption
//! ([`super::render_legend`]) unless `--no-legend`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;

use super::{BackendArg, SignArg, render_legend};
use crate::gpu::GpuContext;
use crate::io::{Format, OutputPlan};
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::stages::iso_surface::IsoSurfaceGpu;
use crate::stages::sdf::{self, Backend, SdfField, SdfGpu, SdfParams, SignMode};
use crate::view::{
    Axis, Camera, CellFilter, ColorMap, MIN_OPACITY, MeshMode, RenderTarget, ViewRenderer,
    ViewSettings, cells_from_field, default_value_range, slice_dims, slice_image, srgb_to_linear,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ViewArg {
    /// The mesh alone, shaded with its wireframe.
    Mesh,
    /// The field's cells as coloured points, with the mesh.
    Field,
    /// One axis-aligned slice of the field as an image with iso-lines.
    Slice,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FilterArg {
    All,
    /// Cells with negative distance only (Sundholm fig. 7.3).
    Inside,
    Outside,
    /// Cells within --band-cells cells of the surface.
    Band,
}

impl FilterArg {
    fn name(self) -> &'static str {
        match self {
            FilterArg::All => "all",
            FilterArg::Inside => "inside",
            FilterArg::Outside => "outside",
            FilterArg::Band => "band",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorMapArg {
    Sundholm,
    Diverging,
    Viridis,
    Turbo,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MeshArg {
    Shaded,
    Wireframe,
    ShadedWireframe,
    Hidden,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AxisArg {
    X,
    Y,
    Z,
}

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub load: super::LoadOpts,
    /// Mesh file: OBJ, PLY, STL or OFF (an OBJ's objects merged).
    pub mesh: PathBuf,
    /// What the picture shows.
    #[arg(long, value_enum, default_value = "field")]
    pub view: ViewArg,
    /// Cells along the longest axis of the field (8–512).
    #[arg(long, default_value_t = 64)]
    pub res: u32,
    /// Where the field is computed.
    #[arg(long, value_enum, default_value = "gpu")]
    pub backend: BackendArg,
    /// Grid thickness: padding on every side, as a fraction of the longest side.
    #[arg(long, default_value_t = 0.1)]
    pub pad: f32,
    /// Sign mode; default: pseudo-normal when the mesh is closed and
    /// consistently oriented, winding otherwise.
    #[arg(long, value_enum)]
    pub sign: Option<SignArg>,
    /// Which cells are drawn.
    #[arg(long, value_enum, default_value = "all")]
    pub filter: FilterArg,
    /// Half-width of `--filter band`, in cells.
    #[arg(long, default_value_t = 2.0)]
    pub band_cells: f32,
    /// The colour map of signed distance.
    #[arg(long, value_enum, default_value = "sundholm")]
    pub colormap: ColorMapArg,
    /// |distance| at full colour saturation (default: the largest |distance|).
    #[arg(long)]
    pub range: Option<f32>,
    /// Cell sprite diameter in pixels.
    #[arg(long, default_value_t = 3.0)]
    pub point_size: f32,
    /// How the mesh is drawn; default: shaded + wireframe for `--view mesh`,
    /// hidden for `--filter inside` (the mesh would cover the cells), shaded otherwise.
    #[arg(long, value_enum)]
    pub mesh_mode: Option<MeshArg>,
    /// Image size, WIDTHxHEIGHT pixels (for `slice`: the most the image may fill).
    #[arg(long, default_value = "1600x1000", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Slice axis (`--view slice`).
    #[arg(long, value_enum, default_value = "z")]
    pub axis: AxisArg,
    /// Slice index along the axis (default: the middle).
    #[arg(long)]
    pub slice_index: Option<u32>,
    /// The camera as JSON (as the viewer's "copy camera" or `save-camera:`
    /// writes it); default: framing the mesh and the grid.
    #[arg(long)]
    pub camera: Option<PathBuf>,
    /// Also draw the field's iso-surface at this level (mesh units),
    /// extracted on the GPU by marching cubes (`--view field`).
    #[arg(long)]
    pub iso: Option<f32>,
    /// The shaded mesh's opacity, 0.05–1: below 1 the cells and the
    /// iso-surface inside show through.
    #[arg(long, default_value_t = 1.0)]
    pub opacity: f32,
    /// Render this many frames and print median GPU and wall frame times.
    #[arg(long)]
    pub frames: Option<u32>,
    /// Leave out the colour bar, the slice's axes and the caption that
    /// `--view field` and `--view slice` images get around them (`--size`
    /// is the picture's; the legend adds its margins).
    #[arg(long)]
    pub no_legend: bool,
    /// Output PNG.
    #[arg(long)]
    pub out: PathBuf,
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("size {s:?} should be WIDTHxHEIGHT, e.g. 1600x1000");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("size {w}x{h} must be 1..=16384 on each side"));
    }
    Ok((w, h))
}

/// What the field needs besides the mesh.
struct FieldJob {
    mesh: PreparedMesh,
    params: SdfParams,
    backend: Backend,
    sdf_gpu: Option<SdfGpu>,
}

impl FieldJob {
    fn compute(&self) -> anyhow::Result<SdfField> {
        Ok(sdf::compute(
            &self.mesh,
            &self.params,
            self.backend,
            self.sdf_gpu.as_ref(),
            &Progress::default(),
        )?)
    }
}

pub fn run(args: RenderArgs) -> anyhow::Result<()> {
    let mut plan = OutputPlan::new();
    plan.input("the mesh", &args.mesh);
    if let Some(camera) = &args.camera {
        plan.input("--camera", camera);
    }
    plan.output("--out", &args.out, Format::PNG).check()?;
    if !(args.point_size.is_finite() && args.point_size > 0.0) {
        anyhow::bail!(
            "--point-size {} must be a positive number of pixels",
            args.point_size
        );
    }
    if !(args.band_cells.is_finite() && args.band_cells > 0.0) {
        anyhow::bail!(
            "--band-cells {} must be a positive number of cells",
            args.band_cells
        );
    }
    if let Some(r) = args.range
        && !(r.is_finite() && r > 0.0)
    {
        anyhow::bail!("--range {r} must be a positive distance");
    }
    if !(MIN_OPACITY..=1.0).contains(&args.opacity) {
        anyhow::bail!("--opacity {} must be from {MIN_OPACITY} to 1", args.opacity);
    }
    if let Some(level) = args.iso {
        if !level.is_finite() {
            anyhow::bail!("--iso {level} must be a finite level in mesh units");
        }
        if args.view != ViewArg::Field {
            anyhow::bail!("--iso draws a field's level set: use it with --view field");
        }
    }
    let camera = args
        .camera
        .as_deref()
        .map(Camera::load)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let raw = super::load_mesh(&args.mesh, args.load)?;
    let needs_field = args.view != ViewArg::Mesh;
    let needs_gpu = args.view != ViewArg::Slice
        || args.frames.is_some()
        || Backend::from(args.backend).is_gpu();
    let gpu = if needs_gpu {
        Some(GpuContext::headless()?)
    } else {
        None
    };

    let job = if needs_field {
        let mesh = PreparedMesh::new(&raw)?;
        let sign_mode = match args.sign {
            Some(s) => SignMode::from(s),
            None if mesh.report.pseudo_normal_sign_trusted => SignMode::PseudoNormal,
            None => SignMode::Winding,
        };
        let params = SdfParams {
            resolution: args.res,
            padding: args.pad,
            band: None,
            sign_mode,
        };
        params.validate()?;
        let backend = Backend::from(args.backend);
        let sdf_gpu = match (&gpu, backend.is_gpu()) {
            (Some(g), true) => Some(SdfGpu::new(g)),
            _ => None,
        };
        Some(FieldJob {
            mesh,
            params,
            backend,
            sdf_gpu,
        })
    } else {
        None
    };
    let started = Instant::now();
    let field = job.as_ref().map(FieldJob::compute).transpose()?;
    let field_ms = started.elapsed().as_secs_f64() * 1e3;

    let color_map = match args.colormap {
        ColorMapArg::Sundholm => ColorMap::Sundholm,
        ColorMapArg::Diverging => ColorMap::Diverging,
        ColorMapArg::Viridis => ColorMap::Viridis,
        ColorMapArg::Turbo => ColorMap::Turbo,
    };
    let range = args
        .range
        .or(field.as_ref().map(default_value_range))
        .unwrap_or(1.0);

    if let (ViewArg::Slice, Some(field)) = (args.view, &field) {
        let axis = match args.axis {
            AxisArg::X => Axis::X,
            AxisArg::Y => Axis::Y,
            AxisArg::Z => Axis::Z,
        };
        let (nu, nv, na) = slice_dims(field, axis);
        let index = args.slice_index.unwrap_or(na / 2);
        if index >= na {
            anyhow::bail!(
                "--slice-index {index} is outside the grid's 0..{na} cells along {}",
                axis.name()
            );
        }
        let scale = (args.size.0 / nu.max(1))
            .min(args.size.1 / nv.max(1))
            .max(1);
        let img = slice_image(field, axis, index, color_map, -range, range, scale);
        let img = if args.no_legend {
            img
        } else {
            let mesh = mesh_label(&args.mesh);
            render_legend::slice_figure(&img, field, axis, index, color_map, range, &mesh)
                .map_err(anyhow::Error::msg)?
        };
        write_png(&args.out, &img)?;
        println!(
            "slice {}={index} of a {}×{}×{} field of {} ({} ms, {}), range ±{range:.4} → {} ({}×{})",
            axis.name(),
            field.grid.dims.x,
            field.grid.dims.y,
            field.grid.dims.z,
            args.mesh.display(),
            fmt_ms(field_ms),
            field.backend.name(),
            args.out.display(),
            img.width(),
            img.height(),
        );
        return Ok(());
    }

    let gpu = gpu.context("a GPU context is needed to render")?;
    let mut renderer = ViewRenderer::new(&gpu.device);
    renderer.set_mesh(&gpu.device, &raw);
    let cells = field.as_ref().map(cells_from_field).unwrap_or_default();
    renderer.set_cells(&gpu.device, &cells);
    let iso_triangles = match (args.iso, &field) {
        (Some(level), Some(f)) => {
            let [r, g, b, _] = color_map.color_between(level, -range, range);
            let color = [r, g, b].map(srgb_to_linear);
            let surface = IsoSurfaceGpu::new(&gpu).extract(
                f.into(),
                level,
                [color[0], color[1], color[2], 1.0],
            )?;
            let triangles = surface.triangles;
            renderer.set_surface(Some((surface.vertices, triangles * 3)));
            Some((level, triangles))
        }
        _ => None,
    };

    let cell_size = field.as_ref().map_or(1.0, |f| f.grid.cell_size);
    let filter = match args.filter {
        FilterArg::All => CellFilter::default(),
        FilterArg::Inside => CellFilter {
            inside_only: true,
            ..Default::default()
        },
        FilterArg::Outside => CellFilter {
            outside_only: true,
            ..Default::default()
        },
        FilterArg::Band => CellFilter {
            band: Some(args.band_cells * cell_size),
            ..Default::default()
        },
    };
    let mesh_mode = match args.mesh_mode {
        Some(MeshArg::Shaded) => MeshMode::Shaded,
        Some(MeshArg::Wireframe) => MeshMode::Wireframe,
        Some(MeshArg::ShadedWireframe) => MeshMode::ShadedWireframe,
        Some(MeshArg::Hidden) => MeshMode::Hidden,
        None if args.view == ViewArg::Mesh => MeshMode::ShadedWireframe,
        None if args.filter == FilterArg::Inside => MeshMode::Hidden,
        None => MeshMode::Shaded,
    };
    let settings = ViewSettings {
        mesh_mode,
        show_cells: args.view == ViewArg::Field,
        point_size: args.point_size,
        color_map,
        value_min: -range,
        value_max: range,
        filter,
        mesh_opacity: args.opacity,
        ..Default::default()
    };
    let bounds = match &field {
        Some(f) => raw.bounds().union(f.grid.bounds()),
        None => raw.bounds(),
    };
    let camera = camera.unwrap_or_else(|| Camera::framing(bounds));
    let target = RenderTarget::new(&gpu.device, args.size.0, args.size.1);
    renderer.try_render(&gpu, &target, &camera, &settings)?;
    let img = target.read_rgba(&gpu)?;
    let img = match &field {
        Some(f) if settings.show_cells && !args.no_legend => {
            let values: Vec<f32> = cells.iter().map(|c| c[3]).collect();
            let what = format!(
                "{} cells of a {}×{}×{} field ({} backend)",
                args.filter.name(),
                f.grid.dims.x,
                f.grid.dims.y,
                f.grid.dims.z,
                f.backend.name()
            );
            let mesh = mesh_label(&args.mesh);
            render_legend::field_figure(&img, &values, color_map, range, &mesh, &what)
                .map_err(anyhow::Error::msg)?
        }
        _ => img,
    };
    write_png(&args.out, &img)?;
    if let Some((level, triangles)) = iso_triangles {
        println!("iso-surface at {level}: {triangles} triangles (GPU marching cubes)");
    }
    println!(
        "{} of {} ({} triangles{}) on {} → {} ({}×{})",
        match args.view {
            ViewArg::Mesh => "mesh",
            _ => "field cells",
        },
        args.mesh.display(),
        raw.triangles.len(),
        match &field {
            Some(f) => format!(
                ", {} cells by {} in {} ms",
                f.values.len(),
                f.backend.name(),
                fmt_ms(field_ms)
            ),
            None => String::new(),
        },
        gpu.describe(),
        args.out.display(),
        img.width(),
        img.height(),
    );

    if let Some(frames) = args.frames.filter(|&n| n > 0) {
        let mut gpu_ms = Vec::new();
        let mut wall_ms = Vec::new();
        for _ in 0..frames {
            let t = Instant::now();
            if let Some(ms) = renderer.try_render(&gpu, &target, &camera, &settings)? {
                gpu_ms.push(ms);
            }
            wall_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let drawn = if settings.show_cells {
            renderer.cell_count()
        } else {
            0
        };
        println!(
            "{frames} frames of {}×{} with {drawn} cell sprites and {} triangles: median GPU {} ms, median wall {} ms",
            args.size.0,
            args.size.1,
            renderer.mesh_triangle_count(),
            median(&mut gpu_ms).map_or("n/a (no timestamp queries)".into(), fmt_ms),
            median(&mut wall_ms).map_or("n/a".into(), fmt_ms),
        );
        if let Some(job) = &job {
            // End to end as the viewer does it after a parameter change.
            let mut total = Vec::new();
            let mut compute = Vec::new();
            for _ in 0..frames.min(5) {
                let t = Instant::now();
                let f = job.compute()?;
                compute.push(t.elapsed().as_secs_f64() * 1e3);
                let cells = cells_from_field(&f);
                renderer.set_cell_values(&gpu.device, &gpu.queue, &cells);
                renderer.try_render(&gpu, &target, &camera, &settings)?;
                total.push(t.elapsed().as_secs_f64() * 1e3);
            }
            println!(
                "recompute field ({}, {} cells) + re-upload cells + one frame: median {} ms (field alone {} ms)",
                job.backend.name(),
                cells.len(),
                median(&mut total).map_or("n/a".into(), fmt_ms),
                median(&mut compute).map_or("n/a".into(), fmt_ms),
            );
        }
    }
    Ok(())
}

/// The mesh as a caption names it: its file name.
fn mesh_label(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn write_png(path: &Path, img: &image::RgbaImage) -> anyhow::Result<()> {
    let mut bytes = Vec::new();
    img.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )
    .context("cannot encode the PNG")?;
    crate::io::write_atomically(path, &bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some(values[values.len() / 2])
}

fn fmt_ms(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.3}")
    } else {
        format!("{ms:.1}")
    }
}
