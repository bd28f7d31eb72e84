//! The viewer's offscreen renderer on a real (software) GPU: mesh, cells,
//! lines, and the `render` CLI.

use crate::common;
use crate::common::cli::exe;

use std::path::Path;

use collidoscope::geom::Aabb;
use collidoscope::mesh::PreparedMesh;
use collidoscope::progress::Progress;
use collidoscope::stages::sdf::{self, Backend, SdfParams, SignMode};
use collidoscope::view::{
    Camera, CellFilter, ClipPlane, ColorMap, LineVertex, MeshMode, RenderTarget, ViewRenderer,
    ViewSettings, cells_from_field, default_value_range,
};
use glam::Vec3;
use image::RgbaImage;

const W: u32 = 128;
const H: u32 = 96;

fn render(
    gpu: &collidoscope::gpu::GpuContext,
    renderer: &ViewRenderer,
    camera: &Camera,
    settings: &ViewSettings,
) -> RgbaImage {
    let target = RenderTarget::new(&gpu.device, W, H);
    assert_eq!(target.size(), (W, H));
    renderer
        .try_render(gpu, &target, camera, settings)
        .expect("renders");
    target.read_rgba(gpu).expect("reads back")
}

fn non_background(img: &RgbaImage, background: [u8; 4]) -> Vec<[u8; 4]> {
    img.pixels()
        .map(|p| p.0)
        .filter(|&p| p != background)
        .collect()
}

#[test]
fn shaded_box_fills_the_centre_and_leaves_the_corners() {
    let gpu = common::gpu();
    let mut renderer = ViewRenderer::new(&gpu.device);
    let mesh = collidoscope::mesh::box_mesh(2);
    let settings = ViewSettings::default();
    let camera = Camera::framing(mesh.bounds());
    let background = render(&gpu, &renderer, &camera, &settings)
        .get_pixel(0, 0)
        .0;

    renderer.set_mesh(&gpu.device, &mesh);
    assert_eq!(
        renderer.mesh_triangle_count() as usize,
        mesh.triangles.len()
    );
    let img = render(&gpu, &renderer, &camera, &settings);
    let centre = img.get_pixel(W / 2, H / 2).0;
    assert_ne!(centre, background, "the box covers the centre");
    // Grey: the three channels are equal (flat shading of a neutral colour).
    assert!(
        centre[0] == centre[1] && centre[1] == centre[2] && centre[0] > 60,
        "{centre:?}"
    );
    for (x, y) in [(0, 0), (W - 1, 0), (0, H - 1), (W - 1, H - 1)] {
        assert_eq!(img.get_pixel(x, y).0, background, "corner ({x}, {y})");
    }
    // Faces at different angles to the headlight get different shades.
    let shades: std::collections::HashSet<[u8; 4]> =
        non_background(&img, background).into_iter().collect();
    assert!(shades.len() >= 2, "{shades:?}");

    // The wireframe alone draws fewer pixels than the shaded box, but some.
    let wire = render(
        &gpu,
        &renderer,
        &camera,
        &ViewSettings {
            mesh_mode: MeshMode::Wireframe,
            ..settings
        },
    );
    let n_wire = non_background(&wire, background).len();
    let n_shaded = non_background(&img, background).len();
    assert!(
        n_wire > 0 && n_wire < n_shaded,
        "wire {n_wire}, shaded {n_shaded}"
    );
    // Shaded + wireframe: dark edges appear on the shaded box.
    let both = render(
        &gpu,
        &renderer,
        &camera,
        &ViewSettings {
            mesh_mode: MeshMode::ShadedWireframe,
            ..settings
        },
    );
    let dark = both
        .pixels()
        .filter(|p| p.0[0] < 30 && p.0[0] == p.0[1] && p.0[1] == p.0[2])
        .count();
    assert!(dark > 20, "only {dark} wireframe pixels on the shaded box");
    // Hidden: nothing.
    let hidden = render(
        &gpu,
        &renderer,
        &camera,
        &ViewSettings {
            mesh_mode: MeshMode::Hidden,
            ..settings
        },
    );
    assert!(non_background(&hidden, background).is_empty());
}

/// Sundholm's inside colours (pink → yellow → cyan) are bright: every stop
/// has two channels at 255 or close; the outside ones (blue → green → red)
/// sum to 255.
fn is_sundholm_inside(c: [u8; 4]) -> bool {
    c[0] as u32 + c[1] as u32 + c[2] as u32 > 400
}

#[test]
fn inside_filter_keeps_only_inside_coloured_cells() {
    let gpu = common::gpu();
    let mesh = common::sample("spot");
    let prepared = PreparedMesh::new(&mesh).expect("spot prepares");
    let params = SdfParams {
        resolution: 12,
        padding: 0.1,
        band: None,
        sign_mode: SignMode::PseudoNormal,
    };
    let field = sdf::compute(
        &prepared,
        &params,
        Backend::CpuFast,
        None,
        &Progress::default(),
    )
    .expect("field");
    assert!(field.inside_cells() > 0);

    let mut renderer = ViewRenderer::new(&gpu.device);
    renderer.set_cells(&gpu.device, &cells_from_field(&field));
    assert_eq!(renderer.cell_count() as usize, field.values.len());
    let camera = Camera::framing(field.grid.bounds());
    let all = ViewSettings {
        mesh_mode: MeshMode::Hidden,
        point_size: 4.0,
        value_min: -default_value_range(&field),
        value_max: default_value_range(&field),
        ..Default::default()
    };
    let background = {
        let mut empty = ViewSettings {
            show_cells: false,
            ..all
        };
        empty.mesh_mode = MeshMode::Hidden;
        render(&gpu, &renderer, &camera, &empty).get_pixel(0, 0).0
    };
    let img_all = render(&gpu, &renderer, &camera, &all);
    let inside = ViewSettings {
        filter: CellFilter {
            inside_only: true,
            ..Default::default()
        },
        ..all
    };
    let img_inside = render(&gpu, &renderer, &camera, &inside);
    let n_all = non_background(&img_all, background);
    let n_inside = non_background(&img_inside, background);
    assert!(!n_inside.is_empty(), "inside-only shows something");
    assert!(
        n_inside.len() < n_all.len(),
        "inside {} vs all {}",
        n_inside.len(),
        n_all.len()
    );
    for c in &n_inside {
        assert!(
            is_sundholm_inside(*c),
            "inside-only image has a non-inside colour {c:?}"
        );
    }
    assert!(
        n_all.iter().any(|&c| !is_sundholm_inside(c)),
        "the full field shows outside colours"
    );

    // Outside-only shows no inside colours; a band and a clip plane thin it out.
    let outside = ViewSettings {
        filter: CellFilter {
            outside_only: true,
            ..Default::default()
        },
        ..all
    };
    let img_outside = render(&gpu, &renderer, &camera, &outside);
    assert!(
        non_background(&img_outside, background)
            .iter()
            .all(|&c| !is_sundholm_inside(c))
    );
    let band = ViewSettings {
        filter: CellFilter {
            band: Some(field.grid.cell_size),
            ..Default::default()
        },
        ..all
    };
    let n_band = non_background(&render(&gpu, &renderer, &camera, &band), background).len();
    assert!(
        n_band > 0 && n_band < n_all.len(),
        "band {n_band} vs all {}",
        n_all.len()
    );
    let centre = field.grid.bounds().center();
    let clip = ViewSettings {
        filter: CellFilter {
            clip: Some(ClipPlane {
                normal: Vec3::X,
                offset: centre.x - 10.0 * field.grid.bounds().size().x,
            }),
            ..Default::default()
        },
        ..all
    };
    assert!(
        non_background(&render(&gpu, &renderer, &camera, &clip), background).is_empty(),
        "a plane beyond the grid clips all"
    );

    // The diverging map colours the inside blue-ish.
    let blue = ViewSettings {
        color_map: ColorMap::Diverging,
        ..inside
    };
    for c in non_background(&render(&gpu, &renderer, &camera, &blue), background) {
        assert!(c[2] > c[0], "diverging inside colour {c:?} is not blue");
    }

    // Updating the values in place keeps the count; an empty slice removes them.
    let cells = cells_from_field(&field);
    renderer.set_cell_values(&gpu.device, &gpu.queue, &cells[..10]);
    assert_eq!(renderer.cell_count(), 10);
    renderer.set_cells(&gpu.device, &[]);
    assert_eq!(renderer.cell_count(), 0);
    assert!(non_background(&render(&gpu, &renderer, &camera, &all), background).is_empty());
}

#[test]
fn a_red_line_shows() {
    let gpu = common::gpu();
    let mut renderer = ViewRenderer::new(&gpu.device);
    let bounds = Aabb {
        min: Vec3::splat(-1.0),
        max: Vec3::splat(1.0),
    };
    let camera = Camera::framing(bounds);
    let red = [1.0, 0.0, 0.0, 1.0];
    renderer.set_lines(
        &gpu.device,
        &[
            LineVertex::new(Vec3::new(-1.0, 0.0, 0.0), red),
            LineVertex::new(Vec3::new(1.0, 0.0, 0.0), red),
        ],
    );
    assert_eq!(renderer.line_count(), 1);
    let img = render(&gpu, &renderer, &camera, &ViewSettings::default());
    let reds = img.pixels().filter(|p| p.0 == [255, 0, 0, 255]).count();
    assert!(reds > W as usize / 3, "only {reds} red pixels");
}

/// A red line inside a box: hidden by the opaque box, seen through it at
/// opacity 0.35 (blended with the box's grey, so red but not pure red),
/// and the image stays opaque.
#[test]
fn a_translucent_mesh_shows_what_lies_inside() {
    let gpu = common::gpu();
    let mut renderer = ViewRenderer::new(&gpu.device);
    let mesh = collidoscope::mesh::box_mesh(2);
    let bounds = mesh.bounds();
    let centre = bounds.center();
    let camera = Camera::framing(bounds);
    renderer.set_mesh(&gpu.device, &mesh);
    let red = [1.0, 0.0, 0.0, 1.0];
    let half = 0.3 * (bounds.max - bounds.min);
    renderer.set_lines(
        &gpu.device,
        &[
            LineVertex::new(centre - Vec3::new(half.x, 0.0, 0.0), red),
            LineVertex::new(centre + Vec3::new(half.x, 0.0, 0.0), red),
        ],
    );
    let reddish = |img: &RgbaImage| {
        img.pixels()
            .filter(|p| p.0[0] > p.0[1].saturating_add(40) && p.0[1] == p.0[2])
            .count()
    };
    // Behind an opaque body a line shows only dimmed (the renderer's
    // hidden-line pass), never at its own colour.
    let opaque = render(&gpu, &renderer, &camera, &ViewSettings::default());
    let dimmed = reddish(&opaque);
    assert!(
        !opaque
            .pixels()
            .any(|p| p.0[0] > 200 && p.0[1] < 80 && p.0[2] < 80),
        "the opaque box shows the line at full strength"
    );
    let see_through = ViewSettings {
        mesh_opacity: 0.35,
        ..ViewSettings::default()
    };
    let img = render(&gpu, &renderer, &camera, &see_through);
    let n = reddish(&img);
    let redness = |img: &RgbaImage| -> u64 {
        img.pixels()
            .map(|p| u64::from(p.0[0].saturating_sub(p.0[1].max(p.0[2]))))
            .sum()
    };
    // How far red stands above green and blue, summed: the translucent
    // box lets more of the line through than the hidden-line pass shows.
    let (through, behind) = (redness(&img), redness(&opaque));
    assert!(
        n > W as usize / 5 && n >= dimmed,
        "only {n} reddish pixels through the translucent box ({dimmed} through the opaque one)"
    );
    assert!(
        4 * through > 5 * behind,
        "the translucent box shows the line no stronger ({through}) than the opaque one ({behind})"
    );
    assert!(
        img.pixels().all(|p| p.0[3] == 255),
        "the translucent box left transparent pixels"
    );
    assert!(
        !img.pixels().any(|p| p.0 == [255, 0, 0, 255]),
        "the line is seen through the box, not over it"
    );
    // The box itself is blended: below the line its pixels differ from the
    // opaque shade.
    let (x, y) = (W / 2, H / 2 + H / 8);
    assert_ne!(img.get_pixel(x, y).0, opaque.get_pixel(x, y).0);
}

#[test]
fn render_cli_draws_an_iso_surface_through_a_translucent_mesh() {
    let dir = common::scratch("cli-render-iso");
    let suzanne = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/suzanne.obj");
    let out = dir.join("iso.png");
    let run = |extra: &[&str]| {
        exe()
            .args(["render", suzanne.to_str().unwrap(), "--res", "24"])
            .args(["--size", "160x120", "--out", out.to_str().unwrap()])
            .args(extra)
            .output()
            .expect("runs")
    };
    let ok = run(&["--iso", "0.02", "--opacity", "0.35", "--filter", "band"]);
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let triangles: u32 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("iso-surface at 0.02: "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no iso-surface line in {stdout}"));
    assert!(triangles > 100, "{triangles} triangles");
    assert!(out.exists());
    for (extra, expected) in [
        (
            &["--opacity", "0"][..],
            "--opacity 0 must be from 0.05 to 1",
        ),
        (
            &["--iso", "0", "--view", "mesh"][..],
            "use it with --view field",
        ),
    ] {
        let failed = run(extra);
        let stderr = String::from_utf8_lossy(&failed.stderr);
        assert!(!failed.status.success(), "{extra:?}");
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}

#[test]
fn render_cli_writes_a_png_and_fails_in_one_line() {
    let dir = common::scratch("cli-render");
    let suzanne = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/suzanne.obj");
    for view in ["field", "mesh", "slice"] {
        let out = dir.join(format!("{view}.png"));
        let status = exe()
            .args([
                "render",
                suzanne.to_str().unwrap(),
                "--view",
                view,
                "--size",
                "160x100",
                "--res",
                "12",
                "--backend",
                "cpu",
                "--no-legend",
                "--out",
                out.to_str().unwrap(),
            ])
            .output()
            .expect("runs");
        assert!(
            status.status.success(),
            "{view}: {}",
            String::from_utf8_lossy(&status.stderr)
        );
        let img = image::open(&out).expect("PNG decodes").to_rgba8();
        if view != "slice" {
            assert_eq!(img.dimensions(), (160, 100), "{view}");
        } else {
            assert!(
                img.width() <= 160 && img.height() <= 100 && img.width() >= 12,
                "{:?}",
                img.dimensions()
            );
        }
        let first = img.get_pixel(0, 0).0;
        assert!(img.pixels().any(|p| p.0 != first), "{view} image is blank");
    }

    let out = exe()
        .args([
            "render",
            dir.join("missing.obj").to_str().unwrap(),
            "--out",
            dir.join("x.png").to_str().unwrap(),
        ])
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    assert!(!dir.join("x.png").exists());
}

/// `render --camera FILE` looks from the saved camera: the mesh seen from
/// +Y (from above) differs from the default framing, and a broken camera
/// file fails in one line naming it.
#[test]
fn render_cli_takes_a_camera_saved_as_json() {
    let dir = common::scratch("cli-render-camera");
    let suzanne = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/suzanne.obj");
    let mesh = collidoscope::mesh::load_obj_merged(&suzanne).unwrap();
    let top = Camera::framing(mesh.bounds()).viewed_from(collidoscope::view::AxisView::PosY);
    let camera = dir.join("top.json");
    std::fs::write(&camera, top.to_json()).unwrap();
    let shot = |out: &Path, camera: Option<&Path>| {
        let mut c = exe();
        c.args(["render", suzanne.to_str().unwrap(), "--view", "mesh"])
            .args(["--size", "160x120", "--out", out.to_str().unwrap()]);
        if let Some(camera) = camera {
            c.args(["--camera", camera.to_str().unwrap()]);
        }
        let run = c.output().unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        image::open(out).unwrap().to_rgba8()
    };
    let (default, above) = (dir.join("default.png"), dir.join("above.png"));
    let (a, b) = (shot(&default, None), shot(&above, Some(&camera)));
    assert_eq!(a.dimensions(), b.dimensions());
    let background = a.get_pixel(0, 0).0;
    assert!(
        non_background(&b, background).len() > 500,
        "the mesh is in view from above"
    );
    let differing = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert!(
        differing > 1000,
        "the camera changes the picture: {differing} pixels differ"
    );
    std::fs::write(dir.join("bad.json"), "{\"yaw\": 1}").unwrap();
    let out = exe()
        .args([
            "render",
            suzanne.to_str().unwrap(),
            "--view",
            "mesh",
            "--camera",
        ])
        .arg(dir.join("bad.json"))
        .args(["--out", dir.join("bad.png").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.lines().count() == 1,
        "{err}"
    );
}

/// `render --view field` and `--view slice` put the colour bar, (for a
/// slice) the axes and the caption around the picture, as the viewer's
/// figure export does: the image grows by the key's column and the
/// caption's rows, and text (near-black pixels on the white margin) shows
/// right of the picture and under it. They had none.
#[test]
fn render_cli_images_carry_the_colour_bar_and_caption() {
    let dir = common::scratch("cli-render-legend");
    let spot = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/spot.obj");
    for view in ["field", "slice"] {
        let shot = |legend: bool| {
            let out = dir.join(format!("{view}-{legend}.png"));
            let mut c = exe();
            c.args(["render", spot.to_str().unwrap(), "--view", view])
                .args(["--size", "320x200", "--res", "16", "--backend", "cpu"])
                .args(["--out", out.to_str().unwrap()]);
            if !legend {
                c.arg("--no-legend");
            }
            let run = c.output().expect("runs");
            assert!(
                run.status.success(),
                "{view}: {}",
                String::from_utf8_lossy(&run.stderr)
            );
            image::open(&out).expect("PNG decodes").to_rgba8()
        };
        let (bare, legend) = (shot(false), shot(true));
        assert!(
            legend.width() >= bare.width() + 100 && legend.height() > bare.height() + 20,
            "{view}: {:?} with the legend, {:?} without",
            legend.dimensions(),
            bare.dimensions()
        );
        let dark = |x0: u32, y0: u32, x1: u32, y1: u32| {
            (y0..y1)
                .flat_map(|y| (x0..x1).map(move |x| (x, y)))
                .filter(|&(x, y)| legend.get_pixel(x, y).0[..3].iter().all(|&c| c < 90))
                .count()
        };
        let (w, h) = legend.dimensions();
        let key_text = dark(w - 160, 0, w, h - 40);
        let caption = dark(0, h - 34, w, h);
        assert!(
            key_text > 40,
            "{view}: tick labels beside the bar: {key_text}"
        );
        assert!(
            caption > 40,
            "{view}: a caption under the picture: {caption}"
        );
    }
}
