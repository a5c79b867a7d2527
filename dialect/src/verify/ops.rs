//! The op rules of the axe verifier (module docs of `verify`: every rule listed there under "op rules"), one
//! method per op kind on [`OpChecker`], and the helpers only they use.

use super::{known_layout, Rule, Violation, SLICE_CHECK_LIMIT};
use crate::types::Element;
use crate::{
    intern,
    ops::{AxeOp, OpKind},
    types::{LayoutSpec, TensorType, Threads},
};
use axe_layout::hw::{ElemType, Memory};
use axe_layout::{notation::shape_text, tile_layout::Coord, Axis, AxisKind, ExecScope, Layout};
use melior::ir::{operation::OperationLike, r#type::MemRefType, Location, Type, ValueLike};

/// The first index where a slice result's layout disagrees with its source's layout over the region `bounds`
/// (SliceLayoutMatches), as the violation message; `None` when they agree or the check does not apply (a layout
/// that does not parse or admit its shape is reported by the type rules; slices over [`SLICE_CHECK_LIMIT`]
/// elements are not checked).
fn slice_layout_violation(source: &TensorType, result: &TensorType, bounds: &[(i64, i64)]) -> Option<String> {
    let (from, to) = (known_layout(source)?, known_layout(result)?);
    if result.element_count() > SLICE_CHECK_LIMIT
        || from.size() != source.element_count()
        || to.size() != result.element_count()
    {
        return None;
    }
    for flat in 0..result.element_count() {
        let y = axe_layout::tile_layout::unflatten(&result.shape, flat);
        let x: Vec<i64> = y.iter().zip(bounds).map(|(v, (b, _))| v + b).collect();
        let (got, want) = (from_eval(&to, &result.shape, &y).ok()?, from_eval(&from, &source.shape, &x).ok()?);
        if got != want {
            return Some(format!(
                "slice result layout is not the sliced layout: index {} maps to {} but the source maps index {} to {}",
                shape_text(&y),
                points_text(&got),
                shape_text(&x),
                points_text(&want)
            ));
        }
    }
    None
}

/// Checks the op rules of one axe op.
pub(super) struct OpChecker<'c, 'a, 'o> {
    pub(super) op: AxeOp<'c, 'a>,
    pub(super) location: Location<'c>,
    pub(super) out: &'o mut Vec<Violation<'c>>,
}

impl OpChecker<'_, '_, '_> {
    fn fail(&mut self, rule: Rule, message: String) {
        self.out.push(Violation { location: self.location, rule, message });
    }

    pub(super) fn run(&mut self) {
        let tensors: Vec<_> = self.op.tensors();
        for tensor in &tensors {
            if let Err(e) = tensor {
                self.fail(Rule::TypeReads, format!("invalid tensor type of {e}"));
            }
        }
        self.check_scope();
        self.check_runtime_extents();
        match self.op.kind() {
            OpKind::View => self.check_view(),
            OpKind::Alloc => self.check_alloc(),
            OpKind::Slice => self.check_slice(),
            OpKind::Copy => self.check_copy(false),
            OpKind::CopyAsync => self.check_copy(true),
            OpKind::CopyStaged => self.check_copy_staged(),
            OpKind::Gemm => self.check_gemm(),
            OpKind::Fill => self.check_fill(),
            k if k.is_elementwise() => self.check_elementwise(),
            OpKind::Reduce => self.check_reduce(),
            OpKind::MbarrierInit => self.check_count("count"),
            OpKind::MbarrierArriveExpectTx => self.check_count("bytes"),
            OpKind::Annotate => self.check_annotation(),
            OpKind::Roles => self.check_roles(),
            OpKind::TileLoop => self.check_tile_loop(),
            _ => {}
        }
        if matches!(
            self.op.kind(),
            OpKind::CopyAsync
                | OpKind::MbarrierInit
                | OpKind::MbarrierArrive
                | OpKind::MbarrierArriveExpectTx
                | OpKind::MbarrierWait
        ) {
            self.check_barrier_index();
        }
    }

    /// Roles: `crate::roles::plan`'s rules, each error at the op it is about.
    fn check_roles(&mut self) {
        if let Err(errors) = crate::roles::plan(self.op.operation()) {
            for (op, message) in errors {
                self.out.push(Violation { location: op.location(), rule: Rule::Roles, message });
            }
        }
    }

    /// TileLoop: `crate::tile_loop::check`'s rules.
    fn check_tile_loop(&mut self) {
        if let Err(errors) = crate::tile_loop::check(self.op.operation()) {
            for message in errors {
                self.fail(Rule::TileLoop, message);
            }
        }
    }

    /// LayoutParses for an `axe.annotate`'s layout (tensor layouts are checked with their types).
    fn check_annotation(&mut self) {
        let Some(text) = self.op.attribute_text("layout") else { return };
        let Ok(layout) = crate::types::parse_layout_attribute(&text) else { return };
        if let Err(e) = crate::intern::layout(&layout) {
            self.fail(Rule::LayoutParses, format!("layout \"{layout}\" does not parse: {e}"));
        }
    }

    /// BarrierIndex: an op on an array of N > 1 barriers names its element (`%bars[%i]`), except an
    /// `axe.mbarrier_init`, which without an index initializes them all; a constant index lies in [0, N).
    fn check_barrier_index(&mut self) {
        let name = self.op.kind().name();
        let Some(barrier) = crate::barriers::barrier_use(&self.op) else {
            if self.op.kind() == OpKind::CopyAsync && self.op.operation().operand_count() > 3 {
                self.fail(Rule::BarrierIndex, format!("{name} has a barrier index but no barrier"));
            }
            return;
        };
        let count = barrier.count;
        if barrier.is_whole_array() && self.op.kind() != OpKind::MbarrierInit {
            self.fail(
                Rule::BarrierIndex,
                format!("{name} on an array of {count} barriers must name one element: %bars[%i]"),
            );
        }
        if let (Some(_), Some(index)) = (barrier.index, barrier.constant_index()) {
            if !(0..count).contains(&index) {
                self.fail(
                    Rule::BarrierIndex,
                    format!(
                        "{name} indexes element {index} of an array of {count} barriers (valid: 0 to {})",
                        count - 1
                    ),
                );
            }
        }
    }

    /// ScopeCoversLayout and ThreadsInScope.
    fn check_scope(&mut self) {
        let scope = match self.op.scope() {
            None => return,
            Some(Ok(scope)) => scope,
            Some(Err(e)) => return self.fail(Rule::ThreadsInScope, e),
        };
        for tensor in self.op.tensors().into_iter().filter_map(Result::ok) {
            let Some(layout) = known_layout(&tensor.tensor) else { continue };
            for axis in layout.axes() {
                if let AxisKind::Thread { unit, within } = axis.kind() {
                    if within > scope {
                        self.fail(
                            Rule::ScopeCoversLayout,
                            format!(
                                "op at {scope} scope cannot touch a layout over {axis} ({}): {axis} indexes \
                                 {unit}s within a {within}",
                                tensor.role
                            ),
                        );
                    }
                }
            }
        }
        if let Some(threads) = self.op.threads() {
            match threads.and_then(|t| threads_in_scope(&t, scope)) {
                Ok(()) => {}
                Err(e) => self.fail(Rule::ThreadsInScope, e),
            }
        }
    }

    /// RuntimeExtents for every tensor the op touches: only a view's result or a slice's source may have run-time
    /// extents or layout `row_major`.
    fn check_runtime_extents(&mut self) {
        let kind = self.op.kind();
        for used in self.op.tensors().into_iter().filter_map(Result::ok) {
            let t = &used.tensor;
            let runtime = t.has_runtime_extents();
            if !runtime && t.layout != LayoutSpec::RowMajor {
                continue;
            }
            let allowed = matches!((kind, used.role), (OpKind::View, "result") | (OpKind::Slice, "source"));
            if !allowed {
                let what = if runtime { "run-time extents" } else { "layout row_major" };
                self.fail(
                    Rule::RuntimeExtents,
                    format!(
                        "{} {} has {what}: only an axe.view result (and an axe.slice source) may, slice it to \
                         static sizes first",
                        kind.name(),
                        used.role
                    ),
                );
            } else if runtime && t.layout != LayoutSpec::RowMajor {
                self.fail(
                    Rule::RuntimeExtents,
                    format!(
                        "a tensor with run-time extents [{}] must have layout row_major, got {}",
                        t.shape
                            .iter()
                            .map(|&e| if e == crate::ops::DYNAMIC { "?".to_string() } else { e.to_string() })
                            .collect::<Vec<_>>()
                            .join(", "),
                        t.layout.describe()
                    ),
                );
            } else if t.mem != Memory::Global {
                self.fail(
                    Rule::RuntimeExtents,
                    format!("run-time extents and row_major are for global tensors, got {}", t.mem),
                );
            }
        }
    }

    /// RuntimeExtents of a view: extent operands, `multiples`, and a storage source.
    fn check_view_extents(&mut self, result: &TensorType, source_is_tensor: bool) {
        let runtime = result.shape.iter().filter(|&&e| e == crate::ops::DYNAMIC).count();
        let operands = self.op.operation().operand_count().saturating_sub(1);
        if runtime != operands {
            self.fail(
                Rule::RuntimeExtents,
                format!("view has {runtime} run-time extents but {operands} extent operands"),
            );
        }
        if (runtime > 0 || result.layout == LayoutSpec::RowMajor) && source_is_tensor {
            self.fail(
                Rule::RuntimeExtents,
                "a view with run-time extents or layout row_major must view a memref or pointer, not a tensor"
                    .to_string(),
            );
        }
        let Some(text) = self.op.attribute_text("multiples") else { return };
        let multiples = match crate::types::parse_i64_array(&text) {
            Ok(m) => m,
            Err(e) => return self.fail(Rule::RuntimeExtents, format!("view multiples {e}")),
        };
        if multiples.len() != result.shape.len() {
            return self.fail(
                Rule::RuntimeExtents,
                format!(
                    "view multiples must have one entry per dimension ({}), got {}",
                    result.shape.len(),
                    multiples.len()
                ),
            );
        }
        for (d, (&m, &extent)) in multiples.iter().zip(&result.shape).enumerate() {
            if m < 1 || (extent != crate::ops::DYNAMIC && extent % m != 0) {
                self.fail(
                    Rule::RuntimeExtents,
                    format!("view multiple of dimension {d} must be at least 1 and divide a static extent, got {m} for extent {}",
                        if extent == crate::ops::DYNAMIC { "?".to_string() } else { extent.to_string() }),
                );
            }
        }
    }

    fn check_view(&mut self) {
        let Some(result) = self.op.tensor("result") else { return };
        let Some(source) = self.op.operand(0) else { return };
        let storage = ViewSource::of(source.r#type());
        self.check_view_extents(&result, matches!(storage, ViewSource::Tensor(_)));
        let (mem, element, elements) = match &storage {
            ViewSource::Memref { mem, element, elements } => (*mem, Some(Element::read(element)), *elements),
            ViewSource::Pointer { mem } => (*mem, None, None),
            ViewSource::Tensor(t) => (Some(t.mem), Some(t.dtype.clone()), None),
            ViewSource::Other(text) => {
                return self.fail(
                    Rule::MemoryScopes,
                    format!("view source must be a memref, !llvm.ptr or !axe.tensor, got {text}"),
                )
            }
        };
        match mem {
            Some(mem) if mem != result.mem => self.fail(
                Rule::MemoryScopes,
                format!("view of {} storage must be a {mem} tensor, got {}", storage.describe(), result.mem),
            ),
            None => self.fail(
                Rule::MemoryScopes,
                format!("view source {} is in an address space axe does not know", storage.describe()),
            ),
            _ => {}
        }
        if let Some(element) = element {
            // A tf32 tensor is stored as f32 (the same 32 bits; MLIR's tf32 has no memory type of its own).
            let stored_as =
                |e: &Element| *e == result.dtype || (result.dtype.is(ElemType::TF32) && e.is(ElemType::F32));
            if !stored_as(&element) {
                self.fail(
                    Rule::DtypesAgree,
                    format!("view source element type {element} must equal the tensor dtype {}", result.dtype),
                );
            }
        }
        if let (Some(elements), Some(layout)) = (elements, known_layout(&result)) {
            // `reg` is the register axis m too (axe_layout::threads).
            let span = axe_layout::threads::register_span(&layout);
            if span > elements {
                self.fail(
                    Rule::ViewFitsStorage,
                    format!("view layout spans {span} elements of m, but the memref holds {elements}"),
                );
            }
        }
    }

    fn check_alloc(&mut self) {
        if let Some(result) = self.op.tensor("result") {
            if result.mem == Memory::Global {
                self.fail(
                    Rule::MemoryScopes,
                    "alloc cannot allocate global memory: view a memref or pointer instead".to_string(),
                );
            }
            if result.mem == Memory::Hbm {
                self.fail(
                    Rule::MemoryScopes,
                    "alloc cannot allocate hbm: a Trainium kernel's hbm tensors are its function's arguments"
                        .to_string(),
                );
            }
        }
    }

    fn check_slice(&mut self) {
        let (Some(source), Some(result)) = (self.op.tensor("source"), self.op.tensor("result")) else { return };
        let region = match self.op.slice_region() {
            Ok(region) => region,
            Err(e) => return self.fail(Rule::RegionInBounds, e),
        };
        if region.offsets.len() != source.shape.len() || region.sizes.len() != source.shape.len() {
            return self.fail(
                Rule::RegionInBounds,
                format!(
                    "slice region rank must equal the source rank {}, got {} offsets and {} sizes",
                    source.shape.len(),
                    region.offsets.len(),
                    region.sizes.len()
                ),
            );
        }
        let dynamic = region.offsets.iter().filter(|o| o.is_none()).count();
        if dynamic != self.op.dynamic_offset_count() {
            self.fail(
                Rule::RegionInBounds,
                format!("slice has {dynamic} dynamic offsets but {} offset operands", self.op.dynamic_offset_count()),
            );
        }
        let mut in_bounds = true;
        for (d, ((offset, &size), &extent)) in region.offsets.iter().zip(&region.sizes).zip(&source.shape).enumerate() {
            let begin = offset.unwrap_or(0);
            // A run-time extent bounds nothing statically: past it, the lowering fills or clips (dialect.md).
            let past = extent != crate::ops::DYNAMIC && begin.saturating_add(size) > extent;
            if begin < 0 || size < 1 || past {
                in_bounds = false;
                let shown = offset.map_or("?".to_string(), |o| o.to_string());
                self.fail(
                    Rule::RegionInBounds,
                    format!(
                        "slice region of dimension {d} must lie in [0,{}), got offset {shown} size {size}",
                        if extent == crate::ops::DYNAMIC { "?".to_string() } else { extent.to_string() }
                    ),
                );
            }
        }
        let rank_reduced = source.mem == Memory::Hbm
            && result.layout == LayoutSpec::Deferred
            && crate::ops::kept_dimensions(&region.sizes, &result.shape).is_some();
        if result.shape != region.sizes && !rank_reduced {
            in_bounds = false;
            self.fail(
                Rule::RegionInBounds,
                format!(
                    "slice result shape must equal the sizes {}, got {}",
                    shape_text(&region.sizes),
                    shape_text(&result.shape)
                ),
            );
        }
        if result.dtype != source.dtype || result.mem != source.mem {
            self.fail(
                Rule::DtypesAgree,
                format!(
                    "slice result must keep the source dtype and memory {} in {}, got {} in {}",
                    source.dtype, source.mem, result.dtype, result.mem
                ),
            );
        }
        if source.layout == LayoutSpec::RowMajor && result.layout != LayoutSpec::Deferred {
            self.fail(
                Rule::RuntimeExtents,
                format!(
                    "a slice of a row_major tensor has run-time strides: its type must leave the layout out, got {}",
                    result.layout.describe()
                ),
            );
        }
        if let (true, Some(bounds)) = (in_bounds, region.static_bounds()) {
            self.check_slice_layout(&source, &result, &bounds);
        }
    }

    /// SliceLayoutMatches (decided once per source, result and region: [`intern::slice_check`]).
    fn check_slice_layout(&mut self, source: &TensorType, result: &TensorType, bounds: &[(i64, i64)]) {
        let key = (source.clone(), result.clone(), bounds.to_vec());
        if let Some(message) = intern::slice_check(key, || slice_layout_violation(source, result, bounds)) {
            self.fail(Rule::SliceLayoutMatches, message);
        }
    }

    fn check_copy(&mut self, is_async: bool) {
        let (Some(source), Some(dest)) = (self.op.tensor("source"), self.op.tensor("dest")) else { return };
        let name = self.op.kind().name().trim_start_matches("axe.");
        if source.dtype != dest.dtype {
            self.fail(
                Rule::DtypesAgree,
                format!("{name} source and dest dtypes must agree, got {} and {}", source.dtype, dest.dtype),
            );
        }
        // The copy planner (--lower-copy, `axe-layout copy-plan`) applies this same rule.
        if let Err(message) = axe_layout::copy::shapes_agree(&source.shape, &dest.shape) {
            self.fail(Rule::ShapesAgree, format!("{name} {message}"));
        }
        if !is_async {
            return;
        }
        let has_barrier = self.op.operation().operand_count() > 2;
        match (source.mem, dest.mem, has_barrier) {
            // A load without a barrier is a cp.async group, completed by `cp.async.wait_group` (--lower-copy).
            (Memory::Global, Memory::Shared, _) | (Memory::Shared, Memory::Global, false) => {}
            (Memory::Shared, Memory::Global, true) => self.fail(
                Rule::MemoryScopes,
                "copy_async store to global memory completes through bulk groups and takes no barrier operand"
                    .to_string(),
            ),
            (from, to, _) => self.fail(
                Rule::MemoryScopes,
                format!("copy_async must copy global to shared or shared to global, got {from} to {to}"),
            ),
        }
        // A store may leave its newest bulk groups reading (a staged epilogue's stages); a load has nothing to say.
        match self.op.integer_attribute("reads_in_flight") {
            None => {}
            Some(Ok(n)) if (0..=63).contains(&n) && source.mem == Memory::Shared && dest.mem == Memory::Global => {}
            Some(Ok(n)) => self.fail(
                Rule::Counts,
                format!("copy_async reads_in_flight {n}: a store shared -> global may leave 0 to 63 stores reading"),
            ),
            Some(Err(e)) => self.fail(Rule::Counts, e),
        }
    }

    /// A staged copy: registers to global through shared, one dtype, the same shape on both ends, and a buffer
    /// that tiles it (each dimension divides the source's).
    fn check_copy_staged(&mut self) {
        let tensors = (self.op.tensor("source"), self.op.tensor("dest"), self.op.tensor("buffer"));
        let (Some(source), Some(dest), Some(buffer)) = tensors else { return };
        if source.dtype != dest.dtype || source.dtype != buffer.dtype {
            self.fail(
                Rule::DtypesAgree,
                format!(
                    "copy_staged source, dest and buffer dtypes must agree, got {}, {} and {}",
                    source.dtype, dest.dtype, buffer.dtype
                ),
            );
        }
        if let Err(message) = axe_layout::copy::shapes_agree(&source.shape, &dest.shape) {
            self.fail(Rule::ShapesAgree, format!("copy_staged {message}"));
        }
        let stages = match self.op.integer_attribute("stages") {
            None => 1,
            Some(Ok(s)) if s >= 1 && buffer.shape.first().is_some_and(|rows| rows % s == 0) => s,
            Some(Ok(s)) => {
                let buffer = shape_text(&buffer.shape);
                let message = format!(
                    "copy_staged stages {s} must be at least 1 and divide the buffer's first dimension, got \
                     buffer {buffer}"
                );
                return self.fail(Rule::ShapesAgree, message);
            }
            Some(Err(e)) => return self.fail(Rule::Counts, e),
        };
        let piece = crate::ops::staged_piece(&buffer.shape, stages);
        let tiles = piece.len() == source.shape.len()
            && piece.iter().zip(&source.shape).all(|(b, s)| *b > 0 && *s > 0 && s % b == 0);
        if !tiles {
            let what = if stages == 1 {
                "buffer shape".to_string()
            } else {
                format!("piece shape (a stage of the buffer, of {stages})")
            };
            self.fail(
                Rule::ShapesAgree,
                format!(
                    "copy_staged {what} {} must tile the source's {} (each dimension dividing it)",
                    shape_text(&piece),
                    shape_text(&source.shape)
                ),
            );
        }
        if (source.mem, dest.mem, buffer.mem) != (Memory::Reg, Memory::Global, Memory::Shared) {
            self.fail(
                Rule::MemoryScopes,
                format!(
                    "copy_staged stores registers to global memory through shared memory, got {} to {} through {}",
                    source.mem, dest.mem, buffer.mem
                ),
            );
        }
    }

    fn check_gemm(&mut self) {
        let (Some(a), Some(b), Some(c)) = (self.op.tensor("a"), self.op.tensor("b"), self.op.tensor("c")) else {
            return;
        };
        if a.dtype != b.dtype {
            self.fail(Rule::DtypesAgree, format!("gemm a and b dtypes must agree, got {} and {}", a.dtype, b.dtype));
        }
        let ok = matches!((a.shape.as_slice(), b.shape.as_slice(), c.shape.as_slice()),
            ([m, k], [k2, n], [m2, n2]) if k == k2 && m == m2 && n == n2);
        if !ok {
            self.fail(
                Rule::ShapesAgree,
                format!(
                    "gemm shapes must be a [M,K], b [K,N], c [M,N], got {}, {}, {}",
                    shape_text(&a.shape),
                    shape_text(&b.shape),
                    shape_text(&c.shape)
                ),
            );
        }
        // Trainium's Tensor Engine reads SBUF and writes PSUM (axe_layout::trn::matmul); GPU tensor cores the rest.
        let trainium = [&a, &b, &c].iter().any(|t| t.mem.is_trainium());
        if !trainium && self.op.attribute_text("accumulate").as_deref() == Some("false") {
            self.fail(
                Rule::MemoryScopes,
                "gemm {accumulate = false} (c = a * b) has no GPU lowering yet: Trainium's nc_matmul takes it"
                    .to_string(),
            );
        }
        let rules = if trainium {
            [
                ("a", &a, &[Memory::Sbuf][..], "sbuf"),
                ("b", &b, &[Memory::Sbuf], "sbuf"),
                ("c", &c, &[Memory::Psum], "psum"),
            ]
        } else {
            [
                ("a", &a, &[Memory::Shared, Memory::Reg, Memory::Tmem][..], "shared, reg or tmem"),
                ("b", &b, &[Memory::Shared, Memory::Reg], "shared or reg"),
                ("c", &c, &[Memory::Reg, Memory::Tmem], "reg or tmem"),
            ]
        };
        for (role, tensor, allowed, what) in rules {
            if !allowed.contains(&tensor.mem) {
                self.fail(Rule::MemoryScopes, format!("gemm {role} must be in {what}, got {}", tensor.mem));
            }
        }
    }

    fn check_fill(&mut self) {
        let (Some(dest), Some(value)) = (self.op.tensor("dest"), self.op.operand(1)) else { return };
        let value_type = Element::read(&value.r#type().to_string());
        // A tf32 tensor holds f32 bit patterns: it is filled with an f32 value.
        if value_type != dest.dtype && !(dest.dtype.is(ElemType::TF32) && value_type.is(ElemType::F32)) {
            self.fail(
                Rule::DtypesAgree,
                format!("fill value type must equal the dest dtype {}, got {value_type}", dest.dtype),
            );
        }
    }

    /// An elementwise op: register tensors of one shape and one layout; the dtypes it converts or computes in.
    fn check_elementwise(&mut self) {
        let tensors: Vec<_> = self.op.tensors().into_iter().filter_map(Result::ok).collect();
        let names = self.op.kind().tensor_operand_names();
        if tensors.len() != names.len() {
            return;
        }
        let name = self.op.kind().name().trim_start_matches("axe.");
        // On Trainium the engines compute on SBUF and PSUM tiles, each placed as its layout says (the NKI emitter
        // addresses both sides), so only shapes and dtypes must agree.
        let on_chip = |t: &crate::ops::TensorUse| matches!(t.tensor.mem, Memory::Sbuf | Memory::Psum);
        let trainium = tensors.iter().all(on_chip);
        if let Some(t) = tensors.iter().find(|t| !trainium && t.tensor.mem != Memory::Reg) {
            return self.fail(
                Rule::MemoryScopes,
                format!(
                    "{name} works on register tensors (or Trainium's sbuf and psum), got {} in {}",
                    t.role, t.tensor.mem
                ),
            );
        }
        let dest = &tensors[tensors.len() - 1];
        if trainium {
            return self.check_trainium_elementwise(name, &tensors);
        }
        if self.op.kind() == OpKind::Exp {
            return self.fail(
                Rule::MemoryScopes,
                format!(
                    "{name} has no GPU lowering yet: it works on Trainium's sbuf and psum tiles, got {}",
                    dest.tensor.mem
                ),
            );
        }
        if self.op.kind().broadcasts() {
            return self.check_broadcast(name, &tensors);
        }
        for t in &tensors[..tensors.len() - 1] {
            if t.tensor.shape != dest.tensor.shape {
                return self.fail(
                    Rule::ShapesAgree,
                    format!(
                        "{name} {} and dest shapes must agree, got {} and {}",
                        t.role,
                        shape_text(&t.tensor.shape),
                        shape_text(&dest.tensor.shape)
                    ),
                );
            }
        }
        self.check_elementwise_dtypes(name, &tensors);
        for t in &tensors[..tensors.len() - 1] {
            if let Some(message) = layouts_differ(&t.tensor, &dest.tensor) {
                self.fail(Rule::LayoutsAgree, format!("{name} {} and dest {message}", t.role));
            }
        }
    }

    /// An elementwise op on Trainium's tiles: each operand's shape equals dest's or, for the ops that broadcast, has
    /// extent 1 where it differs; float operands (the engines compute in f32 and convert to dest's type). Where
    /// each tile lies is the NKI emitter's to address, so layouts need not agree.
    fn check_trainium_elementwise(&mut self, name: &str, tensors: &[crate::ops::TensorUse]) {
        let dest = &tensors[tensors.len() - 1];
        let broadcasts = self.op.kind().broadcasts();
        for t in &tensors[..tensors.len() - 1] {
            let fits = t.tensor.shape.len() == dest.tensor.shape.len()
                && t.tensor.shape.iter().zip(&dest.tensor.shape).all(|(&a, &d)| a == d || (broadcasts && a == 1));
            if !fits {
                let how = if broadcasts { "broadcast to (equal, or 1 where they differ)" } else { "equal" };
                return self.fail(
                    Rule::ShapesAgree,
                    format!(
                        "{name} {} shape must {how} dest's, got {} and {}",
                        t.role,
                        shape_text(&t.tensor.shape),
                        shape_text(&dest.tensor.shape)
                    ),
                );
            }
        }
        if self.op.kind() == OpKind::Cast {
            return self.check_elementwise_dtypes(name, tensors);
        }
        use ElemType::{BF16, F16, F32};
        if let Some(t) = tensors.iter().find(|t| ![F32, F16, BF16].iter().any(|f| t.tensor.dtype.is(*f))) {
            self.fail(
                Rule::DtypesAgree,
                format!("{name} takes f32, f16 or bf16 tiles, got {} {}", t.role, t.tensor.dtype),
            );
        }
    }

    /// A reduction: Trainium tiles of one rank, dest's extents those of source or 1 (the reduced dimensions),
    /// `max` or `sum`, floats.
    fn check_reduce(&mut self) {
        let (Some(source), Some(dest)) = (self.op.tensor("source"), self.op.tensor("dest")) else { return };
        match self.op.attribute_text("kind").as_deref() {
            Some("\"max\"" | "\"sum\"") => {}
            other => self.fail(
                Rule::Counts,
                format!("reduce kind must be \"max\" or \"sum\", got {}", other.unwrap_or("nothing")),
            ),
        }
        let on_chip = |t: &TensorType| matches!(t.mem, Memory::Sbuf | Memory::Psum);
        if !on_chip(&source) || !on_chip(&dest) {
            return self.fail(
                Rule::MemoryScopes,
                format!(
                    "reduce has no GPU lowering yet: it works on Trainium's sbuf and psum tiles, got {} to {}",
                    source.mem, dest.mem
                ),
            );
        }
        let fits = source.shape.len() == dest.shape.len()
            && source.shape.iter().zip(&dest.shape).all(|(&s, &d)| d == s || d == 1);
        if !fits {
            self.fail(
                Rule::ShapesAgree,
                format!(
                    "reduce dest must have source's extents or 1 (the reduced dimensions), got {} to {}",
                    shape_text(&source.shape),
                    shape_text(&dest.shape)
                ),
            );
        }
        use ElemType::{BF16, F16, F32};
        let bad = [&source, &dest].into_iter().find(|t| ![F32, F16, BF16].iter().any(|f| t.dtype.is(*f)));
        if let Some(dtype) = bad.map(|t| t.dtype.to_string()) {
            self.fail(Rule::DtypesAgree, format!("reduce takes f32, f16 or bf16 tiles, got {dtype}"));
        }
    }

    /// ShapesAgree, DtypesAgree and LayoutsAgree for the elementwise ops that broadcast (`add`, `mul`, `fma`):
    /// each operand's shape broadcasts to dest's, and each thread holds in its registers the operand elements its
    /// dest elements read ([`axe_layout::broadcast::register_map`]).
    fn check_broadcast(&mut self, name: &str, tensors: &[crate::ops::TensorUse]) {
        let dest = &tensors[tensors.len() - 1];
        for t in &tensors[..tensors.len() - 1] {
            if !axe_layout::broadcast::broadcasts(&t.tensor.shape, &dest.tensor.shape) {
                return self.fail(
                    Rule::ShapesAgree,
                    format!(
                        "{name} {} shape {} does not broadcast to dest shape {} (same rank, each extent equal or 1)",
                        t.role,
                        shape_text(&t.tensor.shape),
                        shape_text(&dest.tensor.shape)
                    ),
                );
            }
        }
        self.check_elementwise_dtypes(name, tensors);
        let Some(to) = known_layout(&dest.tensor) else { return };
        for t in &tensors[..tensors.len() - 1] {
            let Some(from) = known_layout(&t.tensor) else { continue };
            if let Err(e) = axe_layout::broadcast::register_map(&to, &dest.tensor.shape, &from, &t.tensor.shape) {
                let detail = e.message.trim_start_matches("register-broadcast rule: ");
                return self.fail(Rule::LayoutsAgree, format!("{name} {} and dest: {detail}", t.role));
            }
        }
    }

    /// DtypesAgree for cast (f32 -> f16 | bf16 | e4m3 | e5m2, f16 | bf16 -> f32) and for scale and add (one float dtype).
    fn check_elementwise_dtypes(&mut self, name: &str, tensors: &[crate::ops::TensorUse]) {
        use ElemType::{BF16, F16, F32, F8E4M3, F8E5M2};
        let numbers: Vec<Option<ElemType>> = tensors.iter().map(|t| t.tensor.dtype.number()).collect();
        let dtypes: Vec<String> = tensors.iter().map(|t| t.tensor.dtype.to_string()).collect();
        if self.op.kind() == OpKind::Cast {
            let allowed = matches!(
                numbers.as_slice(),
                [Some(F32), Some(F16 | BF16 | F8E4M3 | F8E5M2)] | [Some(F16 | BF16), Some(F32)]
            );
            if !allowed {
                self.fail(
                    Rule::DtypesAgree,
                    format!(
                        "cast converts f32 to f16, bf16, f8E4M3FN or f8E5M2, or f16 or bf16 to f32, got {} to {}",
                        dtypes[0], dtypes[1]
                    ),
                );
            }
            return;
        }
        let first = &tensors[0].tensor.dtype;
        let float = [F32, F16, BF16].iter().any(|t| first.is(*t));
        if !float || tensors.iter().any(|t| t.tensor.dtype != *first) {
            self.fail(
                Rule::DtypesAgree,
                format!("{name} takes tensors of one dtype, f32, f16 or bf16, got {}", dtypes.join(", ")),
            );
        }
    }

    fn check_count(&mut self, name: &str) {
        match self.op.integer_attribute(name) {
            Some(Ok(v)) if v >= 1 => {}
            Some(Ok(v)) => self.fail(
                Rule::Counts,
                format!("{} {name} must be at least 1, got {v}", self.op.kind().name().trim_start_matches("axe.")),
            ),
            Some(Err(e)) => self.fail(Rule::Counts, e),
            None => {}
        }
    }
}

/// Why two tensors of one shape do not have the same layout map (LayoutsAgree), or `None` when they do (or a
/// layout does not parse or admit the shape: the type rules report that).
fn layouts_differ(a: &TensorType, b: &TensorType) -> Option<String> {
    let (LayoutSpec::Text(ta), LayoutSpec::Text(tb)) = (&a.layout, &b.layout) else { return None };
    if intern::canonical_text(ta).is_some_and(|c| Some(c) == intern::canonical_text(tb)) {
        return None;
    }
    let (la, lb) = (known_layout(a)?, known_layout(b)?);
    // Thread axes are one hardware: `32@tid` and `1@warpid` (and `reg` and `m`) are the same place, so the layouts
    // are compared in lanes and warps when both can be written so (axe_layout::threads).
    let in_warps = |l: &Layout| axe_layout::threads::to_hardware(l, axe_layout::threads::Grain::Warp).ok();
    if let (Some(ha), Some(hb)) = (in_warps(&la), in_warps(&lb)) {
        if matches!(axe_layout::canonicalize::equivalent(&ha, &hb, &a.shape), Ok(true)) {
            return None;
        }
    }
    match axe_layout::canonicalize::equivalent(&la, &lb, &a.shape) {
        Ok(true) => None,
        Ok(false) => {
            Some(format!("must have the same layout (each element in the same thread and register), got {la} and {lb}"))
        }
        Err(e) => Some(format!("layouts {la} and {lb} cannot be compared: {e}")),
    }
}

/// ThreadsInScope for one subset.
fn threads_in_scope(threads: &Threads, scope: ExecScope) -> Result<(), String> {
    let axis = Axis::named(&threads.axis).map_err(|e| format!("thread subset axis: {}", e.message))?;
    let AxisKind::Thread { unit, within } = axis.kind() else {
        return Err(format!("thread subset axis {axis} is not a thread axis"));
    };
    if unit >= scope || within > scope {
        return Err(format!(
            "thread subset must select units inside the {scope} scope, got {axis} ({unit}s within a {within})"
        ));
    }
    let (begin, end) = (threads.begin, threads.end);
    if begin < 0 || begin >= end {
        return Err(format!("thread subset range must satisfy 0 <= begin < end, got [{begin},{end})"));
    }
    if let Some(extent) = axis.fixed_extent().filter(|&e| end > e) {
        return Err(format!("thread subset range [{begin},{end}) exceeds the {extent} values of {axis}"));
    }
    Ok(())
}

/// The storage behind a view's source.
enum ViewSource {
    Memref { mem: Option<Memory>, element: String, elements: Option<i64> },
    Pointer { mem: Option<Memory> },
    Tensor(TensorType),
    Other(String),
}

impl ViewSource {
    fn of(ty: Type) -> ViewSource {
        let text = ty.to_string();
        if let Ok(Some(tensor)) = intern::tensor_type(&text) {
            return ViewSource::Tensor(tensor);
        }
        if let Some(rest) = text.strip_prefix("!llvm.ptr") {
            let space = rest.trim_start_matches('<').trim_end_matches('>');
            let mem = match space {
                "" | "0" | "1" => Some(Memory::Global),
                "3" | "7" => Some(Memory::Shared),
                // A tensor-memory address (what --lower-mma and --lower-copy leave of a lowered tmem alloc).
                "6" => Some(Memory::Tmem),
                _ => None,
            };
            return ViewSource::Pointer { mem };
        }
        if let Ok(memref) = MemRefType::try_from(ty) {
            use melior::ir::r#type::{DimSize, ShapedTypeLike};
            let mem = match memref.memory_space().map(|a| a.to_string()) {
                None => Some(Memory::Global),
                Some(s) if s.starts_with("1 ") || s.starts_with("0 ") || s == "#gpu.address_space<global>" => {
                    Some(Memory::Global)
                }
                Some(s) if s.starts_with("3 ") || s == "#gpu.address_space<workgroup>" => Some(Memory::Shared),
                Some(s) if s == "#gpu.address_space<private>" => Some(Memory::Reg),
                Some(_) => None,
            };
            let elements = (0..memref.rank()).try_fold(1i64, |acc, i| match memref.dim_size(i) {
                Ok(DimSize::Static(n)) => acc.checked_mul(i64::try_from(n).ok()?),
                _ => None,
            });
            return ViewSource::Memref { mem, element: memref.element().to_string(), elements };
        }
        ViewSource::Other(text)
    }

    fn describe(&self) -> String {
        match self {
            ViewSource::Memref { mem: Some(Memory::Shared), .. } => "workgroup memref".to_string(),
            ViewSource::Memref { .. } => "memref".to_string(),
            ViewSource::Pointer { mem: Some(Memory::Shared) } => "shared pointer".to_string(),
            ViewSource::Pointer { .. } => "pointer".to_string(),
            ViewSource::Tensor(t) => format!("{} tensor", t.mem),
            ViewSource::Other(text) => text.clone(),
        }
    }
}

/// L(x) as a sorted set of points with zero entries dropped.
fn from_eval(layout: &Layout, shape: &[i64], x: &[i64]) -> Result<Vec<Coord>, axe_layout::LayoutError> {
    let mut points: Vec<Coord> = layout
        .eval(shape, x)?
        .into_iter()
        .map(|mut p| {
            p.retain(|_, v| *v != 0);
            p
        })
        .collect();
    points.sort();
    points.dedup();
    Ok(points)
}

/// `{m:33}` / `{m:1, laneid:2}` text of a point set.
fn points_text(points: &[Coord]) -> String {
    let one = |p: &Coord| {
        let items: Vec<String> = p.iter().map(|(a, v)| format!("{a}:{v}")).collect();
        format!("{{{}}}", items.join(", "))
    };
    let all: Vec<String> = points.iter().map(one).collect();
    all.join(" ")
}
