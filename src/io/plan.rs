//! Output plans: every file a command will write, checked against every
//! file it reads, before any work.
//!
//! A command lists its inputs (meshes, scenes, fields and their sidecars,
//! pose and camera files) and its outputs (`--out`, the sidecars and images
//! derived from it, `--flights`, the files of a `--maps` folder…) in one
//! [`OutputPlan`], then calls [`OutputPlan::check`] before it loads or
//! computes anything. The check refuses, in one line naming the flag and
//! the paths:
//!
//! 1. an output that is **the same file as an input** (`sdf c2.obj --out
//!    c2.obj` would replace the mesh by the field);
//! 2. **two outputs that are one file** (`sdf MESH --out x.json` would be
//!    its own sidecar; `particles --out e.csv --flights ./e.csv`);
//! 3. an output that is a link, a directory or a special file (see
//!    [`super::check_targets`]);
//! 4. an output whose **folder does not exist** (unless it is a folder the
//!    command creates, as `--maps DIR` or a benchmark's `--out DIR`);
//! 5. an output whose **extension does not match what is written**
//!    (`sdf --out x.obj` writes a NumPy array).
//!
//! "The same file" is decided by [`locate`]: two paths name one file when
//! their canonical forms are equal (`./x`, `dir/../x` and links resolve)
//! or, both existing, they have the same device and inode (hard links). A
//! path that does not exist yet is its nearest existing ancestor,
//! canonical, joined with the rest as written.

use std::path::{Component, Path, PathBuf};

/// What an output holds, and the file extensions that say so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The kind of file, for messages ("a NumPy array").
    pub what: &'static str,
    /// Accepted extensions, lowercase, without the dot; the first is named
    /// in messages.
    pub extensions: &'static [&'static str],
}

impl Format {
    pub const NPY: Format = Format {
        what: "a NumPy array",
        extensions: &["npy"],
    };
    pub const NPZ: Format = Format {
        what: "a NumPy archive",
        extensions: &["npz"],
    };
    pub const JSON: Format = Format {
        what: "JSON",
        extensions: &["json"],
    };
    pub const CSV: Format = Format {
        what: "CSV",
        extensions: &["csv"],
    };
    pub const PNG: Format = Format {
        what: "a PNG image",
        extensions: &["png"],
    };
    pub const MARKDOWN: Format = Format {
        what: "Markdown",
        extensions: &["md"],
    };

    fn matches(&self, path: &Path) -> bool {
        path.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| self.extensions.contains(&e.to_ascii_lowercase().as_str()))
    }
}

/// Why a plan was refused: one line, naming the flags and the paths.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error(
        "{output} {path} is the same file as {input} {input_path}; refusing to overwrite an input"
    )]
    SameAsInput {
        output: String,
        path: String,
        input: String,
        input_path: String,
    },
    #[error(
        "{output} {path} and {other} {other_path} are one file (two outputs would share the name); choose other names"
    )]
    SameOutput {
        output: String,
        path: String,
        other: String,
        other_path: String,
    },
    #[error("{output} {path} {why}")]
    Target {
        output: String,
        path: String,
        why: &'static str,
    },
    #[error("{output} {path}: the folder {folder} does not exist")]
    NoFolder {
        output: String,
        path: String,
        folder: String,
    },
    #[error("{output} {path}: {folder} is not a folder")]
    NotAFolder {
        output: String,
        path: String,
        folder: String,
    },
    #[error("{output} {path}: {what} is written there, so the name must end in .{extension}")]
    WrongExtension {
        output: String,
        path: String,
        what: &'static str,
        extension: &'static str,
    },
    #[error("{output} {path}: {source}")]
    Io {
        output: String,
        path: String,
        source: std::io::Error,
    },
}

#[derive(Debug)]
struct Planned {
    label: String,
    path: PathBuf,
    format: Format,
}

/// The inputs and outputs of one command (see the module docs).
#[derive(Debug, Default)]
pub struct OutputPlan {
    inputs: Vec<(String, PathBuf)>,
    outputs: Vec<Planned>,
    folders: Vec<(String, PathBuf)>,
}

impl OutputPlan {
    pub fn new() -> Self {
        Self::default()
    }

    /// A file the command reads, `label` as messages name it ("the mesh",
    /// "--poses"). It need not exist.
    pub fn input(&mut self, label: impl Into<String>, path: impl AsRef<Path>) -> &mut Self {
        self.inputs
            .push((label.into(), path.as_ref().to_path_buf()));
        self
    }

    /// A file the command writes, holding `format`.
    pub fn output(
        &mut self,
        label: impl Into<String>,
        path: impl AsRef<Path>,
        format: Format,
    ) -> &mut Self {
        self.outputs.push(Planned {
            label: label.into(),
            path: path.as_ref().to_path_buf(),
            format,
        });
        self
    }

    /// A folder the command creates (with its parents) before writing:
    /// outputs inside it need no existing folder.
    pub fn folder(&mut self, label: impl Into<String>, dir: impl AsRef<Path>) -> &mut Self {
        self.folders
            .push((label.into(), dir.as_ref().to_path_buf()));
        self
    }

    /// The planned outputs, in the order given.
    pub fn outputs(&self) -> impl Iterator<Item = &Path> {
        self.outputs.iter().map(|o| o.path.as_path())
    }

    /// Refuses the plan if writing it could destroy a file or would fail
    /// for a reason known now (the module docs list the rules).
    pub fn check(&self) -> Result<(), OutputError> {
        for (label, dir) in &self.folders {
            if dir.exists() && !dir.is_dir() {
                return Err(OutputError::Target {
                    output: label.clone(),
                    path: dir.display().to_string(),
                    why: "is not a folder",
                });
            }
        }
        let inputs: Vec<Location> = self.inputs.iter().map(|(_, p)| locate(p)).collect();
        let outputs: Vec<Location> = self.outputs.iter().map(|o| locate(&o.path)).collect();
        for (i, (out, at)) in self.outputs.iter().zip(&outputs).enumerate() {
            if let Some(k) = outputs[..i].iter().position(|other| other.same(at)) {
                let first = &self.outputs[k];
                return Err(OutputError::SameOutput {
                    output: first.label.clone(),
                    path: first.path.display().to_string(),
                    other: out.label.clone(),
                    other_path: out.path.display().to_string(),
                });
            }
            if let Some(k) = inputs.iter().position(|input| input.same(at)) {
                let (input, input_path) = &self.inputs[k];
                return Err(OutputError::SameAsInput {
                    output: out.label.clone(),
                    path: out.path.display().to_string(),
                    input: input.clone(),
                    input_path: input_path.display().to_string(),
                });
            }
        }
        for out in &self.outputs {
            self.check_one(out)?;
        }
        Ok(())
    }

    fn check_one(&self, out: &Planned) -> Result<(), OutputError> {
        let (output, path) = (out.label.clone(), out.path.display().to_string());
        match super::output::target_problem(&out.path) {
            Ok(None) => {}
            Ok(Some(why)) => return Err(OutputError::Target { output, path, why }),
            Err(source) => {
                return Err(OutputError::Io {
                    output,
                    path,
                    source,
                });
            }
        }
        let folder = match out.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            let created = self.folders.iter().any(|(_, f)| folder.starts_with(f));
            let folder_text = folder.display().to_string();
            if folder.exists() {
                return Err(OutputError::NotAFolder {
                    output,
                    path,
                    folder: folder_text,
                });
            }
            if !created {
                return Err(OutputError::NoFolder {
                    output,
                    path,
                    folder: folder_text,
                });
            }
        }
        if !out.format.matches(&out.path) {
            return Err(OutputError::WrongExtension {
                output,
                path,
                what: out.format.what,
                extension: out.format.extensions[0],
            });
        }
        Ok(())
    }
}

/// Where a path points: see [`locate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The canonical path, or for a path that does not exist its nearest
    /// existing ancestor's canonical path joined with the rest.
    pub canonical: PathBuf,
    /// (device, inode) of an existing file (Unix).
    pub id: Option<(u64, u64)>,
}

impl Location {
    /// Whether two locations are one file.
    pub fn same(&self, other: &Location) -> bool {
        self.canonical == other.canonical || (self.id.is_some() && self.id == other.id)
    }
}

/// Locates `path` for comparing files (see the module docs).
pub fn locate(path: &Path) -> Location {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest: Vec<Component> = Vec::new();
    let mut base = absolute.as_path();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(base) {
            let mut canonical = canonical;
            for c in rest.iter().rev() {
                match c {
                    Component::ParentDir => {
                        canonical.pop();
                    }
                    Component::CurDir => {}
                    other => canonical.push(other),
                }
            }
            let id = if rest.is_empty() {
                file_id(&canonical)
            } else {
                None
            };
            return Location { canonical, id };
        }
        match (base.parent(), base.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                base = parent;
            }
            _ => {
                return Location {
                    canonical: absolute.clone(),
                    id: None,
                };
            }
        }
    }
}

#[cfg(unix)]
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_path: &Path) -> Option<(u64, u64)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::output::tests::scratch;

    #[test]
    fn dot_segments_links_and_hard_links_are_one_file() {
        let dir = scratch("plan-same");
        let mesh = dir.join("c2.obj");
        std::fs::write(&mesh, b"v 0 0 0").unwrap();
        let at = locate(&mesh);
        assert!(at.same(&locate(&dir.join(".").join("c2.obj"))));
        assert!(
            at.same(&locate(&dir.join("sub/../c2.obj"))),
            "sub does not exist"
        );
        std::fs::create_dir(dir.join("sub")).unwrap();
        assert!(at.same(&locate(&dir.join("sub/../c2.obj"))));
        let hard = dir.join("hard.obj");
        std::fs::hard_link(&mesh, &hard).unwrap();
        let hard_at = locate(&hard);
        assert_ne!(hard_at.canonical, at.canonical);
        assert!(hard_at.same(&at), "a hard link is the same file");
        let soft = dir.join("soft.obj");
        std::os::unix::fs::symlink(&mesh, &soft).unwrap();
        assert!(locate(&soft).same(&at));
        assert!(!locate(&dir.join("other.obj")).same(&at));
    }

    #[test]
    fn paths_that_do_not_exist_compare_by_their_existing_ancestor() {
        let dir = scratch("plan-absent");
        let a = locate(&dir.join("new/./x.npy"));
        let b = locate(&dir.join("sub/../new/x.npy"));
        assert_eq!(
            a.canonical,
            std::fs::canonicalize(&dir).unwrap().join("new/x.npy")
        );
        assert!(a.same(&b), "{a:?} {b:?}");
        assert!(!a.same(&locate(&dir.join("new/y.npy"))));
        // Relative paths are taken from the working directory.
        let here = locate(Path::new("no-such-file.npy"));
        assert_eq!(
            here.canonical,
            std::fs::canonicalize(".").unwrap().join("no-such-file.npy")
        );
    }

    #[test]
    fn an_output_naming_an_input_is_refused_with_both_paths() {
        let dir = scratch("plan-input");
        let mesh = dir.join("c2.obj");
        std::fs::write(&mesh, b"v 0 0 0").unwrap();
        let same = dir.join(".").join("c2.obj");
        let err = OutputPlan::new()
            .input("the mesh", &mesh)
            .output("--out", &same, Format::NPY)
            .check()
            .unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, OutputError::SameAsInput { .. }), "{text}");
        assert!(text.starts_with("--out "), "{text}");
        assert!(text.contains(&mesh.display().to_string()), "{text}");
        assert!(text.contains(&same.display().to_string()), "{text}");
        assert!(!text.contains('\n'));
    }

    #[test]
    fn two_outputs_of_one_file_wrong_extensions_and_missing_folders_are_refused() {
        let dir = scratch("plan-outputs");
        let check = |plan: &mut OutputPlan| plan.check().map_err(|e| e.to_string());
        let err = check(
            OutputPlan::new()
                .output("--out", dir.join("e.csv"), Format::CSV)
                .output("--flights", dir.join("./e.csv"), Format::CSV),
        )
        .unwrap_err();
        assert!(err.contains("--out") && err.contains("--flights"), "{err}");
        let err =
            check(OutputPlan::new().output("--out", dir.join("x.obj"), Format::NPY)).unwrap_err();
        assert!(err.contains("must end in .npy"), "{err}");
        let missing = dir.join("no/such");
        let err = check(OutputPlan::new().output("--out", missing.join("x.npy"), Format::NPY))
            .unwrap_err();
        assert!(err.contains("does not exist"), "{err}");
        assert!(err.contains(&missing.display().to_string()), "{err}");
        // In a folder the command creates, the folder may be missing.
        check(OutputPlan::new().folder("--maps", &missing).output(
            "--maps",
            missing.join("m.npy"),
            Format::NPY,
        ))
        .unwrap();
        // Upper case extensions are the same extension.
        check(OutputPlan::new().output("--out", dir.join("X.NPY"), Format::NPY)).unwrap();
        assert!(
            std::fs::read_dir(&dir).unwrap().next().is_none(),
            "nothing written"
        );
    }
}
