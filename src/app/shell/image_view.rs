//! The viewer's one widget for 2D images of a quantity: field slices,
//! stencil counts, impact maps, radial unwraps.
//!
//! A mode builds a [`Picture`] — one value per pixel (NaN where a cell is
//! empty or invalid), how values become colours ([`Coloring`]: a colour
//! map over a range, or discrete classes), optional world-unit axes and a
//! caption — and shows it with an [`ImageView`] it keeps:
//!
//! ```ignore
//! let shown = self.view.show(ui, key, || picture(...), marker, |[x, y]| {
//!     Some(format!("cell ({x}, {y}): {}", value_at(x, y)))
//! });
//! if let Some([x, y]) = shown.clicked { /* pick */ }
//! ```
//!
//! The texture is rebuilt only when `key` changes. Around the image the
//! widget draws the axes (ticks in world units), the colour bar with
//! significant-figure ticks and the quantity's units, a histogram of the
//! values beside the bar (bar length ∝ √count, so rare values still show)
//! and the swatch of empty cells (hatched grey). Nothing is drawn over the
//! image but the caller's marker. Hovering shows the caller's text for the
//! pixel; a click reports the pixel.
//!
//! [`ImageView::export`] writes the image with the same colour bar, axes
//! and (optionally) its caption as a PNG at 1×, 2× or 4× the image's pixel
//! size ([`crate::plot::figure`]).

use std::hash::{Hash, Hasher};
use std::path::Path;

use eframe::egui;

use super::legend::{key_ui, sig_figs};
use crate::plot::figure::{self, BarKey, Figure, Key, Ruler};
pub use crate::plot::legend::{HISTOGRAM_BINS, histogram, nice_ticks};
use crate::view::ColorMap;

/// The colour of an empty or invalid cell: a grey hatch, its two tones.
pub const EMPTY_TONES: [[u8; 4]; 2] = [[96, 96, 96, 255], [150, 150, 150, 255]];
/// Ticks on the colour bar.
const BAR_TICKS: usize = 5;
/// Colours sampled along the bar.
const BAR_STEPS: usize = 96;

/// How values become colours.
#[derive(Clone, Debug, PartialEq)]
pub enum Coloring {
    /// A colour map over `lo..=hi` ([`ColorMap::color_between`]); values
    /// beyond clamp to the ends. `title` names the quantity and its units,
    /// e.g. "signed distance (mesh units)". A `threshold` is marked on the
    /// bar.
    Scale {
        map: ColorMap,
        lo: f32,
        hi: f32,
        title: String,
        threshold: Option<f32>,
    },
    /// Discrete classes: the caller colours the pixels
    /// ([`Picture::pixels`]); the key lists (label, colour).
    Classes(String, Vec<(String, [u8; 4])>),
}

/// One axis of the image in world units: the coordinate at the image's
/// left (bottom) edge and at its right (top) edge.
#[derive(Clone, Debug, PartialEq)]
pub struct Extent {
    pub label: String,
    pub lo: f32,
    pub hi: f32,
}

/// A 2D image of a quantity, as the widget shows and exports it.
#[derive(Clone, Debug)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    /// One value per pixel, row by row from the top; NaN marks an empty or
    /// invalid cell. Drives the histogram (and the colours unless
    /// `pixels` is given).
    pub values: Vec<f32>,
    /// Colours to show instead of the scale's, `k·width × k·height` for a
    /// whole `k ≥ 1` (room for iso-lines drawn over the colour map), or
    /// class colours. `None`: each value coloured
    /// by [`Coloring::Scale`], empty cells hatched.
    pub pixels: Option<image::RgbaImage>,
    pub coloring: Coloring,
    /// World extents, [horizontal, vertical]; `None` for no axes.
    pub axes: Option<[Extent; 2]>,
    /// What the image shows: mesh, quantity, slice, range.
    pub caption: String,
    /// Both axes are lengths in one unit: the image is drawn at their
    /// aspect, whatever its pixels' ([`shown_aspect`]).
    pub world_aspect: bool,
}

/// The image's shape on screen: its world extents' where both axes are
/// lengths (pixels need not be square: an impact map's texels, an
/// interference image of a flat box), else its pixels'.
pub fn shown_aspect(p: &Picture) -> egui::Vec2 {
    let pixels = egui::vec2(p.width.max(1) as f32, p.height.max(1) as f32);
    let Some([h, v]) = p.axes.as_ref().filter(|_| p.world_aspect) else {
        return pixels;
    };
    let (w, t) = ((h.hi - h.lo).abs(), (v.hi - v.lo).abs());
    if !(w.is_finite() && t.is_finite() && w > 0.0 && t > 0.0) {
        return pixels;
    }
    // As many points as pixels along the longer side.
    let scale = pixels.x.max(pixels.y) / w.max(t);
    egui::vec2(w * scale, t * scale)
}

impl Picture {
    /// The image as shown: `pixels`, or the values coloured by the scale.
    pub fn rgba(&self) -> image::RgbaImage {
        if let Some(p) = &self.pixels {
            return p.clone();
        }
        image::RgbaImage::from_fn(self.width, self.height, |x, y| {
            let v = self
                .values
                .get((y * self.width + x) as usize)
                .copied()
                .unwrap_or(f32::NAN);
            image::Rgba(self.color(v, x, y))
        })
    }

    /// The colour of value `v` at pixel (x, y) (the hatch needs the place).
    fn color(&self, v: f32, x: u32, y: u32) -> [u8; 4] {
        match &self.coloring {
            Coloring::Scale { map, lo, hi, .. } if v.is_finite() => map.color_between(v, *lo, *hi),
            _ => EMPTY_TONES[(((x + y) / 2) % 2) as usize],
        }
    }

    /// Whether any value is empty or invalid.
    pub fn has_empty(&self) -> bool {
        self.values.iter().any(|v| !v.is_finite())
    }

    /// The key as drawn beside the image (on screen and in exports).
    pub fn key(&self) -> Key {
        match &self.coloring {
            Coloring::Classes(title, entries) => Key::Classes(title.clone(), entries.clone()),
            Coloring::Scale {
                map,
                lo,
                hi,
                title,
                threshold,
            } => {
                let (lo, hi) = (*lo, *hi);
                let at = |t: f32| hi - t * (hi - lo);
                let colors = (0..BAR_STEPS)
                    .map(|i| map.color_between(at((i as f32 + 0.5) / BAR_STEPS as f32), lo, hi))
                    .collect();
                let ticks = (0..BAR_TICKS)
                    .map(|i| {
                        let t = i as f32 / (BAR_TICKS - 1) as f32;
                        (t, sig_figs(at(t) as f64, 2))
                    })
                    .collect();
                let marks = threshold
                    .filter(|&e| e > lo.min(hi) && e < hi.max(lo))
                    .map(|e| ((hi - e) / (hi - lo), format!("ε {}", sig_figs(e as f64, 2))))
                    .into_iter()
                    .collect();
                Key::Bar(BarKey {
                    title: title.clone(),
                    colors,
                    ticks,
                    marks,
                    histogram: histogram(&self.values, lo, hi, HISTOGRAM_BINS),
                    empty: self
                        .has_empty()
                        .then(|| (EMPTY_TONES[0], "empty / invalid".to_string())),
                })
            }
        }
    }

    /// The axes' rulers: labels and round ticks in world units.
    pub fn rulers(&self) -> Option<[Ruler; 2]> {
        self.axes.as_ref().map(|[u, v]| {
            [u, v].map(|e| Ruler {
                label: e.label.clone(),
                ticks: nice_ticks(e.lo, e.hi, 5),
            })
        })
    }
}

/// What happened to the image this frame, in image pixels (x right, y
/// down from the top row).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shown {
    pub hovered: Option<[u32; 2]>,
    pub clicked: Option<[u32; 2]>,
}

/// Space around the image on screen, in points.
const AXIS_LEFT: f32 = 52.0;
const AXIS_BOTTOM: f32 = 34.0;
const TITLE_H: f32 = 20.0;
const KEY_W: f32 = 132.0;

/// A picture's texture and key, remade when the caller's key changes.
#[derive(Default)]
pub struct ImageView {
    shown: Option<Cached>,
}

struct Cached {
    key: u64,
    picture: Picture,
    bar: Key,
    texture: egui::TextureHandle,
}

impl ImageView {
    /// The picture shown last, if any.
    pub fn picture(&self) -> Option<&Picture> {
        self.shown.as_ref().map(|s| &s.picture)
    }

    /// Shows the picture `make` builds (called only when `key` differs from
    /// the last one) in the space left in `ui`, with its axes and key;
    /// `marker` rings a pixel; `hover` gives the text for the pixel under
    /// the mouse.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        key: impl Hash,
        make: impl FnOnce() -> Picture,
        marker: Option<[u32; 2]>,
        hover: impl Fn([u32; 2]) -> Option<String>,
    ) -> Shown {
        let mut hasher = std::hash::DefaultHasher::new();
        key.hash(&mut hasher);
        let key = hasher.finish();
        if self.shown.as_ref().is_none_or(|s| s.key != key) {
            let picture = make();
            let img = picture.rgba();
            let color = egui::ColorImage::from_rgba_unmultiplied(
                [img.width() as usize, img.height() as usize],
                img.as_raw(),
            );
            let texture = ui
                .ctx()
                .load_texture("image view", color, egui::TextureOptions::NEAREST);
            let bar = picture.key();
            self.shown = Some(Cached {
                key,
                picture,
                bar,
                texture,
            });
        }
        let s = self.shown.as_ref().expect("made above");
        draw(ui, s, marker, hover)
    }

    /// Writes the picture shown last with its key and axes (and its
    /// caption when `caption`) as a PNG at `factor` × its pixel size.
    pub fn export(&self, path: &Path, factor: u32, caption: bool) -> Result<(), String> {
        let s = self.shown.as_ref().ok_or("no image shown yet")?;
        let img = export_image(&s.picture, factor, caption)?;
        super::export::write_png(&img, path)
    }
}

/// The picture with its key, axes and (when `caption`) caption, at
/// `factor` (1–4) × its pixel size.
pub fn export_image(
    picture: &Picture,
    factor: u32,
    caption: bool,
) -> Result<image::RgbaImage, String> {
    if ![1, 2, 4].contains(&factor) {
        return Err(format!("scale {factor}× is not one of 1×, 2×, 4×"));
    }
    let img = figure::upscale(&picture.rgba(), factor);
    let key = picture.key();
    let rulers = picture.rulers();
    figure::render(
        &Figure {
            image: &img,
            key: Some(&key),
            axes: rulers.as_ref(),
            caption: caption.then_some(picture.caption.as_str()),
        },
        factor,
    )
}

/// The key's column width: room for the longest class label.
fn key_width(key: &Key) -> f32 {
    match key {
        Key::Bar(_) => KEY_W,
        Key::Classes(title, entries) => entries
            .iter()
            .map(|e| 24.0 + 6.5 * e.0.chars().count() as f32)
            .fold(6.5 * title.chars().count() as f32, f32::max)
            .max(KEY_W),
    }
}

fn draw(
    ui: &mut egui::Ui,
    s: &Cached,
    marker: Option<[u32; 2]>,
    hover: impl Fn([u32; 2]) -> Option<String>,
) -> Shown {
    let p = &s.picture;
    let has_axes = p.axes.is_some();
    let avail = ui.available_size();
    let left = if has_axes { AXIS_LEFT } else { 4.0 };
    let bottom = if has_axes { AXIS_BOTTOM } else { 4.0 };
    // A narrow panel gets the key under the image, a wide one beside it.
    let key_w = key_width(&s.bar);
    let key_below = avail.x < 3.0 * key_w;
    let key_h = match &s.bar {
        Key::Bar(_) => 140.0,
        Key::Classes(_, entries) => entries.len() as f32 * 16.0,
    };
    let room = if key_below {
        egui::vec2(
            avail.x - left - 8.0,
            avail.y - TITLE_H - bottom - key_h - 50.0,
        )
    } else {
        egui::vec2(avail.x - left - key_w, avail.y - TITLE_H - bottom - 24.0)
    }
    .max(egui::vec2(40.0, 40.0));
    let size = shown_aspect(p);
    let fit = (room.x / size.x).min(room.y / size.y);
    let image_size = size * fit;
    let outer_size = if key_below {
        egui::vec2(
            left + image_size.x.max(key_w),
            TITLE_H + image_size.y + bottom + TITLE_H + key_h + 24.0,
        )
    } else {
        let bar_h = image_size.y.max(120.0);
        egui::vec2(
            left + image_size.x + key_w,
            TITLE_H + image_size.y.max(bar_h + 22.0) + bottom,
        )
    };
    // Never more than the space there is: a resizable panel would grow to
    // fit, frame after frame.
    let outer_size = outer_size.min(egui::vec2(f32::INFINITY, avail.y.max(80.0)));
    let (outer, _) = ui.allocate_exact_size(outer_size, egui::Sense::hover());
    let rect = egui::Rect::from_min_size(outer.min + egui::vec2(left, TITLE_H), image_size);
    let key_rect = if key_below {
        egui::Rect::from_min_size(
            egui::pos2(outer.left() + 4.0, rect.bottom() + bottom + TITLE_H),
            egui::vec2(outer.width() - 4.0, key_h),
        )
    } else {
        egui::Rect::from_min_size(
            egui::pos2(rect.right() + 10.0, rect.top()),
            egui::vec2(key_w - 10.0, image_size.y.max(120.0)),
        )
    };
    let response = ui.interact(rect, ui.scope_id().with("image view"), egui::Sense::click());
    let painter = ui.painter_at(outer);
    painter.image(
        s.texture.id(),
        rect,
        egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
        egui::Color32::WHITE,
    );
    let text_color = ui.visuals().text_color();
    let stroke = egui::Stroke::new(1.0, text_color);
    painter.rect_stroke(rect, 0.0, stroke, egui::StrokeKind::Outside);
    let font = egui::FontId::proportional(11.0);
    if let Some([u, v]) = p.rulers() {
        // Only the ticks whose labels fit apart at the size drawn.
        let chars = |l: &str| 6 * l.chars().count() as u32;
        let u_ticks = figure::spaced_ticks(&u.ticks, rect.width() as u32, chars);
        let v_ticks = figure::spaced_ticks(&v.ticks, rect.height() as u32, |_| 14);
        for (t, label) in &u_ticks {
            let x = rect.left() + t * rect.width();
            painter.vline(x, rect.bottom()..=rect.bottom() + 4.0, stroke);
            painter.text(
                egui::pos2(x, rect.bottom() + 5.0),
                egui::Align2::CENTER_TOP,
                label,
                font.clone(),
                text_color,
            );
        }
        painter.text(
            egui::pos2(rect.center().x, rect.bottom() + 19.0),
            egui::Align2::CENTER_TOP,
            &u.label,
            font.clone(),
            text_color,
        );
        for (t, label) in &v_ticks {
            let y = rect.bottom() - t * rect.height();
            painter.hline(rect.left() - 4.0..=rect.left(), y, stroke);
            painter.text(
                egui::pos2(rect.left() - 6.0, y),
                egui::Align2::RIGHT_CENTER,
                label,
                font.clone(),
                text_color,
            );
        }
        // Above the image from the widget's left edge: a label longer
        // than the margin is not clipped.
        painter.text(
            egui::pos2(outer.left() + 2.0, rect.top() - 4.0),
            egui::Align2::LEFT_BOTTOM,
            &v.label,
            font.clone(),
            text_color,
        );
    }
    key_ui(&painter, &s.bar, key_rect, text_color);
    let to_pixel = |pos: egui::Pos2| {
        let rel = (pos - rect.min) / rect.size();
        let x = (rel.x * p.width as f32).floor();
        let y = (rel.y * p.height as f32).floor();
        (x >= 0.0 && y >= 0.0 && x < p.width as f32 && y < p.height as f32)
            .then_some([x as u32, y as u32])
    };
    if let Some([x, y]) = marker.filter(|m| m[0] < p.width && m[1] < p.height) {
        let cell = egui::vec2(
            rect.width() / p.width as f32,
            rect.height() / p.height as f32,
        );
        let c = rect.min + egui::vec2((x as f32 + 0.5) * cell.x, (y as f32 + 0.5) * cell.y);
        let r = cell.max_elem().max(6.0);
        painter.circle_stroke(c, r + 1.5, egui::Stroke::new(3.0, egui::Color32::BLACK));
        painter.circle_stroke(c, r + 1.5, egui::Stroke::new(1.5, egui::Color32::WHITE));
    }
    let mut shown = Shown::default();
    if let Some(pixel) = response.hover_pos().and_then(to_pixel) {
        shown.hovered = Some(pixel);
        if let Some(text) = hover(pixel) {
            response.clone().on_hover_text(text);
        }
    }
    if response.clicked() {
        shown.clicked = response.interact_pointer_pos().and_then(to_pixel);
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(empty: bool) -> Picture {
        let mut values: Vec<f32> = (0..40).map(|i| (i % 8) as f32 / 7.0).collect();
        if empty {
            values[3] = f32::NAN;
        }
        Picture {
            width: 8,
            height: 5,
            values,
            pixels: None,
            coloring: Coloring::Scale {
                map: ColorMap::Sundholm,
                lo: 0.0,
                hi: 1.0,
                title: "|Δ| (mesh units)".into(),
                threshold: Some(0.5),
            },
            axes: Some([
                Extent {
                    label: "x".into(),
                    lo: -1.0,
                    hi: 1.0,
                },
                Extent {
                    label: "y".into(),
                    lo: 0.0,
                    hi: 0.25,
                },
            ]),
            caption: "test ramp".into(),
            world_aspect: true,
        }
    }

    #[test]
    fn values_are_coloured_by_the_scale_and_empty_cells_hatched() {
        let p = ramp(true);
        let img = p.rgba();
        assert_eq!(img.dimensions(), (8, 5));
        assert_eq!(img.get_pixel(0, 0).0, ColorMap::Sundholm.color(0.0, 1.0));
        assert_eq!(img.get_pixel(7, 1).0, ColorMap::Sundholm.color(1.0, 1.0));
        assert!(EMPTY_TONES.contains(&img.get_pixel(3, 0).0));
        let Key::Bar(bar) = p.key() else {
            panic!("a scale gives a bar")
        };
        assert_eq!(bar.ticks.first().unwrap().1, "1");
        assert_eq!(bar.ticks.last().unwrap().1, "0");
        assert_eq!(bar.marks, vec![(0.5, "ε 0.5".to_string())]);
        assert!(bar.empty.is_some());
        assert!(ramp(false).key() != Key::Bar(bar));
        let Key::Bar(full) = ramp(false).key() else {
            panic!()
        };
        assert!(full.empty.is_none());
        // The top of the bar is the high end (sampled half a step down).
        let top = 1.0 - 0.5 / BAR_STEPS as f32;
        assert_eq!(
            full.colors[0],
            ColorMap::Sundholm.color_between(top, 0.0, 1.0)
        );
    }

    #[test]
    fn histogram_counts_in_range_from_the_top() {
        let h = histogram(&[0.0, 0.1, 0.95, 1.0, 5.0, f32::NAN], 0.0, 1.0, 4);
        // Bins from the top: [0.75, 1] holds 2, [0, 0.25) holds 2.
        assert_eq!(h, vec![1.0, 0.0, 0.0, 1.0]);
        let h = histogram(&[0.9, 0.1, 0.1, 0.1, 0.1], 0.0, 1.0, 2);
        assert_eq!(h, vec![0.5, 1.0]);
        assert!(histogram(&[2.0], 0.0, 1.0, 4).is_empty());
        assert!(histogram(&[0.5], 1.0, 1.0, 4).is_empty());
    }

    #[test]
    fn axis_ticks_are_round_world_values() {
        let t = nice_ticks(-1.0, 1.0, 5);
        let labels: Vec<&str> = t.iter().map(|x| x.1.as_str()).collect();
        assert_eq!(labels, ["-1.0", "-0.5", "0.0", "0.5", "1.0"]);
        assert_eq!(t[0].0, 0.0);
        assert_eq!(t[4].0, 1.0);
        let t = nice_ticks(0.013, 0.087, 4);
        let labels: Vec<&str> = t.iter().map(|x| x.1.as_str()).collect();
        assert_eq!(labels, ["0.02", "0.04", "0.06", "0.08"]);
        assert!(t.iter().all(|x| (0.0..=1.0).contains(&x.0)));
        assert!(nice_ticks(1.0, 1.0, 5).is_empty());
    }

    /// Square pixels over a 2 × 1 extent are drawn twice as wide as tall.
    #[test]
    fn pixels_are_drawn_at_their_world_aspect() {
        let mut p = ramp(false);
        (p.width, p.height) = (64, 64);
        p.axes = Some([
            Extent {
                label: "x".into(),
                lo: -1.0,
                hi: 1.0,
            },
            Extent {
                label: "z".into(),
                lo: 0.0,
                hi: 1.0,
            },
        ]);
        assert_eq!(shown_aspect(&p), egui::vec2(64.0, 32.0));
        p.world_aspect = false;
        assert_eq!(shown_aspect(&p), egui::vec2(64.0, 64.0));
    }

    #[test]
    fn export_scales_the_image_and_draws_the_bar() {
        let p = ramp(false);
        let one = export_image(&p, 1, true).unwrap();
        let four = export_image(&p, 4, false).unwrap();
        assert!(four.width() >= 4 * 8 && four.width() > one.width() * 3);
        // The image's top-left pixel, 4×4 at 4×, then the bar's colours
        // appear somewhere right of it.
        let top_colour = ColorMap::Sundholm.color_between(1.0, 0.0, 1.0);
        assert!(four.pixels().filter(|px| px.0 == top_colour).count() > 16);
        assert!(export_image(&p, 3, false).is_err());
    }
}
