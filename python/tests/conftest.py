"""Shared helpers: the axe-layout CLI as a process, for key-for-key comparisons with its --json output.

The CLI is $AXE_LAYOUT when set (scripts/test-python.sh sets it, and then a missing binary fails the tests),
else target/debug/axe-layout of this checkout (the comparisons are skipped when it is not built).
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _cli_path():
    given = os.environ.get("AXE_LAYOUT")
    if given:
        if not os.access(given, os.X_OK):
            pytest.fail(f"AXE_LAYOUT={given} is not an executable")
        return given
    default = ROOT / "target" / "debug" / "axe-layout"
    if not os.access(default, os.X_OK):
        pytest.skip("axe-layout CLI not built (cargo build -p axe-layout-cli, or set AXE_LAYOUT)")
    return str(default)


class Cli:
    """Runs `axe-layout ARGS`; json() parses the --json output, fail() returns the stderr of a refusal."""

    def __init__(self, path):
        self.path = path

    def run(self, *args):
        return subprocess.run([self.path, *args], capture_output=True, text=True, timeout=60)

    def json(self, *args):
        r = self.run(*args, "--json")
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    def fail(self, *args):
        r = self.run(*args)
        assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
        return r.stderr


@pytest.fixture(scope="session")
def cli():
    return Cli(_cli_path())
