//! `axe-layout span L [--axis A]`: span(L, a) = 1 + sum of (e-1)*|s| over the iters on a, plus O[a].

use crate::cli::{layout_arg, to_json, Args, CliError, Command};
use axe_layout::Axis;
use serde::Serialize;

/// The `span` subcommand.
pub const COMMAND: Command = Command {
    name: "span",
    usage: "span LAYOUT [--axis A] [--json]",
    about: "the span of a layout on one axis, or over its memory axes (the default)",
    help: "span(L, a) = 1 + sum over shard and replica iters on a of (extent-1)*|stride|, plus the offset on a.\n\
           Without --axis (or with --axis memory) the memory axes (m, TLane, TCol, ...) count together.\n\
           prints the number. --json: {\"layout\": \"<canonical text>\", \"span\": n}\n",
    positional: &["LAYOUT"],
    values: &["axis"],
    switches: &[],
    run,
};

#[derive(Serialize)]
struct SpanJson {
    layout: String,
    span: i64,
}

fn run(args: &Args) -> Result<String, CliError> {
    let layout = layout_arg("LAYOUT", args.arg(0))?;
    let span = match args.value("axis") {
        None | Some("memory") => layout.tile().span_memory(),
        Some(name) => {
            layout.tile().span_on(Axis::named(name).map_err(|e| CliError::Failed(format!("--axis: {}", e.message)))?)
        }
    };
    if args.json() {
        return to_json(&SpanJson { layout: layout.to_string(), span });
    }
    Ok(format!("{span}\n"))
}
