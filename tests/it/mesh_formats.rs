//! Mesh files other than OBJ: PLY (ASCII, binary little and big endian),
//! STL (ASCII, binary), OFF. Each test writes one mesh in every format,
//! loads them through the one loader every command uses
//! ([`collidoscope::mesh::load_file_merged`]) and compares with the same
//! mesh as OBJ: the same vertices and triangles, the same report, and from
//! the CLI the same `info` text and the same `sdf` values. Broken files
//! (cut off, wrong header, bad indices) give one clean error line naming
//! the file and its format.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use collidoscope::mesh::{Mesh, MeshReport, load_file_merged};
use glam::Vec3;

use crate::common::cli::{run_err, run_ok};
use crate::common::mesh_files::{obj, off, ply_ascii, ply_binary, stl_ascii, stl_binary};

/// `mesh` with its vertices renumbered in order of first use by its
/// triangles: the order an STL file (corners only) gives back.
fn first_use_order(mesh: &Mesh) -> Mesh {
    let mut new_index = HashMap::new();
    let mut positions = Vec::new();
    let triangles = mesh
        .triangles
        .iter()
        .map(|t| {
            t.map(|i| {
                *new_index.entry(i).or_insert_with(|| {
                    positions.push(mesh.positions[i as usize]);
                    positions.len() as u32 - 1
                })
            })
        })
        .collect();
    Mesh::new(mesh.name.clone(), positions, triangles)
}

/// Every format of `m`, as (file name, bytes); all files have the stem
/// `stem`, so the meshes are named alike.
fn every_format(m: &Mesh, stem: &str) -> Vec<(String, Vec<u8>)> {
    vec![
        (format!("{stem}.obj"), obj(m)),
        (format!("{stem}.ply"), ply_ascii(m)),
        (format!("{stem}.PLY"), ply_binary(m, false)),
        (format!("{stem}.Ply"), ply_binary(m, true)),
        (format!("{stem}.stl"), stl_ascii(m)),
        (format!("{stem}.STL"), stl_binary(m, "binary")),
        (
            format!("{stem}.Stl"),
            stl_binary(m, "solid written as binary"),
        ),
        (format!("{stem}.off"), off(m)),
    ]
}

/// Writes each file in its own folder of `dir` (names differ only in case).
fn write_all(dir: &Path, files: &[(String, Vec<u8>)]) -> Vec<PathBuf> {
    files
        .iter()
        .enumerate()
        .map(|(n, (name, bytes))| {
            let sub = dir.join(n.to_string());
            std::fs::create_dir_all(&sub).unwrap();
            let path = sub.join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        })
        .collect()
}

#[test]
fn every_format_loads_the_same_mesh_and_report() {
    let dir = crate::common::scratch("mesh-formats-same");
    // A closed sphere: STL's corners must be welded back for it to report
    // closed, as its OBJ does.
    let sphere = first_use_order(&collidoscope::mesh::uv_sphere(8, 12));
    let paths = write_all(&dir, &every_format(&sphere, "sphere"));
    let (reference, _) = load_file_merged(&paths[0]).expect("the OBJ loads");
    let reference_report = MeshReport::analyze(&reference);
    assert!(reference_report.closed, "{reference_report}");
    for path in &paths[1..] {
        let (mesh, problems) =
            load_file_merged(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(problems.is_empty());
        assert_eq!(mesh.name, "sphere", "{}", path.display());
        assert_eq!(mesh.positions, reference.positions, "{}", path.display());
        assert_eq!(mesh.triangles, reference.triangles, "{}", path.display());
        assert_eq!(
            MeshReport::analyze(&mesh).to_string(),
            reference_report.to_string(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn polygons_and_other_extensions_load_as_obj_does() {
    let dir = crate::common::scratch("mesh-formats-polygons");
    // A cube of quads, and a pentagon: split into triangles as OBJ's are.
    let corners = [
        [0, 0, 0],
        [1, 0, 0],
        [1, 1, 0],
        [0, 1, 0],
        [0, 0, 1],
        [1, 0, 1],
        [1, 1, 1],
        [0, 1, 1],
    ];
    let quads = [
        [0, 3, 2, 1],
        [4, 5, 6, 7],
        [0, 1, 5, 4],
        [2, 3, 7, 6],
        [1, 2, 6, 5],
        [0, 4, 7, 3],
    ];
    let mut obj_text = String::new();
    let mut off_text = format!("OFF\n{} {} 0\n", corners.len(), quads.len());
    let mut ply_text = format!(
        "ply\nformat ascii 1.0\nelement vertex {}\nproperty double x\nproperty double y\nproperty double z\nelement face {}\nproperty list uchar uint vertex_index\nend_header\n",
        corners.len(),
        quads.len()
    );
    for [x, y, z] in corners {
        obj_text += &format!("v {x} {y} {z}\n");
        off_text += &format!("{x} {y} {z}\n");
        ply_text += &format!("{x} {y} {z}\n");
    }
    for q in quads {
        obj_text += &format!("f {} {} {} {}\n", q[0] + 1, q[1] + 1, q[2] + 1, q[3] + 1);
        off_text += &format!("4 {} {} {} {}\n", q[0], q[1], q[2], q[3]);
        ply_text += &format!("4 {} {} {} {}\n", q[0], q[1], q[2], q[3]);
    }
    let files = vec![
        ("cube.obj".to_string(), obj_text.into_bytes()),
        ("cube.off".to_string(), off_text.into_bytes()),
        ("cube.ply".to_string(), ply_text.clone().into_bytes()),
        // No known extension: recognised by its first bytes.
        ("cube.scan".to_string(), ply_text.into_bytes()),
    ];
    let paths = write_all(&dir, &files);
    let (reference, _) = load_file_merged(&paths[0]).unwrap();
    assert_eq!(reference.triangles.len(), 12);
    assert!(MeshReport::analyze(&reference).closed);
    for path in &paths[1..] {
        let (mesh, _) = load_file_merged(path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mesh.positions, reference.positions, "{}", path.display());
        assert_eq!(mesh.triangles, reference.triangles, "{}", path.display());
    }
}

/// `info` prints the same report, and `sdf` writes the same values, for
/// the mesh in any format.
#[test]
fn cli_info_and_sdf_agree_across_formats() {
    let dir = crate::common::scratch("mesh-formats-cli");
    let sphere = first_use_order(&collidoscope::mesh::uv_sphere(6, 10));
    let files = every_format(&sphere, "ball");
    let picked: Vec<(String, Vec<u8>)> = [0, 2, 5, 7].map(|i| files[i].clone()).to_vec();
    let paths = write_all(&dir, &picked);
    let mut infos = Vec::new();
    let mut fields = Vec::new();
    for (n, path) in paths.iter().enumerate() {
        let shown = path.display().to_string();
        infos.push(run_ok(&["info", &shown]).replace(&shown, "MESH"));
        let out = dir.join(format!("field{n}.npy"));
        let out_shown = out.display().to_string();
        run_ok(&[
            "sdf",
            &shown,
            "--res",
            "12",
            "--backend",
            "cpu",
            "--no-cache",
            "--out",
            &out_shown,
        ]);
        fields.push(std::fs::read(&out).unwrap());
    }
    assert!(infos[0].contains("closed"), "{}", infos[0]);
    for n in 1..paths.len() {
        assert_eq!(infos[n], infos[0], "{}", paths[n].display());
        assert!(
            fields[n] == fields[0],
            "{}: other values",
            paths[n].display()
        );
    }
}

#[test]
fn broken_files_are_one_clear_error() {
    let dir = crate::common::scratch("mesh-formats-broken");
    let tri = Mesh::new(
        "t",
        vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        vec![[0, 1, 2], [0, 2, 1]],
    );
    let binary_stl = stl_binary(&tri, "binary");
    let binary_ply = ply_binary(&tri, false);
    let bad_index = String::from_utf8(off(&tri))
        .unwrap()
        .replace("3 0 2 1", "3 0 2 7");
    let cases: Vec<(&str, Vec<u8>, &[&str])> = vec![
        (
            "cut.stl",
            binary_stl[..binary_stl.len() - 20].to_vec(),
            &["STL", "2 triangles", "ends after 1"],
        ),
        ("short.stl", b"tiny".to_vec(), &["STL", "84-byte header"]),
        (
            "cut.ply",
            binary_ply[..binary_ply.len() - 6].to_vec(),
            &["PLY"],
        ),
        (
            "header.ply",
            b"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n0\n1\n2\n"
                .to_vec(),
            &["PLY", "`y`"],
        ),
        (
            "noface.ply",
            b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n"
                .to_vec(),
            &["PLY", "no `face` element"],
        ),
        ("index.off", bad_index.into_bytes(), &["vertex 7", "3 vertices"]),
        (
            "cut.off",
            b"OFF\n3 1 0\n0 0 0\n1 0 0\n".to_vec(),
            &["OFF", "line 5"],
        ),
        (
            "cut.stl.ascii.stl",
            b"solid x\nfacet normal 0 0 1\n outer loop\n vertex 0 0 0\n vertex 1 0".to_vec(),
            &["STL"],
        ),
    ];
    for (name, bytes, words) in cases {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();
        let shown = path.display().to_string();
        let err = run_err(&["info", &shown]);
        assert!(
            err.contains(name) || words.iter().any(|w| w.starts_with("vertex")),
            "{name}: {err}"
        );
        for word in words {
            assert!(err.contains(word), "{name}: expected {word:?} in {err}");
        }
    }
}
