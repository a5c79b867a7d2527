#!/usr/bin/env python3
"""Start-up next to upstream: the README pipeline and axe-opt on an empty module against mlir-opt-22 on an empty
module, as fresh processes, interleaved in one run (issue 23's measure).

Cases, each a median over N runs (wall ms; CPU = user + system ms; peak RSS MB of the largest process):
  mlir-opt-22 empty      `mlir-opt-22` reading `module {}` from stdin (upstream's start-up, the reference)
  axe-opt empty          `axe-opt` reading `module {}`
  README pipeline        `axe-opt --lower-tma --lower-to-nvvm examples/tma_copy.mlir | axe-translate --emit=ptx
                         --chip=sm_90a`: two processes joined by a pipe, wall from the first start to the last exit
and the ratio of the pipeline's wall to mlir-opt-22's. Several tool directories (e.g. a build before and after a
change) are measured in the same run, interleaved, so load on the machine hits them alike.

Usage: bench/pipeline_vs_mlir_opt.py [--runs 40] [--mlir-opt mlir-opt-22] DIR[=EXAMPLE] ...   (DIR holds axe-opt
and axe-translate, release builds: target/release; EXAMPLE replaces examples/tma_copy.mlir for that DIR, e.g. the
example as an older build reads it)
"""

import argparse
import os
import shutil
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EMPTY = b"module {}\n"


def run(commands, stdin):
    """Runs `commands` as a pipeline; returns (wall ms, CPU ms summed, peak RSS MB of the largest process)."""
    start = time.perf_counter()
    procs = []
    previous = None
    for i, command in enumerate(commands):
        last = i == len(commands) - 1
        proc = subprocess.Popen(command, stdin=subprocess.PIPE if previous is None else previous.stdout,
                                stdout=subprocess.DEVNULL if last else subprocess.PIPE, stderr=subprocess.DEVNULL)
        if previous is not None:
            previous.stdout.close()
        procs.append(proc)
        previous = proc
    if stdin is not None:
        procs[0].stdin.write(stdin)
        procs[0].stdin.close()
    elif procs[0].stdin:
        procs[0].stdin.close()
    cpu, rss = 0.0, 0
    for proc in procs:
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"{commands} failed ({proc.returncode})")
        cpu += usage.ru_utime + usage.ru_stime
        rss = max(rss, usage.ru_maxrss)
    wall = time.perf_counter() - start
    return wall * 1e3, cpu * 1e3, rss / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--mlir-opt", default="mlir-opt-22")
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    mlir_opt = shutil.which(args.mlir_opt) or args.mlir_opt
    example = os.path.join(ROOT, "examples", "tma_copy.mlir")
    cases = [("mlir-opt-22 empty", [[mlir_opt]], EMPTY)]
    for spec in args.dirs:
        d, _, own = spec.partition("=")
        source = own or example
        opt, translate = os.path.join(d, "axe-opt"), os.path.join(d, "axe-translate")
        cases.append((f"{d}: axe-opt empty", [[opt]], EMPTY))
        cases.append((f"{d}: README pipeline",
                      [[opt, "--lower-tma", "--lower-to-nvvm", source], [translate, "--emit=ptx", "--chip=sm_90a"]],
                      None))
    samples = {name: [] for name, _, _ in cases}
    for _ in range(2):  # warm the page cache
        for name, commands, stdin in cases:
            run(commands, stdin)
    for _ in range(args.runs):
        for name, commands, stdin in cases:
            samples[name].append(run(commands, stdin))
    reference = statistics.median(s[0] for s in samples[cases[0][0]])
    print(f"{'case':<60} {'wall ms':>8} {'CPU ms':>8} {'peak MB':>8} {'wall / mlir-opt':>16}")
    for name, _, _ in cases:
        wall = statistics.median(s[0] for s in samples[name])
        cpu = statistics.median(s[1] for s in samples[name])
        rss = statistics.median(s[2] for s in samples[name])
        print(f"{name:<60} {wall:8.2f} {cpu:8.2f} {rss:8.1f} {wall / reference:15.2f}x")
    print(f"({args.runs} runs each, interleaved; medians)")


if __name__ == "__main__":
    main()
