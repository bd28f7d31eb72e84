//! glTF 2.0 skinned characters (`.glb`, `.gltf`) through the `gltf` crate,
//! mapped into [`Character`] so that skinning, field fitting and the viewer
//! work on them unchanged.
//!
//! **What is read.** The first node that has both a mesh and a skin (in
//! node order). Its mesh's triangle primitives are joined into one vertex
//! list (POSITION, JOINTS_0, WEIGHTS_0, indices or none); primitives that
//! are points or lines are skipped. The skeleton is the skin's joints *and
//! every ancestor of a joint* (an ancestor's transform, e.g. CesiumMan's
//! `Z_UP` rotation, moves the joints below it), ordered parents first; an
//! ancestor that is not a joint keeps an identity inverse bind matrix and
//! carries no vertex. Joint rest transforms are the nodes' TRS; inverse
//! bind matrices come from the skin (identity where the skin has none, as
//! the specification says). The mesh node's own transform is ignored, as
//! the specification requires for skinned meshes. The first animation
//! becomes the looping clip: its translation, rotation and scale channels
//! on skeleton nodes, with LINEAR or STEP interpolation; channels on other
//! nodes and morph-target weights do not move the skin and are dropped.
//!
//! **Choices and refusals.** JOINTS_0 may be u8 or u16 and WEIGHTS_0
//! float or normalised u8/u16; weights are renormalised to sum to 1. A
//! second influence set (JOINTS_1/WEIGHTS_1, more than four weights) is
//! ignored — the four of set 0 are renormalised — and counted in
//! [`Loaded::ignored_influences`]. CUBICSPLINE channels are refused with
//! the animation and channel named (playing them would need tangents that
//! [`super::animation`] does not keep). A file without a skinned mesh, a
//! primitive without positions, joints or weights, a vertex whose weights
//! sum to zero, a buffer that is missing or short, an animation channel on
//! a node that does not exist, or nodes that are not a forest (a node with
//! two parents, a cycle) is refused with a message that names it. Buffers may be the GLB binary chunk, `data:`
//! base64 URIs, or files beside the `.gltf`.

mod check;

use std::path::Path;

use ::gltf::animation::Interpolation as GltfInterpolation;
use ::gltf::animation::util::ReadOutputs;
use ::gltf::buffer::Source;
use glam::{Mat4, Quat, Vec3};

use super::animation::{Channel, Clip, Interpolation, Keys};
use super::skeleton::{Joint, Skeleton, Trs};
use super::skinning::Skin;
use super::{Character, CharacterError};

/// Why a glTF file does not give a character.
#[derive(Debug, thiserror::Error)]
pub enum GltfError {
    #[error(transparent)]
    Read(#[from] crate::io::InputError),
    #[error("not a valid glTF 2.0 file: {0}")]
    Parse(String),
    #[error(
        "no node has a skinned mesh (a mesh and a skin); load it as an OBJ for a rigid character"
    )]
    NoSkin,
    #[error("buffer {buffer}: {why}")]
    Buffer { buffer: usize, why: String },
    #[error("mesh '{mesh}' primitive {primitive} has no {attribute}")]
    MissingAttribute {
        mesh: String,
        primitive: usize,
        attribute: &'static str,
    },
    #[error("mesh '{mesh}' has no triangle primitive")]
    NoTriangles { mesh: String },
    #[error("mesh '{mesh}' primitive {primitive}: {why}")]
    Primitive {
        mesh: String,
        primitive: usize,
        why: String,
    },
    #[error("vertex {vertex}: its four skin weights sum to {sum}")]
    Weights { vertex: usize, sum: f32 },
    #[error("skin '{skin}': {why}")]
    Skin { skin: String, why: String },
    #[error(
        "animation '{animation}' channel {channel}: CUBICSPLINE interpolation is not supported (LINEAR and STEP are)"
    )]
    CubicSpline { animation: String, channel: usize },
    #[error("animation '{animation}' channel {channel}: {why}")]
    Channel {
        animation: String,
        channel: usize,
        why: String,
    },
    #[error("node hierarchy: {0}")]
    Nodes(String),
    #[error(transparent)]
    Character(#[from] CharacterError),
}

/// A loaded character and what was left out of it.
#[derive(Debug)]
pub struct Loaded {
    pub character: Character,
    /// The skin's own joints (the skeleton adds their ancestors).
    pub skin_joints: usize,
    /// Vertices with a second influence set (JOINTS_1/WEIGHTS_1) that was
    /// ignored.
    pub ignored_influences: usize,
}

/// Loads the glTF (`.gltf` or `.glb`) file at `path`.
pub fn load_gltf(path: &Path) -> Result<Loaded, GltfError> {
    let bytes = crate::io::read_input(path, crate::io::InputKind::Gltf)?;
    let name = path
        .file_stem()
        .map_or("gltf".into(), |s| s.to_string_lossy().into_owned());
    from_slice(&name, &bytes, path.parent())
}

/// Parses a glTF document and checks it ([`check::check_document`]: index
/// ranges, node cycles, accessor bounds) before anything walks it.
pub(super) fn parse_checked(bytes: &[u8]) -> Result<::gltf::Gltf, GltfError> {
    let file = ::gltf::Gltf::from_slice_without_validation(bytes)
        .map_err(|e| GltfError::Parse(e.to_string()))?;
    check::check_document(&file.document)?;
    Ok(file)
}

/// Loads a glTF file from memory; external buffers are looked up in
/// `dir`.
pub fn from_slice(name: &str, bytes: &[u8], dir: Option<&Path>) -> Result<Loaded, GltfError> {
    let file = parse_checked(bytes)?;
    let buffers = buffers(&file, dir)?;
    let doc = &file.document;
    let (mesh, skin) = doc
        .nodes()
        .find_map(|n| Some((n.mesh()?, n.skin()?)))
        .ok_or(GltfError::NoSkin)?;
    let get = |b: ::gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);

    let (skeleton, skeleton_of_node) = skeleton(doc, &skin, get)?;
    let skin_joint: Vec<u32> = skin
        .joints()
        .map(|j| {
            skeleton_of_node
                .get(j.index())
                .copied()
                .flatten()
                .map(|b| b as u32)
                .ok_or_else(|| GltfError::Skin {
                    skin: skin.name().unwrap_or("unnamed").to_string(),
                    why: format!("joint node {} is not in its skeleton", j.index()),
                })
        })
        .collect::<Result<_, _>>()?;

    let mesh_name = mesh.name().unwrap_or("unnamed").to_string();
    let mut rest = Vec::new();
    let mut triangles = Vec::new();
    let mut weights_skin = Skin::default();
    let mut ignored_influences = 0;
    for (primitive, p) in mesh.primitives().enumerate() {
        if p.mode() != ::gltf::mesh::Mode::Triangles {
            continue;
        }
        let missing = |attribute| GltfError::MissingAttribute {
            mesh: mesh_name.clone(),
            primitive,
            attribute,
        };
        let r = p.reader(get);
        let (positions, primitive_triangles) =
            triangle_primitive(&r, &mesh_name, primitive, rest.len() as u32)?;
        let joints: Vec<[u16; 4]> = r
            .read_joints(0)
            .ok_or(missing("JOINTS_0"))?
            .into_u16()
            .collect();
        let weights: Vec<[f32; 4]> = r
            .read_weights(0)
            .ok_or(missing("WEIGHTS_0"))?
            .into_f32()
            .collect();
        if joints.len() != positions.len() || weights.len() != positions.len() {
            return Err(GltfError::Primitive {
                mesh: mesh_name.clone(),
                primitive,
                why: format!(
                    "{} positions, {} joints, {} weights",
                    positions.len(),
                    joints.len(),
                    weights.len()
                ),
            });
        }
        if r.read_weights(1).is_some() {
            ignored_influences += positions.len();
        }
        triangles.extend(primitive_triangles);
        for (j, w) in joints.iter().zip(&weights) {
            let vertex = weights_skin.joints.len();
            let sum: f32 = w.iter().sum();
            if !(sum > 0.0 && sum.is_finite()) {
                return Err(GltfError::Weights { vertex, sum });
            }
            let mut mapped = [0u32; 4];
            for k in 0..4 {
                if w[k] == 0.0 {
                    continue;
                }
                mapped[k] = *skin_joint.get(j[k] as usize).ok_or(GltfError::Primitive {
                    mesh: mesh_name.clone(),
                    primitive,
                    why: format!(
                        "vertex {vertex} names skin joint {}, the skin has {}",
                        j[k],
                        skin_joint.len()
                    ),
                })?;
            }
            weights_skin.joints.push(mapped);
            weights_skin.weights.push(w.map(|x| x / sum));
        }
        rest.extend(positions);
    }
    if triangles.is_empty() {
        return Err(GltfError::NoTriangles { mesh: mesh_name });
    }
    let clip = match doc.animations().next() {
        Some(a) => Some(clip(&a, &skeleton_of_node, get)?),
        None => None,
    };
    let character = Character::new(name, skeleton, rest, triangles, weights_skin, clip)?;
    Ok(Loaded {
        character,
        skin_joints: skin_joint.len(),
        ignored_influences,
    })
}

/// A triangle primitive's positions and its triangles (consecutive
/// vertices where it has no indices), numbered from `base`: an index
/// beyond the positions or a count that is not a whole number of
/// triangles is refused.
pub(super) fn triangle_primitive<'a, 's, F>(
    r: &::gltf::mesh::Reader<'a, 's, F>,
    mesh: &str,
    primitive: usize,
    base: u32,
) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), GltfError>
where
    F: Clone + Fn(::gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    let positions: Vec<Vec3> = r
        .read_positions()
        .ok_or_else(|| GltfError::MissingAttribute {
            mesh: mesh.to_string(),
            primitive,
            attribute: "POSITION",
        })?
        .map(Vec3::from)
        .collect();
    let count = positions.len() as u32;
    let indices: Vec<u32> = match r.read_indices() {
        Some(i) => i.into_u32().collect(),
        None => (0..count).collect(),
    };
    let bad = |why: String| GltfError::Primitive {
        mesh: mesh.to_string(),
        primitive,
        why,
    };
    if !indices.len().is_multiple_of(3) {
        return Err(bad(format!(
            "{} indices is not a whole number of triangles",
            indices.len()
        )));
    }
    if let Some(i) = indices.iter().find(|&&i| i >= count) {
        return Err(bad(format!("index {i} is beyond its {count} vertices")));
    }
    let triangles = indices
        .chunks_exact(3)
        .map(|t| [base + t[0], base + t[1], base + t[2]])
        .collect();
    Ok((positions, triangles))
}

/// Every buffer's bytes, checked against its declared length.
pub(super) fn buffers(file: &::gltf::Gltf, dir: Option<&Path>) -> Result<Vec<Vec<u8>>, GltfError> {
    file.document
        .buffers()
        .map(|b| {
            let buffer = b.index();
            let bad = |why: String| GltfError::Buffer { buffer, why };
            let data = match b.source() {
                Source::Bin => file
                    .blob
                    .clone()
                    .ok_or(bad("the GLB binary chunk is missing".into()))?,
                Source::Uri(uri) => match uri.strip_prefix("data:") {
                    Some(data) => {
                        let (_, encoded) = data
                            .split_once(";base64,")
                            .ok_or(bad("only base64 data URIs are read".into()))?;
                        base64_decode(encoded).ok_or(bad("bad base64 in the data URI".into()))?
                    }
                    None => {
                        let path = dir.unwrap_or(Path::new(".")).join(uri);
                        crate::io::read_input(&path, crate::io::InputKind::Gltf)
                            .map_err(|e| bad(e.to_string()))?
                    }
                },
            };
            if data.len() < b.length() {
                return Err(bad(format!(
                    "{} bytes, but it declares {}",
                    data.len(),
                    b.length()
                )));
            }
            Ok(data)
        })
        .collect()
}

/// Standard base64 (RFC 4648, padding optional).
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = text
        .trim_end_matches('=')
        .bytes()
        .map(value)
        .collect::<Option<_>>()?;
    if digits.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let bits = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &d)| acc | (d as u32) << (18 - 6 * i));
        out.extend_from_slice(&bits.to_be_bytes()[1..chunk.len()]);
    }
    Some(out)
}

/// The skin's joints and their ancestors, parents first, and for every
/// node its skeleton index (if it is in the skeleton).
fn skeleton<'s>(
    doc: &::gltf::Document,
    skin: &::gltf::Skin<'_>,
    get: impl Clone + Fn(::gltf::Buffer<'_>) -> Option<&'s [u8]>,
) -> Result<(Skeleton, Vec<Option<usize>>), GltfError> {
    let nodes = doc.nodes().len();
    let mut parent = vec![None; nodes];
    for n in doc.nodes() {
        for c in n.children() {
            parent[c.index()] = Some(n.index());
        }
    }
    let mut wanted = vec![false; nodes];
    for j in skin.joints() {
        let mut at = Some(j.index());
        while let Some(n) = at.filter(|&n| !wanted[n]) {
            wanted[n] = true;
            at = parent[n];
        }
    }
    let skin_name = skin.name().unwrap_or("unnamed").to_string();
    let inverse_binds: Vec<Mat4> = match skin.reader(get).read_inverse_bind_matrices() {
        Some(m) => m.map(|m| Mat4::from_cols_array_2d(&m)).collect(),
        None => vec![Mat4::IDENTITY; skin.joints().len()],
    };
    if inverse_binds.len() < skin.joints().len() {
        return Err(GltfError::Skin {
            skin: skin_name,
            why: format!(
                "{} inverse bind matrices for {} joints",
                inverse_binds.len(),
                skin.joints().len()
            ),
        });
    }
    let mut inverse_bind = vec![Mat4::IDENTITY; nodes];
    for (j, m) in skin.joints().zip(inverse_binds) {
        inverse_bind[j.index()] = m;
    }
    // Depth first from the roots: parents come before children.
    let mut order = Vec::new();
    let mut stack: Vec<usize> = (0..nodes)
        .rev()
        .filter(|&n| wanted[n] && parent[n].is_none())
        .collect();
    let node_list: Vec<_> = doc.nodes().collect();
    while let Some(n) = stack.pop() {
        order.push(n);
        let children: Vec<usize> = node_list[n].children().map(|c| c.index()).collect();
        stack.extend(children.into_iter().rev().filter(|&c| wanted[c]));
    }
    let mut index = vec![None; nodes];
    for (i, &n) in order.iter().enumerate() {
        index[n] = Some(i);
    }
    let joints = order
        .iter()
        .map(|&n| {
            let node = &node_list[n];
            let (t, r, s) = node.transform().decomposed();
            Joint {
                name: node.name().map_or(format!("node {n}"), ToString::to_string),
                parent: parent[n].and_then(|p| index[p]),
                rest: Trs {
                    translation: Vec3::from(t),
                    rotation: Quat::from_array(r).normalize(),
                    scale: Vec3::from(s),
                },
                inverse_bind: inverse_bind[n],
            }
        })
        .collect();
    Ok((Skeleton { joints }, index))
}

/// The animation's channels on skeleton nodes as a looping clip.
fn clip<'s>(
    a: &::gltf::Animation<'_>,
    skeleton_of_node: &[Option<usize>],
    get: impl Clone + Fn(::gltf::Buffer<'_>) -> Option<&'s [u8]>,
) -> Result<Clip, GltfError> {
    let animation = a.name().unwrap_or("unnamed").to_string();
    let mut channels = Vec::new();
    for (channel, c) in a.channels().enumerate() {
        let Some(joint) = skeleton_of_node[c.target().node().index()] else {
            continue;
        };
        let interpolation = match c.sampler().interpolation() {
            GltfInterpolation::Linear => Interpolation::Linear,
            GltfInterpolation::Step => Interpolation::Step,
            GltfInterpolation::CubicSpline => {
                return Err(GltfError::CubicSpline { animation, channel });
            }
        };
        let bad = |why: &str| GltfError::Channel {
            animation: animation.clone(),
            channel,
            why: why.into(),
        };
        let r = c.reader(get.clone());
        let times: Vec<f32> = r
            .read_inputs()
            .ok_or(bad("its keyframe times cannot be read"))?
            .collect();
        let keys = match r
            .read_outputs()
            .ok_or(bad("its keyframe values cannot be read"))?
        {
            ReadOutputs::Translations(v) => Keys::Translation(v.map(Vec3::from).collect()),
            ReadOutputs::Rotations(v) => Keys::Rotation(
                v.into_f32()
                    .map(|q| Quat::from_array(q).normalize())
                    .collect(),
            ),
            ReadOutputs::Scales(v) => Keys::Scale(v.map(Vec3::from).collect()),
            ReadOutputs::MorphTargetWeights(_) => continue,
        };
        channels.push(Channel {
            joint,
            times,
            keys,
            interpolation,
        });
    }
    Ok(Clip {
        name: animation,
        channels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn base64_encode(bytes: &[u8]) -> String {
        const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let bits = chunk
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, &b)| acc | (b as u32) << (16 - 8 * i));
            for i in 0..=chunk.len() {
                out.push(ABC[(bits >> (18 - 6 * i) & 63) as usize] as char);
            }
        }
        out
    }

    /// A two-joint arm: a quad whose top edge (y = 1) follows joint 1 at
    /// (0, 1, 0), which turns 90° about z between t = 0 and t = 1. Joints
    /// are u8, weights normalised u8, indices u16 — the packed formats.
    fn arm(interpolation: &str) -> Value {
        let mut bin: Vec<u8> = Vec::new();
        let positions = [
            [-0.1f32, 0.0, 0.0],
            [0.1, 0.0, 0.0],
            [-0.1, 1.0, 0.0],
            [0.1, 1.0, 0.0],
        ];
        for p in positions {
            bin.extend(bytemuck::cast_slice(&p));
        }
        bin.extend([0u8, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
        bin.extend([255u8, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0]);
        bin.extend(bytemuck::cast_slice(&[0u16, 1, 3, 0, 3, 2]));
        let ibm = [Mat4::IDENTITY, Mat4::from_translation(-Vec3::Y)];
        for m in ibm {
            bin.extend(bytemuck::cast_slice(&m.to_cols_array()));
        }
        bin.extend(bytemuck::cast_slice(&[0.0f32, 1.0]));
        let turn = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        bin.extend(bytemuck::cast_slice(&[
            Quat::IDENTITY.to_array(),
            turn.to_array(),
        ]));
        let views = [
            (0, 48),
            (48, 16),
            (64, 16),
            (80, 12),
            (92, 128),
            (220, 8),
            (228, 32),
        ];
        json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": [0, 2]}],
            "nodes": [
                {"name": "shoulder", "children": [1]},
                {"name": "elbow", "translation": [0.0, 1.0, 0.0]},
                {"name": "arm", "mesh": 0, "skin": 0}
            ],
            "meshes": [{"name": "arm", "primitives": [{
                "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2},
                "indices": 3
            }]}],
            "skins": [{"joints": [0, 1], "inverseBindMatrices": 4}],
            "animations": [{
                "name": "wave",
                "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}],
                "samplers": [{"input": 5, "output": 6, "interpolation": interpolation}]
            }],
            "buffers": [{
                "byteLength": bin.len(),
                "uri": format!("data:application/octet-stream;base64,{}", base64_encode(&bin))
            }],
            "bufferViews": views.iter().map(|&(o, l)| json!({"buffer": 0, "byteOffset": o, "byteLength": l})).collect::<Vec<_>>(),
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
                 "min": [-0.1, 0.0, 0.0], "max": [0.1, 1.0, 0.0]},
                {"bufferView": 1, "componentType": 5121, "count": 4, "type": "VEC4"},
                {"bufferView": 2, "componentType": 5121, "normalized": true, "count": 4, "type": "VEC4"},
                {"bufferView": 3, "componentType": 5123, "count": 6, "type": "SCALAR"},
                {"bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4"},
                {"bufferView": 5, "componentType": 5126, "count": 2, "type": "SCALAR",
                 "min": [0.0], "max": [1.0]},
                {"bufferView": 6, "componentType": 5126, "count": 2, "type": "VEC4"}
            ]
        })
    }

    fn load(file: &Value) -> Result<Loaded, GltfError> {
        from_slice("arm", file.to_string().as_bytes(), None)
    }

    #[test]
    fn a_packed_skin_loads_and_its_animation_moves_the_top() {
        let c = load(&arm("LINEAR")).unwrap().character;
        assert_eq!(c.skeleton.joints.len(), 2);
        assert_eq!(c.skeleton.joints[1].name, "elbow");
        assert_eq!(c.skin.joints[2][0], 1);
        assert_eq!(c.skin.weights[2], [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(c.triangles, vec![[0, 1, 3], [0, 3, 2]]);
        let bind = c.skinned(&c.pose(0.0));
        assert!(
            bind[3].abs_diff_eq(Vec3::new(0.1, 1.0, 0.0), 1e-6),
            "{}",
            bind[3]
        );
        // Half way: 45° about the elbow at (0, 1, 0).
        let half = c.skinned(&c.pose(0.5));
        let r = std::f32::consts::FRAC_1_SQRT_2 * 0.1;
        assert!(
            half[3].abs_diff_eq(Vec3::new(r, 1.0 + r, 0.0), 1e-5),
            "{}",
            half[3]
        );
        assert!(
            half[1].abs_diff_eq(Vec3::new(0.1, 0.0, 0.0), 1e-6),
            "the base stays"
        );
        let step = load(&arm("STEP")).unwrap().character;
        let held = step.skinned(&step.pose(0.5));
        assert!(
            held[3].abs_diff_eq(bind[3], 1e-6),
            "STEP holds: {}",
            held[3]
        );
    }

    #[test]
    fn bad_files_are_refused_by_name() {
        let e = load(&arm("CUBICSPLINE")).unwrap_err();
        assert!(
            matches!(&e, GltfError::CubicSpline { animation, channel: 0 } if animation == "wave"),
            "{e}"
        );
        let mut no_skin = arm("LINEAR");
        no_skin["nodes"][2].as_object_mut().unwrap().remove("skin");
        assert!(matches!(load(&no_skin), Err(GltfError::NoSkin)));
        let mut no_weights = arm("LINEAR");
        no_weights["meshes"][0]["primitives"][0]["attributes"]
            .as_object_mut()
            .unwrap()
            .remove("WEIGHTS_0");
        let e = load(&no_weights).unwrap_err();
        assert!(
            matches!(
                e,
                GltfError::MissingAttribute {
                    attribute: "WEIGHTS_0",
                    primitive: 0,
                    ..
                }
            ),
            "{e}"
        );
        let mut short = arm("LINEAR");
        short["buffers"][0]["byteLength"] = json!(4000);
        let e = load(&short).unwrap_err();
        assert!(matches!(e, GltfError::Buffer { buffer: 0, .. }), "{e}");
        assert!(matches!(
            from_slice("x", b"not gltf", None),
            Err(GltfError::Parse(_))
        ));
    }

    #[test]
    fn missing_animation_targets_and_node_cycles_are_refused() {
        let mut far = arm("LINEAR");
        far["animations"][0]["channels"][0]["target"]["node"] = json!(50);
        let e = load(&far).unwrap_err().to_string();
        assert!(
            e.contains("channel 0: it targets node 50, the file has 3"),
            "{e}"
        );
        let mut own_child = arm("LINEAR");
        own_child["nodes"][1]["children"] = json!([1]);
        let e = load(&own_child).unwrap_err().to_string();
        assert!(e.contains("node 1 is its own child"), "{e}");
        let mut cycle = arm("LINEAR");
        cycle["nodes"][1]["children"] = json!([0]);
        let e = load(&cycle).unwrap_err().to_string();
        assert!(e.contains("is its own ancestor"), "{e}");
        let mut two_parents = arm("LINEAR");
        two_parents["nodes"][2]["children"] = json!([1]);
        let e = load(&two_parents).unwrap_err().to_string();
        assert!(
            e.contains("node 1 is a child of both node 0 and node 2"),
            "{e}"
        );
    }

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(base64_decode("TWFu").unwrap(), b"Man");
        assert_eq!(base64_decode("TWE=").unwrap(), b"Ma");
        assert_eq!(base64_decode("TQ==").unwrap(), b"M");
        assert_eq!(base64_decode("").unwrap(), b"");
        assert!(base64_decode("T").is_none());
        assert!(base64_decode("T*==").is_none());
    }
}
