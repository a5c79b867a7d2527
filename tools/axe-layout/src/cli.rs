//! The small shared machinery of the subcommands: the command table entry, a hand-rolled argument parser,
//! errors with exit codes, and helpers that read layouts, shapes and regions from arguments.

use axe_layout::notation::{parse_coord, parse_layout, parse_region, parse_shape};
use axe_layout::{Layout, LayoutError, TileLayout};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;

/// One subcommand: its name, help text, the options it accepts and the function that runs it.
pub struct Command {
    /// The subcommand word (`eval`).
    pub name: &'static str,
    /// One-line synopsis after `axe-layout` (`eval LAYOUT --shape S [--at X] [--json]`).
    pub usage: &'static str,
    /// One sentence for the command list.
    pub about: &'static str,
    /// The rest of `--help`: what it prints, the options, the JSON.
    pub help: &'static str,
    /// Names of the positional arguments, in order (all required).
    pub positional: &'static [&'static str],
    /// Options that take a value (`--shape`).
    pub values: &'static [&'static str],
    /// Options without a value (`--json` is always accepted and need not be listed).
    pub switches: &'static [&'static str],
    /// Runs the command; returns what to print on stdout.
    pub run: fn(&Args) -> Result<String, CliError>,
}

/// Why a command failed, and so its exit code.
#[derive(Debug)]
pub enum CliError {
    /// Malformed command line (missing or unknown arguments): exit code 2.
    Usage(String),
    /// Bad input or a failed operation: exit code 1. The text is already complete (may span lines).
    Failed(String),
}

impl CliError {
    /// The process exit code: 2 for usage errors, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Failed(_) => 1,
        }
    }
}

impl From<LayoutError> for CliError {
    fn from(e: LayoutError) -> CliError {
        CliError::Failed(e.to_string())
    }
}

/// A parsed command line of one subcommand.
#[derive(Debug, Default)]
pub struct Args {
    positional: Vec<String>,
    values: BTreeMap<String, String>,
    switches: Vec<String>,
}

impl Args {
    /// Parses `argv` (after the subcommand word) against `cmd`'s declared options. `--name value`,
    /// `--name=value` and `--` (end of options) are understood; a lone `-5@warpid` is a positional argument.
    pub fn parse(cmd: &Command, argv: &[String]) -> Result<Args, CliError> {
        let mut args = Args::default();
        let mut rest = argv.iter();
        let mut options_done = false;
        while let Some(arg) = rest.next() {
            if options_done || !arg.starts_with("--") {
                args.positional.push(arg.clone());
                continue;
            }
            if arg == "--" {
                options_done = true;
                continue;
            }
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) => (&n[2..], Some(v.to_owned())),
                None => (&arg[2..], None),
            };
            if cmd.values.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => {
                        rest.next().cloned().ok_or_else(|| CliError::Usage(format!("option --{name} needs a value")))?
                    }
                };
                if args.values.insert(name.to_owned(), value).is_some() {
                    return Err(CliError::Usage(format!("option --{name} given twice")));
                }
            } else if name == "json" || cmd.switches.contains(&name) {
                if inline.is_some() {
                    return Err(CliError::Usage(format!("option --{name} takes no value")));
                }
                args.switches.push(name.to_owned());
            } else {
                return Err(CliError::Usage(format!("unknown option --{name} for '{}'", cmd.name)));
            }
        }
        if args.positional.len() != cmd.positional.len() {
            let names = cmd.positional.join(" ");
            return Err(CliError::Usage(if args.positional.len() < cmd.positional.len() {
                format!("'{}' needs {} argument(s): {names}", cmd.name, cmd.positional.len())
            } else {
                format!(
                    "'{}' takes {} argument(s) ({names}), got {} (quote a layout that contains spaces)",
                    cmd.name,
                    cmd.positional.len(),
                    args.positional.len()
                )
            }));
        }
        Ok(args)
    }

    /// The `i`-th positional argument (present: [`Args::parse`] checked the count).
    pub fn arg(&self, i: usize) -> &str {
        self.positional.get(i).map_or("", String::as_str)
    }

    /// The value of `--name`, if given.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// The value of `--name`, or a usage error.
    pub fn required(&self, name: &str) -> Result<&str, CliError> {
        self.value(name).ok_or_else(|| CliError::Usage(format!("missing option --{name}")))
    }

    /// Whether the switch `--name` was given.
    pub fn flag(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }

    /// `--json` was given.
    pub fn json(&self) -> bool {
        self.flag("json")
    }
}

/// How many characters of the offending line [`located`] shows before and after the column.
const CONTEXT_CHARS: usize = 40;

/// An error in a piece of argument text, with a caret under the offending column:
///
/// ```text
/// LAYOUT: column 20: unexpected ']', expected one of ')' or ','
///   S[(8,2):(4@laneid,1]
///                      ^
/// ```
///
/// A long line is cut to [`CONTEXT_CHARS`] characters either side of the column, with `...` where it was cut,
/// so the message stays short however long the input is.
pub fn located(what: &str, text: &str, e: &LayoutError) -> CliError {
    let Some(col) = e.column else {
        return CliError::Failed(format!("{what}: {}", e.message));
    };
    let col = col.min(text.len());
    let col = (0..=col).rev().find(|c| text.is_char_boundary(*c)).unwrap_or(0);
    let line_start = text[..col].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[col..].find('\n').map_or(text.len(), |i| col + i);
    let before: Vec<char> = text[line_start..col].chars().collect();
    let after: Vec<char> = text[col..line_end].chars().collect();
    let cut_before = before.len().saturating_sub(CONTEXT_CHARS);
    let cut_after = after.len().min(CONTEXT_CHARS);
    let (head, tail) = (if cut_before > 0 { "..." } else { "" }, if cut_after < after.len() { "..." } else { "" });
    let shown: String = head
        .chars()
        .chain(before[cut_before..].iter().copied())
        .chain(after[..cut_after].iter().copied())
        .chain(tail.chars())
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let caret_at = head.len() + before.len() - cut_before;
    CliError::Failed(format!(
        "{what}: column {}: {}\n  {shown}\n  {}^",
        text[..col].chars().count() + 1,
        e.message,
        " ".repeat(caret_at)
    ))
}

/// Parses a layout argument named `what` (errors with a caret). The argument `-` reads the layout from standard
/// input, so commands compose with pipes: `axe-layout tile ... | axe-layout eval - --shape 4,4`.
pub fn layout_arg(what: &str, text: &str) -> Result<Layout, CliError> {
    if text == "-" {
        let mut input = String::new();
        std::io::stdin()
            .read_to_string(&mut input)
            .map_err(|e| CliError::Failed(format!("{what}: cannot read standard input: {e}")))?;
        return parse_layout(&input).map_err(|e| located(what, &input, &e));
    }
    parse_layout(text).map_err(|e| located(what, text, &e))
}

/// Parses a layout argument that must not have a swizzle.
pub fn tile_arg(what: &str, text: &str) -> Result<TileLayout, CliError> {
    match layout_arg(what, text)? {
        Layout::Tile(t) => Ok(t),
        Layout::Compose(_) => Err(CliError::Failed(format!("{what}: must be a tile layout without a swizzle"))),
    }
}

/// Parses the shape option `--name` (e.g. `8,16`).
pub fn shape_opt(args: &Args, name: &str) -> Result<Vec<i64>, CliError> {
    let text = args.required(name)?;
    parse_shape(text).map_err(|e| located(&format!("--{name}"), text, &e))
}

/// Parses the optional shape option `--name`.
pub fn shape_opt_or(args: &Args, name: &str, default: impl FnOnce() -> Vec<i64>) -> Result<Vec<i64>, CliError> {
    match args.value(name) {
        Some(text) => parse_shape(text).map_err(|e| located(&format!("--{name}"), text, &e)),
        None => Ok(default()),
    }
}

/// Parses a coordinate option (`--at 7,15`).
pub fn coord_opt(args: &Args, name: &str) -> Result<Option<Vec<i64>>, CliError> {
    args.value(name).map(|text| parse_coord(text).map_err(|e| located(&format!("--{name}"), text, &e))).transpose()
}

/// Parses a region option (`--region 2:3,6:10`).
pub fn region_opt(args: &Args, name: &str) -> Result<Vec<(i64, i64)>, CliError> {
    let text = args.required(name)?;
    parse_region(text).map_err(|e| located(&format!("--{name}"), text, &e))
}

/// Checks that `layout` admits `shape`, naming the option the shape came from.
pub fn admit(what: &str, layout: &Layout, shape: &[i64]) -> Result<(), CliError> {
    layout.admits(shape).map_err(|e| CliError::Failed(format!("{what}: {}", e.message)))
}

/// [`admit`] for an operand of tile, tile-of or direct-sum: a bare swizzle admits any shape
/// ([`axe_layout::tile::admit_operand`], the rule the Python package uses too).
pub fn admit_operand(what: &str, layout: &Layout, shape: &[i64]) -> Result<(), CliError> {
    axe_layout::tile::admit_operand(layout, shape).map_err(|e| CliError::Failed(format!("{what}: {}", e.message)))
}

/// Serializes `value` as one line of JSON.
pub fn to_json<T: Serialize>(value: &T) -> Result<String, CliError> {
    serde_json::to_string(value)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| CliError::Failed(format!("cannot write JSON: {e}")))
}

/// `{"layout": "<canonical text>"}`, the JSON of the layout-valued operations.
#[derive(Serialize)]
pub struct LayoutJson {
    /// Canonical text of the result.
    pub layout: String,
}

/// The output of a layout-valued operation: its canonical text, or `{"layout": ...}` with `--json`.
pub fn layout_output(args: &Args, layout: &impl std::fmt::Display) -> Result<String, CliError> {
    if args.json() {
        to_json(&LayoutJson { layout: layout.to_string() })
    } else {
        Ok(format!("{layout}\n"))
    }
}

/// A failed operation: `op: message`.
pub fn op_failed(op: &str) -> impl Fn(LayoutError) -> CliError + '_ {
    move |e| CliError::Failed(format!("{op}: {}", e.message))
}
