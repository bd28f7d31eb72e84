//! The process's one GPU device, made on first use and kept: its
//! pipelines are compiled once, and every later call reuses them.
//!
//! `backend=None` takes the GPU when there is one and falls back to the
//! CPU with a warning when there is none; `backend="gpu"` insists (a
//! `RuntimeError` that says what to install), `backend="cpu"` never
//! touches the GPU.

use std::sync::{Mutex, OnceLock};

use collidoscope::gpu::GpuContext;
use collidoscope::stages::interfere::InterferenceGpu;
use collidoscope::stages::sdf::SdfGpu;
use collidoscope::stages::tritri::TritriGpu;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::Failure;

/// The device and its stages; `lock` keeps one GPU call at a time (the
/// stages keep run buffers between calls). The distance stage is made
/// with the device, the others on their first use.
pub struct Gpu {
    pub ctx: GpuContext,
    pub stage: SdfGpu,
    pub adapter: String,
    tritri: OnceLock<TritriGpu>,
    interfere: OnceLock<Result<InterferenceGpu, String>>,
    lock: Mutex<()>,
}

impl Gpu {
    /// Runs `f` as the only GPU call in flight.
    pub fn exclusive<T>(&self, f: impl FnOnce(&SdfGpu) -> T) -> T {
        self.locked(|| f(&self.stage))
    }

    /// Runs `f` as the only GPU call in flight (any stage).
    pub fn locked<T>(&self, f: impl FnOnce() -> T) -> T {
        let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        f()
    }

    /// The triangle–triangle stage on this device.
    pub fn tritri(&self) -> &TritriGpu {
        self.tritri.get_or_init(|| TritriGpu::new(&self.ctx))
    }

    /// The interference stage on this device (it needs features a device
    /// may lack: then a `RuntimeError` that says which).
    pub fn interfere(&self) -> Result<&InterferenceGpu, Failure> {
        self.interfere
            .get_or_init(|| InterferenceGpu::new(&self.ctx).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| Failure::Runtime(format!("backend='gpu': {e}; pass backend='cpu'")))
    }
}

static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();

/// The device, created on the first call (with the GIL released).
fn gpu(py: Python<'_>) -> PyResult<&'static Result<Gpu, String>> {
    crate::detached(py, || {
        Ok(GPU.get_or_init(|| {
            let ctx = GpuContext::headless().map_err(|e| e.to_string())?;
            Ok(Gpu {
                adapter: ctx.describe(),
                stage: SdfGpu::new(&ctx),
                tritri: OnceLock::new(),
                interfere: OnceLock::new(),
                lock: Mutex::new(()),
                ctx,
            })
        }))
    })
}

/// Where a call runs.
#[derive(Clone, Copy)]
pub enum Choice {
    Cpu,
    Gpu(&'static Gpu),
}

impl Choice {
    pub fn name(self) -> &'static str {
        match self {
            Choice::Cpu => "cpu",
            Choice::Gpu(_) => "gpu",
        }
    }
}

/// The backend a call asked for (`None`, `"gpu"` or `"cpu"`).
pub fn choose(py: Python<'_>, backend: Option<&str>) -> PyResult<Choice> {
    match backend {
        Some("cpu") => Ok(Choice::Cpu),
        Some("gpu") => match gpu(py)? {
            Ok(g) => Ok(Choice::Gpu(g)),
            Err(e) => Err(Failure::Runtime(format!(
                "backend='gpu': {e}; or pass backend='cpu' (or None to fall back to the CPU with a warning)"
            ))
            .into()),
        },
        None => match gpu(py)? {
            Ok(g) => Ok(Choice::Gpu(g)),
            Err(e) => {
                crate::warn(
                    py,
                    "RuntimeWarning",
                    &format!("{e}; computing on the CPU (pass backend='cpu' to silence this)"),
                )?;
                Ok(Choice::Cpu)
            }
        },
        Some(other) => Err(PyValueError::new_err(format!(
            "backend: {other:?} is not 'gpu' or 'cpu' (or None: the GPU when there is one, else the CPU)"
        ))),
    }
}

/// gpu_adapter() -> str | None
///
/// The GPU adapter collidoscope computes on (name, backend and driver), or
/// None when this machine has none. The first call creates the process's
/// GPU device, which every later call reuses.
#[pyfunction]
pub fn gpu_adapter(py: Python<'_>) -> PyResult<Option<String>> {
    Ok(gpu(py)?.as_ref().ok().map(|g| g.adapter.clone()))
}
