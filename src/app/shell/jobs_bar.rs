//! A progress bar, with Cancel, for every job that has run longer than
//! [`PROGRESS_AFTER`] (shorter ones would only flicker).

use std::sync::{Arc, Weak};
use std::time::Instant;

use eframe::egui;

use super::{PROGRESS_AFTER, Shell};
use crate::progress::Progress;

/// The jobs started through the shell, watched until they finish.
#[derive(Default)]
pub struct RunningJobs {
    jobs: Vec<(String, Weak<Progress>, Instant)>,
}

impl RunningJobs {
    pub fn watch(&mut self, label: &str, progress: &Arc<Progress>, started: Instant) {
        self.jobs
            .push((label.to_string(), Arc::downgrade(progress), started));
    }

    /// The jobs running at `now` for longer than [`PROGRESS_AFTER`]; finished
    /// or abandoned ones are forgotten.
    pub fn due(&mut self, now: Instant) -> Vec<(String, Arc<Progress>)> {
        self.jobs
            .retain(|(_, p, _)| p.upgrade().is_some_and(|p| !p.is_finished()));
        self.jobs
            .iter()
            .filter(|(_, _, at)| now.duration_since(*at) >= PROGRESS_AFTER)
            .filter_map(|(label, p, _)| Some((label.clone(), p.upgrade()?)))
            .collect()
    }

    /// Whether any job is being watched (the window repaints to show it).
    pub fn any(&self) -> bool {
        !self.jobs.is_empty()
    }
}

/// The bars, in a strip under the banner.
pub fn jobs_bar_ui(shell: &mut Shell, ui: &mut egui::Ui) {
    let (due, any) = {
        let mut jobs = shell
            .running_jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (jobs.due(Instant::now()), jobs.any())
    };
    if any {
        ui.ctx().request_repaint_after(PROGRESS_AFTER / 3);
    }
    if due.is_empty() {
        return;
    }
    egui::Panel::top("jobs").show(ui, |ui| {
        for (label, progress) in due {
            ui.horizontal(|ui| {
                ui.add(
                    egui::ProgressBar::new(progress.fraction())
                        .text(label)
                        .desired_width(360.0)
                        .animate(true),
                );
                if ui.small_button("Cancel").clicked() {
                    progress.cancel();
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_bar_shows_after_the_delay_until_the_job_finishes() {
        let mut jobs = RunningJobs::default();
        let t0 = Instant::now();
        let slow = Arc::new(Progress::default());
        let dropped = Arc::new(Progress::default());
        jobs.watch("slow", &slow, t0);
        jobs.watch("dropped", &dropped, t0);
        drop(dropped);
        assert!(jobs.due(t0 + Duration::from_millis(100)).is_empty());
        let due = jobs.due(t0 + PROGRESS_AFTER + Duration::from_millis(1));
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].0, "slow");
        drop(due);
        slow.finish();
        assert!(jobs.due(t0 + Duration::from_secs(5)).is_empty());
        assert!(!jobs.any());
    }
}
