//! How an element of a layout is labelled in a drawn grid (`axe-layout show`, the explorer page, the Python
//! package's HTML): its image's values per axis, the axes in one order, so every view reads the same.

use crate::axis::{Axis, AxisKind};
use crate::tile_layout::Coord;
use std::collections::{BTreeMap, BTreeSet};

/// Label order: thread axes by scope (innermost first), device axes, memory axes; then by name.
pub fn axis_rank(a: &Axis) -> (u8, u8, &'static str) {
    match a.kind() {
        AxisKind::Thread { unit, within } => (0, unit as u8 * 8 + within as u8, a.name()),
        AxisKind::Device => (1, 0, a.name()),
        AxisKind::Memory => (2, 0, a.name()),
    }
}

/// One axis's values across an element's points: `v`, `a/b`, `a/b/c`, `lo..hi+s` (an arithmetic run) or
/// `a/b/..z`.
pub fn values_text(values: &BTreeSet<i64>) -> String {
    let v: Vec<i64> = values.iter().copied().collect();
    match v.as_slice() {
        [] => String::new(),
        [a] => a.to_string(),
        [a, b] => format!("{a}/{b}"),
        [a, b, c] => format!("{a}/{b}/{c}"),
        [first, second, .., last] => {
            let step = second - first;
            if v.windows(2).all(|w| w[1] - w[0] == step) {
                format!("{first}..{last}+{step}")
            } else {
                format!("{first}/{second}/..{last}")
            }
        }
    }
}

/// The label of an element whose image is the point set `set`: per axis of `axes`, in that order, the
/// [`values_text`] of its values (empty where no point has the axis).
pub fn cell_label(axes: &[Axis], set: &[Coord]) -> Vec<String> {
    let mut per_axis: BTreeMap<Axis, BTreeSet<i64>> = BTreeMap::new();
    for (a, v) in set.iter().flatten() {
        per_axis.entry(*a).or_default().insert(*v);
    }
    axes.iter().map(|a| per_axis.get(a).map(values_text).unwrap_or_default()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_runs_or_lists() {
        let set = |v: &[i64]| v.iter().copied().collect::<BTreeSet<i64>>();
        assert_eq!(values_text(&set(&[])), "");
        assert_eq!(values_text(&set(&[5])), "5");
        assert_eq!(values_text(&set(&[1, 3])), "1/3");
        assert_eq!(values_text(&set(&[1, 3, 4])), "1/3/4");
        assert_eq!(values_text(&set(&[0, 8, 16, 24])), "0..24+8");
        assert_eq!(values_text(&set(&[0, 1, 5, 9])), "0/1/..9");
    }

    #[test]
    fn labels_follow_the_axes_given() {
        let (lane, m) = (Axis::named("laneid").expect("axis"), Axis::named("m").expect("axis"));
        let set = vec![Coord::from([(lane, 3), (m, 0)]), Coord::from([(lane, 3), (m, 4)])];
        assert_eq!(cell_label(&[lane, m], &set), vec!["3", "0/4"]);
        let mut axes = vec![m, lane];
        axes.sort_by_key(axis_rank);
        assert_eq!(axes, vec![lane, m]);
    }
}
