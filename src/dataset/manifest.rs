//! Which meshes a dataset run takes, and where each one's files go.
//!
//! A MANIFEST is one of:
//!
//! * a **folder**: every mesh file (`.obj`, `.ply`, `.stl`, `.off`) under
//!   it, at any depth;
//! * a **glob**: a path with `*` (any characters within one name), `?`
//!   (one character) or `**` (any number of folders), e.g.
//!   `ShapeNetCore/*/*/models/model_normalized.obj`;
//! * a **text file** of mesh paths, one a line (blank lines and lines
//!   starting with `#` skipped; relative paths are relative to the file's
//!   folder).
//!
//! The meshes are sorted, so every run and every shard sees one order.
//! Each mesh's outputs keep its path below the manifest's root (the
//! folder, the glob's fixed part, or the deepest folder holding every
//! listed mesh) with the extension dropped: `02691156/1a04…/models/
//! model_normalized.obj` gives `OUT/02691156/1a04…/models/
//! model_normalized.npz`, so meshes of one name in many folders never
//! collide. `--shard i/N` keeps the meshes whose position in the sorted
//! list is `i` modulo `N`: the N shards take every mesh exactly once.

use std::path::{Component, Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use super::DatasetError;
use crate::io::{InputKind, read_input_text};
use crate::mesh::MeshFormat;

/// The meshes of a manifest and the folder their output names start from.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    pub root: PathBuf,
    pub meshes: Vec<PathBuf>,
}

/// One shard of a run: `index` of `count` (0 ≤ index < count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `"i/N"`, as SLURM's `$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?} is not i/N (e.g. 0/8)"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| format!("{i:?} is not a number"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("{n:?} is not a number"))?;
        if count == 0 || index >= count {
            return Err(format!("{s}: needs 0 ≤ i < N"));
        }
        Ok(Shard { index, count })
    }
}

/// One mesh to sample: its file, its output path without extension and
/// its own seed.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub mesh: PathBuf,
    pub output: PathBuf,
    pub seed: u64,
}

impl Job {
    /// The output path with `suffix` appended (`".npz"`, `".report.json"`).
    pub fn file(&self, suffix: &str) -> PathBuf {
        let mut s = self.output.clone().into_os_string();
        s.push(suffix);
        PathBuf::from(s)
    }
}

fn is_mesh(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .and_then(MeshFormat::from_extension)
        .is_some()
}

fn io_error(path: &Path, source: std::io::Error) -> DatasetError {
    DatasetError::Io {
        path: path.display().to_string(),
        source,
    }
}

impl Manifest {
    /// The manifest `spec` names (module docs).
    pub fn read(spec: &Path) -> Result<Manifest, DatasetError> {
        let text = spec.to_string_lossy();
        if spec.is_dir() {
            let mut meshes = Vec::new();
            walk(spec, &mut |p| {
                if is_mesh(p) {
                    meshes.push(p.to_path_buf());
                }
            })?;
            return Manifest::new(spec.to_path_buf(), meshes, spec);
        }
        if text.contains(['*', '?']) {
            let (root, pattern) = split_glob(spec);
            let mut meshes = Vec::new();
            let start = if root.as_os_str().is_empty() {
                Path::new(".")
            } else {
                &root
            };
            walk(start, &mut |p| {
                let rel = p.strip_prefix(start).unwrap_or(p);
                let names: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if is_mesh(p) && glob_match(&pattern, &names) {
                    meshes.push(p.to_path_buf());
                }
            })?;
            return Manifest::new(start.to_path_buf(), meshes, spec);
        }
        let listing = read_input_text(spec, InputKind::Scene)
            .map_err(|e| DatasetError::Manifest(e.to_string()))?;
        let base = spec.parent().unwrap_or(Path::new(""));
        let meshes: Vec<PathBuf> = listing
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| base.join(l))
            .collect();
        Manifest::from_paths(meshes, None, spec)
    }

    /// A manifest of the listed `meshes`; the root is `root` or the
    /// deepest folder holding them all.
    pub fn from_paths(
        meshes: Vec<PathBuf>,
        root: Option<PathBuf>,
        what: &Path,
    ) -> Result<Manifest, DatasetError> {
        let root = root.unwrap_or_else(|| common_folder(&meshes));
        Manifest::new(root, meshes, what)
    }

    fn new(root: PathBuf, mut meshes: Vec<PathBuf>, what: &Path) -> Result<Manifest, DatasetError> {
        meshes.sort();
        meshes.dedup();
        if meshes.is_empty() {
            return Err(DatasetError::Manifest(format!(
                "{}: no mesh files (.obj, .ply, .stl, .off) found",
                what.display()
            )));
        }
        Ok(Manifest { root, meshes })
    }

    /// The jobs of `shard` (all meshes without one), their outputs under
    /// `out`, each seeded from `seed` and its name. Refuses two meshes
    /// that would write one output (`a.obj` beside `a.ply`).
    pub fn jobs(
        &self,
        out: &Path,
        shard: Option<Shard>,
        seed: u64,
    ) -> Result<Vec<Job>, DatasetError> {
        let mut seen = std::collections::HashMap::new();
        let mut jobs = Vec::new();
        for (k, mesh) in self.meshes.iter().enumerate() {
            let name = output_name(&self.root, mesh)?;
            if let Some(other) = seen.insert(name.clone(), mesh) {
                return Err(DatasetError::Manifest(format!(
                    "{} and {} would both write {}: rename one",
                    other.display(),
                    mesh.display(),
                    out.join(&name).display()
                )));
            }
            if shard.is_some_and(|s| k % s.count != s.index) {
                continue;
            }
            let key = name.to_string_lossy();
            jobs.push(Job {
                mesh: mesh.clone(),
                output: out.join(&name),
                seed: seed ^ xxh3_64(key.as_bytes()),
            });
        }
        Ok(jobs)
    }
}

/// `mesh` below `root` without its extension: a relative path of normal
/// components only.
fn output_name(root: &Path, mesh: &Path) -> Result<PathBuf, DatasetError> {
    let rel = mesh.strip_prefix(root).unwrap_or(mesh).with_extension("");
    let name: PathBuf = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        })
        .collect();
    if name.as_os_str().is_empty() {
        return Err(DatasetError::Manifest(format!(
            "{}: no file name",
            mesh.display()
        )));
    }
    Ok(name)
}

/// The deepest folder that holds every one of `paths`.
fn common_folder(paths: &[PathBuf]) -> PathBuf {
    let mut common: Option<PathBuf> = None;
    for p in paths {
        let dir = p.parent().unwrap_or(Path::new("")).to_path_buf();
        common = Some(match common {
            None => dir,
            Some(c) => c
                .components()
                .zip(dir.components())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common.unwrap_or_default()
}

/// Calls `f` on every file under `dir`, in name order, following no links
/// to folders (a loop of links would never end).
fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) -> Result<(), DatasetError> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| io_error(dir, e))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(&path, f)?,
            Ok(_) => f(&path),
            Err(_) => {}
        }
    }
    Ok(())
}

/// The folders before a glob's first wildcard, and the pattern's
/// components after them.
fn split_glob(spec: &Path) -> (PathBuf, Vec<String>) {
    let mut root = PathBuf::new();
    let mut pattern = Vec::new();
    for c in spec.components() {
        let s = c.as_os_str().to_string_lossy().into_owned();
        if pattern.is_empty() && !s.contains(['*', '?']) {
            root.push(c);
        } else {
            pattern.push(s);
        }
    }
    (root, pattern)
}

/// Whether the path `names` matches the glob components `pattern`.
fn glob_match(pattern: &[String], names: &[String]) -> bool {
    match pattern.split_first() {
        None => names.is_empty(),
        Some((p, rest)) if p == "**" => {
            (0..=names.len()).any(|skip| glob_match(rest, &names[skip..]))
        }
        Some((p, rest)) => names.split_first().is_some_and(|(n, tail)| {
            name_match(p.as_bytes(), n.as_bytes()) && glob_match(rest, tail)
        }),
    }
}

/// Whether one name matches one glob component (`*` and `?`).
fn name_match(p: &[u8], n: &[u8]) -> bool {
    match (p.split_first(), n.split_first()) {
        (None, None) => true,
        (Some((b'*', rest)), _) => (0..=n.len()).any(|k| name_match(rest, &n[k..])),
        (Some((b'?', rest)), Some((_, tail))) => name_match(rest, tail),
        (Some((a, rest)), Some((b, tail))) => a == b && name_match(rest, tail),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &str) -> Vec<String> {
        s.split('/').map(String::from).collect()
    }

    #[test]
    fn globs_match_names_and_folders() {
        let pat = names("*/models/*.obj");
        assert!(glob_match(&pat, &names("a1/models/m.obj")));
        assert!(!glob_match(&pat, &names("a1/b/models/m.obj")));
        assert!(!glob_match(&pat, &names("a1/models/m.ply")));
        let deep = names("**/m?.obj");
        assert!(glob_match(&deep, &names("m1.obj")));
        assert!(glob_match(&deep, &names("x/y/z/m2.obj")));
        assert!(!glob_match(&deep, &names("x/m12.obj")));
    }

    #[test]
    fn shards_take_every_mesh_once_and_names_keep_folders() {
        let meshes: Vec<PathBuf> = (0..10)
            .map(|i| PathBuf::from(format!("d/{i}/model.obj")))
            .collect();
        let m = Manifest::from_paths(meshes, None, Path::new("list")).unwrap();
        assert_eq!(m.root, PathBuf::from("d"));
        let mut all = Vec::new();
        for index in 0..3 {
            let shard = Shard { index, count: 3 };
            all.extend(m.jobs(Path::new("out"), Some(shard), 1).unwrap());
        }
        all.sort_by(|a, b| a.mesh.cmp(&b.mesh));
        assert_eq!(all, m.jobs(Path::new("out"), None, 1).unwrap());
        assert_eq!(all[3].output, PathBuf::from("out/3/model"));
        assert_eq!(all[3].file(".npz"), PathBuf::from("out/3/model.npz"));
        assert_ne!(all[3].seed, all[4].seed);
        assert!("3/3".parse::<Shard>().is_err() && "1/0".parse::<Shard>().is_err());
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
    }

    #[test]
    fn two_meshes_of_one_output_name_are_refused() {
        let m = Manifest::from_paths(
            vec![PathBuf::from("d/a.obj"), PathBuf::from("d/a.ply")],
            None,
            Path::new("list"),
        )
        .unwrap();
        let e = m.jobs(Path::new("out"), None, 0).unwrap_err().to_string();
        assert!(e.contains("would both write"), "{e}");
    }
}
