//! Safe outputs: every file the tool writes goes through [`write_set`].
//!
//! An *output set* is the files one command writes together: a field and its
//! JSON sidecar, `interfere`'s images, count arrays and JSON, a benchmark's
//! JSON and CSV, or a single file. Writing a set:
//!
//! 1. **Check the targets.** Each target must be absent or a regular file.
//!    Directories, devices, FIFOs and sockets are refused (`--out /dev/full`
//!    is an error, never a regular file in the device's place), and so are
//!    **symbolic links**: replacing a link by a file would cut the link, and
//!    writing through it would change a file under another name, so the
//!    tool asks for the link's target instead. Two files of a set with one
//!    path are refused too (`sdf MESH --out x.json` would be its own
//!    sidecar).
//! 2. **Remove stale temporaries** `.NAME.<pid>.tmp` beside each target
//!    whose process no longer runs (no `/proc/<pid>`): what a `kill -9`
//!    during an earlier write left behind.
//! 3. **Write every temporary** `.NAME.<pid>.tmp` in the target's directory
//!    and flush it to disk (`fsync`).
//! 4. **Rename** each temporary over its target, in the set's order (the
//!    sidecar, which names the others, last), then flush the directories.
//!
//! Any error before step 4 removes the temporaries and leaves every old file
//! as it was, so a full disk never leaves a new field beside an old sidecar.
//! Renames within one directory do not fail for lack of space, but a
//! `kill -9` between two of them can still leave a mixed set; the sidecar
//! therefore records the data file's xxh3-64 under [`CHECKSUM_KEY`], and
//! [`read_verified`] (or any reader: `xxhash.xxh3_64_hexdigest(data)`)
//! detects a mismatched pair. Nothing is written except the targets and
//! their temporaries.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

/// The sidecar key holding the data file's xxh3-64 as 16 lowercase hex digits.
pub const CHECKSUM_KEY: &str = "data_xxh3_64";

/// The checksum recorded under [`CHECKSUM_KEY`]: xxh3-64 of `bytes`, in hex.
pub fn checksum_hex(bytes: &[u8]) -> String {
    format!("{:016x}", xxh3_64(bytes))
}

/// Reads a data file and its JSON sidecar and checks that they belong
/// together: the sidecar's [`CHECKSUM_KEY`] must match the data's checksum.
pub fn read_verified(data: &Path, sidecar: &Path) -> Result<(Vec<u8>, serde_json::Value), String> {
    let bytes = std::fs::read(data).map_err(|e| format!("cannot read {}: {e}", data.display()))?;
    let text =
        std::fs::read(sidecar).map_err(|e| format!("cannot read {}: {e}", sidecar.display()))?;
    let meta: serde_json::Value = serde_json::from_slice(&text)
        .map_err(|e| format!("{}: not JSON: {e}", sidecar.display()))?;
    let recorded = meta[CHECKSUM_KEY].as_str().ok_or_else(|| {
        format!(
            "{} has no {CHECKSUM_KEY}, so it cannot be matched to {}",
            sidecar.display(),
            data.display()
        )
    })?;
    let actual = checksum_hex(&bytes);
    if recorded != actual {
        return Err(format!(
            "{} does not belong to {} (checksum {actual}, the sidecar records {recorded}): one of them is from another run",
            data.display(),
            sidecar.display()
        ));
    }
    Ok((bytes, meta))
}

/// Checks that `paths` can be written as one set without harm: each is
/// absent or a regular file (not a link, directory or special file) and no
/// two are the same. Commands call it before their work, so a bad `--out`
/// fails at once; [`write_set`] checks again.
pub fn check_targets(paths: &[&Path]) -> io::Result<()> {
    for (i, path) in paths.iter().enumerate() {
        if paths[..i].contains(path) {
            return Err(refused(
                path,
                "would hold two files of one output (a file and its sidecar share the name); choose another extension",
            ));
        }
        split(path)?;
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
            Ok(m) if m.file_type().is_symlink() => {
                return Err(refused(
                    path,
                    "is a symbolic link; outputs are not written through links (give the link's target)",
                ));
            }
            Ok(m) if m.is_dir() => return Err(refused(path, "is a directory")),
            Ok(m) if !m.is_file() => {
                return Err(refused(
                    path,
                    "is a device, FIFO or socket, not a regular file; refusing to replace it",
                ));
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// Writes one file safely: a set of one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_set(&[(path, bytes)])
}

/// Writes `files` as one set (see the module docs): all temporaries first,
/// flushed, then the renames in order. On error no target has changed,
/// unless the error comes from a rename itself.
pub fn write_set(files: &[(&Path, &[u8])]) -> io::Result<()> {
    write_set_with(files, &mut |f, bytes| f.write_all(bytes))
}

/// [`write_set`] with the byte writer given, so tests can fail it midway.
fn write_set_with(
    files: &[(&Path, &[u8])],
    write: &mut dyn FnMut(&mut File, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let paths: Vec<&Path> = files.iter().map(|(p, _)| *p).collect();
    check_targets(&paths)?;
    for path in &paths {
        let (dir, name) = split(path)?;
        remove_stale_temporaries(&dir, &name);
    }
    let mut temps: Vec<PathBuf> = Vec::with_capacity(files.len());
    let written = files.iter().try_for_each(|(path, bytes)| {
        let tmp = temporary(path)?;
        // Ours from an earlier, failed write of this same process, if any.
        let _ = std::fs::remove_file(&tmp);
        let mut f = File::options().write(true).create_new(true).open(&tmp)?;
        temps.push(tmp);
        write(&mut f, bytes)?;
        f.sync_all()
    });
    let renamed = written.and_then(|()| {
        for (tmp, path) in temps.iter().zip(&paths) {
            std::fs::rename(tmp, path)?;
        }
        Ok(())
    });
    // After a successful rename the temporary no longer exists.
    for tmp in &temps {
        let _ = std::fs::remove_file(tmp);
    }
    renamed?;
    for path in &paths {
        // Make the renames durable; a directory that cannot be opened for
        // this (some filesystems) still holds the new names.
        if let Ok(dir) = File::open(split(path)?.0) {
            let _ = dir.sync_all();
        }
    }
    Ok(())
}

fn refused(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} {why}", path.display()),
    )
}

/// (directory, file name) of a target; "." for a bare name.
fn split(path: &Path) -> io::Result<(PathBuf, String)> {
    let name = path
        .file_name()
        .ok_or_else(|| refused(path, "has no file name"))?
        .to_string_lossy()
        .into_owned();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((dir, name))
}

/// `.NAME.<pid>.tmp` beside `path`, for this process.
fn temporary(path: &Path) -> io::Result<PathBuf> {
    let (dir, name) = split(path)?;
    Ok(dir.join(format!(".{name}.{}.tmp", std::process::id())))
}

/// Removes `.NAME.<pid>.tmp` in `dir` of processes that no longer run.
/// Without `/proc` (not Linux) nothing can be told dead, so nothing goes.
fn remove_stale_temporaries(dir: &Path, name: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .filter(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let dead = !Path::new("/proc").join(pid).exists();
        if dead && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("collidoscope-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    }

    /// A writer that fails once `limit` bytes in all have been written, as
    /// a disk that fills up midway.
    fn full_disk_after(limit: usize) -> impl FnMut(&mut File, &[u8]) -> io::Result<()> {
        let mut total = 0;
        move |f, bytes| {
            let room = limit.saturating_sub(total).min(bytes.len());
            f.write_all(&bytes[..room])?;
            total += room;
            if room < bytes.len() {
                return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
            }
            Ok(())
        }
    }

    #[test]
    fn a_failure_while_writing_leaves_the_old_set_and_no_temporaries() {
        let dir = scratch("full");
        let (npy, json) = (dir.join("f.npy"), dir.join("f.json"));
        write_set(&[(&npy, b"old data"), (&json, b"old meta")]).unwrap();
        // Fails inside the first file, then inside the second.
        for limit in [3, 12] {
            let err = write_set_with(
                &[(&npy, b"new data"), (&json, b"new meta")],
                &mut full_disk_after(limit),
            )
            .unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::StorageFull);
            assert_eq!(std::fs::read(&npy).unwrap(), b"old data");
            assert_eq!(std::fs::read(&json).unwrap(), b"old meta");
            assert_eq!(names(&dir), ["f.json", "f.npy"], "limit {limit}");
        }
        write_set(&[(&npy, b"new data"), (&json, b"new meta")]).unwrap();
        assert_eq!(std::fs::read(&npy).unwrap(), b"new data");
        assert_eq!(std::fs::read(&json).unwrap(), b"new meta");
        assert_eq!(names(&dir), ["f.json", "f.npy"]);
    }

    #[test]
    fn special_files_links_directories_and_repeated_names_are_refused() {
        let dir = scratch("refuse");
        // A FIFO stands for every special file (a device would be lost if
        // this test ever failed).
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let err = write_atomically(&fifo, b"x").unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        assert!(!fifo.symlink_metadata().unwrap().is_file());
        let err = write_atomically(&dir, b"x").unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
        let target = dir.join("target.txt");
        std::fs::write(&target, b"kept").unwrap();
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = write_atomically(&link, b"x").unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"kept");
        let same = dir.join("x.json");
        let err = write_set(&[(&same, b"field"), (&same, b"sidecar")]).unwrap_err();
        assert!(err.to_string().contains("share the name"), "{err}");
        assert_eq!(names(&dir), ["fifo", "link.txt", "target.txt"]);
    }

    #[test]
    fn stale_temporaries_of_dead_processes_are_removed() {
        let dir = scratch("stale");
        // pid_max is at most 2^22 on Linux, so this process cannot exist.
        let dead = dir.join(".out.json.99999999.tmp");
        let other = dir.join(".other.json.99999999.tmp");
        for f in [&dead, &other] {
            std::fs::write(f, b"partial").unwrap();
        }
        // A temporary of a live process (pid 1) stays.
        let live = dir.join(".out.json.1.tmp");
        std::fs::write(&live, b"in progress").unwrap();
        write_atomically(&dir.join("out.json"), b"{}").unwrap();
        assert!(!dead.exists());
        assert_eq!(
            names(&dir),
            [".other.json.99999999.tmp", ".out.json.1.tmp", "out.json"]
        );
    }

    #[test]
    fn read_verified_detects_a_mismatched_pair() {
        let dir = scratch("verify");
        let (data, json) = (dir.join("f.npy"), dir.join("f.json"));
        let meta = serde_json::json!({ CHECKSUM_KEY: checksum_hex(b"first") });
        write_set(&[(&data, b"first"), (&json, meta.to_string().as_bytes())]).unwrap();
        let (bytes, back) = read_verified(&data, &json).unwrap();
        assert_eq!((bytes.as_slice(), &back), (b"first".as_slice(), &meta));
        // A kill between the renames of a later write: new data, old sidecar.
        write_atomically(&data, b"second").unwrap();
        let err = read_verified(&data, &json).unwrap_err();
        assert!(err.contains("does not belong to"), "{err}");
        std::fs::write(&json, b"{}").unwrap();
        let err = read_verified(&data, &json).unwrap_err();
        assert!(err.contains(CHECKSUM_KEY), "{err}");
    }
}
