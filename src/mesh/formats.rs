//! Mesh files by format: the one dispatch every loader goes through (`info`,
//! `sdf`, `check`, the viewer, drag and drop, Python's `load`), and the
//! readers of the formats other than OBJ.
//!
//! Which reader: the file's extension, any case (`.obj`, `.ply`, `.stl`,
//! `.off`); a file with another extension or none is recognised by its
//! first bytes (`ply`, `OFF`, a binary STL whose size matches its triangle
//! count, `solid … facet`), and read as OBJ otherwise.
//!
//! - **PLY** (ASCII, binary little and big endian) through `ply-rs-bw`: the
//!   `vertex` element's `x`, `y`, `z` (any numeric type) and the `face`
//!   element's `vertex_indices` (or `vertex_index`) list; other elements
//!   and properties (normals, colours) are ignored.
//! - **STL** (ASCII and binary) through `stl_io`. STL stores each triangle's
//!   three corners, no shared vertices; `stl_io` merges corners with
//!   bit-identical coordinates (and `-0.0` is made `0.0` first), so a closed
//!   surface is reported closed, as the same mesh from an OBJ is. A binary
//!   STL whose 80-byte header happens to start with `solid ` (many
//!   exporters write one) is read as binary when its size matches its
//!   triangle count; a binary file shorter than its count says is cut off.
//! - **OFF** through `off-rs`, without its size limits; vertex and face
//!   colours are ignored.
//!
//! Polygons of PLY and OFF are split into triangles as OBJ's are (a zigzag
//! strip, see the OBJ loader), and their vertices numbered in order of
//! first use, unused ones dropped, as the OBJ loader and STL give them: one
//! mesh in any format loads as the same vertices and triangles, so it has
//! one content hash (a field made from its OBJ checks against its PLY).
//! Each file gives one mesh named after the file stem, checked by
//! [`Mesh::validate`]; every failure is one [`MeshError`] line naming the
//! file and what is wrong.

use std::io::Cursor;
use std::path::Path;

use glam::Vec3;

use super::load::{obj_from_bytes, read_file, stem, triangulate};
use super::{FaceProblem, LoadedFile, Mesh, MeshError};

/// The mesh file formats collidoscope reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshFormat {
    Obj,
    Ply,
    Stl,
    Off,
}

/// The extensions (lower case, no dot) of every mesh format, for file
/// pickers and the viewer's dispatch.
pub const MESH_EXTENSIONS: [&str; 4] = ["obj", "ply", "stl", "off"];

impl MeshFormat {
    pub const ALL: [MeshFormat; 4] = [
        MeshFormat::Obj,
        MeshFormat::Ply,
        MeshFormat::Stl,
        MeshFormat::Off,
    ];

    /// The name in messages: `OBJ`, `PLY`, `STL`, `OFF`.
    pub fn name(self) -> &'static str {
        match self {
            MeshFormat::Obj => "OBJ",
            MeshFormat::Ply => "PLY",
            MeshFormat::Stl => "STL",
            MeshFormat::Off => "OFF",
        }
    }

    /// The extension (lower case, no dot).
    pub fn extension(self) -> &'static str {
        MESH_EXTENSIONS[self as usize]
    }

    /// The format of an extension (any case), if it is a mesh format's.
    pub fn from_extension(extension: &str) -> Option<MeshFormat> {
        Self::ALL
            .into_iter()
            .find(|f| f.extension().eq_ignore_ascii_case(extension))
    }

    /// The format of the file at `path` whose content is `bytes`: its
    /// extension's, else the one its first bytes show, else OBJ.
    pub fn of(path: &Path, bytes: &[u8]) -> MeshFormat {
        path.extension()
            .and_then(|e| e.to_str())
            .and_then(MeshFormat::from_extension)
            .unwrap_or_else(|| MeshFormat::sniff(bytes))
    }

    fn sniff(bytes: &[u8]) -> MeshFormat {
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(512)]);
        let first_word = head.split_whitespace().next().unwrap_or("");
        if first_word == "ply" {
            MeshFormat::Ply
        } else if first_word == "OFF" {
            MeshFormat::Off
        } else if binary_stl_size(bytes) == Some(bytes.len())
            || (first_word == "solid" && head.contains("facet"))
        {
            MeshFormat::Stl
        } else {
            MeshFormat::Obj
        }
    }
}

/// Loads the mesh file at `path` in its format ([`MeshFormat::of`]): an OBJ
/// gives one mesh per object, the other formats one mesh.
pub fn load_file(path: &Path) -> Result<LoadedFile, MeshError> {
    let bytes = read_file(path)?;
    let format = MeshFormat::of(path, &bytes);
    let parse_error = |reason: String| MeshError::Parse {
        path: path.display().to_string(),
        format: format.name(),
        reason,
    };
    let (positions, triangles) = match format {
        MeshFormat::Obj => return obj_from_bytes(path, &bytes),
        MeshFormat::Ply => read_ply(&bytes).map_err(parse_error)?,
        MeshFormat::Stl => read_stl(&bytes).map_err(parse_error)?,
        MeshFormat::Off => read_off(&bytes).map_err(parse_error)?,
    };
    let name = stem(path);
    if positions.is_empty() || triangles.is_empty() {
        return Err(MeshError::Empty { name });
    }
    let mesh = Mesh::new(name, positions, triangles);
    mesh.validate()?;
    Ok(LoadedFile {
        meshes: vec![mesh],
        problems: Vec::new(),
    })
}

/// [`load_file`] with all objects merged into one mesh named after the
/// file stem, and the OBJ face statements that were not loaded as written.
pub fn load_file_merged(path: &Path) -> Result<(Mesh, Vec<FaceProblem>), MeshError> {
    let loaded = load_file(path)?;
    Ok((Mesh::merge(&loaded.meshes, stem(path)), loaded.problems))
}

type Read = Result<(Vec<Vec3>, Vec<[u32; 3]>), String>;

/// The mesh of `positions` and polygons `faces` (index lists of at least
/// three): vertices renumbered in order of first use by the faces, unused
/// ones dropped (as the OBJ loader and STL give them, so one mesh in any
/// format has one content hash), polygons split into triangles.
fn polygon_mesh(positions: &[Vec3], faces: &[Vec<u32>]) -> Read {
    let mut new_index = vec![u32::MAX; positions.len()];
    let mut used = Vec::new();
    let mut indices = Vec::new();
    let mut arities = Vec::with_capacity(faces.len());
    for (number, face) in faces.iter().enumerate() {
        if face.len() < 3 {
            return Err(format!(
                "face {number} has {} vertices (a face needs at least 3)",
                face.len()
            ));
        }
        for &i in face {
            let slot = new_index.get_mut(i as usize).ok_or(format!(
                "face {number} uses vertex {i}, but there are only {} vertices",
                positions.len()
            ))?;
            if *slot == u32::MAX {
                *slot = used.len() as u32;
                used.push(positions[i as usize]);
            }
            indices.push(*slot);
        }
        arities.push(face.len() as u32);
    }
    Ok((used, triangulate(&indices, &arities)))
}

fn read_ply(bytes: &[u8]) -> Read {
    use ply_rs_bw::parser::Parser;
    use ply_rs_bw::ply::{DefaultElement, Property};
    let ply = Parser::<DefaultElement>::new()
        .read_ply(&mut Cursor::new(bytes))
        .map_err(|e| first_line(&e.to_string()))?;
    let vertices = ply
        .payload
        .get("vertex")
        .ok_or("it has no `vertex` element")?;
    let coordinate = |v: &DefaultElement, n: usize, axis: &str| -> Result<f32, String> {
        v.get(axis)
            .and_then(Property::to_f32_lossy)
            .ok_or(format!("vertex {n} has no number `{axis}`"))
    };
    let positions = vertices
        .iter()
        .enumerate()
        .map(|(n, v)| {
            Ok(Vec3::new(
                coordinate(v, n, "x")?,
                coordinate(v, n, "y")?,
                coordinate(v, n, "z")?,
            ))
        })
        .collect::<Result<Vec<Vec3>, String>>()?;
    let faces = ply.payload.get("face").ok_or("it has no `face` element")?;
    let lists = faces
        .iter()
        .enumerate()
        .map(|(n, f)| {
            f.get("vertex_indices")
                .or_else(|| f.get("vertex_index"))
                .and_then(Property::to_u32_list)
                .ok_or(format!(
                    "face {n} has no list `vertex_indices` of non-negative integers"
                ))
        })
        .collect::<Result<Vec<Vec<u32>>, String>>()?;
    polygon_mesh(&positions, &lists)
}

/// The size a binary STL of `bytes`' triangle count has, if it has a
/// header and a count at all.
fn binary_stl_size(bytes: &[u8]) -> Option<usize> {
    let count = u32::from_le_bytes(bytes.get(80..84)?.try_into().ok()?);
    Some(84 + 50 * count as usize)
}

fn read_stl(bytes: &[u8]) -> Read {
    let ascii = bytes.starts_with(b"solid ") && binary_stl_size(bytes) != Some(bytes.len());
    let mut data = bytes.to_vec();
    if !ascii {
        match binary_stl_size(bytes) {
            None => return Err("shorter than a binary STL's 84-byte header".into()),
            Some(size) if size > bytes.len() => {
                let count = (size - 84) / 50;
                let room = (bytes.len() - 84) / 50;
                return Err(format!(
                    "its header says {count} triangles, but the file ends after {room} (cut off?)"
                ));
            }
            Some(_) => {}
        }
        // `stl_io` takes a header starting with "solid " for ASCII.
        data[..5].copy_from_slice(b"     ");
    }
    let mut mesh =
        stl_io::read_stl(&mut Cursor::new(data)).map_err(|e| first_line(&e.to_string()))?;
    // -0.0 and 0.0 are one point: merge them as well.
    for v in &mut mesh.vertices {
        v.0 = v.0.map(|c| c + 0.0);
    }
    let mut first = std::collections::HashMap::new();
    let mut positions = Vec::new();
    let mut remap = Vec::with_capacity(mesh.vertices.len());
    for v in &mesh.vertices {
        let index = *first.entry(v.0.map(f32::to_bits)).or_insert_with(|| {
            positions.push(Vec3::from_array(v.0));
            positions.len() as u32 - 1
        });
        remap.push(index);
    }
    let triangles = mesh
        .faces
        .iter()
        .map(|f| f.vertices.map(|i| remap[i]))
        .collect();
    Ok((positions, triangles))
}

/// A reader's message, cut to its first line (the error is one line).
fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or("").trim().to_string()
}

fn read_off(bytes: &[u8]) -> Read {
    use off_rs::parser::options::{Limits, Options};
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text at byte {}", e.valid_up_to()))?;
    let options = Options {
        limits: Limits::MAX,
        ..Default::default()
    };
    let mesh = off_rs::parse(text, options).map_err(|e| match e {
        off_rs::Error::ParserError(p) => match std::error::Error::source(&p) {
            Some(why) => format!("line {}: {why}", p.line_index + 1),
            None => format!("line {}: {:?}", p.line_index + 1, p.kind),
        },
        other => other.to_string(),
    })?;
    let positions: Vec<Vec3> = mesh
        .vertices
        .iter()
        .map(|v| Vec3::new(v.position.x, v.position.y, v.position.z))
        .collect();
    let faces: Vec<Vec<u32>> = mesh
        .faces
        .iter()
        .map(|f| {
            f.vertices
                .iter()
                .map(|&i| u32::try_from(i).unwrap_or(u32::MAX))
                .collect()
        })
        .collect();
    polygon_mesh(&positions, &faces)
}
