//! NumPy `.npy` files, read and written by the `npyz` crate: `numpy.load`
//! reads what we write (float32 or int32, C order, the data aligned to 64
//! bytes), and we read what numpy writes (format versions 1 to 3, either
//! byte order).
//!
//! ```text
//! "\x93NUMPY" major minor | header length (u16 LE; u32 from version 2) | "{'descr': '<f4', 'fortran_order': False, 'shape': (nz, ny, nx), }" spaces "\n" | data
//! ```
//!
//! Before `npyz` sees a file, [`checked_header`] checks what it trusts: that
//! the header lies inside the bytes (it would allocate the declared length
//! first), that its brackets nest a few levels at most (its parser recurses
//! per level), and that the shape's element count, and its size in bytes,
//! fit in memory (it multiplies the shape without a check). The data must then be
//! exactly the shape's size: a truncated or padded file is refused.

use std::path::Path;

use npyz::{AutoSerialize, Deserialize, NpyFile, NpyHeader, Order, WriteOptions, WriterBuilder};

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Deepest bracket nesting read in a header (structured dtypes nest a few
/// levels; the arrays read here need 2).
const MAX_NESTING: i32 = 8;

/// A float32 array read back from a `.npy` file.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

/// Encodes `data` with `shape` (C order) as `.npy` bytes.
pub fn encode_npy_f32(shape: &[usize], data: &[f32]) -> Vec<u8> {
    encode_npy(shape, data)
}

/// Encodes little-endian int32 `data` with `shape` (C order) as `.npy` bytes.
pub fn encode_npy_i32(shape: &[usize], data: &[i32]) -> Vec<u8> {
    encode_npy(shape, data)
}

/// Encodes little-endian float64 `data` with `shape` (C order) as `.npy` bytes.
pub fn encode_npy_f64(shape: &[usize], data: &[f64]) -> Vec<u8> {
    encode_npy(shape, data)
}

/// `data` with `shape`, which must hold as many values (a caller's bug
/// otherwise: every caller builds both from one grid).
fn encode_npy<T: AutoSerialize + Copy>(shape: &[usize], data: &[T]) -> Vec<u8> {
    assert_eq!(
        shape.iter().product::<usize>(),
        data.len(),
        "an array's shape must match its data"
    );
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut out = Vec::with_capacity(128 + std::mem::size_of_val(data));
    // Writing to memory fails only on a shape/data mismatch, ruled out above.
    let written = WriteOptions::<T>::new()
        .default_dtype()
        .shape(&shape)
        .writer(&mut out)
        .begin_nd()
        .and_then(|mut w| {
            w.extend(data.iter().copied())?;
            w.finish()
        });
    written.expect("writing an array to memory");
    out
}

/// Reads a float32, C-order `.npy` file.
pub fn read_npy_f32(path: &Path) -> Result<NpyArray, String> {
    let bytes = super::read_input(path, super::InputKind::Array).map_err(|e| e.to_string())?;
    decode_npy_f32(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Decodes float32, C-order `.npy` bytes.
pub fn decode_npy_f32(bytes: &[u8]) -> Result<NpyArray, String> {
    let (shape, data) = decode_npy(bytes, "float32")?;
    Ok(NpyArray { shape, data })
}

/// Decodes float32 or float64 (as float32), C-order `.npy` bytes: numpy's
/// default dtype is float64, other tools write float32.
pub fn decode_npy_float(bytes: &[u8]) -> Result<NpyArray, String> {
    let (shape, data) = decode_npy_f64(bytes)?;
    Ok(NpyArray {
        shape,
        data: data.into_iter().map(|v| v as f32).collect(),
    })
}

/// Decodes float32 or float64, C-order `.npy` bytes as float64 (float32
/// values exactly): (shape, data).
pub fn decode_npy_f64(bytes: &[u8]) -> Result<(Vec<usize>, Vec<f64>), String> {
    if let Ok(array) = decode_npy::<f64>(bytes, "float64") {
        return Ok(array);
    }
    let array = decode_npy_f32(bytes).map_err(|e| e.replace("float32", "float32 or float64"))?;
    Ok((array.shape, array.data.into_iter().map(f64::from).collect()))
}

/// Decodes int32, C-order `.npy` bytes: (shape, data).
pub fn decode_npy_i32(bytes: &[u8]) -> Result<(Vec<usize>, Vec<i32>), String> {
    decode_npy(bytes, "int32")
}

fn decode_npy<T: Deserialize>(bytes: &[u8], what: &str) -> Result<(Vec<usize>, Vec<T>), String> {
    let (header_end, count) = checked_header(bytes)?;
    let mut reader = bytes;
    // The parser's messages draw the header over several lines: the first
    // says what and where.
    let header = NpyHeader::from_reader(&mut reader).map_err(|e| {
        let text = e.to_string();
        format!(
            "bad header: {}",
            text.lines().next().unwrap_or_default().trim()
        )
    })?;
    let dtype = header.dtype();
    let wrong_type = || {
        format!(
            "only {what} in C order is supported, found {} in {} order",
            dtype.descr(),
            if header.order() == Order::C {
                "C"
            } else {
                "Fortran"
            }
        )
    };
    if header.order() != Order::C || T::reader(&dtype).is_err() {
        return Err(wrong_type());
    }
    let width = dtype.num_bytes().ok_or_else(wrong_type)?;
    let data = &bytes[header_end..];
    if Some(data.len()) != count.checked_mul(width) {
        return Err(format!(
            "expected {count} values, found {} bytes",
            data.len()
        ));
    }
    let shape = header.shape().iter().map(|&d| d as usize).collect();
    let values = NpyFile::with_header(header, data)
        .into_vec::<T>()
        .map_err(|e| format!("bad data: {e}"))?;
    Ok((shape, values))
}

/// Checks a `.npy` file's header before `npyz` reads it: the magic and
/// version, that the header lies within `bytes`, and that the shape's
/// element count (at most 8 bytes each) fits in memory. The end of the
/// header and the count.
fn checked_header(bytes: &[u8]) -> Result<(usize, usize), String> {
    let magic = bytes.get(..8).filter(|b| b.starts_with(MAGIC));
    let (text_at, length) = match magic.map(|b| b[6]) {
        Some(1) => (
            10,
            bytes
                .get(8..10)
                .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize),
        ),
        Some(2 | 3) => (
            12,
            bytes
                .get(8..12)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize),
        ),
        _ => return Err("not a .npy file (format version 1, 2 or 3)".into()),
    };
    let end = length
        .and_then(|n| n.checked_add(text_at))
        .filter(|&end| end <= bytes.len())
        .ok_or("truncated header")?;
    let text = String::from_utf8_lossy(&bytes[text_at..end]);
    // The parser recurses per bracket: a plain array's header nests two
    // deep (a dict holding the shape's tuple).
    let deepest = text
        .chars()
        .scan(0i32, |depth, c| {
            *depth += match c {
                '(' | '[' | '{' => 1,
                ')' | ']' | '}' => -1,
                _ => 0,
            };
            Some(*depth)
        })
        .max()
        .unwrap_or(0);
    if deepest > MAX_NESTING {
        return Err(format!(
            "header nests {deepest} brackets deep; a plain array needs 2"
        ));
    }
    let shape_text = text
        .split_once("shape")
        .and_then(|(_, rest)| rest.split_once('('))
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(inside, _)| inside)
        .ok_or("header has no shape")?;
    let count = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .try_fold(1usize, |n, s| {
            let d = s
                .trim_end_matches('L')
                .parse::<usize>()
                .map_err(|_| format!("bad shape entry {s:?}"))?;
            n.checked_mul(d)
                .filter(|n| n.checked_mul(8).is_some())
                .ok_or_else(|| {
                    format!("shape ({shape_text}) has more values than memory can index")
                })
        })?;
    Ok((end, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float64_arrays_are_read_as_float32() {
        let data = [1.5f64, -2.25, 1e-3];
        let bytes = encode_npy(&[3], &data);
        let back = decode_npy_float(&bytes).unwrap();
        assert_eq!(back.shape, vec![3]);
        assert_eq!(back.data, vec![1.5, -2.25, 1e-3f64 as f32]);
        assert!(decode_npy_float(&bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn round_trip_keeps_shape_and_values_and_aligns_data() {
        let data: Vec<f32> = (0..24).map(|i| i as f32 * 0.5 - 3.0).collect();
        let bytes = encode_npy_f32(&[2, 3, 4], &data);
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        let back = decode_npy_f32(&bytes).unwrap();
        assert_eq!(back.shape, vec![2, 3, 4]);
        assert_eq!(back.data, data);
        assert!(decode_npy_f32(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode_npy_f32(b"garbage bytes here").is_err());
        let ints = encode_npy_i32(&[3], &[-1, 0, 7]);
        assert_eq!(decode_npy_i32(&ints).unwrap(), (vec![3], vec![-1, 0, 7]));
        assert!(decode_npy_f32(&ints).is_err(), "dtype is checked");
        assert!(decode_npy_float(&ints).is_err());
        assert_eq!(decode_npy_float(&bytes).unwrap(), back);
    }
}
