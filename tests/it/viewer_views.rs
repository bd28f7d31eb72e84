//! The viewer's pictures under Xvfb on lavapipe: the camera round trip, a
//! loaded field verified against the exact one, figure exports at their
//! scale, the iso-surface, a mesh far from the origin (tiny or huge) still
//! showing its cells, and the radial unwrap below the 3D view at 1280×720.

use crate::common;
use crate::common::viewer::*;

use std::path::Path;
use std::process::Command;

/// The camera and the CPU-vs-GPU verification in a scripted session: a
/// view along +Y saved as JSON (`save-camera:`) and loaded again in a
/// second session (`camera:`) gives the same picture; `verify-threshold`
/// above the largest |Δ| leaves no heat-map cells, and bad arguments fail
/// the script.
#[test]
fn scripted_camera_round_trip_and_verify_threshold() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-camera");
    let (camera, top, again) = (
        dir.join("camera.json"),
        dir.join("top.png"),
        dir.join("again.png"),
    );
    let (heat, none) = (dir.join("heat.png"), dir.join("none.png"));
    let run = |script: String| {
        let out = xvfb_run(&script);
        assert!(
            out.status.success(),
            "{script}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(format!(
        "open:spot; compute; view:+y; save-camera:{}; export-view:{}; \
         res:24; compute; verify:cpu-vs-gpu; compute; cells:on; clip:off; mesh:hidden; \
         verify-threshold:0; export-view:{}; verify-threshold:1; export-view:{}; quit",
        camera.display(),
        top.display(),
        heat.display(),
        none.display()
    ));
    let saved = collidoscope::view::Camera::load(&camera).expect("the saved camera reads back");
    assert!(saved.pitch > 1.5, "a view from +Y looks down: {saved:?}");
    run(format!(
        "open:spot; compute; camera:{}; export-view:{}; quit",
        camera.display(),
        again.display()
    ));
    let (a, b) = (load(&top), load(&again));
    let differing = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert!(
        differing < (a.width() * a.height() / 100) as usize,
        "the loaded camera shows the saved view: {differing} pixels differ"
    );
    let (_, coloured_none) = census(&load(&none));
    let (_, coloured_heat) = census(&load(&heat));
    assert!(
        coloured_none < coloured_heat || coloured_heat == 0,
        "ε above the largest |Δ| hides every cell: {coloured_none} vs {coloured_heat}"
    );
    for bad in [
        "view:up; quit",
        "camera:/nonexistent/c.json; quit",
        "verify-threshold:-1; quit",
    ] {
        assert!(!xvfb_run(bad).status.success(), "{bad} must fail");
    }
}

#[test]
fn a_loaded_field_is_verified_against_the_exact_one() {
    let dir = common::scratch("open-field");
    let field = dir.join("suzanne.npy");
    // Pseudo-normal signs on the open suzanne are wrong near its holes.
    let made = Command::new(env!("CARGO_BIN_EXE_collidoscope"))
        .args(["sdf", common::cli::asset("suzanne.obj").to_str().unwrap()])
        .args(["--sign", "pseudo-normal", "--res", "32", "--backend", "cpu"])
        .args(["--no-cache", "--out", field.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let view = dir.join("view.png");
    let missing = dir.join("missing.npy");
    assert_script_shows_red(
        &format!(
            "open:suzanne; compute; open-field:{}; expect-error;
             open-field:{}; compute; mesh:wireframe; clip:off; verify-threshold:0.01; points:6;
             check-pick:0; export-view:{}; quit",
            missing.display(),
            field.display(),
            view.display()
        ),
        &view,
        "loaded field (sign disagreements as red crosses)",
    );
}

/// Publication export: the 3D view, the slice and an interference image
/// as figures at 1×, 2× and 4×, with their colour bar or key beside the
/// picture, and bad scales refused.
#[test]
fn figures_export_at_their_scale_with_the_colour_bar() {
    let dir = common::scratch("viewer-figures");
    let p = |name: &str| dir.join(name).display().to_string();
    let script = format!(
        "open:spot; backend:cpu; res:32; compute; slice:z; wait:3; export-view:{view}; \
         export-figure:{fig1}+caption; export-figure:{fig2}@2x+caption; \
         export-slice:{slice1}; export-slice:{slice4}@4x+caption; \
         interfere:random-boxes; interfere-count:8; interfere-res:64; wait:3; \
         export-image:{image}@2x; quit",
        view = p("view.png"),
        fig1 = p("fig1.png"),
        fig2 = p("fig2.png"),
        slice1 = p("slice1.png"),
        slice4 = p("slice4.png"),
        image = p("image.png"),
    );
    run_session(&script, "viewer");
    let view = load(&dir.join("view.png"));
    let (fig1, fig2) = (load(&dir.join("fig1.png")), load(&dir.join("fig2.png")));
    // The viewport's height settles while the panels fill in; its width
    // (and so the figure's) stays.
    assert_eq!(fig2.width(), 2 * fig1.width());
    assert!(
        fig1.width() > view.width() + 100 && fig2.height() > fig1.height(),
        "figure {:?} holds the {:?} view and its bar",
        fig1.dimensions(),
        view.dimensions()
    );
    // The colour bar lies right of the view: many saturated pixels there.
    let right_of = |img: &image::RgbaImage, x0: u32| {
        let bar = image::imageops::crop_imm(img, x0, 0, img.width() - x0, img.height());
        census(&bar.to_image()).1
    };
    let bar1 = right_of(&fig1, view.width() + 12);
    assert!(bar1 > 1000, "only {bar1} coloured pixels in the 1× bar");
    assert!(
        right_of(&fig2, 2 * view.width() + 24) > bar1,
        "a wider 2× bar"
    );
    let (slice1, slice4) = (load(&dir.join("slice1.png")), load(&dir.join("slice4.png")));
    assert_eq!(slice4.width(), 4 * slice1.width(), "the caption wraps");
    assert!(
        slice4.height() > 4 * slice1.height(),
        "the caption adds lines"
    );
    // 32 cells × 4 px per cell: the slice's image is at least 128 px wide.
    assert!(
        slice1.width() > 128 + 100,
        "slice figure {:?}",
        slice1.dimensions()
    );
    // The bar: columns in the right half with 100+ coloured pixels each.
    let bar_columns = (slice1.width() / 2..slice1.width())
        .filter(|&x| {
            let column = image::imageops::crop_imm(&slice1, x, 0, 1, slice1.height());
            census(&column.to_image()).1 >= 100
        })
        .count();
    assert!(
        bar_columns >= 12,
        "the slice's bar spans {bar_columns} columns"
    );
    let image = load(&dir.join("image.png"));
    assert!(
        image.width() >= 128 && image.height() >= 128,
        "{:?}",
        image.dimensions()
    );
    for bad in [
        "export-figure:/tmp/x.png@3x; quit",
        "export-slice:@2x; quit",
    ] {
        let out = xvfb_run(bad);
        assert!(!out.status.success(), "{bad} must fail the script");
    }
}

/// The iso-surface step draws a GPU-extracted surface (coloured by the
/// colour map at its level) with the cells and the mesh hidden, and
/// `iso:off` removes it; a translucent mesh still lets it show.
#[test]
fn the_iso_surface_shows_and_goes() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-iso");
    let [with, without, through] =
        ["with", "without", "through"].map(|n| dir.join(format!("{n}.png")));
    let script = format!(
        "open:spot; backend:gpu; res:32; compute; cells:off; mesh:hidden; iso:-0.02; compute; export-view:{}; \
         mesh:shaded; opacity:0.35; export-view:{}; iso:off; compute; export-view:{}; \
         opacity:1; cells:on; quit",
        with.display(),
        through.display(),
        without.display()
    );
    run_session(&script, "iso-surface");
    let (_, coloured) = census(&load(&with));
    let (_, behind_glass) = census(&load(&through));
    let (_, gone) = census(&load(&without));
    let total = {
        let img = load(&with);
        (img.width() * img.height()) as usize
    };
    assert!(
        coloured > total / 50,
        "the iso-surface covers only {coloured} of {total} pixels"
    );
    assert!(
        behind_glass > total / 200,
        "the iso-surface behind the translucent mesh: {behind_glass} coloured pixels"
    );
    // What stays coloured is the slice's plane, if the slice is shown.
    assert!(
        gone < coloured / 20,
        "iso:off left {gone} coloured pixels (the surface had {coloured})"
    );
}

/// `spot.obj` with every vertex moved by `shift` and scaled by `scale`
/// about the origin, written to `path`.
fn placed_spot(path: &Path, shift: f32, scale: f32) {
    let spot = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/spot.obj");
    let text = std::fs::read_to_string(&spot).expect("assets/spot.obj");
    let moved: Vec<String> = text
        .lines()
        .map(|line| match line.strip_prefix("v ") {
            Some(rest) => {
                let p: Vec<f32> = rest
                    .split_whitespace()
                    .map(|x| x.parse().expect("a vertex coordinate"))
                    .collect();
                let q: Vec<String> = p.iter().map(|x| format!("{}", x * scale + shift)).collect();
                format!("v {}", q.join(" "))
            }
            None => line.to_string(),
        })
        .collect();
    std::fs::write(path, moved.join("\n")).unwrap();
}

/// A mesh far from the origin, tiny or huge: the field mode's picture
/// shows its cells. The clip plane's offset slider spanned a fixed range
/// around zero, so for a mesh at +1e3 it clamped the default cut off the
/// grid and every cell was clipped: the view was silently empty.
#[test]
fn a_mesh_far_from_the_origin_tiny_or_huge_shows_its_cells() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-placed");
    let cases = [
        ("plus-1e3", 1e3, 1.0),
        ("minus-1e3", -1e3, 1.0),
        ("tiny", 0.0, 1e-3),
        ("huge", 0.0, 1e3),
    ];
    let mut script = String::new();
    for (name, shift, scale) in cases {
        let obj = dir.join(format!("{name}.obj"));
        placed_spot(&obj, shift, scale);
        script += &format!(
            "open:{}; compute; wait:3; export-view:{}; ",
            obj.display(),
            dir.join(format!("{name}.png")).display()
        );
    }
    script += "quit";
    run_session(&script, "off-origin meshes");
    for (name, _, _) in cases {
        let img = load(&dir.join(format!("{name}.png")));
        let (_, coloured) = census(&img);
        let total = (img.width() * img.height()) as usize;
        assert!(
            coloured > total / 100,
            "{name}: the field's cells should fill the view: {coloured} coloured pixels of {total}"
        );
    }
}

/// At 1280×720 the radial mode's unwrap has its own panel under the 3D
/// view: its cells lie below the view's rows, not over the character (the
/// overlay it replaced covered the whole view at this size).
#[test]
fn the_radial_unwrap_sits_below_the_3d_view_at_1280_by_720() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-radial-small");
    let (shot, view) = (dir.join("radial.png"), dir.join("view.png"));
    let script = format!(
        "radial; radial-res:64x32; radial-bone:forearm.l; radial-time:1.0; wait:5; screenshot:{}; export-view:{}; quit",
        shot.display(),
        view.display()
    );
    let out = xvfb_run_sized(&script, &[], "1280x720");
    assert!(
        out.status.success(),
        "the radial session failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (img, view) = (load(&shot), load(&view));
    assert!(
        view.height() * 3 > img.height(),
        "the 3D view keeps a third of the window: {}×{} of {}×{}",
        view.width(),
        view.height(),
        img.width(),
        img.height()
    );
    let red: Vec<u32> = img
        .enumerate_pixels()
        .filter(|(_, _, p)| {
            let [r, g, b, _] = p.0.map(i32::from);
            r > 150 && g < 90 && b < 90
        })
        .map(|(_, y, _)| y)
        .collect();
    assert!(
        red.len() > 500,
        "the unwrap's far cells show: {}",
        red.len()
    );
    // The view starts below the menus, so rows past its height that hold
    // the unwrap are below it.
    let below = red.iter().filter(|&&y| y >= view.height()).count();
    assert!(
        below * 10 >= red.len() * 9,
        "the unwrap should lie under the 3D view: {below} of {} red pixels below row {}",
        red.len(),
        view.height()
    );
}
