"""The README's Python example runs as written: its `>>>` block is a doctest."""

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_python_example():
    readme = (ROOT / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "from axe_layout import" in b]
    assert len(blocks) == 1, "the README has one Python example"
    test = doctest.DocTestParser().get_doctest(blocks[0], {}, "README.md", "README.md", 0)
    assert len(test.examples) >= 8
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
