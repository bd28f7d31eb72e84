//! Reading an input file: the one function every file the tool reads goes
//! through ([`read_input`]).
//!
//! A path given by a user may name anything: a FIFO (`mkfifo`), whose read
//! blocks until a writer comes, a device such as `/dev/zero`, which never
//! ends, a folder, or a file far larger than memory. Each is refused before
//! a byte is read, in one line that names the file:
//!
//! * the path, after following symlinks, must be a regular file (checked
//!   with `stat` before opening, so a FIFO is never opened, and again on
//!   the opened file);
//! * its size must be at most the limit of its [`InputKind`] (checked on
//!   the opened file, and the read itself stops one byte past the limit, so
//!   a file that grows while it is read is refused too).
//!
//! The limits are generous for real data and small next to a machine's
//! memory; the CLI's help and the book list them.

use std::io::Read;
use std::path::{Path, PathBuf};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Largest OBJ mesh read: 2 GiB (about 30 million triangles as text).
pub const MESH_LIMIT: u64 = 2 * GIB;
/// Largest glTF file (`.gltf` or `.glb`) and largest external glTF buffer.
pub const GLTF_LIMIT: u64 = 2 * GIB;
/// Largest scene file (`simulate`, `particles`, poses of `tritri` and
/// `interfere`, a camera): 64 MiB of JSON.
pub const SCENE_LIMIT: u64 = 64 * MIB;
/// Largest field or point set (`.npy`, `.npz`): 8 GiB.
pub const ARRAY_LIMIT: u64 = 8 * GIB;
/// Largest sidecar (`.json` beside a `.npy`/`.npz`): 16 MiB.
pub const SIDECAR_LIMIT: u64 = 16 * MIB;

/// What a file is read as; each kind has its size limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    Mesh,
    Gltf,
    Scene,
    Array,
    Sidecar,
}

impl InputKind {
    /// Every kind, in the order the help lists them.
    pub const ALL: [InputKind; 5] = [
        InputKind::Mesh,
        InputKind::Gltf,
        InputKind::Scene,
        InputKind::Array,
        InputKind::Sidecar,
    ];

    /// The largest file of this kind that is read, in bytes.
    pub const fn limit(self) -> u64 {
        match self {
            InputKind::Mesh => MESH_LIMIT,
            InputKind::Gltf => GLTF_LIMIT,
            InputKind::Scene => SCENE_LIMIT,
            InputKind::Array => ARRAY_LIMIT,
            InputKind::Sidecar => SIDECAR_LIMIT,
        }
    }

    /// What files of this kind are, for messages and the help.
    pub const fn what(self) -> &'static str {
        match self {
            InputKind::Mesh => "OBJ meshes",
            InputKind::Gltf => "glTF files and their buffers",
            InputKind::Scene => "scene and pose files (JSON)",
            InputKind::Array => "fields and point sets (.npy, .npz)",
            InputKind::Sidecar => "sidecars (.json beside a field)",
        }
    }
}

/// The input limits as the CLI's help lists them, one line each.
pub fn limits_help() -> String {
    InputKind::ALL
        .iter()
        .map(|k| format!("  {:<40} {}", k.what(), human(k.limit())))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A size in the largest binary unit that divides it.
fn human(bytes: u64) -> String {
    if bytes.is_multiple_of(GIB) {
        format!("{} GiB", bytes / GIB)
    } else if bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Why an input file was not read. One line, naming the file:
/// "cannot read PATH: REASON".
#[derive(Debug)]
pub enum InputError {
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    NotAFile {
        path: PathBuf,
        what: &'static str,
    },
    TooLarge {
        path: PathBuf,
        size: u64,
        kind: InputKind,
    },
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot read {}: {}",
            self.path().display(),
            self.reason()
        )
    }
}

/// The cause is in the message: no source, so an error chain prints it once.
impl std::error::Error for InputError {}

impl InputError {
    /// The file not read.
    pub fn path(&self) -> &Path {
        match self {
            InputError::Io { path, .. }
            | InputError::NotAFile { path, .. }
            | InputError::TooLarge { path, .. } => path,
        }
    }

    /// Why it was not read (the message without "cannot read PATH").
    pub fn reason(&self) -> String {
        match self {
            InputError::Io { source, .. } => source.to_string(),
            InputError::NotAFile { what, .. } => {
                format!("not a regular file (a {what}); give a file")
            }
            InputError::TooLarge { size, kind, .. } => format!(
                "{size} bytes, over the {} limit for {}",
                human(kind.limit()),
                kind.what()
            ),
        }
    }
}

/// What a path that is not a regular file is.
fn file_type_name(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "device";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    if t.is_dir() { "folder" } else { "special file" }
}

/// The whole of the file at `path`, read as `kind`: refused when it is not
/// a regular file or is over the kind's limit (module docs).
pub fn read_input(path: &Path, kind: InputKind) -> Result<Vec<u8>, InputError> {
    let io = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let regular = |meta: &std::fs::Metadata| -> Result<(), InputError> {
        if meta.is_file() {
            Ok(())
        } else {
            Err(InputError::NotAFile {
                path: path.to_path_buf(),
                what: file_type_name(meta.file_type()),
            })
        }
    };
    regular(&std::fs::metadata(path).map_err(io)?)?;
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    regular(&meta)?;
    let too_large = |size| InputError::TooLarge {
        path: path.to_path_buf(),
        size,
        kind,
    };
    if meta.len() > kind.limit() {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(kind.limit() + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > kind.limit() {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_input`] as UTF-8 text.
pub fn read_input_text(path: &Path, kind: InputKind) -> Result<String, InputError> {
    let bytes = read_input(path, kind)?;
    String::from_utf8(bytes).map_err(|e| InputError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text at byte {} (a binary file?)",
                e.utf8_error().valid_up_to()
            ),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_folders_and_large_files_are_refused_by_name() {
        let zero = read_input(Path::new("/dev/zero"), InputKind::Scene).unwrap_err();
        assert!(
            zero.to_string()
                .contains("/dev/zero: not a regular file (a device)"),
            "{zero}"
        );
        let dir = std::env::temp_dir();
        let folder = read_input(&dir, InputKind::Mesh).unwrap_err();
        assert!(folder.to_string().contains("a folder"), "{folder}");
        let big = dir.join(format!("collidoscope-input-{}.json", std::process::id()));
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(SIDECAR_LIMIT + 1).unwrap(); // sparse: nothing is written
        let err = read_input(&big, InputKind::Sidecar)
            .unwrap_err()
            .to_string();
        assert!(err.contains("over the 16 MiB limit for sidecars"), "{err}");
        file.set_len(3).unwrap();
        assert_eq!(read_input(&big, InputKind::Sidecar).unwrap(), vec![0; 3]);
        std::fs::remove_file(&big).unwrap();
        assert!(limits_help().contains("8 GiB"));
    }
}
