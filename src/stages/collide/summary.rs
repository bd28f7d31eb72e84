//! Per-pair summaries of contacts — how many, and the deepest — for
//! callers that need no contact points (a broad overview, a pipeline's
//! display): [`super::ColliderGpu::summarize`] reduces them on the GPU and
//! reads back 8 bytes a pair; [`summarize`] is its reference, from a
//! contact list.

use std::collections::HashMap;

use super::Contact;
use crate::timing::Timings;

/// The contacts of one pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct PairSummary {
    /// Contacts of the pair (both directions).
    pub contacts: u32,
    /// Its largest depth (0 without contacts).
    pub deepest: f32,
}

/// The product of [`super::ColliderGpu::summarize`].
#[derive(Clone, Debug, Default)]
pub struct SummarySet {
    /// One per pair, in the order of the pair list.
    pub pairs: Vec<PairSummary>,
    /// Tasks planned and points tested.
    pub tasks: usize,
    pub tests: usize,
    pub timings: Timings,
}

impl SummarySet {
    /// Contacts of all pairs.
    pub fn contacts(&self) -> usize {
        self.pairs.iter().map(|p| p.contacts as usize).sum()
    }
}

/// The summaries of `pairs` from their `contacts` (a contact belongs to
/// the pair of its two bodies, in either order). A pair the list names
/// twice gets the summary at its first place and an empty one after.
pub fn summarize(pairs: &[(usize, usize)], contacts: &[Contact]) -> Vec<PairSummary> {
    let key = |a: usize, b: usize| (a.min(b), a.max(b));
    let mut index = HashMap::with_capacity(pairs.len());
    for (p, &(a, b)) in pairs.iter().enumerate() {
        index.entry(key(a, b)).or_insert(p);
    }
    let mut out = vec![PairSummary::default(); pairs.len()];
    for c in contacts {
        if let Some(&p) = index.get(&key(c.body as usize, c.other as usize)) {
            out[p].contacts += 1;
            out[p].deepest = out[p].deepest.max(c.depth);
        }
    }
    out
}
