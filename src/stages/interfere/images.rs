//! False-colour pictures of a read-back [`CountImage`], shared by the
//! `interfere` CLI (PNG beside the JSON) and the viewer's live views: the
//! stencil counts (§4.4.1's reading: 0 outside, n > 0 inside n solids,
//! < 0 an open mesh), the edge depths of pass 1, and the identity images —
//! the nearest edge's object (Alg. 2), the same where it is inside
//! something (Alg. 3), and the object it is inside (Alg. 4, or the
//! weighted sums of `identify.rs`).

use super::CountImage;

/// Which picture of a [`CountImage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ImageKind {
    #[default]
    Counts,
    EdgeDepth,
    /// Pass 1's ids: the object owning the nearest edge.
    EdgeObjects,
    /// Pass 4's ids: that object where its edge point is inside something.
    Penetrating,
    /// The penetrated ids (pair passes or weighted sums): the object the
    /// edge point is inside.
    Penetrated,
}

impl ImageKind {
    pub const ALL: [ImageKind; 5] = [
        ImageKind::Counts,
        ImageKind::EdgeDepth,
        ImageKind::EdgeObjects,
        ImageKind::Penetrating,
        ImageKind::Penetrated,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ImageKind::Counts => "stencil counts",
            ImageKind::EdgeDepth => "edge depth",
            ImageKind::EdgeObjects => "edge ids (pass 1)",
            ImageKind::Penetrating => "penetrating ids (pass 4)",
            ImageKind::Penetrated => "penetrated ids",
        }
    }
}

/// The colours of the count image, with their legend labels.
pub const COUNT_LEGEND: [(&str, [u8; 4]); 6] = [
    ("no edge", [0, 0, 0, 255]),
    ("0 (outside)", [110, 110, 110, 255]),
    ("1", [230, 40, 30, 255]),
    ("2", [255, 150, 20, 255]),
    ("≥ 3", [255, 240, 60, 255]),
    ("< 0 (open mesh)", [40, 90, 255, 255]),
];

/// False colour of a count: black no edge, grey 0, reds/yellow 1, 2, ≥3,
/// blue negative (an open mesh).
pub(crate) fn count_color(count: i32, has_edge: bool) -> [u8; 4] {
    let k = match count {
        c if c < 0 => 5,
        0 if has_edge => 1,
        0 => 0,
        c => (c as usize + 1).min(4),
    };
    COUNT_LEGEND[k].1
}

/// A distinct colour per object (golden-ratio hues); black for none.
pub fn object_color(object: Option<usize>) -> [u8; 4] {
    let Some(k) = object else {
        return [0, 0, 0, 255];
    };
    let hue = (k as f32 * 0.618_034).fract() * 6.0;
    let x = 1.0 - (hue % 2.0 - 1.0).abs();
    let (r, g, b) = match hue as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    let c = |v: f32| (60.0 + 195.0 * v) as u8;
    [c(r), c(g), c(b), 255]
}

/// The picture, row-major from the top-left.
pub fn rgba(image: &CountImage, kind: ImageKind) -> Vec<[u8; 4]> {
    let id = |v: u32| object_color((v as usize).checked_sub(1));
    let pixels = 0..image.counts.len();
    match kind {
        ImageKind::Counts => pixels
            .map(|i| count_color(image.counts[i], image.edge_depth[i] < 1.0))
            .collect(),
        ImageKind::EdgeDepth => image
            .edge_depth
            .iter()
            .map(|&d| match d {
                d if d >= 1.0 => [0, 0, 0, 255],
                d => {
                    let v = (255.0 * (1.0 - 0.8 * d)) as u8;
                    [v, v, v, 255]
                }
            })
            .collect(),
        ImageKind::EdgeObjects => image.ids.iter().map(|i| id(i[0])).collect(),
        ImageKind::Penetrating => image.inside_ids.iter().map(|i| id(i[0])).collect(),
        ImageKind::Penetrated => image.penetrated.iter().map(|&j| id(j)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_map_to_their_legend_entries() {
        assert_eq!(count_color(0, false), COUNT_LEGEND[0].1);
        assert_eq!(count_color(0, true), COUNT_LEGEND[1].1);
        assert_eq!(count_color(1, true), COUNT_LEGEND[2].1);
        assert_eq!(count_color(2, true), COUNT_LEGEND[3].1);
        assert_eq!(count_color(7, true), COUNT_LEGEND[4].1);
        assert_eq!(count_color(-1, true), COUNT_LEGEND[5].1);
        let colours: std::collections::BTreeSet<_> =
            (0..12).map(|k| object_color(Some(k))).collect();
        assert_eq!(colours.len(), 12, "object colours repeat");
        assert!(!colours.contains(&object_color(None)));
    }
}
