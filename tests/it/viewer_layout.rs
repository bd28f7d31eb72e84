//! Every mode on three generated meshes — far off the origin, tiny and
//! huge — at 1600×1000 and 1280×720, one session per size: each view must
//! show its encoding, carry its keys, and no panel may cover another. The
//! checks read the window screenshot and the `layout:` report the app
//! writes beside it (the rectangles it drew: panels, the 3D view, the key
//! column and each key).

use crate::common;
use crate::common::viewer::*;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A closed UV sphere of `radius` around `centre`, as OBJ text.
fn sphere_obj(centre: [f64; 3], radius: f64) -> String {
    let (rings, segments) = (10, 16);
    let mut obj = String::new();
    let _ = writeln!(obj, "v {} {} {}", centre[0], centre[1] + radius, centre[2]);
    for i in 1..rings {
        let phi = std::f64::consts::PI * i as f64 / rings as f64;
        for j in 0..segments {
            let theta = std::f64::consts::TAU * j as f64 / segments as f64;
            let _ = writeln!(
                obj,
                "v {} {} {}",
                centre[0] + radius * phi.sin() * theta.cos(),
                centre[1] + radius * phi.cos(),
                centre[2] + radius * phi.sin() * theta.sin()
            );
        }
    }
    let _ = writeln!(obj, "v {} {} {}", centre[0], centre[1] - radius, centre[2]);
    let bottom = 2 + (rings - 1) * segments;
    let at = |i: usize, j: usize| 2 + (i - 1) * segments + j % segments;
    for j in 0..segments {
        let _ = writeln!(obj, "f 1 {} {}", at(1, j + 1), at(1, j));
        let _ = writeln!(
            obj,
            "f {bottom} {} {}",
            at(rings - 1, j),
            at(rings - 1, j + 1)
        );
        for i in 1..rings - 1 {
            let (a, b, c, d) = (at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j));
            let _ = writeln!(obj, "f {a} {b} {c}\nf {a} {c} {d}");
        }
    }
    obj
}

/// The steps that show each mode (a mode's scene is made once, on the
/// first mesh; the pipeline takes every mesh as one more body).
fn mode_steps(mode: &str, mesh: &Path, first: bool) -> String {
    // Adding a body clears the pick: body 0's samples are picked after.
    let add = format!(
        "simulate-add:{}; simulate-pick:0; simulate-step:8",
        mesh.display()
    );
    match (mode, first) {
        ("sdf", _) => "mode:sdf; compute".into(),
        ("adaptive", _) => "adaptive; adaptive-depth:4".into(),
        ("collide", true) => "collide:drop-on-mesh; collide-samples:on; collide-step:20".into(),
        ("tritri", true) => "tritri:tori; tritri-offset:0.42,0,0".into(),
        ("interfere", true) => {
            "interfere:random-boxes; interfere-count:12; interfere-res:64".into()
        }
        ("simulate", true) => format!("simulate:4; simulate-backend:cpu; {add}"),
        ("simulate", false) => format!("mode:simulate; {add}"),
        ("radial", true) => "radial; radial-res:16x8; radial-time:0.5".into(),
        ("particles", true) => "particles; particles-count:500; particles-time:1".into(),
        (other, false) => format!("mode:{other}"),
        (other, true) => panic!("no steps for the {other} mode"),
    }
}

const MODES: [&str; 8] = [
    "sdf",
    "adaptive",
    "collide",
    "tritri",
    "interfere",
    "simulate",
    "radial",
    "particles",
];

type Rect = [f32; 4];

/// One frame's layout report.
struct Layout {
    window: Rect,
    mode: String,
    mesh: String,
    placed: Vec<(String, String, Rect)>,
}

fn read_layout(path: &Path) -> Layout {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_str(&text).expect("the layout is JSON");
    let rect = |v: &serde_json::Value| -> Rect {
        let r: Vec<f32> = (0..4)
            .map(|i| v[i].as_f64().unwrap_or(f64::NAN) as f32)
            .collect();
        [r[0], r[1], r[2], r[3]]
    };
    Layout {
        window: rect(&json["window"]),
        mode: json["mode"].as_str().unwrap_or_default().to_string(),
        mesh: json["mesh"].as_str().unwrap_or_default().to_string(),
        placed: json["placed"]
            .as_array()
            .expect("placed rectangles")
            .iter()
            .map(|p| {
                (
                    p["kind"].as_str().unwrap_or_default().to_string(),
                    p["name"].as_str().unwrap_or_default().to_string(),
                    rect(&p["rect"]),
                )
            })
            .collect(),
    }
}

/// Whether `a` and `b` share more than an edge.
fn overlap(a: Rect, b: Rect) -> bool {
    let e = 1.5;
    a[0] + e < b[2] - e && b[0] + e < a[2] - e && a[1] + e < b[3] - e && b[1] + e < a[3] - e
}

fn inside(a: Rect, outer: Rect) -> bool {
    let e = 1.5;
    a[0] >= outer[0] - e && a[1] >= outer[1] - e && a[2] <= outer[2] + e && a[3] <= outer[3] + e
}

/// Pixels of `img` inside `r` (points; the screenshot is at one pixel a
/// point): (lit, saturated, distinct grey levels).
fn crop_census(img: &image::RgbaImage, r: Rect) -> (usize, usize, usize) {
    let (mut lit, mut coloured) = (0, 0);
    let mut levels = std::collections::BTreeSet::new();
    let x1 = (r[2] as u32).min(img.width());
    let y1 = (r[3] as u32).min(img.height());
    for y in (r[1].max(0.0) as u32)..y1 {
        for x in (r[0].max(0.0) as u32)..x1 {
            let [red, g, b, _] = img.get_pixel(x, y).0.map(i32::from);
            let (max, min) = (red.max(g).max(b), red.min(g).min(b));
            if max > 60 {
                lit += 1;
            }
            if max - min > 80 {
                coloured += 1;
            }
            levels.insert(max / 16);
        }
    }
    (lit, coloured, levels.len())
}

/// Checks one screenshot and its layout; returns what is wrong.
fn check(shot: &Path, layout: &Path, mode: &str, mesh: &str) -> Vec<String> {
    let what = format!("{} ({mode}, {mesh})", shot.display());
    let mut wrong = Vec::new();
    let l = read_layout(layout);
    let img = load(shot);
    if l.mode != mode {
        wrong.push(format!("{what}: the layout is of mode {}", l.mode));
    }
    if (mode == "sdf" || mode == "adaptive") && !l.mesh.contains(mesh) {
        wrong.push(format!("{what}: the mesh shown is {:?}", l.mesh));
    }
    let of = |kind: &str| -> Vec<&(String, String, Rect)> {
        l.placed.iter().filter(|p| p.0 == kind).collect()
    };
    let panels = of("panel");
    for (i, a) in panels.iter().enumerate() {
        if !inside(a.2, l.window) {
            wrong.push(format!("{what}: panel {} leaves the window", a.1));
        }
        for b in &panels[i + 1..] {
            if overlap(a.2, b.2) {
                wrong.push(format!("{what}: panel {} overlaps panel {}", a.1, b.1));
            }
        }
    }
    let keys = of("key");
    let column = panels.iter().find(|p| p.1 == "keys");
    if keys.is_empty() {
        wrong.push(format!("{what}: no key beside the view"));
    }
    for (i, k) in keys.iter().enumerate() {
        if !column.is_some_and(|c| inside(k.2, c.2)) {
            wrong.push(format!("{what}: key {} is not in the key column", k.1));
        }
        for b in &keys[i + 1..] {
            if overlap(k.2, b.2) {
                wrong.push(format!("{what}: key {} overlaps key {}", k.1, b.1));
            }
        }
        // A drawn key has a frame, swatches and text: several levels.
        let (_, _, levels) = crop_census(&img, k.2);
        if levels < 4 {
            wrong.push(format!("{what}: key {} looks blank", k.1));
        }
    }
    match panels.iter().find(|p| p.1 == "view") {
        None => wrong.push(format!("{what}: no 3D view")),
        Some(view) => {
            let r = view.2;
            let area = ((r[2] - r[0]) * (r[3] - r[1])) as usize;
            let (lit, coloured, _) = crop_census(&img, r);
            // The pipeline's bodies and ground are grey; every other mode
            // encodes in colour.
            let colours = if mode == "simulate" { 0 } else { 40 };
            if lit < area / 200 || coloured < colours {
                wrong.push(format!(
                    "{what}: the view looks empty: {lit} lit, {coloured} coloured of {area} pixels"
                ));
            }
        }
    }
    wrong
}

/// One session at `size` over every mode and mesh; returns what is wrong.
fn run_size(size: &str, meshes: &[(String, PathBuf)], dir: &Path) -> Vec<String> {
    let mut script = String::from("profiler:on; ");
    let mut shots = Vec::new();
    for (m, (name, path)) in meshes.iter().enumerate() {
        let _ = write!(
            script,
            "mode:sdf; open:{}; res:24; compute; ",
            path.display()
        );
        for mode in MODES {
            let shot = dir.join(format!("{size}-{name}-{mode}.png"));
            let layout = dir.join(format!("{size}-{name}-{mode}.json"));
            let _ = write!(
                script,
                "{}; wait:1; screenshot:{}; layout:{}; ",
                mode_steps(mode, path, m == 0),
                shot.display(),
                layout.display()
            );
            shots.push((shot, layout, mode, name.clone()));
        }
    }
    script += "quit";
    let out = xvfb_run_sized(&script, &[], size);
    assert!(
        out.status.success(),
        "the {size} session failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    shots
        .iter()
        .flat_map(|(shot, layout, mode, mesh)| check(shot, layout, mode, mesh))
        .collect()
}

#[test]
fn every_mode_on_three_meshes_shows_its_encoding_and_keys_without_overlaps() {
    let _ = common::gpu();
    let dir = common::scratch("viewer-layout");
    let meshes: Vec<(String, PathBuf)> = [
        ("off-origin", [1000.0, -500.0, 250.0], 1.0),
        ("tiny", [0.0, 0.0, 0.0], 1e-3),
        ("huge", [0.0, 0.0, 0.0], 1e4),
    ]
    .into_iter()
    .map(|(name, centre, radius)| {
        let path = dir.join(format!("{name}.obj"));
        std::fs::write(&path, sphere_obj(centre, radius)).unwrap();
        (name.to_string(), path)
    })
    .collect();
    let mut wrong = Vec::new();
    for size in ["1600x1000", "1280x720"] {
        wrong.extend(run_size(size, &meshes, &dir));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
