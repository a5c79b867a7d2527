//! `axe-layout eval LAYOUT --shape S [--at X] [--json]`: the coordinate set of every logical index.

use crate::cli::{admit, coord_opt, layout_arg, shape_opt_or, to_json, Args, CliError, Command};
use axe_layout::tile_layout::{flatten, unflatten};
use axe_layout::{Coord, Evaluator, Layout};
use serde::ser::{Error as _, SerializeSeq, Serializer};
use serde::Serialize;
use std::collections::BTreeMap;

/// The most coordinates one invocation lists (elements times replicas).
pub const MAX_POINTS: i64 = 1 << 20;

/// The `eval` subcommand.
pub const COMMAND: Command = Command {
    name: "eval",
    usage: "eval LAYOUT [--shape S] [--at X] [--json]",
    about: "list the coordinate set L(x) of every logical index x (or of one)",
    help: "options:\n  \
           --shape S   logical shape, e.g. 8,16 (default: the 1-D shape of the layout's size)\n  \
           --at X      only this logical coordinate, e.g. 7,15\n  \
           --json      {\"layout\": \"<canonical text>\", \"shape\": [8,16], \"points\": [[{\"laneid\":0,\"m\":0,\"warpid\":5}, ...], ...]}\n\
           \n\
           points holds one list per logical index in row-major order (only the --at index when given): the\n\
           index's coordinate set, sorted and without duplicates, each coordinate an object over every axis the\n\
           layout uses (keys sorted). For a swizzled layout m is the swizzled address.\n\
           Without --json: one line per index, `(i,j)  axis=v ... | axis=v ...`.\n",
    positional: &["LAYOUT"],
    values: &["shape", "at"],
    switches: &[],
    run,
};

#[derive(Serialize)]
struct EvalJson<'a> {
    layout: String,
    shape: Vec<i64>,
    points: PointSets<'a>,
}

fn named(c: &Coord) -> BTreeMap<&'static str, i64> {
    c.iter().map(|(a, v)| (a.name(), *v)).collect()
}

/// The coordinate sets of some indices of a layout, evaluated one index at a time as they are written, so the
/// listing never holds more than one set; [`PointSets::new`] checks the amount of output first.
pub struct PointSets<'a> {
    evaluator: Evaluator,
    flats: &'a [i64],
}

impl<'a> PointSets<'a> {
    /// The sets of `flats`, or an error when they would list more than [`MAX_POINTS`] coordinates (distinct
    /// replica offsets times indices).
    pub fn new(layout: &Layout, flats: &'a [i64]) -> Result<PointSets<'a>, CliError> {
        let evaluator = layout.evaluator()?;
        let count = (evaluator.replica_len() as i64).saturating_mul(flats.len() as i64);
        if count > MAX_POINTS {
            return Err(CliError::Failed(format!(
                "the layout has {count} coordinates to list, more than {MAX_POINTS}; use --at to pick one index"
            )));
        }
        Ok(PointSets { evaluator, flats })
    }

    /// Each index with its coordinate set, in the order given.
    pub fn iter(&self) -> impl Iterator<Item = axe_layout::Result<(i64, Vec<Coord>)>> + '_ {
        self.flats.iter().map(|&flat| Ok((flat, self.evaluator.eval_flat(flat)?)))
    }
}

impl Serialize for PointSets<'_> {
    /// A JSON list with one list of coordinate objects per index.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.flats.len()))?;
        for set in self.iter() {
            let (_, set) = set.map_err(S::Error::custom)?;
            seq.serialize_element(&set.iter().map(named).collect::<Vec<_>>())?;
        }
        seq.end()
    }
}

fn run(args: &Args) -> Result<String, CliError> {
    let layout = layout_arg("LAYOUT", args.arg(0))?;
    let shape = shape_opt_or(args, "shape", || vec![layout.size()])?;
    admit("--shape", &layout, &shape)?;
    let flats: Vec<i64> = match coord_opt(args, "at")? {
        Some(x) => vec![flatten(&shape, &x).map_err(|e| CliError::Failed(format!("--at: {}", e.message)))?],
        None => {
            if layout.size() > MAX_POINTS {
                return Err(CliError::Failed(format!(
                    "the layout has {} elements, more than {MAX_POINTS}; use --at to pick one index",
                    layout.size()
                )));
            }
            (0..layout.size()).collect()
        }
    };
    let points = PointSets::new(&layout, &flats)?;
    if args.json() {
        return to_json(&EvalJson { layout: layout.to_string(), shape, points });
    }
    let mut out = format!("layout: {layout}\nshape:  {}\n", axe_layout::notation::shape_text(&shape));
    for set in points.iter() {
        let (flat, set) = set?;
        let coords: Vec<String> =
            set.iter().map(|c| c.iter().map(|(a, v)| format!("{a}={v}")).collect::<Vec<_>>().join(" ")).collect();
        let x: Vec<String> = unflatten(&shape, flat).iter().map(i64::to_string).collect();
        out.push_str(&format!("({})  {}\n", x.join(","), coords.join(" | ")));
    }
    Ok(out)
}
