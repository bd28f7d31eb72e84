//! The benchmarks' outputs, written the same way by every target: a table
//! on stdout, `<target>.json` (the rows with everything measured), a CSV
//! of the table's numbers and a PNG plot, all in the `--out` directory.
//!
//! A target describes its rows once, as a [`Row`]: the CSV's columns and
//! cells, and the table's columns (header, width, alignment) and cells.
//! [`Report`] writes the files, [`print_table`] the table; the plots are
//! the target's own choice of log–log panels ([`log_log`]) of [`series`]
//! picked from its rows.

use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use crate::io::{Format, OutputPlan};
use crate::plot::{Panel, Series};

/// One column of a printed table.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    pub header: &'static str,
    /// Characters the cells are padded to (wider cells are not cut).
    pub width: usize,
    pub align: Align,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

impl Column {
    pub const fn left(header: &'static str, width: usize) -> Self {
        Column {
            header,
            width,
            align: Align::Left,
        }
    }

    pub const fn right(header: &'static str, width: usize) -> Self {
        Column {
            header,
            width,
            align: Align::Right,
        }
    }

    fn pad(&self, cell: &str) -> String {
        let w = self.width;
        match self.align {
            Align::Left => format!("{cell:<w$}"),
            Align::Right => format!("{cell:>w$}"),
        }
    }
}

/// A benchmark's row: serialised whole into the JSON, and cut into cells
/// for the CSV and the table.
pub trait Row: Serialize {
    /// The CSV's header names.
    fn csv_header() -> Vec<&'static str>;
    /// The CSV cells, in the order of [`Row::csv_header`] (empty: not
    /// measured).
    fn csv_cells(&self) -> Vec<String>;
    /// The table's columns.
    fn table_columns() -> Vec<Column>;
    /// The table cells, in the order of [`Row::table_columns`].
    fn table_cells(&self) -> Vec<String>;
    /// A line printed under the row's table line, if any.
    fn table_note(&self) -> Option<String> {
        None
    }
}

/// Prints `title`, the header line and one line per row.
pub fn print_table<R: Row>(title: &str, rows: &[R]) {
    print!("{}", table(title, rows));
}

/// The text [`print_table`] prints.
fn table<R: Row>(title: &str, rows: &[R]) -> String {
    let columns = R::table_columns();
    let line = |cells: &mut dyn Iterator<Item = String>| {
        let padded: Vec<String> = cells.zip(&columns).map(|(c, col)| col.pad(&c)).collect();
        padded.join(" ") + "\n"
    };
    let mut out = format!("{title}\n");
    out += &line(&mut columns.iter().map(|c| c.header.to_string()));
    for r in rows {
        out += &line(&mut r.table_cells().into_iter());
        if let Some(note) = r.table_note() {
            out += &format!("{note}\n");
        }
    }
    out
}

/// `rows` as a Markdown table (the table's columns and cells), ready for
/// the book.
pub fn markdown_table<R: Row>(rows: &[R]) -> String {
    let columns = R::table_columns();
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = line(columns.iter().map(|c| c.header.to_string()).collect());
    out += &line(
        columns
            .iter()
            .map(|c| match c.align {
                Align::Left => "---".to_string(),
                Align::Right => "---:".to_string(),
            })
            .collect(),
    );
    for r in rows {
        out += &line(r.table_cells());
    }
    out
}

/// The CSV text of `rows`: the header line, then one line per row.
fn csv<R: Row>(rows: &[R]) -> String {
    let mut out = R::csv_header().join(",") + "\n";
    for r in rows {
        out += &(r.csv_cells().join(",") + "\n");
    }
    out
}

/// The output files of one benchmark, `<name>.json`, `.csv` and `.png` in
/// one directory.
pub struct Report<'a> {
    dir: &'a Path,
    name: &'static str,
}

impl<'a> Report<'a> {
    /// Checks the files of benchmark `name` (`crate::io::OutputPlan`),
    /// then creates the directory (and its parents).
    pub fn create(dir: &'a Path, name: &'static str) -> anyhow::Result<Self> {
        Self::create_reading(dir, name, &[])
    }

    /// [`Report::create`] for a benchmark that reads `inputs` (flag, path):
    /// its files must not be one of them.
    pub fn create_reading(
        dir: &'a Path,
        name: &'static str,
        inputs: &[(&str, &Path)],
    ) -> anyhow::Result<Self> {
        let report = Report { dir, name };
        let mut plan = OutputPlan::new();
        plan.folder("--out", dir);
        for (flag, path) in inputs {
            plan.input(*flag, path);
        }
        for format in [Format::JSON, Format::CSV, Format::PNG, Format::MARKDOWN] {
            plan.output("--out", report.path(format.extensions[0]), format);
        }
        plan.check()?;
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(report)
    }

    /// Writes `<name>.json` — `benchmark`, `adapter` (null: CPU only),
    /// the `extra` fields, then `rows` — and `<name>.csv`.
    pub fn write<R: Row>(
        &self,
        adapter: Option<&str>,
        extra: &[(&str, serde_json::Value)],
        rows: &[R],
    ) -> anyhow::Result<()> {
        let mut json = serde_json::Map::new();
        json.insert("benchmark".into(), self.name.into());
        json.insert("adapter".into(), adapter.into());
        for (key, value) in extra {
            json.insert(key.to_string(), value.clone());
        }
        json.insert("rows".into(), serde_json::to_value(rows)?);
        let json = serde_json::Value::Object(json);
        let text = serde_json::to_string_pretty(&json)?;
        let (json_path, csv_path) = (self.path("json"), self.path("csv"));
        crate::io::write_set(&[
            (&json_path, text.as_bytes()),
            (&csv_path, csv(rows).as_bytes()),
        ])
        .with_context(|| format!("cannot write {}", json_path.display()))?;
        Ok(())
    }

    /// Writes `<name>.md`: the rows as the book shows them.
    pub fn write_markdown(&self, text: &str) -> anyhow::Result<()> {
        let path = self.path("md");
        crate::io::write_atomically(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// Draws `panels` side by side into `<name>.png`.
    pub fn plot(&self, width: u32, height: u32, panels: &[Panel<'_>]) -> anyhow::Result<()> {
        crate::plot::write_png(&self.path("png"), width, height, panels)
            .map_err(|e| anyhow::anyhow!("plot: {e}"))
    }

    fn path(&self, extension: &str) -> std::path::PathBuf {
        self.dir.join(format!("{}.{extension}", self.name))
    }
}

/// A panel with both axes logarithmic, as every benchmark plot has.
pub fn log_log<'a>(
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    series: &'a [Series],
) -> Panel<'a> {
    Panel {
        title,
        x_label,
        y_label,
        log_x: true,
        log_y: true,
        series,
    }
}

/// A series of the points `point` picks from `rows` (rows it gives `None`
/// for are left out).
pub fn series<R>(
    name: impl Into<String>,
    rows: &[R],
    point: impl Fn(&R) -> Option<(f64, f64)>,
) -> Series {
    Series {
        name: name.into(),
        points: rows.iter().filter_map(point).collect(),
    }
}

/// The time a row is compared by: the GPU time where there is one, the
/// wall-clock time otherwise.
pub fn best_ms(gpu_ms: Option<f64>, wall_ms: f64) -> f64 {
    gpu_ms.unwrap_or(wall_ms)
}

/// A table cell of an optional value: formatted, or "-".
pub fn or_dash<T>(value: Option<T>, format: impl Fn(T) -> String) -> String {
    value.map_or("-".into(), format)
}

/// A CSV cell of an optional value: formatted, or empty.
pub fn or_empty<T>(value: Option<T>, format: impl Fn(T) -> String) -> String {
    value.map(format).unwrap_or_default()
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
pub fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    civil_date(days)
}

/// The date `days` after 1970-01-01 (Howard Hinnant's civil-from-days).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Sample {
        name: &'static str,
        ms: Option<f64>,
    }

    impl Row for Sample {
        fn csv_header() -> Vec<&'static str> {
            vec!["name", "ms"]
        }
        fn csv_cells(&self) -> Vec<String> {
            vec![self.name.into(), or_empty(self.ms, |v| format!("{v:.2}"))]
        }
        fn table_columns() -> Vec<Column> {
            vec![Column::left("name", 6), Column::right("ms", 5)]
        }
        fn table_cells(&self) -> Vec<String> {
            vec![self.name.into(), or_dash(self.ms, |v| format!("{v:.1}"))]
        }
        fn table_note(&self) -> Option<String> {
            self.ms.is_none().then(|| "  (no time)".into())
        }
    }

    const ROWS: [Sample; 2] = [
        Sample {
            name: "a",
            ms: Some(1.5),
        },
        Sample {
            name: "long-name",
            ms: None,
        },
    ];

    #[test]
    fn tables_pad_every_column_and_print_notes() {
        assert_eq!(
            table("T", &ROWS),
            "T\nname      ms\na        1.5\nlong-name     -\n  (no time)\n"
        );
    }

    #[test]
    fn markdown_tables_align_numbers_right() {
        assert_eq!(
            markdown_table(&ROWS),
            "| name | ms |\n| --- | ---: |\n| a | 1.5 |\n| long-name | - |\n"
        );
    }

    #[test]
    fn csv_cells_are_empty_where_nothing_was_measured() {
        assert_eq!(csv(&ROWS), "name,ms\na,1.50\nlong-name,\n");
    }

    #[test]
    fn the_json_holds_the_fields_in_order_and_every_row() {
        let dir = std::env::temp_dir().join(format!("collidoscope-report-{}", std::process::id()));
        let report = Report::create(&dir, "sample").unwrap();
        report.write(None, &[("depth", 4.into())], &ROWS).unwrap();
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("sample.json")).unwrap()).unwrap();
        assert_eq!(json["benchmark"], "sample");
        assert!(json["adapter"].is_null());
        assert_eq!(json["depth"], 4);
        assert_eq!(json["rows"][1]["name"], "long-name");
        let csv_file = std::fs::read_to_string(dir.join("sample.csv")).unwrap();
        assert_eq!(csv_file, csv(&ROWS));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(20_780), "2026-11-23");
        assert_eq!(civil_date(11_016), "2000-02-29");
    }
}
