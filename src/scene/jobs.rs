//! Background jobs: a closure on its own thread, its progress, and its
//! result collected without blocking (the viewer polls once per frame).
//! A job ends with its product or a [`JobError`]: cancelled (the viewer
//! asked for it; nothing to report) or failed (say why).
//!
//! [`Latest`] keeps the product of the last inputs a view asked for: asking
//! again with the same inputs reuses it (or the job already making it), a
//! request for other inputs cancels the job it supersedes, and a job starts
//! only once the requests have paused for a debounce interval (a slider
//! being dragged asks every frame).

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

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
impl From<crate::stages::sdf::SdfError> for JobError {
    fn from(e: crate::stages::sdf::SdfError) -> Self {
        match e {
            crate::stages::sdf::SdfError::Cancelled => JobError::Cancelled,
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
            p.finish();
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

/// The product of the latest inputs `K` asked for, and the job making it.
pub struct Latest<K, T> {
    debounce: Duration,
    product: Option<(K, Arc<T>)>,
    running: Option<(K, Job<T>)>,
    /// Inputs asked for and not yet started, and when they were last asked.
    wanted: Option<(K, Instant)>,
    started: usize,
}

impl<K: PartialEq + Clone, T: Send + 'static> Latest<K, T> {
    /// Jobs start once requests have paused for `debounce`.
    pub fn new(debounce: Duration) -> Self {
        Latest {
            debounce,
            product: None,
            running: None,
            wanted: None,
            started: 0,
        }
    }

    /// Asks for the product of `key` at `now`: the product itself when it
    /// is the last one made; otherwise it will be made (unless the running
    /// job is making it), and a running job for other inputs is cancelled.
    pub fn want(&mut self, key: K, now: Instant) -> Option<Arc<T>> {
        if self.running.as_ref().is_some_and(|(k, _)| *k != key)
            && let Some((_, job)) = self.running.take()
        {
            job.cancel();
        }
        if let Some((k, product)) = &self.product
            && *k == key
        {
            self.wanted = None;
            return Some(product.clone());
        }
        if self.running.is_some() {
            self.wanted = None;
        } else {
            self.wanted = Some((key, now));
        }
        None
    }

    /// Starts the wanted job with `spawn` once requests paused for the
    /// debounce interval; true if it started.
    pub fn start_due(&mut self, now: Instant, spawn: impl FnOnce(&K) -> Job<T>) -> bool {
        match self.wanted.take() {
            Some((key, at)) if now.duration_since(at) >= self.debounce => {
                let job = spawn(&key);
                self.running = Some((key, job));
                self.started += 1;
                true
            }
            wanted => {
                self.wanted = wanted;
                false
            }
        }
    }

    /// The running job's result once it finished; a product is kept for
    /// [`Latest::want`].
    pub fn poll(&mut self) -> Option<Result<Arc<T>, JobError>> {
        let result = self.running.as_ref()?.1.poll()?;
        let (key, _) = self.running.take()?;
        Some(result.map(|product| {
            let product = Arc::new(product);
            self.product = Some((key, product.clone()));
            product
        }))
    }

    /// Cancels the running job and forgets the wanted inputs.
    pub fn cancel(&mut self) -> bool {
        self.wanted = None;
        self.running.take().map(|(_, job)| job.cancel()).is_some()
    }

    /// A job is running or waiting for its debounce.
    pub fn busy(&self) -> bool {
        self.running.is_some() || self.wanted.is_some()
    }

    pub fn running(&self) -> Option<&Job<T>> {
        self.running.as_ref().map(|(_, j)| j)
    }

    /// How many jobs were started.
    pub fn runs(&self) -> usize {
        self.started
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait<T>(latest: &mut Latest<u32, T>) -> Result<Arc<T>, JobError>
    where
        T: Send + 'static,
    {
        let start = Instant::now();
        loop {
            if let Some(r) = latest.poll() {
                return r;
            }
            assert!(start.elapsed().as_secs() < 5, "job did not finish");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn identical_inputs_reuse_the_product_and_requests_are_debounced() {
        let mut latest: Latest<u32, u32> = Latest::new(Duration::from_millis(100));
        let t0 = Instant::now();
        let spawn = |k: &u32| {
            let k = *k;
            Job::spawn("square", || {}, move |_| Ok(k * k))
        };
        // A slider dragged over 1, 2, 3: only the last value runs, after a pause.
        for (ms, k) in [(0, 1), (30, 2), (60, 3)] {
            assert!(latest.want(k, t0 + Duration::from_millis(ms)).is_none());
        }
        assert!(!latest.start_due(t0 + Duration::from_millis(120), spawn));
        assert!(latest.busy());
        assert!(latest.start_due(t0 + Duration::from_millis(160), spawn));
        assert_eq!(*wait(&mut latest).unwrap(), 9);
        // The same inputs again: the product, no new run.
        let now = Instant::now();
        assert_eq!(latest.want(3, now).as_deref(), Some(&9));
        assert!(!latest.start_due(now + Duration::from_secs(1), spawn));
        assert_eq!(latest.runs(), 1);
        assert!(!latest.busy());
        // A request for what the running job makes starts nothing new.
        latest.want(4, now);
        assert!(latest.start_due(now + Duration::from_secs(1), spawn));
        assert!(latest.want(4, now).is_none());
        assert!(!latest.start_due(now + Duration::from_secs(2), spawn));
        assert_eq!(*wait(&mut latest).unwrap(), 16);
        assert_eq!(latest.runs(), 2);
    }

    #[test]
    fn a_superseded_job_is_cancelled() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let saw_cancel = Arc::new(AtomicBool::new(false));
        let mut latest: Latest<u32, u32> = Latest::new(Duration::ZERO);
        let now = Instant::now();
        latest.want(1, now);
        let seen = saw_cancel.clone();
        let mut progress = None;
        latest.start_due(now, |_| {
            let job = Job::spawn(
                "slow",
                || {},
                move |p: &Progress| {
                    let start = Instant::now();
                    while !p.is_cancelled() && start.elapsed().as_secs() < 5 {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    seen.store(p.is_cancelled(), Ordering::SeqCst);
                    Err(JobError::Cancelled)
                },
            );
            progress = Some(job.progress.clone());
            job
        });
        latest.want(2, now);
        let progress = progress.unwrap();
        assert!(
            progress.is_cancelled(),
            "the superseded job is told to stop"
        );
        let start = Instant::now();
        while !progress.is_finished() {
            assert!(
                start.elapsed().as_secs() < 4,
                "the superseded job did not stop"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(saw_cancel.load(Ordering::SeqCst));
        assert!(latest.start_due(now, |k| {
            let k = *k;
            Job::spawn("fast", || {}, move |_| Ok(k))
        }));
        assert_eq!(*wait(&mut latest).unwrap(), 2, "the new inputs' product");
    }

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
