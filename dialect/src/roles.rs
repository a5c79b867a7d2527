//! Warp roles (`axe.roles`, issue 25): which warps run which region, and the register budget of each warpgroup.
//!
//! A warp-specialized kernel gives its warps different jobs (a producer warp that only issues TMA, consumer
//! warpgroups that only compute) and moves registers from the jobs that need few to the jobs that need many.
//! `axe.roles` says both; [`plan`] checks it and says what `--lower-roles` writes. The verifier reports its errors
//! under `Rule::Roles`, each at the op it is about.
//!
//! Rules:
//! - the kernel declares `known_block_size` (its warps); `axe.roles` holds only `axe.role` ops and is not inside
//!   another role (a warpgroup's budget is set once);
//! - a role names warps (`warpid[a:b]`) or warpgroups (`wgid[a:b]`) of the block, and no warp is in two roles;
//! - register budgets follow `setmaxnreg` (PTX ISA 9.7.19.5, sm_90a and later): the count is a multiple of 8 in
//!   [24, 256]; the instruction is `.sync.aligned` over a warpgroup, so a budget belongs to every warpgroup a role
//!   touches (the block is whole warpgroups, and roles sharing a warpgroup state one budget); and the budgets,
//!   with the entry count of the warpgroups that set none, fit the registers the CTA was given at launch (its
//!   threads times the entry count): `.dec` releases registers to a per-CTA pool, `.inc` takes them from it and
//!   blocks until it holds them, so budgets over the CTA's allocation wait forever.
//!
//! The registers a warp has at entry are ptxas's count for the kernel ([`entry_registers`]): `.maxntid` (from
//! `known_block_size`) with `.minnctapersm 1`, which `--lower-roles` adds so that ptxas knows it; without it
//! ptxas ignores `setmaxnreg` (warning C7508). A budget above the entry count is a `setmaxnreg.inc`, below a
//! `.dec`, equal none.

use crate::{
    kernel,
    ops::{enclosing_function, AxeOp, OpKind},
};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef};
use std::ops::Range;

/// Registers in an SM's register file (sm_90, sm_100): what the budgets of one CTA's warpgroups share.
pub const REGISTER_FILE: i64 = 65536;
/// Threads in a warpgroup (the unit `setmaxnreg` applies to).
pub const WARPGROUP_THREADS: i64 = 128;
/// The budgets `setmaxnreg` accepts: multiples of 8 in this range.
pub const BUDGETS: Range<i64> = 24..257;

/// What a role's range counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// `warpid[a:b]`: warps of the CTA.
    Warp,
    /// `wgid[a:b]`: warpgroups of the CTA (4 warps each).
    Warpgroup,
}

/// One `axe.role`: its warps and budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Role {
    /// What `begin..end` counts.
    pub unit: Unit,
    /// First unit.
    pub begin: i64,
    /// One past the last unit.
    pub end: i64,
    /// The register budget of the warpgroups it touches, when it sets one.
    pub regs: Option<i64>,
}

impl Role {
    /// The CTA's warps in the role.
    pub fn warps(&self) -> Range<i64> {
        match self.unit {
            Unit::Warp => self.begin..self.end,
            Unit::Warpgroup => self.begin * 4..self.end * 4,
        }
    }

    /// The warpgroups the role touches.
    pub fn warpgroups(&self) -> Range<i64> {
        let warps = self.warps();
        warps.start / 4..(warps.end + 3) / 4
    }

    /// As written: `warpid[8:9]`.
    pub fn text(&self) -> String {
        let axis = match self.unit {
            Unit::Warp => "warpid",
            Unit::Warpgroup => "wgid",
        };
        format!("{axis}[{}:{}]", self.begin, self.end)
    }

    /// Reads an `axe.role` op.
    fn read(op: OperationRef) -> Result<Role, String> {
        let role = AxeOp::new(op).ok_or("not an axe.role")?;
        let threads = role.threads().ok_or("axe.role has no warps")??;
        let unit = match threads.axis.as_str() {
            "warpid" => Unit::Warp,
            "wgid" => Unit::Warpgroup,
            other => return Err(format!("a role runs on warps (warpid[a:b]) or warpgroups (wgid[a:b]), not {other}")),
        };
        let regs = role.integer_attribute("regs").transpose()?;
        Ok(Role { unit, begin: threads.begin, end: threads.end, regs })
    }
}

/// A checked `axe.roles`: what `--lower-roles` writes.
#[derive(Debug)]
pub struct Plan<'c, 'a> {
    /// Threads in the block.
    pub threads: i64,
    /// The roles in order, each with its op.
    pub roles: Vec<(OperationRef<'c, 'a>, Role)>,
    /// Registers per thread at entry ([`entry_registers`]).
    pub entry: i64,
    /// Per warpgroup of the block: the budget a role sets for it, if any.
    pub budgets: Vec<Option<i64>>,
}

impl Plan<'_, '_> {
    /// Warpgroups whose budget differs from the entry count, as (warpgroups, budget) runs in order: one
    /// `setmaxnreg` each.
    pub fn changes(&self) -> Vec<(Range<i64>, i64)> {
        let mut runs: Vec<(Range<i64>, i64)> = Vec::new();
        for (group, budget) in self.budgets.iter().enumerate() {
            let group = group as i64;
            let Some(budget) = *budget else { continue };
            if budget == self.entry {
                continue;
            }
            match runs.last_mut() {
                Some((range, last)) if range.end == group && *last == budget => range.end += 1,
                _ => runs.push((group..group + 1, budget)),
            }
        }
        runs
    }

    /// True when some warpgroup's budget changes (the kernel then needs `.minnctapersm 1`).
    pub fn sets_budgets(&self) -> bool {
        !self.changes().is_empty()
    }
}

/// ptxas's registers per thread at entry for a kernel of `threads` threads under `.maxntid` and
/// `.minnctapersm 1`: the register file over the threads, rounded down to the allocation unit of 8, at most 255.
pub fn entry_registers(threads: i64) -> i64 {
    (REGISTER_FILE / threads.max(1) / 8 * 8).min(255)
}

/// Checks `roles` (an `axe.roles` op) by the module rules; every error with the op it is about.
pub fn plan<'c, 'a>(roles: OperationRef<'c, 'a>) -> Result<Plan<'c, 'a>, Vec<(OperationRef<'c, 'a>, String)>> {
    let mut errors = Vec::new();
    let block = enclosing_function(roles).map(kernel::known_block).unwrap_or_default();
    if block.is_empty() {
        errors.push((roles, "axe.roles needs the kernel's known_block_size (the warps its roles name)".to_string()));
    }
    let mut ancestor = roles.parent_operation();
    while let Some(op) = ancestor {
        if op.name().as_string_ref().as_str() == Ok(OpKind::Role.name()) {
            errors.push((roles, "axe.roles inside an axe.role: a warpgroup's roles and budget are set once".into()));
            break;
        }
        ancestor = op.parent_operation();
    }
    let threads: i64 = block.iter().product();
    let warps = (threads + 31) / 32;
    let mut listed: Vec<(OperationRef<'c, 'a>, Role)> = Vec::new();
    let body = crate::access::entry_block(roles);
    let mut cursor = body.and_then(|b| b.first_operation());
    while let Some(op) = cursor {
        cursor = op.next_in_block();
        if op.name().as_string_ref().as_str() != Ok(OpKind::Role.name()) {
            errors.push((op, "only axe.role ops may be inside axe.roles".to_string()));
            continue;
        }
        let role = match Role::read(op) {
            Ok(role) => role,
            Err(message) => {
                errors.push((op, message));
                continue;
            }
        };
        let (count, what) = match role.unit {
            Unit::Warp => (warps, "warps"),
            Unit::Warpgroup => ((warps + 3) / 4, "warpgroups"),
        };
        let inside = 0 <= role.begin && role.begin < role.end && role.end <= count;
        if !block.is_empty() && !inside {
            errors.push((op, format!("role {} is not a range of the block's {count} {what}", role.text())));
            continue;
        }
        if let Some(regs) = role.regs {
            if !BUDGETS.contains(&regs) || regs % 8 != 0 {
                errors.push((op, format!("register budget {regs} is not a multiple of 8 in [24, 256] (setmaxnreg)")));
            }
        }
        if let Some((_, other)) = listed.iter().find(|(_, other)| overlap(&other.warps(), &role.warps())) {
            let shared = role.warps().start.max(other.warps().start);
            errors.push((op, format!("roles {} and {} both hold warp {shared}", other.text(), role.text())));
            continue;
        }
        listed.push((op, role));
    }
    let groups = (warps + 3) / 4;
    let mut budgets: Vec<Option<i64>> = vec![None; groups as usize];
    let mut claimed: Vec<Option<usize>> = vec![None; groups as usize];
    let budgeted = listed.iter().any(|(_, role)| role.regs.is_some());
    if budgeted && threads % WARPGROUP_THREADS != 0 {
        let (op, _) = listed.iter().find(|(_, role)| role.regs.is_some()).expect("some role has a budget");
        errors.push((
            *op,
            format!(
                "register budgets need whole warpgroups (setmaxnreg is per warpgroup): the block has {threads} threads"
            ),
        ));
    }
    for (index, (op, role)) in listed.iter().enumerate() {
        for group in role.warpgroups() {
            let slot = group as usize;
            match claimed[slot] {
                Some(first) if budgeted && listed[first].1.regs != role.regs => {
                    let text = |regs: Option<i64>| regs.map_or("none".to_string(), |r| r.to_string());
                    errors.push((
                        *op,
                        format!(
                            "warpgroup {group} holds roles {} (budget {}) and {} (budget {}): setmaxnreg sets one budget per warpgroup",
                            listed[first].1.text(),
                            text(listed[first].1.regs),
                            role.text(),
                            text(role.regs)
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    claimed[slot] = Some(index);
                    budgets[slot] = role.regs;
                }
            }
        }
    }
    let entry = entry_registers(threads);
    if budgeted && errors.is_empty() {
        let need: i64 = budgets.iter().map(|b| b.unwrap_or(entry) * WARPGROUP_THREADS).sum();
        let given = entry * threads;
        if need > given {
            let list: Vec<String> = budgets.iter().map(|b| b.unwrap_or(entry).to_string()).collect();
            errors.push((
                roles,
                format!(
                    "the warpgroups' budgets ({}) need {need} registers, more than the CTA's {given} ({entry} per thread \
                     at entry, {threads} threads): setmaxnreg.inc would wait forever",
                    list.join(", ")
                ),
            ));
        }
    }
    if errors.is_empty() {
        Ok(Plan { threads, roles: listed, entry, budgets })
    } else {
        Err(errors)
    }
}

fn overlap(a: &Range<i64>, b: &Range<i64>) -> bool {
    a.start < b.end && b.start < a.end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_count_is_the_register_file_over_the_threads_in_units_of_8() {
        // 384 threads (three warpgroups): 65536 / 384 = 170.7 -> 168, what ptxas reports for such kernels.
        assert_eq!(entry_registers(384), 168);
        assert_eq!(entry_registers(256), 255);
        assert_eq!(entry_registers(512), 128);
        assert_eq!(entry_registers(640), 96);
    }

    #[test]
    fn a_role_of_warps_touches_the_warpgroups_it_overlaps() {
        let producer = Role { unit: Unit::Warp, begin: 8, end: 9, regs: Some(40) };
        assert_eq!(producer.warps(), 8..9);
        assert_eq!(producer.warpgroups(), 2..3);
        let consumers = Role { unit: Unit::Warpgroup, begin: 0, end: 2, regs: Some(232) };
        assert_eq!(consumers.warps(), 0..8);
        assert_eq!(consumers.warpgroups(), 0..2);
        let straddling = Role { unit: Unit::Warp, begin: 3, end: 5, regs: None };
        assert_eq!(straddling.warpgroups(), 0..2);
    }
}
