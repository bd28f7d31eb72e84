//! Comparing two contact sets (CPU reference vs GPU) as sets, with
//! tolerances, and explaining every difference that is float rounding.
//!
//! Both backends evaluate the same expressions, but not bit for bit: the
//! GPU may fuse a multiply and an add (the shader compiler is free to emit
//! `fma`), its division is allowed 2.5 ulp, and the two 4×4 transforms that
//! take a sample into the other body's field frame each round differently.
//! The object-frame point then differs by a few ulp of the *world*
//! coordinates — about 1e-5 at 30 units from the origin. That changes
//! nothing unless the point sits that close to one of the collider's
//! discrete decisions:
//!
//! | decision | margin ([`DecisionMargins`]) |
//! |---|---|
//! | which cell the point reads (`floor` of the cell coordinate) | distance to the nearest cell face |
//! | which neighbour the finite-difference gradient uses | distance to the cell's centre plane |
//! | inside or not (interpolated depth, plane, sphere, box) | \|value\| |
//! | flipped-normal rejection | \|n · n_sample\| |
//! | which box face gives the normal | gap between the two nearest faces |
//!
//! A contact present in one set only, or present in both but differing
//! beyond the tolerances, is a [`Mismatch`]. It is *within rounding* when
//! one of its point's margins is below [`ROUNDING_ULPS`] ulp of the
//! largest coordinate on its way (dimensionless margins: below
//! [`ROUNDING_ULPS`] ε); anything else is unexplained — a bug.

use std::collections::HashMap;

use super::cpu::{DecisionMargins, FieldView, decision_margins};
use super::{
    Body, ColliderError, ColliderParams, ColliderShape, Contact, TASK_SEGMENT_FIELD, plan,
};
use crate::stages::sampling::Sample;

/// How many ulp of the point's coordinate scale count as "within rounding".
/// Two transforms of four terms each, a subtraction of the origin and a
/// division. The differences `bench collide` meets on a software driver
/// are rare and all within one ulp (`docs/bench/design-measurements.md`);
/// 8 leaves room for other drivers.
pub const ROUNDING_ULPS: f32 = 8.0;

/// Tolerances for calling two contacts of the same point equal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactTolerance {
    pub position: f32,
    pub depth: f32,
    pub normal: f32,
}

impl Default for ContactTolerance {
    fn default() -> Self {
        ContactTolerance {
            position: 1e-4,
            depth: 1e-4,
            normal: 1e-3,
        }
    }
}

/// Which decision a mismatched point sits on, within rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum RoundingCase {
    /// On a face between two cells: the backends read different cells.
    CellFace,
    /// On the cell's centre plane: different finite-difference neighbours.
    CellCentre,
    /// On the zero of the interpolated value or a primitive's surface.
    Inside,
    /// On the flipped-normal rejection threshold (`n · n_sample = 0`).
    Flip,
    /// Between two equally near box faces.
    FaceChoice,
}

impl RoundingCase {
    pub fn name(self) -> &'static str {
        match self {
            RoundingCase::CellFace => "on a cell face",
            RoundingCase::CellCentre => "on a cell centre plane",
            RoundingCase::Inside => "on the surface",
            RoundingCase::Flip => "on the flip threshold",
            RoundingCase::FaceChoice => "between two box faces",
        }
    }
}

/// One point whose contacts differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub cpu: Option<Contact>,
    pub gpu: Option<Contact>,
    /// The decision it sits on, when that explains it.
    pub rounding: Option<RoundingCase>,
    /// That decision's margin in ulp of the point's coordinate scale (0
    /// when unexplained).
    pub margin_ulps: f32,
    /// The point's margins (default for segment tasks).
    pub margins: DecisionMargins,
}

/// The outcome of [`compare_contacts`].
#[derive(Clone, Debug, Default)]
pub struct ContactComparison {
    /// Contacts equal within the tolerances.
    pub matched: usize,
    pub mismatches: Vec<Mismatch>,
}

impl ContactComparison {
    /// Mismatches that rounding does not explain.
    pub fn unexplained(&self) -> impl Iterator<Item = &Mismatch> {
        self.mismatches.iter().filter(|m| m.rounding.is_none())
    }

    pub fn unexplained_count(&self) -> usize {
        self.unexplained().count()
    }

    /// Mismatches within rounding, by case.
    pub(crate) fn rounding_counts(&self) -> Vec<(RoundingCase, usize)> {
        let mut counts: Vec<(RoundingCase, usize)> = Vec::new();
        for m in &self.mismatches {
            if let Some(r) = m.rounding {
                match counts.iter_mut().find(|(c, _)| *c == r) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((r, 1)),
                }
            }
        }
        counts
    }

    /// The largest margin among the mismatches within rounding, in ulp.
    pub fn largest_margin_ulps(&self) -> f32 {
        self.mismatches
            .iter()
            .filter(|m| m.rounding.is_some())
            .map(|m| m.margin_ulps)
            .fold(0.0, f32::max)
    }

    /// "57 equal, 3 within rounding (2 on a cell face, 1 on the flip
    /// threshold; margins ≤ 4.0 ulp), 0 unexplained".
    pub fn summary(&self) -> String {
        let rounding = self.mismatches.len() - self.unexplained_count();
        let cases: Vec<String> = self
            .rounding_counts()
            .iter()
            .map(|(c, n)| format!("{n} {}", c.name()))
            .collect();
        let mut s = format!("{} equal, {rounding} within rounding", self.matched);
        if !cases.is_empty() {
            s.push_str(&format!(
                " ({}; margins ≤ {:.1} ulp)",
                cases.join(", "),
                self.largest_margin_ulps()
            ));
        }
        s.push_str(&format!(", {} unexplained", self.unexplained_count()));
        s
    }
}

fn close(a: &Contact, b: &Contact, tol: &ContactTolerance) -> bool {
    a.position.distance(b.position) <= tol.position
        && (a.depth - b.depth).abs() <= tol.depth
        && (a.depth_cell - b.depth_cell).abs() <= tol.depth
        && a.normal.distance(b.normal) <= tol.normal
}

/// Which decision within rounding explains a difference at this point, and
/// its margin in ulp of the point's scale (ε for dimensionless margins).
fn rounding_case(m: &DecisionMargins) -> Option<(RoundingCase, f32)> {
    let length = f32::EPSILON * m.scale;
    let unit = f32::EPSILON;
    [
        (RoundingCase::CellFace, m.cell_face, length),
        (RoundingCase::CellCentre, m.cell_centre, length),
        (RoundingCase::Inside, m.inside, length),
        (RoundingCase::Flip, m.flip, unit),
        (RoundingCase::FaceChoice, m.face_choice, length),
    ]
    .into_iter()
    .filter_map(|(case, margin, ulp)| Some((case, margin? / ulp)))
    .filter(|&(_, ulps)| ulps <= ROUNDING_ULPS)
    .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// Compares the contacts two backends found for the same `pairs` as sets:
/// contacts of the same point (bodies, feature, point index) must agree
/// within `tol`; every other difference is classified by the point's
/// [`DecisionMargins`].
pub fn compare_contacts(
    shapes: &[ColliderShape],
    bodies: &[Body],
    pairs: &[(usize, usize)],
    params: &ColliderParams,
    cpu: &[Contact],
    gpu: &[Contact],
    tol: &ContactTolerance,
) -> Result<ContactComparison, ColliderError> {
    type Key = (u32, u32, u32, u32);
    let key = |c: &Contact| -> Key { (c.body, c.other, c.feature as u32, c.sample) };
    let mut gpu_by_key: HashMap<Key, Vec<&Contact>> = HashMap::new();
    for c in gpu {
        gpu_by_key.entry(key(c)).or_default().push(c);
    }
    let mut out = ContactComparison::default();
    let mut differing: Vec<(Option<Contact>, Option<Contact>)> = Vec::new();
    for c in cpu {
        let candidates = gpu_by_key.entry(key(c)).or_default();
        if let Some(i) = candidates.iter().position(|g| close(c, g, tol)) {
            candidates.swap_remove(i);
            out.matched += 1;
        } else if candidates.is_empty() {
            differing.push((Some(*c), None));
        } else {
            differing.push((Some(*c), Some(*candidates.swap_remove(0))));
        }
    }
    let mut rest: Vec<&Contact> = gpu_by_key.into_values().flatten().collect();
    rest.sort_by_key(|c| key(c));
    differing.extend(rest.into_iter().map(|g| (None, Some(*g))));
    if differing.is_empty() {
        return Ok(out);
    }

    let plan = plan(shapes, bodies, pairs, params)?;
    let all: Vec<&Sample> = shapes.iter().flat_map(|s| &s.samples.samples).collect();
    let mut task_of: HashMap<(u32, u32), usize> = HashMap::new();
    for (i, t) in plan.tasks.iter().enumerate() {
        task_of.entry((t.body, t.other)).or_insert(i);
    }
    for (cpu, gpu) in differing {
        let c = cpu.or(gpu).expect("one side is present");
        let mut margins = DecisionMargins::default();
        if let Some(&ti) = task_of.get(&(c.body, c.other)) {
            let task = &plan.tasks[ti];
            if task.kind != TASK_SEGMENT_FIELD && c.sample < task.sample_count {
                let i = (task.sample_start + c.sample) as usize;
                let sample = if task.extra == 1 {
                    plan.extra.get(i)
                } else {
                    all.get(i).copied()
                };
                if let Some(sample) = sample {
                    let field = FieldView::of(&shapes[task.field as usize]);
                    margins = decision_margins(task, sample, &field, params);
                }
            }
        }
        let case = rounding_case(&margins);
        out.mismatches.push(Mismatch {
            cpu,
            gpu,
            rounding: case.map(|(c, _)| c),
            margin_ulps: case.map_or(0.0, |(_, u)| u),
            margins,
        });
    }
    Ok(out)
}
