//! Copy plans executed on the software model of the instructions (`model/copy_hw.rs`, transcribed from the PTX
//! ISA independently of the planner): for every case, every element must land where the destination layout says
//! and nowhere else. Each case also states the instruction and vector width it expects, worked out by hand from
//! the layouts (the comment on each case says why), and the test prints the table of both.

#[path = "model/copy_hw.rs"]
mod copy_hw;

use axe_layout::copy::{plan, Chip, CopyRequest, ElemType, Mem, Side, ThreadSubset};
use axe_layout::notation::parse_layout;
use axe_layout::{Axis, ExecScope};

struct Case {
    name: &'static str,
    src: (&'static str, &'static [i64], Mem),
    dst: (&'static str, &'static [i64], Mem),
    dtype: ElemType,
    scope: ExecScope,
    chip: Chip,
    threads: Option<(&'static str, i64, i64)>,
    cta_threads: Option<i64>,
    /// The PTX opcode and bytes per thread per instruction expected.
    want: (&'static str, i64),
}

use ExecScope::{Cta, Thread, Warp};
use Mem::{Global, Reg, Shared, Tmem};

const fn case(
    name: &'static str,
    src: (&'static str, &'static [i64], Mem),
    dst: (&'static str, &'static [i64], Mem),
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
