//! The notebook view of a layout (`Layout._repr_html_`, `Layout.html`): a small self-contained HTML table of a
//! 1-D or 2-D logical shape, in the style of `axe-layout show`. Each cell is labelled with the element's image
//! (the values on every axis joined by ':', thread axes innermost first, then device, then memory axes; an axis
//! with several values across the replicas lists them as `a/b` or `lo..hi+s`), coloured by the thread that holds
//! it (the thread-axis values of its first point; one colour per distinct thread, none for a layout without
//! thread axes), and its `title` (the hover text) lists every point. Cells carry `data-thread`, the index of
//! their thread's colour, so tests and scripts can read the grouping.

use layout::label::{axis_rank, cell_label};
use layout::{Axis, Coord, Layout, LayoutError, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// The most cells one grid draws (a 64 x 64 tile).
pub const MAX_CELLS: i64 = 1 << 12;

/// The most axis values one grid lists (cells times points per cell times axes; every point is in a cell's hover
/// text), so that a replicated layout cannot make a page of gigabytes.
pub const MAX_VALUES: i64 = 1 << 18;

/// The shape `_repr_html_` draws: the shard's iters split into rows (the outer iters) and columns (the inner
/// ones) at the most nearly square split, the wider one on a tie, so `S[(8,4):...]` draws 8 x 4 and
/// `S[(8,2,4,2):...]` 8 x 16; a shard of one iter draws one row.
pub fn default_shape(layout: &Layout) -> Vec<i64> {
    let extents: Vec<i64> = layout.tile().shard().iter().map(|it| it.extent).collect();
    let split = |h: usize| -> (i64, i64) { (extents[..h].iter().product(), extents[h..].iter().product()) };
    let balance = |(rows, cols): (i64, i64)| (rows.max(cols) as f64 / rows.min(cols).max(1) as f64, rows > cols);
    match (1..extents.len())
        .map(split)
        .min_by(|a, b| balance(*a).partial_cmp(&balance(*b)).unwrap_or(std::cmp::Ordering::Equal))
    {
        Some((rows, cols)) => vec![rows, cols],
        None => vec![layout.size()],
    }
}

/// Text safe inside HTML elements and quoted attributes.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// The `k`-th of `n` thread colours: hues a golden angle apart, so neighbouring threads differ.
fn colour(k: usize) -> String {
    format!("hsl({:.0},70%,82%)", (k as f64 * 137.508) % 360.0)
}

/// The grid of `layout` over `shape` (admitted by the caller), or why it cannot be drawn (rank, size).
pub fn grid(layout: &Layout, shape: &[i64]) -> Result<String> {
    let (rows, cols) = match shape {
        [n] => (1, *n),
        [r, c] => (*r, *c),
        _ => return Err(LayoutError::new(format!("the grid draws 1-D and 2-D shapes, got rank {}", shape.len()))),
    };
    let size = layout.size();
    if size > MAX_CELLS {
        return Err(LayoutError::new(format!(
            "the layout has {size} elements, more than the grid draws ({MAX_CELLS}); slice a region first"
        )));
    }
    let evaluator = layout.evaluator()?;
    let (points, axis_count) = (evaluator.replica_len().max(1) as i64, evaluator.axes().len().max(1) as i64);
    let values = size.saturating_mul(points).saturating_mul(axis_count);
    if values > MAX_VALUES {
        return Err(LayoutError::new(format!(
            "the grid would list {size} elements x {points} points x {axis_count} axes = {values} values, more than \
             it draws ({MAX_VALUES}); slice a region first"
        )));
    }
    let sets: Vec<Vec<Coord>> = (0..size).map(|flat| evaluator.eval_flat(flat)).collect::<Result<_>>()?;
    let mut axes = layout.axes();
    axes.sort_by_key(axis_rank);
    let threads: Vec<Axis> = axes.iter().copied().filter(|a| a.is_thread()).collect();
    let thread_of = |set: &[Coord]| -> Vec<i64> {
        threads.iter().map(|a| set.first().and_then(|p| p.get(a)).copied().unwrap_or(0)).collect()
    };
    let distinct: BTreeSet<Vec<i64>> = sets.iter().map(|s| thread_of(s)).collect();
    let index: BTreeMap<&Vec<i64>, usize> = distinct.iter().enumerate().map(|(k, t)| (t, k)).collect();

    let names: Vec<&str> = axes.iter().map(|a| a.name()).collect();
    let thread_names: Vec<&str> = threads.iter().map(|a| a.name()).collect();
    let mut out = String::from("<div class=\"axe-layout\" style=\"font:12px monospace\">");
    let _ = write!(
        out,
        "<div>{} over {}; cell = {}; colour = {}</div>",
        escape(&layout.to_string()),
        escape(&layout::notation::shape_text(shape)),
        if names.is_empty() { "(no axes)".to_owned() } else { names.join(":") },
        if threads.is_empty() {
            "none (no thread axis)".to_owned()
        } else {
            format!("thread ({}), {} threads", thread_names.join(":"), distinct.len())
        }
    );
    out.push_str("<table style=\"border-collapse:collapse;font:11px monospace\"><tr><th></th>");
    for c in 0..cols {
        let _ = write!(out, "<th style=\"padding:0 4px\">{c}</th>");
    }
    out.push_str("</tr>");
    for r in 0..rows {
        let _ = write!(
            out,
            "<tr><th style=\"padding:0 4px\">{}</th>",
            if shape.len() == 1 { String::new() } else { r.to_string() }
        );
        for c in 0..cols {
            let set = &sets[(r * cols + c) as usize];
            let label = cell_label(&axes, set);
            let points: Vec<String> =
                set.iter().map(|p| p.iter().map(|(a, v)| format!("{a}={v}")).collect::<Vec<_>>().join(" ")).collect();
            let at = if shape.len() == 1 { format!("({c})") } else { format!("({r},{c})") };
            let thread = index[&thread_of(set)];
            let background = if threads.is_empty() { "#fff".to_owned() } else { colour(thread) };
            let _ = write!(
                out,
                "<td data-thread=\"{thread}\" style=\"background:{background};border:1px solid #999;padding:1px 4px;\
                 text-align:center\" title=\"{}\">{}</td>",
                escape(&format!("{at} -> {}", points.join(" | "))),
                escape(&label.join(":"))
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</table></div>");
    Ok(out)
}

/// What `_repr_html_` shows when the grid cannot be drawn: the layout's text and the reason.
pub fn note(layout: &Layout, e: &LayoutError) -> String {
    format!(
        "<div class=\"axe-layout\" style=\"font:12px monospace\">{}<br>(no grid: {})</div>",
        escape(&layout.to_string()),
        escape(&e.message)
    )
}
