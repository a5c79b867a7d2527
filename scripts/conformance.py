#!/usr/bin/env python3
"""Runs upstream MLIR's own lit RUN lines with axe-opt in place of mlir-opt and compares the outputs.

Usage: scripts/conformance.py --tests <mlir/test dir> --axe-opt <path> [--mlir-opt <path>] [--list] [dirs...]

For every `// RUN:` line (continuations joined) of the .mlir files under the given directories (relative to the
test dir; default: the dialects and conversions axe-opt ships, see DEFAULT_DIRS), the part of the pipeline that
produces what FileCheck reads (up to the first FileCheck, `count` or `diff`) runs twice through bash with pipefail:
once with mlir-opt, once with axe-opt substituted for every `mlir-opt` word. A RUN line is

- identical: same exit status and same bytes on stdout (and on stderr where the line sends it to the checker);
- skipped, needs an unlinked dialect: axe-opt refused a dialect it does not register (an op, type or attribute),
  or a pass of such a dialect (UNLINKED_PASS_FRAGMENTS: transform-interpreter, one-shot-bufferize, ...);
- skipped, test-only pass: the line names a pass of MLIR's test library (`-test-*` flags, `test-*` in pipelines);
- skipped, other tool: the line does not run mlir-opt (mlir-translate, mlir-runner, ...) or needs lit features
  this runner does not have (`%{...}` definitions, shared-library substitutions);
- differing: anything else, listed with the first differing line, sub-classified by axe-opt's error where it
  names an unknown pass or option, or where a pass flag ran on the wrong op (not nested under its anchor).

The upstream tests are read where they were downloaded (scripts/conformance.sh); nothing is copied. Output: one
line per differing RUN line (with --list, every line), then a table.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

# The upstream test directories of the dialects, conversions and transforms axe-opt ships.
DEFAULT_DIRS = [
    "Conversion/AffineToStandard",
    "Conversion/ArithToLLVM",
    "Conversion/ControlFlowToLLVM",
    "Conversion/FuncToLLVM",
    "Conversion/GPUCommon",
    "Conversion/GPUToNVVM",
    "Conversion/IndexToLLVM",
    "Conversion/MathToLLVM",
    "Conversion/MemRefToLLVM",
    "Conversion/NVGPUToNVVM",
    "Conversion/NVVMToLLVM",
    "Conversion/ReconcileUnrealizedCasts",
    "Conversion/SCFToControlFlow",
    "Conversion/UBToLLVM",
    "Conversion/VectorToLLVM",
]

# Dialect directories a wider run (`--all`) adds.
DIALECT_DIRS = [
    "Dialect/Affine",
    "Dialect/Arith",
    "Dialect/ControlFlow",
    "Dialect/DLTI",
    "Dialect/Func",
    "Dialect/GPU",
    "Dialect/Index",
    "Dialect/LLVMIR",
    "Dialect/Math",
    "Dialect/MemRef",
    "Dialect/NVGPU",
    "Dialect/SCF",
    "Dialect/UB",
    "Dialect/Vector",
    "Transforms",
]

# Words that end the producing part of a RUN pipeline.
CHECKERS = {"FileCheck", "count", "diff", "grep", "wc", "cmp", "sed", "awk", "sort"}

DIALECT_REFUSALS = [
    re.compile(r"Dialect `([\w.]+)' not found"),
    re.compile(r"dialect '([\w.]+)' is unknown"),
    re.compile(r"unregistered operation '([\w]+)\."),
    re.compile(r"operation being parsed with an unregistered dialect"),
    re.compile(r"'([\w]+)' dialect (?:is not|isn't) registered"),
    re.compile(r"(?:type|attribute) created with unregistered dialect"),
]
# Passes axe-opt leaves out because they need a dialect it does not link (docs/opt.md), by name fragment.
UNLINKED_PASS_FRAGMENTS = [
    "transform-", "bufferiz", "buffer-", "ownership", "rocdl", "spirv", "spv", "emitc", "tosa", "linalg",
    "sparse", "tensor", "shard", "async", "amdgpu", "arm-", "xegpu", "xevm", "complex", "acc-", "openacc",
    "omp-", "openmp", "shape", "mlprogram", "quant", "result-dims", "scf-for-loop-canonicalization",
    "lower-host-to-llvm", "pdl", "amx", "mpi", "vcix", "sparsifier",
]
UNKNOWN_FLAG = re.compile(r"Unknown command line argument '-{1,2}([\w.-]+)")
UNKNOWN_PIPELINE_PASS = re.compile(r"'([\w.-]+)' does not refer to a registered pass or pass pipeline")


def run_lines(path):
    """The RUN lines of `path`, continuations joined, with their line numbers."""
    lines = []
    pending = None
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, text in enumerate(handle, 1):
            match = re.search(r"\bRUN:(.*)$", text)
            if not match:
                if pending:
                    lines.append(pending)
                    pending = None
                continue
            body = match.group(1).rstrip()
            if pending:
                pending = (pending[0], pending[1] + " " + body.strip())
            else:
                pending = (number, body.strip())
            if pending[1].endswith("\\"):
                pending = (pending[0], pending[1][:-1].rstrip())
            else:
                lines.append(pending)
                pending = None
    if pending:
        lines.append(pending)
    return lines


def split_pipeline(command):
    """Splits a shell command at top-level `|` (outside quotes)."""
    parts, current, quote, index = [], "", None, 0
    while index < len(command):
        char = command[index]
        if quote:
            current += char
            if char == quote:
                quote = None
            elif char == "\\" and quote == '"' and index + 1 < len(command):
                current += command[index + 1]
                index += 1
        elif char in "'\"":
            quote = char
            current += char
        elif char == "|" and command[index + 1 : index + 2] != "|" and command[index - 1 : index] != "|":
            parts.append(current.strip())
            current = ""
        else:
            current += char
        index += 1
    parts.append(current.strip())
    return parts


def first_word(segment):
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    words = [w for w in words if w != "not" and not w.startswith("--crash")]
    return words[0] if words else ""


def producer(command):
    """The part of `command` whose output the checker reads, and whether stderr is part of it."""
    segments = split_pipeline(command)
    kept = []
    for segment in segments:
        if first_word(segment) in CHECKERS:
            break
        kept.append(segment)
    text = " | ".join(kept)
    return text, "2>&1" in text


def substitute(command, path, temp):
    directory = os.path.dirname(path)
    command = command.replace("%s", path).replace("%S", directory).replace("%p", directory)
    command = command.replace("%t", temp).replace("%T", os.path.dirname(temp))
    return command


def execute(command, tool, env, timeout):
    text = re.sub(r"(?<![\w./-])mlir-opt(?![\w./-])", tool, command)
    try:
        result = subprocess.run(
            ["bash", "-o", "pipefail", "-c", text],
            capture_output=True,
            env=env,
            timeout=timeout,
        )
        return result.returncode, result.stdout, result.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""


def first_difference(a, b):
    la, lb = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
    for index in range(max(len(la), len(lb))):
        x = la[index] if index < len(la) else "<end>"
        y = lb[index] if index < len(lb) else "<end>"
        if x != y:
            return f"line {index + 1}: mlir-opt {x[:100]!r} / axe-opt {y[:100]!r}"
    return "same lines"


def classify(command, mlir, axe):
    """The category of one RUN line from the two runs."""
    if mlir == axe:
        return "identical", ""
    stderr = axe[2].decode(errors="replace") + axe[1].decode(errors="replace")
    for pattern in DIALECT_REFUSALS:
        match = pattern.search(stderr)
        if match:
            return "unlinked dialect", match.group(0)
    if "trying to schedule pass" in stderr:
        return "differing: pass flag not nested", re.search(r"schedule pass '?(\w+)", stderr).group(1)
    flag = UNKNOWN_FLAG.search(stderr) or UNKNOWN_PIPELINE_PASS.search(stderr)
    if flag:
        name = flag.group(1)
        if name.startswith("test-") or name.startswith("test"):
            return "test-only pass", name
        if any(fragment in name for fragment in UNLINKED_PASS_FRAGMENTS):
            return "unlinked dialect", f"pass {name}"
        return "differing: pass or option axe-opt lacks", name
    if re.search(r"(?<![\w-])-{1,2}test-[\w-]+|[(,]test-[\w-]+", command):
        return "test-only pass", "a test pass"
    return "differing", first_difference(mlir[1] + mlir[2], axe[1] + axe[2])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", required=True, help="upstream mlir/test directory")
    parser.add_argument("--axe-opt", required=True)
    parser.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt")
    parser.add_argument("--all", action="store_true", help="also the dialect and transform test directories")
    parser.add_argument("--list", action="store_true", help="print every RUN line's category")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("dirs", nargs="*")
    args = parser.parse_args()

    dirs = args.dirs or (DEFAULT_DIRS + DIALECT_DIRS if args.all else DEFAULT_DIRS)
    llvm_bin = os.path.dirname(args.mlir_opt)
    env = dict(os.environ, PATH=llvm_bin + os.pathsep + os.environ.get("PATH", ""))
    counts = {}
    files = 0
    with tempfile.TemporaryDirectory(prefix="axe-conformance-") as scratch:
        for directory in dirs:
            root = os.path.join(args.tests, directory)
            for folder, _, names in sorted(os.walk(root)):
                for name in sorted(names):
                    if not name.endswith(".mlir"):
                        continue
                    path = os.path.join(folder, name)
                    lines = run_lines(path)
                    if lines:
                        files += 1
                    for number, command in lines:
                        where = f"{os.path.relpath(path, args.tests)}:{number}"
                        text, _ = producer(command)
                        if not re.search(r"(?<![\w./-])mlir-opt(?![\w./-])", text):
                            category, detail = "other tool", first_word(text)
                        elif "%{" in text or re.search(r"%(mlir_|shlibext|llvm|python|cuda|\w+_lib)", text):
                            category, detail = "other tool", "lit substitution"
                        else:
                            temp = os.path.join(scratch, "t")
                            text = substitute(text, path, temp)
                            mlir = execute(text, args.mlir_opt, env, args.timeout)
                            axe = execute(text, args.axe_opt, env, args.timeout)
                            category, detail = classify(text, mlir, axe)
                        counts[category] = counts.get(category, 0) + 1
                        if args.list or category.startswith("differing"):
                            print(f"{category:<42} {where}  {detail}")
    total = sum(counts.values())
    order = [
        "identical",
        "differing",
        "differing: pass or option axe-opt lacks",
        "differing: pass flag not nested",
        "unlinked dialect",
        "test-only pass",
        "other tool",
    ]
    labels = {
        "identical": "RUN lines identical",
        "differing": "differing",
        "differing: pass or option axe-opt lacks": "differing: pass or option axe-opt lacks",
        "differing: pass flag not nested": "differing: pass flag not nested under its op",
        "unlinked dialect": "skipped: needs an unlinked dialect",
        "test-only pass": "skipped: test-only pass",
        "other tool": "skipped: other tool or lit feature",
    }
    print()
    print(f"| {'upstream RUN lines (' + str(files) + ' files)':<44} | {'count':>5} |")
    print(f"|{'-' * 46}|{'-' * 7}|")
    for category in order:
        print(f"| {labels[category]:<44} | {counts.get(category, 0):>5} |")
    print(f"| {'total':<44} | {total:>5} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
