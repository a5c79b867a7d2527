//! `axe-layout show L --shape R,C`: a grid of owners for people, in the style of the spec's tables.

use crate::cli::{admit, layout_arg, shape_opt_or, Args, CliError, Command};
use crate::cmd::eval::PointSets;
use axe_layout::label::{axis_rank, cell_label};

/// The most elements `show` draws.
const MAX_CELLS: i64 = 1 << 14;

/// The `show` subcommand.
pub const COMMAND: Command = Command {
    name: "show",
    usage: "show LAYOUT [--shape R,C] [--width W] [--html FILE]",
    about: "draw a 1-D or 2-D grid naming, for each element, the coordinates that hold it",
    help: "Each cell lists the element's value on every axis the layout uses, joined by ':' in the order the\n\
           legend gives (thread axes innermost first, then device axes, then memory axes). When an element has\n\
           several copies (a replica), an axis shows its set of values: a/b/c, or lo..hi+s for lo to hi in\n\
           steps of s. Columns are cut into bands so that each line fits --width (default 80).\n\
           --shape defaults to the 1-D shape of the layout's size.\n\
           --html FILE writes the explorer page of `serve` for this layout and shape instead, as one\n\
           self-contained file (no network): the grid coloured by thread, the bank view of a shared layout, the\n\
           TMA plan of a row-major global copy; editing another layout needs `axe-layout serve`.\n",
    positional: &["LAYOUT"],
    values: &["shape", "width", "html"],
    switches: &[],
    run,
};

fn run(args: &Args) -> Result<String, CliError> {
    if let Some(file) = args.value("html") {
        return crate::page::write_static(file, args.arg(0), args.value("shape").unwrap_or(""));
    }
    let layout = layout_arg("LAYOUT", args.arg(0))?;
    let shape = shape_opt_or(args, "shape", || vec![layout.size()])?;
    admit("--shape", &layout, &shape)?;
    let width: usize = match args.value("width") {
        None => 80,
        Some(w) => w
            .trim()
            .parse()
            .ok()
            .filter(|w| *w >= 8)
            .ok_or_else(|| CliError::Failed(format!("--width: expected a number of columns >= 8, got '{w}'")))?,
    };
    let (rows, cols) = match shape.as_slice() {
        [n] => (1, *n),
        [r, c] => (*r, *c),
        _ => return Err(CliError::Failed(format!("show draws 1-D and 2-D shapes, got rank {}", shape.len()))),
    };
    if layout.size() > MAX_CELLS {
        return Err(CliError::Failed(format!(
            "the layout has {} elements, more than show draws ({MAX_CELLS}); use eval --at",
            layout.size()
        )));
    }
    let flats: Vec<i64> = (0..layout.size()).collect();
    let mut axes = layout.axes();
    axes.sort_by_key(axis_rank);
    let cell = |set: &[axe_layout::Coord]| cell_label(&axes, set).join(":");
    let cells: Vec<String> =
        PointSets::new(&layout, &flats)?.iter().map(|set| set.map(|(_, set)| cell(&set))).collect::<Result<_, _>>()?;

    let names: Vec<&str> = axes.iter().map(|a| a.name()).collect();
    let shown = layout.to_pretty(width.saturating_sub(8).max(20)).replace('\n', "\n        ");
    let mut out = format!("layout: {shown}\n");
    out.push_str(&format!(
        "shape {}; cell = {}\n",
        axe_layout::notation::shape_text(&shape),
        if names.is_empty() { "(no axes)".to_owned() } else { names.join(":") },
    ));
    if layout.tile().replica_count() > 1 {
        out.push_str("copies: a/b = at a and at b; lo..hi+s = lo to hi in steps of s\n");
    }
    let cell_w =
        cells.iter().map(|c| c.chars().count()).max().unwrap_or(1).max(cols.saturating_sub(1).to_string().len());
    let label_w = if shape.len() == 1 { 0 } else { rows.saturating_sub(1).to_string().len() };
    let per_band = ((width.saturating_sub(label_w + 2)) / (cell_w + 1)).max(1) as i64;
    let mut start = 0i64;
    while start < cols {
        let end = (start + per_band).min(cols);
        out.push('\n');
        let mut header = format!("{:label_w$} |", "");
        let mut rule = format!("{:-<label_w$}-+", "");
        for c in start..end {
            header.push_str(&format!(" {c:>cell_w$}"));
            rule.push_str(&"-".repeat(cell_w + 1));
        }
        out.push_str(header.trim_end());
        out.push('\n');
        out.push_str(&rule);
        out.push('\n');
        for r in 0..rows {
            let label = if shape.len() == 1 { String::new() } else { r.to_string() };
            let mut line = format!("{label:>label_w$} |");
            for c in start..end {
                let cell = cells.get((r * cols + c) as usize).map_or("", String::as_str);
                line.push_str(&format!(" {cell:>cell_w$}"));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        start = end;
    }
    Ok(out)
}
