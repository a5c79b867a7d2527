# lit configuration for the Axe test suite.
#
# Run from the repository root after `cargo build`:  .venv/bin/lit -v test
# Tools come from target/debug unless AXE_TOOLS_DIR points elsewhere; LLVM's
# FileCheck/not and mlir-opt come from /usr/lib/llvm-22/bin (LLVM_TOOLS_DIR);
# ptxas from the project's venv (AXE_PTXAS overrides).

import glob
import os

import lit.formats

config.name = "Axe"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
axe_root = os.path.dirname(config.test_source_root)
# Keep lit's Output/ folders out of the source tree.
config.test_exec_root = os.path.join(axe_root, "target", "lit")

tools_dir = os.environ.get("AXE_TOOLS_DIR", os.path.join(axe_root, "target", "debug"))
llvm_bin = os.environ.get("LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")


def find_ptxas():
    if os.environ.get("AXE_PTXAS"):
        return os.environ["AXE_PTXAS"]
    pattern = os.path.join(axe_root, ".venv", "lib", "python3*", "site-packages", "nvidia", "cu*", "bin", "ptxas")
    found = sorted(glob.glob(pattern))
    return found[-1] if found else "ptxas"


def tool(name):
    """A substitution that replaces `name` as a whole command word only."""
    return r"(?<![\w./%-])" + name.replace(".", r"\.") + r"(?![\w./-])"


for name, path in [
    ("axe-opt", os.path.join(tools_dir, "axe-opt")),
    ("axe-translate", os.path.join(tools_dir, "axe-translate")),
    ("axe-layout", os.path.join(tools_dir, "axe-layout")),
    ("FileCheck", os.path.join(llvm_bin, "FileCheck")),
    ("not", os.path.join(llvm_bin, "not")),
    ("mlir-opt-22", os.path.join(llvm_bin, "mlir-opt")),
    ("ptxas", find_ptxas()),
]:
    config.substitutions.append((tool(name), path))

config.substitutions.append(("%axe_root", axe_root))
# The axe dialect as an upstream mlir-opt plugin (cmake/, built by scripts/test.sh before lit runs):
# `mlir-opt-22 --load-dialect-plugin=%axe_plugin`.
axe_plugin = os.path.join(axe_root, "target", "cmake", "AxePlugin.so")
config.substitutions.append(("%axe_plugin", axe_plugin))
if not os.path.exists(axe_plugin):
    lit_config.warning(
        f"{axe_plugin} is missing, so the mlir-opt-22 comparisons fail: "
        "cmake -G Ninja -S cmake -B target/cmake && ninja -C target/cmake"
    )
config.substitutions.append(("%examples", os.path.join(axe_root, "examples")))

config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
config.environment["PATH"] = os.pathsep.join([tools_dir, llvm_bin, os.environ.get("PATH", "")])
