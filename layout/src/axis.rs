//! Named hardware axes and the execution scopes that thread axes index (semantics.md, "Objects").
//!
//! An [`Axis`] is a name with a [`AxisKind`]. The built-in names cover GPU memory and thread hierarchies, Blackwell
//! tensor memory, accelerator scratchpads and device meshes. Any other name is an error unless it was declared with
//! [`Axis::declare`], so a typo never silently becomes a new axis.
//!
//! Axes are interned: an `Axis` is a `Copy` handle whose name lives for the program, so layouts can be hashed,
//! compared and sorted cheaply and deterministically (by name, never by address).

use crate::error::{LayoutError, Result};
use std::cmp::Ordering;
use std::fmt;
use std::sync::Mutex;

/// An execution scope: a level of the GPU thread hierarchy (paper section 3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExecScope {
    /// One thread.
    Thread,
    /// 32 threads of a warp.
    Warp,
    /// 4 consecutive warps (128 threads).
    Warpgroup,
    /// A thread block.
    Cta,
    /// A thread-block cluster.
    Cluster,
    /// The whole grid of a kernel launch.
    Kernel,
}

impl ExecScope {
    /// Every scope, innermost first.
    pub const ALL: [ExecScope; 6] = [
        ExecScope::Thread,
        ExecScope::Warp,
        ExecScope::Warpgroup,
        ExecScope::Cta,
        ExecScope::Cluster,
        ExecScope::Kernel,
    ];

    /// Threads in one instance of the scope, where the hardware fixes it (thread 1, warp 32, warpgroup 128;
    /// `None` for a CTA and beyond, whose size the launch picks).
    pub fn fixed_threads(self) -> Option<i64> {
        match self {
            ExecScope::Thread => Some(1),
            ExecScope::Warp => Some(32),
            ExecScope::Warpgroup => Some(128),
            _ => None,
        }
    }

    /// The scope's keyword in text (`thread`, `warp`, `warpgroup`, `cta`, `cluster`, `kernel`).
    pub fn name(self) -> &'static str {
        match self {
            ExecScope::Thread => "thread",
            ExecScope::Warp => "warp",
            ExecScope::Warpgroup => "warpgroup",
            ExecScope::Cta => "cta",
            ExecScope::Cluster => "cluster",
            ExecScope::Kernel => "kernel",
        }
    }

    /// Parses a scope keyword.
    pub fn from_name(name: &str) -> Option<ExecScope> {
        ExecScope::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for ExecScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What an axis indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxisKind {
    /// A storage axis: linear memory or registers (`m`), tensor memory (`TLane`, `TCol`), scratchpads.
    Memory,
    /// A thread axis: indexes units of scope `unit` inside one instance of scope `within`
    /// (`laneid` indexes threads within a warp).
    Thread {
        /// The scope of one index value (`Thread` for `laneid`).
        unit: ExecScope,
        /// The scope the index is local to (`Warp` for `laneid`).
        within: ExecScope,
    },
    /// A device axis of a distributed mesh (`gpuid`, `pid`).
    Device,
}

impl AxisKind {
    /// Parses a kind as written in an axis declaration: `memory`, `device`, or `thread:UNIT:WITHIN` with two
    /// execution scopes (`thread:warp:cta` is a warp index within a CTA).
    pub fn parse(text: &str) -> Result<AxisKind> {
        let scope = |name: &str| {
            ExecScope::from_name(name).ok_or_else(|| LayoutError::new(format!("unknown execution scope '{name}'")))
        };
        match text.split(':').collect::<Vec<_>>().as_slice() {
            ["memory"] => Ok(AxisKind::Memory),
            ["device"] => Ok(AxisKind::Device),
            ["thread", unit, within] => {
                let (unit, within) = (scope(unit)?, scope(within)?);
                if unit >= within {
                    return Err(LayoutError::new(format!(
                        "a thread axis indexes a scope inside another, got {unit} within {within}"
                    )));
                }
                Ok(AxisKind::Thread { unit, within })
            }
            _ => Err(LayoutError::new(format!("axis kind '{text}' is not memory, device or thread:UNIT:WITHIN"))),
        }
    }
}

impl fmt::Display for AxisKind {
    /// The text [`AxisKind::parse`] reads: `memory`, `device`, `thread:UNIT:WITHIN`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxisKind::Memory => f.write_str("memory"),
            AxisKind::Device => f.write_str("device"),
            AxisKind::Thread { unit, within } => write!(f, "thread:{unit}:{within}"),
        }
    }
}

/// A named axis. Compared, hashed and ordered by name.
#[derive(Clone, Copy)]
pub struct Axis {
    name: &'static str,
    kind: AxisKind,
}

const fn thread(name: &'static str, unit: ExecScope, within: ExecScope) -> Axis {
    Axis { name, kind: AxisKind::Thread { unit, within } }
}

const fn memory(name: &'static str) -> Axis {
    Axis { name, kind: AxisKind::Memory }
}

const fn device(name: &'static str) -> Axis {
    Axis { name, kind: AxisKind::Device }
}

use ExecScope::*;

/// The built-in axes (semantics.md "Objects"; TIRx's axis registry).
const BUILTIN: &[Axis] = &[
    memory("m"),
    memory("reg"),
    memory("TLane"),
    memory("TCol"),
    memory("P"),
    memory("F"),
    memory("Bank"),
    thread("laneid", Thread, Warp),
    thread("warpid", Warp, Cta),
    thread("wgid", Warpgroup, Cta),
    thread("wid_in_wg", Warp, Warpgroup),
    thread("tid_in_wg", Thread, Warpgroup),
    thread("tid", Thread, Cta),
    thread("bx", Cta, Kernel),
    thread("by", Cta, Kernel),
    thread("bz", Cta, Kernel),
    thread("cbx", Cta, Cluster),
    thread("cby", Cta, Cluster),
    thread("cbz", Cta, Cluster),
    thread("clusterid", Cluster, Kernel),
    device("gpuid"),
    device("gpuid_x"),
    device("gpuid_y"),
    device("gpuid_z"),
    device("pid"),
];

/// Names accepted as spellings of a built-in axis (`tx` is TIRx's name for `tid`).
const ALIASES: &[(&str, &str)] = &[("tx", "tid")];

/// Axes declared at run time, with leaked names so handles stay `Copy`.
static DECLARED: Mutex<Vec<Axis>> = Mutex::new(Vec::new());

impl Axis {
    /// The default memory axis `m`.
    pub const M: Axis = memory("m");

    /// Looks up a built-in or declared axis by name (`tx` reads as `tid`).
    pub fn named(name: &str) -> Result<Axis> {
        let name = ALIASES.iter().find(|(a, _)| *a == name).map_or(name, |(_, b)| *b);
        if let Some(a) = BUILTIN.iter().find(|a| a.name == name) {
            return Ok(*a);
        }
        let declared = DECLARED.lock().unwrap_or_else(|e| e.into_inner());
        declared.iter().find(|a| a.name == name).copied().ok_or_else(|| {
            LayoutError::new(format!(
                "unknown axis '{name}' (built-in axes: {}; declare others first)",
                BUILTIN.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
            ))
        })
    }

    /// Declares a new axis of the given kind (idempotent). Fails if the name is taken by an axis of another kind
    /// or is not an identifier.
    pub fn declare(name: &str, kind: AxisKind) -> Result<Axis> {
        let ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident {
            return Err(LayoutError::new(format!("axis name '{name}' is not an identifier")));
        }
        if let Ok(existing) = Axis::named(name) {
            if existing.kind == kind {
                return Ok(existing);
            }
            return Err(LayoutError::new(format!("axis '{name}' already exists with kind {}", existing.kind)));
        }
        let mut declared = DECLARED.lock().unwrap_or_else(|e| e.into_inner());
        let axis = Axis { name: Box::leak(name.to_owned().into_boxed_str()), kind };
        declared.push(axis);
        Ok(axis)
    }

    /// The axis name.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// What the axis indexes.
    pub fn kind(self) -> AxisKind {
        self.kind
    }

    /// True for storage axes (`m`, `TLane`, ...).
    pub fn is_memory(self) -> bool {
        matches!(self.kind, AxisKind::Memory)
    }

    /// True for thread axes (`laneid`, `warpid`, ...).
    pub fn is_thread(self) -> bool {
        matches!(self.kind, AxisKind::Thread { .. })
    }

    /// The number of values a thread axis takes when the hardware fixes it: units of a warp or warpgroup
    /// (`laneid` 32, `wid_in_wg` 4, `tid_in_wg` 128); `None` for axes whose count the launch picks (`warpid`,
    /// `tid`, `bx`, ...) and for non-thread axes.
    pub fn fixed_extent(self) -> Option<i64> {
        let AxisKind::Thread { unit, within } = self.kind else { return None };
        if !matches!(within, ExecScope::Warp | ExecScope::Warpgroup) {
            return None;
        }
        Some(within.fixed_threads()? / unit.fixed_threads()?)
    }

    /// True for device axes (`gpuid`, ...).
    pub fn is_device(self) -> bool {
        matches!(self.kind, AxisKind::Device)
    }

    /// Every built-in axis, in table order.
    pub fn builtins() -> impl Iterator<Item = Axis> {
        BUILTIN.iter().copied()
    }
}

impl PartialEq for Axis {
    fn eq(&self, other: &Self) -> bool {
        // Handles of one axis usually share the interned name, so the pointer test settles most comparisons.
        std::ptr::eq(self.name, other.name) || self.name == other.name
    }
}

impl Eq for Axis {}

impl PartialOrd for Axis {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Axis {
    fn cmp(&self, other: &Self) -> Ordering {
        if std::ptr::eq(self.name, other.name) {
            return Ordering::Equal;
        }
        self.name.cmp(other.name)
    }
}

impl std::hash::Hash for Axis {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl fmt::Debug for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_and_aliases() {
        assert!(Axis::named("m").unwrap().is_memory());
        assert_eq!(Axis::named("tx").unwrap(), Axis::named("tid").unwrap());
        assert!(Axis::named("laneid").unwrap().is_thread());
        assert!(Axis::named("gpuid").unwrap().is_device());
    }

    #[test]
    fn fixed_extents_are_the_hardware_counts() {
        // PTX ISA: 32 threads to a warp, 4 warps (128 threads) to a warpgroup; a CTA's size is the launch's.
        let extent = |name: &str| Axis::named(name).unwrap().fixed_extent();
        assert_eq!((extent("laneid"), extent("wid_in_wg"), extent("tid_in_wg")), (Some(32), Some(4), Some(128)));
        assert_eq!((extent("warpid"), extent("tid"), extent("bx"), extent("m")), (None, None, None, None));
    }

    #[test]
    fn unknown_axis_is_an_error_until_declared() {
        let err = Axis::named("lanid").unwrap_err();
        assert!(err.message.contains("unknown axis 'lanid'"), "{err}");
        let a = Axis::declare("sbuf_row", AxisKind::Memory).unwrap();
        assert_eq!(Axis::named("sbuf_row").unwrap(), a);
        assert!(Axis::declare("laneid", AxisKind::Memory).is_err());
        assert!(Axis::declare("9x", AxisKind::Memory).is_err());
    }

    #[test]
    fn axis_kinds_parse_from_declarations() {
        assert_eq!(AxisKind::parse("memory").unwrap(), AxisKind::Memory);
        assert_eq!(AxisKind::parse("device").unwrap(), AxisKind::Device);
        assert_eq!(
            AxisKind::parse("thread:warp:cta").unwrap(),
            AxisKind::Thread { unit: ExecScope::Warp, within: ExecScope::Cta }
        );
        assert!(AxisKind::parse("thread:cta:warp").unwrap_err().message.contains("inside"));
        assert!(AxisKind::parse("thread:warp").is_err());
        for text in ["memory", "device", "thread:thread:warpgroup"] {
            assert_eq!(AxisKind::parse(text).unwrap().to_string(), text);
        }
        assert!(AxisKind::parse("thread:warp:galaxy").unwrap_err().message.contains("galaxy"));
    }
}
