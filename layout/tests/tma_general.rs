//! The TMA planner's generality (issue 12): merged contiguous dimensions, permuted and column-major layouts,
//! coordinate-only dimensions, interleaved (blocked) global layouts, and the refusals that remain. Every plan is
//! checked twice: its descriptor fields against numbers derived by hand in the comments, and element by element
//! by the software model of the hardware (`model/tma_hw.rs`, transcribed from the CUDA driver documentation and
//! the PTX ISA independently of the planner) in both directions.

#[path = "model/tma_copy.rs"]
#[allow(dead_code)] // the ring helpers are for tma_model.rs
mod tma_copy;
#[path = "model/tma_hw.rs"]
#[allow(dead_code)] // the run-time term helpers are for other test files
mod tma_hw;

use axe_layout::notation::parse_layout;
use axe_layout::tma::{
    plan, plan_dynamic, Direction, DynamicOffset, ElemType, TensorMapDataType, TmaError, TmaFailure, TmaPlan, TmaRule,
};
use axe_layout::SwizzleMode;
use tma_copy::{check, full, request, Copy};

fn refused(c: &Copy<'_>) -> TmaError {
    let g = parse_layout(c.global).expect("global parses");
    let s = parse_layout(c.shared).expect("shared parses");
    match plan(&request(c, &g, &s, Direction::G2S)) {
        Ok(p) => panic!("expected a refusal, got {p:?}"),
        Err(e) => e,
    }
}

/// `(global_dims, global_strides_bytes, box_dims, issues as (coordinates, smem offset))`.
type Fields = (Vec<u64>, Vec<u64>, Vec<u32>, Vec<(Vec<i64>, i64)>);

fn fields(p: &TmaPlan) -> Fields {
    (
        p.desc.global_dims.clone(),
        p.desc.global_strides_bytes.clone(),
        p.desc.box_dims.clone(),
        p.issues.iter().map(|i| (i.coordinates.clone(), i.smem_offset_bytes)).collect(),
    )
}

// ---- 1. Contiguous logical dimensions merge before the atom and the inner-box rule --------------------------------

#[test]
fn row_major_u8_32x8_is_one_256_byte_box() {
    // 32 rows of 8 bytes, row-major on both sides: one contiguous run of 256 bytes. Rows of 8 bytes alone break the
    // 16-byte inner-box rule; merged, dimension 0 is 32*8 = 256 elements, boxed whole (256 <= 256).
    let p = check(&Copy {
        global: "S[(32,8):(8,1)]",
        gshape: &[32, 8],
        gregion: &full(&[32, 8]),
        shared: "S[(32,8):(8,1)]",
        sshape: &[32, 8],
        sregion: &full(&[32, 8]),
        dtype: ElemType::U8,
    });
    assert_eq!(p.desc.data_type, TensorMapDataType::Uint8);
    assert_eq!(fields(&p), (vec![256], vec![], vec![256], vec![(vec![0], 0)]));
}

#[test]
fn merged_rows_of_a_taller_tensor_take_the_row_start_as_coordinate() {
    // Rows 32..64 of a 64x8 u8 tensor: merged dimension of 64*8 = 512 elements, box 256 from element 32*8 = 256.
    let p = check(&Copy {
        global: "S[(64,8):(8,1)]",
        gshape: &[64, 8],
        gregion: &[(32, 64), (0, 8)],
        shared: "S[(32,8):(8,1)]",
        sshape: &[32, 8],
        sregion: &full(&[32, 8]),
        dtype: ElemType::U8,
    });
    assert_eq!(fields(&p), (vec![512], vec![], vec![256], vec![(vec![256], 0)]));
}

#[test]
fn promotion_comes_before_the_box_is_cut() {
    // 64x8 u8 = 512 contiguous bytes: merged as u8 the box would be 512 > 256 (box-dim), and a box cut to one row is
    // 8 bytes (inner-box-bytes). Promoted to u16 first, the merged run is 256 elements: one box of 512 bytes.
    let p = check(&Copy {
        global: "S[(64,8):(8,1)]",
        gshape: &[64, 8],
        gregion: &full(&[64, 8]),
        shared: "S[(64,8):(8,1)]",
        sshape: &[64, 8],
        sregion: &full(&[64, 8]),
        dtype: ElemType::U8,
    });
    assert_eq!(p.desc.data_type, TensorMapDataType::Uint16);
    assert_eq!(fields(&p), (vec![256], vec![], vec![256], vec![(vec![0], 0)]));
    assert_eq!(p.box_bytes, 512);
}

#[test]
fn merged_dimensions_fill_a_swizzle_row() {
    // u8 under the 128B swizzle (Swizzle(4,3,3): 16 bytes per chunk): logical (8, 8, 16) with the inner two
    // dimensions one 128-byte row. 16-byte rows alone are narrower than the span; merged, dimension 0 is 8*16 = 128
    // elements, box 128, and the 8 rows 8..16 of the outer dimension (stride 128 bytes) are the second box dimension.
    let p = check(&Copy {
        global: "S[(64,8,16):(128,16,1)]",
        gshape: &[64, 8, 16],
        gregion: &[(8, 16), (0, 8), (0, 16)],
        shared: "Swizzle(4,3,3) o S[(8,8,16):(128,16,1)]",
        sshape: &[8, 8, 16],
        sregion: &full(&[8, 8, 16]),
        dtype: ElemType::U8,
    });
    assert_eq!(p.desc.swizzle, SwizzleMode::B128);
    assert_eq!(fields(&p), (vec![128, 64], vec![128], vec![128, 8], vec![(vec![0, 8], 0)]));
}

#[test]
fn a_long_u8_run_is_promoted_to_fit_one_box() {
    // 768 contiguous bytes: as u8 at most 256 per box (3 issues), as u16 384 -> 2 boxes of 192, as u32 one box of
    // 192 elements = 768 bytes (a multiple of 16). u64 (96 elements) ties and the smaller promotion is kept.
    let p = check(&Copy {
        global: "S[1024:1]",
        gshape: &[1024],
        gregion: &[(256, 1024)],
        shared: "S[768:1]",
        sshape: &[768],
        sregion: &full(&[768]),
        dtype: ElemType::U8,
    });
    assert_eq!(p.desc.data_type, TensorMapDataType::Uint32);
    assert_eq!(fields(&p), (vec![256], vec![], vec![192], vec![(vec![64], 0)]));
}

// ---- 1b. A merged run wider than one box row is re-viewed as rows (issue 21, item 5) --------------------------------

#[test]
fn a_contiguous_run_of_8_byte_rows_wider_than_a_box_is_rows_of_256() {
    // f16 1024x4 row-major on both sides: rows of 4 f16 = 8 bytes, one contiguous run of 4096 elements (8 KiB).
    // Merged, dimension 0 would box 4096 > 256 elements (box-dim); cut into rows of 256 f16 (512 bytes, a multiple
    // of 16), the same run is 16 rows 512 bytes apart: one box of 256 x 16 = 8 KiB, dense in shared memory.
    // (UINT32 rows of 256 x 8 and UINT64 of 256 x 4 move the same 8 KiB per box: the natural type is kept.)
    let p = check(&Copy {
        global: "S[(1024,4):(4,1)]",
        gshape: &[1024, 4],
        gregion: &full(&[1024, 4]),
        shared: "S[(1024,4):(4,1)]",
        sshape: &[1024, 4],
        sregion: &full(&[1024, 4]),
        dtype: ElemType::F16,
    });
    assert_eq!(p.desc.data_type, TensorMapDataType::Float16);
    assert_eq!(fields(&p), (vec![256, 16], vec![512], vec![256, 16], vec![(vec![0, 0], 0)]));
    // Rows 512..1024 of a 2048x4 tensor: the merged dimension has 8192 elements, the region starts at element
    // 512 * 4 = 2048 = row 8 of 256, and holds 2048 elements = 8 rows.
    let p = check(&Copy {
        global: "S[(2048,4):(4,1)]",
        gshape: &[2048, 4],
        gregion: &[(512, 1024), (0, 4)],
        shared: "S[(512,4):(4,1)]",
        sshape: &[512, 4],
        sregion: &full(&[512, 4]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![256, 32], vec![512], vec![256, 8], vec![(vec![0, 8], 0)]));
}

#[test]
fn swizzled_8_byte_rows_are_re_viewed_as_span_rows() {
    // u8 64x8 under the 128B swizzle (Swizzle(4,3,3)): rows of 8 bytes, 512 contiguous bytes. Merged into one
    // dimension the box row would be 512 bytes, not the 128-byte span; as rows of 128 u8 it is 4 rows, 128 bytes
    // apart: box 128 x 4. The same 512 bytes land at the same (absolute, swizzled) shared addresses.
    let p = check(&Copy {
        global: "S[(64,8):(8,1)]",
        gshape: &[64, 8],
        gregion: &full(&[64, 8]),
        shared: "Swizzle(4,3,3) o S[(64,8):(8,1)]",
        sshape: &[64, 8],
        sregion: &full(&[64, 8]),
        dtype: ElemType::U8,
    });
    assert_eq!((p.desc.data_type, p.desc.swizzle), (TensorMapDataType::Uint8, SwizzleMode::B128));
    assert_eq!(fields(&p), (vec![128, 4], vec![128], vec![128, 4], vec![(vec![0, 0], 0)]));
    // f16 64x4 under Swizzle(3,3,3): 256 contiguous f16 = 512 bytes, rows of 64 f16 (128 bytes): box 64 x 4.
    let p = check(&Copy {
        global: "S[(64,4):(4,1)]",
        gshape: &[64, 4],
        gregion: &full(&[64, 4]),
        shared: "Swizzle(3,3,3) o S[(64,4):(4,1)]",
        sshape: &[64, 4],
        sregion: &full(&[64, 4]),
        dtype: ElemType::F16,
    });
    assert_eq!((p.desc.data_type, p.desc.swizzle), (TensorMapDataType::Float16, SwizzleMode::B128));
    assert_eq!(fields(&p), (vec![64, 4], vec![128], vec![64, 4], vec![(vec![0, 0], 0)]));
    // The 64B and 32B spans: f16 64x4 under Swizzle(3,2,3) is rows of 32 f16 (64 bytes), 8 of them; f32 32x2
    // under Swizzle(2,1,3) rows of 8 f32 (32 bytes), 8 of them.
    let p = check(&Copy {
        global: "S[(64,4):(4,1)]",
        gshape: &[64, 4],
        gregion: &full(&[64, 4]),
        shared: "Swizzle(3,2,3) o S[(64,4):(4,1)]",
        sshape: &[64, 4],
        sregion: &full(&[64, 4]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![32, 8], vec![64], vec![32, 8], vec![(vec![0, 0], 0)]));
    let p = check(&Copy {
        global: "S[(32,2):(2,1)]",
        gshape: &[32, 2],
        gregion: &full(&[32, 2]),
        shared: "Swizzle(2,1,3) o S[(32,2):(2,1)]",
        sshape: &[32, 2],
        sregion: &full(&[32, 2]),
        dtype: ElemType::F32,
    });
    assert_eq!(fields(&p), (vec![8, 8], vec![32], vec![8, 8], vec![(vec![0, 0], 0)]));
}

#[test]
fn a_swizzled_region_from_inside_the_tensor_starts_at_a_span_row() {
    // f16 512x4 under the 128B swizzle from rows 128..640 of a 1024x4 tensor: the merged dimension has 4096
    // elements, the region 2048 from element 512 = span row 8 (of 64 f16). Box 64 x 32 rows at most (256 would be
    // the box-dim limit, but the whole 32 rows fit): one box of 64 x 32 = 4 KiB at row coordinate 8.
    let p = check(&Copy {
        global: "S[(1024,4):(4,1)]",
        gshape: &[1024, 4],
        gregion: &[(128, 640), (0, 4)],
        shared: "Swizzle(3,3,3) o S[(512,4):(4,1)]",
        sshape: &[512, 4],
        sregion: &full(&[512, 4]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![64, 64], vec![128], vec![64, 32], vec![(vec![0, 8], 0)]));
}

#[test]
fn re_viewed_rows_start_where_the_region_starts() {
    // Rows 2..1002 of a f16 1024x4 tensor: the merged run is elements 8..4008 (4000 elements). Rows of 200 f16 (the
    // longest of at most 256 elements, whole 16-byte chunks, dividing 4000) from element 8: the descriptor's global
    // address moves by 8 f16 = 16 bytes (16-byte aligned), the tensor is (4096 - 8) / 200 = 20 whole rows of 400
    // bytes from there, and the region is rows 0..20: one box of 200 x 20 at [0, 0].
    let p = check(&Copy {
        global: "S[(1024,4):(4,1)]",
        gshape: &[1024, 4],
        gregion: &[(2, 1002), (0, 4)],
        shared: "S[(1000,4):(4,1)]",
        sshape: &[1000, 4],
        sregion: &full(&[1000, 4]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![200, 20], vec![400], vec![200, 20], vec![(vec![0, 0], 0)]));
    assert_eq!(p.global_offset_bytes, 16);
    // Swizzled: rows 4..36 of a u8 64x8 tensor under the 128B swizzle are bytes 32..288 of the run; span rows of 128
    // from byte 32 (the address moves by 32 bytes): (512 - 32) / 128 = 3 whole rows, the region rows 0..2.
    let p = check(&Copy {
        global: "S[(64,8):(8,1)]",
        gshape: &[64, 8],
        gregion: &[(4, 36), (0, 8)],
        shared: "Swizzle(4,3,3) o S[(32,8):(8,1)]",
        sshape: &[32, 8],
        sregion: &full(&[32, 8]),
        dtype: ElemType::U8,
    });
    assert_eq!(fields(&p), (vec![128, 3], vec![128], vec![128, 2], vec![(vec![0, 0], 0)]));
    assert_eq!(p.global_offset_bytes, 32);
    // A run starting 8 bytes into a row (rows 1..1000, element 4) cannot move the address there (not 16-byte
    // aligned): the 8-byte rows stay, refused by the inner-box rule.
    let e = refused(&Copy {
        global: "S[(1024,4):(4,1)]",
        gshape: &[1024, 4],
        gregion: &[(1, 1001), (0, 4)],
        shared: "S[(1000,4):(4,1)]",
        sshape: &[1000, 4],
        sregion: &full(&[1000, 4]),
        dtype: ElemType::F16,
    });
    assert!(matches!(e.failure, TmaFailure::Rule(TmaRule::InnerBoxBytes)), "{e}");
}

#[test]
fn a_run_time_row_offset_moves_whole_re_viewed_rows() {
    // Rows r..r+512 of a f16 1024x4 tensor, r a run-time multiple of 64: the merged run moves by 4r elements, a
    // multiple of 256 = one re-viewed row, so the row coordinate (dimension 1) grows by r / 64. A multiple of 16
    // would move it by 64 elements, a quarter row: no re-view, and the 8-byte rows are refused.
    let g = parse_layout("S[(1024,4):(4,1)]").unwrap();
    let s = parse_layout("S[(512,4):(4,1)]").unwrap();
    let c = Copy {
        global: "S[(1024,4):(4,1)]",
        gshape: &[1024, 4],
        gregion: &[(0, 512), (0, 4)],
        shared: "S[(512,4):(4,1)]",
        sshape: &[512, 4],
        sregion: &full(&[512, 4]),
        dtype: ElemType::F16,
    };
    let req = request(&c, &g, &s, Direction::G2S);
    let p = plan_dynamic(&req, &[DynamicOffset { dim: 0, multiple: 64 }]).unwrap();
    assert_eq!(fields(&p), (vec![256, 16], vec![512], vec![256, 8], vec![(vec![0, 0], 0)]));
    let terms: Vec<(usize, usize, i64, i64)> =
        p.dynamic.iter().map(|t| (t.offset, t.dim, t.divisor, t.scale)).collect();
    assert_eq!(terms, vec![(0, 1, 64, 1)]);
    let e = plan_dynamic(&req, &[DynamicOffset { dim: 0, multiple: 16 }]).unwrap_err();
    assert!(matches!(e.failure, TmaFailure::Rule(TmaRule::InnerBoxBytes)), "{e}");
}

// ---- 2. The stride-1 dimension may be any logical dimension ------------------------------------------------------

#[test]
fn column_major_f16_into_a_128b_swizzle() {
    // Column-major global (rows contiguous) and column-major shared: descriptor dimension 0 is the row dimension
    // (128 elements, stride 1), dimension 1 the columns (stride 128 elements = 256 bytes). The box is 64 rows (128
    // bytes = the span) by 32 columns; the region starts at row 0, column 32: coordinates [0, 32] (memory order).
    let p = check(&Copy {
        global: "S[(128,128):(1,128)]",
        gshape: &[128, 128],
        gregion: &[(0, 64), (32, 64)],
        shared: "Swizzle(3,3,3) o S[(64,32):(1,64)]",
        sshape: &[64, 32],
        sregion: &full(&[64, 32]),
        dtype: ElemType::F16,
    });
    assert_eq!(p.desc.swizzle, SwizzleMode::B128);
    assert_eq!(fields(&p), (vec![128, 128], vec![256], vec![64, 32], vec![(vec![0, 32], 0)]));
}

#[test]
fn column_major_unswizzled_with_an_issue_per_column_panel() {
    // Column-major 64x64 f16 copied into shared 64x64 stored as two column panels of 32 columns each, 4096 bytes
    // apart with 1024 bytes of padding: shared S[(64,2,32):(1,2560,64)] (column j = 32p + q at 2560p + 64q). The
    // box is 64 rows x 32 columns (descriptor order), two issues at columns 0 and 32, shared bytes 0 and 5120.
    let p = check(&Copy {
        global: "S[(64,64):(1,64)]",
        gshape: &[64, 64],
        gregion: &full(&[64, 64]),
        shared: "S[(64,2,32):(1,2560,64)]",
        sshape: &[64, 64],
        sregion: &full(&[64, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![64, 64], vec![128], vec![64, 32], vec![(vec![0, 0], 0), (vec![0, 32], 5120)]));
}

#[test]
fn permuted_three_dimensional_layouts() {
    // Logical (4, 8, 64) with strides (64, 256, 1) on both sides: memory order is dim 2 (stride 1), dim 0 (stride
    // 64), dim 1 (stride 256). The descriptor follows memory order: global dims [64, 4, 8], byte strides [128, 512],
    // box [64, 4, 8]; the box row is 64 f16 = 128 bytes, the 128B span.
    let p = check(&Copy {
        global: "S[(4,8,64):(64,256,1)]",
        gshape: &[4, 8, 64],
        gregion: &full(&[4, 8, 64]),
        shared: "Swizzle(3,3,3) o S[(4,8,64):(64,256,1)]",
        sshape: &[4, 8, 64],
        sregion: &full(&[4, 8, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![64, 4, 8], vec![128, 512], vec![64, 4, 8], vec![(vec![0, 0, 0], 0)]));
}

#[test]
fn partial_swizzle_periods_are_whole_rows() {
    // 4 rows of the 128B swizzle (half a 1024-byte period) at a 1024-aligned base: the hardware swizzles absolute
    // addresses row by row, so the box [64, 4] writes what Swizzle(3,3,3) o S[(4,64):(64,1)] says.
    let p = check(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(12, 16), (64, 128)],
        shared: "Swizzle(3,3,3) o S[(4,64):(64,1)]",
        sshape: &[4, 64],
        sregion: &full(&[4, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![256, 256], vec![512], vec![64, 4], vec![(vec![64, 12], 0)]));
    // Rows 4..8 of an 8-row tile: the second half of the period, 512 bytes on.
    let p = check(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 4), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(8,64):(64,1)]",
        sshape: &[8, 64],
        sregion: &[(4, 8), (0, 64)],
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![256, 256], vec![512], vec![64, 4], vec![(vec![0, 0], 512)]));
}

#[test]
fn swizzled_rows_narrower_than_the_span_are_padded_by_the_hardware() {
    // 32 f16 (64 bytes) per row at a pitch of 64 elements (128 bytes, the 128B span): the hardware pads each box
    // row of 64 bytes to the span, so one box [32, 8] writes rows at 128-byte steps, as the layout says.
    let p = check(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 8), (32, 64)],
        shared: "Swizzle(3,3,3) o S[(8,32):(64,1)]",
        sshape: &[8, 32],
        sregion: &full(&[8, 32]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![256, 256], vec![512], vec![32, 8], vec![(vec![32, 0], 0)]));
    // 64B swizzle, f32 rows of 8 (32 bytes) at a pitch of 16 (64 bytes), 16 rows from row 40: box [8, 16].
    let p = check(&Copy {
        global: "S[(64,64):(64,1)]",
        gshape: &[64, 64],
        gregion: &[(40, 56), (8, 16)],
        shared: "Swizzle(2,2,3) o S[(16,8):(16,1)]",
        sshape: &[16, 8],
        sregion: &full(&[16, 8]),
        dtype: ElemType::F32,
    });
    assert_eq!(fields(&p), (vec![64, 64], vec![256], vec![8, 16], vec![(vec![8, 40], 0)]));
    // The right halves of the rows (columns 32..64 of an 8x64 tile) start 64 bytes into a row: a TMA destination
    // must be 128-byte aligned.
    let e = refused(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 8), (0, 32)],
        shared: "Swizzle(3,3,3) o S[(8,64):(64,1)]",
        sshape: &[8, 64],
        sregion: &[(0, 8), (32, 64)],
        dtype: ElemType::F16,
    });
    assert_eq!(e.failure, TmaFailure::Rule(TmaRule::SmemAlignment), "{e}");
}

// ---- 3. Coordinate-only dimensions --------------------------------------------------------------------------------

#[test]
fn a_batch_index_is_a_coordinate_only_dimension() {
    // Batch 2 of a (4, 128, 64) f16 tensor into a rank-2 shared tile: the batch dimension stays (global dim 4,
    // stride 128*64*2 = 16384 bytes) with box 1 and coordinate 2.
    let p = check(&Copy {
        global: "S[(4,128,64):(8192,64,1)]",
        gshape: &[4, 128, 64],
        gregion: &[(2, 3), (0, 128), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(128,64):(64,1)]",
        sshape: &[128, 64],
        sregion: &full(&[128, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![64, 128, 4], vec![128, 16384], vec![64, 128, 1], vec![(vec![0, 0, 2], 0)]));
}

#[test]
fn one_row_of_a_matrix_is_a_coordinate_only_dimension() {
    // Row 5 of a 256x256 f16 matrix into a 1-D shared row: dimension 1 (rows, 512 bytes) has box 1, coordinate 5.
    let p = check(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(5, 6), (0, 64)],
        shared: "S[64:1]",
        sshape: &[64],
        sregion: &full(&[64]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![256, 256], vec![512], vec![64, 1], vec![(vec![0, 5], 0)]));
}

#[test]
fn six_dimensions_with_coordinate_only_ones_fit_rank_five() {
    // A padded 6-D tensor (2,2,2,2,8,64), row pitch 128 elements, fixed at [1,0,1,1,:,:]: boxed dims 64 (stride 1)
    // and 8 (256 bytes), then four coordinate-only dims by stride: 2048, 4096, 8192, 16384 elements. Rank 6 > 5:
    // the first adjacent pair that merges legally is the boxed 8-row dimension (full, from 0) with the 2048 one
    // (8 * 128 = 1024 != 2048: no), then the coordinate-only pair 2048/4096 (2 * 2048 = 4096: yes): global dim 4,
    // coordinate 1 + 2*1 = 3 (index [.., 1, 1, ..] of strides 2048 and 4096).
    let p = check(&Copy {
        global: "S[(2,2,2,2,8,64):(16384,8192,4096,2048,128,1)]",
        gshape: &[2, 2, 2, 2, 8, 64],
        gregion: &[(1, 2), (0, 1), (1, 2), (1, 2), (0, 8), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(8,64):(64,1)]",
        sshape: &[8, 64],
        sregion: &full(&[8, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(
        fields(&p),
        (vec![64, 8, 4, 2, 2], vec![256, 4096, 16384, 32768], vec![64, 8, 1, 1, 1], vec![(vec![0, 0, 3, 0, 1], 0)])
    );
}

#[test]
fn seven_unmergeable_dimensions_break_the_rank_rule() {
    // Seven dimensions, padded: of the adjacent pairs (by stride 1, 128, 1024, 4096, 16384, 65536, 262144 elements)
    // only the full 8-row dimension continues into the next (8 * 128 = 1024); every coordinate-only pair has a gap
    // (2 * 1024 = 2048 != 4096, ...). 7 - 1 = 6 dimensions remain, and tensorRank is at most 5.
    let e = refused(&Copy {
        global: "S[(2,2,2,2,2,8,64):(262144,65536,16384,4096,1024,128,1)]",
        gshape: &[2, 2, 2, 2, 2, 8, 64],
        gregion: &[(0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (0, 8), (0, 64)],
        shared: "S[(8,64):(64,1)]",
        sshape: &[8, 64],
        sregion: &full(&[8, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(e.failure, TmaFailure::Rule(TmaRule::Rank), "{e}");
    assert!(e.to_string().contains("tensor rank is 6"), "{e}");
}

// ---- 4. Interleaved (blocked) global layouts -----------------------------------------------------------------------

#[test]
fn a_block_major_global_groups_into_one_dimension_per_iter() {
    // A 64x64 f16 matrix stored in 8x8 blocks, blocks row-major: S[(8,8,8,8):(512,8,64,1)] over (64, 64) (row
    // 8R + r, column 8C + c at 512R + 8r + 64C + c). Rows 16..32 (blocks R = 2, 3), every column, into a row-major
    // 16x64 shared tile. Each iter is its own descriptor dimension, ordered as the shared box chain: c (stride 1,
    // box 8 = 16 bytes), C (64 el = 128 bytes, box 8), r (8 el = 16 bytes, box 8), R (512 el = 1024 bytes, box 2 from
    // block 2).
    let p = check(&Copy {
        global: "S[(8,8,8,8):(512,8,64,1)]",
        gshape: &[64, 64],
        gregion: &[(16, 32), (0, 64)],
        shared: "S[(16,64):(64,1)]",
        sshape: &[16, 64],
        sregion: &full(&[16, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![8, 8, 8, 8], vec![128, 16, 1024], vec![8, 8, 8, 2], vec![(vec![0, 0, 0, 2], 0)]));
}

#[test]
fn a_blocked_global_into_a_swizzled_tile_by_column_blocks() {
    // The same blocked matrix, rows 0..64 and columns 8..24 (blocks C = 1, 2) into a 64x16 tile: 16 f16 = 32 bytes
    // per row under the 32B swizzle (Swizzle(3,1,3)). The shared chain c (1), C (8), r (16), R (128): box [8, 2, 8,
    // 8]; its rows are only 16 bytes, narrower than the 32-byte span, and dense in shared memory (not at the span's
    // pitch, which the hardware's row padding would need), and c and C cannot merge (C's global stride 64 is not c's
    // extent 8). Boxes of one 16-byte row each would land 16 bytes apart: the 128-byte destination alignment
    // refuses the last candidate.
    let e = refused(&Copy {
        global: "S[(8,8,8,8):(512,8,64,1)]",
        gshape: &[64, 64],
        gregion: &[(0, 64), (8, 24)],
        shared: "Swizzle(3,1,3) o S[(64,16):(16,1)]",
        sshape: &[64, 16],
        sregion: &full(&[64, 16]),
        dtype: ElemType::F16,
    });
    assert_eq!(e.failure, TmaFailure::Rule(TmaRule::SmemAlignment), "{e}");
    // Unswizzled, the 16-byte rows are legal: the same box, coordinates from block 1.
    let p = check(&Copy {
        global: "S[(8,8,8,8):(512,8,64,1)]",
        gshape: &[64, 64],
        gregion: &[(0, 64), (8, 24)],
        shared: "S[(64,16):(16,1)]",
        sshape: &[64, 16],
        sregion: &full(&[64, 16]),
        dtype: ElemType::F16,
    });
    assert_eq!(fields(&p), (vec![8, 8, 8, 8], vec![128, 16, 1024], vec![8, 2, 8, 8], vec![(vec![0, 1, 0, 0], 0)]));
}

#[test]
fn a_region_straddling_a_panel_boundary_is_one_box_per_chunk() {
    // Rows 32..96 of a (2, 64, 64) panel layout over (128, 64): the row digit (64 rows, stride 64) starts at 32 with
    // 64 rows to cover, crossing into panel 1. Chunks of gcd(32, 64, 64) = 32 rows, each inside one panel: box
    // [64, 32, 1]; chunk 0 at (row digit 32, panel 0), chunk 1 at position 32 + 32 = 64 = (row 0, panel 1), shared
    // 32 rows * 128 bytes = 4096 bytes on.
    let p = check(&Copy {
        global: "S[(2,64,64):(8192,64,1)]",
        gshape: &[128, 64],
        gregion: &[(32, 96), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(64,64):(64,1)]",
        sshape: &[64, 64],
        sregion: &full(&[64, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(
        fields(&p),
        (vec![64, 64, 2], vec![128, 16384], vec![64, 32, 1], vec![(vec![0, 32, 0], 0), (vec![0, 0, 1], 4096)])
    );
    // Rows 32..160 of four panels: chunks at 32, 64, 96, 128 = (32, 0), (0, 1), (32, 1), (0, 2).
    let p = check(&Copy {
        global: "S[(4,64,64):(8192,64,1)]",
        gshape: &[256, 64],
        gregion: &[(32, 160), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(128,64):(64,1)]",
        sshape: &[128, 64],
        sregion: &full(&[128, 64]),
        dtype: ElemType::F16,
    });
    let coords: Vec<Vec<i64>> = p.issues.iter().map(|i| i.coordinates.clone()).collect();
    assert_eq!(coords, vec![vec![0, 32, 0], vec![0, 0, 1], vec![0, 32, 1], vec![0, 0, 2]]);
    // Rows 16..80: chunks of gcd(16, 64, 64) = 16 rows (a single descriptor has one box shape).
    let p = check(&Copy {
        global: "S[(2,64,64):(8192,64,1)]",
        gshape: &[128, 64],
        gregion: &[(16, 80), (0, 64)],
        shared: "Swizzle(3,3,3) o S[(64,64):(64,1)]",
        sshape: &[64, 64],
        sregion: &full(&[64, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(p.desc.box_dims, vec![64, 16, 1]);
    assert_eq!(p.issues.len(), 4);
}

#[test]
fn a_region_straddling_column_panels() {
    // Columns 32..96 of an f32 matrix stored in 64-column panels, S[(64,2,64):(64,4096,1)] over (64, 128): the
    // pivot is the contiguous digit. Chunks of 32 columns (128 bytes); in the row-major shared tile the chunk index
    // has shared stride 32, between the chunk's columns (stride 1) and the rows (64), so the box is one 32-column
    // row piece and the issue loop walks 64 rows x 2 chunks: 128 issues, the first at column 32 of panel 0, the
    // second (chunk 1 of row 0) at column 0 of panel 1, shared byte 32 * 4 = 128, the third row 1 at 256.
    let p = check(&Copy {
        global: "S[(64,2,64):(64,4096,1)]",
        gshape: &[64, 128],
        gregion: &[(0, 64), (32, 96)],
        shared: "S[(64,64):(64,1)]",
        sshape: &[64, 64],
        sregion: &full(&[64, 64]),
        dtype: ElemType::F32,
    });
    assert_eq!(p.desc.box_dims.iter().product::<u32>(), 32);
    assert_eq!(p.issues.len(), 128);
    assert_eq!((p.issues[1].smem_offset_bytes, p.issues[2].smem_offset_bytes), (128, 256));
    // In f16 the chunks are 64 bytes: the second lands at shared byte 64, off the 128-byte TMA destination alignment.
    let e = refused(&Copy {
        global: "S[(64,2,64):(64,4096,1)]",
        gshape: &[64, 128],
        gregion: &[(0, 64), (32, 96)],
        shared: "S[(64,64):(64,1)]",
        sshape: &[64, 64],
        sregion: &full(&[64, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(e.failure, TmaFailure::Rule(TmaRule::SmemAlignment), "{e}");
}

// ---- Refusals that remain -----------------------------------------------------------------------------------------

#[test]
fn a_transpose_is_refused_by_the_inner_stride_rule() {
    // Row-major global into column-major shared: the shared stride-1 dimension (rows) has global stride 64. A box
    // is written densely in its dimension-0 order, and dimension 0 of a tensor map is contiguous in global memory,
    // so no descriptor transposes.
    let e = refused(&Copy {
        global: "S[(64,64):(64,1)]",
        gshape: &[64, 64],
        gregion: &full(&[64, 64]),
        shared: "S[(64,64):(1,64)]",
        sshape: &[64, 64],
        sregion: &full(&[64, 64]),
        dtype: ElemType::F16,
    });
    assert_eq!(e.failure, TmaFailure::Rule(TmaRule::InnerStride), "{e}");
}

#[test]
fn rows_of_8_bytes_with_gaps_are_refused_by_the_inner_box_rule() {
    // 4 f16 (8 bytes) of each row of a 256-wide matrix: the contiguous global run is 8 bytes and the next row is 512
    // bytes on, so no merge applies and boxDim[0] * 2 = 8 is not a multiple of 16 (no promotion changes the bytes).
    let e = refused(&Copy {
        global: "S[(256,256):(256,1)]",
        gshape: &[256, 256],
        gregion: &[(0, 64), (0, 4)],
        shared: "S[(64,4):(4,1)]",
        sshape: &[64, 4],
        sregion: &full(&[64, 4]),
        dtype: ElemType::F16,
    });
    assert_eq!(e.failure, TmaFailure::Rule(TmaRule::InnerBoxBytes), "{e}");
}
