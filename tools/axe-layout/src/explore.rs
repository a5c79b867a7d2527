//! The layout explorer's JSON API, shared by `axe-layout serve` (answered live) and `axe-layout show --html`
//! (answered once, the answers embedded in the file).
//!
//! Three endpoints, each a JSON object of strings in and a JSON object out:
//! - `eval` `{layout, shape}`: the coordinate sets of the drawn cells, in the format of `eval --json`'s `points`
//!   (computed by the same [`PointSets`]), with the axes and the grid's size;
//! - `tma` `{global, global_shape, global_region, shared, shared_shape, shared_region, dtype, direction}`: the
//!   `tma-plan --json` object of the same command line (the command's own [`tma_plan::plan_of`]), and which issue
//!   writes each element of the shared region;
//! - `mma` `{chip, dtype, acc_dtype, a, a_shape, a_mem, b, ..., c_mem}`: the `mma-plan --json` object
//!   ([`mma_plan::plan_of`]) and, per operand element, the issue, fragment element and lane that hold it.
//!
//! A refusal is `{"error": {"field", "column", "message", "text"}}`: the request field at fault (or null for a
//! refusal of the whole request), the 1-based character column where the library's parser stopped (or null), the
//! message, and the CLI's full text (with the caret line).
//!
//! # What is drawn
//! A shape of rank 1 is one row; a higher rank is drawn as rows x columns, the columns being the last dimension and
//! the rows every other dimension in row-major order ("grouped"). At most [`MAX_CELLS`] cells (and [`MAX_COLS`]
//! columns, [`MAX_POINTS_DRAWN`] coordinates and [`MAX_VALUES_DRAWN`] axis values in all) are evaluated: the top-left
//! corner of the grid, with a `note` saying what was left out, so a huge shape never freezes the page.
//!
//! # What one answer costs
//! `axe-layout serve` answers any page that asks, so every answer is bounded whatever the request: the caps above
//! bound an `eval` answer (about 2 MB of JSON at most), an element whose copies alone exceed them is refused, and a
//! TMA or MMA plan of more than [`MAX_ISSUES_DRAWN`] issues is refused (each drawn cell looks its issue up, so the
//! work is cells times issues); the planners bound their own work.

use crate::cli::{located, Args, CliError, Command};
use crate::cmd::eval::PointSets;
use crate::{mma_plan, tma_plan};
use axe_layout::label::axis_rank;
use axe_layout::mma::{Access, MmaPlan};
use axe_layout::notation::{parse_layout, parse_region, parse_shape};
use axe_layout::tile_layout::{flatten, unflatten};
use axe_layout::{AxisKind, Evaluator, Layout, LayoutError};
use serde_json::{json, Map, Value};

/// The most grid cells one answer evaluates.
pub const MAX_CELLS: i64 = 4096;
/// The most columns one answer evaluates.
pub const MAX_COLS: i64 = 256;
/// The most coordinates (cells times replicas) one answer lists.
pub const MAX_POINTS_DRAWN: i64 = 1 << 16;
/// The most axis values (coordinates times the layout's axes) one answer lists: a layout on all 20 built-in axes
/// with 16 copies per element would otherwise list 4096 x 16 x 20 values, 35 MB of JSON.
pub const MAX_VALUES_DRAWN: i64 = 1 << 17;
/// The most issues of a TMA or MMA plan the explorer draws (the CLI prints larger plans).
pub const MAX_ISSUES_DRAWN: usize = 4096;

/// A refused request: which field, where in it, and why.
#[derive(Debug)]
pub struct ApiError {
    field: Option<String>,
    column: Option<usize>,
    message: String,
    text: String,
}

impl ApiError {
    fn whole(message: impl Into<String>) -> ApiError {
        let message = message.into();
        ApiError { field: None, column: None, text: message.clone(), message }
    }

    fn field(field: &str, message: impl Into<String>) -> ApiError {
        let message = message.into();
        ApiError { field: Some(field.to_owned()), column: None, text: format!("{field}: {message}"), message }
    }

    /// A parse error in `text`, the value of `field`, at the library's byte offset (turned into a character
    /// column); `text` is the CLI's message with its caret line.
    fn parse(field: &str, text: &str, e: &LayoutError) -> ApiError {
        let column = e.column.map(|c| {
            let c = (0..=c.min(text.len())).rev().find(|c| text.is_char_boundary(*c)).unwrap_or(0);
            text[..c].chars().count() + 1
        });
        let full = match located(field, text, e) {
            CliError::Usage(m) | CliError::Failed(m) => m,
        };
        ApiError { field: Some(field.to_owned()), column, message: e.message.clone(), text: full }
    }

    /// The whole message, as the CLI prints it (with the caret line for a parse error).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The JSON answer.
    pub fn to_json(&self) -> Value {
        json!({ "error": {
            "field": self.field, "column": self.column, "message": self.message, "text": self.text,
        }})
    }
}

impl From<CliError> for ApiError {
    fn from(e: CliError) -> ApiError {
        match e {
            CliError::Usage(m) | CliError::Failed(m) => ApiError::whole(m),
        }
    }
}

impl From<LayoutError> for ApiError {
    fn from(e: LayoutError) -> ApiError {
        ApiError::whole(e.message)
    }
}

/// Answers one request to `endpoint` (`eval`, `tma` or `mma`).
pub fn answer(endpoint: &str, request: &Value) -> Result<Value, ApiError> {
    match endpoint {
        "eval" => eval(request),
        "tma" => tma(request),
        "mma" => mma(request),
        _ => Err(ApiError::whole(format!("unknown endpoint '{endpoint}' (eval, tma or mma)"))),
    }
}

/// The string field `name` of the request (absent is empty).
fn text<'a>(request: &'a Value, name: &str) -> Result<&'a str, ApiError> {
    match request.get(name) {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ApiError::field(name, "expected a string")),
    }
}

fn layout_field(request: &Value, name: &str) -> Result<Layout, ApiError> {
    let t = text(request, name)?;
    if t.trim().is_empty() {
        return Err(ApiError::field(name, "a layout is needed"));
    }
    parse_layout(t).map_err(|e| ApiError::parse(name, t, &e))
}

fn shape_field(request: &Value, name: &str) -> Result<Vec<i64>, ApiError> {
    let t = text(request, name)?;
    parse_shape(t).map_err(|e| ApiError::parse(name, t, &e))
}

fn region_field(request: &Value, name: &str) -> Result<Vec<(i64, i64)>, ApiError> {
    let t = text(request, name)?;
    parse_region(t).map_err(|e| ApiError::parse(name, t, &e))
}

/// The grid a shape is drawn as: (rows, columns).
fn grid_of(shape: &[i64]) -> (i64, i64) {
    match shape.split_last() {
        None => (1, 1),
        Some((last, rest)) => (rest.iter().product(), *last),
    }
}

/// The drawn corner of a `rows x cols` grid when each cell lists `replicas` coordinates of `axes` values, and the
/// note saying what was left out (empty when everything is drawn).
fn window(rows: i64, cols: i64, replicas: i64, axes: i64) -> (i64, i64, String) {
    let (replicas, axes) = (replicas.max(1), axes.max(1));
    let cells = MAX_CELLS.min(MAX_POINTS_DRAWN / replicas).min(MAX_VALUES_DRAWN / replicas.saturating_mul(axes)).max(1);
    let shown_cols = cols.min(MAX_COLS).min(cells);
    let shown_rows = rows.min(cells / shown_cols.max(1)).max(1).min(rows);
    let note = if shown_rows < rows || shown_cols < cols {
        format!(
            "showing rows 0..{shown_rows} and columns 0..{shown_cols} of {rows} x {cols}: the page draws at most \
             {MAX_CELLS} cells, {MAX_COLS} columns, {MAX_POINTS_DRAWN} coordinates and {MAX_VALUES_DRAWN} axis values \
             (each cell has {replicas} coordinates of {axes} axes)"
        )
    } else {
        String::new()
    };
    (shown_rows, shown_cols, note)
}

/// The flat indices (row-major in the full grid) of the drawn corner.
fn window_flats(cols: i64, shown_rows: i64, shown_cols: i64) -> Vec<i64> {
    (0..shown_rows).flat_map(|r| (0..shown_cols).map(move |c| r * cols + c)).collect()
}

/// `{layout, shape}`: see the module documentation.
fn eval(request: &Value) -> Result<Value, ApiError> {
    let layout = layout_field(request, "layout")?;
    let shape =
        if text(request, "shape")?.trim().is_empty() { vec![layout.size()] } else { shape_field(request, "shape")? };
    layout.admits(&shape).map_err(|e| ApiError::field("shape", e.message))?;
    let replicas = layout.evaluator()?.replica_len() as i64;
    if replicas > MAX_POINTS_DRAWN {
        return Err(ApiError::whole(format!(
            "every element has {replicas} copies, more than the page draws ({MAX_POINTS_DRAWN} coordinates)"
        )));
    }
    let axis_count = layout.axes().len() as i64;
    if replicas.saturating_mul(axis_count) > MAX_VALUES_DRAWN {
        return Err(ApiError::whole(format!(
            "every element has {replicas} copies of {axis_count} axes, more than the page draws ({MAX_VALUES_DRAWN} \
             axis values)"
        )));
    }
    let (rows, cols) = grid_of(&shape);
    let (shown_rows, shown_cols, note) = window(rows, cols, replicas, axis_count);
    let flats = window_flats(cols, shown_rows, shown_cols);
    let points = serde_json::to_value(PointSets::new(&layout, &flats)?).map_err(|e| ApiError::whole(e.to_string()))?;
    let mut axes = layout.axes();
    axes.sort_by_key(axis_rank);
    let axes: Vec<Value> = axes
        .iter()
        .map(|a| {
            let (kind, unit, within) = match a.kind() {
                AxisKind::Memory => ("memory", None, None),
                AxisKind::Device => ("device", None, None),
                AxisKind::Thread { unit, within } => ("thread", Some(unit.name()), Some(within.name())),
            };
            json!({ "name": a.name(), "kind": kind, "unit": unit, "within": within })
        })
        .collect();
    let memory_only = layout.axes().iter().all(|a| a.is_memory());
    let tma_defaults = memory_only.then(|| {
        let strides: Vec<i64> = (0..shape.len()).map(|i| shape[i + 1..].iter().product::<i64>()).collect::<Vec<_>>();
        let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        let region = shape.iter().map(|n| format!("0:{n}")).collect::<Vec<_>>().join(",");
        json!({
            "global": format!("S[({}):({})]", list(&shape), list(&strides)),
            "global_shape": list(&shape),
            "global_region": region,
            "shared_shape": list(&shape),
            "shared_region": region,
        })
    });
    Ok(json!({
        "layout": layout.to_string(),
        "shape": shape,
        "size": layout.size(),
        "replicas": replicas,
        "axes": axes,
        "rows": rows,
        "cols": cols,
        "shown_rows": shown_rows,
        "shown_cols": shown_cols,
        "note": note,
        "points": points,
        "tma_defaults": tma_defaults,
    }))
}

/// Runs `command`'s own argument parser on `--name value` pairs, as if typed on the command line.
fn command_args(command: &Command, pairs: &[(&str, &str)]) -> Result<Args, ApiError> {
    let mut argv = Vec::new();
    for (name, value) in pairs {
        if *value == "-" {
            return Err(ApiError::field(name, "'-' (standard input) is for the command line"));
        }
        argv.push(format!("--{name}"));
        argv.push((*value).to_owned());
    }
    argv.push("--json".to_owned());
    Ok(Args::parse(command, &argv)?)
}

/// `{global, global_shape, global_region, shared, shared_shape, shared_region, dtype, direction}`.
fn tma(request: &Value) -> Result<Value, ApiError> {
    // Parse every field first, so an error names the field and column.
    let shared = layout_field(request, "shared")?;
    let shared_shape = shape_field(request, "shared_shape")?;
    let region = region_field(request, "shared_region")?;
    layout_field(request, "global")?;
    shape_field(request, "global_shape")?;
    region_field(request, "global_region")?;
    let mut pairs = Vec::new();
    for name in ["global", "global_shape", "global_region", "shared", "shared_shape", "shared_region", "dtype"] {
        pairs.push((name.replace('_', "-"), text(request, name)?.to_owned()));
    }
    let direction = text(request, "direction")?;
    if !direction.is_empty() {
        pairs.push(("direction".to_owned(), direction.to_owned()));
    }
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let args = command_args(&tma_plan::COMMAND, &pairs)?;
    let plan = tma_plan::plan_of(&args)?;
    too_many_issues(plan.issues.len())?;

    // Which issue writes each drawn element of the shared region: TMA writes a box densely from its shared offset
    // (before the swizzle), so element x is in issue i when its unswizzled byte address lies in
    // [smem_offset_bytes_i, smem_offset_bytes_i + box_bytes).
    let extents: Vec<i64> = region.iter().map(|(b, e)| e - b).collect();
    let (rows, cols) = grid_of(&extents);
    let (shown_rows, shown_cols, note) = window(rows, cols, 1, 1);
    let unswizzled = Evaluator::for_tile(shared.tile())?;
    let bytes = plan.elem.bytes();
    let mut issue_of = Vec::new();
    for flat in window_flats(cols, shown_rows, shown_cols) {
        let x: Vec<i64> = unflatten(&extents, flat).iter().zip(&region).map(|(i, (b, _))| b + i).collect();
        let address = unswizzled.eval_flat(flatten(&shared_shape, &x)?)?;
        let m = address.first().and_then(|c| c.values().next().copied());
        let issue = m.and_then(|m| {
            let byte = m.saturating_mul(bytes);
            plan.issues
                .iter()
                .position(|i| i.smem_offset_bytes <= byte && byte < i.smem_offset_bytes + plan.box_bytes as i64)
        });
        issue_of.push(issue);
    }
    let plan_json = serde_json::to_value(tma_plan::json(&plan)).map_err(|e| ApiError::whole(e.to_string()))?;
    Ok(json!({
        "plan": plan_json,
        "text": tma_plan::text(&plan),
        "box_bytes": plan.box_bytes,
        "rows": rows,
        "cols": cols,
        "shown_rows": shown_rows,
        "shown_cols": shown_cols,
        "note": note,
        "issue_of": issue_of,
    }))
}

/// Refuses a plan of more than [`MAX_ISSUES_DRAWN`] issues.
fn too_many_issues(issues: usize) -> Result<(), ApiError> {
    if issues > MAX_ISSUES_DRAWN {
        return Err(ApiError::whole(format!(
            "the plan has {issues} issues, more than the page draws ({MAX_ISSUES_DRAWN}); the CLI prints it"
        )));
    }
    Ok(())
}

/// `{chip, dtype, acc_dtype, a, a_shape, a_mem, b, b_shape, b_mem, c, c_shape, c_mem}`.
fn mma(request: &Value) -> Result<Value, ApiError> {
    let mut operands = Vec::new();
    for role in ["a", "b", "c"] {
        let layout = layout_field(request, role)?;
        let shape = shape_field(request, &format!("{role}_shape"))?;
        operands.push((role, layout, shape, text(request, &format!("{role}_mem"))?.to_owned()));
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    for name in ["chip", "dtype", "acc_dtype"] {
        let v = text(request, name)?;
        if !v.is_empty() || name != "acc_dtype" {
            pairs.push((name.replace('_', "-"), v.to_owned()));
        }
    }
    for role in ["a", "b", "c"] {
        for (suffix, key) in
            [("", role.to_owned()), ("-shape", format!("{role}_shape")), ("-mem", format!("{role}_mem"))]
        {
            pairs.push((format!("{role}{suffix}"), text(request, &key)?.to_owned()));
        }
    }
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let args = command_args(&mma_plan::COMMAND, &pairs)?;
    let plan = mma_plan::plan_of(&args)?;
    too_many_issues(plan.issues.len())?;
    let mut grids = Map::new();
    for (role, layout, shape, mem) in &operands {
        grids.insert((*role).to_owned(), operand_grid(&plan, role, layout, shape, mem)?);
    }
    Ok(json!({
        "plan": mma_plan::json_of(&plan),
        "text": mma_plan::text(&plan),
        "operands": grids,
    }))
}

/// For each drawn element of one operand: the first issue (in issue order) whose tile holds it and, in registers,
/// whose fragment lists its register: `{issue, frag, point}` (`frag` the fragment element index a0.., `point` the
/// element's first coordinate), `{issue}` in shared memory, `{issue, point}` in tensor memory, null if none.
fn operand_grid(plan: &MmaPlan, role: &str, layout: &Layout, shape: &[i64], mem: &str) -> Result<Value, ApiError> {
    let (rows, cols) = match shape {
        [r, c] => (*r, *c),
        _ => return Err(ApiError::field(&format!("{role}_shape"), "an operand is [rows, cols]")),
    };
    let [im, inn, ik] = plan.inst_shape;
    let evaluator = layout.evaluator()?;
    // Each cell evaluates every copy but lists the first one's point.
    let (shown_rows, shown_cols, note) = window(rows, cols, evaluator.replica_len() as i64, 1);
    let mut cells = Vec::new();
    for flat in window_flats(cols, shown_rows, shown_cols) {
        let (r, c) = (flat / cols, flat % cols);
        let points = evaluator.eval_flat(flat)?;
        let first = points.first();
        let point: Option<Map<String, Value>> =
            first.map(|p| p.iter().map(|(a, v)| (a.name().to_owned(), json!(v))).collect());
        let register = first.and_then(|p| p.iter().find(|(a, _)| a.name() == "m").map(|(_, v)| *v));
        let mut cell = Value::Null;
        for (index, issue) in plan.issues.iter().enumerate() {
            let (row0, rows_n, col0, cols_n, access) = match role {
                "a" => (issue.m, im, issue.k, ik, &issue.a),
                "b" => (issue.k, ik, issue.n, inn, &issue.b),
                _ => (issue.m, im, issue.n, inn, &issue.c),
            };
            if !(row0 <= r && r < row0 + rows_n && col0 <= c && c < col0 + cols_n) {
                continue;
            }
            match access {
                Access::Regs(regs) => {
                    if let Some(frag) = register.and_then(|m| regs.iter().position(|v| *v == m)) {
                        cell = json!({ "issue": index, "frag": frag, "point": point });
                        break;
                    }
                }
                Access::Smem(_) => {
                    cell = json!({ "issue": index });
                    break;
                }
                Access::Tmem { .. } => {
                    cell = json!({ "issue": index, "point": point });
                    break;
                }
            }
        }
        cells.push(cell);
    }
    Ok(json!({
        "mem": mem, "rows": rows, "cols": cols, "shown_rows": shown_rows, "shown_cols": shown_cols,
        "note": note, "cells": cells,
    }))
}

/// The default GEMM of the page's MMA view: one warp's `mma.sync.m16n8k16` with f16 A and B and an f32
/// accumulator, every operand in its PTX ISA fragment layout (9.7.14.5.8).
pub fn default_mma_request() -> Value {
    json!({
        "chip": "sm_80", "dtype": "f16", "acc_dtype": "f32",
        "a": "S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]", "a_shape": "16,16", "a_mem": "reg",
        "b": "S[(2,4,2,8):(2,1@laneid,1,4@laneid)]", "b_shape": "16,8", "b_mem": "reg",
        "c": "S[(2,8,4,2):(2,4@laneid,1@laneid,1)]", "c_shape": "16,8", "c_mem": "reg",
    })
}

/// The key under which a static page finds the answer to a request: the endpoint, a newline, and the request's
/// JSON with its keys sorted (the page builds the same key with `JSON.stringify` over sorted keys).
pub fn request_key(endpoint: &str, request: &Value) -> String {
    let sorted: std::collections::BTreeMap<&String, &Value> =
        request.as_object().map(|o| o.iter().collect()).unwrap_or_default();
    format!("{endpoint}\n{}", serde_json::to_string(&sorted).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(endpoint: &str, request: Value) -> Value {
        answer(endpoint, &request).unwrap_or_else(|e| panic!("{endpoint}: {}", e.text()))
    }

    #[test]
    fn eval_lists_the_cells_of_the_drawn_grid_in_row_major_order() {
        let v = ok("eval", json!({ "layout": "S[(8,4):(4@laneid,1@laneid)]", "shape": "8,4" }));
        assert_eq!((v["rows"].as_i64(), v["cols"].as_i64(), v["note"].as_str()), (Some(8), Some(4), Some("")));
        let points = v["points"].as_array().unwrap();
        assert_eq!(points.len(), 32);
        // Element (i, j) is lane 4i + j.
        assert_eq!(points[4 * 3 + 2], json!([{ "laneid": 14 }]));
        assert_eq!(v["axes"][0]["unit"], "thread");
        assert!(v["tma_defaults"].is_null(), "a thread layout has no TMA view");
    }

    #[test]
    fn higher_ranks_are_grouped_into_rows() {
        let v = ok("eval", json!({ "layout": "S[(2,3,4):(12,4,1)]", "shape": "2,3,4" }));
        assert_eq!((v["rows"].as_i64(), v["cols"].as_i64()), (Some(6), Some(4)));
        // Row 4 = (1, 1), column 2: address 12 + 4 + 2.
        assert_eq!(v["points"][4 * 4 + 2], json!([{ "m": 18 }]));
        assert_eq!(v["tma_defaults"]["global"], "S[(2,3,4):(12,4,1)]");
        assert_eq!(v["tma_defaults"]["shared_region"], "0:2,0:3,0:4");
    }

    #[test]
    fn a_huge_shape_draws_a_capped_corner_and_says_so() {
        let v = ok("eval", json!({ "layout": "S[(1048576,1024):(1024,1)]", "shape": "1048576,1024" }));
        assert_eq!((v["shown_rows"].as_i64(), v["shown_cols"].as_i64()), (Some(16), Some(256)));
        assert_eq!(v["points"].as_array().unwrap().len() as i64, MAX_CELLS);
        assert!(v["note"].as_str().unwrap().starts_with("showing rows 0..16 and columns 0..256 of 1048576 x 1024"));
        // Many replicas: fewer cells, so at most MAX_POINTS_DRAWN coordinates.
        let v = ok("eval", json!({ "layout": "S[64:1] + R[1024:1@tid]", "shape": "64" }));
        assert_eq!(v["shown_cols"].as_i64(), Some(MAX_POINTS_DRAWN / 1024));
    }

    #[test]
    fn an_answer_lists_at_most_max_values_drawn_axis_values() {
        // 19 axes (every built-in one), 16 copies of each element: floor(2^17 / (16 * 19)) = 431 cells, which is 6
        // whole rows of a 64 x 64 grid. Uncapped, 4096 cells would list 1,245,184 values (35 MB of JSON).
        let heavy = "S[(16,16,16):(1@laneid,1@warpid,1@m)] + R[16:1@tid] + 1@reg + 1@wgid + 1@wid_in_wg + \
                     1@tid_in_wg + 1@bx + 1@by + 1@bz + 1@cbx + 1@cby + 1@cbz + 1@clusterid + 1@gpuid + 1@gpuid_x + \
                     1@gpuid_y + 1@pid";
        let v = ok("eval", json!({ "layout": heavy, "shape": "64,64" }));
        assert_eq!((v["shown_rows"].as_i64(), v["shown_cols"].as_i64()), (Some(6), Some(64)));
        let points = v["points"].as_array().unwrap();
        let values: usize =
            points.iter().flat_map(|cell| cell.as_array().unwrap()).map(|coord| coord.as_object().unwrap().len()).sum();
        assert_eq!(values, 6 * 64 * 16 * 19);
        assert!(v["note"].as_str().unwrap().ends_with("(each cell has 16 coordinates of 19 axes)"));
        // One element whose copies alone exceed the cap is refused: 65536 copies on m, tid and laneid.
        let e = answer("eval", &json!({ "layout": "S[4:1] + R[65536:1@tid] + 1@laneid", "shape": "" })).unwrap_err();
        assert_eq!(e.text(), "every element has 65536 copies of 3 axes, more than the page draws (131072 axis values)");
    }

    #[test]
    fn plans_of_more_issues_than_the_page_draws_are_refused() {
        assert!(too_many_issues(MAX_ISSUES_DRAWN).is_ok());
        let e = too_many_issues(MAX_ISSUES_DRAWN + 1).unwrap_err();
        assert_eq!(e.text(), "the plan has 4097 issues, more than the page draws (4096); the CLI prints it");
        // A 4096 x 4096 f16 copy into shared memory whose rows are contiguous for 8 elements only: boxes of 8
        // columns and at most 256 rows (the TMA box limit), 512 x 16 = 8192 issues; each drawn cell would have
        // searched them all.
        let e = answer(
            "tma",
            &json!({
                "global": "S[(4096,4096):(4096,1)]", "global_shape": "4096,4096", "global_region": "0:4096,0:4096",
                "shared": "S[(4096,512,8):(8,32768,1)]", "shared_shape": "4096,4096",
                "shared_region": "0:4096,0:4096", "dtype": "f16", "direction": "g2s",
            }),
        )
        .unwrap_err();
        assert_eq!(e.text(), "the plan has 8192 issues, more than the page draws (4096); the CLI prints it");
    }

    #[test]
    fn parse_errors_name_the_field_and_the_character_column() {
        let e = answer("eval", &json!({ "layout": "S[(8,4):(4@laneid,1@laneid]", "shape": "" })).unwrap_err();
        let j = e.to_json();
        assert_eq!((j["error"]["field"].as_str(), j["error"]["column"].as_i64()), (Some("layout"), Some(27)));
        assert!(e.text().ends_with("S[(8,4):(4@laneid,1@laneid]\n                            ^"), "{}", e.text());
        let e = answer("eval", &json!({ "layout": "S[4:1]", "shape": "2,x" })).unwrap_err().to_json();
        assert_eq!((e["error"]["field"].as_str(), e["error"]["column"].as_i64()), (Some("shape"), Some(3)));
        let e = answer("eval", &json!({ "layout": "S[4:1]", "shape": "3" })).unwrap_err().to_json();
        assert_eq!(e["error"]["field"], "shape");
        let e = answer("eval", &json!({ "layout": 5 })).unwrap_err().to_json();
        assert_eq!(e["error"]["message"], "expected a string");
        assert!(answer("nope", &json!({})).is_err());
    }

    #[test]
    fn tma_puts_each_element_in_the_issue_whose_shared_bytes_hold_it() {
        // Two 128B-swizzled panels of 64 f16 columns, 1024 bytes apart: one box each.
        let v = ok(
            "tma",
            json!({
                "global": "S[(8,128):(128,1)]", "global_shape": "8,128", "global_region": "0:8,0:128",
                "shared": "Swizzle(3,3,3) o S[(8,2,64):(64,512,1)]", "shared_shape": "8,128",
                "shared_region": "0:8,0:128", "dtype": "f16", "direction": "g2s",
            }),
        );
        assert_eq!(v["plan"]["issues"].as_array().unwrap().len(), 2);
        let issue_of = v["issue_of"].as_array().unwrap();
        for (k, issue) in issue_of.iter().enumerate() {
            assert_eq!(issue.as_i64(), Some((k % 128 / 64) as i64), "element {k}");
        }
        // Every field is parsed before planning, so an error names its field ('-' is not standard input here).
        let e = answer("tma", &json!({ "global": "-", "shared": "S[4:1]" })).unwrap_err().to_json();
        assert_eq!(e["error"]["field"], "global");
    }

    #[test]
    fn mma_names_the_fragment_element_and_lane_of_each_register_element() {
        let v = ok("mma", default_mma_request());
        assert_eq!(v["plan"]["instruction"], "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
        // PTX ISA 9.7.14.5.8: C element (9, 3) is c2 of lane 4*1 + 3/2 = 5.
        let c = &v["operands"]["c"]["cells"][9 * 8 + 3];
        assert_eq!((c["frag"].as_i64(), c["point"]["laneid"].as_i64()), (Some(3), Some(5)));
        let e = answer(
            "mma",
            &json!({ "a": "S[4:1]", "a_shape": "4", "b": "S[4:1]", "b_shape": "2,2", "c": "S[4:1]",
            "c_shape": "2,2", "chip": "sm_80", "dtype": "f16", "a_mem": "reg", "b_mem": "reg", "c_mem": "reg" }),
        )
        .unwrap_err();
        assert!(e.text().contains("mma:"), "{}", e.text());
    }

    #[test]
    fn request_keys_sort_the_fields() {
        let key = request_key("eval", &json!({ "shape": "8", "layout": "S[8:1]" }));
        assert_eq!(key, "eval\n{\"layout\":\"S[8:1]\",\"shape\":\"8\"}");
    }
}
