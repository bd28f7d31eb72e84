//! NumPy `.npy` files (format version 1.0) of little-endian float32 in C
//! order: `numpy.load("field.npy")` reads what we write.
//!
//! ```text
//! "\x93NUMPY" 1 0 | header length u16 LE | "{'descr': '<f4', 'fortran_order': False, 'shape': (nz, ny, nx), }" spaces "\n" | data
//! ```
//! The header is padded so the data starts at a multiple of 64 bytes.

use std::path::Path;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// A float32 array read back from a `.npy` file.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

/// Encodes `data` with `shape` (C order) as `.npy` bytes.
pub fn encode_npy_f32(shape: &[usize], data: &[f32]) -> Vec<u8> {
    encode_npy("<f4", shape, &bytes_le(data, |v| v.to_le_bytes()))
}

/// Encodes little-endian int32 `data` with `shape` (C order) as `.npy` bytes.
pub fn encode_npy_i32(shape: &[usize], data: &[i32]) -> Vec<u8> {
    encode_npy("<i4", shape, &bytes_le(data, |v| v.to_le_bytes()))
}

/// Encodes little-endian float64 `data` with `shape` (C order) as `.npy` bytes.
pub fn encode_npy_f64(shape: &[usize], data: &[f64]) -> Vec<u8> {
    encode_npy("<f8", shape, &bytes_le(data, |v| v.to_le_bytes()))
}

fn bytes_le<T: Copy, const N: usize>(data: &[T], le: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    data.iter().flat_map(|&v| le(v)).collect()
}

fn encode_npy(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    let unpadded = MAGIC.len() + 2 + 2 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

/// Reads a little-endian float32, C-order `.npy` file.
pub fn read_npy_f32(path: &Path) -> Result<NpyArray, String> {
    let bytes = super::read_input(path, super::InputKind::Array).map_err(|e| e.to_string())?;
    decode_npy_f32(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Decodes little-endian float32, C-order `.npy` bytes.
pub fn decode_npy_f32(bytes: &[u8]) -> Result<NpyArray, String> {
    let (shape, data) = decode_npy(bytes, "<f4", "float32")?;
    let data = data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok(NpyArray { shape, data })
}

/// Decodes little-endian float32 or float64 (as float32), C-order `.npy`
/// bytes: numpy's default dtype is float64, other tools write float32.
pub fn decode_npy_float(bytes: &[u8]) -> Result<NpyArray, String> {
    let (shape, data) = decode_npy_f64(bytes)?;
    Ok(NpyArray {
        shape,
        data: data.into_iter().map(|v| v as f32).collect(),
    })
}

/// Decodes little-endian float32 or float64, C-order `.npy` bytes as
/// float64 (float32 values exactly): (shape, data).
pub fn decode_npy_f64(bytes: &[u8]) -> Result<(Vec<usize>, Vec<f64>), String> {
    if let Ok((shape, data)) = decode_npy(bytes, "<f8", "float64") {
        let data = data
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        return Ok((shape, data));
    }
    let array = decode_npy_f32(bytes).map_err(|e| e.replace("float32", "float32 or float64"))?;
    Ok((array.shape, array.data.into_iter().map(f64::from).collect()))
}

/// Decodes little-endian int32, C-order `.npy` bytes: (shape, data).
pub fn decode_npy_i32(bytes: &[u8]) -> Result<(Vec<usize>, Vec<i32>), String> {
    let (shape, data) = decode_npy(bytes, "<i4", "int32")?;
    let data = data
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok((shape, data))
}

fn decode_npy<'a>(
    bytes: &'a [u8],
    descr: &str,
    what: &str,
) -> Result<(Vec<usize>, &'a [u8]), String> {
    let width = if descr.ends_with('8') { 8 } else { 4 };
    if bytes.len() < 10 || &bytes[..6] != MAGIC || bytes[6] != 1 {
        return Err("not a version-1 .npy file".into());
    }
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = bytes.get(10..10 + header_len).ok_or("truncated header")?;
    let header = std::str::from_utf8(header).map_err(|_| "header is not text")?;
    if !header.contains(&format!("'descr': '{descr}'"))
        || !header.contains("'fortran_order': False")
    {
        return Err(format!(
            "only little-endian {what} in C order is supported, found {:?}",
            header.trim_end()
        ));
    }
    let shape_text = header
        .split("'shape': (")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .ok_or("header has no shape")?;
    let shape = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("bad shape entry {s:?}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let data = &bytes[10 + header_len..];
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|n| n.checked_mul(width).is_some())
        .ok_or_else(|| format!("shape {shape:?} has more values than memory can index"))?;
    if data.len() != count * width {
        return Err(format!(
            "expected {count} values, found {} bytes",
            data.len()
        ));
    }
    Ok((shape, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float64_arrays_are_read_as_float32() {
        let data = [1.5f64, -2.25, 1e-3];
        let bytes = encode_npy(
            "<f8",
            &[3],
            &data
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<_>>(),
        );
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
