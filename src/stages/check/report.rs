//! A field compared with the exact one: per-sample errors, sign
//! disagreements, the worst samples and a histogram of errors in cells.

use serde::Serialize;

use super::{CellUnit, FieldSamples};

/// How many of the largest errors a report lists.
pub(crate) const WORST: usize = 20;

/// Histogram bin edges, in cells (in world units when no cell size is
/// known); the last bin is open above.
pub(crate) const HISTOGRAM_EDGES: [f64; 10] = [0.0, 1e-4, 1e-3, 1e-2, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0];

/// A sample's name in a report: `[k, j, i]` of a grid cell, or a point's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum SampleIndex {
    Cell([u32; 3]),
    Point(usize),
}

/// The field against the exact one, sample by sample.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// |value − exact| per sample, world units.
    pub errors: Vec<f32>,
    /// The exact values.
    pub exact: Vec<f32>,
    /// Samples on the other side of the surface than the exact field says,
    /// in sample order.
    pub sign_disagreements: Vec<usize>,
    /// The `WORST` largest errors, largest first (ties: lower sample first).
    pub worst: Vec<usize>,
}

impl Comparison {
    /// Compares `samples` with `exact` (one value per sample).
    pub fn new(samples: &FieldSamples, exact: Vec<f32>) -> Comparison {
        assert_eq!(samples.len(), exact.len(), "one exact value per sample");
        let errors: Vec<f32> = samples
            .values
            .iter()
            .zip(&exact)
            .map(|(v, e)| (v - e).abs())
            .collect();
        let sign_disagreements = samples
            .values
            .iter()
            .zip(&exact)
            .enumerate()
            .filter(|(_, (v, e))| **e != 0.0 && (**v < 0.0) != (**e < 0.0))
            .map(|(i, _)| i)
            .collect();
        let mut order: Vec<usize> = (0..errors.len()).collect();
        let by_error = |a: &usize, b: &usize| errors[*b].total_cmp(&errors[*a]).then(a.cmp(b));
        if order.len() > WORST {
            order.select_nth_unstable_by(WORST, by_error);
            order.truncate(WORST);
        }
        order.sort_by(by_error);
        Comparison {
            errors,
            exact,
            sign_disagreements,
            worst: order,
        }
    }

    /// Error of sample `i` in cells, if a cell size is known.
    pub fn error_cells(&self, samples: &FieldSamples, i: usize) -> Option<f32> {
        samples.unit.at(i).map(|h| self.errors[i] / h)
    }

    /// The report, listing at most `max_list` sign disagreements.
    pub fn report(&self, samples: &FieldSamples, max_list: usize) -> CheckReport {
        let n = self.errors.len();
        let max_abs_error = self.errors.iter().copied().fold(0.0f32, f32::max);
        let mean_abs_error = if n == 0 {
            0.0
        } else {
            self.errors.iter().map(|&e| e as f64).sum::<f64>() / n as f64
        };
        let cells: Option<Vec<f32>> = match samples.unit {
            CellUnit::None => None,
            _ => Some(
                (0..n)
                    .filter_map(|i| self.error_cells(samples, i))
                    .collect(),
            ),
        };
        let measure = cells.as_deref().unwrap_or(&self.errors);
        let mut counts = [0u64; HISTOGRAM_EDGES.len()];
        for &e in measure {
            let e = f64::from(e);
            let bin = HISTOGRAM_EDGES.partition_point(|&edge| edge <= e).max(1) - 1;
            counts[bin] += 1;
        }
        let histogram = counts
            .iter()
            .enumerate()
            .map(|(b, &count)| HistogramBin {
                from: HISTOGRAM_EDGES[b],
                to: HISTOGRAM_EDGES.get(b + 1).copied(),
                count,
            })
            .collect();
        CheckReport {
            points: n,
            max_abs_error,
            mean_abs_error,
            max_abs_error_cells: cells.map(|c| c.iter().copied().fold(0.0, f32::max)),
            sign_disagreements: self.sign_disagreements.len(),
            sign_disagreement_indices: self
                .sign_disagreements
                .iter()
                .take(max_list)
                .map(|&i| samples.index(i))
                .collect(),
            sign_disagreements_listed: self.sign_disagreements.len().min(max_list),
            worst: self
                .worst
                .iter()
                .map(|&i| Worst {
                    index: samples.index(i),
                    value: samples.values[i],
                    exact: self.exact[i],
                    error: self.errors[i],
                    error_cells: self.error_cells(samples, i),
                })
                .collect(),
            histogram_unit: if matches!(samples.unit, CellUnit::None) {
                "world"
            } else {
                "cells"
            },
            histogram,
        }
    }
}

/// One of the largest errors.
#[derive(Clone, Debug, Serialize)]
pub struct Worst {
    pub index: SampleIndex,
    pub value: f32,
    pub exact: f32,
    pub error: f32,
    pub error_cells: Option<f32>,
}

/// Samples whose error (in the histogram's unit) is in `[from, to)`.
#[derive(Clone, Debug, Serialize)]
pub struct HistogramBin {
    pub from: f64,
    /// `None` (JSON null): no upper end.
    pub to: Option<f64>,
    pub count: u64,
}

/// The statistics of a check (report.json adds where the field and the
/// reference came from).
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    pub points: usize,
    pub max_abs_error: f32,
    pub mean_abs_error: f64,
    /// In cells; `None` when no cell size is known (point sets without one).
    pub max_abs_error_cells: Option<f32>,
    pub sign_disagreements: usize,
    /// `[k, j, i]` of grid cells or point indices, in sample order, at most
    /// `--max-list` of them.
    pub sign_disagreement_indices: Vec<SampleIndex>,
    pub sign_disagreements_listed: usize,
    pub worst: Vec<Worst>,
    /// "cells", or "world" when no cell size is known.
    pub histogram_unit: &'static str,
    pub histogram: Vec<HistogramBin>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::check::Layout;
    use glam::Vec3;

    fn points(values: Vec<f32>, unit: CellUnit) -> FieldSamples {
        FieldSamples {
            layout: Layout::Points(vec![Vec3::ZERO; values.len()]),
            values,
            unit,
            band_world: None,
            mesh_hash: None,
            axis_order: None,
            precise: None,
            overrides: Vec::new(),
        }
    }

    #[test]
    fn errors_signs_worst_and_histogram_are_counted() {
        let mut exact: Vec<f32> = (0..30).map(|i| i as f32 * 0.1 - 1.0).collect();
        exact[10] = 0.0;
        let mut values = exact.clone();
        values[3] = -values[3]; // -0.7 → 0.7: a flip, error 1.4
        values[25] += 0.06; // 1.5 → 1.56
        values[10] = 0.3; // exact 0: no side, error 0.3
        let samples = points(values, CellUnit::Uniform(0.1));
        let c = Comparison::new(&samples, exact);
        assert_eq!(c.sign_disagreements, vec![3]);
        assert_eq!(&c.worst[..3], &[3, 10, 25]);
        assert_eq!(c.worst.len(), WORST);
        let r = c.report(&samples, 10);
        assert_eq!(r.points, 30);
        assert!((r.max_abs_error - 1.4).abs() < 1e-6);
        assert!((r.max_abs_error_cells.unwrap() - 14.0).abs() < 1e-4);
        assert_eq!(r.sign_disagreement_indices, vec![SampleIndex::Point(3)]);
        let count = |from: f64| r.histogram.iter().find(|b| b.from == from).unwrap().count;
        assert_eq!(count(0.0), 27);
        assert_eq!(count(0.5), 1, "0.6 cells");
        assert_eq!(count(2.0), 1, "3 cells");
        assert_eq!(count(8.0), 1, "14 cells, open bin");
        assert_eq!(r.histogram.last().unwrap().to, None);
        assert_eq!(r.histogram.iter().map(|b| b.count).sum::<u64>(), 30);
        let listed = c.report(&samples, 0);
        assert!(listed.sign_disagreement_indices.is_empty());
        assert_eq!(listed.sign_disagreements, 1);
    }

    #[test]
    fn without_a_cell_size_errors_stay_in_world_units() {
        let samples = points(vec![1.0, 2.0], CellUnit::None);
        let r = Comparison::new(&samples, vec![1.0, 2.5]).report(&samples, 10);
        assert_eq!(r.max_abs_error_cells, None);
        assert_eq!(r.histogram_unit, "world");
        assert_eq!(r.worst[0].index, SampleIndex::Point(1));
        assert_eq!(r.worst[0].error_cells, None);
    }
}
