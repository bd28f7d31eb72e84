//! Figures for publication: an image with its colour key, optional axes and
//! an optional caption, drawn into one PNG-ready RGBA image.
//!
//! The layout, at decoration scale `factor` (1, 2 or 4; every length, line
//! and font below is multiplied by it):
//!
//! ```text
//!  ┌───────────────────────────────────────────────┐
//!  │ v label                  key title            │
//!  │ v ticks ┌────────────┐  hist▕bar▏ticks        │
//!  │         │   image    │      ▕   ▏             │
//!  │         └────────────┘      ▕   ▏             │
//!  │          u ticks, label     □ empty            │
//!  │ caption                                        │
//!  └───────────────────────────────────────────────┘
//! ```
//!
//! The left margin holds the widest vertical tick label; the vertical
//! axis's label is written above the image from the figure's left edge,
//! and the image's column is widened (the image centred in it) until both
//! axis labels fit, so no label is clipped. Ticks whose labels would touch
//! are dropped ([`spaced_ticks`]) — the decorations scale with the image,
//! so what fits at 1× fits at 4×.
//!
//! The image is copied as given (the caller scales it: a slice upscaled by
//! nearest neighbour, the 3D view rendered at the larger size). Nothing is
//! drawn over the image, and the key's text stays inside the key's own
//! column, so no label overlaps the bar or the picture. Text is egui's
//! embedded Ubuntu font (no system fonts). The figure knows nothing of
//! colour maps or units: the caller passes the bar's colours, ticks and
//! titles as drawn ([`BarKey`]), the same description the viewer's widget
//! paints on screen.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{FONT, register_font};

/// A continuous colour key: a bar with ticks, a histogram beside it and
/// the colour of empty cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BarKey {
    /// The quantity and its units, e.g. "|Δ| (mesh units)".
    pub title: String,
    /// The bar's colours from the top (the high end) down.
    pub colors: Vec<[u8; 4]>,
    /// (fraction down the bar, label).
    pub ticks: Vec<(f32, String)>,
    /// Marks across the bar (a threshold): (fraction down the bar, label).
    pub marks: Vec<(f32, String)>,
    /// The histogram's bins from the top down, each a length from 0 to 1;
    /// empty for none.
    pub histogram: Vec<f32>,
    /// How empty or invalid cells are drawn, and their label, when the
    /// image has any.
    pub empty: Option<([u8; 4], String)>,
}

/// What the colours of an image mean.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    Bar(BarKey),
    /// Discrete classes (stencil counts, objects): title and (label, colour).
    Classes(String, Vec<(String, [u8; 4])>),
}

/// One axis of an image: its label and ticks as (fraction along the image
/// — left to right for the horizontal axis, bottom to top for the
/// vertical one — and label).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ruler {
    pub label: String,
    pub ticks: Vec<(f32, String)>,
}

/// An image to export with its key, axes ([horizontal, vertical]) and
/// caption.
pub struct Figure<'a> {
    pub image: &'a image::RgbaImage,
    pub key: Option<&'a Key>,
    pub axes: Option<&'a [Ruler; 2]>,
    pub caption: Option<&'a str>,
}

/// Lengths at factor 1, in pixels.
const PAD: u32 = 10;
const TITLE_H: u32 = 20;
const AXIS_LEFT: u32 = 64;
const AXIS_BOTTOM: u32 = 40;
const HIST_W: u32 = 30;
const BAR_W: u32 = 16;
const BAR_LABELS_W: u32 = 70;
const MIN_BAR_H: u32 = 120;
const CAPTION_H: u32 = 24;
const TICK_FONT: f64 = 12.0;
const TITLE_FONT: f64 = 13.0;
const SWATCH: u32 = 12;

/// The key column's width at factor 1.
fn key_width(key: &Key) -> u32 {
    match key {
        Key::Bar(bar) => {
            (HIST_W + 2 + BAR_W + 4 + BAR_LABELS_W).max(7 * bar.title.chars().count() as u32)
        }
        Key::Classes(title, entries) => {
            let longest = entries.iter().map(|e| e.0.chars().count()).max();
            let title = 7 * title.chars().count() as u32;
            (SWATCH + 6 + 7 * longest.unwrap_or(0).max(12) as u32).max(title)
        }
    }
}

/// `text` in lines of at most `width` characters, broken at spaces (a
/// longer word gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width.max(1) => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Copies `img` with every pixel a `k × k` block (nearest neighbour).
pub fn upscale(img: &image::RgbaImage, k: u32) -> image::RgbaImage {
    let k = k.max(1);
    image::RgbaImage::from_fn(img.width() * k, img.height() * k, |x, y| {
        *img.get_pixel(x / k, y / k)
    })
}

/// About how wide `text` is at factor 1 (the font's mean advance at
/// [`TICK_FONT`]), in pixels.
fn text_width(text: &str) -> u32 {
    7 * text.chars().count() as u32
}

/// Height of a line of tick labels at factor 1, with its gap.
const LINE_H: u32 = 16;

/// The ticks of a ruler `length` pixels long (at factor 1) whose labels
/// fit without touching: a tick is kept only when its label clears the
/// last kept one by a gap (`extent` says how much room a label takes
/// along the ruler). The last tick replaces the one before it when they
/// crowd, so both ends stay labelled.
pub fn spaced_ticks(
    ticks: &[(f32, String)],
    length: u32,
    extent: impl Fn(&str) -> u32,
) -> Vec<(f32, String)> {
    let at = |t: f32| t * length as f32;
    let fits = |a: &(f32, String), b: &(f32, String)| {
        let room = 0.5 * (extent(&a.1) + extent(&b.1)) as f32 + 6.0;
        (at(b.0) - at(a.0)).abs() >= room
    };
    let mut kept: Vec<(f32, String)> = Vec::new();
    for (i, tick) in ticks.iter().enumerate() {
        match kept.last() {
            None => kept.push(tick.clone()),
            Some(last) if fits(last, tick) => kept.push(tick.clone()),
            Some(_) if i + 1 == ticks.len() && kept.len() > 1 => {
                kept.pop();
                if kept.last().is_none_or(|l| fits(l, tick)) {
                    kept.push(tick.clone());
                }
            }
            Some(_) => {}
        }
    }
    kept
}

/// Where the parts of a figure go, in pixels at the figure's factor.
#[derive(Clone, Debug, PartialEq)]
struct Layout {
    width: u32,
    height: u32,
    /// The image's top-left corner.
    image: (u32, u32),
    /// The key column's left edge.
    key_x: u32,
    bar_h: u32,
    caption: Vec<String>,
    /// The axes' ticks that fit ([horizontal, vertical]).
    ticks: [Vec<(f32, String)>; 2],
}

/// The figure's layout: the left margin holds the widest vertical tick
/// label, the image's column is wide enough for the horizontal axis's
/// label and the vertical one's (written above the image, left-aligned,
/// so it is never clipped), and the key sits right of that column.
fn layout(fig: &Figure<'_>, f: u32) -> Layout {
    let (iw, ih) = fig.image.dimensions();
    let ticks = fig.axes.map_or([Vec::new(), Vec::new()], |[hor, ver]| {
        [
            spaced_ticks(&hor.ticks, iw / f, text_width),
            spaced_ticks(&ver.ticks, ih / f, |_| LINE_H),
        ]
    });
    let left = match fig.axes {
        Some(_) => {
            let widest = ticks[1].iter().map(|t| text_width(&t.1)).max();
            AXIS_LEFT.max(widest.unwrap_or(0) + 14)
        }
        None => PAD,
    } * f;
    let column = match fig.axes {
        // The vertical label runs from PAD over the margin and the column.
        Some([hor, ver]) => iw
            .max((text_width(&hor.label) + PAD) * f)
            .max(((2 * PAD + text_width(&ver.label)) * f).saturating_sub(left)),
        None => iw,
    };
    let image = (left + (column - iw) / 2, (PAD + TITLE_H) * f);
    let key_w = fig.key.map_or(0, |k| (key_width(k) + 2 * PAD) * f);
    let bar_h = ih.max(MIN_BAR_H * f);
    let below_image = if fig.axes.is_some() { AXIS_BOTTOM } else { 0 } * f;
    let empty_row = match fig.key {
        Some(Key::Bar(b)) if b.empty.is_some() => (SWATCH + 8) * f,
        _ => 0,
    };
    let classes_h = match fig.key {
        Some(Key::Classes(_, e)) => (e.len() as u32 * (SWATCH + 6)) * f,
        _ => 0,
    };
    let body_h = (ih + below_image).max(bar_h + empty_row).max(classes_h);
    let width = left + column + key_w + PAD * f;
    // The caption wraps to the figure's width (about 7 px a character).
    let caption = fig.caption.map_or(Vec::new(), |c| {
        wrap(c, ((width / f).saturating_sub(2 * PAD) / 7) as usize)
    });
    let caption_h = caption.len() as u32 * CAPTION_H * f;
    Layout {
        width,
        height: image.1 + body_h + caption_h + PAD * f,
        image,
        key_x: left + column + 2 * PAD * f,
        bar_h,
        caption,
        ticks,
    }
}

/// Draws `fig` with decorations at scale `factor` (at least 1) on white.
/// See the module docs for the layout.
pub fn render(fig: &Figure<'_>, factor: u32) -> Result<image::RgbaImage, String> {
    register_font()?;
    let f = factor.max(1);
    let (iw, ih) = fig.image.dimensions();
    let lay = layout(fig, f);
    let (width, height) = (lay.width, lay.height);
    let (left, top) = lay.image;
    let caption = &lay.caption;
    let caption_h = caption.len() as u32 * CAPTION_H * f;

    let mut rgb = vec![255u8; (width * height * 3) as usize];
    for (x, y, p) in fig.image.enumerate_pixels() {
        let i = (((top + y) * width + left + x) * 3) as usize;
        // Transparent pixels over white.
        let a = p.0[3] as u32;
        for c in 0..3 {
            rgb[i + c] = ((p.0[c] as u32 * a + 255 * (255 - a)) / 255) as u8;
        }
    }
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        let d = Draw { root: &root, f };
        d.frame(left, top, iw, ih).map_err(|e| e.to_string())?;
        if let Some([hor, ver]) = fig.axes {
            let [hor_ticks, ver_ticks] = &lay.ticks;
            let hor = Ruler {
                label: hor.label.clone(),
                ticks: hor_ticks.clone(),
            };
            let ver = Ruler {
                label: ver.label.clone(),
                ticks: ver_ticks.clone(),
            };
            d.axes(&[hor, ver], left, top, iw, ih)
                .map_err(|e| e.to_string())?;
        }
        let key_x = lay.key_x;
        match fig.key {
            Some(Key::Bar(bar)) => d
                .bar(bar, key_x, top, lay.bar_h)
                .map_err(|e| e.to_string())?,
            Some(Key::Classes(title, entries)) => d
                .classes(title, entries, key_x, top)
                .map_err(|e| e.to_string())?,
            None => {}
        }
        let caption_top = height - PAD * f - caption_h;
        for (i, line) in caption.iter().enumerate() {
            let y = caption_top + i as u32 * CAPTION_H * f + CAPTION_H * f / 2;
            d.text(line, PAD * f, y, TITLE_FONT, HPos::Left)
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    let img = image::RgbImage::from_raw(width, height, rgb).ok_or("figure buffer size")?;
    Ok(image::DynamicImage::ImageRgb8(img).to_rgba8())
}

type Area<'a, 'b> = DrawingArea<BitMapBackend<'b>, plotters::coord::Shift>;
type DrawResult<'b> =
    Result<(), DrawingAreaErrorKind<<BitMapBackend<'b> as DrawingBackend>::ErrorType>>;

/// The drawing area and the decoration scale.
struct Draw<'a, 'b> {
    root: &'a Area<'a, 'b>,
    f: u32,
}

impl<'b> Draw<'_, 'b> {
    fn px(&self, v: u32) -> i32 {
        (v * self.f) as i32
    }

    fn text(&self, text: &str, x: u32, y: u32, size: f64, h: HPos) -> DrawResult<'b> {
        let style = TextStyle::from((FONT, size * self.f as f64).into_font())
            .color(&BLACK)
            .pos(Pos::new(h, VPos::Center));
        self.root.draw_text(text, &style, (x as i32, y as i32))
    }

    fn line(&self, from: (i32, i32), to: (i32, i32)) -> DrawResult<'b> {
        self.root.draw(&PathElement::new(
            vec![from, to],
            BLACK.stroke_width(self.f),
        ))
    }

    fn frame(&self, x: u32, y: u32, w: u32, h: u32) -> DrawResult<'b> {
        let (x, y, w, h) = (x as i32, y as i32, w as i32, h as i32);
        self.root.draw(&Rectangle::new(
            [(x - 1, y - 1), (x + w, y + h)],
            BLACK.stroke_width(1),
        ))
    }

    fn axes(&self, axes: &[Ruler; 2], x: u32, y: u32, w: u32, h: u32) -> DrawResult<'b> {
        let [hor, ver] = axes;
        let bottom = (y + h) as i32;
        for (t, label) in &hor.ticks {
            let tx = x as i32 + (t * w as f32).round() as i32;
            self.line((tx, bottom), (tx, bottom + self.px(4)))?;
            self.text(
                label,
                tx as u32,
                bottom as u32 + 12 * self.f,
                TICK_FONT,
                HPos::Center,
            )?;
        }
        self.text(
            &hor.label,
            x + w / 2,
            bottom as u32 + 30 * self.f,
            TICK_FONT,
            HPos::Center,
        )?;
        for (t, label) in &ver.ticks {
            let ty = bottom - (t * h as f32).round() as i32;
            self.line((x as i32 - self.px(4), ty), (x as i32, ty))?;
            self.text(label, x - 6 * self.f, ty as u32, TICK_FONT, HPos::Right)?;
        }
        // The vertical axis's label above the image, from the figure's
        // left edge (the layout leaves it room): never clipped.
        self.text(
            &ver.label,
            PAD * self.f,
            y - 10 * self.f,
            TICK_FONT,
            HPos::Left,
        )
    }

    fn bar(&self, bar: &BarKey, x: u32, y: u32, h: u32) -> DrawResult<'b> {
        let bar_x = x + (HIST_W + 2) * self.f;
        let bw = BAR_W * self.f;
        let n = bar.colors.len().max(1) as u32;
        for (i, c) in bar.colors.iter().enumerate() {
            let y0 = y + i as u32 * h / n;
            let y1 = y + (i as u32 + 1) * h / n;
            self.root.draw(&Rectangle::new(
                [(bar_x as i32, y0 as i32), ((bar_x + bw) as i32, y1 as i32)],
                RGBColor(c[0], c[1], c[2]).filled(),
            ))?;
        }
        self.frame(bar_x, y, bw, h)?;
        let bins = bar.histogram.len() as u32;
        for (i, &len) in bar.histogram.iter().enumerate() {
            let y0 = y + i as u32 * h / bins;
            let y1 = (y + (i as u32 + 1) * h / bins).max(y0 + 1);
            let lx = (len.clamp(0.0, 1.0) * (HIST_W * self.f) as f32).round() as u32;
            if lx > 0 {
                self.root.draw(&Rectangle::new(
                    [
                        ((bar_x - 2 * self.f - lx) as i32, y0 as i32),
                        ((bar_x - 2 * self.f) as i32, y1 as i32 - 1),
                    ],
                    RGBColor(110, 110, 110).filled(),
                ))?;
            }
        }
        let right = (bar_x + bw) as i32;
        for (t, label) in &bar.ticks {
            let ty = y as i32 + (t * h as f32).round() as i32;
            self.line((right, ty), (right + self.px(4), ty))?;
            self.text(
                label,
                right as u32 + 6 * self.f,
                ty as u32,
                TICK_FONT,
                HPos::Left,
            )?;
        }
        for (t, label) in &bar.marks {
            let ty = y as i32 + (t * h as f32).round() as i32;
            self.root.draw(&PathElement::new(
                vec![(bar_x as i32 - self.px(2), ty), (right + self.px(2), ty)],
                RGBColor(200, 150, 0).stroke_width(2 * self.f),
            ))?;
            self.text(label, bar_x - 4 * self.f, ty as u32, TICK_FONT, HPos::Right)?;
        }
        self.text(&bar.title, x, y - 12 * self.f, TITLE_FONT, HPos::Left)?;
        if let Some((color, label)) = &bar.empty {
            let sy = y + h + 8 * self.f;
            self.swatch(bar_x, sy, *color)?;
            self.text(
                label,
                bar_x + (SWATCH + 4) * self.f,
                sy + SWATCH * self.f / 2,
                TICK_FONT,
                HPos::Left,
            )?;
        }
        Ok(())
    }

    fn swatch(&self, x: u32, y: u32, c: [u8; 4]) -> DrawResult<'b> {
        let s = SWATCH * self.f;
        self.root.draw(&Rectangle::new(
            [(x as i32, y as i32), ((x + s) as i32, (y + s) as i32)],
            RGBColor(c[0], c[1], c[2]).filled(),
        ))?;
        self.frame(x, y, s, s)
    }

    fn classes(
        &self,
        title: &str,
        entries: &[(String, [u8; 4])],
        x: u32,
        y: u32,
    ) -> DrawResult<'b> {
        self.text(title, x, y - 12 * self.f, TITLE_FONT, HPos::Left)?;
        for (i, (label, color)) in entries.iter().enumerate() {
            let sy = y + i as u32 * (SWATCH + 6) * self.f;
            self.swatch(x, sy, *color)?;
            self.text(
                label,
                x + (SWATCH + 6) * self.f,
                sy + SWATCH * self.f / 2,
                TICK_FONT,
                HPos::Left,
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar() -> Key {
        Key::Bar(BarKey {
            title: "d (mesh units)".into(),
            colors: (0..64)
                .map(|i| [4 * i as u8, 0, 255 - 4 * i as u8, 255])
                .collect(),
            ticks: vec![(0.0, "1".into()), (1.0, "0".into())],
            marks: vec![],
            histogram: vec![1.0, 0.5, 0.0, 0.25],
            empty: Some(([128, 128, 128, 255], "empty".into())),
        })
    }

    #[test]
    fn the_figure_holds_the_image_the_key_and_scales_with_the_factor() {
        let img = image::RgbaImage::from_pixel(200, 150, image::Rgba([10, 200, 30, 255]));
        let key = bar();
        let axes = [
            Ruler {
                label: "x".into(),
                ticks: vec![(0.0, "-1".into()), (1.0, "1".into())],
            },
            Ruler {
                label: "y".into(),
                ticks: vec![(0.5, "0".into())],
            },
        ];
        let fig = Figure {
            image: &img,
            key: Some(&key),
            axes: Some(&axes),
            caption: Some("bunny, signed distance"),
        };
        let one = render(&fig, 1).unwrap();
        let big = upscale(&img, 2);
        let two = render(&Figure { image: &big, ..fig }, 2).unwrap();
        assert_eq!(two.width(), 2 * one.width());
        assert_eq!(two.height(), 2 * one.height());
        // The image is copied unchanged at its place.
        let (left, top) = (AXIS_LEFT, PAD + TITLE_H);
        assert_eq!(one.get_pixel(left + 5, top + 5).0, [10, 200, 30, 255]);
        assert_eq!(one.get_pixel(left + 199, top + 149).0, [10, 200, 30, 255]);
        // The bar's first colour sits right of the image, past the histogram.
        let bar_x = left + 200 + 2 * PAD + HIST_W + 2 + BAR_W / 2;
        assert_eq!(one.get_pixel(bar_x, top + 1).0, [0, 0, 255, 255]);
        // Its top histogram bin is drawn grey, its third is empty (white).
        let hist_y = |bin: u32| top + bin * 150 / 4 + 10;
        let hist_x = bar_x - BAR_W / 2 - 2 - 3;
        assert_eq!(one.get_pixel(hist_x, hist_y(0)).0, [110, 110, 110, 255]);
        assert_eq!(one.get_pixel(hist_x, hist_y(2)).0, [255, 255, 255, 255]);
        // Tick labels and the caption put dark pixels outside the image.
        let dark_below = (top + 150 + 2..one.height())
            .flat_map(|y| (0..one.width()).map(move |x| (x, y)))
            .filter(|&(x, y)| one.get_pixel(x, y).0[0] < 100)
            .count();
        assert!(dark_below > 50, "{dark_below} dark pixels below the image");
    }

    /// A radial unwrap's figure: 64 × 32 cells, six ticks 0.0…1.0 across
    /// and up, long axis labels. Its tick labels printed over each other
    /// ("0.00.20.40.60.81.0"), the vertical label was clipped at the left
    /// edge and @4x was not 4× the @1x figure.
    #[test]
    fn a_small_image_keeps_its_labels_apart_and_whole_at_every_scale() {
        let cells = image::RgbaImage::from_pixel(64, 32, image::Rgba([10, 200, 30, 255]));
        let six: Vec<(f32, String)> = (0..=5)
            .map(|i| (i as f32 / 5.0, format!("{:.1}", i as f32 / 5.0)))
            .collect();
        let axes = [
            Ruler {
                label: "θ (turns from u)".into(),
                ticks: six.clone(),
            },
            Ruler {
                label: "z (0 at A, 1 at B)".into(),
                ticks: six,
            },
        ];
        let key = bar();
        let fig = Figure {
            image: &cells,
            key: Some(&key),
            axes: Some(&axes),
            caption: Some("field 3: forearm.l"),
        };
        let lay = layout(&fig, 1);
        let [hor, ver] = &lay.ticks;
        for w in hor.windows(2) {
            let gap = (w[1].0 - w[0].0) * 64.0;
            assert!(
                gap >= (text_width(&w[0].1) + text_width(&w[1].1)) as f32 / 2.0,
                "labels {:?} and {:?} overlap: {gap} px apart",
                w[0].1,
                w[1].1
            );
        }
        for w in ver.windows(2) {
            assert!((w[1].0 - w[0].0) * 32.0 >= LINE_H as f32, "{ver:?}");
        }
        assert!(hor.len() >= 2 && ver.len() >= 2, "both ends stay labelled");
        // The vertical label, left-aligned at PAD above the image, ends
        // before the key's column.
        assert!(PAD + text_width("z (0 at A, 1 at B)") < lay.key_x);
        assert!(lay.image.0 >= AXIS_LEFT);
        let one = render(&fig, 1).unwrap();
        let big = upscale(&cells, 4);
        let four = render(&Figure { image: &big, ..fig }, 4).unwrap();
        assert_eq!(
            (four.width(), four.height()),
            (4 * one.width(), 4 * one.height()),
            "@4x is the @1x figure scaled"
        );
    }

    #[test]
    fn spaced_ticks_keep_both_ends() {
        let ticks: Vec<(f32, String)> = (0..=10).map(|i| (i as f32 / 10.0, "00".into())).collect();
        let kept = spaced_ticks(&ticks, 100, text_width);
        assert_eq!(kept.first().map(|t| t.0), Some(0.0));
        assert_eq!(kept.last().map(|t| t.0), Some(1.0));
        assert!(kept.len() < ticks.len());
        assert_eq!(spaced_ticks(&ticks, 10_000, text_width), ticks);
    }

    #[test]
    fn captions_wrap_at_spaces() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("overlongword x", 4), ["overlongword", "x"]);
        assert!(wrap("  ", 10).is_empty());
    }

    #[test]
    fn classes_get_a_swatch_each() {
        let img = image::RgbaImage::from_pixel(40, 30, image::Rgba([0, 0, 0, 255]));
        let key = Key::Classes(
            "stencil count".into(),
            vec![
                ("0".into(), [255, 0, 0, 255]),
                ("1".into(), [0, 255, 0, 255]),
            ],
        );
        let out = render(
            &Figure {
                image: &img,
                key: Some(&key),
                axes: None,
                caption: None,
            },
            1,
        )
        .unwrap();
        let count = |c: [u8; 4]| out.pixels().filter(|p| p.0 == c).count();
        assert!(count([255, 0, 0, 255]) >= 100, "red swatch");
        assert!(count([0, 255, 0, 255]) >= 100, "green swatch");
        assert!(out.height() >= (PAD + TITLE_H + 2 * (SWATCH + 6)));
    }
}
