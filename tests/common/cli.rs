//! Running the `collidoscope` binary from a test.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn exe() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
    c.env_remove("RUST_BACKTRACE");
    c
}

pub fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(name)
}

/// Runs a command that must succeed; its stdout.
pub fn run_ok(args: &[&str]) -> String {
    let out = exe().args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs a command that must fail with one readable line and no panic; its
/// stderr.
pub fn run_err(args: &[&str]) -> String {
    let out = exe().args(args).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success(),
        "{args:?} should fail; stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        !stderr.contains("panicked")
            && !stderr.contains("internal error")
            && !stderr.contains("RUST_BACKTRACE"),
        "{args:?} panicked: {stderr}"
    );
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "{args:?} should print one error line, got: {stderr}"
    );
    assert!(lines[0].starts_with("error: "), "{args:?}: {stderr}");
    stderr
}

/// Runs the binary with `args`; its whole output, whatever the exit code.
pub fn run(args: &[&str]) -> std::process::Output {
    exe().args(args).output().expect("runs")
}
