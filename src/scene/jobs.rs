//! Background jobs: a closure on its own thread, its progress, and its
//! result collected without blocking (the viewer polls once per frame).

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Instant;

use crate::progress::Progress;

/// A running job producing `T` or an error message.
pub struct Job<T> {
    pub label: String,
    pub progress: Arc<Progress>,
    pub started: Instant,
    rx: Receiver<Result<T, String>>,
}

impl<T: Send + 'static> Job<T> {
    /// Starts `work` on a new thread; `notify` is called when it finishes
    /// (the viewer passes a repaint request).
    pub fn spawn(
        label: impl Into<String>,
        notify: impl Fn() + Send + 'static,
        work: impl FnOnce(&Progress) -> Result<T, String> + Send + 'static,
    ) -> Self {
        let (tx, rx) = channel();
        let progress = Arc::new(Progress::default());
        let p = progress.clone();
        std::thread::spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&p)))
                .unwrap_or_else(
                    |_| Err("the job failed unexpectedly (internal error)".to_string()),
                );
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
    pub fn poll(&self) -> Option<Result<T, String>> {
        match self.rx.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                Some(Err("the job ended without a result".to_string()))
            }
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
                    Err("cancelled".to_string())
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
        assert_eq!(result, Err("cancelled".to_string()));
        let ok = Job::spawn("ok", || {}, |_| Ok::<_, String>(7));
        let r = loop {
            if let Some(r) = ok.poll() {
                break r;
            }
        };
        assert_eq!(r, Ok(7));
    }
}
