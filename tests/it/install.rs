//! Installing and starting from the README alone: the
//! README's apt line has every package `.ci/run` installs, it names the
//! toolchain, and the viewer without a display says what to do instead.

use std::process::Command;

fn read(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The packages of the first `apt`/`apt-get install` command in `text`
/// (backslash continuations joined).
fn apt_packages(text: &str) -> Vec<String> {
    let joined = text.replace("\\\n", " ");
    let line = joined
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with("apt install") || l.starts_with("apt-get install"))
        .expect("an apt install line");
    line.split_whitespace()
        .skip_while(|w| *w != "install")
        .skip(1)
        .filter(|w| !w.starts_with('-') && !w.starts_with('>'))
        .map(str::to_string)
        .collect()
}

#[test]
fn readme_apt_line_has_what_ci_installs() {
    let readme = apt_packages(&read("README.md"));
    let ci = apt_packages(&read(".ci/run"));
    assert!(ci.iter().any(|p| p == "libxkbcommon-x11-0"), "{ci:?}");
    for package in &ci {
        assert!(
            readme.contains(package),
            "README's apt line lacks {package}: {readme:?}"
        );
    }
}

#[test]
fn readme_names_the_toolchain() {
    let readme = read("README.md");
    for needed in [
        "build-essential",
        "rustup",
        "xvfb-run",
        "docs/src/testing.md",
    ] {
        assert!(readme.contains(needed), "README does not mention {needed}");
    }
    // The longer fuzzing runs are the book's (the README gives one test
    // command: the one CI runs).
    assert!(
        read("docs/src/testing.md").contains("COLLIDOSCOPE_FUZZ_CASES"),
        "the testing page does not say how to fuzz longer"
    );
}

#[test]
fn viewer_without_display_suggests_xvfb_or_render() {
    let out = Command::new(env!("CARGO_BIN_EXE_collidoscope"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("run collidoscope");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "exit 0 without a display: {stderr}");
    assert!(stderr.contains("no display"), "{stderr}");
    assert!(
        stderr.contains("xvfb-run") && stderr.contains("collidoscope render"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
}

#[test]
fn viewer_without_xdg_runtime_dir_prints_no_errors() {
    let out = Command::new("xvfb-run")
        .args(["-a", env!("CARGO_BIN_EXE_collidoscope"), "--script", "quit"])
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap_or_else(|e| panic!("xvfb-run could not start ({e}); apt install xvfb xauth"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("error:"), "{stderr}");
}
