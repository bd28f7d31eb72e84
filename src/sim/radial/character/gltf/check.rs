//! The document checked before anything walks it: the `gltf` crate's own
//! validation, and what it leaves unchecked and the loader relies on:
//!
//! * every primitive's POSITION accessor exists (the crate's validation
//!   indexes it unchecked, and panics), before that validation runs;
//! * every animation channel's target node exists (the crate checks the
//!   channel's sampler but not its node, and panics when it is followed);
//! * every buffer view lies in its buffer and every accessor's elements in
//!   its view, in checked arithmetic (the crate's readers compute those
//!   ranges unchecked: a count of 0, or one whose bytes overflow, panics
//!   there); sparse accessors are refused (no file the loader reads needs
//!   them);
//! * the nodes form a forest, as the specification requires: no node is
//!   the child of two nodes, and no node is its own ancestor (a node that
//!   lists itself as a child, or any longer cycle, would make the
//!   skeleton's walk from the roots go round for ever).

use super::GltfError;

/// Refuses a document the loader cannot walk safely (module docs).
pub(super) fn check_document(doc: &::gltf::Document) -> Result<(), GltfError> {
    use ::gltf::json::validation::{Checked, Validate};
    let json = doc.as_json();
    let accessors = json.accessors.len();
    for (m, mesh) in json.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let position = ::gltf::json::mesh::Semantic::Positions;
            if let Some(a) = primitive.attributes.get(&Checked::Valid(position))
                && a.value() >= accessors
            {
                return Err(GltfError::Parse(format!(
                    "meshes[{m}].primitives[{p}]: POSITION is accessor {}, the file has {accessors}",
                    a.value()
                )));
            }
        }
    }
    let mut invalid = None;
    json.validate(json, ::gltf::json::Path::new, &mut |path, error| {
        invalid.get_or_insert_with(|| format!("{}: {error}", path()));
    });
    if let Some(why) = invalid {
        return Err(GltfError::Parse(why));
    }
    check_ranges(json)?;
    let nodes = json.nodes.len();
    for a in &json.animations {
        for (channel, c) in a.channels.iter().enumerate() {
            let node = c.target.node.value();
            if node >= nodes {
                return Err(GltfError::Channel {
                    animation: a.name.clone().unwrap_or_else(|| "unnamed".into()),
                    channel,
                    why: format!("it targets node {node}, the file has {nodes}"),
                });
            }
        }
    }
    let mut parent: Vec<Option<usize>> = vec![None; nodes];
    for (n, node) in json.nodes.iter().enumerate() {
        for c in node.children.iter().flatten() {
            let c = c.value();
            if c == n {
                return Err(GltfError::Nodes(format!("node {n} is its own child")));
            }
            if let Some(p) = parent[c] {
                return Err(GltfError::Nodes(format!(
                    "node {c} is a child of both node {p} and node {n}"
                )));
            }
            parent[c] = Some(n);
        }
    }
    // With one parent each, a cycle is a walk up that never reaches a root.
    for start in 0..nodes {
        let mut at = start;
        for _ in 0..=nodes {
            match parent[at] {
                Some(p) if p == start => {
                    return Err(GltfError::Nodes(format!(
                        "node {start} is its own ancestor (a cycle through its children)"
                    )));
                }
                Some(p) => at = p,
                None => break,
            }
        }
    }
    Ok(())
}

/// Every buffer view in its buffer, every accessor's elements in its view
/// (module docs). Runs after the crate's validation: indices are in range.
fn check_ranges(json: &::gltf::json::Root) -> Result<(), GltfError> {
    use ::gltf::json::validation::Checked;
    for (v, view) in json.buffer_views.iter().enumerate() {
        let buffer = json.buffers[view.buffer.value()].byte_length.0;
        let end = view
            .byte_offset
            .map_or(0, |o| o.0)
            .checked_add(view.byte_length.0);
        if end.is_none_or(|end| end > buffer) {
            return Err(GltfError::Parse(format!(
                "bufferViews[{v}]: its bytes end beyond its buffer's {buffer}"
            )));
        }
    }
    for (a, accessor) in json.accessors.iter().enumerate() {
        let bad = |why: String| GltfError::Parse(format!("accessors[{a}]: {why}"));
        if accessor.sparse.is_some() {
            return Err(bad("sparse accessors are not read".into()));
        }
        let count = accessor.count.0;
        if count == 0 {
            return Err(bad("its count is 0".into()));
        }
        let (Checked::Valid(component), Checked::Valid(kind), Some(view)) = (
            &accessor.component_type,
            &accessor.type_,
            accessor.buffer_view,
        ) else {
            continue;
        };
        let element = (component.0.size() * kind.multiplicity()) as u64;
        let view = &json.buffer_views[view.value()];
        let stride = view.byte_stride.map_or(element, |s| s.0 as u64);
        let end = (count - 1)
            .checked_mul(stride)
            .and_then(|n| n.checked_add(element))
            .and_then(|n| n.checked_add(accessor.byte_offset.map_or(0, |o| o.0)));
        if end.is_none_or(|end| end > view.byte_length.0) {
            return Err(bad(format!(
                "{count} elements of {element} bytes do not fit its buffer view of {}",
                view.byte_length.0
            )));
        }
    }
    Ok(())
}
