//! Running the viewer under Xvfb from a test, and reading its pictures.

use std::path::Path;
use std::process::Command;

pub fn xvfb_run(script: &str) -> std::process::Output {
    xvfb_run_with(script, &[])
}

pub fn xvfb_run_with(script: &str, env: &[(&str, &str)]) -> std::process::Output {
    xvfb_run_sized(script, env, "1600x1000")
}

/// The viewer under `xvfb-run` on an X screen of `size` (WIDTHxHEIGHT).
fn xvfb(size: &str) -> Command {
    let runtime = super::scratch("xdg");
    let mut command = Command::new("xvfb-run");
    command
        .args(["-a", "-s", &format!("-screen 0 {size}x24")])
        .arg(env!("CARGO_BIN_EXE_collidoscope"))
        .env("XDG_RUNTIME_DIR", &runtime);
    command
}

fn output(mut command: Command) -> std::process::Output {
    command.output().unwrap_or_else(|e| {
        panic!("xvfb-run could not start ({e}); install it with `apt install xvfb xauth`")
    })
}

/// Runs `script` on an X screen of `size` (WIDTHxHEIGHT).
pub fn xvfb_run_sized(script: &str, env: &[(&str, &str)], size: &str) -> std::process::Output {
    let mut command = xvfb(size);
    command.args(["--script", script]).envs(env.iter().copied());
    output(command)
}

/// Runs the viewer with `args` (files to open) before `--script`.
pub fn xvfb_run_args(args: &[&str], script: &str) -> std::process::Output {
    let mut command = xvfb("1600x1000");
    command.args(args).args(["--script", script]);
    output(command)
}

/// Runs a script that must succeed; a failure names `what` and shows the
/// viewer's output.
pub fn run_session(script: &str, what: &str) {
    let out = xvfb_run(script);
    assert!(
        out.status.success(),
        "the scripted {what} session failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn load(path: &Path) -> image::RgbaImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8()
}

/// Counts pixels by kind: (mesh-grey, saturated colour).
pub fn census(img: &image::RgbaImage) -> (usize, usize) {
    let (mut grey, mut coloured) = (0, 0);
    for p in img.pixels() {
        let [r, g, b, _] = p.0.map(i32::from);
        let (max, min) = (r.max(g).max(b), r.min(g).min(b));
        if max - min < 12 && max > 60 {
            grey += 1;
        } else if max - min > 80 {
            coloured += 1;
        }
    }
    (grey, coloured)
}

/// Runs `script`, which exports the view to `view`: it must succeed and
/// the view must show highlighted collisions (strongly red pixels).
pub fn assert_script_shows_red(script: &str, view: &Path, what: &str) {
    run_session(script, what);
    let red = load(view)
        .pixels()
        .filter(|p| {
            let [r, g, b, _] = p.0.map(i32::from);
            r > 120 && r > 2 * g && r > 2 * b
        })
        .count();
    assert!(
        red > 50,
        "{what}: collisions should show in red: {red} red pixels"
    );
}
