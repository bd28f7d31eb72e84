//! What the viewport draws for the adaptive scene.
//!
//! Node centres go to the cell sprites as `[x, y, z, value]`, so the colour
//! map, colour range, point size, inside/outside and clip-plane filters of
//! the uniform field apply as they are. The sprites are listed with the
//! node each one shows ([`NodeCells::nodes`]), which turns a click on a
//! sprite into a node. Boxes are line lists, 12 edges per cell.

use glam::Vec3;

use crate::stages::adaptive::{AdaptiveField, NONE, OctreeNode, RssBvh, RssNode};
use crate::stages::sdf::SdfField;
use crate::view::{ClipPlane, LineVertex, srgb_to_linear};

/// Most boxes drawn at once: all levels of a depth-10 bunny are ~300K
/// cells, 7M line vertices, more than a software rasteriser keeps
/// interactive.
pub const MAX_BOXES: usize = 100_000;

/// One colour per depth 0..=10 (sRGB), neighbours far apart on the wheel
/// and muted, so the boxes stay behind the points' distance colours.
const LEVEL_PALETTE: [[u8; 3]; 11] = [
    [150, 150, 150],
    [120, 120, 200],
    [200, 110, 110],
    [100, 170, 200],
    [200, 170, 80],
    [110, 190, 120],
    [170, 120, 200],
    [90, 140, 210],
    [210, 140, 90],
    [160, 190, 90],
    [150, 110, 190],
];

/// The sRGB colour of the boxes of `depth` (for the panel's swatches).
pub fn level_color_srgb(depth: u32) -> [u8; 3] {
    LEVEL_PALETTE[depth as usize % LEVEL_PALETTE.len()]
}

/// The linear RGBA colour of the boxes of `depth`.
pub fn level_color(depth: u32) -> [f32; 4] {
    let [r, g, b] = level_color_srgb(depth).map(srgb_to_linear);
    [r, g, b, 1.0]
}

/// Sprites and the node each shows ([`NONE`] for a uniform-grid cell).
#[derive(Default)]
pub struct NodeCells {
    pub cells: Vec<[f32; 4]>,
    pub nodes: Vec<u32>,
}

impl NodeCells {
    fn push(&mut self, p: [f32; 3], value: f32, node: u32) {
        self.cells.push([p[0], p[1], p[2], value]);
        self.nodes.push(node);
    }
}

fn on_level(n: &OctreeNode, level: Option<u32>) -> bool {
    level.is_none_or(|l| n.depth == l)
}

/// The node centres of `level` (all levels for `None`) coloured by value.
pub fn node_cells(field: &AdaptiveField, level: Option<u32>) -> NodeCells {
    let mut out = NodeCells::default();
    for (i, (n, &v)) in field.octree.nodes.iter().zip(&field.values).enumerate() {
        if on_level(n, level) {
            out.push(n.center, v, i as u32);
        }
    }
    out
}

/// A plane splitting the view: `dot(normal, p) < offset` is the uniform
/// side, the rest the adaptive side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Split {
    pub normal: Vec3,
    pub offset: f32,
}

impl Split {
    /// Through `center`, facing `right` (the camera's right): the uniform
    /// field on the left of the screen, the adaptive on the right.
    pub fn facing(center: Vec3, right: Vec3) -> Split {
        let normal = right.try_normalize().unwrap_or(Vec3::X);
        Split {
            normal,
            offset: normal.dot(center),
        }
    }

    fn uniform_side(&self, p: Vec3) -> bool {
        self.normal.dot(p) < self.offset
    }
}

/// Side by side: the uniform grid's cells on one side of `split`, the
/// adaptive node centres of `level` on the other.
pub fn split_cells(
    uniform: &SdfField,
    field: &AdaptiveField,
    level: Option<u32>,
    split: Split,
) -> NodeCells {
    let mut out = NodeCells::default();
    for (c, &v) in uniform.values.iter().enumerate() {
        let p = uniform.grid.center_of(c);
        if split.uniform_side(p) {
            out.push(p.to_array(), v, NONE);
        }
    }
    for (i, (n, &v)) in field.octree.nodes.iter().zip(&field.values).enumerate() {
        if on_level(n, level) && !split.uniform_side(Vec3::from_array(n.center)) {
            out.push(n.center, v, i as u32);
        }
    }
    out
}

/// The 12 edges of the cube of `center` and `half`, in `color`.
pub fn cube_lines(out: &mut Vec<LineVertex>, center: Vec3, half: f32, color: [f32; 4]) {
    box_lines_along(
        out,
        center,
        [Vec3::X, Vec3::Y, Vec3::Z].map(|a| a * half),
        color,
    );
}

/// The 12 edges of the box `center ± a[0] ± a[1] ± a[2]`, in `color`.
fn box_lines_along(out: &mut Vec<LineVertex>, center: Vec3, a: [Vec3; 3], color: [f32; 4]) {
    let sign = |k: u32, bit: u32| if k & bit == 0 { -1.0 } else { 1.0 };
    let corner = |k: u32| center + a[0] * sign(k, 1) + a[1] * sign(k, 2) + a[2] * sign(k, 4);
    for k in 0..8u32 {
        for bit in [1, 2, 4] {
            if k & bit == 0 {
                out.push(LineVertex::new(corner(k), color));
                out.push(LineVertex::new(corner(k | bit), color));
            }
        }
    }
}

/// The RSS volumes of BVH `level` (the roots, one per Morton group, are
/// level 0), each as the box its rectangle sweeps when moved ±radius along
/// its normal (the swept sphere's flat part; the rounded rim is left out),
/// coloured by level, those whose centre the clip plane keeps, at most
/// [`MAX_BOXES`]: (lines, volumes drawn, volumes on the level).
pub fn rss_lines(
    bvh: &RssBvh,
    level: u32,
    clip: Option<ClipPlane>,
) -> (Vec<LineVertex>, usize, usize) {
    let mut on: Vec<u32> = (0..bvh.groups).collect();
    for _ in 0..level {
        on = on
            .iter()
            .map(|&i| &bvh.nodes[i as usize])
            .filter(|n| !n.is_leaf())
            .flat_map(|n| [n.left, n.left + 1])
            .collect();
    }
    let kept: Vec<&RssNode> = on
        .iter()
        .map(|&i| &bvh.nodes[i as usize])
        .filter(|n| clip_keeps(clip, Vec3::from_array(n.center)))
        .collect();
    let mut lines = Vec::with_capacity(24 * kept.len().min(MAX_BOXES));
    for n in kept.iter().take(MAX_BOXES) {
        let (u, v) = (Vec3::from_array(n.axis_u), Vec3::from_array(n.axis_v));
        let axes = [u * n.half_u, v * n.half_v, u.cross(v) * n.radius];
        box_lines_along(
            &mut lines,
            Vec3::from_array(n.center),
            axes,
            level_color(level),
        );
    }
    (lines, kept.len().min(MAX_BOXES), kept.len())
}

/// Whether the sprites' clip plane keeps `p` (as the point shader decides).
pub fn clip_keeps(clip: Option<ClipPlane>, p: Vec3) -> bool {
    clip.is_none_or(|c| c.normal.dot(p) <= c.offset)
}

/// The cells of `level` (all levels for `None`) as boxes coloured by depth,
/// those whose centre the clip plane keeps (the sprites' filter), at most
/// [`MAX_BOXES`]: (lines, boxes drawn, boxes on the level).
pub fn box_lines(
    field: &AdaptiveField,
    level: Option<u32>,
    clip: Option<ClipPlane>,
) -> (Vec<LineVertex>, usize, usize) {
    let on: Vec<&OctreeNode> = field
        .octree
        .nodes
        .iter()
        .filter(|n| on_level(n, level) && clip_keeps(clip, Vec3::from_array(n.center)))
        .collect();
    let mut lines = Vec::with_capacity(24 * on.len().min(MAX_BOXES));
    for n in on.iter().take(MAX_BOXES) {
        cube_lines(
            &mut lines,
            Vec3::from_array(n.center),
            n.half_size,
            level_color(n.depth),
        );
    }
    (lines, on.len().min(MAX_BOXES), on.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cube_has_twelve_edges_of_its_size() {
        let mut lines = Vec::new();
        cube_lines(&mut lines, Vec3::ONE, 0.5, [1.0; 4]);
        assert_eq!(lines.len(), 24);
        for pair in lines.chunks(2) {
            let d = Vec3::from_array(pair[0].pos) - Vec3::from_array(pair[1].pos);
            assert!((d.length() - 1.0).abs() < 1e-6);
            assert_eq!(d.abs().max_element(), d.length(), "edges are axis-aligned");
        }
    }

    /// A root with two leaf children: level 0 is the root's slab, level 1
    /// the two children's, level 2 nothing; a slab's corners are its
    /// rectangle's moved ±radius along the normal.
    #[test]
    fn rss_volumes_follow_the_bvh_levels() {
        let node = |x: f32, left: u32| RssNode {
            center: [x, 0.0, 0.0],
            radius: 0.1,
            axis_u: [1.0, 0.0, 0.0],
            half_u: 2.0,
            axis_v: [0.0, 1.0, 0.0],
            half_v: 0.5,
            left,
            ..Default::default()
        };
        let bvh = RssBvh {
            nodes: vec![node(0.0, 1), node(-1.0, NONE), node(1.0, NONE)],
            order: Vec::new(),
            groups: 1,
        };
        let counts: Vec<(usize, usize)> = (0..3)
            .map(|level| {
                let (lines, drawn, total) = rss_lines(&bvh, level, None);
                assert_eq!(lines.len(), 24 * drawn);
                (drawn, total)
            })
            .collect();
        assert_eq!(counts, [(1, 1), (2, 2), (0, 0)]);
        let (lines, _, _) = rss_lines(&bvh, 0, None);
        let top = Vec3::new(2.0, 0.5, 0.1);
        assert!(
            lines
                .iter()
                .any(|l| Vec3::from_array(l.pos).distance(top) < 1e-6)
        );
        let clip = ClipPlane {
            normal: Vec3::X,
            offset: 0.0,
        };
        assert_eq!(
            rss_lines(&bvh, 1, Some(clip)).1,
            1,
            "the clip plane keeps x ≤ 0"
        );
    }

    #[test]
    fn the_split_sends_each_side_to_one_field() {
        let s = Split::facing(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.0));
        assert!(s.uniform_side(Vec3::new(0.5, 3.0, 0.0)));
        assert!(!s.uniform_side(Vec3::new(1.5, -3.0, 0.0)));
    }
}
