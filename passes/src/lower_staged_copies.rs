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
//!
//! With `stages S` the buffer's first dimension holds S pieces: piece p goes through stage p mod S (a slice of
//! the buffer), and every store but the last carries `reads_in_flight = S - 1`, so its issuing lane waits only
//! until the stores before the newest S - 1 have read their stages (`cp.async.bulk.wait_group.read S-1`): the
//! barrier before piece p then finds stage p mod S free (its last store, piece p - S, has read it) while the
//! stores of pieces p - S + 1 .. p - 1 still read theirs. The last store waits for all, as with one stage, so the
//! next use of the buffer finds every stage free.

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
    let stages = match axe.integer_attribute("stages") {
        None => 1,
        Some(value) => value?,
    };
    let shape = axe_dialect::ops::staged_piece(&buffer.shape, stages);
    let b = Builder::before(op)?;
    let piece_type = |of: &TensorType| {
        let piece = TensorType { shape: shape.clone(), layout: LayoutSpec::Deferred, ..of.clone() };
        b.ty(&piece.to_text())
    };
    let (register_piece, global_piece, buffer_piece) = (piece_type(&source)?, piece_type(&dest)?, piece_type(&buffer)?);
    let all = pieces(&source.shape, &shape);
    for (index, offsets) in all.iter().enumerate() {
        let slice = |of: Value<'c, 'a>, at: &[i64], ty| {
            let attributes = [("offsets", i64_array(at)), ("sizes", i64_array(&shape))];
            b.value("axe.slice", &[of], ty, &attributes)
        };
        let piece = slice(source_value, offsets, register_piece)?;
        // The piece's stage of the buffer: the whole buffer with one stage, else the rows of stage index mod S.
        let stage = if stages == 1 {
            buffer_value
        } else {
            let mut at = vec![0; shape.len()];
            at[0] = (index as i64 % stages) * shape[0];
            slice(buffer_value, &at, buffer_piece)?
        };
        b.op("axe.sync", &[], &[], &scope)?;
        b.op("axe.copy", &[piece, stage], &[], &scope)?;
        let region = slice(dest_value, offsets, global_piece)?;
        let mut store = scope.clone();
        store.push(("operandSegmentSizes", "array<i32: 1, 1, 0, 0>".to_string()));
        // With S stages a store leaves the newest S - 1 stores reading (their stages are not written again
        // before S - 1 more pieces); the last waits for all, as one stage does.
        if stages > 1 && index + 1 < all.len() {
            store.push(("reads_in_flight", format!("{} : i64", stages - 1)));
        }
        b.op("axe.copy_async", &[stage, region], &[], &store)?;
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
