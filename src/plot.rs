//! PNG line charts for benchmark results and timing histories (plotters on
//! an RGB buffer, encoded by `image`; text in egui's embedded Ubuntu font, so
//! no system fonts are needed).

pub mod figure;
pub mod legend;

use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::combinators::WithKeyPoints;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;

/// One named line of (x, y) points.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// One chart of a figure.
pub struct Panel<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub log_x: bool,
    pub log_y: bool,
    pub series: &'a [Series],
}

const FONT: &str = "collidoscope-sans";
/// Ten distinguishable colours (matplotlib's "tab10"); series past the
/// tenth repeat them with dashed lines, so no two series look alike.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn register_font() -> Result<(), String> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            plotters::style::register_font(
                FONT,
                FontStyle::Normal,
                epaint_default_fonts::UBUNTU_LIGHT,
            )
            .map_err(|_| "the embedded font could not be loaded".to_string())
        })
        .clone()
}

/// Draws `panels` side by side into a `width`×`height` PNG at `path`
/// (written atomically).
pub fn write_png(path: &Path, width: u32, height: u32, panels: &[Panel<'_>]) -> Result<(), String> {
    register_font()?;
    let mut rgb = vec![255u8; (width * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let areas = root.split_evenly((1, panels.len().max(1)));
        for (area, panel) in areas.iter().zip(panels) {
            draw_panel(area, panel).map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    let img =
        image::RgbImage::from_raw(width, height, rgb).ok_or("plot buffer has the wrong size")?;
    let mut png = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    crate::io::write_atomically(path, &png)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn range(values: impl Iterator<Item = f64>, log: bool) -> std::ops::Range<f64> {
    let (mut lo, mut hi) = values
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() {
        (lo, hi) = (1.0, 10.0);
    }
    if log {
        (lo / 1.5)..(hi * 1.5)
    } else {
        let pad = ((hi - lo) * 0.05).max(1e-9);
        (lo - pad).min(0.0)..(hi + pad)
    }
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    panel: &Panel<'_>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let xs = range(
        panel
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0)),
        panel.log_x,
    );
    let (width, height) = area.dim_in_pixel();
    let title = title_size(panel.title, width);
    // The legend goes above the data, in room added at the top of the y
    // axis, so that it covers no line; a legend that would take more than
    // a third of the plot's height goes beside the plot instead.
    let plot_height = f64::from(height) - 44.0 - 24.0 - 2.0 * title;
    let legend = legend_size(panel.series);
    let legend_share = f64::from(legend.1 + 16) / plot_height.max(1.0);
    let beside = legend_share > 1.0 / 3.0 && width as i32 > 2 * legend.0 + 200;
    let ys = range(
        panel
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1)),
        panel.log_y,
    );
    let ys = if beside {
        ys
    } else {
        with_headroom(ys, panel.log_y, legend_share.min(0.5))
    };
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(panel.title, (FONT, title))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64);
    if beside {
        builder.margin_right(12 + legend.0 + 8);
    }
    // plotters types log and linear axes differently; one macro-free helper
    // per combination keeps the drawing code shared.
    let labels = (label_count(width, 90), label_count(height, 45));
    let log_x = || log_axis(xs.clone(), labels.0);
    let log_y = || log_axis(ys.clone(), labels.1);
    let inside = !beside;
    match (panel.log_x, panel.log_y) {
        (true, true) => plot_series(
            builder.build_cartesian_2d(log_x(), log_y())?,
            panel,
            labels,
            inside,
        ),
        (true, false) => plot_series(
            builder.build_cartesian_2d(log_x(), ys)?,
            panel,
            labels,
            inside,
        ),
        (false, true) => plot_series(
            builder.build_cartesian_2d(xs, log_y())?,
            panel,
            labels,
            inside,
        ),
        (false, false) => plot_series(builder.build_cartesian_2d(xs, ys)?, panel, labels, inside),
    }?;
    if beside {
        let origin = (width as i32 - legend.0 - 12, 12 + 2 * title as i32);
        draw_side_legend(area, panel.series, origin, legend)?;
    }
    Ok(())
}

/// Series `i`'s colour, and whether its line is dashed (past the tenth).
fn series_style(i: usize) -> (RGBColor, bool) {
    (PALETTE[i % PALETTE.len()], (i / PALETTE.len()) % 2 == 1)
}

/// The legend's width and height in pixels (15 px text, a sample line).
fn legend_size(series: &[Series]) -> (i32, i32) {
    let longest = series
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    (
        (0.55 * 15.0 * longest as f64) as i32 + 44,
        20 * series.len() as i32 + 10,
    )
}

/// The legend drawn on the panel's area at `origin` (its upper left
/// corner), beside the plot.
fn draw_side_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    series: &[Series],
    (x, y): (i32, i32),
    (w, h): (i32, i32),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.draw(&Rectangle::new(
        [(x, y), (x + w, y + h)],
        RGBColor(180, 180, 180).stroke_width(1),
    ))?;
    for (i, s) in series.iter().enumerate() {
        let (color, dashed) = series_style(i);
        let style = color.stroke_width(2);
        let row = y + 15 + 20 * i as i32;
        let pieces = if dashed {
            vec![
                vec![(x + 8, row), (x + 14, row)],
                vec![(x + 20, row), (x + 26, row)],
            ]
        } else {
            vec![vec![(x + 8, row), (x + 26, row)]]
        };
        for piece in pieces {
            area.draw(&PathElement::new(piece, style))?;
        }
        area.draw(&Text::new(
            s.name.clone(),
            (x + 32, row - 8),
            (FONT, 15).into_font().color(&BLACK),
        ))?;
    }
    Ok(())
}

/// A log axis over `range` with its own ticks: plotters' log axis starts
/// its ticks at the first power of ten inside the range, so a range from
/// 0.2 to 8 had no tick (and no label) below 1. Here every 1–9 × 10^k in
/// range gets a grid line, and 1, 2 and 5 × 10^k a label — or only
/// 1 × 10^k where those would be more than `labels`, every other decade
/// where even those would be.
fn log_axis(range: std::ops::Range<f64>, labels: usize) -> WithKeyPoints<LogCoord<f64>> {
    let (bold, light) = log_ticks(range.start, range.end, labels);
    range
        .log_scale()
        .with_key_points(bold)
        .with_light_points(light)
}

/// The labelled and the grid-only ticks of [`log_axis`].
fn log_ticks(lo: f64, hi: f64, labels: usize) -> (Vec<f64>, Vec<f64>) {
    let decades = (lo.log10().floor() as i32)..=(hi.log10().ceil() as i32);
    let in_range = |v: &f64| (lo..=hi).contains(v);
    let at = |mantissas: &'static [f64], step: i32| {
        decades
            .clone()
            .filter(move |k| k.rem_euclid(step) == 0)
            .flat_map(move |k| {
                mantissas.iter().map(move |m| {
                    if k < 0 {
                        m / 10f64.powi(-k)
                    } else {
                        m * 10f64.powi(k)
                    }
                })
            })
            .filter(in_range)
            .collect::<Vec<f64>>()
    };
    let light = at(&[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], 1);
    let bold = [at(&[1.0, 2.0, 5.0], 1), at(&[1.0], 1), at(&[1.0], 2)]
        .into_iter()
        .find(|b| b.len() <= labels.max(2))
        .unwrap_or_else(|| at(&[1.0], 3));
    (bold, light)
}

/// The title's font size: 22 px, smaller for a title too long for the
/// panel (Ubuntu averages about 0.55 em a character), never under 11 px —
/// so a long title (the adapter's name) is not clipped.
fn title_size(title: &str, width: u32) -> f64 {
    let chars = title.chars().count().max(1) as f64;
    ((width as f64 - 24.0) / (0.55 * chars)).clamp(11.0, 22.0)
}

/// How many tick labels fit along `pixels` with `spacing` pixels each (at
/// least 2), so log axes' labels do not run into each other.
fn label_count(pixels: u32, spacing: u32) -> usize {
    ((pixels / spacing.max(1)) as usize).max(2)
}

fn plot_series<'a, DB, X, Y>(
    mut chart: ChartContext<'a, DB, Cartesian2d<X, Y>>,
    panel: &Panel<'_>,
    (x_labels, y_labels): (usize, usize),
    legend_inside: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend + 'a,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(panel.x_label)
        .y_desc(panel.y_label)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .light_line_style(RGBColor(235, 235, 235))
        .x_labels(x_labels)
        .y_labels(y_labels)
        .x_label_formatter(&|v| axis_label(*v, panel.log_x))
        .y_label_formatter(&|v| axis_label(*v, panel.log_y))
        .draw()?;
    let mut drawn = Vec::with_capacity(panel.series.len());
    for (i, s) in panel.series.iter().enumerate() {
        let (color, dashed) = series_style(i);
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        let style = color.stroke_width(2);
        if dashed {
            chart
                .draw_series(DashedLineSeries::new(pts.clone(), 6, 6, style))?
                .label(s.name.clone())
                .legend(move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (6, 0)], style)
                        + PathElement::new(vec![(12, 0), (18, 0)], style)
                });
        } else {
            chart
                .draw_series(LineSeries::new(pts.clone(), style))?
                .label(s.name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
        }
        drawn.push(
            pts.iter()
                .map(|p| chart.backend_coord(p))
                .collect::<Vec<(i32, i32)>>(),
        );
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
    }
    if !legend_inside {
        return Ok(());
    }
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    chart
        .configure_series_labels()
        .position(emptiest_corner(&drawn, (xs, ys), legend_size(panel.series)))
        .label_font((FONT, 15))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .draw()?;
    Ok(())
}

/// `range` grown upwards so that its top `share` (of the axis, log or
/// linear) lies above every value.
fn with_headroom(range: std::ops::Range<f64>, log: bool, share: f64) -> std::ops::Range<f64> {
    let keep = 1.0 / (1.0 - share.clamp(0.0, 0.9));
    if log {
        let (lo, hi) = (range.start.ln(), range.end.ln());
        range.start..(lo + (hi - lo) * keep).exp()
    } else {
        range.start..range.start + (range.end - range.start) * keep
    }
}

/// Where the legend (`size` pixels) covers the fewest drawn points: the
/// corner of the plotting area (`area`, pixels) whose legend-sized box
/// holds the fewest of the series' points and of points along their lines
/// (each segment sampled at 16 places). Ties keep the first of upper left,
/// upper right, lower right, lower left.
fn emptiest_corner(
    lines: &[Vec<(i32, i32)>],
    area: (std::ops::Range<i32>, std::ops::Range<i32>),
    size: (i32, i32),
) -> SeriesLabelPosition {
    let (xs, ys) = area;
    // Plotters puts the legend 10 px inside the area's edges.
    let (left, right) = (xs.start + 10, xs.end - 10 - size.0);
    let (top, bottom) = (ys.start + 10, ys.end - 10 - size.1);
    let corners = [
        (SeriesLabelPosition::UpperLeft, left, top),
        (SeriesLabelPosition::UpperRight, right, top),
        (SeriesLabelPosition::LowerRight, right, bottom),
        (SeriesLabelPosition::LowerLeft, left, bottom),
    ];
    let samples: Vec<(f64, f64)> = lines
        .iter()
        .flat_map(|line| {
            let segments = line.windows(2).flat_map(|w| {
                let (a, b) = (w[0], w[1]);
                (0..16).map(move |k| {
                    let t = f64::from(k) / 16.0;
                    (
                        f64::from(a.0) + t * f64::from(b.0 - a.0),
                        f64::from(a.1) + t * f64::from(b.1 - a.1),
                    )
                })
            });
            let last = line.last().map(|p| (f64::from(p.0), f64::from(p.1)));
            segments.chain(last)
        })
        .collect();
    let covered = |x: i32, y: i32| {
        samples
            .iter()
            .filter(|p| {
                (f64::from(x)..=f64::from(x + size.0)).contains(&p.0)
                    && (f64::from(y)..=f64::from(y + size.1)).contains(&p.1)
            })
            .count()
    };
    let mut best = (usize::MAX, SeriesLabelPosition::UpperLeft);
    for (position, x, y) in corners {
        let n = covered(x, y);
        if n < best.0 {
            best = (n, position);
        }
    }
    best.1
}

/// A tick's label: on a log axis only 1, 2 and 5 × 10^k are written (the
/// other sub-decade ticks keep their grid line but no label, so 6e5…9e5
/// do not run into each other).
fn axis_label(v: f64, log: bool) -> String {
    if !log || v <= 0.0 {
        return tick_label(v);
    }
    let mantissa = v / 10f64.powf(v.log10().floor());
    let named = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|m| (mantissa - m).abs() < 1e-6 * m);
    if named { tick_label(v) } else { String::new() }
}

/// Axis numbers as people write them: `1e6` rather than `1000000.0`, no
/// trailing zeros.
fn tick_label(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".into()
    } else if !(1e-2..1e4).contains(&a) {
        format!("{v:.0e}")
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(1_000_000.0), "1e6");
        assert_eq!(tick_label(100.0), "100");
        assert_eq!(tick_label(0.5), "0.5");
        assert_eq!(tick_label(0.001), "1e-3");
        assert_eq!(tick_label(0.0), "0");
    }

    #[test]
    fn log_ticks_cover_the_decade_below_the_first_power_of_ten() {
        let (bold, light) = log_ticks(0.22, 7.2, 12);
        assert_eq!(bold, [0.5, 1.0, 2.0, 5.0]);
        assert!(light.contains(&0.3) && light.contains(&7.0) && !light.contains(&0.2));
        // Six decades on a short axis: powers of ten, then every other one.
        assert_eq!(
            log_ticks(0.01, 1e4, 8).0,
            [0.01, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4][..7].to_vec()
        );
        assert_eq!(log_ticks(0.01, 1e4, 4).0, [0.01, 1.0, 100.0, 1e4]);
    }

    #[test]
    fn log_axes_label_only_one_two_and_five() {
        let labels: Vec<String> = [1e5, 2e5, 3e5, 5e5, 6e5, 9e5, 1e6]
            .iter()
            .map(|&v| axis_label(v, true))
            .collect();
        assert_eq!(labels, ["1e5", "2e5", "", "5e5", "", "", "1e6"]);
        assert_eq!(axis_label(3.0, false), "3");
        assert_eq!(axis_label(0.002, true), "2e-3");
    }

    #[test]
    fn long_titles_shrink_to_fit_and_labels_keep_their_spacing() {
        let long = "whole pipeline, depth 10 — NVIDIA H100 80GB HBM3 (Vulkan, NVIDIA 570.124.06)";
        let size = title_size(long, 700);
        assert!(size < 22.0, "{size}");
        assert!(size * 0.55 * long.chars().count() as f64 <= 700.0 - 24.0 + 1e-9);
        assert_eq!(title_size("short", 700), 22.0);
        assert_eq!(title_size(&"x".repeat(500), 300), 11.0);
        assert_eq!(label_count(700, 90), 7);
        assert_eq!(label_count(50, 90), 2);
    }

    #[test]
    fn the_legend_goes_to_the_corner_the_lines_leave_free() {
        let area = (0..400, 0..300);
        // A line along the top: the legend goes low, at the right first.
        let top = vec![vec![(0, 20), (400, 20)]];
        assert!(matches!(
            emptiest_corner(&top, area.clone(), (100, 60)),
            SeriesLabelPosition::LowerRight
        ));
        // A line along the bottom and up the right side: the upper left.
        let bottom_right = vec![vec![(0, 280), (390, 280), (390, 0)]];
        assert!(matches!(
            emptiest_corner(&bottom_right, area.clone(), (100, 60)),
            SeriesLabelPosition::UpperLeft
        ));
        // A line from the upper left down to the lower right: upper right.
        let diagonal = vec![vec![(0, 0), (400, 300)]];
        assert!(matches!(
            emptiest_corner(&diagonal, area.clone(), (100, 60)),
            SeriesLabelPosition::UpperRight
        ));
        // Nothing drawn: the upper left, as before.
        assert!(matches!(
            emptiest_corner(&[], area, (100, 60)),
            SeriesLabelPosition::UpperLeft
        ));
    }

    #[test]
    fn headroom_leaves_the_top_share_of_the_axis_above_the_data() {
        let r = with_headroom(1.0..100.0, true, 0.5);
        assert!((r.end - 10_000.0).abs() < 1e-6, "{r:?}");
        let r = with_headroom(0.0..10.0, false, 0.25);
        assert!((r.end - 40.0 / 3.0).abs() < 1e-9, "{r:?}");
        assert_eq!(with_headroom(2.0..8.0, false, 0.0), 2.0..8.0);
    }

    #[test]
    fn writes_a_png_of_the_requested_size() {
        let path =
            std::env::temp_dir().join(format!("collidoscope-plot-{}.png", std::process::id()));
        let series = [Series {
            name: "a".into(),
            points: vec![(1.0, 2.0), (10.0, 20.0)],
        }];
        let panel = Panel {
            title: "t",
            x_label: "x",
            y_label: "y",
            log_x: true,
            log_y: true,
            series: &series,
        };
        write_png(&path, 320, 200, &[panel]).unwrap();
        let img = image::open(&path).unwrap();
        assert_eq!((img.width(), img.height()), (320, 200));
        let _ = std::fs::remove_file(&path);
    }
}
