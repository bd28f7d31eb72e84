//! Files the tool writes and reads: NumPy arrays and crash-safe writes.

mod npy;
mod npz;

pub use npy::{
    NpyArray, decode_npy_f32, decode_npy_i32, encode_npy_f32, encode_npy_i32, read_npy_f32,
    write_npy_f32,
};
pub use npz::{crc32, read_npz_entries, stored_zip};

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to a temporary file beside `path`, then renames it into
/// place: readers see the old file or the new one, never half of one, and a
/// failed write leaves nothing behind.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
