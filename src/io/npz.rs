//! NumPy `.npz` archives: a zip of `.npy` files, stored uncompressed
//! (`numpy.load("field.npz")["values"]`).
//!
//! ```text
//! per entry:  local header (30 B + name) | data
//! then:       central directory (46 B + name per entry) | end record (22 B)
//! ```
//! Sizes and offsets are 32-bit (no zip64): an archive stays below 4 GiB.

/// CRC-32 (IEEE, reflected, as zip uses it).
pub fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    !bytes.iter().fold(!0u32, |c, &b| {
        TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8)
    })
}

/// A zip archive of `(name, bytes)` entries, stored without compression.
/// Errors when the archive would need zip64.
pub fn stored_zip(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let total: usize = entries
        .iter()
        .map(|(n, d)| 76 + 2 * n.len() + d.len())
        .sum();
    if total + 22 > u32::MAX as usize || entries.len() > u16::MAX as usize {
        return Err(format!(
            "{total} bytes in {} entries needs zip64",
            entries.len()
        ));
    }
    let mut out = Vec::with_capacity(total + 22);
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let size = data.len() as u32;
        let name_len = name.len() as u16;
        // Local file header.
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes()); // version needed
        out.extend_from_slice(&0u16.to_le_bytes()); // flags
        out.extend_from_slice(&0u16.to_le_bytes()); // method: stored
        out.extend_from_slice(&0u16.to_le_bytes()); // time
        out.extend_from_slice(&0x21u16.to_le_bytes()); // date: 1980-01-01
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes()); // extra length
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        // Central directory entry.
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // version made by
        central.extend_from_slice(&20u16.to_le_bytes()); // version needed
        central.extend_from_slice(&0u16.to_le_bytes());
        central.extend_from_slice(&0u16.to_le_bytes());
        central.extend_from_slice(&0u16.to_le_bytes());
        central.extend_from_slice(&0x21u16.to_le_bytes());
        central.extend_from_slice(&crc.to_le_bytes());
        central.extend_from_slice(&size.to_le_bytes());
        central.extend_from_slice(&size.to_le_bytes());
        central.extend_from_slice(&name_len.to_le_bytes());
        central.extend_from_slice(&[0; 8]); // extra, comment, disk, internal attrs
        central.extend_from_slice(&0u32.to_le_bytes()); // external attrs
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let central_offset = out.len() as u32;
    let count = entries.len() as u16;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // disk numbers
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&central_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    Ok(out)
}

/// Reads the entries of a stored zip written by [`stored_zip`] (through the
/// central directory), checking each CRC.
pub fn read_npz_entries(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let u16_at = |i: usize| -> Result<u16, String> {
        bytes
            .get(i..i + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .ok_or_else(|| "truncated archive".to_string())
    };
    let u32_at = |i: usize| -> Result<u32, String> {
        bytes
            .get(i..i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| "truncated archive".to_string())
    };
    let end = bytes.len().checked_sub(22).ok_or("too short for a zip")?;
    if u32_at(end)? != 0x0605_4b50 {
        return Err("no end-of-central-directory record (or a zip comment)".into());
    }
    let count = u16_at(end + 10)? as usize;
    let mut at = u32_at(end + 16)? as usize;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        if u32_at(at)? != 0x0201_4b50 {
            return Err(format!("bad central directory entry at {at}"));
        }
        if u16_at(at + 10)? != 0 {
            return Err("compressed entries are not supported".into());
        }
        let crc = u32_at(at + 16)?;
        let size = u32_at(at + 20)? as usize;
        let name_len = u16_at(at + 28)? as usize;
        let local = u32_at(at + 42)? as usize;
        let name = bytes
            .get(at + 46..at + 46 + name_len)
            .ok_or("truncated name")?;
        let name = String::from_utf8_lossy(name).into_owned();
        let data_at = local + 30 + u16_at(local + 26)? as usize + u16_at(local + 28)? as usize;
        let data = bytes
            .get(data_at..data_at + size)
            .ok_or_else(|| format!("{}: truncated data", name.escape_debug()))?;
        if crc32(data) != crc {
            // A corrupted name may hold any character: escaped, the
            // message stays one line.
            return Err(format!("{}: CRC mismatch", name.escape_debug()));
        }
        out.push((name, data.to_vec()));
        at += 46 + name_len;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
    }

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
        bad[31 + 5] ^= 0xff; // a byte of the first entry's data
        assert!(read_npz_entries(&bad).unwrap_err().contains("CRC"));
    }
}
