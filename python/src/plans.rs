//! `tma_plan` and `mma_plan`: the planners of `axe_layout::tma` (paper section 3.4) and `axe_layout::mma`
//! (section 3.3), with the CLI's options as keywords and the CLI's `--json` objects as dicts, key for key:
//! `axe-layout tma-plan --global-shape S ... --json` is `tma_plan(global_shape=S, ...)`, except that `--global`
//! and `--shared` are `global_layout` and `shared_layout` (`global` is a Python keyword). The dicts are built
//! here from the plan, as `tools/axe-layout/src/{tma,mma}_plan.rs` build the JSON; `python/tests/test_plans.py`
//! compares them with the CLI's output.

use crate::args::{layout_of, region_of, shape_of};
use crate::{crate_error, guarded, layout_error};
use layout::mma::{self, Access, Chip, GemmRequest, Memory, Operand};
use layout::tma::{self, Direction, ElemType, L2Promotion, OobFill, TmaOptions, TmaRequest};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A plain refusal (`what: message`), raised as LayoutError.
fn refuse(py: Python<'_>, message: String) -> PyErr {
    layout_error(py, &message, None, None)
}

/// Plans a TMA copy between a global and a shared region, as `axe-layout tma-plan --json`.
///
/// Returns {"dtype", "rank", "global_dims", "global_strides_bytes", "box_dims", "element_strides",
/// "interleave", "swizzle", "l2_promotion", "oob_fill", "issues": [{"coordinates", "smem_offset_bytes"}]} plus
/// "global_offset_bytes" when the global layout has a non-zero offset: arrays innermost dimension first, enums
/// numbered as the CUDA driver numbers them. dtype: u8 i8 f8e4m3 f8e5m2 u16 i16 f16 bf16 u32 i32 f32 tf32 u64
/// i64 f64; direction: g2s (default) or s2g; l2_promotion: none, 64B, 128B (default) or 256B; oob_fill: zero
/// (default) or nan.
#[pyfunction]
#[pyo3(signature = (*, global_layout, global_shape, global_region, shared_layout, shared_shape, shared_region,
    dtype, direction="g2s", l2_promotion=None, oob_fill=None))]
#[allow(clippy::too_many_arguments)]
pub fn tma_plan<'py>(
    py: Python<'py>,
    global_layout: &Bound<'py, PyAny>,
    global_shape: &Bound<'py, PyAny>,
    global_region: &Bound<'py, PyAny>,
    shared_layout: &Bound<'py, PyAny>,
    shared_shape: &Bound<'py, PyAny>,
    shared_region: &Bound<'py, PyAny>,
    dtype: &str,
    direction: &str,
    l2_promotion: Option<&str>,
    oob_fill: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    guarded(py, "tma_plan", || {
        let global = layout_of(py, "global_layout", global_layout)?;
        let global_shape = shape_of(py, "global_shape", global_shape)?;
        let global_region = region_of(py, "global_region", global_region)?;
        let shared = layout_of(py, "shared_layout", shared_layout)?;
        let shared_shape = shape_of(py, "shared_shape", shared_shape)?;
        let shared_region = region_of(py, "shared_region", shared_region)?;
        let dtype = ElemType::from_name(dtype).ok_or_else(|| {
            let names: Vec<&str> = ElemType::ALL.iter().map(|t| t.name()).collect();
            refuse(py, format!("dtype: unknown element type '{dtype}' (one of {})", names.join(", ")))
        })?;
        let direction = Direction::from_name(direction)
            .ok_or_else(|| refuse(py, format!("direction: expected g2s or s2g, got '{direction}'")))?;
        let mut options = TmaOptions::default();
        if let Some(t) = l2_promotion {
            options.l2_promotion = L2Promotion::from_name(t)
                .ok_or_else(|| refuse(py, format!("l2_promotion: expected none, 64B, 128B or 256B, got '{t}'")))?;
        }
        if let Some(t) = oob_fill {
            options.oob_fill = match t {
                "zero" | "none" | "0" => OobFill::None,
                "nan" | "1" => OobFill::NanRequestZeroFma,
                _ => return Err(refuse(py, format!("oob_fill: expected zero or nan, got '{t}'"))),
            };
        }
        for (what, layout, shape) in
            [("global_shape", &global, &global_shape), ("shared_shape", &shared, &shared_shape)]
        {
            layout.admits(shape).map_err(|e| crate_error(py, what, None, &e))?;
        }
        let p = tma::plan(&TmaRequest {
            global: &global,
            global_shape: &global_shape,
            global_region: &global_region,
            shared: &shared,
            shared_shape: &shared_shape,
            shared_region: &shared_region,
            dtype,
            direction,
            options,
        })
        .map_err(|e| refuse(py, e.to_string()))?;

        let d = &p.desc;
        let out = PyDict::new(py);
        out.set_item("dtype", d.data_type.code())?;
        out.set_item("rank", d.rank)?;
        out.set_item("global_dims", &d.global_dims)?;
        out.set_item("global_strides_bytes", &d.global_strides_bytes)?;
        out.set_item("box_dims", &d.box_dims)?;
        out.set_item("element_strides", &d.element_strides)?;
        out.set_item("interleave", d.interleave as u32)?;
        out.set_item("swizzle", d.swizzle as u32)?;
        out.set_item("l2_promotion", d.l2_promotion as u32)?;
        out.set_item("oob_fill", d.oob_fill as u32)?;
        let issues = PyList::empty(py);
        for i in &p.issues {
            let issue = PyDict::new(py);
            issue.set_item("coordinates", &i.coordinates)?;
            issue.set_item("smem_offset_bytes", i.smem_offset_bytes)?;
            issues.append(issue)?;
        }
        out.set_item("issues", issues)?;
        if p.global_offset_bytes != 0 {
            out.set_item("global_offset_bytes", p.global_offset_bytes)?;
        }
        Ok(out)
    })
}

/// How one instruction reaches one operand, as the CLI's JSON: {"regs": [...]}, {"smem": {...}} or
/// {"tmem": {"lane", "col"}}.
fn access_dict<'py>(py: Python<'py>, a: &Access) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    match a {
        Access::Regs(r) => out.set_item("regs", r)?,
        Access::Smem(d) => {
            let smem = PyDict::new(py);
            smem.set_item("desc", format!("0x{:016x}", d.desc))?;
            smem.set_item("start_offset_bytes", d.start_offset_bytes)?;
            smem.set_item("lbo_bytes", d.lbo_bytes)?;
            smem.set_item("sbo_bytes", d.sbo_bytes)?;
            smem.set_item("base_offset", d.base_offset)?;
            smem.set_item("swizzle", d.swizzle.name())?;
            smem.set_item("major", d.major.name())?;
            out.set_item("smem", smem)?;
        }
        Access::Tmem { lane, col } => {
            let tmem = PyDict::new(py);
            tmem.set_item("lane", lane)?;
            tmem.set_item("col", col)?;
            out.set_item("tmem", tmem)?;
        }
    }
    Ok(out)
}

/// Plans the tensor-core instructions of `axe.gemm(a, b, c)` (C += A * B), as `axe-layout mma-plan --json`.
///
/// Returns {"instruction", "inst_shape": [m, n, k], "tmem_columns" (with tensor memory), "issues":
/// [{"thread_base", "m", "n", "k", "a", "b", "c", "idesc" (tcgen05)}]}, each operand one of {"regs": [...]},
/// {"smem": {"desc": "0x...", "start_offset_bytes", "lbo_bytes", "sbo_bytes", "base_offset", "swizzle",
/// "major"}} or {"tmem": {"lane", "col"}}. chip: sm_80 sm_86 sm_89 sm_90 sm_90a sm_100a; dtype: f16 bf16 e4m3
/// e5m2; acc_dtype: f32 (default) or f16; memories: reg, shared, tmem.
#[pyfunction]
#[pyo3(signature = (*, chip, dtype, a, a_shape, a_mem, b, b_shape, b_mem, c, c_shape, c_mem, acc_dtype="f32"))]
#[allow(clippy::too_many_arguments)]
pub fn mma_plan<'py>(
    py: Python<'py>,
    chip: &str,
    dtype: &str,
    a: &Bound<'py, PyAny>,
    a_shape: &Bound<'py, PyAny>,
    a_mem: &str,
    b: &Bound<'py, PyAny>,
    b_shape: &Bound<'py, PyAny>,
    b_mem: &str,
    c: &Bound<'py, PyAny>,
    c_shape: &Bound<'py, PyAny>,
    c_mem: &str,
    acc_dtype: &str,
) -> PyResult<Bound<'py, PyDict>> {
    guarded(py, "mma_plan", || {
        let chip = Chip::from_name(chip)
            .ok_or_else(|| refuse(py, format!("chip: unknown chip (sm_80, sm_90, sm_90a, sm_100a) '{chip}'")))?;
        let dtype = ElemType::from_name(dtype)
            .filter(|t| t.is_mma_operand())
            .ok_or_else(|| refuse(py, format!("dtype: unknown element type (f16, bf16, e4m3, e5m2) '{dtype}'")))?;
        let acc_dtype = ElemType::from_name(acc_dtype)
            .filter(|t| t.is_mma_operand())
            .ok_or_else(|| refuse(py, format!("acc_dtype: unknown element type '{acc_dtype}' (f32 or f16)")))?;
        let mut operands = Vec::new();
        for (role, layout, shape, mem) in [("a", a, a_shape, a_mem), ("b", b, b_shape, b_mem), ("c", c, c_shape, c_mem)]
        {
            let layout = layout_of(py, role, layout)?;
            let shape = shape_of(py, &format!("{role}_shape"), shape)?;
            let mem = Memory::from_name(mem)
                .filter(|m| *m != Memory::Global)
                .ok_or_else(|| refuse(py, format!("{role}_mem: unknown memory (reg, shared, tmem) '{mem}'")))?;
            operands.push((layout, shape, mem));
        }
        let op = |i: usize| Operand { layout: &operands[i].0, shape: &operands[i].1, mem: operands[i].2 };
        let p = mma::plan(&GemmRequest { chip, dtype, acc_dtype, a: op(0), b: op(1), c: op(2) })
            .map_err(|e| refuse(py, e.to_string()))?;

        let issues = PyList::empty(py);
        for i in &p.issues {
            let issue = PyDict::new(py);
            issue.set_item("thread_base", i.thread_base)?;
            issue.set_item("m", i.m)?;
            issue.set_item("n", i.n)?;
            issue.set_item("k", i.k)?;
            issue.set_item("a", access_dict(py, &i.a)?)?;
            issue.set_item("b", access_dict(py, &i.b)?)?;
            issue.set_item("c", access_dict(py, &i.c)?)?;
            if let Some(idesc) = p.idesc {
                issue.set_item("idesc", format!("0x{idesc:08x}"))?;
            }
            issues.append(issue)?;
        }
        let out = PyDict::new(py);
        out.set_item("instruction", &p.instruction)?;
        out.set_item("inst_shape", p.inst_shape)?;
        out.set_item("issues", issues)?;
        if let Some(cols) = p.tmem_columns {
            out.set_item("tmem_columns", cols)?;
        }
        Ok(out)
    })
}
