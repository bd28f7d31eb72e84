//! A glTF 2.0 file (`.glb`, `.gltf`) as one static triangle mesh, for the
//! stages that take any mesh (fields, queries, collisions) rather than a
//! skinned character ([`super::gltf`] reads those).
//!
//! **What is read.** Every node of the default scene (the first scene, or
//! every root node when the file has no scene) that has a mesh, each mesh
//! placed by its node's world transform (the product of the node's and
//! its ancestors' matrices or TRS), its triangle primitives (POSITION,
//! indices or none) merged in node order. A skinned mesh is read in its
//! bind pose, without its node's transform, as the specification
//! requires. Points and lines are skipped; a primitive without positions,
//! an index beyond its vertices or a count of indices that is not a whole
//! number of triangles is refused with the mesh named. Buffers are read as
//! [`super::gltf`] reads them (the GLB chunk, `data:` base64 URIs, files
//! beside the `.gltf`).

use std::path::Path;

use glam::{Mat4, Vec3};

use super::gltf::{GltfError, buffers, parse_checked, triangle_primitive};
use crate::mesh::Mesh;

/// Loads the glTF file at `path` as one mesh named after the file.
pub fn load_gltf_mesh(path: &Path) -> Result<Mesh, GltfError> {
    let bytes = crate::io::read_input(path, crate::io::InputKind::Gltf)?;
    mesh_from_slice(&path.display().to_string(), &bytes, path.parent())
}

/// [`load_gltf_mesh`] from memory; external buffers are looked up in `dir`.
pub fn mesh_from_slice(name: &str, bytes: &[u8], dir: Option<&Path>) -> Result<Mesh, GltfError> {
    let file = parse_checked(bytes)?;
    let buffers = buffers(&file, dir)?;
    let doc = &file.document;
    let get = |b: ::gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);
    let roots: Vec<::gltf::Node<'_>> = match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(scene) => scene.nodes().collect(),
        None => {
            let children: Vec<usize> = doc
                .nodes()
                .flat_map(|n| n.children().map(|c| c.index()))
                .collect();
            doc.nodes()
                .filter(|n| !children.contains(&n.index()))
                .collect()
        }
    };
    let mut placed = Vec::new();
    let mut stack: Vec<(::gltf::Node<'_>, Mat4)> = roots
        .into_iter()
        .rev()
        .map(|n| (n, Mat4::IDENTITY))
        .collect();
    while let Some((node, parent)) = stack.pop() {
        let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        if let Some(mesh) = node.mesh() {
            let at = if node.skin().is_some() {
                Mat4::IDENTITY
            } else {
                world
            };
            placed.push((mesh, at));
        }
        stack.extend(
            node.children()
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .map(|c| (c, world)),
        );
    }
    let mut positions: Vec<Vec3> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    for (mesh, world) in placed {
        let mesh_name = mesh.name().unwrap_or("unnamed").to_string();
        for (primitive, p) in mesh.primitives().enumerate() {
            if p.mode() != ::gltf::mesh::Mode::Triangles {
                continue;
            }
            let r = p.reader(get);
            let base = positions.len() as u32;
            let (local, primitive_triangles) = triangle_primitive(&r, &mesh_name, primitive, base)?;
            triangles.extend(primitive_triangles);
            positions.extend(local.into_iter().map(|v| world.transform_point3(v)));
        }
    }
    if triangles.is_empty() {
        return Err(GltfError::NoTriangles {
            mesh: name.to_string(),
        });
    }
    Ok(Mesh::new(name, positions, triangles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skinned_character_loads_as_its_bind_pose_mesh() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/CesiumMan.glb");
        let mesh = load_gltf_mesh(&path).expect("CesiumMan.glb");
        let character = super::super::gltf::load_gltf(&path)
            .expect("character")
            .character;
        assert_eq!(mesh.positions, character.rest);
        assert_eq!(mesh.triangles, character.triangles);
    }
}
