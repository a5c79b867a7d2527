//! One planned instruction of `--lower-copy` as upstream ops, one function per instruction kind (`ld`/`st`,
//! `ldmatrix`/`stmatrix`, `cp.async`, `tcgen05.ld`/`st`, `shfl.sync`, moves): the registers, addresses and thread
//! sets all come from the plan's step and issue; `emit.rs` places the step and computes its addresses.

use super::emit::{
    memory, per_thread, pointer, read, region_address, registers, thread_set, vector_type, write, Context, Handle,
};
use crate::ir::build::Builder;
use crate::ir::ty::{AddressSpace, Ty};
use axe_layout::copy::{CopyIssue, CopyKind, CopyStep, ElemType, Operand, TmemShape};
use melior::ir::Value;

/// One instruction of a step (see the module docs of `lower_copy` for what each kind becomes).
pub(super) fn instruction<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    step: &CopyStep,
    issue: &CopyIssue,
    index: usize,
) -> Result<(), String> {
    let lanes = (step.vector_bytes / cx.dtype.bytes()).max(1) as usize;
    match step.kind {
        CopyKind::Load(_) => load(b, cx, step, issue, index, lanes),
        CopyKind::Store(_) => store(b, cx, step, issue, index, lanes),
        CopyKind::Ldmatrix { count, trans } => ldmatrix(b, cx, step, issue, count, trans),
        CopyKind::Stmatrix { count, trans } => stmatrix(b, cx, step, issue, count, trans),
        CopyKind::CpAsync { bytes } => cp_async(b, cx, step, issue, index, bytes),
        CopyKind::Tcgen05Ld { shape, num } => tcgen05_ld(b, cx, issue, shape, num),
        CopyKind::Tcgen05St { shape, num } => tcgen05_st(b, cx, issue, shape, num),
        CopyKind::Shuffle => shuffle(b, cx, issue),
        CopyKind::Mov => mov(b, cx, issue),
    }
}

/// `ld` of one vector into registers (predicated on a run-time-sized source, zero outside it).
fn load<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    step: &CopyStep,
    issue: &CopyIssue,
    index: usize,
    lanes: usize,
) -> Result<(), String> {
    let element = cx.element.as_str();
    let regs = slots(&issue.dst)?;
    if regs.len() != lanes {
        return Err(format!("copy: internal: {} registers for a {lanes}-element load", regs.len()));
    }
    let ty = vector_type(lanes, element);
    let load = |g: &Builder<'c, 'a>, address: Value<'c, 'a>| {
        let value = g.llvm_load(address, g.ty(&ty)?, Some(step.vector_bytes))?;
        write(g, registers(cx, 1)?, regs, value, element)
    };
    match region_address(b, cx, 0, index)? {
        // A run-time-sized source: the registers are zero past its edge, and no address outside it is read (the
        // load is predicated, as a store into one is).
        Some((address, inside)) => {
            let zero = b.zero(element)?;
            for &r in regs {
                b.store(zero, registers(cx, 1)?, &[b.index(r)?])?;
            }
            b.guarded(inside, |g| load(g, g.inttoptr(address, AddressSpace::Global)?))
        }
        None => load(b, pointer(b, cx, 0, &issue.src, step.src_swizzle)?),
    }
}

/// `st` of registers as one vector (predicated on a run-time-sized destination).
fn store<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    step: &CopyStep,
    issue: &CopyIssue,
    index: usize,
    lanes: usize,
) -> Result<(), String> {
    let element = cx.element.as_str();
    let regs = slots(&issue.src)?;
    if regs.len() != lanes {
        return Err(format!("copy: internal: {} registers for a {lanes}-element store", regs.len()));
    }
    let value = read(b, registers(cx, 0)?, regs, element)?;
    let store = |g: &Builder<'c, 'a>, address: Value<'c, 'a>| g.llvm_store(value, address, Some(step.vector_bytes));
    match region_address(b, cx, 1, index)? {
        // A run-time-sized destination: the store is predicated on the access lying inside the tensor.
        Some((address, inside)) => b.guarded(inside, |g| store(g, g.inttoptr(address, AddressSpace::Global)?)),
        None => store(b, pointer(b, cx, 1, &issue.dst, step.dst_swizzle)?),
    }
}

/// `ldmatrix` x1/x2/x4 (`.trans`): 8x8 b16 matrices into register pairs.
fn ldmatrix<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    step: &CopyStep,
    issue: &CopyIssue,
    count: u8,
    trans: bool,
) -> Result<(), String> {
    let element = cx.element.as_str();
    let regs = matrix_registers(cx, &issue.dst, "ldmatrix", count)?;
    let address = pointer(b, cx, 0, &issue.src, step.src_swizzle)?;
    let ty = if count == 1 {
        "i32".to_string()
    } else {
        format!("!llvm.struct<({})>", vec!["i32"; count as usize].join(", "))
    };
    let mut attributes = matrix_attributes(trans).to_vec();
    attributes.push(("num", format!("{count} : i32")));
    let result = b.value("nvvm.ldmatrix", &[address], b.ty(&ty)?, &attributes)?;
    let memref = registers(cx, 1)?;
    let pair = vector_type(2, element);
    for i in 0..count as usize {
        let word = if count == 1 { result } else { b.extractvalue(result, i, Ty::I32)? };
        let two = b.llvm_bitcast(word, b.ty(&pair)?)?;
        write(b, memref, &regs[2 * i..2 * i + 2], two, element)?;
    }
    Ok(())
}

/// The register slots of an `ldmatrix`/`stmatrix` x`count`: two 16-bit elements per matrix.
fn matrix_registers<'o>(cx: &Context, operand: &'o Operand, what: &str, count: u8) -> Result<&'o [i64], String> {
    let regs = slots(operand)?;
    if regs.len() != 2 * count as usize || cx.dtype.bytes() != 2 {
        return Err(format!("copy: internal: {what} x{count} of {} with {} registers", cx.element, regs.len()));
    }
    Ok(regs)
}

/// The attributes `ldmatrix` and `stmatrix` share: 8x8 matrices of b16, row-major or transposed (`.trans`).
fn matrix_attributes(trans: bool) -> [(&'static str, String); 3] {
    [
        ("layout", format!("#nvvm.mma_layout<{}>", if trans { "col" } else { "row" })),
        ("shape", "#nvvm.ld_st_matrix_shape<m = 8, n = 8>".to_string()),
        ("eltType", "#nvvm.ld_st_matrix_elt_type<b16>".to_string()),
    ]
}

/// `stmatrix`: register pairs to 8x8 b16 matrices.
fn stmatrix<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    step: &CopyStep,
    issue: &CopyIssue,
    count: u8,
    trans: bool,
) -> Result<(), String> {
    let element = cx.element.as_str();
    let regs = matrix_registers(cx, &issue.src, "stmatrix", count)?;
    let memref = registers(cx, 0)?;
    let mut operands = vec![pointer(b, cx, 1, &issue.dst, step.dst_swizzle)?];
    for i in 0..count as usize {
        let two = read(b, memref, &regs[2 * i..2 * i + 2], element)?;
        operands.push(b.llvm_bitcast(two, Ty::I32)?);
    }
    b.op("nvvm.stmatrix", &operands, &[], &matrix_attributes(trans)).map(drop)
}

/// `cp.async` of 4, 8 or 16 bytes (zero fill outside a run-time-sized source).
fn cp_async<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    step: &CopyStep,
    issue: &CopyIssue,
    index: usize,
    bytes: u8,
) -> Result<(), String> {
    let dest = pointer(b, cx, 1, &issue.dst, step.dst_swizzle)?;
    let cache = if bytes == 16 { "cg" } else { "ca" };
    let attributes = [("size", format!("{bytes} : i32")), ("modifier", format!("#nvvm<load_cache_modifier {cache}>"))];
    match region_address(b, cx, 0, index)? {
        // A run-time-sized source: outside the tensor, src-size 0 zero-fills the destination (and the
        // address read is the tensor's base, so no address past it is formed for the instruction).
        Some((address, inside)) => {
            let (base, _) = memory(cx, 0)?;
            let address = b.select(inside, address, base)?;
            let source = b.inttoptr(address, AddressSpace::Global)?;
            let size = b.select(inside, b.constant(i64::from(bytes), Ty::I32)?, b.constant(0, Ty::I32)?)?;
            b.op("nvvm.cp.async.shared.global", &[dest, source, size], &[], &attributes).map(drop)
        }
        None => {
            let source = pointer(b, cx, 0, &issue.src, step.src_swizzle)?;
            b.op("nvvm.cp.async.shared.global", &[dest, source], &[], &attributes).map(drop)
        }
    }
}

/// `tcgen05.ld`: tensor memory into registers.
fn tcgen05_ld<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    issue: &CopyIssue,
    shape: TmemShape,
    num: u32,
) -> Result<(), String> {
    let element = cx.element.as_str();
    let regs = tmem_slots(cx, &issue.dst, "tcgen05.ld", shape, num)?;
    let n = regs.len();
    let address = tmem_address(b, cx, tmem(cx, 0)?, &issue.src)?;
    let raw = b.tcgen05_ld(address, shape, b.ty(&vector_type(n, "i32"))?)?;
    let value = if element == "i32" { raw } else { b.llvm_bitcast(raw, b.ty(&vector_type(n, element))?)? };
    write(b, registers(cx, 1)?, regs, value, element)
}

/// `tcgen05.st`: registers into tensor memory.
fn tcgen05_st<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    issue: &CopyIssue,
    shape: TmemShape,
    num: u32,
) -> Result<(), String> {
    let element = cx.element.as_str();
    let regs = tmem_slots(cx, &issue.src, "tcgen05.st", shape, num)?;
    let n = regs.len();
    let value = read(b, registers(cx, 0)?, regs, element)?;
    let raw = if element == "i32" { value } else { b.llvm_bitcast(value, b.ty(&vector_type(n, "i32"))?)? };
    let address = tmem_address(b, cx, tmem(cx, 1)?, &issue.dst)?;
    b.tcgen05_st(address, raw, shape)
}

/// `shfl.sync idx`: one register from another lane.
fn shuffle<'c, 'a>(b: &Builder<'c, 'a>, cx: &Context<'c, 'a>, issue: &CopyIssue) -> Result<(), String> {
    let element = cx.element.as_str();
    let Operand::Shfl { lane, reg } = &issue.src else {
        return Err("copy: internal: a shuffle without a lane".to_string());
    };
    let regs = slots(&issue.dst)?;
    let [slot] = regs else {
        return Err(format!("copy: internal: a shuffle writes one register, got {}", regs.len()));
    };
    let sent = b.load(registers(cx, 0)?, &[b.index(*reg)?])?;
    let word = to_word(b, sent, cx.dtype, element)?;
    let lane = per_thread(b, cx.t, lane)?;
    let lane = b.index_cast(lane, Ty::I32)?;
    let (mask, clamp) = (b.constant(-1, Ty::I32)?, b.constant(31, Ty::I32)?);
    let kind = ("kind", "#nvvm<shfl_kind idx>".to_string());
    let got = b.value("nvvm.shfl.sync", &[mask, word, lane, clamp], Ty::I32, &[kind])?;
    let value = from_word(b, got, cx.dtype, element)?;
    let memref = registers(cx, 1)?;
    match &issue.only {
        Some(only) => {
            let keep = thread_set(b, cx.t, only)?.ok_or("copy: internal: empty only-set")?;
            b.guarded(keep, |g| g.store(value, memref, &[g.index(*slot)?]))
        }
        None => b.store(value, memref, &[b.index(*slot)?]),
    }
}

/// A register-to-register move within a thread.
fn mov<'c, 'a>(b: &Builder<'c, 'a>, cx: &Context<'c, 'a>, issue: &CopyIssue) -> Result<(), String> {
    let element = cx.element.as_str();
    let (from, to) = (slots(&issue.src)?, slots(&issue.dst)?);
    if from.len() != to.len() {
        return Err(format!("copy: internal: mov of {} registers into {}", from.len(), to.len()));
    }
    let value = read(b, registers(cx, 0)?, from, element)?;
    write(b, registers(cx, 1)?, to, value, element)
}

/// The register slots of a `Regs` operand.
fn slots(operand: &Operand) -> Result<&[i64], String> {
    match operand {
        Operand::Regs(regs) => Ok(regs),
        _ => Err("copy: internal: expected a register operand".to_string()),
    }
}

/// The register slots of a `tcgen05.ld`/`st` (`what`) of `shape` x`num`: one 32-bit element per register.
fn tmem_slots<'o>(
    cx: &Context,
    operand: &'o Operand,
    what: &str,
    shape: TmemShape,
    num: u32,
) -> Result<&'o [i64], String> {
    let regs = slots(operand)?;
    let n = tmem_registers(shape, num);
    if regs.len() != n || cx.dtype.bytes() != 4 {
        return Err(format!("copy: internal: {what} of {n} registers with {} of {}", regs.len(), cx.element));
    }
    Ok(regs)
}

/// The registers a tensor-memory shape moves per thread for `.x<num>` (PTX ISA, tcgen05.ld/st: 32x32b and 16x64b
/// one 32-bit register per repetition, 16x128b two, 16x256b four).
fn tmem_registers(shape: TmemShape, num: u32) -> usize {
    let per = match shape {
        TmemShape::S32x32b | TmemShape::S16x64b => 1,
        TmemShape::S16x128b => 2,
        TmemShape::S16x256b => 4,
    };
    per * num as usize
}

/// A tensor-memory address: the allocation plus `lane << 16 | column`, the lane per thread.
fn tmem_address<'c, 'a>(
    b: &Builder<'c, 'a>,
    cx: &Context<'c, 'a>,
    base: Value<'c, 'a>,
    operand: &Operand,
) -> Result<Value<'c, 'a>, String> {
    let Operand::Tmem { lane, col } = operand else {
        return Err("copy: internal: expected a tensor-memory operand".to_string());
    };
    let lane = per_thread(b, cx.t, lane)?;
    let lane = b.index_cast(lane, Ty::I32)?;
    let field = b.shli(lane, b.constant(16, Ty::I32)?)?;
    let column = per_thread(b, cx.t, col)?;
    let column = b.index_cast(column, Ty::I32)?;
    let raw = b.ptrtoint(base, Ty::I32)?;
    let address = b.addi(raw, field)?;
    let address = b.addi(address, column)?;
    b.inttoptr(address, AddressSpace::Tmem)
}

/// The tensor-memory address of side `which`.
fn tmem<'c, 'a>(cx: &Context<'c, 'a>, which: usize) -> Result<Value<'c, 'a>, String> {
    match cx.sides[which] {
        Handle::Tmem(address) => Ok(address),
        _ => Err("copy: internal: a tensor-memory operand on a side that is not tensor memory".to_string()),
    }
}

/// The integer type of the element's width (`i16` for `f16`).
fn bits_type(dtype: ElemType) -> String {
    format!("i{}", dtype.bytes() * 8)
}

/// One register as the `i32` a shuffle moves (bitcast, zero-extended when narrower).
fn to_word<'c, 'a>(
    b: &Builder<'c, 'a>,
    value: Value<'c, 'a>,
    dtype: ElemType,
    element: &str,
) -> Result<Value<'c, 'a>, String> {
    if dtype.bytes() > 4 {
        return Err(format!("copy: internal: a shuffle moves 32 bits, got {element}"));
    }
    let bits = bits_type(dtype);
    let integer = if element == bits { value } else { b.bitcast(value, b.ty(&bits)?)? };
    if dtype.bytes() == 4 {
        Ok(integer)
    } else {
        b.extui(integer, Ty::I32)
    }
}

/// The inverse of [`to_word`].
fn from_word<'c, 'a>(
    b: &Builder<'c, 'a>,
    word: Value<'c, 'a>,
    dtype: ElemType,
    element: &str,
) -> Result<Value<'c, 'a>, String> {
    let bits = bits_type(dtype);
    let integer = if dtype.bytes() == 4 { word } else { b.trunci(word, b.ty(&bits)?)? };
    if element == bits {
        Ok(integer)
    } else {
        b.bitcast(integer, b.ty(element)?)
    }
}
