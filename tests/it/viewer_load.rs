//! Loading in the viewer as a user does, in one scripted session under
//! Xvfb: a PLY scan named on the command line beside `--script` is the mesh
//! shown; a field of another mesh hash is refused, then checked with the
//! override; a bare `.npy` grid is checked with a layout guessed from the
//! mesh and the array; an STL dropped in the pipeline mode becomes a body
//! (the mesh stays); File → Open's own picker and Help → About are drawn
//! and saved as screenshots. A researcher's grid with no mesh is viewed on
//! its own, and a bare grid of `sdf` with padding gets `sdf`'s layout.

use std::path::Path;
use std::process::Command;

use crate::common;
use common::cli::{asset, run_ok};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn files_fields_drops_picker_and_about() {
    let dir = common::scratch("viewer-load");
    let spot = collidoscope::mesh::load_obj_merged(&asset("spot.obj")).unwrap();
    let scan = dir.join("scan.ply");
    std::fs::write(&scan, common::mesh_files::ply_binary(&spot, false)).unwrap();
    let cube = dir.join("cube.stl");
    std::fs::write(
        &cube,
        common::mesh_files::stl_binary(&collidoscope::mesh::box_mesh(1), "cube"),
    )
    .unwrap();
    // The field of the scan, a copy whose sidecar names another mesh, and
    // a bare copy without sidecar.
    let field = dir.join("field.npy");
    run_ok(&[
        "sdf",
        s(&scan),
        "--res",
        "24",
        "--backend",
        "cpu",
        "--no-cache",
        "--out",
        s(&field),
    ]);
    let other = dir.join("other.npy");
    std::fs::copy(&field, &other).unwrap();
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("field.json")).unwrap()).unwrap();
    meta["mesh_hash"] = "0123456789abcdef".into();
    std::fs::write(dir.join("other.json"), meta.to_string()).unwrap();
    let bare = dir.join("bare.npy");
    std::fs::copy(&field, &bare).unwrap();
    // A folder, for the picker to list with its icon.
    std::fs::create_dir_all(dir.join("scans")).unwrap();

    let shot = |name: &str| dir.join(name).display().to_string();
    let script = format!(
        "expect-mesh:scan.ply; compute; \
         open-field:{other}; expect-error; \
         field-overrides:mesh-hash; open-field:{other}; compute; screenshot:{flagged}; \
         field-overrides:none; open-field:{bare}; compute; screenshot:{guessed}; \
         mode:pipeline; drop:{cube}; wait:5; expect-mesh:scan.ply; \
         file-picker:npy@{dir}; wait:3; screenshot:{picker}; \
         about; wait:3; screenshot:{about}; quit",
        other = s(&other),
        bare = s(&bare),
        cube = s(&cube),
        dir = s(&dir),
        flagged = shot("flagged.png"),
        guessed = shot("guessed.png"),
        picker = shot("picker.png"),
        about = shot("about.png"),
    );
    let runtime = common::scratch("viewer-load-xdg");
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1600x1000x24"])
        .arg(env!("CARGO_BIN_EXE_collidoscope"))
        .arg(&scan)
        .args(["--script", &script])
        .env("XDG_RUNTIME_DIR", &runtime)
        .output()
        .expect("xvfb-run runs");
    assert!(
        out.status.success(),
        "the session failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["flagged.png", "guessed.png", "picker.png", "about.png"] {
        let img = common::viewer::load(&dir.join(name));
        assert!(img.width() > 1000, "{name}");
    }
}

/// The `layout:` report a session wrote, as JSON.
fn report(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn caption(report: &serde_json::Value) -> &str {
    report["caption"].as_str().unwrap_or("")
}

/// A float64 grid without sidecar named alone on the command line is
/// viewed as cells with no mesh, its layout guessed in index coordinates
/// and said so; `view-field:` does the same with a mesh open. A bare grid
/// that `sdf --pad 0.3` wrote for the open mesh is read with `sdf`'s
/// layout (not a guess from the mesh's unpadded bounds), so it agrees
/// with the exact field.
#[test]
fn a_grid_is_viewed_alone_and_sdf_padding_is_found() {
    let dir = common::scratch("viewer-alone");
    // A ball of radius 8 cells in a 20 × 24 × 28 grid (zyx), float64.
    let mut data = Vec::new();
    for k in 0..20 {
        for j in 0..24 {
            for i in 0..28 {
                let d = ((i as f64 - 13.5).powi(2)
                    + (j as f64 - 11.5).powi(2)
                    + (k as f64 - 9.5).powi(2))
                .sqrt()
                    - 8.0;
                data.extend(d.to_le_bytes());
            }
        }
    }
    let grid = dir.join("ball.npy");
    std::fs::write(
        &grid,
        crate::inputs_refused::npy_bytes("<f8", "(20, 24, 28)", &data),
    )
    .unwrap();
    let (alone, alone_png) = (dir.join("alone.json"), dir.join("alone.png"));
    let script = format!(
        "wait:3; layout:{}; screenshot:{}; quit",
        s(&alone),
        s(&alone_png)
    );
    let out = common::viewer::xvfb_run_args(&[s(&grid)], &script);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report(&alone);
    assert_eq!(r["mesh"], "", "no mesh opens beside a field: {r}");
    assert!(
        caption(&r).contains("ball.npy viewed on its own")
            && caption(&r).contains("28×24×20 cells")
            && caption(&r).contains("layout guessed"),
        "{r}"
    );
    let (_, coloured) = common::viewer::census(&common::viewer::load(&alone_png));
    assert!(
        coloured > 20_000,
        "the ball's cells: {coloured} coloured pixels"
    );

    // The field of spot with a padding of 0.3, without its sidecar.
    let padded = dir.join("padded.npy");
    run_ok(&[
        "sdf",
        s(&asset("spot.obj")),
        "--res",
        "24",
        "--pad",
        "0.3",
        "--backend",
        "cpu",
        "--no-cache",
        "--out",
        s(&padded),
    ]);
    std::fs::remove_file(dir.join("padded.json")).unwrap();
    let (checked, viewed) = (dir.join("checked.json"), dir.join("viewed.json"));
    let script = format!(
        "compute; verify-threshold:1e-4; open-field:{}; compute; wait:2; layout:{}; \
         view-field:{}; wait:3; layout:{}; quit",
        s(&padded),
        s(&checked),
        s(&grid),
        s(&viewed)
    );
    let out = common::viewer::xvfb_run_args(&[s(&asset("spot.obj"))], &script);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report(&checked);
    let text = caption(&r);
    assert!(
        text.contains("padded.npy") && text.contains(": 0 samples >"),
        "sdf's grid agrees with the exact field: {r}"
    );
    assert!(
        text.contains("layout of sdf's grid") && !text.contains("guessed"),
        "{r}"
    );
    let r = report(&viewed);
    assert_eq!(r["mesh"], "", "view-field closes the mesh: {r}");
    assert!(caption(&r).contains("ball.npy viewed on its own"), "{r}");
}
