#!/usr/bin/env python3
"""Start-up of axe-opt as fresh processes: medians of wall time and CPU (user + system) over N runs.

Usage: bench/startup.py [--runs 40] AXE_OPT [AXE_OPT ...]   (release builds; docs/performance.md, "Where start-up
time goes"). Cases: `--version`, an empty module, and an empty module with one upstream pass flag (the passes are
registered only when named). Several binaries are measured interleaved, so load on the machine hits them alike.
"""

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time

CASES = [
    ("--version", ["--version"], None),
    ("empty module", [], "module {}\n"),
    ("empty module --cse", ["--cse"], "module {}\n"),
]


def once(binary, args, stdin):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([binary, *args], input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1e3, cpu * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    args.binaries = [os.path.abspath(binary) for binary in args.binaries]
    with tempfile.TemporaryDirectory():
        print(f"| case | binary | wall ms (median of {args.runs}) | CPU ms |")
        print("|---|---|---|---|")
        for name, flags, stdin in CASES:
            samples = {binary: [] for binary in args.binaries}
            for binary in args.binaries:
                once(binary, flags, stdin and stdin.encode())  # warm the page cache
            for _ in range(args.runs):
                for binary in args.binaries:
                    samples[binary].append(once(binary, flags, stdin and stdin.encode()))
            for binary in args.binaries:
                wall = statistics.median(s[0] for s in samples[binary])
                cpu = statistics.median(s[1] for s in samples[binary])
                print(f"| {name} | {os.path.relpath(binary)} | {wall:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
