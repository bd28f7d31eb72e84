//! Skinned glTF files made in a test: a strip of quads standing along y,
//! bound to a chain of bones, with one animation, written as GLB (the JSON
//! document and its binary chunk).

use glam::{Mat4, Quat, Vec3};
use serde_json::{Value, json};

/// A strip of `rows` rows of two vertices (y from 0 to 1) whose rows are
/// split evenly over a chain of `bones` bones (each vertex weighted 1 to
/// its row's bone), with an animation that turns the last bone: the JSON
/// document and its binary buffer.
pub fn strip(rows: usize, bones: usize) -> (Value, Vec<u8>) {
    assert!(rows >= 2 && bones >= 1);
    let mut bin: Vec<u8> = Vec::new();
    let view = |bin: &mut Vec<u8>, bytes: &[u8]| {
        let at = bin.len();
        bin.extend_from_slice(bytes);
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        json!({"buffer": 0, "byteOffset": at, "byteLength": bytes.len()})
    };
    let y = |r: usize| r as f32 / (rows - 1) as f32;
    let bone_of = |r: usize| (r * bones / rows) as u8;
    let positions: Vec<[f32; 3]> = (0..rows)
        .flat_map(|r| [[-0.1, y(r), 0.0], [0.1, y(r), 0.0]])
        .collect();
    let joints: Vec<[u8; 4]> = (0..rows).flat_map(|r| [[bone_of(r), 0, 0, 0]; 2]).collect();
    let weights = vec![[1.0f32, 0.0, 0.0, 0.0]; 2 * rows];
    let indices: Vec<u16> = (0..rows as u16 - 1)
        .flat_map(|r| {
            let (a, b, c, d) = (2 * r, 2 * r + 1, 2 * r + 2, 2 * r + 3);
            [a, b, d, a, d, c]
        })
        .collect();
    let bone_y = |b: usize| b as f32 / bones as f32;
    let inverse_binds: Vec<[f32; 16]> = (0..bones)
        .map(|b| Mat4::from_translation(-bone_y(b) * Vec3::Y).to_cols_array())
        .collect();
    let turn = Quat::from_rotation_z(1.0);
    let views = vec![
        view(&mut bin, bytemuck::cast_slice(&positions)),
        view(&mut bin, bytemuck::cast_slice(&joints)),
        view(&mut bin, bytemuck::cast_slice(&weights)),
        view(&mut bin, bytemuck::cast_slice(&indices)),
        view(&mut bin, bytemuck::cast_slice(&inverse_binds)),
        view(&mut bin, bytemuck::cast_slice(&[0.0f32, 1.0])),
        view(
            &mut bin,
            bytemuck::cast_slice(&[Quat::IDENTITY.to_array(), turn.to_array()]),
        ),
    ];
    let mut nodes: Vec<Value> = (0..bones)
        .map(|b| {
            let mut node = json!({"name": format!("bone{b}")});
            if b > 0 {
                node["translation"] = json!([0.0, 1.0 / bones as f32, 0.0]);
            }
            if b + 1 < bones {
                node["children"] = json!([b + 1]);
            }
            node
        })
        .collect();
    nodes.push(json!({"name": "strip", "mesh": 0, "skin": 0}));
    let document = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, bones]}],
        "nodes": nodes,
        "meshes": [{"name": "strip", "primitives": [{
            "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2},
            "indices": 3
        }]}],
        "skins": [{"joints": (0..bones).collect::<Vec<_>>(), "inverseBindMatrices": 4}],
        "animations": [{
            "name": "turn",
            "channels": [{"sampler": 0, "target": {"node": bones - 1, "path": "rotation"}}],
            "samplers": [{"input": 5, "output": 6, "interpolation": "LINEAR"}]
        }],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2 * rows, "type": "VEC3",
             "min": [-0.1, 0.0, 0.0], "max": [0.1, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5121, "count": 2 * rows, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 2 * rows, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5123, "count": indices.len(), "type": "SCALAR"},
            {"bufferView": 4, "componentType": 5126, "count": bones, "type": "MAT4"},
            {"bufferView": 5, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 6, "componentType": 5126, "count": 2, "type": "VEC4"}
        ]
    });
    (document, bin)
}

/// A GLB file of `document` and its binary chunk `bin`.
pub fn glb(document: &Value, bin: &[u8]) -> Vec<u8> {
    let pad = |mut bytes: Vec<u8>, with: u8| {
        while !bytes.len().is_multiple_of(4) {
            bytes.push(with);
        }
        bytes
    };
    let text = pad(document.to_string().into_bytes(), b' ');
    let bin = pad(bin.to_vec(), 0);
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}
