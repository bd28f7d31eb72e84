//! Loading in the viewer as a user does, in one scripted session under
//! Xvfb: a PLY scan named on the command line beside `--script` is the mesh
//! shown; a field of another mesh hash is refused, then checked with the
//! override; a bare `.npy` grid is checked with a layout guessed from the
//! mesh and the array; an STL dropped in the pipeline mode becomes a body
//! (the mesh stays); File → Open's own picker and Help → About are drawn
//! and saved as screenshots.

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
