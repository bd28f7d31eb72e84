//! NumPy `.npz` archives: a zip of `.npy` files
//! (`numpy.load("field.npz")["values"]`), read and written by the `zip`
//! crate (built without its default features: stored and deflated entries
//! only, so it adds no feature to a crate the rest of the tool shares).
//!
//! We write entries stored, as `np.savez` does, switching an entry to zip64
//! when it reaches 4 GiB; we read stored and deflated entries
//! (`np.savez_compressed`), zip64 included, checking every entry's CRC-32.
//! The entries' unpacked sizes together are capped at the array input
//! limit, so a small deflated archive cannot unpack without bound.

use std::io::{Cursor, Read, Write};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::input::ARRAY_LIMIT;

/// A zip archive of `(name, bytes)` entries, stored without compression.
pub fn stored_zip(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let total: usize = entries
        .iter()
        .map(|(n, d)| 128 + 2 * n.len() + d.len())
        .sum();
    let mut zip = ZipWriter::new(Cursor::new(Vec::with_capacity(total)));
    for (name, data) in entries {
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Stored)
            .large_file(data.len() as u64 >= u64::from(u32::MAX));
        zip.start_file(name.as_str(), options)
            .map_err(|e| format!("{name}: {e}"))?;
        zip.write_all(data).map_err(|e| format!("{name}: {e}"))?;
    }
    let cursor = zip.finish().map_err(|e| e.to_string())?;
    Ok(cursor.into_inner())
}

/// Reads the entries of a zip archive (stored or deflated, zip64 or not),
/// checking each CRC.
pub fn read_npz_entries(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| format!("not a zip: {e}"))?;
    let mut left = ARRAY_LIMIT;
    let mut out = Vec::with_capacity(archive.len().min(1024));
    for i in 0..archive.len() {
        let entry = archive.by_index(i).map_err(|e| format!("entry {i}: {e}"))?;
        // A corrupted name may hold any character: escaped, the message
        // stays one line.
        let raw_name = entry.name().to_string();
        let name = raw_name.escape_debug().to_string();
        let size = entry.size();
        if size > left {
            return Err(format!(
                "{name}: unpacks to more than the {} GiB limit on arrays",
                ARRAY_LIMIT >> 30
            ));
        }
        left -= size;
        let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(bytes.len()));
        // Reading to the end checks the CRC; one byte past the declared
        // size is an entry that lies about it.
        entry
            .take(size + 1)
            .read_to_end(&mut data)
            .map_err(|e| format!("{name}: {e}"))?;
        if data.len() as u64 != size {
            return Err(format!("{name}: unpacks to more than its declared size"));
        }
        out.push((raw_name, data));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_zip_round_trips_and_detects_corruption() {
        let entries = vec![
            ("a.npy".to_string(), vec![1u8, 2, 3]),
            ("values.npy".to_string(), (0..200u8).collect()),
            ("empty.npy".to_string(), Vec::new()),
        ];
        let zip = stored_zip(&entries).unwrap();
        assert_eq!(read_npz_entries(&zip).unwrap(), entries);
        let mut bad = zip.clone();
        bad[30 + 5] ^= 0xff; // a byte of the first entry's data
        assert!(read_npz_entries(&bad).is_err());
    }
}
