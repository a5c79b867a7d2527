//! FP8 tensor cores on the simulator (issue 27's first proof): a warpgroup's `wgmma.mma_async ... k32` on e4m3 and
//! e5m2 operands, loaded by TMA into 32-byte-swizzled shared memory, K-major, the f32 accumulator stored to global
//! memory. The operands are random codes whose products and sums are exact in f32, decoded here by a transcription
//! of the OCP formats written apart from the simulator's, and every element of C is compared with A * B.

use axe_sim::fp8::Fp8;
use axe_sim::{lower, run_with, Arg, Buffer, Launch, Scalar, Schedule};

/// A[64, 32] (K-major), B stored as B^T [16, 32] (K-major: what 8-bit wgmma takes), C[64, 16] f32 = A * B.
const KERNEL: &str = r#"
!ga = !axe.tensor<64x32xf8E4M3FN, global, S[(64,32):(32,1)]>
!gb = !axe.tensor<32x16xf8E4M3FN, global, S[(32,16):(1,32)]>
!gc = !axe.tensor<64x16xf32, global, S[(64,16):(16,1)]>
!sa = !axe.tensor<64x32xf8E4M3FN, shared, Swizzle(4,1,3) o S[(64,32):(32,1)]>
!sb = !axe.tensor<32x16xf8E4M3FN, shared, Swizzle(4,1,3) o S[(32,16):(1,32)]>
!acc = !axe.tensor<64x16xf32, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {axe.target = "sm_90a"} {
    gpu.func @fp8(%a: memref<64x32xf8E4M3FN>, %b: memref<16x32xf8E4M3FN>, %c: memref<64x16xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %zero = arith.constant 0.0 : f32
      %ga = axe.view %a : memref<64x32xf8E4M3FN> -> !ga
      %gb = axe.view %b : memref<16x32xf8E4M3FN> -> !gb
      %gc = axe.view %c : memref<64x16xf32> -> !gc
      %sa = axe.alloc cta : !sa
      %sb = axe.alloc cta : !sb
      %acc = axe.alloc cta : !acc
      axe.copy cta %ga to %sa : !ga to !sa
      axe.copy cta %gb to %sb : !gb to !sb
      axe.fill cta %acc, %zero : !acc, f32
      axe.gemm cta %sa, %sb, %acc : !sa, !sb, !acc
      axe.copy cta %acc to %gc : !acc to !gc
      gpu.return
    }
  }
}
"#;

/// The value of an 8-bit code: sign, exponent field `e` (width `e_bits`, bias `bias`), mantissa field `m` (width
/// `m_bits`): `2^(e - bias) * (1 + m / 2^m_bits)`, or `2^(1 - bias) * m / 2^m_bits` when `e = 0`. Only the finite
/// codes the tests draw are decoded here.
fn reference(code: u8, e_bits: u32, m_bits: u32, bias: i32) -> f64 {
    let e = ((code >> m_bits) & ((1 << e_bits) - 1)) as i32;
    let m = f64::from(code & ((1 << m_bits) - 1));
    let magnitude = if e == 0 {
        m / f64::from(1 << m_bits) * 2f64.powi(1 - bias)
    } else {
        (1.0 + m / f64::from(1 << m_bits)) * 2f64.powi(e - bias)
    };
    if code & 0x80 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// Codes of either sign whose exponent field lies within 3 of the bias (magnitudes in [2^-3, 2^4)): a product has at
/// most 8 significant bits between 2^-6 and 2^8, so 32 of them sum exactly in f32.
fn codes(e_bits: u32, m_bits: u32, bias: i32, count: usize, seed: u64) -> Vec<u8> {
    let allowed: Vec<u8> =
        (0..=255u8).filter(|c| (((c >> m_bits) & ((1 << e_bits) - 1)) as i32 - bias).abs() <= 3).collect();
    let mut state = seed;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            allowed[(state % allowed.len() as u64) as usize]
        })
        .collect()
}

/// Runs the kernel declaring `mlir_type` on codes drawn for `fields` under every schedule; every C element against
/// A * B decoded with `fields`: the first mismatch, if any.
fn run(mlir_type: &str, format: Fp8, fields: (u32, u32, i32)) -> Result<(), String> {
    let (e_bits, m_bits, bias) = fields;
    let text = KERNEL.replace("f8E4M3FN", mlir_type);
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, &text, "fp8.mlir").expect("lowers");
    let a = codes(e_bits, m_bits, bias, 64 * 32, 7);
    let bt = codes(e_bits, m_bits, bias, 16 * 32, 11);
    let value = |c: u8| reference(c, e_bits, m_bits, bias);
    for schedule in Schedule::all() {
        let args = vec![
            Arg::Buffer(Buffer { elem: Scalar::F8(format), bytes: a.clone() }),
            Arg::Buffer(Buffer { elem: Scalar::F8(format), bytes: bt.clone() }),
            Arg::Buffer(Buffer::from_f64(Scalar::F32, &[-1000.0; 64 * 16])),
        ];
        let launch = Launch { kernel: "fp8".into(), block_id: [0; 3], grid: [1, 1, 1], args };
        let done = run_with(&module, &launch, &schedule).map_err(|e| format!("{schedule:?}: {e}"))?;
        let c = done.buffers[2].as_ref().expect("C").to_f64();
        for r in 0..64 {
            for n in 0..16 {
                let want: f64 = (0..32).map(|k| value(a[r * 32 + k]) * value(bt[n * 32 + k])).sum();
                if c[r * 16 + n] != want {
                    return Err(format!("{schedule:?}: C[{r}][{n}] = {}, expected {want}", c[r * 16 + n]));
                }
            }
        }
    }
    Ok(())
}

const E4M3: (u32, u32, i32) = (4, 3, 7);
const E5M2: (u32, u32, i32) = (5, 2, 15);

#[test]
fn e4m3_wgmma_is_exact() {
    run("f8E4M3FN", Fp8::E4M3, E4M3).unwrap();
}

#[test]
fn e5m2_wgmma_is_exact() {
    run("f8E5M2", Fp8::E5M2, E5M2).unwrap();
}

#[test]
fn codes_of_one_format_read_as_the_other_are_caught() {
    // The kernel says e4m3 (so wgmma decodes e4m3) but the bytes are e5m2 codes, and the other way round: the
    // products differ from the reference's.
    assert!(run("f8E4M3FN", Fp8::E5M2, E5M2).is_err());
    assert!(run("f8E5M2", Fp8::E4M3, E4M3).is_err());
}

/// Codes of e4m3 values in {0, +-0.5, +-1, +-1.5, +-2, +-3}, a hash of `(i, salt)`.
fn operand_codes(count: usize, salt: u64) -> Vec<u8> {
    const CODES: [u8; 11] = [0x00, 0x30, 0xb0, 0x38, 0xb8, 0x3c, 0xbc, 0x40, 0xc0, 0x44, 0xc4];
    (0..count as u64)
        .map(|i| {
            let mut h = (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
            h ^= h >> 29;
            CODES[(h % CODES.len() as u64) as usize]
        })
        .collect()
}

/// examples/gemm_fp8_sm90a.mlir (or a mutant) on every CTA of its grid under every schedule: C[M,N] bf16 against
/// `scale_a * scale_b * A * B`, the sum exact in f64 and rounded to bf16 (nearest even) here.
fn fp8_gemm(text: &str, m: usize, n: usize, k: usize) -> Result<(), String> {
    scaled_fp8_gemm(text, "gemm_fp8_sm90a", m, n, k)
}

/// [`fp8_gemm`] for the per-tensor-scaled kernel `kernel` (gemm_fp8_sm90a or gemm_fp8_sm100a: one signature).
fn scaled_fp8_gemm(text: &str, kernel: &str, m: usize, n: usize, k: usize) -> Result<(), String> {
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, text, &format!("{kernel}.mlir")).map_err(|e| format!("lowering: {e}"))?;
    let (a, bt) = (operand_codes(m * k, 3), operand_codes(n * k, 5));
    let value = |c: u8| reference(c, E4M3.0, E4M3.1, E4M3.2);
    let (scale_a, scale_b) = (0.5, 4.0);
    let grid = [n.div_ceil(128) as i64, m.div_ceil(128) as i64, 1];
    for schedule in Schedule::all() {
        let mut c = Buffer::from_f64(Scalar::BF16, &vec![-1000.0; m * n]);
        for by in 0..grid[1] {
            for bx in 0..grid[0] {
                let args = vec![
                    Arg::Buffer(Buffer { elem: Scalar::F8(Fp8::E4M3), bytes: a.clone() }),
                    Arg::Buffer(Buffer { elem: Scalar::F8(Fp8::E4M3), bytes: bt.clone() }),
                    Arg::Buffer(c.clone()),
                    Arg::Int(m as i64),
                    Arg::Int(n as i64),
                    Arg::Int(k as i64),
                    Arg::Float(scale_a),
                    Arg::Float(scale_b),
                ];
                let launch = Launch { kernel: kernel.into(), block_id: [bx, by, 0], grid, args };
                let done = run_with(&module, &launch, &schedule).map_err(|e| format!("{schedule:?}: {e}"))?;
                c = done.buffers[2].clone().expect("C");
            }
        }
        let got = c.to_f64();
        for r in 0..m {
            for col in 0..n {
                let sum: f64 = (0..k).map(|kk| value(a[r * k + kk]) * value(bt[col * k + kk])).sum();
                let want = half::bf16::from_f64(scale_a * scale_b * sum).to_f64();
                if got[r * n + col] != want {
                    return Err(format!("{schedule:?}: C[{r}][{col}] = {}, expected {want}", got[r * n + col]));
                }
            }
        }
    }
    Ok(())
}

/// The example's text.
fn example() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/gemm_fp8_sm90a.mlir");
    std::fs::read_to_string(path).expect("examples/gemm_fp8_sm90a.mlir")
}

#[test]
fn the_scaled_fp8_gemm_is_exact_over_ragged_tiles() {
    // 2 x 2 CTAs (the second row and column of tiles 16 wide), K = 400: four K tiles (the last 16 wide), so stage
    // 0 is refilled and its parity flips.
    fp8_gemm(&example(), 144, 144, 400).unwrap();
}

#[test]
fn a_scale_left_out_is_caught() {
    let text = example().replacen(
        "%scale = arith.mulf %scale_a, %scale_b : f32",
        "%scale = arith.addf %scale_a, %zero : f32",
        1,
    );
    assert_ne!(text, example());
    assert!(fp8_gemm(&text, 128, 128, 128).is_err());
}

#[test]
fn b_without_its_transposing_view_is_refused() {
    // The gemm given the Bt stage as B[k, n] with n contiguous (the view's layout replaced by the stage's own):
    // 8-bit wgmma has no transpose, and the planner says so at the gemm.
    let text = example().replacen(
        "!ringB = !axe.tensor<128x384xf8E4M3FN, shared, Swizzle(4,3,3) o S[(128,384):(1,128)]>",
        "!ringB = !axe.tensor<128x384xf8E4M3FN, shared, Swizzle(4,3,3) o S[(128,3,128):(128,16384,1)]>",
        1,
    );
    assert_ne!(text, example());
    let context = axe_dialect::create_context().expect("context");
    let Err(error) = lower(&context, &text, "mutant.mlir") else { panic!("the planner accepted an MN-major 8-bit B") };
    assert!(error.contains("wgmma reads 8-bit operands K-major only"), "{error}");
}

#[test]
fn b_read_from_the_wrong_stage_is_caught() {
    // Every K tile's B read from stage 0: from the second K tile on, A meets another tile's B.
    let stage0 = "%stage0 = arith.subi %row, %row : index\n        %sb = axe.slice %ring_b[0, %stage0]";
    let text = example().replacen("%sb = axe.slice %ring_b[0, %row]", stage0, 1);
    assert_ne!(text, example());
    assert!(fp8_gemm(&text, 128, 128, 256).is_err());
}

/// A power of two in 2^-2..=2^2 for block scales, a hash of `(i, salt)`: products with the operand values stay
/// exact, and a scale read for the wrong row or block changes the result.
fn block_scale(i: usize, salt: u64) -> f64 {
    let mut h = (i as u64 + 7).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt.wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^= h >> 31;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    2f64.powi((h >> 7) as i32 % 5 - 2)
}

/// examples/gemm_fp8_blockscaled_sm90a.mlir (or a mutant) on `ctas` persistent CTAs under every schedule: C[M,N]
/// bf16 against `sum over K blocks kb of SFA[kb, i] * SFB[j / 128, kb] * (A[i, kb] . Bt[j, kb])`, computed here
/// from the decoded codes (every product, block sum and scaled sum exact in f64 and in f32), rounded to bf16.
fn blockscaled_gemm(text: &str, m: usize, n: usize, k: usize, ctas: i64) -> Result<(), String> {
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, text, "gemm_fp8_blockscaled_sm90a.mlir").map_err(|e| format!("lowering: {e}"))?;
    let (a, bt) = (operand_codes(m * k, 3), operand_codes(n * k, 5));
    let (kblocks, nblocks) = (k.div_ceil(128), n.div_ceil(128));
    let sfa: Vec<f64> = (0..kblocks * m).map(|i| block_scale(i, 1)).collect();
    let sfb: Vec<f64> = (0..nblocks * kblocks).map(|i| block_scale(i, 2)).collect();
    let value = |c: u8| reference(c, E4M3.0, E4M3.1, E4M3.2);
    let mut want = vec![0.0; m * n];
    for (r, row) in want.chunks_mut(n).enumerate() {
        for (col, out) in row.iter_mut().enumerate() {
            let mut sum = 0.0;
            for kb in 0..kblocks {
                let block: f64 =
                    (kb * 128..k.min(kb * 128 + 128)).map(|kk| value(a[r * k + kk]) * value(bt[col * k + kk])).sum();
                sum += sfa[kb * m + r] * sfb[(col / 128) * kblocks + kb] * block;
            }
            *out = half::bf16::from_f64(sum).to_f64();
        }
    }
    for schedule in Schedule::all() {
        let mut c = Buffer::from_f64(Scalar::BF16, &vec![-1000.0; m * n]);
        for bx in 0..ctas {
            let args = vec![
                Arg::Buffer(Buffer { elem: Scalar::F8(Fp8::E4M3), bytes: a.clone() }),
                Arg::Buffer(Buffer { elem: Scalar::F8(Fp8::E4M3), bytes: bt.clone() }),
                Arg::Buffer(Buffer::from_f64(Scalar::F32, &sfa)),
                Arg::Buffer(Buffer::from_f64(Scalar::F32, &sfb)),
                Arg::Buffer(c.clone()),
                Arg::Int(m as i64),
                Arg::Int(n as i64),
                Arg::Int(k as i64),
            ];
            let kernel = "gemm_fp8_blockscaled_sm90a".into();
            let launch = Launch { kernel, block_id: [bx, 0, 0], grid: [ctas, 1, 1], args };
            let done = run_with(&module, &launch, &schedule).map_err(|e| format!("{schedule:?}: {e}"))?;
            c = done.buffers[4].clone().expect("C");
        }
        let got = c.to_f64();
        if let Some(i) = (0..m * n).find(|&i| got[i] != want[i]) {
            return Err(format!("{schedule:?}: C[{}][{}] = {}, expected {}", i / n, i % n, got[i], want[i]));
        }
    }
    Ok(())
}

/// The block-scaled example's text.
fn blockscaled() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/gemm_fp8_blockscaled_sm90a.mlir");
    std::fs::read_to_string(path).expect("examples/gemm_fp8_blockscaled_sm90a.mlir")
}

/// A mutant's run: it must finish and be wrong in C (not deadlock or fail to lower).
fn assert_wrong_values(result: Result<(), String>) {
    let error = result.expect_err("the mutant computes the right C");
    assert!(error.contains(", expected "), "not a wrong value: {error}");
}

/// `blockscaled()` with `from` replaced by `to` once (which must change it).
fn blockscaled_mutant(from: &str, to: &str) -> String {
    let text = blockscaled().replacen(from, to, 1);
    assert_ne!(text, blockscaled(), "the mutant changes nothing: {from}");
    text
}

#[test]
fn the_block_scaled_fp8_gemm_is_exact_over_ragged_tiles_and_persistent_ctas() {
    // 2 x 2 tiles (the second row and column 16 wide) on 2 CTAs, two tiles each; K = 400: four K blocks, the last
    // 16 wide, so the 4-stage ring's stages and parities run on into each CTA's second tile.
    blockscaled_gemm(&blockscaled(), 144, 144, 400, 2).unwrap();
}

#[test]
fn five_k_blocks_wrap_the_ring() {
    // One tile, K = 640: stage 0 holds K blocks 0 and 4 (both sides' parities flip).
    blockscaled_gemm(&blockscaled(), 128, 128, 640, 1).unwrap();
}

#[test]
fn a_b_scale_of_the_wrong_k_block_is_caught() {
    // Every K block scaled by SFB of block 0 (n block 0 in a one-tile N).
    let text = blockscaled_mutant("%sfb_t = axe.slice %gsfb[%nb, %kt_index]", "%sfb_t = axe.slice %gsfb[%nb, %nb]");
    assert_wrong_values(blockscaled_gemm(&text, 128, 128, 256, 1));
}

#[test]
fn row_scales_read_from_the_wrong_stage_are_caught() {
    let text = blockscaled_mutant(
        "%ssfa = axe.slice %ring_sfa_t[0, %cur_index] [128, 1]",
        "%ssfa = axe.slice %ring_sfa_t[0, %nb] [128, 1]",
    );
    assert_wrong_values(blockscaled_gemm(&text, 128, 128, 256, 1));
}

#[test]
fn row_scales_through_a_view_that_mislabels_their_bytes_are_caught() {
    // The column view of the scale ring with the two strides swapped: row m of stage s read at 4m + s, not
    // m + 128s, so across the other stages' scales, which may still be in flight.
    let text = blockscaled_mutant(
        "!ringSFAt = !axe.tensor<128x4xf32, shared, S[(128,4):(1,128)]>",
        "!ringSFAt = !axe.tensor<128x4xf32, shared, S[(128,4):(4,1)]>",
    );
    let error = blockscaled_gemm(&text, 128, 128, 256, 1).expect_err("the mutant computes the right C");
    assert!(error.contains(", expected ") || error.contains("that a pending TMA load"), "{error}");
}

#[test]
fn a_promotion_without_the_scales_is_caught() {
    let text = blockscaled_mutant(
        "axe.fma cta %part, %scales, %acc to %acc : !acc, !rows, !acc to !acc",
        "axe.add cta %part, %acc to %acc : !acc, !acc to !acc",
    );
    assert_wrong_values(blockscaled_gemm(&text, 128, 128, 256, 1));
}

#[test]
fn a_partial_accumulator_not_cleared_per_k_block_is_caught() {
    // Without the fill each block's partial carries the earlier blocks' products, scaled again.
    let text = blockscaled_mutant("              axe.fill cta %part, %zero : !acc, f32\n", "");
    assert_wrong_values(blockscaled_gemm(&text, 128, 128, 256, 1));
}

#[test]
fn row_scales_not_held_by_the_threads_that_need_them_are_refused() {
    // The scale column without its replicas over the four lanes of a row: lanes 1-3 of each quad hold
    // accumulator elements whose scale they do not have.
    let text = blockscaled_mutant(
        "!rows = !axe.tensor<128x1xf32, reg, S[(2,4,2,8,1):(1@wgid,1@wid_in_wg,1,4@laneid,1)] + R[4:1@laneid]>",
        "!rows = !axe.tensor<128x1xf32, reg, S[(2,4,2,8,1):(1@wgid,1@wid_in_wg,1,4@laneid,1)]>",
    );
    let error = blockscaled_gemm(&text, 128, 128, 128, 1).unwrap_err();
    assert!(error.contains("axe.fma: register-broadcast rule: thread 1 holds dest element [0, 2]"), "{error}");
}

/// The sm_100a example's text.
fn sm100a() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/gemm_fp8_sm100a.mlir");
    std::fs::read_to_string(path).expect("examples/gemm_fp8_sm100a.mlir")
}

#[test]
fn the_scaled_fp8_gemm_on_tcgen05_is_exact_over_ragged_tiles() {
    // tcgen05.mma kind::f8f6f4 m128n128k32: 2 x 2 CTAs (the second row and column of tiles 16 wide), K = 400 (the
    // last K tile 16 wide; stage 0 refilled, its parity flipped).
    scaled_fp8_gemm(&sm100a(), "gemm_fp8_sm100a", 144, 144, 400).unwrap();
}

#[test]
fn a_tcgen05_scale_left_out_is_caught() {
    let text = sm100a().replacen(
        "%scale = arith.mulf %scale_a, %scale_b : f32",
        "%scale = arith.addf %scale_a, %zero : f32",
        1,
    );
    assert_ne!(text, sm100a());
    assert_wrong_values(scaled_fp8_gemm(&text, "gemm_fp8_sm100a", 128, 128, 128));
}

#[test]
fn tcgen05_codes_read_as_e5m2_are_caught() {
    // The operands declared e5m2 while the bytes are e4m3 codes: the instruction descriptor says e5m2 and the
    // decoded products differ.
    let text = sm100a().replace("f8E4M3FN", "f8E5M2");
    assert_wrong_values(scaled_fp8_gemm(&text, "gemm_fp8_sm100a", 128, 128, 128));
}

/// The FP8-out kernel: KERNEL's product scaled by `alpha` and rounded to `f8E4M3FN` or `f8E5M2` codes in registers
/// (`cvt.rn.satfinite`), stored to C[64, 16].
fn fp8_out_kernel(out: &str) -> String {
    KERNEL
        .replace("!gc = !axe.tensor<64x16xf32, global, S[(64,16):(16,1)]>", &format!("!gc = !axe.tensor<64x16x{out}, global, S[(64,16):(16,1)]>\n!out = !axe.tensor<64x16x{out}, reg, S[(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>"))
        .replace("%c: memref<64x16xf32>", &format!("%c: memref<64x16x{out}>, %alpha: f32"))
        .replace("axe.view %c : memref<64x16xf32> -> !gc", &format!("axe.view %c : memref<64x16x{out}> -> !gc"))
        .replace(
            "      axe.copy cta %acc to %gc : !acc to !gc\n",
            "      %o = axe.alloc cta : !out\n      axe.scale cta %acc by %alpha to %acc : !acc to !acc\n      axe.cast cta %acc to %o : !acc to !out\n      axe.copy cta %o to %gc : !out to !gc\n",
        )
}

/// The code `cvt.rn.satfinite` gives `x` in the format `fields`, found here by search: the finite code of `x`'s
/// sign nearest to it (ties to the even code), `x` first clamped to the largest finite magnitude.
fn nearest_code(x: f64, fields: (u32, u32, i32)) -> u8 {
    let (e_bits, m_bits, bias) = fields;
    let finite: Vec<u8> = (0u8..0x80).filter(|&c| reference_finite(c, e_bits, m_bits)).collect();
    let largest = finite.iter().map(|&c| reference(c, e_bits, m_bits, bias)).fold(0.0, f64::max);
    let magnitude = x.abs().min(largest);
    let mut best = finite[0];
    for &c in &finite {
        let (d, e) = (
            (reference(c, e_bits, m_bits, bias) - magnitude).abs(),
            (reference(best, e_bits, m_bits, bias) - magnitude).abs(),
        );
        if d < e || (d == e && c % 2 == 0) {
            best = c;
        }
    }
    if x < 0.0 {
        best | 0x80
    } else {
        best
    }
}

/// Whether a positive code is finite: e4m3 has one NaN per sign (S.1111.111) and no infinities; e5m2 is IEEE-like
/// (exponent all ones: infinities and NaNs).
fn reference_finite(code: u8, e_bits: u32, m_bits: u32) -> bool {
    let e = (code >> m_bits) & ((1 << e_bits) - 1);
    let all = (1u8 << e_bits) - 1;
    match (e_bits, m_bits) {
        (4, 3) => code & 0x7f != 0x7f,
        _ => e != all,
    }
}

/// Runs the FP8-out kernel in format `out` with scale `alpha` on e4m3 operands: every C code against
/// [`nearest_code`] of `alpha * A * B` (the sums exact in f64 and f32 before the scale; the scaled value exact in
/// f32 for the alphas used).
fn run_fp8_out(out: &str, fields: (u32, u32, i32), alpha: f64) -> Result<usize, String> {
    run_fp8_out_lowered(&lowered_fp8_out(out), out, fields, alpha)
}

/// The FP8-out kernel in format `out`, lowered, as text.
fn lowered_fp8_out(out: &str) -> String {
    let context = axe_dialect::create_context().expect("context");
    let module = lower(&context, &fp8_out_kernel(out), "fp8_out.mlir").expect("lowers");
    module.as_operation().to_string()
}

/// [`run_fp8_out`] on a lowered text (a mutant's).
fn run_fp8_out_lowered(text: &str, out: &str, fields: (u32, u32, i32), alpha: f64) -> Result<usize, String> {
    let context = axe_dialect::create_context().expect("context");
    let module = axe_dialect::parse_module(&context, text, "fp8_out.lowered.mlir").expect("the lowered text parses");
    let a = codes(E4M3.0, E4M3.1, E4M3.2, 64 * 32, 7);
    let bt = codes(E4M3.0, E4M3.1, E4M3.2, 16 * 32, 11);
    let value = |c: u8| reference(c, E4M3.0, E4M3.1, E4M3.2);
    let format = if out == "f8E5M2" { Fp8::E5M2 } else { Fp8::E4M3 };
    let mut saturated = 0;
    for schedule in Schedule::all() {
        let args = vec![
            Arg::Buffer(Buffer { elem: Scalar::F8(Fp8::E4M3), bytes: a.clone() }),
            Arg::Buffer(Buffer { elem: Scalar::F8(Fp8::E4M3), bytes: bt.clone() }),
            Arg::Buffer(Buffer { elem: Scalar::F8(format), bytes: vec![0x55; 64 * 16] }),
            Arg::Float(alpha),
        ];
        let launch = Launch { kernel: "fp8".into(), block_id: [0; 3], grid: [1, 1, 1], args };
        let done = run_with(&module, &launch, &schedule).map_err(|e| format!("{schedule:?}: {e}"))?;
        let c = &done.buffers[2].as_ref().expect("C").bytes;
        saturated = 0;
        for r in 0..64 {
            for n in 0..16 {
                let sum: f64 = (0..32).map(|k| value(a[r * 32 + k]) * value(bt[n * 32 + k])).sum();
                let want = nearest_code(alpha * sum, fields);
                if c[r * 16 + n] != want {
                    return Err(format!("{schedule:?}: C[{r}][{n}] = {:#04x}, expected {want:#04x}", c[r * 16 + n]));
                }
                saturated += usize::from(want & 0x7f == nearest_code(f64::MAX, fields));
            }
        }
    }
    Ok(saturated)
}

#[test]
fn fp8_outputs_round_to_nearest_even_and_saturate() {
    // alpha = 3: most values need rounding to 3 or 2 mantissa bits, and sums past 448 / 3 saturate to 448 (e4m3);
    // e5m2's 57344 is out of reach, so alpha = 2048 saturates some there.
    let saturated = run_fp8_out("f8E4M3FN", E4M3, 3.0).unwrap();
    assert!(saturated > 0, "no e4m3 value saturated: the data does not reach the corner");
    let saturated = run_fp8_out("f8E5M2", E5M2, 2048.0).unwrap();
    assert!(saturated > 0, "no e5m2 value saturated");
}

#[test]
fn fp8_outputs_with_their_bytes_swapped_are_caught() {
    // The lowering's operand order mutated: register 2i converted as cvt's `a` (the upper byte, element 1), so the
    // two codes of each pair trade places.
    let text = lowered_fp8_out("f8E4M3FN");
    let convert = "nvvm.convert.f32x2.to.f8x2 ";
    let mut mutant = String::new();
    for line in text.lines() {
        match line.split_once(convert) {
            Some((head, tail)) => {
                let (operands, rest) = tail.split_once(" {").expect("attributes follow the operands");
                let (hi, lo) = operands.split_once(", ").expect("two operands");
                mutant.push_str(&format!("{head}{convert}{lo}, {hi} {{{rest}\n"));
            }
            None => mutant.push_str(&format!("{line}\n")),
        }
    }
    assert_ne!(mutant.trim_end(), text.trim_end(), "no convert in the lowered kernel");
    let error = run_fp8_out_lowered(&mutant, "f8E4M3FN", E4M3, 3.0).expect_err("swapped bytes give the right C");
    assert!(error.contains(", expected 0x"), "{error}");
}
