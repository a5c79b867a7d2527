"""No argument aborts the interpreter or escapes `except Exception` (issue 22): sequences whose len() is huge,
ints past 64 bits, and answers whose size is the product of several bounded factors (table over many axes, eval
of many copies, the HTML grid) are refused with LayoutError before anything is allocated.

The calls that used to kill the process run in a child interpreter under a 2 GiB address-space limit, so a
regression fails this test (with the child's output) instead of ending the test run or exhausting the machine."""

import subprocess
import sys
import textwrap

import pytest

import axe as axe_layout
from axe import Layout, LayoutError

CHILD = textwrap.dedent(
    """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    import axe as axe_layout
    from axe import Layout

    class Lying:
        "A sequence that claims 2**40 items and has none."
        def __len__(self):
            return 1 << 40
        def __getitem__(self, i):
            raise IndexError(i)

    class Endless:
        "A sequence that claims 4 items and never ends."
        def __len__(self):
            return 4
        def __getitem__(self, i):
            return 1

    l = Layout("S[8:1]")
    plan = dict(global_layout="S[(64,64):(64,1)]", global_shape="64,64", global_region="0:64,0:64",
                shared_layout="S[(64,64):(64,1)]", shared_shape="64,64", shared_region="0:64,0:64", dtype="f16")
    cases = {}
    for name, huge in [("2**40", range(2**40)), ("2**62", range(2**62)), ("2**64", range(2**64)),
                       ("lying", Lying()), ("endless", Endless()), ("5000", [1] * 5000)]:
        cases[f"eval coord {name}"] = lambda h=huge: l.eval(h, (8,))
        cases[f"eval shape {name}"] = lambda h=huge: l.eval(0, h)
        cases[f"table shape {name}"] = lambda h=huge: l.table(h)
        cases[f"slice shape {name}"] = lambda h=huge: l.slice(h, "0:8")
        cases[f"slice region {name}"] = lambda h=huge: l.slice((8,), h)
        cases[f"slice region row {name}"] = lambda h=huge: l.slice((8,), [h])
        cases[f"tile inner_shape {name}"] = lambda h=huge: l.tile("S[2:8]", h, (2,))
        cases[f"equivalent shape {name}"] = lambda h=huge: l.equivalent(l, h)
        cases[f"tma_plan global_shape {name}"] = lambda h=huge: axe_layout.tma_plan(**dict(plan, global_shape=h))
        cases[f"tma_plan shared_region {name}"] = lambda h=huge: axe_layout.tma_plan(**dict(plan, shared_region=h))
    cases["eval coord 2**70"] = lambda: l.eval(2**70)
    cases["eval coord (2**70,)"] = lambda: l.eval((2**70,), (8,))
    cases["slice region (0, 2**70)"] = lambda: l.slice((8,), [(0, 2**70)])
    cases["shape (2**64,)"] = lambda: l.eval(0, (2**64,))
    for name, case in cases.items():
        try:
            case()
            print(f"{name}: no error")
        except Exception as e:
            print(f"{name}: {type(e).__name__}: {e}")
        except BaseException as e:
            print(f"{name}: ESCAPED {type(e).__name__}: {e}")
        sys.stdout.flush()
    print("done")
    """
)


def test_no_sequence_or_int_argument_kills_or_escapes():
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert child.returncode == 0 and child.stdout.endswith("done\n"), (child.returncode, child.stdout, child.stderr)
    lines = child.stdout.splitlines()[:-1]
    assert len(lines) == 6 * 10 + 4
    for line in lines:
        name, outcome = line.split(": ", 1)
        assert outcome.startswith("LayoutError: "), line
        if name.endswith(("2**40", "2**62", "lying", "5000")):
            assert "more than 4096" in outcome, line
        if "2**70" in name or "2**64" in name:
            assert "does not fit in 64 bits" in outcome or "length cannot be read" in outcome, line


def test_sequences_up_to_the_limit_still_work():
    l = Layout("S[(8,4):(4@laneid,1@laneid)]")
    # Any sequence type: a range, a list, a tuple, a numpy array.
    import numpy as np

    assert l.eval(range(2, 4), (8, 4)) == [{"laneid": 11}]
    assert l.eval(np.array([2, 3]), np.array([8, 4])) == [{"laneid": 11}]
    # range(8, 0, -4) is (8, 4); range(2, 4) the pair (2, 3), range(0, 8, 4) the pair (0, 4): "2:3,0:4".
    assert l.slice(range(8, 0, -4), [range(2, 4), range(0, 8, 4)]) == l.slice("8,4", "2:3,0:4")
    # Shapes of ones: 4096 dimensions is the longest sequence taken.
    one = Layout("S[1:1]")
    assert one.eval([0] * axe_layout_max_dims(), [1] * axe_layout_max_dims()) == [{"m": 0}]


def axe_layout_max_dims():
    # args.rs MAX_DIMS: a sequence of 4096 items is taken, 4097 refused.
    return 4096


def test_one_more_item_than_the_limit_is_refused():
    e = pytest.raises(LayoutError, Layout("S[1:1]").eval, 0, [1] * 4097).value
    assert e.message == "shape: a sequence of 4097 items, more than 4096"


def test_table_caps_all_axes_together():
    # 2^24 elements on two axes (m and reg) are 2^25 values: within the old per-axis limit, refused now.
    l = Layout("S[(4096,4096):(4096,1)] + 1@reg")
    e = pytest.raises(LayoutError, l.table).value
    assert e.message == (
        f"table: 16777216 elements x 1 points x 2 axes = 33554432 values, more than TABLE_LIMIT "
        f"({axe_layout.TABLE_LIMIT}); use eval"
    )
    assert axe_layout.TABLE_LIMIT == 1 << 24


def test_table_of_many_declared_axes_is_refused_before_allocating():
    # 1000 memory axes of 2^20 elements: the per-axis limit allowed 1000 arrays of 8 MiB each.
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import resource
                resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
                import axe as axe_layout
                for i in range(999):
                    axe_layout.declare_axis(f"mem{i}", "memory")
                l = axe_layout.Layout("S[1048576:1]" + "".join(f" + 1@mem{i}" for i in range(999)))
                try:
                    l.table()
                except axe_layout.LayoutError as e:
                    print(e.message)
                """
            ),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 0, child.stderr
    # 2^20 elements x 1 point x 1000 axes (m and the 999 declared ones).
    assert child.stdout == (
        "table: 1048576 elements x 1 points x 1000 axes = 1048576000 values, more than TABLE_LIMIT (16777216); "
        "use eval\n"
    )


def test_eval_caps_points_times_axes():
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import axe as axe_layout
                for i in range(100):
                    axe_layout.declare_axis(f"mem{i}", "memory")
                l = axe_layout.Layout("S[4:1] + R[65536:1@tid]" + "".join(f" + 1@mem{i}" for i in range(100)))
                try:
                    l.eval(0)
                except axe_layout.LayoutError as e:
                    print(e.message)
                print(len(axe_layout.Layout("S[4:1] + R[65536:1@tid]").eval(0)))
                """
            ),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 0, child.stderr
    # 65536 copies on m, tid and the 100 declared axes: 65536 x 102 = 6684672 > 2^22; without them, 65536 x 2.
    assert child.stdout == (
        "eval: 65536 points x 102 axes = 6684672 values, more than EVAL_LIMIT (4194304)\n65536\n"
    )


def test_html_caps_the_values_it_lists():
    # 64 elements x 4096 copies x 2 axes = 524288 values > 2^18.
    l = Layout("S[64:1] + R[4096:1@tid]")
    e = pytest.raises(LayoutError, l.html).value
    assert "64 elements x 4096 points x 2 axes = 524288 values" in e.message
    assert "no grid" in l._repr_html_()
