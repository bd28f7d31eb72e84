//! The marching-cubes case table, derived here from the cube's geometry
//! rather than typed in (Lorensen & Cline 1987 enumerate the 256 cases by
//! hand; every case follows from the rule below).
//!
//! # Numbering
//!
//! Corner `c` of a cube is at offset `(c & 1, c >> 1 & 1, c >> 2 & 1)`
//! cells. Edge `4a + k` runs along axis `a` from the corner with bit `a`
//! clear (and the other two bits those of `k`, low axis first) to the one
//! with it set. The case of a cube is the set of its corners *inside*
//! (value < level) as bits.
//!
//! # The rule
//!
//! On each of the six faces the level set crosses the face's edges that
//! join an inside and an outside corner: two crossings (one segment) or
//! four. With four, the face is ambiguous (inside corners on one
//! diagonal): its segments cut off each inside corner, so the outside
//! connects across the face. The decision depends on the face's corners
//! alone, so the two cubes sharing a face cut it alike and the surface has
//! no cracks: a field whose level set is closed gives a closed surface.
//! Every crossed edge lies on two faces, so the segments chain into closed
//! loops; each loop becomes a fan of triangles. Segments are directed so
//! that every triangle's normal (counter-clockwise winding) points to the
//! outside, towards larger values (the gradient of a signed distance).

use std::sync::LazyLock;

use glam::Vec3;

/// The most triangles one cube emits (the table's width; checked below).
pub const MAX_TRIANGLES: usize = 5;

/// Words per case in the table the GPU reads: the triangle count, then
/// three edge indices per triangle.
pub const CASE_WORDS: usize = 1 + 3 * MAX_TRIANGLES;

/// The two corners of every edge (lower corner first).
pub fn edge_corners(edge: usize) -> (usize, usize) {
    let axis = edge / 4;
    let k = edge % 4;
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let (lo_u, lo_v) = (u.min(v), u.max(v));
    let c = ((k & 1) << lo_u) | ((k >> 1) << lo_v);
    (c, c | 1 << axis)
}

/// The edge joining corners `a` and `b` (neighbours on the cube).
fn edge_between(a: usize, b: usize) -> usize {
    (0..12)
        .find(|&e| {
            let (p, q) = edge_corners(e);
            (p, q) == (a.min(b), a.max(b))
        })
        .expect("cube corners that differ in one bit")
}

fn corner_position(c: usize) -> Vec3 {
    Vec3::new((c & 1) as f32, (c >> 1 & 1) as f32, (c >> 2 & 1) as f32)
}

fn edge_midpoint(e: usize) -> Vec3 {
    let (a, b) = edge_corners(e);
    0.5 * (corner_position(a) + corner_position(b))
}

/// The triangles of every case: edge indices, three per triangle.
pub fn triangles(case: u8) -> &'static [[u8; 3]] {
    &TABLE[case as usize]
}

static TABLE: LazyLock<Vec<Vec<[u8; 3]>>> =
    LazyLock::new(|| (0..=255u8).map(case_triangles).collect());

/// The table as the GPU reads it: [`CASE_WORDS`] words per case.
pub fn gpu_words() -> Vec<u32> {
    let mut words = vec![0u32; 256 * CASE_WORDS];
    for (case, tris) in TABLE.iter().enumerate() {
        let row = &mut words[case * CASE_WORDS..(case + 1) * CASE_WORDS];
        row[0] = tris.len() as u32;
        for (slot, e) in row[1..].iter_mut().zip(tris.iter().flatten()) {
            *slot = *e as u32;
        }
    }
    words
}

/// The directed segments of one face (axis `a`, side `s`) for a case.
fn face_segments(case: u8, axis: usize, side: usize) -> Vec<(usize, usize)> {
    let inside = |c: usize| case >> c & 1 == 1;
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    // The face's corners around its rim: (0,0) (1,0) (1,1) (0,1) in (u, v).
    let base = side << axis;
    let rim = [base, base | 1 << u, base | 1 << u | 1 << v, base | 1 << v];
    let crossed: Vec<usize> = (0..4)
        .filter(|&i| inside(rim[i]) != inside(rim[(i + 1) % 4]))
        .collect();
    let edge = |i: usize| edge_between(rim[i], rim[(i + 1) % 4]);
    let outward = {
        let mut n = Vec3::ZERO;
        n[axis] = if side == 1 { 1.0 } else { -1.0 };
        n
    };
    // Pairs of crossed rim edges joined by a segment, with the side each
    // segment's gradient points to.
    let pairs: Vec<(usize, usize, Vec3)> = match crossed.len() {
        0 => Vec::new(),
        2 => {
            let (a, b) = (crossed[0], crossed[1]);
            let centre = |cs: Vec<usize>| {
                cs.iter().map(|&c| corner_position(c)).sum::<Vec3>() / cs.len() as f32
            };
            let outside_corners: Vec<usize> = rim.iter().copied().filter(|&c| !inside(c)).collect();
            let inside_corners: Vec<usize> = rim.iter().copied().filter(|&c| inside(c)).collect();
            let up = centre(outside_corners) - centre(inside_corners);
            vec![(edge(a), edge(b), up)]
        }
        _ => {
            // Ambiguous: cut off each inside corner (rim i, between rim
            // edges i − 1 and i).
            (0..4)
                .filter(|&i| inside(rim[i]))
                .map(|i| {
                    let (a, b) = (edge((i + 3) % 4), edge(i));
                    let mid = 0.5 * (edge_midpoint(a) + edge_midpoint(b));
                    (a, b, mid - corner_position(rim[i]))
                })
                .collect()
        }
    };
    // Counter-clockwise seen from the gradient: the polygon (inside the
    // cube, along −outward) lies to the left of the segment.
    pairs
        .into_iter()
        .map(|(a, b, up)| {
            let d = edge_midpoint(b) - edge_midpoint(a);
            if up.cross(d).dot(outward) < 0.0 {
                (a, b)
            } else {
                (b, a)
            }
        })
        .collect()
}

fn case_triangles(case: u8) -> Vec<[u8; 3]> {
    let mut segments: Vec<(usize, usize)> = (0..3)
        .flat_map(|axis| (0..2).flat_map(move |side| face_segments(case, axis, side)))
        .collect();
    let mut out = Vec::new();
    while let Some((start, mut at)) = segments.pop() {
        let mut lp = vec![start];
        while at != start {
            lp.push(at);
            let next = segments
                .iter()
                .position(|&(a, _)| a == at)
                .expect("every crossed edge starts one segment");
            at = segments.swap_remove(next).1;
        }
        for i in 1..lp.len() - 1 {
            out.push([lp[0], lp[i], lp[i + 1]].map(|e| e as u8));
        }
    }
    out
}
