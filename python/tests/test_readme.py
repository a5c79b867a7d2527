"""The README's Python examples run as written: each ```python block with `>>>` prompts is a doctest, run from
the repository's root (the kernel example compiles examples/gemm_sm90a.mlir and runs it on the simulator)."""

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_python_examples(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("AXE_CACHE_DIR", str(tmp_path))
    readme = (ROOT / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if ">>>" in b]
    assert len(blocks) == 2, "the README has a layout example and a kernel example"
    assert "from axe import" in blocks[0] and "axe.compile" in blocks[1]
    for i, block in enumerate(blocks):
        test = doctest.DocTestParser().get_doctest(block, {}, f"README.md[{i}]", "README.md", 0)
        assert len(test.examples) >= 8
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.summarize(verbose=False).failed == 0
