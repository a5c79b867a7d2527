//! A generator of axe IR: MLIR modules whose axe ops carry generated layouts.
//!
//! Two templates:
//! - [`tma_kernel`]: a host function launching a `gpu.module` kernel that views global memrefs as axe tensors,
//!   optionally slices a box out of them, allocates a (usually swizzled) shared tile and copies with
//!   `axe.copy_async` on an mbarrier, then back: the shape of `examples/tma_copy.mlir` with varied dtypes,
//!   shapes, strides, swizzles, offsets and scopes, so `--lower-tma`, `--lower-to-nvvm` and `axe-translate`
//!   get real work;
//! - [`random_function`]: a function with a random sequence of every axe op (view, alloc, slice, copy,
//!   copy_async, fill, gemm, the barrier ops, sync, annotate) over tensors of generated shapes and layouts,
//!   sometimes with an `axe.axes` declaration, so the verifier's rules and the passes see every op.
//!
//! Types are mostly consistent (layouts admit their shapes, dtypes agree) so inputs get past the parser; one
//! in a few breaks a rule on purpose (wrong layout size, wrong memory, wrong scope, wild layout text).

use crate::driver::Rng;
use crate::gen_layout::{self, Knobs};
use axe_layout::notation::parse_layout;
use rand::seq::IndexedRandom;
use rand::RngExt;
use std::fmt::Write as _;

/// Element types as MLIR spells them, with their size in bytes.
pub const DTYPES: &[(&str, i64)] =
    &[("f16", 2), ("bf16", 2), ("f32", 4), ("i8", 1), ("i32", 4), ("f64", 8), ("i16", 2)];

const SCOPES: &[&str] = &["kernel", "cluster", "cta", "warpgroup", "warp", "thread"];

fn dims_text(dims: &[i64]) -> String {
    dims.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

fn memref(dims: &[i64], dtype: &str) -> String {
    if dims.is_empty() {
        return format!("memref<{dtype}>");
    }
    format!("memref<{}x{dtype}>", dims.iter().map(i64::to_string).collect::<Vec<_>>().join("x"))
}

fn row_major(dims: &[i64]) -> String {
    let mut strides = vec![1i64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].saturating_mul(dims[d + 1]);
    }
    format!("S[({}):({})]", gen_layout::list_text(dims), gen_layout::list_text(&strides))
}

fn tensor(dims: &[i64], dtype: &str, layout: &str, mem: &str) -> String {
    let layout = if layout == "#axe.deferred" { layout.to_string() } else { format!("#axe.layout<\"{layout}\">") };
    format!("!axe.tensor<array<i64: {}>, {dtype}, {layout}, #axe.mem<\"{mem}\">>", dims_text(dims))
}

/// One in `n` a wild layout instead of `layout`.
fn maybe_wild(rng: &mut Rng, layout: String, n: u32) -> String {
    if rng.random_range(0..n) == 0 {
        gen_layout::layout(rng).replace(['\n', '"'], " ")
    } else {
        layout
    }
}

/// A kernel copying a global box into shared memory with TMA and back (see the module documentation).
pub fn tma_kernel(rng: &mut Rng) -> String {
    let &(dtype, bytes) = DTYPES.choose(rng).unwrap_or(&("f16", 2));
    let rank = *[1usize, 2, 2, 2, 3].choose(rng).unwrap_or(&2);
    let span = *[32i64, 64, 128, 128, 16].choose(rng).unwrap_or(&128);
    let cols = (span / bytes).max(1);
    let mut box_dims: Vec<i64> = (0..rank - 1).map(|_| *[1i64, 2, 8, 16, 64, 128].choose(rng).unwrap_or(&8)).collect();
    box_dims.push(if rng.random_range(0..6) == 0 { cols * 2 } else { cols });
    let global: Vec<i64> = box_dims.iter().map(|&b| b * *[1i64, 1, 2, 4].choose(rng).unwrap_or(&1)).collect();
    let offsets: Vec<i64> =
        global.iter().zip(&box_dims).map(|(&g, &b)| b * rng.random_range(0..(g / b).max(1))).collect();
    let per_elem = (16 / bytes).max(1).ilog2();
    let swizzle_bits = match span {
        32 => 1,
        64 => 2,
        128 => 3,
        _ => 0,
    };
    let shared_tile = row_major(&box_dims);
    let shared_layout = if swizzle_bits == 0 || rng.random_range(0..5) == 0 {
        shared_tile
    } else {
        format!("Swizzle({per_elem},{swizzle_bits},3) o {shared_tile}")
    };
    let shared_layout = maybe_wild(rng, shared_layout, 12);
    let global_layout = maybe_wild(rng, row_major(&global), 12);
    let sliced = offsets.iter().any(|&o| o != 0) || global != box_dims || rng.random_bool(0.3);
    let scope = if rng.random_range(0..8) == 0 { *SCOPES.choose(rng).unwrap_or(&"cta") } else { "cta" };
    let g = memref(&global, dtype);
    let gt = tensor(&global, dtype, &global_layout, "global");
    let st = tensor(&box_dims, dtype, &shared_layout, "shared");
    let rt = if rng.random_bool(0.5) {
        tensor(&box_dims, dtype, "#axe.deferred", "global")
    } else {
        let text = parse_layout(&global_layout)
            .ok()
            .and_then(|l| {
                let region: Vec<(i64, i64)> = offsets.iter().zip(&box_dims).map(|(&o, &b)| (o, o + b)).collect();
                axe_layout::slice::slice(&l, &global, &region).ok()
            })
            .map_or_else(|| "#axe.deferred".to_string(), |l| l.to_string());
        tensor(&box_dims, dtype, &text, "global")
    };
    let store = rng.random_bool(0.6);
    let wait = rng.random_bool(0.7);
    let threads = *[1i64, 32, 128, 256].choose(rng).unwrap_or(&128);
    let mut k = String::new();
    let _ = writeln!(k, "module attributes {{gpu.container_module}} {{");
    let _ = writeln!(k, "  func.func @launch(%src: {g}, %dst: {g}) {{");
    let _ = writeln!(k, "    %c1 = arith.constant 1 : index");
    let _ = writeln!(k, "    %cT = arith.constant {threads} : index");
    let _ = writeln!(
        k,
        "    gpu.launch_func @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%cT, %c1, %c1) args(%src : {g}, %dst : {g})"
    );
    let _ = writeln!(k, "    return\n  }}");
    let _ = writeln!(k, "  gpu.module @kernels {{");
    let known = if rng.random_bool(0.5) {
        format!(" attributes {{known_block_size = array<i32: {threads}, 1, 1>}}")
    } else {
        String::new()
    };
    let _ = writeln!(k, "    gpu.func @copy(%src: {g}, %dst: {g}) kernel{known} {{");
    let _ = writeln!(k, "      %in = \"axe.view\"(%src) : ({g}) -> {gt}");
    let _ = writeln!(k, "      %out = \"axe.view\"(%dst) : ({g}) -> {gt}");
    let (src, src_t, dst, dst_t) = if sliced {
        let attrs =
            format!("{{offsets = array<i64: {}>, sizes = array<i64: {}>}}", dims_text(&offsets), dims_text(&box_dims));
        let _ = writeln!(k, "      %r = \"axe.slice\"(%in) {attrs} : ({gt}) -> {rt}");
        let _ = writeln!(k, "      %w = \"axe.slice\"(%out) {attrs} : ({gt}) -> {rt}");
        ("%r", rt.clone(), "%w", rt)
    } else {
        ("%in", gt.clone(), "%out", gt)
    };
    let _ = writeln!(k, "      %tile = \"axe.alloc\"() {{scope = #axe.exec<\"cta\">}} : () -> {st}");
    let _ = writeln!(k, "      %bar = \"axe.mbarrier_alloc\"() {{scope = #axe.exec<\"cta\">}} : () -> !axe.mbarrier");
    let _ = writeln!(
        k,
        "      \"axe.mbarrier_init\"(%bar) {{count = 1 : i64, scope = #axe.exec<\"cta\">}} : (!axe.mbarrier) -> ()"
    );
    let _ = writeln!(
        k,
        "      \"axe.copy_async\"({src}, %tile, %bar) {{scope = #axe.exec<\"{scope}\">}} : ({src_t}, {st}, !axe.mbarrier) -> ()"
    );
    if wait {
        let _ = writeln!(k, "      %phase = arith.constant false");
        let _ = writeln!(
            k,
            "      \"axe.mbarrier_wait\"(%bar, %phase) {{scope = #axe.exec<\"cta\">}} : (!axe.mbarrier, i1) -> ()"
        );
    }
    if store {
        let _ = writeln!(
            k,
            "      \"axe.copy_async\"(%tile, {dst}) {{scope = #axe.exec<\"{scope}\">}} : ({st}, {dst_t}) -> ()"
        );
    }
    let _ = writeln!(k, "      gpu.return\n    }}\n  }}\n}}");
    k
}

/// A tensor value of the random function: its SSA name, type text, shape, dtype and memory.
#[derive(Clone)]
struct Value {
    name: String,
    ty: String,
    dims: Vec<i64>,
    dtype: &'static str,
    mem: &'static str,
}

/// A layout for `mem` and a shape it admits (mostly): row-major, a tame layout on the right axes cut into a
/// shape, or (rarely) anything.
fn layout_and_shape(rng: &mut Rng, mem: &str) -> (String, Vec<i64>) {
    let k = match mem {
        "global" | "shared" => Knobs { memory_only: true, max_replica: 0, ..Knobs::GENERAL },
        _ => Knobs::GENERAL,
    };
    match rng.random_range(0..10) {
        0..=3 => {
            let dims: Vec<i64> =
                (0..rng.random_range(1..=3)).map(|_| *[1i64, 2, 4, 8, 16, 32, 64].choose(rng).unwrap_or(&8)).collect();
            let l = row_major(&dims);
            if mem == "shared" && rng.random_bool(0.3) {
                (format!("Swizzle(3,3,3) o {l}"), dims)
            } else {
                (l, dims)
            }
        }
        4..=8 => {
            let text = gen_layout::tame_layout(rng, k).replace('\n', " ");
            let shape = parse_layout(&text).ok().map_or_else(|| vec![8], |l| gen_layout::shape_for(rng, Some(&l)));
            (text, shape.into_iter().map(|d| d.clamp(-1, 1 << 20)).collect())
        }
        _ => {
            let text = gen_layout::layout(rng).replace(['\n', '"'], " ");
            (text, (0..rng.random_range(0..=3)).map(|_| rng.random_range(0..=16)).collect())
        }
    }
}

/// A function with a random sequence of axe ops (see the module documentation).
pub fn random_function(rng: &mut Rng) -> String {
    let mut args: Vec<String> = vec!["%phase: i1".into(), "%k: index".into(), "%x: f32".into()];
    let mut body = String::new();
    let mut values: Vec<Value> = Vec::new();
    let mut n = 0usize;
    let mut fresh = |p: &str| {
        n += 1;
        format!("%{p}{n}")
    };
    let scope = |rng: &mut Rng| *SCOPES.choose(rng).unwrap_or(&"cta");
    let mut has_bar = false;
    for _ in 0..rng.random_range(1..=8) {
        match rng.random_range(0..12) {
            0..=2 => {
                // view of a memref argument
                let mem = if rng.random_range(0..6) == 0 { "shared" } else { "global" };
                let &(dtype, _) = DTYPES.choose(rng).unwrap_or(&("f16", 2));
                let (layout, dims) = layout_and_shape(rng, mem);
                let arg = fresh("m");
                let count = dims.iter().fold(1i64, |a, &d| a.saturating_mul(d.max(0))).max(1);
                let mdims: Vec<i64> = if rng.random_bool(0.8) { dims.clone() } else { vec![count] };
                let mty = if mem == "shared" {
                    format!("memref<{count}x{dtype}, #gpu.address_space<workgroup>>")
                } else {
                    memref(&mdims.iter().map(|d| (*d).max(0)).collect::<Vec<_>>(), dtype)
                };
                args.push(format!("{arg}: {mty}"));
                let ty = tensor(&dims, dtype, &layout, mem);
                let v = fresh("t");
                let _ = writeln!(body, "    {v} = \"axe.view\"({arg}) : ({mty}) -> {ty}");
                values.push(Value { name: v, ty, dims, dtype, mem });
            }
            3 | 4 => {
                let mem = *["shared", "reg", "tmem", "shared", "global"].choose(rng).unwrap_or(&"shared");
                let &(dtype, _) = DTYPES.choose(rng).unwrap_or(&("f32", 4));
                let (layout, dims) = layout_and_shape(rng, mem);
                let ty = tensor(&dims, dtype, &layout, mem);
                let v = fresh("t");
                let _ =
                    writeln!(body, "    {v} = \"axe.alloc\"() {{scope = #axe.exec<\"{}\">}} : () -> {ty}", scope(rng));
                values.push(Value { name: v, ty, dims, dtype, mem });
            }
            5 => {
                if let Some(src) = values.choose(rng).cloned() {
                    let region = gen_layout::region_for(rng, &src.dims);
                    let offsets: Vec<i64> = region.iter().map(|r| r.0).collect();
                    let sizes: Vec<i64> = region.iter().map(|r| r.1 - r.0).collect();
                    let layout = match (rng.random_range(0..3), src.ty.split_once("#axe.layout<\"")) {
                        (0, _) | (_, None) => "#axe.deferred".to_string(),
                        (1, Some((_, rest))) => {
                            let text = rest.split('"').next().unwrap_or("");
                            parse_layout(text)
                                .ok()
                                .and_then(|l| axe_layout::slice::slice(&l, &src.dims, &region).ok())
                                .map_or_else(|| "#axe.deferred".to_string(), |l| l.to_string())
                        }
                        _ => gen_layout::tame_layout(rng, Knobs::GENERAL).replace('\n', " "),
                    };
                    let ty = tensor(&sizes, src.dtype, &layout, src.mem);
                    let v = fresh("t");
                    let dynamic = rng.random_range(0..5) == 0 && !offsets.is_empty();
                    let (operands, shown) = if dynamic {
                        let mut o = offsets.clone();
                        o[0] = i64::MIN;
                        (format!("{}, %k", src.name), o)
                    } else {
                        (src.name.clone(), offsets)
                    };
                    let types = if dynamic { format!("{}, index", src.ty) } else { src.ty.clone() };
                    let _ = writeln!(
                        body,
                        "    {v} = \"axe.slice\"({operands}) {{offsets = array<i64: {}>, sizes = array<i64: {}>}} : ({types}) -> {ty}",
                        dims_text(&shown),
                        dims_text(&sizes)
                    );
                    values.push(Value { name: v, ty, dims: sizes, dtype: src.dtype, mem: src.mem });
                }
            }
            6 | 7 => {
                if let (Some(a), Some(b)) = (values.choose(rng).cloned(), values.choose(rng).cloned()) {
                    let threads = if rng.random_range(0..3) == 0 {
                        let (axis, end) = *[("warpid", 4), ("laneid", 32), ("wid_in_wg", 4), ("tid", 9)]
                            .choose(rng)
                            .unwrap_or(&("warpid", 4));
                        format!(", threads = #axe.threads<\"{axis}\", array<i64: 0, {}>>", rng.random_range(0..=end))
                    } else {
                        String::new()
                    };
                    if rng.random_bool(0.5) {
                        let _ = writeln!(
                            body,
                            "    \"axe.copy\"({}, {}) {{scope = #axe.exec<\"{}\">{threads}}} : ({}, {}) -> ()",
                            a.name,
                            b.name,
                            scope(rng),
                            a.ty,
                            b.ty
                        );
                    } else {
                        if !has_bar {
                            let _ = writeln!(body, "    %bar = \"axe.mbarrier_alloc\"() {{scope = #axe.exec<\"cta\">}} : () -> !axe.mbarrier");
                            has_bar = true;
                        }
                        let with_bar = rng.random_bool(0.6);
                        let (ops, tys) = if with_bar {
                            (format!("{}, {}, %bar", a.name, b.name), format!("{}, {}, !axe.mbarrier", a.ty, b.ty))
                        } else {
                            (format!("{}, {}", a.name, b.name), format!("{}, {}", a.ty, b.ty))
                        };
                        let _ = writeln!(
                            body,
                            "    \"axe.copy_async\"({ops}) {{scope = #axe.exec<\"{}\">}} : ({tys}) -> ()",
                            scope(rng)
                        );
                    }
                }
            }
            8 => {
                if let Some(t) = values.choose(rng).cloned() {
                    let c = fresh("c");
                    let lit = if t.dtype.starts_with('f') || t.dtype == "bf16" { "0.0" } else { "0" };
                    let _ = writeln!(body, "    {c} = arith.constant {lit} : {}", t.dtype);
                    let _ = writeln!(
                        body,
                        "    \"axe.fill\"({}, {c}) {{scope = #axe.exec<\"{}\">}} : ({}, {}) -> ()",
                        t.name,
                        scope(rng),
                        t.ty,
                        t.dtype
                    );
                }
            }
            9 => {
                if values.len() >= 3 {
                    let pick: Vec<Value> = (0..3).filter_map(|_| values.choose(rng).cloned()).collect();
                    let _ = writeln!(
                        body,
                        "    \"axe.gemm\"({}, {}, {}) {{scope = #axe.exec<\"{}\">}} : ({}, {}, {}) -> ()",
                        pick[0].name,
                        pick[1].name,
                        pick[2].name,
                        scope(rng),
                        pick[0].ty,
                        pick[1].ty,
                        pick[2].ty
                    );
                }
            }
            10 => {
                if !has_bar {
                    let _ = writeln!(
                        body,
                        "    %bar = \"axe.mbarrier_alloc\"() {{scope = #axe.exec<\"cta\">}} : () -> !axe.mbarrier"
                    );
                    has_bar = true;
                }
                let s = scope(rng);
                let line = match rng.random_range(0..5) {
                    0 => format!("\"axe.mbarrier_init\"(%bar) {{count = {} : i64, scope = #axe.exec<\"{s}\">}} : (!axe.mbarrier) -> ()", gen_layout::wild_number(rng).trim_start_matches('-')),
                    1 => format!("\"axe.mbarrier_arrive_expect_tx\"(%bar) {{bytes = {} : i64, scope = #axe.exec<\"{s}\">}} : (!axe.mbarrier) -> ()", rng.random_range(0..=70000)),
                    2 => format!("\"axe.mbarrier_arrive\"(%bar) {{scope = #axe.exec<\"{s}\">}} : (!axe.mbarrier) -> ()"),
                    3 => format!("\"axe.mbarrier_wait\"(%bar, %phase) {{scope = #axe.exec<\"{s}\">}} : (!axe.mbarrier, i1) -> ()"),
                    _ => format!("\"axe.sync\"() {{scope = #axe.exec<\"{s}\">}} : () -> ()"),
                };
                let _ = writeln!(body, "    {line}");
            }
            _ => {
                let l = gen_layout::layout(rng).replace(['\n', '"'], " ");
                let _ = writeln!(body, "    \"axe.annotate\"(%x) {{layout = #axe.layout<\"{l}\">}} : (f32) -> ()");
            }
        }
    }
    let attrs = match rng.random_range(0..6) {
        0 => " attributes {axe.axes = {sbuf = \"memory\", quad = \"thread:thread:warp\"}}".to_string(),
        1 => format!(
            " attributes {{axe.axes = {{{} = \"{}\"}}}}",
            ["m", "laneid", "sbuf", "q1"].choose(rng).unwrap_or(&"q1"),
            ["memory", "device", "thread:thread:warp", "thread:cta:warp", "bogus"].choose(rng).unwrap_or(&"memory")
        ),
        _ => String::new(),
    };
    format!("module{attrs} {{\n  func.func @f({}) {{\n{body}    return\n  }}\n}}\n", args.join(", "))
}

/// A module: the TMA kernel template or a random function, sometimes several chunks split by `// -----`.
pub fn module(rng: &mut Rng) -> String {
    let one = |rng: &mut Rng| if rng.random_bool(0.5) { tma_kernel(rng) } else { random_function(rng) };
    if rng.random_range(0..6) == 0 {
        let parts: Vec<String> = (0..rng.random_range(2..=3)).map(|_| one(rng)).collect();
        parts.join("\n// -----\n")
    } else {
        one(rng)
    }
}
