//! Arrays in and out: anything with `__array__` (numpy arrays, CPU torch
//! tensors, lists) checked for shape, dtype and finite values, each
//! problem a `ValueError` that names the argument.
//!
//! Inputs are read where they lie, in any memory layout (views, slices,
//! Fortran order): float32 rows are read as they are, float64 rows rounded
//! to float32 (the precision of every field and query), a chunk at a time
//! so a large query never holds a second copy of its points. Outputs are
//! numpy arrays that own the library's vectors (no copy).

use glam::Vec3;
use numpy::ndarray::{ArrayView2, ArrayViewD, Axis};
use numpy::{
    Element, PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArray2,
    PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `obj` as a numpy array, refusing GPU tensors (wgpu cannot share
/// memory with CUDA, so they would be copied through the host anyway).
pub fn ndarray<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(array) = obj.cast::<PyUntypedArray>() {
        return Ok(array.clone());
    }
    let on_cuda = obj
        .getattr("device")
        .and_then(|d| d.getattr("type"))
        .and_then(|t| t.extract::<String>())
        .is_ok_and(|t| t == "cuda")
        || obj.hasattr("__cuda_array_interface__").unwrap_or(false);
    if on_cuda {
        return Err(PyValueError::new_err(format!(
            "{name}: the array is on a CUDA device; call .cpu() on it first (collidoscope reads arrays in host memory)"
        )));
    }
    let numpy = obj.py().import("numpy")?;
    let converted = numpy.call_method1("asarray", (obj,)).map_err(|e| {
        PyValueError::new_err(format!(
            "{name}: cannot be read as an array ({}): {e}",
            type_name(obj)
        ))
    })?;
    converted
        .cast_into::<PyUntypedArray>()
        .map_err(|_| PyValueError::new_err(format!("{name}: numpy.asarray did not give an array")))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn dtype_name(array: &Bound<'_, PyUntypedArray>) -> String {
    array.dtype().to_string()
}

fn shape_error(name: &str, what: &str, array: &Bound<'_, PyUntypedArray>) -> PyErr {
    PyValueError::new_err(format!(
        "{name}: expected {what}, got an array of shape {:?}",
        array.shape()
    ))
}

/// A readable (N, 3) float array: the borrow that keeps it alive.
pub enum Rows<'py> {
    F32(PyReadonlyArray2<'py, f32>),
    F64(PyReadonlyArray2<'py, f64>),
}

/// Borrowed (N, 3) float rows, readable without the GIL.
#[derive(Clone, Copy)]
pub enum RowsView<'a> {
    F32(ArrayView2<'a, f32>),
    F64(ArrayView2<'a, f64>),
}

/// `obj` as an (N, 3) array of float32 or float64.
pub fn rows3<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Rows<'py>> {
    let array = ndarray(obj, name)?;
    if array.ndim() != 2 || array.shape()[1] != 3 {
        return Err(shape_error(name, "shape (N, 3)", &array));
    }
    if let Ok(a) = array.cast::<numpy::PyArray2<f32>>() {
        return Ok(Rows::F32(a.try_readonly().map_err(borrowed(name))?));
    }
    if let Ok(a) = array.cast::<numpy::PyArray2<f64>>() {
        return Ok(Rows::F64(a.try_readonly().map_err(borrowed(name))?));
    }
    Err(PyValueError::new_err(format!(
        "{name}: dtype {} is not float32 or float64 (convert with .astype(numpy.float32))",
        dtype_name(&array)
    )))
}

fn borrowed(name: &str) -> impl Fn(numpy::BorrowError) -> PyErr + '_ {
    move |e| PyValueError::new_err(format!("{name}: {e}"))
}

impl<'py> Rows<'py> {
    pub fn view(&self) -> RowsView<'_> {
        match self {
            Rows::F32(a) => RowsView::F32(a.as_array()),
            Rows::F64(a) => RowsView::F64(a.as_array()),
        }
    }
}

impl RowsView<'_> {
    pub fn len(&self) -> usize {
        match self {
            RowsView::F32(a) => a.nrows(),
            RowsView::F64(a) => a.nrows(),
        }
    }

    /// Row `i` as float32.
    pub fn row(&self, i: usize) -> Vec3 {
        match self {
            RowsView::F32(a) => Vec3::new(a[[i, 0]], a[[i, 1]], a[[i, 2]]),
            RowsView::F64(a) => Vec3::new(a[[i, 0]] as f32, a[[i, 1]] as f32, a[[i, 2]] as f32),
        }
    }

    /// Rows `range` as float32 points.
    pub fn chunk(&self, range: std::ops::Range<usize>) -> Vec<Vec3> {
        range.map(|i| self.row(i)).collect()
    }

    /// Refuses rows that are not finite in float32 (NaN, inf, or beyond
    /// float32's range), naming the first.
    pub fn check_finite(&self, name: &str) -> Result<(), crate::Failure> {
        let bad = (0..self.len()).filter(|&i| !self.row(i).is_finite());
        let mut count = 0usize;
        let mut first = None;
        for i in bad {
            count += 1;
            first.get_or_insert(i);
        }
        match first {
            None => Ok(()),
            Some(i) => Err(crate::Failure::Value(format!(
                "{name}: {count} rows are not finite float32 numbers (NaN, inf or beyond ±3.4e38); the first is row {i}: {:?}",
                self.original_row(i)
            ))),
        }
    }

    fn original_row(&self, i: usize) -> [f64; 3] {
        match self {
            RowsView::F32(a) => std::array::from_fn(|c| a[[i, c]] as f64),
            RowsView::F64(a) => std::array::from_fn(|c| a[[i, c]]),
        }
    }
}

/// `obj` as (F, 3) triangle indices into `vertex_count` vertices: any
/// integer dtype (int32, int64 and uint32 are read in place).
pub fn faces(obj: &Bound<'_, PyAny>, name: &str, vertex_count: usize) -> PyResult<Vec<[u32; 3]>> {
    let array = ndarray(obj, name)?;
    if array.ndim() != 2 || array.shape()[1] != 3 {
        return Err(shape_error(name, "shape (F, 3) of vertex indices", &array));
    }
    let kind = array.dtype().kind();
    if kind != b'i' && kind != b'u' {
        return Err(PyValueError::new_err(format!(
            "{name}: dtype {} is not an integer type (vertex indices: int32, int64 or uint32)",
            dtype_name(&array)
        )));
    }
    let indices: Vec<[i64; 3]> = if let Ok(a) = array.cast::<numpy::PyArray2<i32>>() {
        collect_rows(a.try_readonly().map_err(borrowed(name))?)
    } else if let Ok(a) = array.cast::<numpy::PyArray2<i64>>() {
        collect_rows(a.try_readonly().map_err(borrowed(name))?)
    } else if let Ok(a) = array.cast::<numpy::PyArray2<u32>>() {
        collect_rows(a.try_readonly().map_err(borrowed(name))?)
    } else {
        let wide = array.call_method1("astype", ("int64",))?;
        let wide = wide.cast::<numpy::PyArray2<i64>>()?;
        collect_rows(wide.try_readonly().map_err(borrowed(name))?)
    };
    let bad = indices
        .iter()
        .enumerate()
        .find(|(_, f)| f.iter().any(|&v| v < 0 || v as u64 >= vertex_count as u64));
    if let Some((face, f)) = bad {
        return Err(PyValueError::new_err(format!(
            "{name}: face {face} is {f:?}, outside the {vertex_count} vertices (indices 0..{vertex_count}, counted from 0)"
        )));
    }
    Ok(indices.into_iter().map(|f| f.map(|v| v as u32)).collect())
}

fn collect_rows<T: Element + Copy + Into<i64>>(a: PyReadonlyArray2<'_, T>) -> Vec<[i64; 3]> {
    a.as_array()
        .axis_iter(Axis(0))
        .map(|r| [r[0].into(), r[1].into(), r[2].into()])
        .collect()
}

/// `obj` as an array of float values of any shape (float32 or float64).
pub enum Values<'py> {
    F32(PyReadonlyArrayDyn<'py, f32>),
    F64(PyReadonlyArrayDyn<'py, f64>),
}

pub fn values<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Values<'py>> {
    let array = ndarray(obj, name)?;
    if let Ok(a) = array.cast::<PyArrayDyn<f32>>() {
        return Ok(Values::F32(a.try_readonly().map_err(borrowed(name))?));
    }
    if let Ok(a) = array.cast::<PyArrayDyn<f64>>() {
        return Ok(Values::F64(a.try_readonly().map_err(borrowed(name))?));
    }
    Err(PyValueError::new_err(format!(
        "{name}: dtype {} is not float32 or float64",
        dtype_name(&array)
    )))
}

impl Values<'_> {
    pub fn shape(&self) -> Vec<usize> {
        match self {
            Values::F32(a) => a.shape().to_vec(),
            Values::F64(a) => a.shape().to_vec(),
        }
    }

    /// The values as float32 in the array's logical (C) order, its axes
    /// reversed first if `reversed` (an `xyz` grid read as `zyx`).
    pub fn to_f32(&self, reversed: bool) -> Vec<f32> {
        fn read<T: Copy>(
            view: ArrayViewD<'_, T>,
            reversed: bool,
            f: impl Fn(T) -> f32,
        ) -> Vec<f32> {
            let view = if reversed { view.reversed_axes() } else { view };
            view.iter().map(|&v| f(v)).collect()
        }
        match self {
            Values::F32(a) => read(a.as_array(), reversed, |v| v),
            Values::F64(a) => read(a.as_array(), reversed, |v| v as f32),
        }
    }
}

/// A float32 or int64 vector as a 1-D numpy array (no copy).
pub fn array1<'py, T: Element>(py: Python<'py>, v: Vec<T>) -> Bound<'py, PyArray1<T>> {
    PyArray1::from_vec(py, v)
}

/// Rows of 3 as an (N, 3) numpy array.
pub fn array_n3<'py, T: Element + Copy>(
    py: Python<'py>,
    rows: Vec<[T; 3]>,
) -> PyResult<Bound<'py, PyAny>> {
    let n = rows.len();
    let flat: Vec<T> = rows.into_iter().flatten().collect();
    Ok(PyArray1::from_vec(py, flat).reshape([n, 3])?.into_any())
}

/// A flat vector as a numpy array of `shape` (no copy).
pub fn array_shaped<'py, T: Element>(
    py: Python<'py>,
    flat: Vec<T>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_vec(py, flat)
        .reshape(shape.to_vec())?
        .into_any())
}
