"""`axe.compile`: axe IR to a runnable `Module`, in process, through the same compiler as `axe-opt` and
`axe-translate` (the native module's `_compile`: every lowering, then PTX and the launch record), with a cache.

The cache is keyed by the IR text, the chip and the compiler (its version and the native module's file, so a
rebuilt compiler never serves an old kernel). It lives in memory for the process and on disk under
`$AXE_CACHE_DIR` (default `~/.cache/axe/kernels`), one JSON file per kernel module written atomically;
`AXE_CACHE=0` turns the disk cache off, `cache=False` both. `compile.stats` counts hits and compiles.
Kernels that call NVSHMEM get its device library linked (from `$AXE_NVSHMEM_LIB`, which is pointed at the
installed `nvidia-nvshmem-cu13` wheel when unset).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Dict, Optional, Union

from .kernel import Module
from .record import LaunchRecord

_memory: Dict[str, dict] = {}
stats = {"compiles": 0, "memory_hits": 0, "disk_hits": 0}


def _compiler_id() -> str:
    from . import _native

    path = Path(_native.__file__)
    info = path.stat()
    return f"{_native.__version__}:{path.name}:{info.st_size}:{info.st_mtime_ns}"


def _cache_dir() -> Optional[Path]:
    if os.environ.get("AXE_CACHE", "1") == "0":
        return None
    base = os.environ.get("AXE_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "axe", "kernels")
    return Path(base)


def cache_key(text: str, chip: Optional[str]) -> str:
    """The cache key of compiling `text` for `chip` with this compiler."""
    h = hashlib.sha256()
    for part in (_compiler_id(), chip or "<axe.target>", text):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _disk_get(key: str) -> Optional[dict]:
    base = _cache_dir()
    if base is None:
        return None
    try:
        entry = json.loads((base / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) and {"chip", "ptx", "launch"} <= entry.keys() else None


def _disk_put(key: str, entry: dict) -> None:
    base = _cache_dir()
    if base is None:
        return
    try:
        base.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=base, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(entry, f)
        os.replace(tmp, base / f"{key}.json")
    except OSError:
        pass  # a cache that cannot be written is only slower


def _point_at_nvshmem() -> None:
    """Kernels that call NVSHMEM link its device bitcode, which the compiler finds through `$AXE_NVSHMEM_LIB` (or
    the project's .venv in a checkout): point it at the installed `nvidia-nvshmem-cu13` wheel when unset."""
    if "AXE_NVSHMEM_LIB" in os.environ:
        return
    try:
        import nvidia.nvshmem as wheel
    except ImportError:
        return
    for base in wheel.__path__:
        lib = os.path.join(base, "lib")
        if os.path.isdir(lib):
            os.environ["AXE_NVSHMEM_LIB"] = lib
            return


def compile(
    source: Union[str, os.PathLike],
    chip: Optional[str] = None,
    name: Optional[str] = None,
    cache: bool = True,
) -> Module:
    """Compiles axe IR (the text, or a path to a `.mlir` file) for `chip` (`sm_80`, `sm_90a`, `sm_100a`; default:
    the module's `axe.target`) into a `Module` whose kernels run on a GPU (PTX, loaded by the driver) or on the
    simulator (the IR). A refusal raises `axe.CompileError` with the diagnostics as `axe-opt` prints them."""
    from . import _native

    _point_at_nvshmem()
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source and source.endswith(".mlir")):
        path = Path(source)
        text = path.read_text()
        name = name or str(path)
    else:
        text = str(source)
        name = name or "<input>"
    key = cache_key(text, chip) if cache else ""
    entry = _memory.get(key) if cache else None
    if entry is not None:
        stats["memory_hits"] += 1
    elif cache and (entry := _disk_get(key)) is not None:
        stats["disk_hits"] += 1
        _memory[key] = entry
    else:
        built, ptx, launch = _native._compile(text, name, chip)
        stats["compiles"] += 1
        entry = {"chip": built, "ptx": ptx, "launch": launch}
        if cache:
            _memory[key] = entry
            _disk_put(key, entry)
    return Module(LaunchRecord.parse(entry["launch"]), ptx=entry["ptx"], source=text, source_name=name)
