//! Copy plans executed on the software model of the instructions (`model/copy_hw.rs`, transcribed from the PTX
//! ISA independently of the planner): for every case, every element must land where the destination layout says
//! and nowhere else. Each case also states the instruction and vector width it expects, worked out by hand from
//! the layouts (the comment on each case says why), and the test prints the table of both.

#[path = "model/copy_hw.rs"]
mod copy_hw;

use axe_layout::copy::{plan, Chip, CopyRequest, ElemType, Memory, Side, ThreadSubset};
use axe_layout::notation::parse_layout;
use axe_layout::{Axis, ExecScope};

struct Case {
    name: &'static str,
    src: (&'static str, &'static [i64], Memory),
    dst: (&'static str, &'static [i64], Memory),
    dtype: ElemType,
    scope: ExecScope,
    chip: Chip,
    threads: Option<(&'static str, i64, i64)>,
    cta_threads: Option<i64>,
    /// The PTX opcode and bytes per thread per instruction expected.
    want: (&'static str, i64),
}

use ExecScope::{Cta, Thread, Warp};
use Memory::{Global, Reg, Shared, Tmem};

const fn case(
    name: &'static str,
    src: (&'static str, &'static [i64], Memory),
    dst: (&'static str, &'static [i64], Memory),
    dtype: ElemType,
    scope: ExecScope,
    chip: Chip,
    want: (&'static str, i64),
) -> Case {
    Case { name, src, dst, dtype, scope, chip, threads: None, cta_threads: None, want }
}

fn cases() -> Vec<Case> {
    let (f16, f32) = (ElemType::F16, ElemType::F32);
    vec![
        // Thread r holds row r of a row-major tile: 8 consecutive f16 per register run, 16 bytes.
        case(
            "g2r rows f16",
            ("S[(128,64):(64,1)]", &[128, 64], Global),
            ("S[(4,32,8,8):(1@warpid,1@laneid,8,1)]", &[128, 64], Reg),
            f16,
            Cta,
            Chip::Sm80,
            ("ld.global.v4.b32", 16),
        ),
        // Lane c holds column c: consecutive registers are 32 elements apart in memory, so one element at a time.
        case(
            "g2r columns f32",
            ("S[(32,32):(32,1)]", &[32, 32], Global),
            ("S[(32,32):(1,1@laneid)]", &[32, 32], Reg),
            f32,
            Warp,
            Chip::Sm80,
            ("ld.global.b32", 4),
        ),
        // Each lane's 8 f16 start 2 elements past a 16-byte boundary: only 4-byte runs are aligned.
        case(
            "g2r offset f16",
            ("S[(32,8):(8,1)] + 2", &[32, 8], Global),
            ("S[(32,8):(1@laneid,1)]", &[32, 8], Reg),
            f16,
            Warp,
            Chip::Sm80,
            ("ld.global.b32", 4),
        ),
        // The mma.sync C fragment holds column pairs (c0 c1, c2 c3): 8-byte stores.
        case(
            "r2g mma C f32",
            ("S[(2,8,4,2):(2,4@laneid,1@laneid,1)]", &[16, 8], Reg),
            ("S[(16,8):(8,1)]", &[16, 8], Global),
            f32,
            Warp,
            Chip::Sm80,
            ("st.global.v2.b32", 8),
        ),
        // The m16n8k16 A fragment is four 8x8 tiles of the ldmatrix fragment, rows contiguous: one x4.
        case(
            "s2r ldmatrix A",
            ("S[(16,16):(16,1)]", &[16, 16], Shared),
            ("S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]", &[16, 16], Reg),
            f16,
            Warp,
            Chip::Sm80,
            ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 16),
        ),
        // B (K x N, N contiguous) in the B fragment: lanes hold K pairs, the shared rows run along N: .trans, x2.
        case(
            "s2r ldmatrix B trans",
            ("S[(16,8):(8,1)]", &[16, 8], Shared),
            ("S[(2,4,2,8):(2,1@laneid,1,4@laneid)]", &[16, 8], Reg),
            f16,
            Warp,
            Chip::Sm80,
            ("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", 8),
        ),
        // Four warps, 16 rows each, A fragments over 64 columns of a 128B-swizzled tile: 16-byte chunks stay
        // whole, 16 tiles per warp: four x4.
        case(
            "s2r ldmatrix swizzled",
            ("Swizzle(3,3,3) o S[(64,64):(64,1)]", &[64, 64], Shared),
            ("S[(4,2,8,4,2,4,2):(1@warpid,2,4@laneid,8,4,1@laneid,1)]", &[64, 64], Reg),
            f16,
            Cta,
            Chip::Sm90a,
            ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 16),
        ),
        // An f16 accumulator fragment is two 8x8 tiles: stmatrix x2 on sm_90a.
        case(
            "r2s stmatrix C f16",
            ("S[(2,8,4,2):(2,4@laneid,1@laneid,1)]", &[16, 8], Reg),
            ("S[(16,8):(8,1)]", &[16, 8], Shared),
            f16,
            Warp,
            Chip::Sm90a,
            ("stmatrix.sync.aligned.m8n8.x2.shared.b16", 8),
        ),
        // The same on sm_80 (no stmatrix): pairs of f16 are 4 contiguous bytes.
        case(
            "r2s sm80 st.shared",
            ("S[(2,8,4,2):(2,4@laneid,1@laneid,1)]", &[16, 8], Reg),
            ("S[(16,8):(8,1)]", &[16, 8], Shared),
            f16,
            Warp,
            Chip::Sm80,
            ("st.shared.b32", 4),
        ),
        // A 64x64 f16 tile of a 128-wide global matrix into a 128B-swizzled buffer: 16-byte chunks.
        Case {
            cta_threads: Some(128),
            ..case(
                "g2s cp.async 16 swizzled",
                ("S[(64,64):(128,1)]", &[64, 64], Global),
                ("Swizzle(3,3,3) o S[(64,64):(64,1)]", &[64, 64], Shared),
                f16,
                Cta,
                Chip::Sm80,
                ("cp.async.cg.shared.global", 16),
            )
        },
        // Global rows 3 floats apart: pairs are aligned only on even rows, so 4-byte copies.
        case(
            "g2s cp.async 4",
            ("S[(8,2):(3,1)]", &[8, 2], Global),
            ("S[(8,2):(2,1)]", &[8, 2], Shared),
            f32,
            Warp,
            Chip::Sm80,
            ("cp.async.ca.shared.global", 4),
        ),
        // The M=128 accumulator, thread r holding row r: 32x32b, 32 columns at once.
        case(
            "t2r 32x32b",
            ("S[(128,32):(1@TLane,1@TCol)]", &[128, 32], Tmem),
            ("S[(4,32,32):(1@warpid,1@laneid,1)]", &[128, 32], Reg),
            f32,
            Cta,
            Chip::Sm100a,
            ("tcgen05.ld.sync.aligned.32x32b.x32.b32", 128),
        ),
        // 16 lanes x 32 columns read into the mma.sync C fragment shape (rows g, g+8; column pairs), tiled 4 times
        // along the columns: the 16x256b fragment, x4.
        case(
            "t2r 16x256b",
            ("S[(16,32):(1@TLane,1@TCol)]", &[16, 32], Tmem),
            ("S[(2,8,4,4,2):(2,4@laneid,4,1@laneid,1)]", &[16, 32], Reg),
            f32,
            Cta,
            Chip::Sm100a,
            ("tcgen05.ld.sync.aligned.16x256b.x4.b32", 64),
        ),
        // Registers back into tensor memory, one row per thread: 32x32b, 16 columns.
        case(
            "r2t 32x32b",
            ("S[(4,32,16):(1@warpid,1@laneid,1)]", &[128, 16], Reg),
            ("S[(128,16):(1@TLane,1@TCol)]", &[128, 16], Tmem),
            f32,
            Cta,
            Chip::Sm100a,
            ("tcgen05.st.sync.aligned.32x32b.x16.b32", 64),
        ),
        // Same thread, registers permuted: moves.
        case(
            "r2r mov",
            ("S[(4,32,8):(1@warpid,1@laneid,1)]", &[128, 8], Reg),
            ("S[(4,32,2,4):(1@warpid,1@laneid,1,2)]", &[128, 8], Reg),
            f32,
            Cta,
            Chip::Sm80,
            ("mov.b32", 4),
        ),
        // The C fragment to one row per lane: every element stays in the warp.
        case(
            "r2r shuffle",
            ("S[(2,8,4,2):(2,4@laneid,1@laneid,1)]", &[16, 8], Reg),
            ("S[(16,2,4):(1@laneid,4,1)]", &[16, 8], Reg),
            f32,
            Warp,
            Chip::Sm80,
            ("shfl.sync.idx.b32", 4),
        ),
        // A transpose across warps (thread r's row goes to 8 threads 16 apart): through shared memory.
        case(
            "r2r staging transpose",
            ("S[(4,32,8):(1@warpid,1@laneid,1)]", &[128, 8], Reg),
            ("S[(16,8,8):(1@tid,1,16@tid)]", &[128, 8], Reg),
            f32,
            Cta,
            Chip::Sm80,
            ("st.shared.b32 + ld.shared.v4.b32", 4),
        ),
        // Warps 4..8 of a 256-thread CTA load their rows.
        Case {
            threads: Some(("warpid", 4, 8)),
            cta_threads: Some(256),
            ..case(
                "g2r subset warps 4..8",
                ("S[(128,8):(8,1)]", &[128, 8], Global),
                ("S[(4,32,8):(1@warpid,1@laneid,1)] + 4@warpid", &[128, 8], Reg),
                f32,
                Cta,
                Chip::Sm80,
                ("ld.global.v4.b32", 16),
            )
        },
        // One thread, eight floats.
        case(
            "g2r thread scope",
            ("S[8:1]", &[8], Global),
            ("S[8:1]", &[8], Reg),
            f32,
            Thread,
            Chip::Sm80,
            ("ld.global.v4.b32", 16),
        ),
        // Both warps hold a copy: both load.
        case(
            "g2r replicated",
            ("S[(32,4):(4,1)]", &[32, 4], Global),
            ("S[(32,4):(1@laneid,1)] + R[2:1@warpid]", &[32, 4], Reg),
            f32,
            Cta,
            Chip::Sm80,
            ("ld.global.v4.b32", 16),
        ),
        // Both warps hold a copy: one stores.
        case(
            "r2g replicated",
            ("S[(32,4):(1@laneid,1)] + R[2:1@warpid]", &[32, 4], Reg),
            ("S[(32,4):(4,1)]", &[32, 4], Global),
            f32,
            Cta,
            Chip::Sm80,
            ("st.global.v4.b32", 16),
        ),
        // Swizzle(2,3,3) keeps 4-float chunks whole: 16-byte loads from the swizzled rows.
        case(
            "s2r swizzled f32",
            ("Swizzle(2,3,3) o S[(32,32):(32,1)]", &[32, 32], Shared),
            ("S[(32,32):(1@laneid,1)]", &[32, 32], Reg),
            f32,
            Warp,
            Chip::Sm80,
            ("ld.shared.v4.b32", 16),
        ),
    ]
}

#[test]
fn every_case_lands_every_element_where_the_destination_says() {
    let mut table =
        String::from("| case | instruction | vector bytes | instructions per thread |\n|---|---|---|---|\n");
    let mut failures = Vec::new();
    for c in cases() {
        let (sl, dl) = (parse_layout(c.src.0).unwrap(), parse_layout(c.dst.0).unwrap());
        let threads = c.threads.map(|(a, b, e)| ThreadSubset { axis: Axis::named(a).unwrap(), begin: b, end: e });
        let req = CopyRequest {
            src: Side { layout: &sl, shape: c.src.1, mem: c.src.2 },
            dst: Side { layout: &dl, shape: c.dst.1, mem: c.dst.2 },
            dtype: c.dtype,
            scope: c.scope,
            threads,
            chip: c.chip,
            cta_threads: c.cta_threads,
        };
        let p = match plan(&req) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: {e}", c.name));
                continue;
            }
        };
        table.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            c.name, p.instruction, p.vector_bytes, p.instructions_per_thread
        ));
        if (p.instruction.as_str(), p.vector_bytes) != c.want {
            failures
                .push(format!("{}: chose {} ({} bytes), expected {:?}", c.name, p.instruction, p.vector_bytes, c.want));
        }
        if let Err(e) = copy_hw::run(&req, &p) {
            failures.push(format!("{}: the model says {e}", c.name));
        }
        // Planning twice gives the same plan.
        assert_eq!(plan(&req).ok(), Some(p), "{}: not deterministic", c.name);
    }
    println!("{table}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The model is not a rubber stamp: plans with one thing changed (a register, an address, `.trans`, a swizzle, a
/// tcgen05 shape, a shuffle lane, a missing issue) are caught.
#[test]
fn the_model_catches_wrong_plans() {
    use axe_layout::copy::{CopyKind, CopyPlan, Operand, TmemShape};
    let mut caught = 0;
    let mut tried = 0;
    for c in cases() {
        let (sl, dl) = (parse_layout(c.src.0).unwrap(), parse_layout(c.dst.0).unwrap());
        let threads = c.threads.map(|(a, b, e)| ThreadSubset { axis: Axis::named(a).unwrap(), begin: b, end: e });
        let req = CopyRequest {
            src: Side { layout: &sl, shape: c.src.1, mem: c.src.2 },
            dst: Side { layout: &dl, shape: c.dst.1, mem: c.dst.2 },
            dtype: c.dtype,
            scope: c.scope,
            threads,
            chip: c.chip,
            cta_threads: c.cta_threads,
        };
        let good = plan(&req).unwrap();
        let mut mutants: Vec<(&str, CopyPlan)> = Vec::new();
        let mut m = good.clone();
        m.steps[0].issues.pop();
        mutants.push(("an issue dropped", m));
        let mut m = good.clone();
        let issue = &mut m.steps[0].issues[0];
        for o in [&mut issue.src, &mut issue.dst] {
            match o {
                Operand::Regs(r) if r.len() > 1 => r.swap(0, 1),
                Operand::Regs(r) => r[0] += 1,
                Operand::Mem(f) => f.base += 1,
                Operand::Tmem { col, .. } => col.base += 1,
                Operand::Shfl { lane, .. } => lane.base += 1,
            }
        }
        mutants.push(("operands shifted", m));
        let mut m = good.clone();
        let k = &mut m.steps[0].kind;
        match k {
            CopyKind::Ldmatrix { trans, .. } | CopyKind::Stmatrix { trans, .. } => {
                *trans = !*trans;
                let s = &mut m.steps[0].instruction;
                *s = if s.contains(".trans") { s.replace(".trans", "") } else { s.replace(".shared", ".trans.shared") };
                mutants.push((".trans toggled", m));
            }
            CopyKind::Tcgen05Ld { shape, .. } | CopyKind::Tcgen05St { shape, .. } => {
                let other = if *shape == TmemShape::S32x32b { TmemShape::S16x256b } else { TmemShape::S32x32b };
                let old = shape.name();
                *shape = other;
                m.steps[0].instruction = m.steps[0].instruction.replace(old, other.name());
                mutants.push(("tcgen05 shape changed", m));
            }
            _ => {}
        }
        // (A staging buffer's swizzle is the plan's own: dropping it on both steps is still a right copy.)
        if good.staging.is_none() && good.steps.iter().any(|s| s.src_swizzle.is_some() || s.dst_swizzle.is_some()) {
            let mut m = good.clone();
            for s in &mut m.steps {
                s.src_swizzle = None;
                s.dst_swizzle = None;
            }
            mutants.push(("swizzle dropped", m));
        }
        for (what, m) in mutants {
            tried += 1;
            if m == good {
                continue;
            }
            match copy_hw::run(&req, &m) {
                Err(_) => caught += 1,
                Ok(()) => panic!("{}: the model accepts the plan with {what}", c.name),
            }
        }
    }
    assert!(caught >= cases().len() * 2, "caught {caught} of {tried}");
}

/// One copy whose memory sides are slices moved at run time (`plan_moving`), as the sm_80 GEMM issues them.
struct Moving {
    name: &'static str,
    /// Root layout, root shape, static begin of the region, memory; `None`: the side is the request's own.
    src: (&'static str, &'static [i64], &'static [i64], Memory),
    dst: (&'static str, &'static [i64], &'static [i64], Memory),
    /// The region's shape on each side.
    shapes: (&'static [i64], &'static [i64]),
    /// (side, root dimension, known multiple) per run-time offset.
    moves: &'static [(axe_layout::copy::CopySide, usize, i64)],
    /// Runs: one value per move.
    runs: &'static [&'static [i64]],
    want: &'static str,
    /// The scope (the CTA's 128 threads, or one warp).
    scope: ExecScope,
}

/// The sm_80 GEMM's copies: A and B tiles by cp.async from a block's tile at a K step into a run-time stage of a
/// 128B-swizzled ring, ldmatrix (x4, .trans for B) from a run-time stage, and the epilogue's st.global into the
/// block's tile; each planned once and executed on the model at several offsets and stages.
fn moving_cases() -> Vec<Moving> {
    use axe_layout::copy::CopySide::{Dst, Src};
    const A_RING: &str = "Swizzle(3,3,3) o S[(384,64):(64,1)]";
    const B_RING: &str = "Swizzle(3,3,4) o S[(192,128):(128,1)]";
    const G: &str = "S[(256,256):(256,1)]";
    vec![
        Moving {
            name: "cp.async A tile -> ring stage",
            src: (G, &[256, 256], &[0, 0], Global),
            dst: (A_RING, &[384, 64], &[0, 0], Shared),
            shapes: (&[128, 64], &[128, 64]),
            moves: &[(Src, 0, 128), (Src, 1, 64), (Dst, 0, 128)],
            runs: &[&[0, 0, 0], &[128, 64, 128], &[0, 192, 256], &[128, 128, 0]],
            want: "cp.async.cg.shared.global",
            scope: Cta,
        },
        Moving {
            name: "cp.async B tile -> ring stage",
            src: (G, &[256, 256], &[0, 0], Global),
            dst: (B_RING, &[192, 128], &[0, 0], Shared),
            shapes: (&[64, 128], &[64, 128]),
            moves: &[(Src, 0, 64), (Src, 1, 128), (Dst, 0, 64)],
            runs: &[&[0, 0, 0], &[64, 128, 64], &[192, 0, 128]],
            want: "cp.async.cg.shared.global",
            scope: Cta,
        },
        Moving {
            name: "ldmatrix A k16 step of a stage",
            src: (A_RING, &[384, 64], &[0, 16], Shared),
            dst: ("S[(2,4,2,8,2,4,2):(1@warpid,8,2,4@laneid,4,1@laneid,1)] + R[2:2@warpid]", &[128, 16], &[], Reg),
            shapes: (&[128, 16], &[128, 16]),
            moves: &[(Src, 0, 128)],
            runs: &[&[0], &[128], &[256]],
            want: "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
            scope: Cta,
        },
        Moving {
            name: "ldmatrix B k16 step of a stage",
            src: (B_RING, &[192, 128], &[48, 0], Shared),
            dst: ("S[(2,4,2,2,8,8):(2,1@laneid,1,2@warpid,4,4@laneid)] + R[2:1@warpid]", &[16, 128], &[], Reg),
            shapes: (&[16, 128], &[16, 128]),
            moves: &[(Src, 0, 64)],
            runs: &[&[0], &[64], &[128]],
            want: "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
            scope: Cta,
        },
        Moving {
            name: "st.global C tile",
            src: ("S[(2,4,2,8,2,8,4,2):(1@warpid,32,2,4@laneid,2@warpid,4,1@laneid,1)]", &[128, 128], &[], Reg),
            dst: (G, &[256, 256], &[0, 0], Global),
            shapes: (&[128, 128], &[128, 128]),
            moves: &[(Dst, 0, 128), (Dst, 1, 128)],
            runs: &[&[0, 0], &[128, 0], &[0, 128], &[128, 128]],
            want: "st.global.b32",
            scope: Cta,
        },
        // The kernel's warp-scope fragments: a warp's 64 rows of A at the stage and warp offset (one run-time row
        // offset, a multiple of 64: 4096 elements, 8 swizzle periods), and its 16x64 slice of B in a ring of two
        // 64-column panels at the stage's k16 row (a multiple of 16 rows: 1024 elements) and its panel.
        Moving {
            name: "ldmatrix A warp slice",
            src: (A_RING, &[384, 64], &[0, 32], Shared),
            dst: ("S[(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)]", &[64, 16], &[], Reg),
            shapes: (&[64, 16], &[64, 16]),
            moves: &[(Src, 0, 64)],
            runs: &[&[0], &[64], &[192], &[320]],
            want: "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
            scope: Warp,
        },
        Moving {
            name: "ldmatrix B warp slice of a panel ring",
            src: ("Swizzle(3,3,3) o S[(192,2,64):(64,12288,1)]", &[192, 128], &[0, 0], Shared),
            dst: ("S[(2,4,2,8,8):(2,1@laneid,1,4,4@laneid)]", &[16, 64], &[], Reg),
            shapes: (&[16, 64], &[16, 64]),
            moves: &[(Src, 0, 16), (Src, 1, 64)],
            runs: &[&[0, 0], &[16, 64], &[112, 0], &[176, 64]],
            want: "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
            scope: Warp,
        },
    ]
}

fn moving_request<'a>(
    c: &'a Moving,
    layouts: &'a [axe_layout::Layout; 4],
) -> (CopyRequest<'a>, Vec<axe_layout::copy::CopyMove<'a>>) {
    use axe_layout::copy::{CopyMove, CopySide};
    let side = |(_, _, _, mem): (&str, &[i64], &[i64], Memory), i: usize, shape: &'a [i64]| Side {
        layout: &layouts[i],
        shape,
        mem,
    };
    let req = CopyRequest {
        src: side(c.src, 0, c.shapes.0),
        dst: side(c.dst, 1, c.shapes.1),
        dtype: ElemType::F16,
        scope: c.scope,
        threads: None,
        chip: Chip::Sm80,
        cta_threads: Some(128),
    };
    let moves = c
        .moves
        .iter()
        .map(|&(s, dim, multiple)| {
            let (i, shape) = if s == CopySide::Src { (2, c.src.1) } else { (3, c.dst.1) };
            CopyMove { side: s, root: &layouts[i], root_shape: shape, dim, multiple }
        })
        .collect();
    (req, moves)
}

/// The layouts of a moving case: each side's root sliced at its static begin (or the side itself), and the roots.
fn moving_layouts(c: &Moving) -> [axe_layout::Layout; 4] {
    let sliced = |(text, shape, begin, mem): (&str, &[i64], &[i64], Memory), region: &[i64]| {
        let root = parse_layout(text).unwrap();
        if mem == Reg {
            return root;
        }
        let bounds: Vec<(i64, i64)> = begin.iter().zip(region).map(|(&b, &n)| (b, b + n)).collect();
        axe_layout::slice::slice(&root, shape, &bounds).unwrap()
    };
    [
        sliced(c.src, c.shapes.0),
        sliced(c.dst, c.shapes.1),
        parse_layout(c.src.0).unwrap(),
        parse_layout(c.dst.0).unwrap(),
    ]
}

/// The region's begin in its root at one run: the static begin plus the values of the moves along each dimension.
fn begin_at(c: &Moving, side: axe_layout::copy::CopySide, run: &[i64]) -> Vec<i64> {
    let static_begin = if side == axe_layout::copy::CopySide::Src { c.src.2 } else { c.dst.2 };
    let mut begin = static_begin.to_vec();
    for (&(s, dim, _), &v) in c.moves.iter().zip(run) {
        if s == side {
            begin[dim] += v;
        }
    }
    begin
}

/// Every moving case, planned once, lands every element where the destination root says at every run; a term
/// changed by one vector is caught.
#[test]
fn moving_copies_land_every_element_at_every_offset_and_stage() {
    use axe_layout::copy::{plan_moving, CopySide};
    let mut failures = Vec::new();
    for c in moving_cases() {
        let layouts = moving_layouts(&c);
        let (req, moves) = moving_request(&c, &layouts);
        let p = match plan_moving(&req, &moves) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: {e}", c.name));
                continue;
            }
        };
        if !p.instruction.starts_with(c.want) {
            failures.push(format!("{}: chose {}, expected {}", c.name, p.instruction, c.want));
        }
        assert_eq!(p.dynamic.len(), c.moves.len(), "{}", c.name);
        for run in c.runs {
            let root = |side: CopySide, i: usize, (_, shape, _, mem): (&str, &'static [i64], &[i64], Memory)| {
                (mem != Reg).then(|| copy_hw::Root { layout: &layouts[i], shape, begin: begin_at(&c, side, run) })
            };
            let (src, dst) = (root(CopySide::Src, 2, c.src), root(CopySide::Dst, 3, c.dst));
            if let Err(e) = copy_hw::run_moving(&req, &p, src.as_ref(), dst.as_ref(), run, &[]) {
                failures.push(format!("{} at {run:?}: the model says {e}", c.name));
            }
            // A term off by one vector of elements moves the wrong data.
            let mut wrong = p.clone();
            wrong.dynamic[0].elements += 8;
            let nonzero = run[wrong.dynamic[0].offset] != 0;
            if nonzero && copy_hw::run_moving(&req, &wrong, src.as_ref(), dst.as_ref(), run, &[]).is_ok() {
                failures.push(format!("{} at {run:?}: the model accepts a wrong term", c.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Offsets that would break the plan are refused by the dynamic-offset rule, with the numbers.
#[test]
fn moving_copies_refuse_offsets_that_break_alignment_or_swizzle() {
    use axe_layout::copy::{plan_moving, CopySide};
    let cases = moving_cases();
    let check = |c: &Moving, moves: &'static [(CopySide, usize, i64)], want: &str| {
        let c = Moving { moves, ..*c };
        let layouts = moving_layouts(&c);
        let (req, moves) = moving_request(&c, &layouts);
        let e = plan_moving(&req, &moves).expect_err(c.name).to_string();
        assert!(e.starts_with("copy: dynamic-offset rule: ") && e.contains(want), "{}: {e}", c.name);
    };
    // A K step of 4 halves moves the 16-byte cp.async vectors by 8 bytes.
    check(
        &cases[0],
        &[(CopySide::Src, 1, 4)],
        "(8 bytes: a known multiple of 4 over 1 times stride 1), which breaks the alignment of its 16-byte vectors",
    );
    // A stage of 4 rows is 256 elements, half the 512-element period of the 128B swizzle.
    check(&cases[0], &[(CopySide::Dst, 0, 4)], "multiple of 256 elements, not of the 512-element period");
    check(&cases[2], &[(CopySide::Src, 0, 4)], "not of the 512-element period");
    // Registers do not move.
    check(&cases[2], &[(CopySide::Dst, 0, 128)], "which is in reg");
}

/// The sm_80 GEMM's global copies when M, N and K are run-time values (`plan_runtime`): A's and B's tiles by
/// cp.async with zero fill past the tensor's edge, and C's tile by predicated st.global, executed on the model at
/// whole and ragged tiles for several row strides.
#[test]
fn runtime_extents_fill_and_clip_ragged_tiles() {
    use axe_layout::copy::{placeholder_stride, plan_runtime, CopyMove, CopySide, RuntimeRows};
    const A_RING: &str = "Swizzle(3,3,3) o S[(384,64):(64,1)]";
    const C_REGS: &str = "S[(2,4,2,8,2,8,4,2):(1@warpid,32,2,4@laneid,2@warpid,4,1@laneid,1)]";
    // (region shape, stage ring, runs: (rows extent, row stride, origin row, origin col, stage row)).
    type Run = (i64, i64, i64, i64, i64);
    let mut failures = Vec::new();
    // A [M, K] -> ring stage: whole tiles, a ragged corner (rows 200.., columns 136.. are zero), a tile wholly past K.
    let a_runs: &[Run] =
        &[(256, 256, 128, 192, 128), (200, 136, 128, 128, 256), (128, 72, 0, 64, 0), (64, 64, 0, 64, 128)];
    let region = [128i64, 64];
    let placeholder = parse_layout(&format!("S[(128,64):({},1)]", placeholder_stride(64))).unwrap();
    let ring = parse_layout(A_RING).unwrap();
    let stage = axe_layout::slice::slice(&ring, &[384, 64], &[(0, 128), (0, 64)]).unwrap();
    let req = CopyRequest {
        src: Side { layout: &placeholder, shape: &region, mem: Global },
        dst: Side { layout: &stage, shape: &region, mem: Shared },
        dtype: ElemType::F16,
        scope: Cta,
        threads: None,
        chip: Chip::Sm80,
        cta_threads: Some(128),
    };
    let moves = [CopyMove { side: CopySide::Dst, root: &ring, root_shape: &[384, 64], dim: 0, multiple: 128 }];
    let rows = [RuntimeRows { side: CopySide::Src, stride_multiple: 8, col_multiple: 64 }];
    let p = plan_runtime(&req, &moves, &rows).expect("plans");
    assert_eq!(p.instruction, "cp.async.cg.shared.global");
    assert_eq!((p.coords.len(), p.coords[0].issues.len()), (1, 8));
    for &(m, w, r0, c0, s) in a_runs {
        let issues: Vec<_> = p.coords[0].issues.iter().map(|c| (c.row.clone(), c.col.clone())).collect();
        let coords = copy_hw::Coords { issues, origin: (r0, c0), w, rows: m };
        let text = format!("S[({m},{w}):({w},1)]");
        let root = parse_layout(&text).unwrap();
        let shape = [m, w];
        let src = copy_hw::Root { layout: &root, shape: &shape, begin: vec![r0, c0] };
        let dst = copy_hw::Root { layout: &ring, shape: &[384, 64], begin: vec![s, 0] };
        if let Err(e) = copy_hw::run_moving(&req, &p, Some(&src), Some(&dst), &[s], &[(CopySide::Src, coords)]) {
            failures.push(format!("A at {:?}: {e}", (m, w, r0, c0, s)));
        }
    }
    // C tile (registers) -> C [M, N]: whole, and ragged (rows 300.., columns 200.. are not written).
    let c_region = [128i64, 128];
    let regs = parse_layout(C_REGS).unwrap();
    let c_placeholder = parse_layout(&format!("S[(128,128):({},1)]", placeholder_stride(128))).unwrap();
    let req = CopyRequest {
        src: Side { layout: &regs, shape: &c_region, mem: Reg },
        dst: Side { layout: &c_placeholder, shape: &c_region, mem: Global },
        dtype: ElemType::F16,
        scope: Cta,
        threads: None,
        chip: Chip::Sm80,
        cta_threads: Some(128),
    };
    let rows = [RuntimeRows { side: CopySide::Dst, stride_multiple: 8, col_multiple: 128 }];
    let p = plan_runtime(&req, &[], &rows).expect("plans");
    assert_eq!(p.instruction, "st.global.b32");
    for &(m, w, r0, c0) in &[(256i64, 256i64, 128i64, 128i64), (300, 200, 256, 128), (130, 136, 128, 0)] {
        let issues: Vec<_> = p.coords[0].issues.iter().map(|c| (c.row.clone(), c.col.clone())).collect();
        let coords = copy_hw::Coords { issues, origin: (r0, c0), w, rows: m };
        let root = parse_layout(&format!("S[({m},{w}):({w},1)]")).unwrap();
        let shape = [m, w];
        let dst = copy_hw::Root { layout: &root, shape: &shape, begin: vec![r0, c0] };
        if let Err(e) = copy_hw::run_moving(&req, &p, None, Some(&dst), &[], &[(CopySide::Dst, coords.clone())]) {
            failures.push(format!("C at {:?}: {e}", (m, w, r0, c0)));
        }
        // Without the predicate (every access taken as inside), a ragged tile writes outside the tensor.
        if m < r0 + 128 {
            let unguarded = copy_hw::Coords { rows: i64::MAX, ..coords };
            let run = copy_hw::run_moving(&req, &p, None, Some(&dst), &[], &[(CopySide::Dst, unguarded)]);
            if run.is_ok() {
                failures.push(format!("C at {:?}: the model accepts stores past the last row", (m, w, r0, c0)));
            }
        }
    }
    // Refusals: a row stride known only to be even breaks the 16-byte vectors of A's cp.async.
    let ring_req = CopyRequest {
        src: Side { layout: &placeholder, shape: &region, mem: Global },
        dst: Side { layout: &stage, shape: &region, mem: Shared },
        dtype: ElemType::F16,
        scope: Cta,
        threads: None,
        chip: Chip::Sm80,
        cta_threads: Some(128),
    };
    let e =
        plan_runtime(&ring_req, &moves, &[RuntimeRows { side: CopySide::Src, stride_multiple: 2, col_multiple: 64 }])
            .unwrap_err()
            .to_string();
    assert!(e.contains("dynamic-offset rule: the source's run-time row stride is known to be a multiple of 2 elements (4 bytes), not of the 16-byte vectors"), "{e}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
