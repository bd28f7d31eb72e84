//! The viewer under Xvfb on lavapipe: a scripted session opens a sample,
//! computes its field, filters inside cells, exports the view and a window
//! screenshot, drops a broken file (error shown, scene kept) and quits by
//! itself. The images are then checked: non-blank, mesh and coloured cells
//! both visible.

use crate::common;
use crate::common::viewer::*;

use std::path::Path;
use std::process::Command;

#[test]
fn scripted_session_shows_mesh_and_cells_and_survives_a_bad_drop() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-smoke");
    let bad = dir.join("broken.obj");
    std::fs::write(&bad, b"v 0 0 0\nv 1 0 0\nf 1 2 7\n").unwrap();
    let view = dir.join("view.png");
    let window = dir.join("window.png");
    let field = dir.join("field.npy");
    let script = format!(
        "open:spot; compute; filter:inside; mesh:wireframe; export-view:{}; export-field:{}; drop:{}; expect-error; expect-mesh:spot; screenshot:{}; quit",
        view.display(),
        field.display(),
        bad.display(),
        window.display()
    );
    run_session(&script, "viewer");
    let view_img = load(&view);
    let (grey, coloured) = census(&view_img);
    let total = (view_img.width() * view_img.height()) as usize;
    assert!(
        grey > total / 500,
        "the wireframe mesh should be visible in the view: {grey} grey pixels of {total}"
    );
    assert!(
        coloured > total / 200,
        "inside cells should be visible: {coloured} coloured pixels of {total}"
    );
    let window_img = load(&window);
    assert!(
        window_img.width() >= 800 && window_img.height() >= 600,
        "window screenshot {}×{}",
        window_img.width(),
        window_img.height()
    );
    let (wg, wc) = census(&window_img);
    assert!(
        wg > 1000 && wc > 1000,
        "window screenshot looks blank: {wg} grey, {wc} coloured"
    );
    let (npy, _) = collidoscope::stages::sdf::export::read_field(&field)
        .expect("the exported field reads back and matches its sidecar");
    assert!(
        npy.data.iter().any(|&v| v < 0.0),
        "the exported field has inside cells"
    );
}

#[test]
fn opening_a_missing_file_keeps_the_scene_and_a_wrong_expectation_fails() {
    let _ = common::gpu();
    let ok = xvfb_run(
        "open:suzanne; compute; open:/nonexistent/mesh.obj; expect-error; expect-mesh:suzanne; quit",
    );
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    // The script checks itself: expecting the wrong mesh must fail the run.
    let bad = xvfb_run("open:suzanne; compute; expect-mesh:teapot; quit");
    assert!(
        !bad.status.success(),
        "a failed expectation must give a non-zero exit"
    );
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected mesh teapot"));
}

#[test]
fn scripted_tritri_session_highlights_colliding_triangles() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-tritri");
    let view = dir.join("tritri.png");
    let script = format!(
        "tritri:tori; tritri-offset:0.42,0,0; tritri-backend:gpu; wait:3; tritri-backend:cpu; wait:3; export-view:{}; tritri:rocker; wait:3; quit",
        view.display()
    );
    // Colliding triangles are red on A.
    assert_script_shows_red(&script, &view, "triangle–triangle");
    let bad = xvfb_run("tritri:cubes; quit");
    assert!(
        !bad.status.success(),
        "an unknown scene must fail the script"
    );
}

/// The radial mode in a scripted session: the humanoid paused mid-squat,
/// fields rasterised on the CPU then the GPU, the selected bone's unwrap
/// drawn (its cells false-coloured); a bad resolution fails the script.
#[test]
fn scripted_radial_session_shows_the_unwrap_and_exports_it() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-radial");
    let shot = dir.join("radial.png");
    let figure = dir.join("unwrap.png");
    let script = format!(
        "radial; radial-res:64x32; radial-bone:forearm.l; radial-time:1.0; radial-backend:cpu; wait:2; radial-backend:gpu; wait:2; screenshot:{}; radial-export-unwrap:{}@4x+caption; quit",
        shot.display(),
        figure.display()
    );
    run_session(&script, "radial");
    // The unwrap figure: its 64 × 32 cells as blocks at least 384 pixels
    // across, at 4× (a 256-pixel stamp beside 4× labels before), with room
    // for key and axes.
    let fig = load(&figure);
    assert!(
        fig.width() > 4 * 384 && fig.height() > 4 * 192,
        "the unwrap figure is {}×{}",
        fig.width(),
        fig.height()
    );
    let img = load(&shot);
    let count = |f: &dyn Fn(i32, i32, i32) -> bool| {
        img.pixels()
            .filter(|p| {
                let [r, g, b, _] = p.0.map(i32::from);
                f(r, g, b)
            })
            .count()
    };
    let red = count(&|r, g, b| r > 150 && g < 90 && b < 90);
    assert!(
        red > 2000,
        "the unwrap's far cells should show in red: {red} pixels"
    );
    let bad = xvfb_run("radial; radial-res:63x32; quit");
    assert!(
        !bad.status.success(),
        "an odd θ resolution must fail the script"
    );
}

/// The particles mode in a scripted session: the hail scene with fewer
/// particles and small maps, sliders changed by steps; the 3D view shows
/// the grey collider surfaces with coloured decals and particles, the
/// chosen collider's map exports with its legend, and impacts were shown.
/// A dropped scene file replaces the hail; bad steps fail the script.
#[test]
fn scripted_particles_session_shows_decals_and_maps() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-particles");
    let (view, shot, map) = (
        dir.join("view.png"),
        dir.join("window.png"),
        dir.join("map.png"),
    );
    let script = format!(
        "particles; particles-count:20000; particles-map:64; particles-bounces:0; \
         particles-time:3; wait:25; particles-expect-events; export-view:{}; \
         particles-bounces:2; particles-restitution:0.8; particles-lookahead:4; \
         particles-collider:4; particles-channel:speed; wait:10; particles-expect-events; \
         particles-export-map:{}@2x+caption; screenshot:{}; quit",
        view.display(),
        map.display(),
        shot.display()
    );
    run_session(&script, "particles");
    let (grey, coloured) = census(&load(&view));
    assert!(
        grey > 5000,
        "the collider surfaces should show grey: {grey} pixels"
    );
    assert!(
        coloured > 500,
        "decals and particles should show in colour: {coloured} pixels"
    );
    let (_, map_colours) = census(&load(&map));
    assert!(
        map_colours > 200,
        "the map should show impacts: {map_colours} pixels"
    );
    assert!(shot.exists());

    let scene = dir.join("one-plane.json");
    std::fs::write(
        &scene,
        r#"{"gravity": [0, -9.81, 0], "bounces": 0, "restitution": 0.5,
            "emitters": [{"count": 2000, "position": [0, 2, 0], "position_jitter": 0.5,
              "velocity": [0, 0, 0], "velocity_jitter": 0.2, "lifetime": 1.0,
              "order": 2, "seed": 7}],
            "colliders": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "disc": 2}]}"#,
    )
    .unwrap();
    run_session(
        &format!(
            "particles; drop:{}; wait:3; particles-collider:0; particles-time:2; wait:20; \
             particles-expect-events; quit",
            scene.display()
        ),
        "particles drop",
    );
    let second = xvfb_run(&format!(
        "particles; drop:{}; wait:3; particles-collider:1; quit",
        scene.display()
    ));
    assert!(
        !second.status.success(),
        "the dropped scene has one collider: collider 1 must fail the script"
    );
    for bad in [
        "particles; particles-restitution:1.5; quit",
        "particles:/nonexistent/scene.json; quit",
        "particles; particles-channel:colour; quit",
    ] {
        assert!(!xvfb_run(bad).status.success(), "{bad} should fail");
    }
}

/// CesiumMan dropped on the window (as a drag and drop does) opens in the
/// radial mode; the cloth and the particles settle on it for 30 steps on
/// the GPU and then 5 on the CPU: the cloth shows teal, contacts red, and
/// the profiler's runs name the collision and cloth phases; table 1's
/// alternatives measured on the frame (`radial-alternatives`) are runs
/// too. A file that
/// is not glTF and an out-of-range friction fail the script.
#[test]
fn dropped_gltf_character_carries_cloth_and_particles() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-radial-gltf");
    let shot = dir.join("cesium.png");
    let timings = dir.join("timings.csv");
    let glb = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/CesiumMan.glb");
    let script = format!(
        "drop:{}; radial-res:32x16; radial-time:0.5; radial-particles:500; radial-substeps:4; radial-friction:0.8; radial-stiffness:0.9; radial-settle:30; wait:2; radial-backend:cpu; radial-settle:5; wait:2; radial-backend:gpu; radial-alternatives; wait:2; profiler:off; export-view:{}; export-timings:{}; quit",
        glb.display(),
        shot.display(),
        timings.display()
    );
    run_session(&script, "radial glTF");
    let img = load(&shot);
    let count = |f: &dyn Fn(i32, i32, i32) -> bool| {
        img.pixels()
            .filter(|p| {
                let [r, g, b, _] = p.0.map(i32::from);
                f(r, g, b)
            })
            .count()
    };
    let cloth = count(&|r, g, b| g > r + 40 && b > r + 30 && (g - b).abs() < 60);
    let contact = count(&|r, g, b| r > 150 && g < 90 && b < 90);
    assert!(
        cloth > 2000,
        "the cloth should show in teal: {cloth} pixels"
    );
    // Relative to the character's size in the view (the radial mode's
    // bottom panel leaves the 3D view less height than the window): the
    // settled frame shows about one red pixel per 200 teal ones.
    assert!(
        contact * 400 > cloth,
        "contacts should show in red: {contact} pixels against {cloth} of cloth"
    );
    let csv = std::fs::read_to_string(&timings).unwrap();
    for phase in ["skinning", "rasterise", "collision", "cloth"] {
        assert!(csv.contains(phase), "no {phase} phase in\n{csv}");
    }
    // Table 1's alternatives, measured on the settled frame: each
    // technique's update and query recorded as a profiler run.
    for phase in [
        "per-bone SDF update",
        "per-bone SDF query",
        "spatial hash update",
        "spatial hash query",
        "BVH (refit) update",
        "BVH (refit) query",
    ] {
        assert!(csv.contains(phase), "no {phase} phase in\n{csv}");
    }
    let not_gltf = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/README.md");
    let bad = xvfb_run(&format!("radial-open:{}; quit", not_gltf.display()));
    assert!(!bad.status.success(), "a file that is not glTF must fail");
    let bad = xvfb_run("radial; radial-friction:2; quit");
    assert!(!bad.status.success(), "friction 2 must fail the script");
}

/// The interference panel in a scripted session: a dense random scene of
/// boxes at a small viewport, read pixels and then occlusion queries only,
/// all three axes (their counts verified against the CPU reference, with
/// the stencil and then the compute backend);
/// interfering boxes show red in the exported view. Bad steps fail the
/// script.
#[test]
fn scripted_interference_session_highlights_interfering_objects() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-interfere");
    let view = dir.join("interfere.png");
    let script = format!(
        "interfere:random-boxes; interfere-count:12; interfere-res:64; wait:3; \
         interfere-image:penetrated; export-view:{}; interfere-axis:xyz; interfere-verify; \
         interfere-backend:compute; interfere-verify; interfere-mode:occlusion; \
         interfere-select:2; interfere-move:0.5,0.5,0.5; wait:3; quit",
        view.display()
    );
    assert_script_shows_red(&script, &view, "interference");
    for bad in [
        "interfere:random-spheres; quit",
        "interfere:random-boxes; interfere-res:0; quit",
        "interfere:random-boxes; interfere-backend:raster; quit",
    ] {
        let out = xvfb_run(bad);
        assert!(!out.status.success(), "{bad} must fail the script");
    }
}

/// The collide panel in a scripted session: a box stack stepped on the CPU
/// and then the GPU, its CPU and GPU contacts compared (the step fails on
/// a difference rounding does not explain), the view exported; an unknown
/// scene fails the run.
#[test]
fn scripted_collide_session_steps_compares_and_exits_cleanly() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-collide");
    let view = dir.join("collide-view.png");
    let script = format!(
        "collide:box-stack; collide-samples:on; collide-step:20; collide-gpu:on; collide-step:10; collide-compare; wait:3; export-view:{}; collide:line; collide-compare; quit",
        view.display()
    );
    run_session(&script, "collide");
    let img = load(&view);
    let (grey, coloured) = census(&img);
    let total = (img.width() * img.height()) as usize;
    assert!(
        grey > total / 100,
        "the boxes should be visible: {grey} grey pixels of {total}"
    );
    assert!(
        coloured > 50,
        "sampling points and contacts should be visible: {coloured} coloured pixels"
    );
    let bad = xvfb_run("collide:nowhere; quit");
    assert!(!bad.status.success(), "an unknown scene must fail the run");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown collide scene"));
}

/// The simulate mode in a scripted session: bodies spawned, an OBJ file
/// added, stepped with each backend, rewound, one picked and made exact
/// (the GPU backend then runs gpu-detect), the view exported; a bad body
/// count, an exact flag that is not on or off, a pick beyond the bodies and a missing OBJ
/// file fail the run.
#[test]
fn scripted_simulate_session_steps_rewinds_and_exits_cleanly() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-pipeline");
    let view = dir.join("pipeline-view.png");
    let script = format!(
        "simulate:6; simulate-add:{}; simulate-gpu:on; simulate-step:40; simulate-backend:gpu-detect; simulate-step:5; simulate-gpu:off; simulate-step:5; simulate-rewind:5; simulate-step:5; simulate-pick:1; simulate-exact:on; simulate-gpu:on; simulate-step:5; wait:3; export-view:{}; quit",
        concat!(env!("CARGO_MANIFEST_DIR"), "/assets/spot.obj"),
        view.display()
    );
    run_session(&script, "pipeline");
    let img = load(&view);
    let (grey, coloured) = census(&img);
    let total = (img.width() * img.height()) as usize;
    assert!(
        grey > total / 200,
        "the bodies should be visible: {grey} grey pixels of {total}"
    );
    assert!(
        coloured > 50,
        "samples, field and contacts should be visible: {coloured}"
    );
    for bad in [
        "simulate:0; quit",
        "simulate:3; simulate-pick:7; quit",
        "simulate:3; simulate-exact:maybe; quit",
        "simulate:3; simulate-add:/no/such/mesh.obj; quit",
    ] {
        let out = xvfb_run(bad);
        assert!(!out.status.success(), "{bad} must fail the run");
    }
}

/// Without GPU compute the viewer still opens, says so, and computes the
/// field with a CPU backend.
#[test]
fn without_gpu_compute_the_viewer_runs_the_cpu_backends() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-no-compute");
    let field = dir.join("cpu-field.npy");
    let script = format!(
        "open:suzanne; res:16; compute; export-field:{}; quit",
        field.display()
    );
    let out = xvfb_run_with(&script, &[("COLLIDOSCOPE_NO_GPU_COMPUTE", "1")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(field.with_extension("json")).expect("sidecar"))
            .expect("json");
    assert_eq!(meta["backend"], "cpu", "the field came from a CPU backend");
}

/// The adaptive field scene headless: built on the GPU, one level's boxes
/// and a picked node drawn, exported; rebuilt on the CPU beside the uniform
/// field; inflated for two rebuilt frames; a depth beyond the Morton codes
/// shows an error and keeps the field (a pick still finds its nodes).
#[test]
fn scripted_adaptive_session_builds_picks_compares_and_deforms() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-adaptive");
    let view = dir.join("adaptive-view.png");
    let npz = dir.join("adaptive.npz");
    let script = format!(
        "open:spot; res:32; compute; adaptive; adaptive-start:2; adaptive-depth:6; adaptive-level:5; \
         adaptive-pick; adaptive-boxes:off; mesh:hidden; colormap:diverging; export-view:{}; adaptive-export:{}; adaptive-backend:cpu; \
         adaptive-compare:on; wait:3; adaptive-deform:on; adaptive-frames:2; adaptive-deform:off; \
         adaptive-depth:11; expect-error; adaptive-pick:0; quit",
        view.display(),
        npz.display()
    );
    run_session(&script, "adaptive");
    let meta: serde_json::Value = serde_json::from_slice(
        &std::fs::read(npz.with_extension("json")).expect("the adaptive sidecar"),
    )
    .expect("json");
    assert_eq!(meta["backend"], "gpu");
    assert_eq!(meta["max_depth"], 6);
    let per_depth: Vec<u64> = meta["nodes_per_depth"]
        .as_array()
        .expect("nodes_per_depth")
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(per_depth[2], 64, "8^2 roots");
    assert!(
        per_depth[6] > 0,
        "the octree reaches depth 6: {per_depth:?}"
    );
    assert!(npz.exists());
    // Node centres coloured by distance (the diverging map is light near
    // the surface), and the picked node's yellow box (that map has no
    // yellow).
    let img = load(&view);
    let lit = img
        .pixels()
        .filter(|p| p.0[..3].iter().any(|&c| c > 90))
        .count();
    let total = (img.width() * img.height()) as usize;
    assert!(
        lit > total / 100,
        "node centres should be visible: {lit} lit pixels of {total}"
    );
    let yellow = img
        .pixels()
        .filter(|p| {
            let [r, g, b, _] = p.0.map(i32::from);
            r > 230 && g > 210 && b < 40
        })
        .count();
    assert!(yellow > 20, "the picked node's box: {yellow} yellow pixels");
}

#[test]
fn a_failed_open_or_drop_ends_the_session_with_the_message() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-bad-open");
    let garbage = dir.join("garbage.obj");
    std::fs::write(&garbage, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let cases = [
        (
            format!("open:{}", dir.join("missing.obj").display()),
            "cannot read",
        ),
        (format!("drop:{}", garbage.display()), "not UTF-8 text"),
        (format!("open:{}", dir.display()), "cannot read"),
    ];
    for (step, message) in cases {
        let out = xvfb_run(&format!("{step}; quit"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "`{step}` must fail the session: {stderr}"
        );
        assert!(
            stderr.contains("could not open") && stderr.contains(message),
            "`{step}`: {stderr}"
        );
    }
}

#[test]
fn script_help_lists_the_steps_of_the_shell_and_every_mode() {
    let out = Command::new(env!("CARGO_BIN_EXE_collidoscope"))
        .args(["--script", "help"])
        .output()
        .expect("runs");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for step in [
        "open:SAMPLE|PATH",
        "drop:PATH",
        "res:N",
        "adaptive-depth:DEPTH",
        "collide:SCENE",
        "simulate:N",
        "tritri-offset:X,Y,Z",
        "interfere-move:X,Y,Z",
        "radial-res:WxH",
        "particles-count:N",
        "radial-open:PATH",
        "quit",
    ] {
        assert!(
            help.contains(&format!("  {step}")),
            "{step} missing:\n{help}"
        );
    }
}
