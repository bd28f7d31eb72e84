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

/// Twenty colours in ten hues, each light and dark (the "tab20" set),
/// ordered so that neighbours differ in hue and lightness.
const OBJECT_PALETTE: [[u8; 3]; 20] = [
    [31, 119, 180],
    [255, 187, 120],
    [44, 160, 44],
    [255, 152, 150],
    [148, 103, 189],
    [196, 156, 148],
    [227, 119, 194],
    [199, 199, 199],
    [188, 189, 34],
    [158, 218, 229],
    [152, 223, 138],
    [255, 127, 14],
    [174, 199, 232],
    [214, 39, 40],
    [197, 176, 213],
    [140, 86, 75],
    [247, 182, 210],
    [127, 127, 127],
    [219, 219, 141],
    [23, 190, 207],
];

/// A colour per object, twenty that differ in hue or lightness before
/// they repeat (the image's key names the objects shown); black for none.
pub fn object_color(object: Option<usize>) -> [u8; 4] {
    let Some(k) = object else {
        return [0, 0, 0, 255];
    };
    let [r, g, b] = OBJECT_PALETTE[k % OBJECT_PALETTE.len()];
    [r, g, b, 255]
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
            (0..20).map(|k| object_color(Some(k))).collect();
        assert_eq!(colours.len(), 20, "object colours repeat");
        // Objects next in number (often next in the scene) stand apart.
        for k in 0..20 {
            let [a, b] = [k, k + 1].map(|i| object_color(Some(i)).map(i32::from));
            let far: i32 = (0..3).map(|c| (a[c] - b[c]).abs()).sum();
            assert!(far > 90, "objects {k} and {} look alike", k + 1);
        }
        assert!(!colours.contains(&object_color(None)));
    }
}
