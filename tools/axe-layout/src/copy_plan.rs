//! `axe-layout copy-plan`: the instructions of `axe.copy(src, dst)` between global, shared, registers and tensor
//! memory (ld/st vectors, ldmatrix/stmatrix, cp.async, tcgen05.ld/st, mov, shuffles, shared staging); the
//! planner is `axe_layout::copy`.

use crate::cli::{layout_arg, shape_opt, to_json, Args, CliError, Command};
use axe_layout::copy::{
    plan, Chip, Completion, CopyPlan, CopyRequest, CopyStep, ElemType, Memory, Operand, PerThread, Side, ThreadSet,
    ThreadSubset,
};
use axe_layout::{Axis, ExecScope};
use serde_json::{json, Value};

/// The `copy-plan` subcommand.
pub const COMMAND: Command = Command {
    name: "copy-plan",
    usage: "copy-plan --src L --src-shape S --src-mem M --dst L --dst-shape S --dst-mem M --dtype T --scope S \
            --chip C [--threads AXIS:BEGIN:END] [--cta-threads N] [--json]",
    about: "the instructions of a copy between global, shared, registers and tensor memory",
    help: "Plans axe.copy(src, dst): dst[k] = src[k] for every row-major flat index k. The memories pick the family,\n\
           the layouts the instruction: global/shared <-> registers: per-thread ld/st of the widest vector (<= 16\n\
           bytes) contiguous and aligned in memory and consecutive on the register axis (shared -> registers:\n\
           ldmatrix, registers -> shared: stmatrix on sm_90+, when the register layout is a tile of the 8x8\n\
           fragment and matrix rows are 16 contiguous bytes); global -> shared: cp.async of 4, 8 or 16 bytes;\n\
           tensor memory <-> registers: tcgen05.ld/st (sm_100a); registers -> registers: mov, shfl.sync, or a\n\
           shared staging buffer with the fewest bank conflicts.\n\
           --src-mem/--dst-mem: global shared reg tmem   --scope: thread warp warpgroup cta\n\
           --chip: sm_80 sm_86 sm_89 sm_90 sm_90a sm_100a   --dtype: f16 bf16 f32 i8 u8 ... f64\n\
           --threads AXIS:BEGIN:END: only units [BEGIN, END) of a thread axis run the copy (warpid:0:4)\n\
           --cta-threads N: the CTA's thread count (a cta-scope cp.async spreads over them)\n\
           Memory layouts are element offsets on m from the tensor's base; register layouts use thread axes\n\
           (laneid, warpid, ...) and the register axis m; tensor-memory layouts use TLane and TCol. Declare other\n\
           axes with a leading 'axe-layout --axis NAME=KIND'.\n\
           --json: {\"instruction\", \"vector_bytes\", \"instructions_per_thread\", \"scalar\", \"scope_threads\",\n\
           \"src_base_alignment_bytes\", \"dst_base_alignment_bytes\", \"staging\" (null or {\"layout\", \"bytes\",\n\
           \"alignment_bytes\", \"conflict_ways\"}), \"steps\": [{\"instruction\", \"vector_bytes\", \"threads\",\n\
           \"src_swizzle\", \"dst_swizzle\", \"completion\", \"issues\": [{\"src\", \"dst\", \"only\"}]}]}; an operand\n\
           is {\"regs\": [...]}, {\"mem\": F}, {\"tmem\": {\"lane\": F, \"col\": F}} or {\"shfl\": {\"lane\": F, \"reg\"}};\n\
           a formula F is {\"base\", \"terms\": [{\"div\", \"mod\", \"coef\"}]} = base + sum ((t / div) % mod) * coef of the\n\
           scope-relative thread index t; a thread set is [{\"div\", \"mod\", \"begin\", \"end\"}] (all must hold).\n\
           A refusal prints 'copy: <rule> rule: ...' on stderr and exits with 1.\n",
    positional: &[],
    values: &[
        "src",
        "src-shape",
        "src-mem",
        "dst",
        "dst-shape",
        "dst-mem",
        "dtype",
        "scope",
        "chip",
        "threads",
        "cta-threads",
    ],
    switches: &[],
    run,
};

fn parse<T>(args: &Args, name: &str, what: &str, f: fn(&str) -> Option<T>) -> Result<T, CliError> {
    let text = args.required(name)?;
    f(text).ok_or_else(|| CliError::Failed(format!("--{name}: unknown {what} '{text}'")))
}

fn subset(text: &str) -> Result<ThreadSubset, CliError> {
    let bad = || CliError::Failed(format!("--threads {text}: expected AXIS:BEGIN:END (e.g. warpid:0:4)"));
    let parts: Vec<&str> = text.split(':').collect();
    let [axis, begin, end] = parts.as_slice() else { return Err(bad()) };
    let axis = Axis::named(axis).map_err(|e| CliError::Failed(format!("--threads {text}: {}", e.message)))?;
    let (begin, end) = (begin.parse().map_err(|_| bad())?, end.parse().map_err(|_| bad())?);
    Ok(ThreadSubset { axis, begin, end })
}

fn run(args: &Args) -> Result<String, CliError> {
    let chip = parse(args, "chip", "chip (sm_80, sm_90, sm_90a, sm_100a)", Chip::from_name)?;
    let dtype = parse(args, "dtype", "element type (f16, bf16, f32, ...)", ElemType::from_name)?;
    let scope = parse(args, "scope", "scope (thread, warp, warpgroup, cta)", ExecScope::from_name)?;
    let mut sides = Vec::new();
    for role in ["src", "dst"] {
        let layout = layout_arg(&format!("--{role}"), args.required(role)?)?;
        let shape = shape_opt(args, &format!("{role}-shape"))?;
        let mem = parse(args, &format!("{role}-mem"), "memory (global, shared, reg, tmem)", Memory::from_name)?;
        sides.push((layout, shape, mem));
    }
    let threads = args.value("threads").map(subset).transpose()?;
    let cta_threads = match args.value("cta-threads") {
        None => None,
        Some(t) => Some(t.parse::<i64>().map_err(|_| CliError::Failed(format!("--cta-threads: not a number '{t}'")))?),
    };
    let side = |i: usize| Side { layout: &sides[i].0, shape: &sides[i].1, mem: sides[i].2 };
    let req = CopyRequest { src: side(0), dst: side(1), dtype, scope, threads, chip, cta_threads };
    let p = plan(&req).map_err(|e| CliError::Failed(e.to_string()))?;
    if args.json() {
        to_json(&json_of(&p))
    } else {
        Ok(text(&p))
    }
}

fn formula_json(f: &PerThread) -> Value {
    let terms: Vec<Value> = f.terms.iter().map(|t| json!({ "div": t.div, "mod": t.modulus, "coef": t.coef })).collect();
    json!({ "base": f.base, "terms": terms })
}

fn set_json(s: &ThreadSet) -> Value {
    Value::Array(
        s.conds.iter().map(|c| json!({ "div": c.div, "mod": c.modulus, "begin": c.begin, "end": c.end })).collect(),
    )
}

fn operand_json(o: &Operand) -> Value {
    match o {
        Operand::Regs(r) => json!({ "regs": r }),
        Operand::Mem(f) => json!({ "mem": formula_json(f) }),
        Operand::Tmem { lane, col } => json!({ "tmem": { "lane": formula_json(lane), "col": formula_json(col) } }),
        Operand::Shfl { lane, reg } => json!({ "shfl": { "lane": formula_json(lane), "reg": reg } }),
    }
}

fn completion_name(c: &Completion) -> String {
    match c {
        Completion::None => "none".into(),
        Completion::CpAsyncWaitAll => "cp.async.wait_all".into(),
        Completion::Tcgen05WaitLd => "tcgen05.wait::ld".into(),
        Completion::Tcgen05WaitSt => "tcgen05.wait::st".into(),
        Completion::Barrier { threads: None } => "barrier".into(),
        Completion::Barrier { threads: Some(n) } => format!("barrier {n}"),
    }
}

fn step_json(s: &CopyStep) -> Value {
    let issues: Vec<Value> = s
        .issues
        .iter()
        .map(|i| {
            json!({ "src": operand_json(&i.src), "dst": operand_json(&i.dst), "only": i.only.as_ref().map(set_json) })
        })
        .collect();
    json!({
        "instruction": s.instruction,
        "vector_bytes": s.vector_bytes,
        "threads": set_json(&s.threads),
        "src_swizzle": s.src_swizzle.map(|w| w.to_string()),
        "dst_swizzle": s.dst_swizzle.map(|w| w.to_string()),
        "completion": completion_name(&s.completion),
        "issues": issues,
    })
}

fn json_of(p: &CopyPlan) -> Value {
    json!({
        "instruction": p.instruction,
        "vector_bytes": p.vector_bytes,
        "instructions_per_thread": p.instructions_per_thread,
        "scalar": p.scalar,
        "scope_threads": p.scope_threads,
        "src_base_alignment_bytes": p.src_base_alignment_bytes,
        "dst_base_alignment_bytes": p.dst_base_alignment_bytes,
        "staging": p.staging.as_ref().map(|s| json!({
            "layout": s.layout.to_string(),
            "bytes": s.bytes,
            "alignment_bytes": s.alignment_bytes,
            "conflict_ways": s.conflict_ways,
        })),
        "steps": p.steps.iter().map(step_json).collect::<Vec<_>>(),
    })
}

fn formula_text(f: &PerThread) -> String {
    let mut s = f.base.to_string();
    for t in &f.terms {
        let q = if t.div == 1 { "t".to_owned() } else { format!("t/{}", t.div) };
        let q = t.modulus.map_or(format!("({q})"), |m| format!("({q}%{m})"));
        s.push_str(&format!(" + {}*{q}", t.coef));
    }
    s
}

fn set_text(s: &ThreadSet) -> String {
    if s.conds.is_empty() {
        return "all threads".into();
    }
    let parts: Vec<String> = s
        .conds
        .iter()
        .map(|c| {
            let q = if c.div == 1 { "t".to_owned() } else { format!("t/{}", c.div) };
            let q = c.modulus.map_or(q.clone(), |m| format!("{q}%{m}"));
            format!("{} <= {q} < {}", c.begin, c.end)
        })
        .collect();
    parts.join(" and ")
}

fn operand_text(o: &Operand) -> String {
    match o {
        Operand::Regs(r) => format!("regs {r:?}"),
        Operand::Mem(f) => format!("[{}]", formula_text(f)),
        Operand::Tmem { lane, col } => format!("tmem lane {} col {}", formula_text(lane), formula_text(col)),
        Operand::Shfl { lane, reg } => format!("reg {reg} of lane {}", formula_text(lane)),
    }
}

fn text(p: &CopyPlan) -> String {
    let mut s = format!(
        "{}: {} bytes per thread per instruction, {} instruction(s) per thread{}\n",
        p.instruction,
        p.vector_bytes,
        p.instructions_per_thread,
        if p.scalar { " (scalar: no wider access is legal)" } else { "" }
    );
    for (what, a) in [("source", p.src_base_alignment_bytes), ("destination", p.dst_base_alignment_bytes)] {
        if let Some(a) = a {
            s.push_str(&format!("{what} base alignment {a} bytes\n"));
        }
    }
    if let Some(st) = &p.staging {
        s.push_str(&format!(
            "staging {} ({} bytes, {}-byte aligned), bank conflicts {}-way store, {}-way load\n",
            st.layout, st.bytes, st.alignment_bytes, st.conflict_ways[0], st.conflict_ways[1]
        ));
    }
    for step in &p.steps {
        s.push_str(&format!("{} by {}\n", step.instruction, set_text(&step.threads)));
        for (i, issue) in step.issues.iter().enumerate() {
            let only = issue.only.as_ref().map_or(String::new(), |o| format!(" (only {})", set_text(o)));
            s.push_str(&format!("  {i}: {} -> {}{only}\n", operand_text(&issue.src), operand_text(&issue.dst)));
        }
        if step.completion != Completion::None {
            s.push_str(&format!("  then {}\n", completion_name(&step.completion)));
        }
    }
    s
}
