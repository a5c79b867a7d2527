"""axe_layout.Layout against the spec's worked examples (/work/shared/spec: the TIRx layout page, the notation
chapter), each expected value recomputed here from the page's closed formulas with numpy, never taken from the
module under test. Tables are checked whole, every element and every replica."""

import pickle
from html.parser import HTMLParser

import numpy as np
import pytest

import axe as axe_layout
from axe import Layout, LayoutError

# TIRx page, "Case study: NVIDIA tensor-core tile" (the paper's Figure 2A).
TC_TILE = "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid"
# TIRx page, "Worked example: 128B swizzle, float16, (8, 64) tile".
SWIZZLED = "Swizzle(3,3,3) o S[(8,64):(64,1)]"
# TIRx page, "Case study: Blackwell tensor memory".
TMEM = "S[(2,128,112):(112@TCol,1@TLane,1@TCol)]"
# The example: an 8x4 tile over the 32 lanes of a warp.
LANES = "S[(8,4):(4@laneid,1@laneid)]"


def grid(shape):
    """Index arrays of a logical shape (np.indices), one per dimension."""
    return np.indices(shape)


# ---------------------------------------------------------------------------------------------------------------
# eval and table
# ---------------------------------------------------------------------------------------------------------------


def test_lanes_table_is_4i_plus_j():
    t = Layout(LANES).table((8, 4))
    i, j = grid((8, 4))
    assert list(t) == ["laneid"]
    assert t["laneid"].dtype == np.int64
    assert t["laneid"].shape == (8, 4)
    np.testing.assert_array_equal(t["laneid"], 4 * i + j)


def test_tensor_core_tile_eval_matches_the_page_formula():
    # laneid = 4i + floor(j/2) mod 4, warpid in {floor(j/8) + 5, floor(j/8) + 9}, m = j mod 2.
    l = Layout(TC_TILE)
    for i in range(8):
        for j in range(16):
            lane, warp, m = 4 * i + (j // 2) % 4, j // 8 + 5, j % 2
            want = [{"laneid": lane, "m": m, "warpid": warp}, {"laneid": lane, "m": m, "warpid": warp + 4}]
            assert l.eval((i, j), (8, 16)) == want
            # The same element by its row-major flat index, in the 1-D default shape and as text.
            assert l.eval(16 * i + j) == want
            assert l.eval(f"{i},{j}", "8,16") == want


def test_tensor_core_tile_table_has_a_trailing_replica_dimension():
    t = Layout(TC_TILE).table((8, 16))
    assert sorted(t) == ["laneid", "m", "warpid"]
    i, j = grid((8, 16))
    for axis in t:
        assert t[axis].shape == (8, 16, 2)
    for r in range(2):
        np.testing.assert_array_equal(t["laneid"][..., r], 4 * i + (j // 2) % 4)
        np.testing.assert_array_equal(t["warpid"][..., r], j // 8 + 5 + 4 * r)
        np.testing.assert_array_equal(t["m"][..., r], j % 2)


def test_table_entry_r_is_evals_r_th_point():
    l = Layout(TC_TILE)
    t = l.table((4, 32))
    for x in [(0, 0), (1, 17), (3, 31)]:
        for r, point in enumerate(l.eval(x, (4, 32))):
            assert {a: int(t[a][x][r]) for a in t} == point


def test_swizzled_table_is_the_xor_address():
    # addr(i, j) = 64i + 8 (floor(j/8) xor i) + j mod 8.
    t = Layout(SWIZZLED).table([8, 64])
    i, j = grid((8, 64))
    np.testing.assert_array_equal(t["m"], 64 * i + 8 * ((j // 8) ^ i) + j % 8)
    # "Reading column j = 0 down the 8 rows gives addr = 72 i and banks 0, 4, 8, ..., 28" (2-byte elements).
    col0 = t["m"][:, 0]
    np.testing.assert_array_equal(col0, 72 * np.arange(8))
    np.testing.assert_array_equal((col0 * 2 // 4) % 32, 4 * np.arange(8))


def test_tensor_memory_table():
    # TLane = l, TCol = 112 a + c over (2, 128, 112); the 224-column span.
    l = Layout(TMEM)
    t = l.table((2, 128, 112))
    a, lane, c = grid((2, 128, 112))
    np.testing.assert_array_equal(t["TLane"], lane)
    np.testing.assert_array_equal(t["TCol"], 112 * a + c)
    assert l.span("TCol") == 224
    assert l.span("TLane") == 128


def test_chapter_register_fragment_and_gpu_mesh():
    # "S[(8, 4, 2) : (4@laneid, 1@laneid, 1@reg)]": row i, column j -> laneid 4i + j//2, reg j%2.
    t = Layout("S[(8, 4, 2) : (4@laneid, 1@laneid, 1@reg)]").table((8, 8))
    i, j = grid((8, 8))
    np.testing.assert_array_equal(t["laneid"], 4 * i + j // 2)
    np.testing.assert_array_equal(t["reg"], j % 2)
    # "S[(2, 4, 8) : (1@gpuid_y, 8@m, 1@m)] + R[2 : 1@gpuid_x]": gpuid_y = i // 4, m = 8 (i mod 4) + j, on
    # both gpuid_x.
    t = Layout("S[(2, 4, 8) : (1@gpuid_y, 8@m, 1@m)] + R[2 : 1@gpuid_x]").table((8, 8))
    for r in range(2):
        np.testing.assert_array_equal(t["gpuid_x"][..., r], np.full((8, 8), r))
        np.testing.assert_array_equal(t["gpuid_y"][..., r], i // 4)
        np.testing.assert_array_equal(t["m"][..., r], 8 * (i % 4) + j)


def test_default_shape_is_1d_and_size_axes_span():
    l = Layout(TC_TILE)
    assert l.size() == 128
    assert l.axes() == ["laneid", "m", "warpid"]
    assert l.table()["m"].shape == (128, 2)
    # span(L, a) = 1 + sum (e-1)|s| over the iters on a, plus O[a]: laneid 1 + 7*4 + 3, warpid 1 + 1 + 4 + 5.
    assert l.span("laneid") == 32
    assert l.span("warpid") == 11
    assert l.span("m") == 2
    assert l.span() == l.span("memory") == 2


# ---------------------------------------------------------------------------------------------------------------
# The operations, each by its defining equation (paper appendices), evaluated here with numpy
# ---------------------------------------------------------------------------------------------------------------


def test_canonicalize_fuses_contiguous_iters():
    # S[(4,8):(8,1)] is m = 8i + j over 4x8, i.e. m = k over 32: one iter of extent 32, stride 1.
    c = Layout("S[(4,8):(8,1)]").canonicalize()
    assert repr(c) == "S[32:1]"
    assert Layout("S[(4,8):(8,1)]").gap_condition()
    np.testing.assert_array_equal(c.table(32)["m"], np.arange(32))


def test_canonical_form_keeps_the_map():
    l = Layout(TC_TILE)
    c = l.canonicalize()
    for shape in [(8, 16), (128,)]:
        a, b = l.table(shape), c.table(shape)
        assert sorted(a) == sorted(b)
        for axis in a:
            np.testing.assert_array_equal(a[axis], b[axis])


def test_tile_is_the_chapter_tiled_layout():
    # "Cut an 8x8 matrix into 2x4 tiles ... S[(4, 2, 2, 4) : (16, 4, 8, 1)]": tile(row-major 2x4, row-major 4x2
    # grid), the grid scaled by the tile's span 8: addr = 16 (i//2) + 4 (i%2) + 8 (j//4) + j%4.
    t = Layout("S[(2,4):(4,1)]").tile("S[(4,2):(2,1)]", (2, 4), (4, 2))
    i, j = grid((8, 8))
    want = 16 * (i // 2) + 4 * (i % 2) + 8 * (j // 4) + j % 4
    np.testing.assert_array_equal(t.table((8, 8))["m"], want)
    np.testing.assert_array_equal(Layout("S[(4, 2, 2, 4) : (16, 4, 8, 1)]").table((8, 8))["m"], want)


def test_tile_of_recovers_both_factors():
    tiled = Layout("S[(4, 2, 2, 4) : (16, 4, 8, 1)]")
    outer = tiled.tile_of((8, 8), inner="S[(2,4):(4,1)]", inner_shape=(2, 4))
    i, j = grid((4, 2))
    np.testing.assert_array_equal(outer.table((4, 2))["m"], 2 * i + j)
    inner = tiled.tile_of((8, 8), outer=Layout("S[(4,2):(2,1)]"), outer_shape=(4, 2))
    i, j = grid((2, 4))
    np.testing.assert_array_equal(inner.table((2, 4))["m"], 4 * i + j)


def test_tile_of_takes_a_bare_swizzle_over_any_shape():
    # Issue 21 item 6, the reference implementation's own test: Swizzle(3,2,3) (period 256) over 64x32 is the
    # swizzle over S[2048:1]; the inner Swizzle(3,2,3) over 8x32 has span 256, so the outer is S[8:1] over (8, 1).
    outer = Layout("Swizzle(3,2,3)").tile_of((64, 32), inner="Swizzle(3,2,3)", inner_shape=(8, 32))
    assert outer == Layout("S[8:1]")


def test_a_swizzled_operand_is_moved_by_whole_periods_or_refused():
    # Issue 22 item 8: Swizzle(2,1,2) has period 32. S[2:4] would move it by 4: at index 14 the equation says
    # 4 + swz(12) = 16 but the swizzled sum would be swz(16) = 20, so the sum is refused. Moved by 32, index 14 is
    # 32 + swz(12) = 44 (12 has no bit 4 to XOR into bit 2).
    right = "Swizzle(2,1,2) o S[8:2]"
    with pytest.raises(LayoutError, match="swizzle period rule: the left layout's stride 4 on m"):
        Layout("S[2:4]").direct_sum(right, (2,), (8,))
    assert Layout("S[2:32]").direct_sum(right, (2,), (8,)).eval(14) == [{"m": 44}]
    # tile: 8x8 under Swizzle(3,3,3) (period 512) has span 64; an outer stride of 1 moves it by 64, refused.
    with pytest.raises(LayoutError, match="swizzle period rule: the outer's stride 1 on m times span 64"):
        Layout("Swizzle(3,3,3)").tile("S[2:1]", (8, 8), (1, 2))


def test_slice_is_the_layout_shifted_to_the_region():
    # L'(y) == L(y + begin) for the region rows 2..6, columns 8..16 of the tensor-core tile.
    l = Layout(TC_TILE)
    s = l.slice((8, 16), [(2, 6), (8, 16)])
    assert s.size() == 32
    for y0 in range(4):
        for y1 in range(8):
            assert s.eval((y0, y1), (4, 8)) == l.eval((y0 + 2, y1 + 8), (8, 16))
    assert l.slice("8,16", "2:6,8:16") == s


def test_group_seps_follow_the_shape():
    # Shard (8,2,4,2) over (8,16): dimension 0 owns iter 0 (8), dimension 1 iters 1..4 (2*4*2 = 16).
    g, seps = Layout(TC_TILE).group((8, 16))
    assert seps == [0, 1, 4]
    assert g == Layout(TC_TILE)


def test_direct_sum_is_the_scale_factor_packing():
    # TIRx page: the scale-factor atom S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane], direct-summed with the outer
    # S[4:4@TCol] over [4,1]: SFA[m, sf] at lanes m mod 32 + 32k (k = 0..3), column (m // 32) * 4 + sf.
    atom = "S[(32, 4):(1@TLane, 1@TCol)] + R[4:32@TLane]"
    s = Layout("S[4:4@TCol]").direct_sum(atom, (4, 1), (32, 4))
    t = s.table((128, 4))
    m, sf = grid((128, 4))
    for k in range(4):
        np.testing.assert_array_equal(t["TLane"][..., k], m % 32 + 32 * k)
        np.testing.assert_array_equal(t["TCol"][..., k], (m // 32) * 4 + sf)


def test_equivalent_decides_the_map():
    assert Layout("S[(8,4):(4,1)]").equivalent("S[32]", 32)
    assert not Layout("S[(4,8):(1,4)]").equivalent("S[32]", 32)


# ---------------------------------------------------------------------------------------------------------------
# Python protocol: repr, ==, hash, pickle, declared axes
# ---------------------------------------------------------------------------------------------------------------


def test_repr_is_the_text_and_parses_back():
    for text in [LANES, SWIZZLED, TMEM, "S[(8, 16) : (16@m, 1@m)]"]:
        l = Layout(text)
        assert repr(l) == str(l)
        assert Layout(repr(l)) == l
    assert repr(Layout(LANES)) == LANES


def test_equality_and_hash_are_on_canonical_forms():
    a, b = Layout("S[(4,8):(8,1)]"), Layout("S[32:1]")
    assert a == b and hash(a) == hash(b)
    assert len({a, b, Layout("S[(4,8):(1,4)]")}) == 2
    assert a != Layout("S[(4,8):(1,4)]")
    assert a != "S[32:1]"


def test_pickle_round_trip():
    l = Layout(TC_TILE)
    assert pickle.loads(pickle.dumps(l)) == l


def test_declared_axis():
    axe_layout.declare_axis("sbuf", "memory")
    np.testing.assert_array_equal(Layout("S[8:1@sbuf]").table()["sbuf"], np.arange(8))


# ---------------------------------------------------------------------------------------------------------------
# _repr_html_
# ---------------------------------------------------------------------------------------------------------------


class Cells(HTMLParser):
    """Collects the <td> cells of a grid: (data-thread, background, title, label)."""

    def __init__(self):
        super().__init__()
        self.cells, self.open = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "td":
            a = dict(attrs)
            self.open = [int(a["data-thread"]), a["style"].split(";")[0], a["title"], ""]

    def handle_data(self, data):
        if self.open is not None:
            self.open[3] += data

    def handle_endtag(self, tag):
        if tag == "td":
            self.cells.append(tuple(self.open))
            self.open = None


def cells(html):
    p = Cells()
    p.feed(html)
    return p.cells


def test_html_lanes_one_colour_per_lane_labelled_with_the_lane():
    c = cells(Layout(LANES)._repr_html_())
    assert len(c) == 32
    assert [label for _, _, _, label in c] == [str(k) for k in range(32)]
    assert len({bg for _, bg, _, _ in c}) == 32
    assert c[5][2] == "(1,1) -> laneid=5"


def test_html_tensor_core_tile_labels_every_replica():
    c = cells(Layout(TC_TILE)._repr_html_())
    assert len(c) == 128  # drawn as 8 x 16, the most nearly square split of the shard (8,2,4,2)
    # Cell (i, j): laneid 4i + (j//2)%4 : warpids j//8+5 and j//8+9 : m j%2 (thread axes innermost first).
    for i, j in [(0, 0), (7, 15), (3, 6)]:
        _, _, title, label = c[16 * i + j]
        lane, w = 4 * i + (j // 2) % 4, j // 8 + 5
        assert label == f"{lane}:{w}/{w + 4}:{j % 2}"
        assert title.startswith(f"({i},{j}) -> ")
        assert title.count("|") == 1  # two points
    # Cells coloured alike exactly when their first point has the same (laneid, warpid).
    owner = {}
    for k, (thread, bg, _, _) in enumerate(c):
        i, j = divmod(k, 16)
        key = (4 * i + (j // 2) % 4, j // 8 + 5)
        assert owner.setdefault(key, (thread, bg)) == (thread, bg)
    assert len(set(owner.values())) == len(owner) == 64


def test_html_explicit_shape_and_too_large():
    assert len(cells(Layout(LANES).html((4, 8)))) == 32
    big = Layout("S[(128,64):(64,1)]")
    assert "no grid" in big._repr_html_() and str(axe_layout.HTML_CELLS) in big._repr_html_()
    with pytest.raises(LayoutError, match="more than the grid draws"):
        big.html()
    # A memory layout has no thread to colour by: every cell white.
    assert {bg for _, bg, _, _ in cells(Layout(SWIZZLED).html())} == {"background:#fff"}


def test_numpy_arguments():
    # Shapes, coordinates and regions may be numpy arrays and integers, as they come out of numpy code.
    l = Layout(LANES)
    np.testing.assert_array_equal(l.table(np.array([8, 4]))["laneid"], 4 * grid((8, 4))[0] + grid((8, 4))[1])
    assert l.eval(np.int64(5)) == [{"laneid": 5}]
    assert l.eval(np.array([1, 1]), (8, 4)) == [{"laneid": 5}]
    assert l.slice((8, 4), np.array([[0, 4], [0, 2]])) == l.slice((8, 4), [(0, 4), (0, 2)])
