//! `axe-layout trn-matmul-plan`: the Tensor Engine instructions (`nc_matmul`) of `C[M,N] = A[K,M]^T B[K,N]` on
//! Trainium; the planner is `axe_layout::trn::matmul` (docs/trainium.md).

use crate::cli::{layout_arg, shape_opt, to_json, Args, CliError, Command};
use axe_layout::hw::ElemType;
use axe_layout::trn::matmul::{plan, MatmulPlan, MatmulRequest, Operand, Place};
use axe_layout::trn::{self, TrnMemory};
use serde_json::{json, Value};

/// The `trn-matmul-plan` subcommand.
pub const COMMAND: Command = Command {
    name: "trn-matmul-plan",
    usage: "trn-matmul-plan [--chip trn1] --dtype T --a L --a-shape K,M --b L --b-shape K,N --c L --c-shape M,N \
            [--json]",
    about: "the Trainium Tensor Engine instructions (nc_matmul) of C = A^T B",
    help: "Plans C[M,N] = A[K,M]^T B[K,N] with A (stationary) and B (moving) in SBUF and C (f32) in PSUM, every layout\n\
           on the partition axis P and the free axis F (in elements): the largest instruction tile (K and M at most\n\
           128, N at most 512, C inside one 2 KiB PSUM bank) every operand is a tiling of, and the loop over it.\n\
           --chip: trn1 (default)   --dtype: e4m3 e5m2 bf16 f16 tf32 f32 (A and B; C is f32)\n\
           --json: {\"tile\": [kt, mt, nt], \"steps\": [{\"k0\", \"m0\", \"n0\", \"a\", \"b\", \"c\", \"accumulate\"}]},\n\
           each operand {\"partition\", \"free\"}: where its tile starts.\n\
           A refusal prints 'trn matmul: <rule> rule: ...' on stderr and exits with 1.\n",
    positional: &[],
    values: &["chip", "dtype", "a", "a-shape", "b", "b-shape", "c", "c-shape"],
    switches: &[],
    run,
};

fn run(args: &Args) -> Result<String, CliError> {
    let chip_name = args.value("chip").unwrap_or("trn1");
    let chip =
        trn::chip(chip_name).ok_or_else(|| CliError::Failed(format!("--chip: unknown chip '{chip_name}' (trn1)")))?;
    let dtype_name = args.required("dtype")?;
    let dtype = ElemType::from_name(dtype_name)
        .ok_or_else(|| CliError::Failed(format!("--dtype: unknown element type '{dtype_name}'")))?;
    let mut operands = Vec::new();
    for role in ["a", "b", "c"] {
        let layout = layout_arg(&format!("--{role}"), args.required(role)?)?;
        let shape = shape_opt(args, &format!("{role}-shape"))?;
        let [rows, cols] = shape[..] else {
            return Err(CliError::Failed(format!("--{role}-shape: a matmul operand has rank 2, got {shape:?}")));
        };
        operands.push((layout, [rows, cols]));
    }
    let operand = |i: usize, mem| Operand { layout: &operands[i].0, shape: operands[i].1, mem };
    let request = MatmulRequest {
        chip,
        dtype,
        acc: ElemType::F32,
        a: operand(0, TrnMemory::Sbuf),
        b: operand(1, TrnMemory::Sbuf),
        c: operand(2, TrnMemory::Psum),
    };
    let p = plan(&request).map_err(|e| CliError::Failed(e.to_string()))?;
    if args.json() {
        to_json(&json_of(&p))
    } else {
        Ok(text(&p))
    }
}

fn place_json(p: &Place) -> Value {
    json!({ "partition": p.partition, "free": p.free })
}

/// The `--json` object of a plan.
fn json_of(p: &MatmulPlan) -> Value {
    let steps: Vec<Value> = p
        .steps
        .iter()
        .map(|s| {
            json!({ "k0": s.k0, "m0": s.m0, "n0": s.n0, "a": place_json(&s.a), "b": place_json(&s.b),
                    "c": place_json(&s.c), "accumulate": s.accumulate })
        })
        .collect();
    json!({ "tile": p.tile, "steps": steps })
}

/// The text the command prints without `--json`.
fn text(p: &MatmulPlan) -> String {
    let [kt, mt, nt] = p.tile;
    let mut s = format!("nc_matmul: {} instruction(s) of K {kt} x M {mt} x N {nt}\n", p.steps.len());
    for (i, step) in p.steps.iter().enumerate() {
        s.push_str(&format!(
            "  {i}: k {} m {} n {}  A at P {} F {}  B at P {} F {}  C at P {} F {}{}\n",
            step.k0,
            step.m0,
            step.n0,
            step.a.partition,
            step.a.free,
            step.b.partition,
            step.b.free,
            step.c.partition,
            step.c.free,
            if step.accumulate { "  (accumulate)" } else { "" }
        ));
    }
    s
}
