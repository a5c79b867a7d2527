//! `lower-staged-copies`: `axe.copy_staged` to one synchronized copy and TMA store per piece (issue 25).
//!
//! An epilogue stores a register tile to global memory through a shared buffer smaller than the tile: the buffer
//! is what fits beside the pipeline's ring. For each piece of the buffer's shape, in row-major order:
//!
//! ```mlir
//! axe.copy_staged cta(wgid[0:2]) %out to %tile through %buf : !out to !tile through !buf
//! // becomes, for the piece at offsets o (a 128x256 tile through a 128x64 buffer: o = [0, 0], [0, 64], ...)
//! %piece = axe.slice %out[o] [128, 64] : !out to !axe.tensor<128x64xf16, reg>
//! axe.sync cta(wgid[0:2])                       // the previous piece's store has read the buffer
//! axe.copy cta(wgid[0:2]) %piece to %buf
//! %region = axe.slice %tile[o] [128, 64] : !tile to !axe.tensor<128x64xf16, global>
//! axe.copy_async cta(wgid[0:2]) %buf to %region // TMA store, its reads waited for by the issuing lane
//! ```
//!
//! The slices are deferred (their layouts are the sliced ones); the copies keep the op's scope and threads, so
//! `--lower-copy` and `--lower-tma` plan them as they plan copies written by hand. The barrier before each piece
//! also covers the buffer's last use before the op (the previous tile's last store). Run it before those two.

use crate::{
    glue::{external_pass, PassId},
    glue::{PassInfo, PassKind},
    ir::build::Builder,
    ir::each_op::lower_each,
};
use axe_dialect::{
    access,
    ops::AxeOp,
    types::{LayoutSpec, TensorType},
    OpKind,
};
use melior::{
    ir::{OperationRef, Value},
    IrRewriter,
};

/// `--lower-staged-copies` as `axe-opt` lists it: flag, summary, description, constructor (the registry's entry).
pub const PASS: PassInfo = PassInfo {
    flag: "lower-staged-copies",
    summary: "Lower axe.copy_staged to one synchronized copy into the buffer and TMA store per piece",
    description: "Input: a verified module. Each axe.copy_staged becomes, for each piece of the buffer's shape in\n\
row-major order: a register slice, axe.sync (the buffer is free), axe.copy into the buffer, a slice of dest and\n\
axe.copy_async from the buffer (a TMA store), all at the op's scope. Run it before --lower-copy and --lower-tma.",
    kind: PassKind::Rust(create),
};

static ID: PassId = PassId::new();

/// Lowers every `axe.copy_staged` under `root`: the number lowered, or the number of errors reported at their ops.
pub fn lower_staged_copies(root: OperationRef) -> Result<usize, usize> {
    lower_each(root, OpKind::CopyStaged, PASS.flag, |op| lower_one(op).map_err(|message| vec![(op, message)]))
}

/// One `axe.copy_staged`, written piece by piece in its place.
fn lower_one<'c, 'a>(op: OperationRef<'c, 'a>) -> Result<(), String> {
    let axe = AxeOp::new(op).ok_or("internal: not an axe op")?;
    let tensor = |role: &str| axe.tensor(role).ok_or_else(|| format!("the {role} is not a readable axe tensor"));
    let (source, dest, buffer) = (tensor("source")?, tensor("dest")?, tensor("buffer")?);
    let operand = |i: usize| access::operand(op, i).ok_or_else(|| "internal: missing operand".to_string());
    let (source_value, dest_value, buffer_value) = (operand(0)?, operand(1)?, operand(2)?);
    let scope: Vec<(&str, String)> =
        ["scope", "threads"].into_iter().filter_map(|name| axe.attribute_text(name).map(|text| (name, text))).collect();
    let b = Builder::before(op)?;
    let piece_type = |of: &TensorType| {
        let piece = TensorType { shape: buffer.shape.clone(), layout: LayoutSpec::Deferred, ..of.clone() };
        b.ty(&piece.to_text())
    };
    let (register_piece, global_piece) = (piece_type(&source)?, piece_type(&dest)?);
    for offsets in pieces(&source.shape, &buffer.shape) {
        let slice = |of: Value<'c, 'a>, ty| {
            let attributes = [("offsets", i64_array(&offsets)), ("sizes", i64_array(&buffer.shape))];
            b.value("axe.slice", &[of], ty, &attributes)
        };
        let piece = slice(source_value, register_piece)?;
        b.op("axe.sync", &[], &[], &scope)?;
        b.op("axe.copy", &[piece, buffer_value], &[], &scope)?;
        let region = slice(dest_value, global_piece)?;
        let mut store = scope.clone();
        store.push(("operandSegmentSizes", "array<i32: 1, 1, 0, 0>".to_string()));
        b.op("axe.copy_async", &[buffer_value, region], &[], &store)?;
    }
    IrRewriter::from_op(op).as_rewriter_base().erase_op(op);
    Ok(())
}

/// The offsets of the pieces of `piece` that tile `whole`, in row-major order.
fn pieces(whole: &[i64], piece: &[i64]) -> Vec<Vec<i64>> {
    let counts: Vec<i64> = whole.iter().zip(piece).map(|(w, p)| w / p).collect();
    let total: i64 = counts.iter().product();
    (0..total)
        .map(|flat| {
            let mut rest = flat;
            let mut offsets = vec![0; counts.len()];
            for d in (0..counts.len()).rev() {
                offsets[d] = rest % counts[d] * piece[d];
                rest /= counts[d];
            }
            offsets
        })
        .collect()
}

/// `array<i64: 0, 64>`.
fn i64_array(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("array<i64: {}>", items.join(", "))
}

/// The melior pass behind `--lower-staged-copies`.
pub fn create() -> melior::pass::Pass {
    // It creates axe ops only, and the axe dialect is loaded wherever an axe op is to lower.
    external_pass(&ID, "AxeLowerStagedCopies", &PASS, |operation| lower_staged_copies(operation).is_ok())
}

#[cfg(test)]
mod tests {
    use super::pieces;

    #[test]
    fn pieces_run_in_row_major_order() {
        assert_eq!(pieces(&[128, 256], &[128, 64]), vec![vec![0, 0], vec![0, 64], vec![0, 128], vec![0, 192]]);
        assert_eq!(pieces(&[4, 4], &[2, 2]), vec![vec![0, 0], vec![0, 2], vec![2, 0], vec![2, 2]]);
        assert_eq!(pieces(&[8], &[8]), vec![vec![0]]);
    }
}
