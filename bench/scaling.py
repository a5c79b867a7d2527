#!/usr/bin/env python3
"""How axe-opt's time and memory grow with module size (issue: passes must be linear in module size).

Generates a module of N kernels, each nine axe ops (two views, a slice, an alloc, a barrier alloc and init, a TMA
load, a wait and a TMA store) with four layout families in rotation (128B, 64B and 32B swizzles, and an unswizzled
u8 tile), so layouts repeat across kernels as they do in real modules. Runs `axe-opt` with each pipeline on each
size as a fresh process and prints wall time, peak RSS and time per axe op. Linear growth shows as a flat
us/op column.

    bench/scaling.py [--tool target/release/axe-opt] [--ops 1000,10000] [--repeat 3]
"""

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
}


def shape(dims):
    return ", ".join(str(d) for d in dims)


def kernel(index):
    """One kernel and its host launch, in family `index % 4`."""
    gshape, offsets, tshape, dtype, glayout, slayout = FAMILIES[index % len(FAMILIES)]
    memref = f"memref<{'x'.join(str(d) for d in gshape)}x{dtype}>"
    gt = f'!axe.tensor<array<i64: {shape(gshape)}>, {dtype}, #axe.layout<"{glayout}">, #axe.mem<"global">>'
    gr = f'!axe.tensor<array<i64: {shape(tshape)}>, {dtype}, #axe.deferred, #axe.mem<"global">>'
    st = f'!axe.tensor<array<i64: {shape(tshape)}>, {dtype}, #axe.layout<"{slayout}">, #axe.mem<"shared">>'
    cta = '{scope = #axe.exec<"cta">}'
    host = f"""  func.func @host_{index}(%a: {memref}, %b: {memref}) {{
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @k{index}::@kernel blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%a : {memref}, %b : {memref})
    return
  }}
"""
    device = f"""  gpu.module @k{index} {{
    gpu.func @kernel(%a: {memref}, %b: {memref}) kernel attributes {{known_block_size = array<i32: 128, 1, 1>}} {{
      %in = "axe.view"(%a) : ({memref}) -> {gt}
      %out = "axe.view"(%b) : ({memref}) -> {gt}
      %r = "axe.slice"(%in) {{offsets = array<i64: {shape(offsets)}>, sizes = array<i64: {shape(tshape)}>}} : ({gt}) -> {gr}
      %s = "axe.alloc"() {cta} : () -> {st}
      %bar = "axe.mbarrier_alloc"() {cta} : () -> !axe.mbarrier
      "axe.mbarrier_init"(%bar) {{count = 1 : i64, scope = #axe.exec<"cta">}} : (!axe.mbarrier) -> ()
      "axe.copy_async"(%r, %s, %bar) {cta} : ({gr}, {st}, !axe.mbarrier) -> ()
      %phase = arith.constant false
      "axe.mbarrier_wait"(%bar, %phase) {cta} : (!axe.mbarrier, i1) -> ()
      "axe.copy_async"(%s, %r) {cta} : ({st}, {gr}) -> ()
      gpu.return
    }}
  }}
"""
    return host + device


def module(kernels):
    body = "".join(kernel(i) for i in range(kernels))
    return f"module attributes {{gpu.container_module}} {{\n{body}}}\n"


def run(tool, flags, path):
    """Wall seconds and peak RSS (MiB) of one axe-opt process; fails loudly on a non-zero exit."""
    start = time.perf_counter()
    process = subprocess.Popen([tool, *flags, path, "-o", os.devnull], stderr=subprocess.PIPE)
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
    parser.add_argument("--pipelines", default=",".join(PIPELINES), help="comma-separated names")
    args = parser.parse_args()

    print(f"{'pipeline':<18} {'axe ops':>8} {'kernels':>8} {'seconds':>9} {'us/op':>8} {'peak MiB':>9}")
    with tempfile.TemporaryDirectory() as directory:
        for ops in (int(n) for n in args.ops.split(",")):
            kernels = max(1, ops // AXE_OPS_PER_KERNEL)
            path = os.path.join(directory, f"scale_{kernels}.mlir")
            with open(path, "w") as file:
                file.write(module(kernels))
            for name in args.pipelines.split(","):
                runs = sorted(run(args.tool, PIPELINES[name], path) for _ in range(args.repeat))
                seconds, peak = runs[len(runs) // 2]
                total_ops = kernels * AXE_OPS_PER_KERNEL
                print(
                    f"{name:<18} {total_ops:>8} {kernels:>8} {seconds:>9.3f} {seconds / total_ops * 1e6:>8.1f} "
                    f"{peak:>9.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
