//! The hit-time polynomial h(τ) = f(g(τ)) of degree ≤ 4 (eq. 3.3, 3.6,
//! 3.9) and its first sign change, solved in closed form and robust for
//! grazing paths.
//!
//! # Method
//!
//! A flight g(τ) is a polynomial of degree ≤ 2 in the flight's own time τ
//! and a collider f(p) = pᵀQp of degree ≤ 2 in p, so h(τ) has degree ≤ 4:
//! 2 for a plane under gravity (eq. 3.6) or a quadric on a straight flight
//! (eq. 3.9), 4 for a quadric under gravity.
//!
//! *A hit is a sign change of h* — the particle passes from one side of the
//! surface to the other. We never ask "is the discriminant ≥ 0" alone: on a
//! grazing path the two roots merge and rounding decides whether they
//! exist, so a discriminant test reports imaginary touches or misses dips.
//! Instead h is cut at its critical points (the real roots of h′, found by
//! the same method one degree down, ending in the closed-form quadratic and
//! linear roots) into monotone pieces. Each piece holds at most one root,
//! and holds one exactly when h has opposite signs at its ends. A grazing
//! path therefore hits iff h at the closest approach (a critical point)
//! really has the other sign: a value within the rounding error bound of
//! its evaluation counts as zero, so a tangent touch, or a dip smaller than
//! the rounding of h, is no hit — consistently — while a real dip, however
//! shallow, is two hits, never lost since their roots lie in different
//! pieces. The root inside a piece
//! is the closed-form quadratic root there for degree ≤ 2 (the stable
//! `q = −½(b + sign(b)·√Δ)` form, never dividing by a vanishing leading
//! coefficient) and a bracketed Newton iteration (bisection whenever
//! Newton leaves the bracket) for degree 3–4, so it always lies in the
//! bracket. Leading coefficients that vanish (a plane's h is quadratic even
//! though written as degree 4) need no special case: the stable quadratic
//! and the brackets never divide by them.

/// `c[0] + c[1]·τ + … + c[4]·τ⁴`.
pub type Poly = [f64; 5];

/// Horner evaluation.
pub fn eval(c: &Poly, t: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * t + k)
}

fn derivative(c: &Poly) -> Poly {
    [c[1], 2.0 * c[2], 3.0 * c[3], 4.0 * c[4], 0.0]
}

fn degree(c: &Poly) -> usize {
    (0..5).rev().find(|&i| c[i] != 0.0).unwrap_or(0)
}

/// Up to four sorted values.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Roots {
    pub n: usize,
    pub t: [f64; 4],
}

impl Roots {
    fn push(&mut self, t: f64) {
        self.t[self.n] = t;
        self.n += 1;
    }

    pub fn as_slice(&self) -> &[f64] {
        &self.t[..self.n]
    }
}

/// Real roots of `c` in the open interval (lo, hi), sorted; double roots
/// of a quadratic appear once. Used for the critical points.
fn real_roots(c: &Poly, lo: f64, hi: f64) -> Roots {
    let mut out = Roots::default();
    match degree(c) {
        0 => {}
        1 => {
            let t = -c[0] / c[1];
            if t > lo && t < hi {
                out.push(t);
            }
        }
        2 => {
            let (a, b, k) = (c[2], c[1], c[0]);
            let disc = b * b - 4.0 * a * k;
            if disc >= 0.0 {
                let q = -0.5 * (b + b.signum() * disc.sqrt());
                let mut r = [q / a, if q != 0.0 { k / q } else { q / a }];
                r.sort_by(f64::total_cmp);
                for t in r {
                    if t > lo && t < hi && (out.n == 0 || t != out.t[out.n - 1]) {
                        out.push(t);
                    }
                }
            }
        }
        _ => {
            let crit = real_roots(&derivative(c), lo, hi);
            for_each_crossing(c, lo, hi, &crit, |t| {
                out.push(t);
                false
            });
        }
    }
    out
}

/// Calls `visit` with each sign change of `c` in (lo, hi), in order, given
/// its critical points `crit` (sorted, inside (lo, hi)); stops when
/// `visit` returns true. A knot where `c` is zero (within rounding) is a crossing
/// only if the signs on its two sides differ (a touch is not), and a zero
/// at `lo` is the start, not a crossing.
fn for_each_crossing(c: &Poly, lo: f64, hi: f64, crit: &Roots, mut visit: impl FnMut(f64) -> bool) {
    let (mut a, mut sa) = (lo, sign(c, lo));
    let mut zero_at = None;
    for &b in crit.as_slice().iter().chain(std::iter::once(&hi)) {
        let sb = sign(c, b);
        if sb == 0 {
            zero_at = zero_at.or(Some(b));
            continue;
        }
        if sa != 0 && sb != sa {
            let t = zero_at.unwrap_or_else(|| root_in(c, a, b, sa < 0));
            if visit(t) {
                return;
            }
        }
        (a, sa, zero_at) = (b, sb, None);
    }
}

/// The sign of `c(t)`: 0 where |c(t)| is within the rounding error of
/// its evaluation (Higham's bound for Horner, 2·deg·ε·Σ|cᵢ||t|ⁱ, doubled),
/// so that a grazing path whose closest approach is lost in rounding is a
/// touch, and a flight starting on a surface starts there.
fn sign(c: &Poly, t: f64) -> i8 {
    let h = eval(c, t);
    let size = c.iter().rev().fold(0.0, |acc, &k| acc * t.abs() + k.abs());
    if h.abs() <= 16.0 * f64::EPSILON * size {
        0
    } else if h > 0.0 {
        1
    } else {
        -1
    }
}

/// The root of `c` in [a, b], where `c` is monotone with a sign change.
fn root_in(c: &Poly, mut a: f64, mut b: f64, neg_at_a: bool) -> f64 {
    if degree(c) <= 2 {
        // Closed form: the root of the quadratic that lies in the bracket
        // (rounding may put it a hair outside: clamp).
        let mid = 0.5 * (a + b);
        let r = real_roots(c, f64::NEG_INFINITY, f64::INFINITY);
        let best = r
            .as_slice()
            .iter()
            .copied()
            .min_by(|x, y| (x - mid).abs().total_cmp(&(y - mid).abs()));
        if let Some(t) = best {
            return t.clamp(a, b);
        }
    }
    let d = derivative(c);
    let mut t = 0.5 * (a + b);
    for _ in 0..100 {
        let h = eval(c, t);
        if h == 0.0 {
            return t;
        }
        if (h <= 0.0) == neg_at_a {
            a = t;
        } else {
            b = t;
        }
        if b - a <= f64::EPSILON * a.abs().max(b.abs()).max(f64::MIN_POSITIVE) {
            break;
        }
        let step = t - h / eval(&d, t);
        t = if step > a && step < b {
            step
        } else {
            0.5 * (a + b)
        };
    }
    t.clamp(a, b)
}

/// The sign changes of `c` in (lo, hi), in order, until `accept` says yes;
/// returns the accepted one.
pub(crate) fn first_crossing(
    c: &Poly,
    lo: f64,
    hi: f64,
    mut accept: impl FnMut(f64) -> bool,
) -> Option<f64> {
    let crit = real_roots(&derivative(c), lo, hi);
    let mut found = None;
    for_each_crossing(c, lo, hi, &crit, |t| {
        let ok = accept(t);
        if ok {
            found = Some(t);
        }
        ok
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn from_roots(r: &[f64], scale: f64) -> Poly {
        let mut c = [scale, 0.0, 0.0, 0.0, 0.0];
        for &x in r {
            let mut next = [0.0; 5];
            for i in 0..4 {
                next[i + 1] += c[i];
                next[i] -= x * c[i];
            }
            c = next;
        }
        c
    }

    fn crossings(c: &Poly, lo: f64, hi: f64) -> Vec<f64> {
        let crit = real_roots(&derivative(c), lo, hi);
        let mut v = Vec::new();
        for_each_crossing(c, lo, hi, &crit, |t| {
            v.push(t);
            false
        });
        v
    }

    #[test]
    fn simple_roots_of_each_degree_are_found_in_order() {
        for r in [
            vec![0.3],
            vec![0.2, 0.7],
            vec![0.1, 0.5, 0.9],
            vec![0.1, 0.4, 0.6, 0.95],
        ] {
            let got = crossings(&from_roots(&r, -2.5), 0.0, 1.0);
            assert_eq!(got.len(), r.len(), "{r:?}: {got:?}");
            for (g, w) in got.iter().zip(&r) {
                assert!((g - w).abs() < 1e-12, "{r:?}: {got:?}");
            }
        }
    }

    #[test]
    fn a_tangent_touch_is_no_hit_and_a_shallow_dip_is_two() {
        // (τ−0.5)² touches zero without crossing.
        assert!(crossings(&from_roots(&[0.5, 0.5], 1.0), 0.0, 1.0).is_empty());
        // τ² − 1e-20 on (−1, 1): roots 2e-10 apart, both found, in order.
        let got = crossings(&[-1e-20, 0.0, 1.0, 0.0, 0.0], -1.0, 1.0);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(
            (got[0] + 1e-10).abs() < 1e-22 && (got[1] - 1e-10).abs() < 1e-22,
            "{got:?}"
        );
        // A quartic grazing tangent at 0.3 and crossing at 0.8.
        let got = crossings(&from_roots(&[0.3, 0.3, 0.8, 2.0], 1.0), 0.0, 1.0);
        assert_eq!(got.len(), 1);
        assert!((got[0] - 0.8).abs() < 1e-12);
    }

    #[test]
    fn vanishing_leading_coefficients_need_no_special_case() {
        // A "quartic" whose top terms are rounding noise.
        let c = [-1.0, 4.0, 0.0, 1e-30, -1e-300];
        let got = crossings(&c, 0.0, 1.0);
        assert_eq!(got.len(), 1);
        assert!((got[0] - 0.25).abs() < 1e-15);
    }

    #[test]
    fn first_crossing_skips_rejected_roots() {
        let c = from_roots(&[0.2, 0.6], 1.0);
        assert_eq!(
            first_crossing(&c, 0.0, 1.0, |t| t > 0.5).map(|t| (t * 1e9).round()),
            Some(6e8)
        );
        assert_eq!(first_crossing(&c, 0.0, 1.0, |_| false), None);
    }

    proptest! {
        /// Against a fine scan of sign changes: same count and positions.
        #[test]
        fn crossings_match_a_fine_scan(
            roots in proptest::collection::vec(-0.5f64..1.5, 1..=4),
            scale in prop_oneof![-3.0f64..-0.1, 0.1f64..3.0],
        ) {
            let mut r = roots.clone();
            r.sort_by(f64::total_cmp);
            // Keep roots apart from each other and from the ends so that the
            // scan resolves them.
            prop_assume!(r.windows(2).all(|w| w[1] - w[0] > 1e-3));
            prop_assume!(r.iter().all(|x| (x - 0.0).abs() > 1e-3 && (x - 1.0).abs() > 1e-3));
            let c = from_roots(&r, scale);
            let want: Vec<f64> = r.iter().copied().filter(|&x| x > 0.0 && x <= 1.0).collect();
            let n = 200_000;
            let mut scan = Vec::new();
            for i in 0..n {
                let (a, b) = (i as f64 / n as f64, (i + 1) as f64 / n as f64);
                if (eval(&c, a) > 0.0) != (eval(&c, b) > 0.0) {
                    scan.push(0.5 * (a + b));
                }
            }
            let got = crossings(&c, 0.0, 1.0);
            prop_assert_eq!(got.len(), scan.len(), "{:?} vs scan {:?}", got, scan);
            prop_assert_eq!(got.len(), want.len());
            for (g, s) in got.iter().zip(&scan) {
                prop_assert!((g - s).abs() <= 1.0 / n as f64, "{} vs {}", g, s);
            }
        }
    }
}
