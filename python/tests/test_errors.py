"""Refusals: LayoutError (a ValueError) with .message and .column for text, the same message as the CLI's;
TypeError for arguments of the wrong Python type; no input crashes the interpreter."""

import pytest

import axe as axe_layout
from axe import Layout, LayoutError

LANES = "S[(8,4):(4@laneid,1@laneid)]"


def raised(f, *args, **kwargs):
    with pytest.raises(LayoutError) as e:
        f(*args, **kwargs)
    assert isinstance(e.value, ValueError)
    return e.value


def test_parse_error_column_and_message():
    # "S[(8,2):(4@laneid,1]": S=1 [=2 (=3 8=4 ,=5 2=6 )=7 :=8 (=9 4=10 @=11 laneid=12..17 ,=18 1=19 ]=20.
    e = raised(Layout, "S[(8,2):(4@laneid,1]")
    assert e.column == 20
    assert e.text == "S[(8,2):(4@laneid,1]"
    assert e.message == "unexpected ']', expected one of ')' or ','"
    assert str(e) == "column 20: " + e.message


def test_parse_errors_match_the_cli(cli):
    for text in ["S[(8,2):(4@laneid,1]", "S[8:1@nosuch]", "S[(8,4):(4@laneid,1@laneid)] +", "Swizzle(3,3)"]:
        e = raised(Layout, text)
        first = cli.fail("eval", text).splitlines()[0]
        assert first == f"axe-layout: error: LAYOUT: column {e.column}: {e.message}"


def test_unknown_axis_points_at_the_axis():
    # "S[8:1@nosuch]": the axis name starts at column 7.
    e = raised(Layout, "S[8:1@nosuch]")
    assert e.column == 7 and "unknown axis 'nosuch'" in e.message


def test_shape_text_error_has_its_column():
    e = raised(Layout(LANES).table, "8,x")
    assert e.column == 3 and e.message == "shape: expected a dimension, found 'x'"


def test_region_text_error_has_its_column(cli):
    e = raised(Layout(LANES).slice, (8, 4), "0:4,3:2")
    assert e.column == 5
    assert "column 5: a region dimension needs 0 <= begin < end, got 3:2" in cli.fail(
        "slice", LANES, "--shape", "8,4", "--region", "0:4,3:2"
    )
    # The same check on a sequence (no column: there is no text).
    e = raised(Layout(LANES).slice, (8, 4), [(0, 4), (3, 2)])
    assert e.column is None and "0 <= begin < end, got 3:2" in e.message


def test_shape_not_admitted_names_both_sizes(cli):
    e = raised(Layout(LANES).eval, 0, (8, 8))
    assert e.column is None
    assert e.message == "shape: shape [8,8] has 64 elements but the layout maps 32"
    assert f"--{e.message}" in cli.fail("eval", LANES, "--shape", "8,8")


def test_out_of_range_coordinates():
    l = Layout(LANES)
    for coord in [(8, 0), (0, 4), (-1, 0), (0,), (0, 0, 0)]:
        raised(l.eval, coord, (8, 4))
    assert "flat index 32 is outside 0..32" in raised(l.eval, 32).message
    raised(l.eval, -1)


def test_region_beyond_the_shape_and_rank_mismatch():
    l = Layout(LANES)
    assert raised(l.slice, (8, 4), [(0, 9), (0, 4)]).message == (
        "region: dimension 0 ends at 9, beyond the shape's extent 8"
    )
    assert "region has 1 dimension(s) but shape has 2" in raised(l.slice, (8, 4), [(0, 8)]).message


def test_operation_refusals_name_the_operation():
    swizzled = "Swizzle(3,3,3) o S[(8,64):(64,1)]"
    e = raised(Layout("S[(2,4):(4,1)]").tile, swizzled, (2, 4), (8, 64))
    assert e.message == "outer: must be a tile layout without a swizzle"
    e = raised(Layout(swizzled).direct_sum, "S[4]", (8, 64), (4,))
    assert e.message.startswith("direct_sum: the left layout")
    # A tiled layout that is not a tiling of the given inner layout.
    e = raised(Layout("S[(4,8):(1,4)]").tile_of, (4, 8), inner="S[(2,4):(4,1)]", inner_shape=(2, 4))
    assert e.message.startswith("tile_of: ")


def test_table_limit():
    l = Layout("S[(8192,4096):(4096,1)]")  # 2^25 elements
    e = raised(l.table, (8192, 4096))
    assert str(axe_layout.TABLE_LIMIT) in e.message and str(1 << 25) in e.message
    assert l.eval((8191, 4095), (8192, 4096)) == [{"m": (1 << 25) - 1}]


def test_wrong_python_types():
    with pytest.raises(TypeError):
        Layout(5)
    l = Layout(LANES)
    with pytest.raises(TypeError):
        l.eval(1.5)
    with pytest.raises(TypeError):
        l.table([8, "4"])
    with pytest.raises(TypeError):
        l.tile(3, (8, 4), (1,))
    with pytest.raises(TypeError, match="exactly one of inner and outer"):
        l.tile_of((8, 4))
    with pytest.raises(TypeError, match="inner_shape"):
        l.tile_of((8, 4), inner="S[4]")


def test_bad_axis_declarations():
    raised(axe_layout.declare_axis, "sbuf2", "nonsense")
    raised(axe_layout.declare_axis, "laneid", "memory")  # a built-in thread axis
    raised(axe_layout.declare_axis, "2x", "memory")


def test_region_rows_must_be_pairs():
    with pytest.raises(TypeError, match="pairs"):
        Layout(LANES).slice((8, 4), [(0, 4, 1), (0, 4)])
