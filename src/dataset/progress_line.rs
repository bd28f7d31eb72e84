//! The run's progress on stderr: on a terminal one line redrawn in place
//! (a bar, meshes done of all, meshes/s, the time left), otherwise one
//! plain line per mesh (for logs and SLURM output files).

use std::io::{IsTerminal, Write};
use std::time::Instant;

use super::driver::{MeshResult, Status};

/// Counts the meshes as they end and shows the progress.
pub struct ProgressLine {
    total: usize,
    done: usize,
    failed: usize,
    started: Instant,
    terminal: bool,
}

impl ProgressLine {
    /// A progress display of `total` meshes; a bar when stderr is a terminal.
    pub fn new(total: usize) -> Self {
        ProgressLine {
            total,
            done: 0,
            failed: 0,
            started: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
        }
    }

    /// One more mesh ended.
    pub fn advance(&mut self, r: &MeshResult) {
        self.done += 1;
        if r.status == Status::Failed {
            self.failed += 1;
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        let rate = self.done as f64 / elapsed.max(1e-9);
        let left = (self.total - self.done.min(self.total)) as f64 / rate.max(1e-9);
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let width = 24;
            let filled = (self.done * width).checked_div(self.total).unwrap_or(width);
            let _ = write!(
                err,
                "\r[{}{}] {}/{} meshes, {} failed, {rate:.1} meshes/s, ETA {}   ",
                "#".repeat(filled),
                " ".repeat(width - filled.min(width)),
                self.done,
                self.total,
                self.failed,
                clock(left),
            );
            if self.done == self.total {
                let _ = writeln!(err);
            }
        } else {
            let what = match (&r.status, &r.error) {
                (Status::Failed, Some(e)) => format!("failed: {e}"),
                (Status::Skipped, _) => "skipped (complete)".into(),
                _ => "written".into(),
            };
            let _ = writeln!(
                err,
                "dataset: {}/{} {} {what} ({rate:.2} meshes/s, ETA {})",
                self.done,
                self.total,
                r.path,
                clock(left),
            );
        }
    }
}

/// Seconds as h:mm:ss.
fn clock(seconds: f64) -> String {
    let s = seconds.round().min(1e9) as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}
