//! Per-thread formulas: a value known in each thread of a set written as a [`PerThread`] (a sum of digit terms
//! of the thread index), and a set of threads written as a [`ThreadSet`] (conditions on digits). Each formula
//! is checked against every thread before it is returned, so a plan's formulas are exact or absent.
//!
//! A digit system is a list of `(div, modulus)` pairs; the fit tries, in order, the thread index itself, lane and
//! warp (`t % 32`, `t / 32`), the digits of the layout's thread iters, then the bits of `t`, and keeps the first
//! that reproduces every value.

use super::{PerThread, ThreadCond, ThreadSet, ThreadTerm};
use std::collections::BTreeSet;

/// A digit of the thread index: `(t / div) % modulus`.
pub(crate) type Digit = (i64, Option<i64>);

fn digit(t: i64, (div, modulus): Digit) -> i64 {
    let q = t / div.max(1);
    modulus.map_or(q, |m| q % m.max(1))
}

/// The digit systems tried, in order, given extra ones from a layout.
pub(crate) fn systems(layout_digits: &[Vec<Digit>]) -> Vec<Vec<Digit>> {
    let mut v = vec![vec![(1, None)], vec![(1, Some(32)), (32, None)]];
    v.extend(layout_digits.iter().filter(|d| !d.is_empty()).cloned());
    v.push((0..11).map(|b| (1i64 << b, Some(2))).collect());
    v
}

/// Per digit of a system: the index of a thread that differs from the first only in that digit, and by how much
/// (`None` when the digit is the same in every thread).
type Partner = Option<(usize, i64)>;

/// Fits values over one fixed list of threads, reusing the per-system partner search across values.
pub(crate) struct Fitter {
    threads: Vec<i64>,
    /// Per system: its digits and, per digit, a `(partner index, digit delta)` or `None` when the digit is the
    /// same in every thread; systems where some digit varies without a partner are dropped.
    plans: Vec<(Vec<Digit>, Vec<Partner>)>,
}

impl Fitter {
    /// A fitter over `threads` (sorted, distinct) trying `systems`.
    pub(crate) fn new(threads: &[i64], systems: &[Vec<Digit>]) -> Fitter {
        let mut plans = Vec::new();
        if let Some(&t0) = threads.first() {
            'system: for sys in systems {
                let f0: Vec<i64> = sys.iter().map(|&d| digit(t0, d)).collect();
                let mut partners = Vec::with_capacity(sys.len());
                for (k, &d) in sys.iter().enumerate() {
                    let partner = threads
                        .iter()
                        .enumerate()
                        .find(|(_, &t)| sys.iter().enumerate().all(|(j, &e)| (digit(t, e) == f0[j]) != (j == k)));
                    match partner {
                        Some((i, &t)) => partners.push(Some((i, digit(t, d) - f0[k]))),
                        None if threads.iter().all(|&t| digit(t, d) == f0[k]) => partners.push(None),
                        None => continue 'system,
                    }
                }
                plans.push((sys.clone(), partners));
            }
        }
        Fitter { threads: threads.to_vec(), plans }
    }

    /// The threads fitted over.
    pub(crate) fn threads(&self) -> &[i64] {
        &self.threads
    }

    /// A formula giving `values[i]` in thread `threads[i]` for every `i`, or `None`.
    pub(crate) fn fit(&self, values: &[i64]) -> Option<PerThread> {
        let (&t0, &v0) = (self.threads.first()?, values.first()?);
        if values.len() != self.threads.len() {
            return None;
        }
        if values.iter().all(|&v| v == v0) {
            return Some(PerThread::constant(v0));
        }
        'plan: for (sys, partners) in &self.plans {
            let mut terms = Vec::new();
            let mut base = v0;
            for (&d, p) in sys.iter().zip(partners) {
                let Some((i, delta)) = *p else { continue };
                let dv = values[i] - v0;
                if delta == 0 || dv % delta != 0 {
                    continue 'plan;
                }
                let coef = dv / delta;
                if coef != 0 {
                    base -= coef * digit(t0, d);
                    terms.push(ThreadTerm { div: d.0, modulus: d.1, coef });
                }
            }
            let f = PerThread { base, terms: merge(terms) };
            if self.threads.iter().zip(values).all(|(&t, &v)| f.at(t) == v) {
                return Some(f);
            }
        }
        None
    }
}

/// Merges adjacent digit terms that form one wider digit: `((t/d)%a)*c + ((t/(d*a))%b)*(c*a)` is
/// `((t/d)%(a*b))*c` (so bit terms read as `8*(t%8)` rather than three bits).
fn merge(terms: Vec<ThreadTerm>) -> Vec<ThreadTerm> {
    let mut out: Vec<ThreadTerm> = Vec::with_capacity(terms.len());
    for t in terms {
        if let Some(last) = out.last_mut() {
            if let (Some(a), Some(b)) = (last.modulus, t.modulus) {
                if t.div == last.div * a && t.coef == last.coef * a {
                    last.modulus = Some(a * b);
                    continue;
                }
            }
        }
        out.push(t);
    }
    out
}

/// Conditions selecting exactly `threads` among `0..limit`, or `None`. `known` says whether `limit` is the
/// scope's real size (only then may the set be written with no condition at all).
pub(crate) fn fit_set(threads: &BTreeSet<i64>, limit: i64, known: bool, systems: &[Vec<Digit>]) -> Option<ThreadSet> {
    let (&lo, &hi) = (threads.first()?, threads.last()?);
    let exact = |set: &ThreadSet| (0..limit).all(|t| set.contains(t) == threads.contains(&t));
    let range = ThreadCond { div: 1, modulus: None, begin: lo, end: hi + 1 };
    let mut candidates: Vec<ThreadSet> = Vec::new();
    if known {
        candidates.push(ThreadSet::default());
    }
    candidates.push(ThreadSet { conds: vec![range] });
    for sys in systems {
        let mut conds = vec![range];
        for &d in sys {
            let values: BTreeSet<i64> = threads.iter().map(|&t| digit(t, d)).collect();
            let (Some(&a), Some(&b)) = (values.first(), values.last()) else { continue };
            if b - a + 1 == values.len() as i64 {
                // The digit takes every value in 0..quotients over 0..limit (fewer than the modulus if limit is small).
                let quotients = (limit + d.0.max(1) - 1) / d.0.max(1);
                let all = d.1.map_or(quotients, |m| m.min(quotients));
                if all != values.len() as i64 {
                    conds.push(ThreadCond { div: d.0, modulus: d.1, begin: a, end: b + 1 });
                }
            }
        }
        candidates.push(ThreadSet { conds });
    }
    let mut found = candidates.into_iter().find(|c| exact(c))?;
    // Drop conditions the others imply, last first, keeping the set exact.
    let mut i = found.conds.len();
    while i > 0 {
        i -= 1;
        let mut fewer = found.clone();
        fewer.conds.remove(i);
        if (known || !fewer.conds.is_empty()) && exact(&fewer) {
            found = fewer;
        }
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_lane_and_warp_terms() {
        let threads: Vec<i64> = (0..128).collect();
        let f = Fitter::new(&threads, &systems(&[]));
        let values: Vec<i64> = threads.iter().map(|t| 64 * (t % 32) + 8 * (t / 32) + 3).collect();
        let p = f.fit(&values).unwrap();
        assert!(threads.iter().zip(&values).all(|(&t, &v)| p.at(t) == v));
        // Not a sum of digits of t: refused.
        let odd: Vec<i64> = threads.iter().map(|t| t * t).collect();
        assert!(f.fit(&odd).is_none());
    }

    #[test]
    fn sets_of_warps_and_ranges() {
        let warps: BTreeSet<i64> = (128..256).collect();
        let s = fit_set(&warps, 256, true, &systems(&[])).unwrap();
        assert!((0..256).all(|t| s.contains(t) == warps.contains(&t)));
        let even_lanes: BTreeSet<i64> = (0..64).filter(|t| t % 2 == 0).collect();
        let s = fit_set(&even_lanes, 1024, false, &systems(&[])).unwrap();
        assert!((0..1024).all(|t| s.contains(t) == even_lanes.contains(&t)));
        let all: BTreeSet<i64> = (0..32).collect();
        assert!(fit_set(&all, 32, true, &systems(&[])).unwrap().conds.is_empty());
    }
}
