//! Placements and PartitionSpecs as text: DTensor's `Shard(0), Replicate()` (every spelling DTensor and its
//! `str()` print) and JAX's `P('x', None)`, parsed and printed; refusals by the `placement` and `spec` rules.

use super::refuse;
use crate::error::{LayoutError, Result};
use std::fmt;

/// A reduction over device replicas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReduceOp {
    /// Sum (DTensor's default `Partial()`).
    Sum,
    /// Maximum.
    Max,
}

impl ReduceOp {
    /// `sum` or `max`.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
        }
    }

    /// Parses `sum` or `max`.
    pub fn from_name(name: &str) -> Option<ReduceOp> {
        match name {
            "sum" => Some(ReduceOp::Sum),
            "max" => Some(ReduceOp::Max),
            _ => None,
        }
    }
}

/// One DTensor placement, per mesh dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// `Shard(d)`: tensor dimension `d` is split over the mesh dimension (torch.chunk sizes).
    Shard(usize),
    /// `Replicate()`: every rank along the mesh dimension holds the same values.
    Replicate,
    /// `Partial(op)`: every rank holds a contribution; the tensor is their `op`.
    Partial(ReduceOp),
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Placement::Shard(d) => write!(f, "Shard({d})"),
            Placement::Replicate => f.write_str("Replicate()"),
            Placement::Partial(ReduceOp::Sum) => f.write_str("Partial(sum)"),
            Placement::Partial(op) => write!(f, "Partial({})", op.name()),
        }
    }
}

/// `Shard(0), Replicate()`: placements as DTensor prints them (without the brackets).
pub fn placements_text(placements: &[Placement]) -> String {
    placements.iter().map(Placement::to_string).collect::<Vec<_>>().join(", ")
}

/// Parses `Shard(0),Replicate()` for a tensor of unknown rank: [`parse_placements_for`] without negative
/// dimensions (`Shard(-1)` needs the rank and is refused here).
pub fn parse_placements(text: &str) -> Result<Vec<Placement>> {
    parse(text, None)
}

/// Parses placements as DTensor prints them, for a tensor of `rank` dimensions: `Shard(0)`, `Shard(dim=0)`,
/// `Shard(-1)` (DTensor normalises a negative dimension to `d + rank`), `Replicate()`, `Partial()`,
/// `Partial(sum)`, `Partial(max)`, `Partial(reduce_op='sum')`, and `str()`'s short forms `S(0)`, `R`, `P`; the
/// list bare, in `[...]`, or as the tuple `(Shard(dim=0), Replicate())` (optionally after `placements=`).
pub fn parse_placements_for(text: &str, rank: usize) -> Result<Vec<Placement>> {
    parse(text, Some(rank))
}

/// Strips one pair of `open`/`close` around the whole text (not `(a), (b)`).
fn strip_wrapper(text: &str, open: char, close: char) -> Option<&str> {
    let inner = text.strip_prefix(open)?.strip_suffix(close)?;
    let mut depth = 0i32;
    for c in inner.chars() {
        depth += i32::from(c == open) - i32::from(c == close);
        if depth < 0 {
            return None;
        }
    }
    (depth == 0).then_some(inner)
}

fn parse(text: &str, rank: Option<usize>) -> Result<Vec<Placement>> {
    let body = text.trim();
    let body = body.strip_prefix("placements=").map_or(body, str::trim);
    let body = strip_wrapper(body, '[', ']').or_else(|| strip_wrapper(body, '(', ')')).unwrap_or(body);
    let mut out = Vec::new();
    for part in split_top(body).map_err(|m| LayoutError::new(format!("placement rule: '{text}': {m}")))? {
        let p = part.replace(' ', "");
        let arg = |name: &str| p.strip_prefix(name).and_then(|r| r.strip_prefix('(')).and_then(|r| r.strip_suffix(')'));
        let placement = if let Some(a) = arg("Shard").or_else(|| arg("S")) {
            let d: Option<i64> = a.strip_prefix("dim=").unwrap_or(a).parse().ok();
            match (d, rank) {
                (Some(d), _) if d >= 0 => usize::try_from(d).ok().map(Placement::Shard),
                (Some(d), Some(rank)) => {
                    let r = i64::try_from(rank).unwrap_or(i64::MAX);
                    if d < -r {
                        return refuse(
                            "placement",
                            format!("{part} of a tensor of {rank} dimension(s): DTensor needs -{rank} <= dim < {rank}"),
                        );
                    }
                    usize::try_from(d + r).ok().map(Placement::Shard)
                }
                (Some(_), None) => {
                    return refuse("placement", format!("{part}: a negative dimension needs the tensor's rank"))
                }
                (None, _) => None,
            }
        } else if arg("Replicate") == Some("") || p == "R" {
            Some(Placement::Replicate)
        } else if let Some(a) = arg("Partial").or_else(|| arg("P")).or_else(|| (p == "P").then_some("")) {
            let a = a.strip_prefix("reduce_op=").unwrap_or(a).trim_matches(|c| c == '\'' || c == '"');
            if a.is_empty() { Some(ReduceOp::Sum) } else { ReduceOp::from_name(a) }.map(Placement::Partial)
        } else {
            None
        };
        match placement {
            Some(pl) => out.push(pl),
            None => {
                return refuse(
                    "placement",
                    format!("'{part}' is not Shard(d), Replicate(), Partial(), Partial(sum) or Partial(max)"),
                )
            }
        }
    }
    Ok(out)
}

/// A JAX `PartitionSpec`: per tensor dimension, the mesh dimension names that split it, outer first (empty is
/// `None`). Trailing `None`s are implied, so specs compare after [`PartitionSpec::padded_to`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionSpec(pub Vec<Vec<String>>);

impl PartitionSpec {
    /// The spec with `None` entries appended up to `rank` dimensions.
    pub fn padded_to(&self, rank: usize) -> PartitionSpec {
        let mut dims = self.0.clone();
        dims.resize(rank.max(dims.len()), Vec::new());
        PartitionSpec(dims)
    }
}

impl fmt::Display for PartitionSpec {
    /// `P('x', None)`, `P(('x', 'y'), None)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entry = |names: &Vec<String>| match names.as_slice() {
            [] => "None".to_owned(),
            [one] => format!("'{one}'"),
            many => format!("({})", many.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")),
        };
        write!(f, "P({})", self.0.iter().map(entry).collect::<Vec<_>>().join(", "))
    }
}

/// Splits at commas outside parentheses; empty pieces are dropped only at the very end (`a,` is `a`).
fn split_top(text: &str) -> std::result::Result<Vec<String>, String> {
    let (mut parts, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return Err("unbalanced ')'".into());
        }
        if c == ',' && depth == 0 {
            parts.push(std::mem::take(&mut cur).trim().to_owned());
        } else {
            cur.push(c);
        }
    }
    if depth != 0 {
        return Err("unbalanced '('".into());
    }
    let last = cur.trim().to_owned();
    if !last.is_empty() || !parts.is_empty() {
        parts.push(last);
    }
    if parts.last().is_some_and(String::is_empty) {
        parts.pop();
    }
    if parts.iter().any(String::is_empty) {
        return Err("empty entry".into());
    }
    Ok(parts)
}

/// Parses `P('x', None)`, `PartitionSpec(('x','y'), None)`, `P()` (quotes `'` or `"`).
pub fn parse_spec(text: &str) -> Result<PartitionSpec> {
    let bad = |m: &str| LayoutError::new(format!("spec rule: '{text}': {m}"));
    let t = text.trim();
    let inner = t
        .strip_prefix("PartitionSpec(")
        .or_else(|| t.strip_prefix("P("))
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| bad("expected P(...) or PartitionSpec(...)"))?;
    let name = |s: &str| -> Result<String> {
        let s = s.trim();
        let unq = s
            .strip_prefix('\'')
            .and_then(|r| r.strip_suffix('\''))
            .or_else(|| s.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
            .ok_or_else(|| bad(&format!("'{s}' is not a quoted mesh axis name or None")))?;
        if unq.is_empty() || !unq.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(bad(&format!("'{unq}' is not a mesh axis name")));
        }
        Ok(unq.to_owned())
    };
    let mut dims = Vec::new();
    for entry in split_top(inner).map_err(|m| bad(&m))? {
        if entry == "None" {
            dims.push(Vec::new());
        } else if let Some(tuple) = entry.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            dims.push(split_top(tuple).map_err(|m| bad(&m))?.iter().map(|s| name(s)).collect::<Result<Vec<_>>>()?);
        } else {
            dims.push(vec![name(&entry)?]);
        }
    }
    Ok(PartitionSpec(dims))
}
