#!/usr/bin/env python3
"""How axe-opt's time and memory grow with module size (issue: passes must be linear in module size).

Two workloads, each a module of N kernels generated to a given number of axe ops:
- `tma`: nine axe ops per kernel (two views, a slice, an alloc, a barrier alloc and init, a TMA load, a wait and a
  TMA store) with four layout families in rotation (128B, 64B and 32B swizzles, and an unswizzled u8 tile), so
  layouts repeat across kernels as they do in real modules;
- `gemm`: the kernels of the bundled examples in rotation (examples/mma_sync, mma_wgmma, mma_tcgen05 and
  copy_epilogue: register, shared and tensor-memory gemms, fills, TMA and thread copies, tcgen05 loads, casts and
  stores), each copy in its own gpu.module with its chip, through the tensor-core and copy lowerings too.
Runs `axe-opt` with each pipeline on each size as a fresh process and prints wall time, peak RSS and time per axe
op. Linear growth shows as a flat us/op column. The `out ops` column counts the ops each pipeline writes: a gemm
lowers to tens of instructions, so the last row of each size ("reparse output") times parsing and printing that
output alone, the floor any pass producing it must pay.

    bench/scaling.py [--tool target/release/axe-opt] [--ops 1000,10000] [--repeat 3] [--workloads tma,gemm]
"""

import re

import argparse
import os
import subprocess
import sys
import tempfile
import time

# (global shape, slice offsets, tile shape, dtype, global layout, shared layout) per family.
FAMILIES = [
    ((256, 256), (128, 64), (128, 64), "f16", "S[(256,256):(256,1)]", "Swizzle(3,3,3) o S[(128,64):(64,1)]"),
    ((64, 128), (32, 16), (32, 16), "f32", "S[(64,128):(128,1)]", "Swizzle(2,2,3) o S[(32,16):(16,1)]"),
    ((64, 64), (0, 48), (64, 16), "f16", "S[(64,64):(64,1)]", "Swizzle(3,1,3) o S[(64,16):(16,1)]"),
    ((128, 256), (32, 64), (32, 64), "i8", "S[(128,256):(256,1)]", "S[(32,64):(64,1)]"),
]
AXE_OPS_PER_KERNEL = 9

PIPELINES = {
    "parse+print": [],
    "canonicalize": ["--axe-canonicalize"],
    "canon+slice+tma": ["--axe-canonicalize", "--axe-slice", "--lower-tma"],
    "lower-tma": ["--lower-tma"],
    "all lowerings": ["--axe-canonicalize", "--axe-slice", "--lower-tma", "--lower-mma", "--lower-copy"],
}

# The pipelines each workload runs (parse+print and all lowerings apply to both).
WORKLOAD_PIPELINES = {
    "tma": ["parse+print", "canonicalize", "canon+slice+tma", "lower-tma", "all lowerings"],
    "gemm": ["parse+print", "all lowerings"],
}

EXAMPLES = ["mma_sync", "mma_wgmma", "mma_tcgen05", "copy_epilogue"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shape(dims):
    """`128, 64`: a slice's offsets or sizes."""
    return ", ".join(str(d) for d in dims)


def dims(extents):
    """`128x64`: the shape of a tensor type, before its `x` and element type."""
    return "x".join(str(d) for d in extents)


def kernel(index):
    """One kernel and its host launch, in family `index % 4`."""
    gshape, offsets, tshape, dtype, glayout, slayout = FAMILIES[index % len(FAMILIES)]
    memref = f"memref<{dims(gshape)}x{dtype}>"
    gt = f"!axe.tensor<{dims(gshape)}x{dtype}, global, {glayout}>"
    gr = f"!axe.tensor<{dims(tshape)}x{dtype}, global>"
    st = f"!axe.tensor<{dims(tshape)}x{dtype}, shared, {slayout}>"
    host = f"""  func.func @host_{index}(%a: {memref}, %b: {memref}) {{
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @k{index}::@kernel blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%a : {memref}, %b : {memref})
    return
  }}
"""
    device = f"""  gpu.module @k{index} {{
    gpu.func @kernel(%a: {memref}, %b: {memref}) kernel attributes {{known_block_size = array<i32: 128, 1, 1>}} {{
      %in = axe.view %a : {memref} -> {gt}
      %out = axe.view %b : {memref} -> {gt}
      %r = axe.slice %in[{shape(offsets)}] [{shape(tshape)}] : {gt} to {gr}
      %s = axe.alloc cta : {st}
      %bar = axe.mbarrier_alloc cta : !axe.mbarrier
      axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
      axe.copy_async cta %r to %s, %bar : {gr} to {st}, !axe.mbarrier
      %phase = arith.constant false
      axe.mbarrier_wait cta %bar, %phase : !axe.mbarrier
      axe.copy_async cta %s to %r : {st} to {gr}
      gpu.return
    }}
  }}
"""
    return host + device


def module(kernels):
    body = "".join(kernel(i) for i in range(kernels))
    return f"module attributes {{gpu.container_module}} {{\n{body}}}\n"


def example_parts(name):
    """An example's type aliases (renamed `!<name>_<alias>`) and its gpu.module text (aliases renamed)."""
    with open(os.path.join(ROOT, "examples", f"{name}.mlir")) as file:
        text = "\n".join(line for line in file.read().splitlines() if not line.lstrip().startswith("//"))
    aliases = re.findall(r"^!(\w+) =", text, re.M)
    for alias in sorted(aliases, key=len, reverse=True):
        text = re.sub(rf"!{alias}\b", f"!{name}_{alias}", text)
    header = "\n".join(line for line in text.splitlines() if line.startswith("!"))
    start = text.index("gpu.module @kernels")
    depth, end = 0, start
    body = text.rindex("{", start, text.index("\n", start))  # the last brace on the line opens the body
    for end in range(body, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            break
    return header, text[start : end + 1]


def gemm_module(ops):
    """Copies of the examples' kernels in rotation until `ops` axe ops; returns (text, kernels, axe ops)."""
    parts = [example_parts(name) for name in EXAMPLES]
    body, kernels, total = [], 0, 0
    while total < ops:  # every example holds axe ops, so this ends
        header, kernel_text = parts[kernels % len(parts)]
        body.append("  " + kernel_text.replace("gpu.module @kernels", f"gpu.module @k{kernels}", 1) + "\n")
        total += len(AXE_OP.findall(kernel_text))
        kernels += 1
    headers = "\n".join(header for header, _ in parts)
    return f"{headers}\nmodule attributes {{gpu.container_module}} {{\n{''.join(body)}}}\n", kernels, total


OP_LINE = re.compile(r'^\s*(%[^=]+= )?"?[a-z_]+\.[a-z_.]+', re.M)
# An axe op, in the custom form (`%s = axe.alloc cta ...`, `axe.sync cta`) or the generic one (`"axe.sync"`).
AXE_OP = re.compile(r'^\s*(%[^=]+= )?"?axe\.[a-z_]+', re.M)


def run(tool, flags, path, output=os.devnull):
    """Wall seconds and peak RSS (MiB) of one axe-opt process; fails loudly on a non-zero exit."""
    start = time.perf_counter()
    process = subprocess.Popen([tool, *flags, path, "-o", output], stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    stderr = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if status != 0:
        sys.exit(f"{tool} {' '.join(flags)} failed ({status}):\n{stderr[:2000]}")
    return elapsed, usage.ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", default="target/release/axe-opt")
    parser.add_argument("--ops", default="1000,10000", help="comma-separated axe-op counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per point (the median is printed)")
    parser.add_argument("--workloads", default="tma,gemm", help="comma-separated: tma, gemm")
    args = parser.parse_args()

    print(
        f"{'workload':<8} {'pipeline':<16} {'axe ops':>8} {'kernels':>8} {'seconds':>9} {'us/op':>8} "
        f"{'peak MiB':>9} {'out ops':>8}"
    )
    with tempfile.TemporaryDirectory() as directory:
        for workload in args.workloads.split(","):
            for ops in (int(n) for n in args.ops.split(",")):
                if workload == "tma":
                    kernels = max(1, ops // AXE_OPS_PER_KERNEL)
                    text, total_ops = module(kernels), kernels * AXE_OPS_PER_KERNEL
                else:
                    text, kernels, total_ops = gemm_module(ops)
                path = os.path.join(directory, f"scale_{workload}_{kernels}.mlir")
                with open(path, "w") as file:
                    file.write(text)
                output = os.path.join(directory, "out.mlir")
                for name in WORKLOAD_PIPELINES[workload]:
                    runs = sorted(run(args.tool, PIPELINES[name], path) for _ in range(args.repeat))
                    run(args.tool, PIPELINES[name], path, output)
                    with open(output) as file:
                        out_ops = len(OP_LINE.findall(file.read()))
                    report(workload, name, total_ops, kernels, runs[len(runs) // 2], out_ops)
                runs = sorted(run(args.tool, [], output) for _ in range(args.repeat))
                report(workload, "reparse output", total_ops, kernels, runs[len(runs) // 2], out_ops)


def report(workload, name, total_ops, kernels, median, out_ops):
    seconds, peak = median
    print(
        f"{workload:<8} {name:<16} {total_ops:>8} {kernels:>8} {seconds:>9.3f} "
        f"{seconds / total_ops * 1e6:>8.1f} {peak:>9.1f} {out_ops:>8}",
        flush=True,
    )

if __name__ == "__main__":
    main()
