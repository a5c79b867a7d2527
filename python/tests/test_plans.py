"""tma_plan and mma_plan: the headline fields recomputed by hand from the CUDA driver's and the PTX ISA's
numbering, then every case compared key for key with `axe-layout tma-plan/mma-plan ... --json` run as a process
(the keyword `x_y` is the CLI's `--x-y`; `global_layout`/`shared_layout` are `--global`/`--shared`)."""

import pytest

import axe as axe_layout
from axe import Layout, LayoutError

ROW_MAJOR = "S[(256,256):(256,1)]"
B128 = "Swizzle(3,3,3) o S[(128,64):(64,1)]"

TMA_CASES = {
    "128B": dict(global_layout=ROW_MAJOR, global_shape=(256, 256), global_region=[(0, 128), (64, 128)],
                 shared_layout=B128, shared_shape=(128, 64), shared_region="0:128,0:64", dtype="f16"),
    "none": dict(global_layout=ROW_MAJOR, global_shape="256,256", global_region="0:64,0:64",
                 shared_layout="S[(64,64):(64,1)]", shared_shape=(64, 64), shared_region="0:64,0:64", dtype="f16"),
    "32B-bf16": dict(global_layout=ROW_MAJOR, global_shape=(256, 256), global_region="0:64,32:48",
                     shared_layout="Swizzle(3,1,3) o S[(64,16):(16,1)]", shared_shape=(64, 16),
                     shared_region="0:64,0:16", dtype="bf16"),
    "two-panels-s2g": dict(global_layout=ROW_MAJOR, global_shape=(256, 256), global_region="0:128,128:256",
                           shared_layout="Swizzle(3,3,3) o S[(128,2,64):(64,8192,1)]", shared_shape=(128, 128),
                           shared_region="0:128,0:128", dtype="f16", direction="s2g"),
    "loop": dict(global_layout="S[(8,64):(64,1)]", global_shape=(8, 64), global_region="0:8,0:64",
                 shared_layout="S[(8,8,8):(8,64,1)]", shared_shape=(8, 64), shared_region="0:8,0:64", dtype="f16"),
    "options": dict(global_layout=ROW_MAJOR, global_shape=(256, 256), global_region="0:128,64:128",
                    shared_layout=B128, shared_shape=(128, 64), shared_region="0:128,0:64", dtype="f16",
                    l2_promotion="256B", oob_fill="nan"),
    "global-offset": dict(global_layout=ROW_MAJOR + " + 128", global_shape=(256, 256), global_region="0:128,64:128",
                          shared_layout=B128, shared_shape=(128, 64), shared_region="0:128,0:64", dtype="f16"),
}


def text(v):
    """A keyword value as the CLI's text: a shape 8,16; a region 2:3,6:10."""
    if isinstance(v, str):
        return v
    if isinstance(v, Layout):
        return repr(v)
    return ",".join(f"{x[0]}:{x[1]}" if isinstance(x, tuple) else str(x) for x in v)


def cli_args(kwargs, renames):
    out = []
    for k, v in kwargs.items():
        out += ["--" + renames.get(k, k).replace("_", "-"), text(v)]
    return out


def tma_cli(cli, kwargs):
    return cli.json("tma-plan", *cli_args(kwargs, {"global_layout": "global", "shared_layout": "shared"}))


def test_tma_128b_by_hand():
    # A 128x64 f16 tile of a row-major 256x256 matrix into 128B-swizzled shared memory: FLOAT16 = 6; arrays
    # innermost first: dims [256, 256], the row stride 256 * 2 bytes; one box of one 128-byte swizzle row (64
    # f16) by 128 rows; CU_TENSOR_MAP_SWIZZLE_128B = 3; L2_128B = 2 (the default); the region's start column 64.
    p = axe_layout.tma_plan(**TMA_CASES["128B"])
    assert p == {
        "dtype": 6, "rank": 2, "global_dims": [256, 256], "global_strides_bytes": [512], "box_dims": [64, 128],
        "element_strides": [1, 1], "interleave": 0, "swizzle": 3, "l2_promotion": 2, "oob_fill": 0,
        "issues": [{"coordinates": [64, 0], "smem_offset_bytes": 0}],
    }


def test_tma_two_panels_and_offset_by_hand():
    # Two 64-column 128B panels: two boxes, the second at column 192 and 128 * 128 bytes into shared memory.
    p = axe_layout.tma_plan(**TMA_CASES["two-panels-s2g"])
    assert p["issues"] == [{"coordinates": [128, 0], "smem_offset_bytes": 0},
                           {"coordinates": [192, 0], "smem_offset_bytes": 16384}]
    # A global layout offset of 128 elements: 256 bytes, the only case with the key.
    assert axe_layout.tma_plan(**TMA_CASES["global-offset"])["global_offset_bytes"] == 256
    assert "global_offset_bytes" not in axe_layout.tma_plan(**TMA_CASES["128B"])
    q = axe_layout.tma_plan(**TMA_CASES["options"])
    assert (q["l2_promotion"], q["oob_fill"]) == (3, 1)  # L2_256B, NAN_REQUEST_ZERO_FMA


@pytest.mark.parametrize("case", sorted(TMA_CASES))
def test_tma_matches_the_cli(cli, case):
    kwargs = TMA_CASES[case]
    assert axe_layout.tma_plan(**kwargs) == tma_cli(cli, kwargs)
    # Layout objects work where text does.
    objs = {k: Layout(v) if k.endswith("_layout") else v for k, v in kwargs.items()}
    assert axe_layout.tma_plan(**objs) == tma_cli(cli, kwargs)


def test_tma_refusal_is_the_cli_message(cli):
    kwargs = dict(TMA_CASES["128B"], dtype="i32")
    with pytest.raises(LayoutError) as e:
        axe_layout.tma_plan(**kwargs)
    assert e.value.message.startswith("tma: shared-swizzle stage: Swizzle(3,3,3) is not a TMA swizzle")
    stderr = cli.fail("tma-plan", *cli_args(kwargs, {"global_layout": "global", "shared_layout": "shared"}))
    assert stderr.strip() == f"axe-layout: error: {e.value.message}"
    with pytest.raises(LayoutError, match="dtype: unknown element type 'f17'"):
        axe_layout.tma_plan(**dict(kwargs, dtype="f17"))
    with pytest.raises(LayoutError, match="direction: expected g2s or s2g"):
        axe_layout.tma_plan(**dict(kwargs, direction="sideways"))


MMA_CASES = {
    # mma.sync: two warps split N, A replicated on both, K=32 in two k16 steps.
    "sync": dict(chip="sm_80", dtype="f16",
                 a="S[(2,8,2,2,4,2):(2,4@laneid,8,4,1@laneid,1)] + R[2:1@warpid]", a_shape=(16, 32), a_mem="reg",
                 b="S[(2,2,4,2,2,8):(4,2,1@laneid,1,1@warpid,4@laneid)]", b_shape=(32, 16), b_mem="reg",
                 c="S[(2,8,2,4,2):(2,4@laneid,1@warpid,1@laneid,1)]", c_shape=(16, 16), c_mem="reg"),
    # wgmma: A and B K-major in 128B-swizzled tiles, one warpgroup, N=16.
    "wgmma": dict(chip="sm_90a", dtype="f16", a="Swizzle(3,3,3) o S[(64,64):(64,1)]", a_shape=(64, 64),
                  a_mem="shared", b="Swizzle(3,3,3) o S[(64,16):(1,64)]", b_shape=(64, 16), b_mem="shared",
                  c="S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]", c_shape=(64, 16), c_mem="reg"),
    # tcgen05: 32B-swizzled K-major operands, the accumulator at tensor-memory column 32.
    "tcgen05": dict(chip="sm_100a", dtype="f16", a="Swizzle(3,1,3) o S[(128,16):(16,1)]", a_shape=(128, 16),
                    a_mem="shared", b="Swizzle(3,1,3) o S[(16,64):(1,16)]", b_shape=(16, 64), b_mem="shared",
                    c="S[(128,64):(1@TLane,1@TCol)] + 32@TCol", c_shape=(128, 64), c_mem="tmem"),
}


def mma_cli(cli, kwargs):
    return cli.json("mma-plan", *cli_args(kwargs, {}))


def test_mma_sync_by_hand():
    # m16n8k16: A's fragment is 8 f16 registers a0..a7, B's 4, C's 4 f32; the second k step reads A's registers
    # 8..15 and B's 4..7; warp 1 (thread 32) owns columns 8..16. K innermost.
    p = axe_layout.mma_plan(**MMA_CASES["sync"])
    assert p["instruction"] == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    assert p["inst_shape"] == [16, 8, 16]
    assert "tmem_columns" not in p
    a0, a1, b0, b1 = list(range(8)), list(range(8, 16)), [0, 1, 2, 3], [4, 5, 6, 7]
    assert [(i["thread_base"], i["n"], i["k"], i["a"]["regs"], i["b"]["regs"]) for i in p["issues"]] == [
        (0, 0, 0, a0, b0), (0, 0, 16, a1, b1), (32, 8, 0, a0, b0), (32, 8, 16, a1, b1)]


def test_wgmma_descriptors_by_hand():
    # desc = start>>4 | (LBO>>4)<<16 | (SBO>>4)<<32 | 1<<62 (128B): LBO 16 (unused, encoded 1), SBO 8 rows * 128 B.
    p = axe_layout.mma_plan(**MMA_CASES["wgmma"])
    for k, issue in enumerate(p["issues"]):
        start = 32 * k  # each k16 step is 16 f16 = 32 bytes further along the swizzle row
        desc = start >> 4 | (16 >> 4) << 16 | (1024 >> 4) << 32 | 1 << 62
        assert issue["a"]["smem"] == {"desc": f"0x{desc:016x}", "start_offset_bytes": start, "lbo_bytes": 16,
                                      "sbo_bytes": 1024, "base_offset": 0, "swizzle": "128B", "major": "K"}


def test_tcgen05_idesc_and_columns_by_hand():
    # idesc: f32 D (1<<4), f16 A/B (0), N>>3 = 8 at bit 17, M>>4 = 8 at bit 24; columns 32..96 used: allocate 128.
    p = axe_layout.mma_plan(**MMA_CASES["tcgen05"])
    assert p["tmem_columns"] == 128
    assert [i["idesc"] for i in p["issues"]] == [f"0x{1 << 4 | 8 << 17 | 8 << 24:08x}"]
    assert p["issues"][0]["c"] == {"tmem": {"lane": 0, "col": 32}}


@pytest.mark.parametrize("case", sorted(MMA_CASES))
def test_mma_matches_the_cli(cli, case):
    assert axe_layout.mma_plan(**MMA_CASES[case]) == mma_cli(cli, MMA_CASES[case])


def test_mma_refusal_is_the_cli_message(cli):
    kwargs = dict(MMA_CASES["wgmma"], chip="sm_80")
    with pytest.raises(LayoutError) as e:
        axe_layout.mma_plan(**kwargs)
    assert e.value.message.startswith("mma: ")
    assert cli.fail("mma-plan", *cli_args(kwargs, {})).strip() == f"axe-layout: error: {e.value.message}"
    with pytest.raises(LayoutError, match="a_mem: unknown memory"):
        axe_layout.mma_plan(**dict(kwargs, a_mem="disk"))
