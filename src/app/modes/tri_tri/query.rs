//! The triangle–triangle mode's queries: small ones on the UI thread as
//! soon as an input changes, larger ones (and loading models) as a job.

use std::sync::Arc;

use super::{BackendTime, ModelSource, Models, Outcome, TriTri};
use crate::app::shell::Shell;
use crate::mesh::{Mesh, torus};
use crate::stages::tri_tri::{self, Backend, Pose, TriModel, TriTriGpu, TriTriResult};

/// Triangle pairs up to which a query runs on the UI thread.
pub const DIRECT_PAIRS: usize = 2_000_000;
/// `cpu-ref` tests every pair; "time all backends" skips it above this.
const CPU_REF_BUDGET: usize = 50_000_000;

fn load_model(source: &ModelSource, current: Option<&Mesh>) -> Result<TriModel, String> {
    let mesh = match source {
        ModelSource::Torus => torus(20, 10, 1.0, 0.25),
        ModelSource::Sample(name) => crate::assets::load_sample(name).map_err(|e| e.to_string())?,
        ModelSource::Current => current.ok_or("no mesh is open")?.clone(),
    };
    TriModel::new(&mesh).map_err(|e| e.to_string())
}

impl TriTri {
    /// A finished query: keep it, time it, draw it.
    pub(super) fn record(&mut self, shell: &mut Shell, r: TriTriResult) {
        let row = BackendTime {
            backend: r.backend,
            all_pairs: r.params.all_pairs,
            wall_ms: r.timings.total_wall_ms(),
            gpu_ms: r.timings.total_gpu_ms(),
            collides: r.collides,
            pairs: r.params.all_pairs.then_some(r.contacts.len()),
        };
        self.times.retain(|t| t.backend != row.backend);
        self.times.push(row);
        self.times
            .sort_by_key(|t| Backend::ALL.iter().position(|&b| b == t.backend));
        shell.history.record_run(
            "tri-tri",
            format!("tri-tri {}", r.backend.name()),
            r.timings.phases.clone(),
        );
        self.result = Some(r);
        self.redraw = true;
        self.error = None;
    }

    /// Runs the current query (or every backend with `time_all`): directly when
    /// the models are ready and the query small, else as a job.
    pub(super) fn start_job(&mut self, shell: &mut Shell, time_all: bool) {
        let gpu_ok = shell.gpu_ok();
        let key = (self.source_a(), self.source_b());
        let mut backend = self.backend();
        if backend.is_gpu() && !gpu_ok {
            backend = Backend::Cpu;
            self.backend = Some(backend);
        }
        if (backend.is_gpu() || time_all) && gpu_ok && self.gpu.is_none() {
            self.gpu = Some(Arc::new(TriTriGpu::new(&shell.render_gpu)));
        }
        let gpu = self.gpu.clone().filter(|_| gpu_ok);
        let cached = self
            .models
            .as_ref()
            .filter(|(a, b, _)| (a, b) == (&key.0, &key.1))
            .map(|(_, _, m)| m.clone());
        let current = shell.mesh.scene.as_ref().map(|s| s.prepared.mesh.clone());
        let pose_b = self.sliders().pose();
        let params = self.params();
        self.result_pose = pose_b;
        let work = move |models: Option<Models>| -> Result<Outcome, String> {
            let models = match models {
                Some(m) => m,
                None => {
                    let a = Arc::new(load_model(&key.0, current.as_ref())?);
                    let b = if key.1 == key.0 {
                        a.clone()
                    } else {
                        Arc::new(load_model(&key.1, current.as_ref())?)
                    };
                    (a, b)
                }
            };
            let (a, b) = (&*models.0, &*models.1);
            let run = |backend: Backend| {
                tri_tri::query(
                    a,
                    Pose::IDENTITY,
                    b,
                    pose_b,
                    &params,
                    backend,
                    gpu.as_deref(),
                )
                .map_err(|e| format!("{}: {e}", backend.name()))
            };
            let mut times = Vec::new();
            let result = if time_all {
                let pairs = a.triangle_count() * b.triangle_count();
                let mut last = None;
                for b in Backend::ALL {
                    if (b.is_gpu() && gpu.is_none())
                        || (b == Backend::CpuReference && pairs > CPU_REF_BUDGET)
                    {
                        continue;
                    }
                    // One warm-up (uploads the models to the GPU), then timed.
                    run(b)?;
                    let r = run(b)?;
                    times.push(BackendTime {
                        backend: b,
                        all_pairs: params.all_pairs,
                        wall_ms: r.timings.total_wall_ms(),
                        gpu_ms: r.timings.total_gpu_ms(),
                        collides: r.collides,
                        pairs: params.all_pairs.then_some(r.contacts.len()),
                    });
                    if b == backend {
                        last = Some(r);
                    }
                }
                last
            } else {
                Some(run(backend)?)
            };
            Ok(Outcome {
                models,
                key: key.clone(),
                result,
                times,
            })
        };
        let small = cached
            .as_ref()
            .is_some_and(|(a, b)| a.triangle_count() * b.triangle_count() <= DIRECT_PAIRS);
        if small && !time_all {
            match work(cached) {
                Ok(outcome) => {
                    if let Some(r) = outcome.result {
                        self.record(shell, r);
                    }
                }
                Err(e) => self.error = Some(e),
            }
            return;
        }
        if let Some(j) = self.job.take() {
            j.cancel();
        }
        let label = if time_all {
            "timing every backend".to_string()
        } else {
            format!("{} query", backend.name())
        };
        self.job = Some(shell.spawn(label, move |_| Ok(work(cached)?)));
    }
}
