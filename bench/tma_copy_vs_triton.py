#!/usr/bin/env python3
"""Compile the same 128x64 f16 TMA tile copy with Axe and with Triton, in one run, and print a table.

The job on both sides: TMA-load a 128x64 f16 tile from global memory into 128B-swizzled shared memory (completion
on an mbarrier), then TMA-store it to a second global tensor. Axe compiles `examples/tma_copy.mlir` through
`axe-opt --lower-tma`, the upstream lowering and `axe-translate --emit=ptx`; Triton 3.9 compiles the equivalent
`desc.load` / `desc.store` kernel for sm_90 (no GPU needed).

Printed per compiler: median end-to-end compile time (Axe: the three commands as processes; Triton:
`triton.compile` in process, cache disabled, after one warm-up), PTX instructions in the kernel body and the
registers ptxas reports for sm_90a. Then start-up: each fresh process as a user runs it, with its wall time, CPU
time (user + system, steadier than wall time on a loaded machine) and peak resident memory: `axe-opt` on an
empty module, the Axe pipeline, and a fresh Python process that imports Triton and compiles the kernel.

Usage: bench/tma_copy_vs_triton.py [--repeat N]   (or simply `scripts/bench.sh`, which sets everything up)
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release"
EXAMPLE = ROOT / "examples" / "tma_copy.mlir"


def find_ptxas():
    for venv in (ROOT / ".venv", ROOT / ".venv-bench"):
        hits = sorted(venv.glob("lib/python3*/site-packages/nvidia/cu*/bin/ptxas"))
        if hits:
            return str(hits[0])
    sys.exit("ptxas not found: run scripts/setup.sh")


def axe_compile():
    """The README pipeline, as a user runs it; returns PTX text."""
    lowered = subprocess.run(
        [BIN / "axe-opt", "--lower-tma", "--lower-to-nvvm", EXAMPLE], check=True, capture_output=True
    ).stdout
    return subprocess.run(
        [BIN / "axe-translate", "--emit=ptx", "--chip=sm_90a"], input=lowered, check=True, capture_output=True
    ).stdout.decode()


def triton_compile_fn():
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import triton
    import triton.language as tl  # noqa: F401  (the kernel body uses descriptor methods only)
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    @triton.jit
    def tma_copy(in_desc, out_desc):
        tile = in_desc.load([0, 0])
        out_desc.store([0, 0], tile)

    signature = {"in_desc": "tensordesc<fp16[128, 64]>", "out_desc": "tensordesc<fp16[128, 64]>"}

    def compile_once():
        src = ASTSource(fn=tma_copy, signature=signature, constexprs={})
        kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32))
        return kernel.asm["ptx"]

    return compile_once


TRITON_FRESH = """
import os
os.environ["TRITON_ALWAYS_COMPILE"] = "1"
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

@triton.jit
def tma_copy(in_desc, out_desc):
    tile = in_desc.load([0, 0])
    out_desc.store([0, 0], tile)

signature = {"in_desc": "tensordesc<fp16[128, 64]>", "out_desc": "tensordesc<fp16[128, 64]>"}
triton.compile(ASTSource(fn=tma_copy, signature=signature, constexprs={}), target=GPUTarget("cuda", 90, 32))
"""


def process_costs(command, repeat, stdin=None):
    """Median wall ms, CPU ms (user + system) and peak RSS MB of `command` run as fresh processes (a shell
    pipeline when `command` is a string: the shell's usage includes its children's CPU and the largest RSS).

    Wall and CPU come from `wait4`, in microseconds (`os.times` counts children in 10 ms clock ticks). The peak
    comes from `/usr/bin/time` running the command: a process forked from this one starts with this one's peak
    (Triton makes it over 100 MB), one forked from `time` does not."""
    walls, cpus, peaks = [], [], []
    args = ["sh", "-c", command] if isinstance(command, str) else [str(word) for word in command]
    for _ in range(repeat + 1):  # the first run warms the page cache
        start = time.perf_counter()
        process = subprocess.Popen(args, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        if status != 0:
            sys.exit(f"{command} failed")
        if not os.path.exists("/usr/bin/time"):  # Debian package `time`; without it the peak is an upper bound
            peaks.append(usage.ru_maxrss / 1024)
        else:
            with tempfile.NamedTemporaryFile("r") as peak:
                subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak.name] + args, stdin=stdin,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                peaks.append(int(peak.read().split()[-1]) / 1024)
        walls.append(wall), cpus.append(usage.ru_utime + usage.ru_stime)
    walls, cpus, peaks = walls[1:], cpus[1:], peaks[1:]
    return statistics.median(walls) * 1e3, statistics.median(cpus) * 1e3, statistics.median(peaks)


def median_seconds(fn, repeat):
    fn()  # warm-up: imports, page cache, JIT of Triton's own Python
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


INSTRUCTION = re.compile(r"^\s*(@!?%\w+\s+)?[a-z][a-z0-9_]*(\.[\w:]+)*(\s|;)")


def count_instructions(ptx):
    """PTX instructions in entry bodies: statements that start with an opcode, inline asm included."""
    count = 0
    in_body = False
    for line in ptx.splitlines():
        stripped = line.split("//")[0].strip()
        if stripped.startswith(".entry") or stripped.startswith(".visible .entry"):
            in_body = True
        if not in_body or not stripped or stripped.startswith(".") or stripped.endswith(":"):
            continue
        if stripped in ("{", "}", ")"):
            continue
        if INSTRUCTION.match(stripped) and not stripped.startswith("waitLoop"):
            count += 1
    return count


def registers(ptxas, ptx):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.ptx"
        path.write_text(ptx)
        out = subprocess.run(
            [ptxas, "-arch=sm_90a", "-v", path, "-o", Path(tmp) / "k.cubin"], check=True, capture_output=True, text=True
        )
        used = re.findall(r"Used (\d+) registers", out.stdout + out.stderr)
        return max(int(u) for u in used) if used else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    if not (BIN / "axe-opt").exists():
        sys.exit("build the tools first: cargo build --release -p axe-mlir (scripts/bench.sh does)")
    ptxas = find_ptxas()
    rows = []
    seconds, ptx = median_seconds(axe_compile, args.repeat)
    rows.append(("axe (axe-opt + axe-translate)", seconds, count_instructions(ptx), registers(ptxas, ptx)))
    try:
        triton_fn = triton_compile_fn()
    except ImportError:
        sys.exit("triton is not installed: run scripts/bench.sh (it makes .venv-bench with triton 3.9)")
    seconds, ptx = median_seconds(triton_fn, args.repeat)
    rows.append(("triton 3.9 (triton.compile)", seconds, count_instructions(ptx), registers(ptxas, ptx)))
    print(f"128x64 f16 TMA tile copy, sm_90a, median of {args.repeat} compiles")
    print(f"{'compiler':32} {'compile ms':>10} {'PTX instrs':>10} {'registers':>10}")
    for name, secs, instrs, regs in rows:
        print(f"{name:32} {secs * 1e3:10.1f} {instrs:10d} {regs:10d}")

    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.mlir"
        empty.write_text("module {}\n")
        pipeline = (f"{BIN / 'axe-opt'} --lower-tma --lower-to-nvvm {EXAMPLE} | "
                    f"{BIN / 'axe-translate'} --emit=ptx --chip=sm_90a -")
        starts = [
            ("axe-opt --version", [BIN / "axe-opt", "--version"]),
            ("axe-opt, empty module", [BIN / "axe-opt", empty]),
            ("axe pipeline (2 processes)", pipeline),
            ("python: import triton + compile", [sys.executable, Path(tmp) / "triton_fresh.py"]),
        ]
        (Path(tmp) / "triton_fresh.py").write_text(TRITON_FRESH)  # @triton.jit reads its source from a file
        print(f"\nfresh processes, median of {args.repeat}")
        print(f"{'command':32} {'wall ms':>10} {'CPU ms':>10} {'peak MB':>10}")
        for name, command in starts:
            wall, cpu, peak = process_costs(command, args.repeat)
            print(f"{name:32} {wall:10.1f} {cpu:10.1f} {peak:10.1f}")


if __name__ == "__main__":
    main()
