//! `axe-layout mma-plan`: the tensor-core instructions of `axe.gemm(a, b, c)` (`C += A * B`); the planner is
//! `axe_layout::mma`.

use crate::cli::{layout_arg, shape_opt, to_json, Args, CliError, Command};
use axe_layout::mma::{plan, Access, Chip, ElemType, GemmRequest, Memory, MmaPlan, Operand};
use serde_json::{json, Value};

/// The `mma-plan` subcommand.
pub const COMMAND: Command = Command {
    name: "mma-plan",
    usage: "mma-plan --chip C --dtype T [--acc-dtype T] --a L --a-shape M,K --a-mem reg|shared|tmem --b L \
            --b-shape K,N --b-mem reg|shared --c L --c-shape M,N --c-mem reg|tmem [--json]",
    about: "the tensor-core instructions (mma.sync, wgmma, tcgen05) of a GEMM C += A * B",
    help: "Plans axe.gemm(a, b, c): the family follows from the memories (all registers: mma.sync; B shared and C\n\
           in registers: wgmma, sm_90a; C in tensor memory: tcgen05, sm_100a), then the largest instruction whose\n\
           fragment, swizzle or data-path atom every operand is a tile of.\n\
           --chip: sm_80 sm_86 sm_89 sm_90 sm_90a sm_100a   --dtype: f16 bf16 e4m3 e5m2   --acc-dtype: f32 (default) f16\n\
           Register layouts use laneid, the register axis m and warp axes (warpid, wid_in_wg, wgid); shared layouts\n\
           are element offsets on m from the tensor's base (address 0), possibly 'Swizzle(...) o ...'; tensor\n\
           memory layouts use TLane and TCol, TCol in element-sized slots (32/bits to a 32-bit column: an f16 A\n\
           packs 2 K elements to a column, an f16 accumulator is unpacked at TCol stride 2). With --a-mem tmem\n\
           (tcgen05 [a-tmem]) A and C share one tensor memory: their columns must not overlap.\n\
           Declare other axes with a leading 'axe-layout --axis NAME=KIND'.\n\
           --json: {\"instruction\", \"inst_shape\": [m,n,k], \"tmem_columns\" (with tensor memory), \"issues\":\n\
           [{\"thread_base\", \"m\", \"n\", \"k\", \"a\", \"b\", \"c\", \"idesc\" (tcgen05)}]}, each operand one of\n\
           {\"regs\": [...]} (register-axis values in PTX fragment order), {\"smem\": {\"desc\": \"0x...\",\n\
           \"start_offset_bytes\", \"lbo_bytes\", \"sbo_bytes\", \"base_offset\", \"swizzle\", \"major\"}} or\n\
           {\"tmem\": {\"lane\", \"col\"}} (32-bit column); idesc is \"0x...\" (32 bits).\n\
           A refusal prints 'mma: <rule> rule: ...' on stderr and exits with 1.\n",
    positional: &[],
    values: &[
        "chip", "dtype", "acc-dtype", "a", "a-shape", "a-mem", "b", "b-shape", "b-mem", "c", "c-shape", "c-mem",
    ],
    switches: &[],
    run,
};

fn parse<T>(args: &Args, name: &str, what: &str, f: fn(&str) -> Option<T>) -> Result<T, CliError> {
    let text = args.required(name)?;
    f(text).ok_or_else(|| CliError::Failed(format!("--{name}: unknown {what} '{text}'")))
}

fn run(args: &Args) -> Result<String, CliError> {
    let p = plan_of(args)?;
    if args.json() {
        to_json(&json_of(&p))
    } else {
        Ok(text(&p))
    }
}

/// The plan of a parsed `mma-plan` command line (shared with the explorer's `/api/mma`).
/// An element type the tensor cores take (the planner's vocabulary is wider: it names every copyable number).
fn mma_type(name: &str) -> Option<ElemType> {
    ElemType::from_name(name).filter(|t| t.is_mma_operand())
}

/// A memory a GEMM operand can live in: registers, shared or tensor memory.
fn operand_memory(name: &str) -> Option<Memory> {
    Memory::from_name(name).filter(|m| *m != Memory::Global)
}

pub fn plan_of(args: &Args) -> Result<MmaPlan, CliError> {
    let chip = parse(args, "chip", "chip (sm_80, sm_90, sm_90a, sm_100a)", Chip::from_name)?;
    let dtype = parse(args, "dtype", "element type (f16, bf16, tf32, e4m3, e5m2)", mma_type)?;
    let acc_dtype = match args.value("acc-dtype") {
        None => ElemType::F32,
        Some(t) => mma_type(t)
            .ok_or_else(|| CliError::Failed(format!("--acc-dtype: unknown element type '{t}' (f32 or f16)")))?,
    };
    let mut layouts = Vec::new();
    for role in ["a", "b", "c"] {
        let layout = layout_arg(&format!("--{role}"), args.required(role)?)?;
        let shape = shape_opt(args, &format!("{role}-shape"))?;
        let mem = parse(args, &format!("{role}-mem"), "memory (reg, shared, tmem)", operand_memory)?;
        layouts.push((layout, shape, mem));
    }
    let op = |i: usize| Operand { layout: &layouts[i].0, shape: &layouts[i].1, mem: layouts[i].2 };
    let req = GemmRequest { chip, dtype, acc_dtype, a: op(0), b: op(1), c: op(2) };
    plan(&req).map_err(|e| CliError::Failed(e.to_string()))
}

fn access_json(a: &Access) -> Value {
    match a {
        Access::Regs(r) => json!({ "regs": r }),
        Access::Smem(d) => json!({ "smem": {
            "desc": format!("0x{:016x}", d.desc),
            "start_offset_bytes": d.start_offset_bytes,
            "lbo_bytes": d.lbo_bytes,
            "sbo_bytes": d.sbo_bytes,
            "base_offset": d.base_offset,
            "swizzle": d.swizzle.name(),
            "major": d.major.name(),
        }}),
        Access::Tmem { lane, col } => json!({ "tmem": { "lane": lane, "col": col } }),
    }
}

/// The `--json` object of a plan.
pub fn json_of(p: &MmaPlan) -> Value {
    let issues: Vec<Value> = p
        .issues
        .iter()
        .map(|i| {
            let mut v = json!({
                "thread_base": i.thread_base, "m": i.m, "n": i.n, "k": i.k,
                "a": access_json(&i.a), "b": access_json(&i.b), "c": access_json(&i.c),
            });
            if let (Some(idesc), Some(obj)) = (p.idesc, v.as_object_mut()) {
                obj.insert("idesc".into(), json!(format!("0x{idesc:08x}")));
            }
            v
        })
        .collect();
    let mut v = json!({ "instruction": p.instruction, "inst_shape": p.inst_shape, "issues": issues });
    if let (Some(cols), Some(obj)) = (p.tmem_columns, v.as_object_mut()) {
        obj.insert("tmem_columns".into(), json!(cols));
    }
    v
}

fn access_text(a: &Access) -> String {
    match a {
        Access::Regs(r) => format!("regs {r:?}"),
        Access::Smem(d) => format!(
            "smem desc 0x{:016x} (start {} B, LBO {} B, SBO {} B, base offset {}, {} swizzle, {}-major)",
            d.desc,
            d.start_offset_bytes,
            d.lbo_bytes,
            d.sbo_bytes,
            d.base_offset,
            d.swizzle.name(),
            d.major.name()
        ),
        Access::Tmem { lane, col } => format!("tmem lane {lane} col {col}"),
    }
}

/// The text the command prints without `--json`.
pub fn text(p: &MmaPlan) -> String {
    let [m, n, k] = p.inst_shape;
    let mut s = format!("{}: {} issue(s) of m{m}n{n}k{k}\n", p.instruction, p.issues.len());
    if let Some(cols) = p.tmem_columns {
        s.push_str(&format!("tensor memory columns  {cols}\n"));
    }
    if let Some(idesc) = p.idesc {
        s.push_str(&format!("instruction descriptor 0x{idesc:08x}\n"));
    }
    if let Some(align) = p.shared_base_alignment_bytes {
        s.push_str(&format!("shared base alignment  {align} bytes\n"));
    }
    for (i, issue) in p.issues.iter().enumerate() {
        s.push_str(&format!(
            "  {i}: thread {} m {} n {} k {}\n      a {}\n      b {}\n      c {}\n",
            issue.thread_base,
            issue.m,
            issue.n,
            issue.k,
            access_text(&issue.a),
            access_text(&issue.b),
            access_text(&issue.c)
        ));
    }
    s
}
