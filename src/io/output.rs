//! Safe outputs: every file the tool writes goes through [`write_set`].
//!
//! An *output set* is the files one command writes together: a field and its
//! JSON sidecar, `interfere`'s images, count arrays and JSON, a benchmark's
//! JSON and CSV, or a single file. Commands check their whole plan first
//! (outputs against inputs, folders, extensions: [`super::OutputPlan`]);
//! writing a set then:
//!
//! 1. **Checks the targets.** Each target must be absent or a regular file.
//!    Directories, devices, FIFOs and sockets are refused (`--out /dev/full`
//!    is an error, never a regular file in the device's place), and so are
//!    **symbolic links**: replacing a link by a file would cut the link, and
//!    writing through it would change a file under another name, so the
//!    tool asks for the link's target instead. Two files of a set with one
//!    path are refused too (`sdf MESH --out x.json` would be its own
//!    sidecar).
//! 2. **Removes stale temporaries** `.NAME.<pid>-<n>.tmp` (or the older
//!    `.NAME.<pid>.tmp`) beside each target whose process no longer runs
//!    (no `/proc/<pid>`): what a `kill -9` during an earlier write left
//!    behind.
//! 3. **Writes every temporary** `.NAME.<pid>-<n>.tmp` in the target's
//!    directory (`n` counts the writes of this process, so two threads never
//!    share one) and flushes it to disk (`fsync`).
//! 4. **Locks the targets' directories** (an advisory `flock` on each
//!    directory itself, taken in a fixed order), **renames** each temporary
//!    over its target in the set's order (the sidecar, which names the
//!    others, last), flushes the directories and unlocks. Two processes
//!    writing one set at once therefore leave one's files or the other's,
//!    never a field of one beside the sidecar of the other. Locking the
//!    directory, not a lock file, leaves nothing beside the outputs.
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
    let bytes = super::read_input(data, super::InputKind::Array).map_err(|e| e.to_string())?;
    let text = super::read_input(sidecar, super::InputKind::Sidecar).map_err(|e| e.to_string())?;
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
/// two are the same. [`write_set`] calls it; commands check more before
/// their work ([`super::OutputPlan`]).
pub fn check_targets(paths: &[&Path]) -> io::Result<()> {
    for (i, path) in paths.iter().enumerate() {
        if paths[..i].contains(path) {
            return Err(refused(
                path,
                "would hold two files of one output (a file and its sidecar share the name); choose another extension",
            ));
        }
        if let Some(why) = target_problem(path)? {
            return Err(refused(path, why));
        }
    }
    Ok(())
}

/// Why `path` cannot be an output (it has no file name, or is a link, a
/// directory or a special file); `None` when it is absent or a regular file.
pub(super) fn target_problem(path: &Path) -> io::Result<Option<&'static str>> {
    if path.file_name().is_none() {
        return Ok(Some("has no file name"));
    }
    Ok(match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
        Ok(m) if m.file_type().is_symlink() => Some(
            "is a symbolic link; outputs are not written through links (give the link's target)",
        ),
        Ok(m) if m.is_dir() => Some("is a directory"),
        Ok(m) if !m.is_file() => {
            Some("is a device, FIFO or socket, not a regular file; refusing to replace it")
        }
        Ok(_) => None,
    })
}

/// Writes one file safely: a set of one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_set(&[(path, bytes)])
}

/// Writes one file safely, its bytes given by `write` as they are made (a
/// long output that never has to be held whole): into a temporary beside
/// `path` (buffered), renamed over `path` only when `write` succeeds.
pub fn write_streamed(
    path: &Path,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write_set_with(&[(path, &[])], &mut |f, _| {
        let mut out = io::BufWriter::new(f);
        write(&mut out)?;
        out.flush()
    })
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
        let mut f = File::options().write(true).create_new(true).open(&tmp)?;
        temps.push(tmp);
        write(&mut f, bytes)?;
        f.sync_all()
    });
    let renamed = written.and_then(|()| {
        let locks = lock_directories(&paths)?;
        for (tmp, path) in temps.iter().zip(&paths) {
            std::fs::rename(tmp, path)?;
        }
        // Make the renames durable; a directory that cannot be flushed
        // (some filesystems) still holds the new names.
        for dir in &locks {
            let _ = dir.sync_all();
        }
        Ok(())
    });
    // After a successful rename the temporary no longer exists.
    for tmp in &temps {
        let _ = std::fs::remove_file(tmp);
    }
    renamed
}

/// Opens and locks (advisory, exclusive) each directory holding one of
/// `paths`, in the order of their canonical paths so that two writers of
/// overlapping sets cannot wait on each other. The locks go with the files.
fn lock_directories(paths: &[&Path]) -> io::Result<Vec<File>> {
    let mut dirs: Vec<PathBuf> = paths
        .iter()
        .map(|p| split(p).and_then(|(dir, _)| std::fs::canonicalize(dir)))
        .collect::<io::Result<_>>()?;
    dirs.sort();
    dirs.dedup();
    dirs.iter()
        .map(|dir| {
            let f = File::open(dir)?;
            f.lock()?;
            Ok(f)
        })
        .collect()
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

/// `.NAME.<pid>-<n>.tmp` beside `path`: this process's `n`-th temporary.
fn temporary(path: &Path) -> io::Result<PathBuf> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (dir, name) = split(path)?;
    Ok(dir.join(format!(".{name}.{}-{n}.tmp", std::process::id())))
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
        // `<pid>` or `<pid>-<n>`, digits only.
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|rest| match rest.split_once('-') {
                Some((pid, n)) if digits(n) => Some(pid),
                Some(_) => None,
                None => Some(rest),
            })
            .filter(|pid| digits(pid))
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
pub(super) mod tests {
    use super::*;

    /// A fresh scratch folder for the io tests.
    pub(in crate::io) fn scratch(name: &str) -> PathBuf {
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

    /// Two writers of one pair at once (two `sdf` runs with one `--out`
    /// once left the field of one beside the sidecar of the other).
    #[test]
    fn concurrent_writers_of_one_set_leave_a_matching_pair() {
        let dir = scratch("concurrent");
        let (data, json) = (dir.join("f.npy"), dir.join("f.json"));
        let writers = 4;
        for round in 0..300 {
            let barrier = std::sync::Barrier::new(writers);
            std::thread::scope(|s| {
                for writer in 0..writers {
                    let (data, json, barrier) = (&data, &json, &barrier);
                    s.spawn(move || {
                        let bytes = vec![writer as u8; 64 + round];
                        let meta = serde_json::json!({ CHECKSUM_KEY: checksum_hex(&bytes) });
                        barrier.wait();
                        write_set(&[(data, &bytes), (json, meta.to_string().as_bytes())]).unwrap();
                    });
                }
            });
            read_verified(&data, &json).unwrap_or_else(|e| panic!("round {round}: {e}"));
        }
        assert_eq!(names(&dir), ["f.json", "f.npy"]);
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
