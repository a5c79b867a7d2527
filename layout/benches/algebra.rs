//! Criterion benchmarks of the layout algebra: the forward map over every logical index (as coordinate maps,
//! `eval`, and as flat value vectors, `eval_values`), canonicalize, tile and slice, on the layouts the compiler
//! meets (mma register fragments, the TIRx tensor-core tile with replica and offset, swizzled shared-memory
//! tiles) and on 16-iter layouts, the largest a typical pass sees.
//!
//! Run: `cargo bench -p axe-layout --bench algebra` (about 30 s; add `-- --quick` for a faster, noisier run).
//! Warm-up and measurement are kept short so the whole suite stays well under two minutes.

use axe_layout::canonicalize::canonicalize;
use axe_layout::notation::parse_layout;
use axe_layout::slice::slice;
use axe_layout::tile::tile;
use axe_layout::{Layout, TileLayout};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use std::time::Duration;

fn layout(text: &str) -> Layout {
    parse_layout(text).unwrap_or_else(|e| panic!("parse `{text}`: {e}"))
}

fn tile_layout(text: &str) -> TileLayout {
    match layout(text) {
        Layout::Tile(t) => t,
        other => panic!("`{text}` is not a tile layout: {other:?}"),
    }
}

/// The TIRx page's tensor-core tile: 4 shard iters on 3 axes, a replica and an offset.
const TC_TILE: &str = "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid";
/// The mma.sync m16n8 C fragment (Tilus / PTX).
const MMA_C: &str = "S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]";
/// A 128B-swizzled f16 shared-memory tile of 3 x 64 x 256 (reference-tirx.md `mma_shared_layout`).
const SMEM_128B: &str = "Swizzle(3,3,3) o S[(3,64,4,64):(16384,64,4096,1)]";
/// 16 shard iters of extent 2 on four axes (nothing fuses): 65536 elements.
const ITERS16_MIXED: &str = "S[(2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2):\
     (1@warpid,16@laneid,8@laneid,1@reg,2048,4@laneid,2@laneid,1024,512,2@reg,1@laneid,256,128,64,32,16)] \
     + R[2:2@warpid] + 4@warpid";
/// 16 shard iters of extent 2 on `m` that D1 fuses into one, plus replicas that C2 absorbs.
const ITERS16_FUSABLE: &str = "S[(2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2):\
     (32768,16384,8192,4096,2048,1024,512,256,128,64,32,16,8,4,2,1)] + R[2:1@laneid] + R[4:2@laneid] + 0@warpid";

/// Evaluates `count` logical indices spread evenly over the layout (all of them when `count >= size`), replicas
/// included.
fn eval_spread(l: &Layout, count: i64) -> usize {
    let step = (l.size() / count).max(1);
    let evaluator = l.evaluator().expect("a small replica");
    (0..l.size()).step_by(step as usize).map(|flat| evaluator.eval_flat(flat).expect("in range").len()).sum()
}

/// As [`eval_spread`], through [`axe_layout::Evaluator::values_into`] with one reused buffer: the points as flat
/// value vectors instead of coordinate maps (the form for hot loops; it allocates nothing per index).
fn values_spread(l: &Layout, count: i64) -> usize {
    let step = (l.size() / count).max(1);
    let evaluator = l.evaluator().expect("a small replica");
    let mut values = Vec::new();
    (0..l.size()).step_by(step as usize).map(|flat| evaluator.values_into(flat, &mut values).expect("in range")).sum()
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(800))
        .sample_size(20)
}

fn bench_eval(c: &mut Criterion) {
    // Every index of the register and 8x64 shared tiles; 4096 spread indices of the big ones (49152 and 65536
    // elements), so one iteration stays in the millisecond range. Throughput is per evaluated index. `eval`
    // returns coordinate maps (`Evaluator::eval_flat`), `eval_values` flat value vectors (`values_into`).
    type Spread = fn(&Layout, i64) -> usize;
    for (group, spread) in [("eval", eval_spread as Spread), ("eval_values", values_spread as Spread)] {
        let mut g = c.benchmark_group(group);
        g.sampling_mode(SamplingMode::Flat);
        for (name, text, count) in [
            ("tc_tile_8x16_all", TC_TILE, 128),
            ("mma_c_16x8_all", MMA_C, 128),
            ("swizzle_8x64_all", "Swizzle(3,3,3) o S[(8,64):(64,1)]", 512),
            ("swizzle_3x64x256_4096", SMEM_128B, 4096),
            ("iters16_mixed_4096", ITERS16_MIXED, 4096),
        ] {
            let l = layout(text);
            let evaluated = (0..l.size()).step_by((l.size() / count).max(1) as usize).count();
            g.throughput(Throughput::Elements(evaluated as u64));
            g.bench_with_input(BenchmarkId::from_parameter(name), &l, |b, l| b.iter(|| spread(black_box(l), count)));
        }
        g.finish();
    }
}

fn bench_canonicalize(c: &mut Criterion) {
    let mut g = c.benchmark_group("canonicalize");
    for (name, text) in [
        ("tc_tile", TC_TILE),
        ("mma_c", MMA_C),
        ("swizzle_3x64x256", SMEM_128B),
        ("iters16_mixed", ITERS16_MIXED),
        ("iters16_fusable", ITERS16_FUSABLE),
    ] {
        let l = layout(text);
        g.bench_with_input(BenchmarkId::from_parameter(name), &l, |b, l| b.iter(|| canonicalize(black_box(l))));
    }
    g.finish();
}

/// `(name, inner, outer, inner_shape, outer_shape)`.
type TileCase = (&'static str, &'static str, &'static str, Vec<i64>, Vec<i64>);

fn bench_tile(c: &mut Criterion) {
    let cases: Vec<TileCase> = vec![
        // The notation chapter's 8x8 matrix of 2x4 tiles.
        ("chapter_2x4_by_4x2", "S[(2,4):(4,1)]", "S[(4,2):(2,1)]", vec![2, 4], vec![4, 2]),
        // The tensor-core tile repeated over 2 x 4 warp blocks (span scaling of replica and offset).
        ("tc_tile_by_2x4", TC_TILE, "S[(2,4):(4@warpid,1@reg)]", vec![8, 16], vec![2, 4]),
        // The mma fragment tiled over a 4 x 8 register grid.
        ("mma_c_by_4x8", MMA_C, "S[(4,8):(8@reg,1@reg)]", vec![16, 8], vec![4, 8]),
        // The 128B swizzle atom tiled to a 3 x 64 x 256 shared-memory buffer.
        ("swizzle_atom_to_3x64x256", "Swizzle(3,3,3)", "S[(3,8,4):(32,1,8)]", vec![1, 8, 64], vec![3, 8, 4]),
        // A swizzled 8 x 64 tile (not a bare atom) repeated over a 2 x 4 grid of such tiles.
        ("swizzle_8x64_by_2x4", "Swizzle(3,3,3) o S[(8,64):(64,1)]", "S[(2,4):(4,1)]", vec![8, 64], vec![2, 4]),
        // 8 + 8 iters: a 16-iter result.
        (
            "iters8_by_iters8",
            "S[(2,2,2,2,2,2,2,2):(8@laneid,1@reg,4@laneid,2@reg,2@laneid,4@reg,1@laneid,8@reg)]",
            "S[(2,2,2,2,2,2,2,2):(1@warpid,128,2@warpid,64,32,16,8,4)]",
            vec![16, 16],
            vec![16, 16],
        ),
    ];
    let mut g = c.benchmark_group("tile");
    for (name, inner, outer, inner_shape, outer_shape) in cases {
        let (inner, outer) = (layout(inner), tile_layout(outer));
        tile(&inner, &outer, &inner_shape, &outer_shape).unwrap_or_else(|e| panic!("{name}: {e}"));
        g.bench_function(name, |b| {
            b.iter(|| tile(black_box(&inner), black_box(&outer), &inner_shape, &outer_shape).unwrap())
        });
    }
    g.finish();
}

/// `(name, layout, shape, region)`.
type SliceCase = (&'static str, &'static str, Vec<i64>, Vec<(i64, i64)>);

fn bench_slice(c: &mut Criterion) {
    let cases: Vec<SliceCase> = vec![
        ("tc_tile_warp_half", TC_TILE, vec![8, 16], vec![(2, 6), (8, 16)]),
        ("one_wrap", "S[(4,4,4):(4,16,1)]", vec![4, 16], vec![(2, 3), (6, 10)]),
        ("mma_c_rows_8_16", MMA_C, vec![16, 8], vec![(8, 16), (0, 8)]),
        ("swizzle_3x64x256", SMEM_128B, vec![3, 64, 256], vec![(1, 2), (16, 48), (64, 192)]),
        ("iters16_mixed", ITERS16_MIXED, vec![256, 256], vec![(64, 128), (32, 64)]),
    ];
    let mut g = c.benchmark_group("slice");
    for (name, text, shape, region) in cases {
        let l = layout(text);
        slice(&l, &shape, &region).unwrap_or_else(|e| panic!("{name}: {e}"));
        g.bench_function(name, |b| b.iter(|| slice(black_box(&l), &shape, &region).unwrap()));
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_eval, bench_canonicalize, bench_tile, bench_slice
}
criterion_main!(benches);
