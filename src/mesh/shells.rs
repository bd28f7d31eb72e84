//! Orientation of closed shells, and duplicate faces.
//!
//! # Shells and which way they face
//!
//! A *shell* is a component of faces connected through shared edges whose
//! every edge has exactly two faces traversing it in opposite directions:
//! closed, manifold and consistently oriented. Its signed volume
//! `V = Σ a·(b × c) / 6` (divergence theorem, in f64, corners taken relative
//! to the mesh's bounding-box centre so that far-away meshes keep their
//! digits) is positive when its faces point outward.
//!
//! Shells nest: shell B lies inside shell A when A's exact winding number at
//! a vertex of B is ±1 (|w| > ½). A shell enclosed by no other is
//! *outermost*. An outermost shell with `V < 0` **faces inward**: its
//! inside has winding number −1. We flip it, together with every shell it
//! encloses (a nest is oriented relative to its outer shell: a cavity, a
//! shell with `V < 0` inside one with `V > 0`, stays a cavity; a shell inside
//! a shell with both `V > 0` stays doubly inside, as the winding number
//! says). Flipping rather than refusing: a closed, consistently oriented
//! shell's orientation is fixed by the sign of its volume, so the flip is
//! unambiguous, and it makes the pseudo-normal sign agree with the winding
//! sign (inside where |w| > ½), which needs no flip; refusing would leave
//! real scans exported inside-out unusable without an outside tool.
//!
//! # Duplicate faces
//!
//! Faces with the same three vertices (after welding) are duplicates. Two
//! copies wound opposite ways cancel exactly in the winding number (their
//! solid angles are opposite), so [`cancel_duplicates`] removes such pairs,
//! and keeps one copy of faces repeated with the same winding (the surface
//! is there once). Pseudo-normals and winding numbers are then computed on
//! the same, duplicate-free set of faces, and agree.

use super::fast_hash::FastMap;
use super::{Mesh, Topology};
use crate::geom::{Aabb, winding_number_exact};

/// One closed, manifold, consistently oriented component.
#[derive(Clone, Debug)]
pub struct Shell {
    /// Faces of the shell (indices into the mesh it was found in).
    pub faces: Vec<u32>,
    /// Signed volume; negative when the faces point inward.
    pub signed_volume: f64,
    /// Outermost with negative volume, or enclosed by such a shell: flipping
    /// these makes every outermost shell face outward.
    pub flip: bool,
}

/// Whether triangle `tri` runs along edge `[lo, hi]` from `lo` to `hi`.
pub(super) fn runs_forward(tri: [u32; 3], [lo, hi]: [u32; 2]) -> bool {
    (0..3).any(|k| tri[k] == lo && tri[(k + 1) % 3] == hi)
}

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        parent[x as usize] = parent[parent[x as usize] as usize];
        x = parent[x as usize];
    }
    x
}

/// The closed shells of `mesh` (see the module docs), with their volumes and
/// which of them to flip.
pub fn closed_shells(mesh: &Mesh, topo: &Topology) -> Vec<Shell> {
    let n = mesh.triangles.len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    // A component is a shell until one of its edges says otherwise.
    let mut good = vec![true; n];
    let mut bad_faces = Vec::new();
    for e in 0..topo.num_edges() {
        let faces = topo.edge_faces(e);
        if let &[f, g] = faces {
            let edge = topo.edge_vertices(e);
            let forward = |t: u32| runs_forward(mesh.triangles[t as usize], edge);
            let (rf, rg) = (find(&mut parent, f), find(&mut parent, g));
            parent[rf as usize] = rg;
            if forward(f) == forward(g) {
                bad_faces.push(f);
            }
        } else {
            for &f in faces {
                let rf = find(&mut parent, f);
                let rg = find(&mut parent, faces[0]);
                parent[rf as usize] = rg;
            }
            bad_faces.push(faces[0]);
        }
    }
    for f in bad_faces {
        let r = find(&mut parent, f);
        good[r as usize] = false;
    }
    let mut by_root: FastMap<u32, usize> = FastMap::default();
    let mut shells: Vec<Shell> = Vec::new();
    for t in 0..n as u32 {
        let r = find(&mut parent, t);
        if !good[r as usize] {
            continue;
        }
        let s = *by_root.entry(r).or_insert_with(|| {
            shells.push(Shell {
                faces: Vec::new(),
                signed_volume: 0.0,
                flip: false,
            });
            shells.len() - 1
        });
        shells[s].faces.push(t);
    }
    let centre = mesh.bounds().center().as_dvec3();
    let corners =
        |t: u32| mesh.triangles[t as usize].map(|v| mesh.positions[v as usize].as_dvec3() - centre);
    for shell in &mut shells {
        shell.signed_volume = shell
            .faces
            .iter()
            .map(|&t| {
                let [a, b, c] = corners(t);
                a.dot(b.cross(c)) / 6.0
            })
            .sum();
    }
    mark_flips(mesh, &mut shells);
    shells
}

/// Sets [`Shell::flip`]: outermost shells facing inward and all they enclose.
fn mark_flips(mesh: &Mesh, shells: &mut [Shell]) {
    let bounds: Vec<Aabb> = shells
        .iter()
        .map(|s| {
            s.faces.iter().fold(Aabb::EMPTY, |b, &t| {
                b.union(Aabb::of_triangle(mesh.corners(t as usize)))
            })
        })
        .collect();
    let probe = |s: &Shell| mesh.positions[mesh.triangles[s.faces[0] as usize][0] as usize];
    let triangles = |s: &Shell| -> Vec<[u32; 3]> {
        s.faces
            .iter()
            .map(|&t| mesh.triangles[t as usize])
            .collect()
    };
    // encloses[a] = shells inside shell a.
    let encloses: Vec<Vec<usize>> = (0..shells.len())
        .map(|a| {
            let mut tris = None;
            (0..shells.len())
                .filter(|&b| {
                    let p = probe(&shells[b]);
                    b != a && bounds[a].contains(p) && {
                        let tris = tris.get_or_insert_with(|| triangles(&shells[a]));
                        winding_number_exact(&mesh.positions, tris, p).abs() > 0.5
                    }
                })
                .collect()
        })
        .collect();
    let mut enclosed = vec![false; shells.len()];
    for inner in encloses.iter().flatten() {
        enclosed[*inner] = true;
    }
    for a in 0..shells.len() {
        if !enclosed[a] && shells[a].signed_volume < 0.0 {
            shells[a].flip = true;
            for &b in &encloses[a] {
                shells[b].flip = true;
            }
        }
    }
}

/// How [`cancel_duplicates`] changed a face list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Duplicates {
    /// Faces beyond the first with the same vertex set.
    pub faces: usize,
    /// Pairs wound opposite ways, removed because they cancel.
    pub opposite_pairs: usize,
}

/// The vertex set of `tri`, sorted, and whether `tri` winds like it
/// (an even permutation of the sorted order).
fn canonical(tri: [u32; 3]) -> ([u32; 3], bool) {
    let mut key = tri;
    key.sort_unstable();
    let even = [0, 1, 2]
        .iter()
        .any(|&k| [tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]] == key);
    (key, even)
}

/// The faces sharing one vertex set: how many, the first of each winding
/// (`[odd, even]`) and the net count (even minus odd).
#[derive(Default)]
struct Group {
    copies: usize,
    first: [Option<usize>; 2],
    net: i64,
}

/// Removes opposite-wound pairs of duplicate faces and keeps one copy of the
/// remaining duplicates (module docs). Returns the indices of the faces kept,
/// in their original order, and the counts.
pub fn cancel_duplicates(triangles: &[[u32; 3]]) -> (Vec<usize>, Duplicates) {
    let mut groups: FastMap<[u32; 3], Group> = FastMap::default();
    for (t, &tri) in triangles.iter().enumerate() {
        let (key, even) = canonical(tri);
        let group = groups.entry(key).or_default();
        group.copies += 1;
        group.first[usize::from(even)].get_or_insert(t);
        group.net += if even { 1 } else { -1 };
    }
    let mut counts = Duplicates::default();
    let mut keep = Vec::with_capacity(groups.len());
    for Group { copies, first, net } in groups.into_values() {
        counts.faces += copies - 1;
        counts.opposite_pairs += (copies - net.unsigned_abs() as usize) / 2;
        match net.signum() {
            1 => keep.extend(first[1]),
            -1 => keep.extend(first[0]),
            _ => {}
        }
    }
    keep.sort_unstable();
    (keep, counts)
}

/// One face of each group of duplicates that cancels completely (as many
/// faces wound one way as the other, [`cancel_duplicates`] keeps none of
/// it): the first of the group, in face order. Such faces add nothing to
/// the winding number but are still surface: the distance keeps them.
pub fn cancelled_faces(triangles: &[[u32; 3]]) -> Vec<usize> {
    let mut groups: FastMap<[u32; 3], (usize, i64)> = FastMap::default();
    for (t, &tri) in triangles.iter().enumerate() {
        let (key, even) = canonical(tri);
        let group = groups.entry(key).or_insert((t, 0));
        group.1 += if even { 1 } else { -1 };
    }
    let mut out: Vec<usize> = groups
        .into_values()
        .filter(|&(_, net)| net == 0)
        .map(|(first, _)| first)
        .collect();
    out.sort_unstable();
    out
}

/// `tri` wound the other way.
pub fn reversed([a, b, c]: [u32; 3]) -> [u32; 3] {
    [a, c, b]
}
