//! The triangle–triangle mode's queries: small ones on the UI thread as
//! soon as an input changes, larger ones (and loading models) as a job.

use std::sync::Arc;

use super::{BackendTime, ModelSource, Models, Outcome, SceneKey, TritriMode};
use crate::app::shell::Shell;
use crate::mesh::{Mesh, torus};
use crate::stages::tritri::{self, Backend, Pose, TriModel, TritriGpu, TritriResult};

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

impl TritriMode {
    /// A finished query: keep it, time it, draw it.
    pub(super) fn record(&mut self, shell: &mut Shell, r: TritriResult, scene: SceneKey) {
        let row = BackendTime {
            scene,
            backend: r.backend,
            all_pairs: r.params.all_pairs,
            wall_ms: r.timings.total_wall_ms(),
            gpu_ms: r.timings.total_gpu_ms(),
            collides: r.collides,
            pairs: r.params.all_pairs.then_some(r.contacts.len()),
        };
        merge_time(&mut self.times, row);
        shell.history.record_run(
            "tritri",
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
        let scene: SceneKey = (key.0.clone(), key.1.clone(), self.sliders());
        let job_scene = scene.clone();
        let mut backend = self.backend();
        if backend.is_gpu() && !gpu_ok {
            backend = Backend::Cpu;
            self.backend = Some(backend);
        }
        if (backend.is_gpu() || time_all) && gpu_ok && self.gpu.is_none() {
            self.gpu = Some(Arc::new(TritriGpu::new(&shell.render_gpu)));
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
                tritri::query(
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
                        scene: job_scene.clone(),
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
                scene: job_scene.clone(),
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
                        self.record(shell, r, scene);
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

/// Puts `row` in the per-backend table: it replaces its backend's row, and
/// rows of another scene go (they timed other models or another pose).
fn merge_time(times: &mut Vec<BackendTime>, row: BackendTime) {
    times.retain(|t| t.backend != row.backend && t.scene == row.scene);
    times.push(row);
    times.sort_by_key(|t| Backend::ALL.iter().position(|&b| b == t.backend));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(scene: &SceneKey, backend: Backend, pairs: usize) -> BackendTime {
        BackendTime {
            scene: scene.clone(),
            backend,
            all_pairs: true,
            wall_ms: 1.0,
            gpu_ms: None,
            collides: true,
            pairs: Some(pairs),
        }
    }

    #[test]
    fn the_backend_table_holds_one_scene() {
        let tori: SceneKey = (
            ModelSource::Torus,
            ModelSource::Torus,
            TritriMode::default().sliders(),
        );
        let rocker = ModelSource::Sample("rocker-arm".into());
        let rockers: SceneKey = (rocker.clone(), rocker, tori.2);
        let mut times = Vec::new();
        merge_time(&mut times, row(&tori, Backend::Gpu, 56));
        merge_time(&mut times, row(&tori, Backend::Cpu, 56));
        assert_eq!(times.len(), 2, "two backends of one scene");
        merge_time(&mut times, row(&rockers, Backend::Gpu, 1447));
        assert_eq!(times.len(), 1, "the tori's rows went with their scene");
        assert_eq!(times[0].pairs, Some(1447));
        let mut moved = rockers.clone();
        moved.2.translation[0] += 0.1;
        merge_time(&mut times, row(&moved, Backend::Cpu, 1200));
        assert!(
            times.iter().all(|t| t.scene == moved),
            "another pose is another scene"
        );
        merge_time(&mut times, row(&moved, Backend::Cpu, 1200));
        assert_eq!(times.len(), 1, "a backend's row is replaced");
    }
}
