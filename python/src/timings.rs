//! What the last point query cost: `collidoscope.last_timings()`.
//!
//! A researcher comparing collidoscope with another tool wants the
//! kernels' own time beside the call's: the GPU's time per phase comes
//! from timestamp queries (the same phases `collidoscope sdf --profile`
//! shows), summed over the call's chunks; `wall_ms` is the whole call as
//! the binding saw it, from taking the arrays to handing back the result,
//! so `wall_ms - gpu_ms` is the binding's, the copies' and the CPU's
//! share.

use std::sync::Mutex;
use std::time::Instant;

use collidoscope::gpu::GpuPhase;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// One call's costs.
#[derive(Clone, Debug)]
pub struct CallTimings {
    function: &'static str,
    backend: &'static str,
    points: usize,
    chunks: usize,
    wall_ms: f64,
    /// Per phase, in first-seen order, summed over the chunks; `None` when
    /// the device has no timestamp queries or the CPU ran.
    phases: Option<Vec<(String, f64)>>,
}

static LAST: Mutex<Option<CallTimings>> = Mutex::new(None);

/// Collects a call's chunks' phases; [`Recorder::finish`] keeps them as
/// the process's last timings.
pub struct Recorder {
    function: &'static str,
    started: Instant,
    chunks: usize,
    phases: Vec<(String, f64)>,
    timed: bool,
}

impl Recorder {
    pub fn start(function: &'static str) -> Self {
        Recorder {
            function,
            started: Instant::now(),
            chunks: 0,
            phases: Vec::new(),
            timed: false,
        }
    }

    /// One submission's phases as (name, GPU ms): phases without a GPU
    /// time (the CPU's, or a device without timestamp queries) are left
    /// out.
    pub fn add<'a>(&mut self, phases: impl IntoIterator<Item = (&'a str, Option<f64>)>) {
        self.chunks += 1;
        for (name, ms) in phases {
            let Some(ms) = ms else { continue };
            self.timed = true;
            match self.phases.iter_mut().find(|(n, _)| n == name) {
                Some((_, sum)) => *sum += ms,
                None => self.phases.push((name.to_string(), ms)),
            }
        }
    }

    /// [`Recorder::add`] of a point query's phases.
    pub fn add_gpu(&mut self, phases: &[GpuPhase]) {
        self.add(phases.iter().map(|p| (p.name.as_str(), p.gpu_ms)));
    }

    pub fn finish(self, backend: &'static str, points: usize) {
        let timings = CallTimings {
            function: self.function,
            backend,
            points,
            chunks: self.chunks,
            wall_ms: self.started.elapsed().as_secs_f64() * 1e3,
            phases: self.timed.then_some(self.phases),
        };
        *LAST.lock().unwrap_or_else(|e| e.into_inner()) = Some(timings);
    }
}

/// last_timings()
///
/// What the process's last ``signed_distance`` or ``sdf_grid`` call cost,
/// or None before the first.
///
/// Returns
/// -------
/// dict or None
///     ``function``, ``backend`` ("gpu" or "cpu"), ``points`` (query
///     points, or the grid's cells), ``chunks``
///     (device submissions, see ``chunk_size``), ``wall_ms`` (the whole
///     call as the binding saw it: arrays in, kernels, CPU work, arrays
///     out), ``gpu_ms`` (the sum of the GPU's phases, by timestamp
///     queries; None on the CPU or a device without them) and ``phases``
///     (a dict of phase name to milliseconds, summed over the chunks; None
///     likewise). ``wall_ms - gpu_ms`` is the binding's, the copies' and
///     the CPU's share.
#[pyfunction]
pub fn last_timings(py: Python<'_>) -> PyResult<Option<Bound<'_, PyDict>>> {
    let Some(t) = LAST.lock().unwrap_or_else(|e| e.into_inner()).clone() else {
        return Ok(None);
    };
    let d = PyDict::new(py);
    d.set_item("function", t.function)?;
    d.set_item("backend", t.backend)?;
    d.set_item("points", t.points)?;
    d.set_item("chunks", t.chunks)?;
    d.set_item("wall_ms", t.wall_ms)?;
    match t.phases {
        Some(phases) => {
            d.set_item("gpu_ms", phases.iter().map(|(_, ms)| ms).sum::<f64>())?;
            let by_name = PyDict::new(py);
            for (name, ms) in phases {
                by_name.set_item(name, ms)?;
            }
            d.set_item("phases", by_name)?;
        }
        None => {
            d.set_item("gpu_ms", py.None())?;
            d.set_item("phases", py.None())?;
        }
    }
    Ok(Some(d))
}
