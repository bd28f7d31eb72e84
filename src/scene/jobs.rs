//! Background jobs: a closure on its own thread, its progress, and its
//! result collected without blocking (the viewer polls once per frame).
//! A job ends with its product or a [`JobError`]: cancelled (the viewer
//! asked for it; nothing to report) or failed (say why).

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Instant;

use crate::progress::Progress;

/// Why a job gave no product.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    /// The job saw its [`Progress`] cancelled and stopped.
    #[error("cancelled")]
    Cancelled,
    #[error("{0}")]
    Failed(String),
}

impl From<String> for JobError {
    fn from(message: String) -> Self {
        JobError::Failed(message)
    }
}

/// A stage that saw its progress cancelled stopped as the job asked.
impl From<crate::stages::sdf_grid::SdfError> for JobError {
    fn from(e: crate::stages::sdf_grid::SdfError) -> Self {
        match e {
            crate::stages::sdf_grid::SdfError::Cancelled => JobError::Cancelled,
            e => JobError::Failed(e.to_string()),
        }
    }
}

/// A check that saw its progress cancelled stopped as the job asked.
impl From<crate::stages::check::CheckError> for JobError {
    fn from(e: crate::stages::check::CheckError) -> Self {
        use crate::stages::check::CheckError;
        match e {
            CheckError::Cancelled => JobError::Cancelled,
            CheckError::Sdf(e) => e.into(),
            e => JobError::Failed(e.to_string()),
        }
    }
}

impl From<&str> for JobError {
    fn from(message: &str) -> Self {
        JobError::Failed(message.to_string())
    }
}

/// A running job producing `T` or a [`JobError`].
pub struct Job<T> {
    pub label: String,
    pub progress: Arc<Progress>,
    pub started: Instant,
    rx: Receiver<Result<T, JobError>>,
}

impl<T: Send + 'static> Job<T> {
    /// Starts `work` on a new thread; `notify` is called when it finishes
    /// (the viewer passes a repaint request).
    pub fn spawn(
        label: impl Into<String>,
        notify: impl Fn() + Send + 'static,
        work: impl FnOnce(&Progress) -> Result<T, JobError> + Send + 'static,
    ) -> Self {
        let (tx, rx) = channel();
        let progress = Arc::new(Progress::default());
        let p = progress.clone();
        std::thread::spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&p)))
                .unwrap_or_else(|_| {
                    Err(JobError::Failed(
                        "the job failed unexpectedly (internal error)".into(),
                    ))
                });
            // The receiver is gone when the job was abandoned; nothing to do.
            let _ = tx.send(result);
            notify();
        });
        Job {
            label: label.into(),
            progress,
            started: Instant::now(),
            rx,
        }
    }

    /// The result, once finished.
    pub fn poll(&self) -> Option<Result<T, JobError>> {
        match self.rx.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err("the job ended without a result".into())),
        }
    }

    pub fn cancel(&self) {
        self.progress.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_delivers_its_result_and_sees_cancellation() {
        let job = Job::spawn(
            "sum",
            || {},
            |p: &Progress| {
                p.start(10);
                let mut spins = 0;
                while !p.is_cancelled() && spins < 1000 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    spins += 1;
                }
                if p.is_cancelled() {
                    Err(JobError::Cancelled)
                } else {
                    Ok(42)
                }
            },
        );
        job.cancel();
        let start = Instant::now();
        let result = loop {
            if let Some(r) = job.poll() {
                break r;
            }
            assert!(start.elapsed().as_secs() < 5, "job did not finish");
            std::thread::sleep(std::time::Duration::from_millis(2));
        };
        assert_eq!(result, Err(JobError::Cancelled));
        let ok = Job::spawn("ok", || {}, |_| Ok::<_, JobError>(7));
        let r = loop {
            if let Some(r) = ok.poll() {
                break r;
            }
        };
        assert_eq!(r, Ok(7));
    }
}
