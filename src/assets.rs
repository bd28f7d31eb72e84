//! Sample meshes embedded in the binary (from `assets/`, provenance in
//! `assets/README.md`), so the viewer's default scene and the benchmark
//! suites need no files on disk.

use crate::mesh::{Mesh, MeshError, parse_obj_str};

/// (name, OBJ text) of every sample.
pub const SAMPLES: &[(&str, &str)] = &[
    ("spot", include_str!("../assets/spot.obj")),
    (
        "stanford-bunny",
        include_str!("../assets/stanford-bunny.obj"),
    ),
    ("teapot", include_str!("../assets/teapot.obj")),
    ("fandisk", include_str!("../assets/fandisk.obj")),
    ("rocker-arm", include_str!("../assets/rocker-arm.obj")),
    ("ogre", include_str!("../assets/ogre.obj")),
    ("cheburashka", include_str!("../assets/cheburashka.obj")),
    ("cow", include_str!("../assets/cow.obj")),
    ("alligator", include_str!("../assets/alligator.obj")),
    ("beetle", include_str!("../assets/beetle.obj")),
    ("woody", include_str!("../assets/woody.obj")),
    ("suzanne", include_str!("../assets/suzanne.obj")),
];

/// Loads a sample by name, all its objects merged.
pub fn load_sample(name: &str) -> Result<Mesh, MeshError> {
    let (_, text) = SAMPLES
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| MeshError::Io {
            path: format!("sample:{name}"),
            reason: "no such sample".into(),
        })?;
    let meshes = parse_obj_str(name, text)?;
    Ok(Mesh::merge(&meshes, name))
}
