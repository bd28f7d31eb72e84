//! The native part of the `collidoscope` Python package: numpy arrays in,
//! the library's own calls (the ones the CLI makes), numpy arrays and
//! dicts out.
//!
//! Nothing here computes geometry: [`arrays`] checks and converts the
//! inputs, [`poses`] reads poses, [`mesh`] keeps a mesh and its prepared
//! forms (the trees, built once), [`device`] the one GPU device of the
//! process, and [`queries`], [`grid`], [`check`], [`tritri`],
//! [`interfere`] and [`simulate`] call `collidoscope::stages` and
//! `collidoscope::sim`, [`dataset`] `collidoscope::dataset`. Every call releases
//! the GIL while the library works, and a panic in the library comes back
//! as a `RuntimeError`, never through the interpreter.

mod arrays;
mod check;
mod dataset;
mod device;
mod grid;
mod interfere;
mod mesh;
mod poses;
mod queries;
mod simulate;
mod timings;
mod tritri;

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// Why a call failed, kept without the GIL and raised once it is held.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A bad argument: `ValueError`.
    Value(String),
    /// The machine cannot do it (no GPU, a GPU error): `RuntimeError`.
    Runtime(String),
    /// A file cannot be read or written: `OSError`.
    Os(String),
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Value(m) => PyValueError::new_err(m),
            Failure::Runtime(m) => PyRuntimeError::new_err(m),
            Failure::Os(m) => PyOSError::new_err(m),
        }
    }
}

impl From<collidoscope::stages::sdf::SdfError> for Failure {
    fn from(e: collidoscope::stages::sdf::SdfError) -> Failure {
        use collidoscope::stages::sdf::SdfError;
        match e {
            SdfError::Resolution(_) => Failure::Value(format!("res: {e}")),
            SdfError::Padding(_) => Failure::Value(format!("pad: {e}")),
            SdfError::Band(_) => Failure::Value(format!("band: {e}")),
            SdfError::Mesh(_) | SdfError::Collide { .. } => Failure::Value(e.to_string()),
            _ => Failure::Runtime(e.to_string()),
        }
    }
}

/// Runs `work` with the GIL released, turning a panic into a
/// `RuntimeError` (the library's invariants broke: a bug to report).
pub(crate) fn detached<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> Result<T, Failure> + Send,
) -> PyResult<T> {
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(work)));
    match outcome {
        Ok(result) => result.map_err(PyErr::from),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(PyRuntimeError::new_err(format!(
                "collidoscope failed inside the library ({what}); this is a bug, please report it with the input that caused it"
            )))
        }
    }
}

/// Issues a Python warning (`category`: a class of the `builtins` module)
/// at the caller of the public function (the innermost Python frame, as
/// this code has none of its own).
pub(crate) fn warn(py: Python<'_>, category: &str, message: &str) -> PyResult<()> {
    let category = py.import("builtins")?.getattr(category)?;
    py.import("warnings")?
        .call_method1("warn", (message, category, 1))?;
    Ok(())
}

/// A JSON value as Python objects (dicts, lists, numbers, strings, None).
pub(crate) fn json_to_python<'py>(
    py: Python<'py>,
    value: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?
        .call_method1("loads", (value.to_string(),))
}

#[pymodule]
fn _collidoscope(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<mesh::Mesh>()?;
    m.add_class::<grid::Grid>()?;
    m.add_function(wrap_pyfunction!(mesh::load, m)?)?;
    m.add_function(wrap_pyfunction!(queries::signed_distance, m)?)?;
    m.add_function(wrap_pyfunction!(queries::unsigned_distance, m)?)?;
    m.add_function(wrap_pyfunction!(queries::winding_number, m)?)?;
    m.add_function(wrap_pyfunction!(queries::contains, m)?)?;
    m.add_function(wrap_pyfunction!(grid::sdf_grid, m)?)?;
    m.add_function(wrap_pyfunction!(check::check, m)?)?;
    m.add_function(wrap_pyfunction!(tritri::tritri, m)?)?;
    m.add_function(wrap_pyfunction!(interfere::interfere, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(device::gpu_adapter, m)?)?;
    m.add_function(wrap_pyfunction!(timings::last_timings, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::dataset, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::dataset_meshes, m)?)?;
    Ok(())
}
