//! Wavefront OBJ loading through `tobj`, with every failure mapped to a
//! [`MeshError`] instead of a panic.
//!
//! Method: the file is read whole and must be UTF-8 text without NUL bytes
//! (this is what rejects binary files — `tobj` itself would stop at the first
//! invalid UTF-8 line with a bare "read error"). The text goes to
//! `tobj::load_obj_buf` with `triangulate: true` (polygons become fans),
//! `single_index: false` (positions keep their own index, so normals and UVs
//! do not split vertices) and points and lines ignored. Materials are not
//! loaded.
//!
//! Polygons are triangulated here, as a zigzag strip rather than a fan: the
//! vertex order `1, 2, 0, 3, n-1, 4, n-2, …` taken three at a time, each
//! triangle in the polygon's own vertex order. For triangles and quads this
//! is exactly `tobj`'s fan; for larger convex polygons it is as valid as a
//! fan, but no vertex is shared by more than a few triangles. A fan of an
//! n-gon puts all n-2 triangles on one vertex, so every triangle's box
//! overlaps every other's and the self-intersection count of `info` becomes
//! quadratic (a 16,000-gon took seconds, a 510,000-gon hours); the strip
//! keeps a huge polygon near-linear.
//!
//! Each OBJ object or group (`o`/`g`) becomes one [`Mesh`] named
//! `"file_stem/object"`, or just `"file_stem"` for faces outside any object (`tobj` splits a group again at each `usemtl`; those
//! parts are joined back). Objects without triangles are skipped. Each mesh
//! then has to pass [`Mesh::validate`].
//!
//! Error mapping:
//!
//! | input                                    | error              |
//! |------------------------------------------|--------------------|
//! | missing / unreadable file                | `Io`               |
//! | binary, or text without any OBJ statement, or a `tobj` parse error | `Parse` |
//! | no triangles (e.g. empty or only vertices) | `Empty`          |
//! | face index beyond the vertices (`tobj`: `FaceVertexOutOfBounds`) | `IndexOutOfRange` |
//! | `nan` / `inf` coordinates (`tobj` accepts them) | `NonFinite` |
//!
//! For an out-of-range index found while parsing, `triangle` is the number
//! of the offending `f` statement in the file (from 0), `index` the index as
//! written and `count` the number of vertices it could name: all `v`
//! statements for a positive index, the ones before the face for a
//! negative (relative) one; `tobj` reports none of them. The message tells
//! the three cases apart: index 0 (OBJ counts from 1), a relative index
//! reaching before the first vertex, an index past the last vertex.

use std::io::Cursor;
use std::path::Path;

use glam::Vec3;

use super::{Mesh, MeshError};

/// A face statement that was not loaded as written, with its line number
/// (from 1), so that `info`, the CLI and the viewer can say what was left
/// out instead of loading a different mesh silently.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FaceProblem {
    pub line: usize,
    pub what: String,
}

impl std::fmt::Display for FaceProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.what)
    }
}

/// What a mesh file gave: its validated meshes, and (OBJ only) the face
/// statements that were dropped or may be cut off ([`FaceProblem`]).
pub struct LoadedFile {
    pub meshes: Vec<Mesh>,
    pub problems: Vec<FaceProblem>,
}

/// The whole file, or the `Io` error naming it: a regular file within the
/// mesh size limit ([`crate::io::read_input`]).
pub(super) fn read_file(path: &Path) -> Result<Vec<u8>, MeshError> {
    crate::io::read_input(path, crate::io::InputKind::Mesh).map_err(|err| MeshError::Io {
        path: path.display().to_string(),
        reason: err.reason(),
    })
}

/// The file's stem, the name of the mesh it gives.
pub(super) fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// Loads every object of the OBJ file at `path` as its own validated mesh.
pub fn load_obj(path: &Path) -> Result<Vec<Mesh>, MeshError> {
    load_obj_checked(path).map(|l| l.meshes)
}

/// [`load_obj`], with the face statements that were not loaded as written.
pub fn load_obj_checked(path: &Path) -> Result<LoadedFile, MeshError> {
    let bytes = read_file(path)?;
    obj_from_bytes(path, &bytes)
}

/// The OBJ file at `path`, already read as `bytes`.
pub(super) fn obj_from_bytes(path: &Path, bytes: &[u8]) -> Result<LoadedFile, MeshError> {
    let shown = path.display().to_string();
    let text = std::str::from_utf8(bytes).map_err(|err| MeshError::Parse {
        path: shown.clone(),
        format: "OBJ",
        reason: format!(
            "not UTF-8 text at byte {} (a binary file?)",
            err.valid_up_to()
        ),
    })?;
    let stem = stem(path);
    Ok(LoadedFile {
        meshes: parse_obj(&shown, &stem, text)?,
        problems: face_problems(text),
    })
}

/// Loads the OBJ file at `path` with all objects merged into one mesh named
/// after the file stem.
pub fn load_obj_merged(path: &Path) -> Result<Mesh, MeshError> {
    load_obj_merged_checked(path).map(|(mesh, _)| mesh)
}

/// [`load_obj_merged`], with the face statements that were not loaded as
/// written.
pub fn load_obj_merged_checked(path: &Path) -> Result<(Mesh, Vec<FaceProblem>), MeshError> {
    let loaded = load_obj_checked(path)?;
    Ok((Mesh::merge(&loaded.meshes, stem(path)), loaded.problems))
}

/// The face statements of `text` that are not loaded as written: a face of
/// fewer than three vertices (`tobj` drops it without a word), and a last
/// face that ends the file in the middle of a vertex (`f 1 2 3/`, the file
/// cut off). Lines count from 1, as an editor shows them; a lone CR ends a
/// line as LF does.
pub fn face_problems(text: &str) -> Vec<FaceProblem> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let numbered: Vec<(usize, &str)> = text
        .split('\n')
        .flat_map(|line| line.strip_suffix('\r').unwrap_or(line).split('\r'))
        .enumerate()
        .map(|(i, line)| (i + 1, line))
        .collect();
    let ends_in_line_break = text.ends_with(['\n', '\r']);
    let last_statement = numbered
        .iter()
        .rev()
        .find(|(_, l)| !l.trim().is_empty())
        .map(|&(n, _)| n);
    let mut problems = Vec::new();
    for &(number, line) in &numbered {
        let mut words = line.split_whitespace();
        if words.next() != Some("f") {
            continue;
        }
        let vertices: Vec<&str> = words.take_while(|w| !w.starts_with('#')).collect();
        if vertices.len() < 3 {
            problems.push(FaceProblem {
                line: number,
                what: format!(
                    "a face of {} vertices, left out (a face needs at least 3)",
                    vertices.len()
                ),
            });
        } else if Some(number) == last_statement
            && !ends_in_line_break
            && vertices.last().is_some_and(|v| v.ends_with('/'))
        {
            problems.push(FaceProblem {
                line: number,
                what: "the file ends in the middle of this face (cut off?)".into(),
            });
        }
    }
    problems
}

/// Parses OBJ `text` as if read from a file with stem `name` (meshes are
/// named `"name/object"`); errors name `name` as the path.
pub fn parse_obj_str(name: &str, text: &str) -> Result<Vec<Mesh>, MeshError> {
    parse_obj(name, name, text)
}

/// OBJ statements `tobj` understands; a text with none of them is not an OBJ.
const OBJ_KEYWORDS: [&str; 11] = [
    "v", "vt", "vn", "vp", "f", "l", "p", "o", "g", "usemtl", "mtllib",
];

fn parse_obj(path: &str, stem: &str, text: &str) -> Result<Vec<Mesh>, MeshError> {
    let parse_error = |reason: String| MeshError::Parse {
        path: path.to_string(),
        format: "OBJ",
        reason,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let unix;
    let text = if text.contains('\r') {
        unix = text.replace("\r\n", "\n").replace('\r', "\n");
        unix.as_str()
    } else {
        text
    };
    if text.contains('\0') {
        return Err(parse_error("contains NUL bytes (a binary file?)".into()));
    }
    let mut statements = text
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| !word.starts_with('#'))
        .peekable();
    if statements.peek().is_some() && !statements.any(|w| OBJ_KEYWORDS.contains(&w)) {
        return Err(parse_error("no OBJ statements (v, f, o, ...) found".into()));
    }

    // Fields behind tobj's optional features (merging, reordering) exist only
    // when some crate enables them, hence the otherwise needless update.
    #[allow(clippy::needless_update)]
    let options = tobj::LoadOptions {
        triangulate: false,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    let no_materials = |_: &Path| Err(tobj::LoadError::GenericFailure);
    let (models, _) = tobj::load_obj_buf(&mut Cursor::new(text), &options, no_materials).map_err(
        |err| match err {
            tobj::LoadError::FaceVertexOutOfBounds => {
                find_out_of_range_face(stem, text).unwrap_or_else(|| parse_error(err.to_string()))
            }
            other => parse_error(other.to_string()),
        },
    )?;

    let mut meshes: Vec<Mesh> = Vec::new();
    let mut previous_name: Option<String> = None;
    for model in models {
        // tobj names faces before any `o`/`g` "unnamed_object".
        let name = if model.name.is_empty() || model.name == "unnamed_object" {
            stem.to_string()
        } else {
            format!("{stem}/{}", model.name)
        };
        let positions: Vec<Vec3> = model
            .mesh
            .positions
            .chunks_exact(3)
            .map(|c| Vec3::new(c[0], c[1], c[2]))
            .collect();
        let triangles = triangulate(&model.mesh.indices, &model.mesh.face_arities);
        let part = Mesh::new(name.clone(), positions, triangles);
        // tobj starts a new model at every `usemtl`; join the parts of one group.
        match meshes.last_mut() {
            Some(last) if previous_name.as_deref() == Some(name.as_str()) => {
                *last = Mesh::merge(&[std::mem::take(last), part], name.clone());
            }
            _ => meshes.push(part),
        }
        previous_name = Some(name);
    }
    meshes.retain(|m| !m.triangles.is_empty());
    if meshes.is_empty() {
        return Err(MeshError::Empty {
            name: stem.to_string(),
        });
    }
    for mesh in &meshes {
        mesh.validate()?;
    }
    Ok(meshes)
}

/// Triangles of faces given as `indices` with `arities` (empty when every
/// face is a triangle), each polygon as a zigzag strip (see the module
/// docs).
pub(super) fn triangulate(indices: &[u32], arities: &[u32]) -> Vec<[u32; 3]> {
    if arities.is_empty() {
        return indices
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();
    }
    let mut triangles = Vec::with_capacity(indices.len());
    let mut start = 0;
    for &arity in arities {
        let n = arity as usize;
        let face = &indices[start..start + n];
        start += n;
        let order = strip_order(n);
        triangles.extend(order.windows(3).map(|w| {
            let mut corners = [w[0], w[1], w[2]];
            corners.sort_unstable();
            corners.map(|c| face[c])
        }));
    }
    triangles
}

/// The zigzag order `1, 2, 0, 3, n-1, 4, n-2, …` of an n-gon's corners: it
/// alternates between the chain `2, 3, 4, …` and the chain `0, n-1, n-2,
/// …`, so consecutive triples cover the polygon without overlap.
fn strip_order(n: usize) -> Vec<usize> {
    if n < 3 {
        return Vec::new();
    }
    let mut order = Vec::with_capacity(n);
    order.push(1);
    let (mut up, mut down) = (2, n);
    while order.len() < n {
        if order.len() % 2 == 1 {
            order.push(up);
            up += 1;
        } else {
            order.push(down % n);
            down -= 1;
        }
    }
    order
}

/// Finds the first face whose position index does not name a vertex, with
/// `tobj`'s rules: positive indices count from 1 over the whole file,
/// negative ones back from the vertices read so far.
fn find_out_of_range_face(stem: &str, text: &str) -> Option<MeshError> {
    let count = text
        .lines()
        .filter(|l| l.split_whitespace().next() == Some("v"))
        .count();
    let mut seen = 0usize;
    let mut face = 0usize;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => seen += 1,
            Some("f") => {
                for word in words {
                    let raw: i64 = word.split('/').next()?.parse().ok()?;
                    let (resolved, reachable) = if raw < 0 {
                        (seen as i64 + raw, seen)
                    } else {
                        (raw - 1, count)
                    };
                    if resolved < 0 || resolved >= reachable as i64 {
                        return Some(MeshError::IndexOutOfRange {
                            name: stem.to_string(),
                            triangle: face,
                            index: raw,
                            count: reachable,
                        });
                    }
                }
                face += 1;
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::MeshReport;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn asset(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets")
            .join(name)
    }

    /// Writes `bytes` to a fresh file in the temp dir and returns its path.
    fn temp_file(stem: &str, bytes: &[u8]) -> PathBuf {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "collidoscope-mesh-{}-{unique}-{stem}.obj",
            std::process::id()
        ));
        std::fs::write(&path, bytes).expect("write temp file");
        path
    }

    fn load_bytes(stem: &str, bytes: &[u8]) -> Result<Vec<Mesh>, MeshError> {
        let path = temp_file(stem, bytes);
        let result = load_obj(&path);
        std::fs::remove_file(&path).ok();
        result
    }

    const TRIANGLE: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";

    #[test]
    fn spot_is_closed_and_trusted() {
        let meshes = load_obj(&asset("spot.obj")).expect("spot loads");
        let spot = Mesh::merge(&meshes, "spot");
        assert_eq!(spot.triangles.len(), 5856);
        let report = MeshReport::analyze(&spot);
        assert!(report.closed, "{report}");
        assert!(report.consistently_oriented, "{report}");
        assert_eq!(report.connected_components, 1, "{report}");
        assert!(report.pseudo_normal_sign_trusted, "{report}");
    }

    #[test]
    fn teapot_and_bunny_are_open() {
        for name in ["teapot.obj", "stanford-bunny.obj"] {
            let mesh = load_obj_merged(&asset(name)).expect("loads");
            let report = MeshReport::analyze(&mesh);
            println!("{report}");
            assert!(report.boundary_edges > 0, "{name}");
            assert!(!report.pseudo_normal_sign_trusted, "{name}");
            assert!(
                report.warnings().iter().any(|w| w.starts_with("open mesh")),
                "{name}"
            );
        }
    }

    #[test]
    fn quads_and_polygons_are_triangulated() {
        let text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 1.5 0\nf 1 2 3 4\nf 4 3 5\n";
        let meshes = parse_obj_str("quad", text).expect("parses");
        assert_eq!(meshes.len(), 1);
        assert_eq!(meshes[0].name, "quad");
        assert_eq!(meshes[0].triangles.len(), 3);
        let pentagon = "v 0 0 0\nv 1 0 0\nv 1.5 1 0\nv 0.5 2 0\nv -0.5 1 0\nf 1/1/1 2/2/1 3/3/1 4/4/1 5/5/1\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0 0\nvn 0 0 1\n";
        let meshes = parse_obj_str("pentagon", pentagon).expect("parses");
        assert_eq!(meshes[0].triangles.len(), 3);
        assert_eq!(meshes[0].positions.len(), 5);
        assert!((0..3).all(|t| meshes[0].face_normal(t) == Vec3::Z));
    }

    #[test]
    fn objects_kept_apart_and_merged() {
        let text = format!(
            "o first\n{TRIANGLE}f 1 2 3\no second\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1\nf 4 5 6\nusemtl red\nf 5 7 6\n"
        );
        let path = temp_file("two", text.as_bytes());
        let meshes = load_obj(&path).expect("loads");
        let merged = load_obj_merged(&path).expect("loads merged");
        std::fs::remove_file(&path).ok();
        let stem = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        assert_eq!(meshes.len(), 2);
        assert_eq!(meshes[0].name, format!("{stem}/first"));
        assert_eq!(meshes[1].name, format!("{stem}/second"));
        assert_eq!(meshes[0].triangles.len(), 1);
        assert_eq!(meshes[1].triangles.len(), 2);
        assert_eq!(meshes[1].positions.len(), 4);
        assert_eq!(merged.name, stem);
        assert_eq!(merged.triangles.len(), 3);
        assert_eq!(merged.positions.len(), 7);
        assert!(merged.positions[3..].iter().all(|p| p.z == 1.0));
        merged.validate().expect("valid");
    }

    #[test]
    fn missing_file_is_io() {
        let path = std::env::temp_dir().join("collidoscope-mesh-does-not-exist.obj");
        assert!(matches!(load_obj(&path), Err(MeshError::Io { .. })));
        let dir = std::env::temp_dir();
        assert!(matches!(load_obj(&dir), Err(MeshError::Io { .. })));
    }

    #[test]
    fn binary_and_non_obj_files_are_parse_errors() {
        let png = include_bytes!("../../assets/README.md").len(); // any size works
        let mut garbage: Vec<u8> = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        let mut x = 0x1234_5678u32 ^ png as u32;
        garbage.extend((0..4096).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        }));
        assert!(matches!(
            load_bytes("png", &garbage),
            Err(MeshError::Parse { .. })
        ));
        // Valid UTF-8 but with NUL bytes.
        assert!(matches!(
            load_bytes("nul", b"v 0 0 0\0\0"),
            Err(MeshError::Parse { .. })
        ));
        // Text, but not an OBJ.
        let json = br#"{"positions": [0, 0, 0], "faces": [[1, 2, 3]]}"#;
        assert!(matches!(
            load_bytes("json", json),
            Err(MeshError::Parse { .. })
        ));
        // OBJ with a broken statement.
        let broken = format!("{TRIANGLE}v 1 two 3\nf 1 2 3\n");
        assert!(matches!(
            parse_obj_str("broken", &broken),
            Err(MeshError::Parse { .. })
        ));
        let bad_face = format!("{TRIANGLE}f 1 2 x\n");
        assert!(matches!(
            parse_obj_str("bad-face", &bad_face),
            Err(MeshError::Parse { .. })
        ));
    }

    #[test]
    fn no_triangles_is_empty() {
        assert!(matches!(
            load_bytes("empty", b""),
            Err(MeshError::Empty { .. })
        ));
        assert!(matches!(
            parse_obj_str("comments", "# nothing\n\n"),
            Err(MeshError::Empty { .. })
        ));
        assert!(matches!(
            parse_obj_str("points", TRIANGLE),
            Err(MeshError::Empty { .. })
        ));
        let lines = format!("{TRIANGLE}l 1 2\np 3\n");
        assert!(matches!(
            parse_obj_str("lines", &lines),
            Err(MeshError::Empty { .. })
        ));
    }

    #[test]
    fn out_of_range_index() {
        let text = format!("{TRIANGLE}f 1 2 3\nf 1 2 999\n");
        match parse_obj_str("far", &text) {
            Err(MeshError::IndexOutOfRange {
                name,
                triangle,
                index,
                count,
            }) => {
                assert_eq!((name.as_str(), triangle, index, count), ("far", 1, 999, 3));
            }
            other => panic!("expected IndexOutOfRange, got {other:?}"),
        }
        for text in [
            format!("{TRIANGLE}f 0 1 2\n"),
            format!("{TRIANGLE}f -4 1 2\n"),
        ] {
            assert!(
                matches!(
                    parse_obj_str("zero", &text),
                    Err(MeshError::IndexOutOfRange { triangle: 0, .. })
                ),
                "{text}"
            );
        }
        // Relative indices in range are fine.
        let relative = format!("{TRIANGLE}f -3 -2 -1\n");
        assert_eq!(
            parse_obj_str("rel", &relative).expect("parses")[0]
                .triangles
                .len(),
            1
        );
    }

    #[test]
    fn non_finite_coordinates() {
        for bad in ["nan", "inf", "-inf", "1e39"] {
            let text = format!("v 0 0 0\nv 1 {bad} 0\nv 0 1 0\nf 1 2 3\n");
            assert!(
                matches!(
                    parse_obj_str("nan", &text),
                    Err(MeshError::NonFinite { vertex: 1, .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn all_degenerate_object_is_rejected() {
        let text = "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n";
        assert!(matches!(
            parse_obj_str("flat", text),
            Err(MeshError::AllDegenerate { .. })
        ));
    }

    #[test]
    fn byte_order_mark_keeps_the_first_vertex() {
        let text = format!("\u{feff}{TRIANGLE}v 0 0 1\nf 1 2 3\nf 1 2 4\n");
        let meshes = parse_obj_str("bom", &text).expect("parses");
        assert_eq!(meshes[0].positions.len(), 4);
        assert_eq!(meshes[0].positions[0], Vec3::ZERO);
        assert_eq!(meshes[0].triangles, [[0, 1, 2], [0, 1, 3]]);
    }

    #[test]
    fn carriage_return_line_endings_are_read() {
        for newline in ["\r", "\r\n"] {
            let text = format!("{TRIANGLE}f 1 2 3\n").replace('\n', newline);
            let meshes = parse_obj_str("cr", &text).expect("parses");
            assert_eq!(meshes[0].positions.len(), 3, "{newline:?}");
            assert_eq!(meshes[0].triangles.len(), 1, "{newline:?}");
        }
    }

    #[test]
    fn each_bad_index_gets_its_own_message() {
        let message = |face: &str| {
            parse_obj_str("idx", &format!("{TRIANGLE}{face}\n"))
                .expect_err(face)
                .to_string()
        };
        assert_eq!(
            message("f 0 1 2"),
            "mesh 'idx': triangle 0 uses index 0, but OBJ indices count from 1"
        );
        assert_eq!(
            message("f -4 1 2"),
            "mesh 'idx': triangle 0 uses relative index -4, which points before the first vertex: only 3 vertices precede it"
        );
        assert_eq!(
            message("f 1 2 99999999999"),
            "mesh 'idx': triangle 0 uses vertex 99999999999, but there are only 3 vertices"
        );
    }

    #[test]
    fn polygons_become_strips_with_the_fan_for_quads() {
        assert_eq!(strip_order(3), [1, 2, 0]);
        assert_eq!(strip_order(6), [1, 2, 0, 3, 5, 4]);
        // A quad is split as tobj split it.
        assert_eq!(triangulate(&[7, 8, 9, 10], &[4]), [[7, 8, 9], [7, 9, 10]]);
        assert_eq!(
            triangulate(&[0, 1, 2, 3, 4, 5, 6], &[3, 4]),
            [[0, 1, 2], [3, 4, 5], [3, 5, 6]]
        );
        // Every corner of a hexagon is used, the area is covered once.
        let hexagon: Vec<Vec3> = (0..6)
            .map(|i| {
                let a = i as f32 * std::f32::consts::TAU / 6.0;
                Vec3::new(a.cos(), a.sin(), 0.0)
            })
            .collect();
        let mesh = Mesh::new("hex", hexagon, triangulate(&[0, 1, 2, 3, 4, 5], &[6]));
        let area: f32 = (0..4)
            .map(|t| {
                let [a, b, c] = mesh.corners(t);
                (b - a).cross(c - a).z / 2.0
            })
            .sum();
        assert!((area - 1.5 * 3f32.sqrt()).abs() < 1e-5, "{area}");
    }

    #[test]
    fn a_huge_polygon_loads_and_reports_in_near_linear_time() {
        let n = 100_000;
        let mut text = String::new();
        for i in 0..n {
            let a = i as f64 * std::f64::consts::TAU / n as f64;
            text += &format!("v {} {} 0\n", a.cos(), a.sin());
        }
        text += "f";
        for i in 1..=n {
            text += &format!(" {i}");
        }
        let mesh = Mesh::merge(&parse_obj_str("huge", &text).expect("parses"), "huge");
        assert_eq!(mesh.triangles.len(), n - 2);
        // With a fan every triangle box overlaps every other at the shared
        // corner, and this report's self-intersection pass took hours.
        let report = MeshReport::analyze(&mesh);
        assert!(report.boundary_edges == n, "{report}");
    }

    /// Dropped and cut-off faces are found with the line
    /// an editor shows, whatever the line endings; a clean file, and one
    /// whose last face simply lacks a line break, have none.
    #[test]
    fn face_problems_name_their_lines() {
        let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n# note\nf 1 2 3\nf 3\n";
        let lines: Vec<usize> = face_problems(text).iter().map(|p| p.line).collect();
        assert_eq!(lines, [4, 7]);
        let crlf = text.replace('\n', "\r\n");
        let lines: Vec<usize> = face_problems(&crlf).iter().map(|p| p.line).collect();
        assert_eq!(lines, [4, 7], "CRLF counts as one line end");
        let cut = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3/";
        let problems = face_problems(cut);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line, 6);
        assert!(problems[0].what.contains("cut off"), "{}", problems[0]);
        assert!(face_problems("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3").is_empty());
        assert!(face_problems("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 # a\n").is_empty());
    }
}
