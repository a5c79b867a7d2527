//! `axe-translate --emit=nki`: a Trainium module of axe ops to an NKI kernel (Python), for the Neuron compiler.
//!
//! The input is the same axe IR as the GPU path (`axe.copy`, `axe.gemm`, `axe.cast`, `axe.fill`, `axe.alloc`,
//! `axe.slice`, `scf.for` and `arith` index arithmetic) on tensors in Trainium's memories (`hbm`, `sbuf`,
//! `psum`) under `axe.target = "trn1"`. Each `func.func` becomes one `@nki.jit` kernel; its `hbm` arguments that
//! the function only reads are the kernel's inputs, those it only writes are allocated in `nl.shared_hbm` and
//! returned (NKI kernels return their outputs). Every decision about where data lies is the layout crate's:
//! - an `sbuf`/`psum` tensor is one NKI tile: `axe_layout::trn::nki::on_chip` finds its rectangle of partitions
//!   and free offsets (or refuses with `nki-tile`, `nki-partition-range`, `nki-capacity`);
//! - an `hbm` tensor is an NKI array: `axe_layout::trn::nki::hbm_array` gives its axis order, which says whether a
//!   load arrives with the partition dimension first (`nl.load`) or transposed (`nl.load_transpose2d`);
//! - `axe.gemm` is planned by `axe_layout::trn::matmul::plan` (Appendix H), one `nisa.nc_matmul` per planned
//!   instruction, each accumulating into the PSUM tile (`axe.gemm` is `c += a * b`).
//!
//! A loop becomes `nl.affine_range` when its iterations are independent (writes to tiles made outside it are
//! only PSUM accumulations, which NKI allows there), else `nl.sequential_range`. Names come from the source
//! (`%acc` is `acc`). What has no NKI form is refused at the op, with the rule.

mod python;

use crate::ir::multiple::known_multiple;
use crate::ir::target::target_name;
use axe_dialect::access;
use axe_dialect::ops::{kept_dimensions, tensor_of, AxeOp, OpKind, SliceRegion};
use axe_dialect::types::{LayoutSpec, TensorType};
use axe_dialect::SourceLoc;
use axe_layout::hw::{ElemType, Memory};
use axe_layout::trn::matmul::{self, MatmulRequest, Operand, Place};
use axe_layout::trn::nki::{buffer, hbm_array, region, region_step, transpose, HbmArray, NkiError, Rect};
use axe_layout::trn::{self, Chip, TrnMemory};
use axe_layout::Layout;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, Location, Module, OperationRef, Value, ValueLike};
use python::{dtype, slice, BinOp, Expr, Lines, Names};
use std::collections::HashMap;

/// An error at an op.
pub type Located<'c> = (Location<'c>, String);

type Emitted<'c, T> = Result<T, Located<'c>>;

/// The NKI kernels of `module` as one Python file, or the first refusal at its op. `source` and `source_name`
/// are the text the module was parsed from (for the source's value names and the file's header).
pub fn emit<'c>(module: &Module<'c>, source: &str, source_name: &str) -> Result<String, Vec<Located<'c>>> {
    emit_module(module, source, source_name).map_err(|e| vec![e])
}

fn emit_module<'c>(module: &Module<'c>, source: &str, source_name: &str) -> Emitted<'c, String> {
    let top = module.as_operation();
    let location = top.location();
    let chip = match target_name(top) {
        Some(name) => trn::chip(&name).ok_or_else(|| {
            (
                location,
                format!("nki: target: \"{name}\" is not a Trainium chip; --emit=nki needs axe.target = \"trn1\""),
            )
        })?,
        None => return Err((location, "nki: target: put axe.target = \"trn1\" on the module".to_string())),
    };
    let functions: Vec<OperationRef> = std::iter::successors(module.body().first_operation(), |op| op.next_in_block())
        .filter(|op| op.name().as_string_ref().as_str() == Ok("func.func"))
        .collect();
    if functions.is_empty() {
        return Err((location, "nki: the module has no func.func to emit".to_string()));
    }
    let file = source_name.rsplit('/').next().unwrap_or(source_name);
    let mut out = Lines::default();
    let mut kernels = Vec::new();
    for function in &functions {
        let mut emitter = Emitter::new(chip, source);
        kernels.push(emitter.function(*function)?);
    }
    out.line(format!(
        "\"\"\"Emitted by `axe-translate --emit=nki` from {file} (Axe) for {}. Regenerate it; do not edit it.",
        chip.name
    ));
    out.line("");
    out.line("Run with the AWS Neuron SDK (neuronx-cc) on a trn1 instance: call a kernel on XLA tensors from PyTorch");
    out.line("(torch_neuronx) or JAX, where @nki.jit compiles it, or on numpy arrays without a device:");
    out.line(format!("nki.simulate_kernel({}, *arrays).", kernels[0].name));
    for kernel in &kernels {
        out.line("");
        for line in &kernel.doc {
            out.line(line);
        }
    }
    out.line("\"\"\"");
    out.line("");
    out.line("import neuronxcc.nki as nki");
    out.line("import neuronxcc.nki.isa as nisa");
    out.line("import neuronxcc.nki.language as nl");
    let mut text = out.finish();
    for kernel in kernels {
        text.push_str("\n\n");
        text.push_str(&kernel.body);
    }
    Ok(text)
}

/// One emitted kernel.
struct Kernel {
    name: String,
    /// Its lines in the file's docstring (arguments and results).
    doc: Vec<String>,
    /// `@nki.jit` and the function.
    body: String,
}

/// What an IR value is in the kernel.
#[derive(Clone)]
enum Bound {
    /// An `index` value: an expression of loop variables.
    Index(Expr),
    /// A float constant, as Python writes it.
    Scalar(String),
    /// A region of an HBM array.
    Hbm(HbmView),
    /// An SBUF or PSUM tile.
    Tile(Tile),
}

/// A region of an HBM argument: `sizes` elements from `offsets` in the argument's logical dimensions, of which
/// the view keeps `kept` (a rank-reducing slice indexes the others).
#[derive(Clone)]
struct HbmView {
    var: String,
    array: HbmArray,
    offsets: Vec<Expr>,
    sizes: Vec<i64>,
    kept: Vec<usize>,
}

impl HbmView {
    /// The view's dimensions in the order of the array's axes (which of its dimensions comes first in memory).
    fn axis_order(&self) -> Vec<usize> {
        self.array.dims.iter().filter_map(|d| self.kept.iter().position(|k| k == d)).collect()
    }
}

/// An on-chip tensor: the region `[origin, origin + shape)`, moved at run time by `shift`, of an allocation of
/// `root_shape` laid out by `layout` in the NKI tile `var` of `buffer` partitions by free elements.
#[derive(Clone)]
struct Tile {
    var: String,
    buffer: [i64; 2],
    mem: TrnMemory,
    dtype: ElemType,
    layout: Layout,
    root_shape: [i64; 2],
    origin: [i64; 2],
    shape: [i64; 2],
    /// Where the region lies at `origin`: one rectangle, or why it is none (refused where it is used).
    rect: Result<Rect, NkiError>,
    /// The run-time move of the region, in partitions and free offsets.
    shift: [Expr; 2],
}

impl Tile {
    /// The rectangle the region lies in, or the refusal.
    fn rect(&self) -> Result<Rect, String> {
        self.rect.clone().map_err(|e| e.to_string())
    }

    /// `var[p0:p0 + rows, f0:f0 + cols]`, the static starts moved by `shift`.
    fn region(&self, partition: i64, rows: i64, free: i64, cols: i64) -> String {
        let p = Expr::binary(BinOp::Add, Expr::Int(partition), self.shift[0].clone());
        let f = Expr::binary(BinOp::Add, Expr::Int(free), self.shift[1].clone());
        format!("{}[{}, {}]", self.var, slice(&p, rows), slice(&f, cols))
    }

    /// The tensor as an operand: the bare tile when the tensor is all of it.
    fn read(&self) -> Result<String, String> {
        let r = self.rect()?;
        if self.is_whole(r) {
            return Ok(self.var.clone());
        }
        Ok(self.region(r.partition, r.rows, r.free, r.cols))
    }

    /// The tensor as an assignment target.
    fn write(&self) -> Result<String, String> {
        let r = self.rect()?;
        if self.is_whole(r) {
            return Ok(format!("{}[...]", self.var));
        }
        self.read()
    }

    fn is_whole(&self, r: Rect) -> bool {
        let unmoved = self.shift == [Expr::Int(0), Expr::Int(0)];
        r.partition == 0 && r.free == 0 && [r.rows, r.cols] == self.buffer && unmoved
    }

    /// The region as a layout of its own (its rectangle at its static start), for the matmul planner.
    fn planned_layout(&self) -> Result<Layout, String> {
        let r = self.rect()?;
        let strides = if r.partition_dim == 0 { "1@P,1@F" } else { "1@F,1@P" };
        let mut text = format!("S[({},{}):({strides})]", self.shape[0], self.shape[1]);
        for (start, axis) in [(r.partition, "P"), (r.free, "F")] {
            if start != 0 {
                text.push_str(&format!(" + {start}@{axis}"));
            }
        }
        axe_layout::notation::parse_layout(&text).map_err(|e| format!("nki: internal: {text}: {e}"))
    }
}

struct Emitter<'s> {
    chip: Chip,
    lines: Vec<&'s str>,
    names: Names,
    values: HashMap<usize, Bound>,
    out: Lines,
}

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

fn op_name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("<invalid utf-8>").to_string()
}

fn refuse<'c, T>(op: OperationRef<'c, '_>, message: String) -> Emitted<'c, T> {
    Err((op.location(), format!("nki: {message}")))
}

impl<'s> Emitter<'s> {
    fn new(chip: Chip, source: &'s str) -> Self {
        Emitter {
            chip,
            lines: source.lines().collect(),
            names: Names::default(),
            values: HashMap::new(),
            out: Lines::default(),
        }
    }

    /// The source line an op starts on.
    fn source_line(&self, op: OperationRef) -> Option<&'s str> {
        let at = SourceLoc::resolve(op.location())?;
        self.lines.get(at.line.checked_sub(1)?).copied()
    }

    /// The name the source gives an op's first result (`%acc = ...` -> `acc`).
    fn result_name(&self, op: OperationRef) -> String {
        let line = self.source_line(op).unwrap_or_default().trim_start();
        line.strip_prefix('%')
            .and_then(|rest| rest.split(|c: char| c.is_whitespace() || c == '=' || c == ':' || c == ',').next())
            .unwrap_or_default()
            .to_string()
    }

    /// The name the source gives the first `%name` after `keyword` on an op's line (a loop's induction variable).
    fn name_after(&self, op: OperationRef, keyword: &str) -> String {
        let line = self.source_line(op).unwrap_or_default();
        line.split_once(keyword)
            .and_then(|(_, rest)| rest.trim_start().strip_prefix('%'))
            .and_then(|rest| rest.split(|c: char| c.is_whitespace() || c == '=').next())
            .unwrap_or_default()
            .to_string()
    }

    /// The source's names of a function's arguments, in order (`%a: !A, %b: !B` -> `a`, `b`), read from its
    /// signature, which may span lines.
    fn argument_names(&self, function: OperationRef) -> Vec<String> {
        let Some(start) = SourceLoc::resolve(function.location()).and_then(|at| at.line.checked_sub(1)) else {
            return Vec::new();
        };
        let mut names = Vec::new();
        let mut depth = 0;
        for line in self.lines.iter().skip(start) {
            for (i, c) in line.char_indices() {
                match c {
                    '(' | '<' | '[' => depth += 1,
                    ')' | '>' | ']' => {
                        depth -= 1;
                        if depth == 0 && c == ')' {
                            return names;
                        }
                    }
                    '%' if depth == 1 => {
                        let name: String =
                            line[i + 1..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                        names.push(name);
                    }
                    _ => {}
                }
            }
        }
        names
    }

    fn bind(&mut self, value: Value, bound: Bound) {
        self.values.insert(key(value), bound);
    }

    fn bound<'c>(&self, op: OperationRef<'c, '_>, value: Value) -> Emitted<'c, Bound> {
        match self.values.get(&key(value)) {
            Some(bound) => Ok(bound.clone()),
            None => refuse(op, format!("an operand of {} is not a value the kernel has", op_name(op))),
        }
    }

    fn index<'c>(&self, op: OperationRef<'c, '_>, value: Value) -> Emitted<'c, Expr> {
        match self.bound(op, value)? {
            Bound::Index(e) => Ok(e),
            _ => refuse(op, format!("{} needs an index value", op_name(op))),
        }
    }

    fn tile<'c>(&self, op: OperationRef<'c, '_>, value: Value, role: &str) -> Emitted<'c, Tile> {
        match self.bound(op, value)? {
            Bound::Tile(t) => Ok(t),
            _ => refuse(op, format!("{} {role} must be an sbuf or psum tensor", op_name(op))),
        }
    }

    /// One function: its signature, its body, its return.
    fn function<'c>(&mut self, function: OperationRef<'c, '_>) -> Emitted<'c, Kernel> {
        let name = function
            .attribute("sym_name")
            .map(|a| a.to_string().trim_matches('"').to_string())
            .unwrap_or_else(|_| "kernel".to_string());
        let name = self.names.fresh(&name, "kernel");
        let Some(entry) = access::entry_block(function) else {
            return refuse(function, "a kernel needs a body".to_string());
        };
        let source_names = self.argument_names(function);
        let written = written_arguments(function);
        let (mut inputs, mut outputs, mut doc) = (Vec::new(), Vec::new(), Vec::new());
        doc.push(format!("{name}: arguments and results in device memory (HBM), as numpy-like arrays:"));
        for (i, argument) in access::arguments(entry).enumerate() {
            let value: Value = argument.into();
            let tensor = match tensor_of(value) {
                Ok(Some(t)) if t.mem == Memory::Hbm => t,
                _ => {
                    return refuse(
                        function,
                        format!("argument {i} of @{name} must be an hbm tensor: a Trainium kernel takes and returns device memory"),
                    )
                }
            };
            let var = self.names.fresh(source_names.get(i).map_or("", String::as_str), "arg");
            let (array, nl_dtype) = hbm_tensor(function, &tensor, &var)?;
            let stored = match array.dims.as_slice() {
                dims if dims.iter().enumerate().all(|(a, &d)| a == d) => String::new(),
                [1, 0] => format!(" holding the {} tensor transposed", shape_text(&tensor.shape)),
                dims => format!(
                    " holding the {} tensor with its dimensions in the order {dims:?}",
                    shape_text(&tensor.shape)
                ),
            };
            let role = written.get(&i).copied();
            let line = format!(
                "  {var}: {} {}{stored}{}",
                shape_tuple(&array.shape),
                nl_dtype.trim_start_matches("nl."),
                if role == Some(Access::Write) { " (returned)" } else { "" }
            );
            doc.push(line);
            match role {
                Some(Access::ReadWrite) => {
                    return refuse(
                        function,
                        format!("argument {var} is read and written: an NKI kernel's inputs are read-only and its outputs are new arrays"),
                    )
                }
                Some(Access::Write) => outputs.push((var.clone(), array.clone(), nl_dtype)),
                _ => inputs.push((var.clone(), array.clone())),
            }
            let sizes = tensor.shape.clone();
            let (offsets, kept) = (vec![Expr::Int(0); sizes.len()], (0..sizes.len()).collect());
            self.bind(value, Bound::Hbm(HbmView { var, array, offsets, sizes, kept }));
        }
        self.out.line("@nki.jit");
        let parameters: Vec<&str> = inputs.iter().map(|(v, _)| v.as_str()).collect();
        self.out.line(format!("def {name}({}):", parameters.join(", ")));
        self.out.indent();
        for (var, array) in &inputs {
            let shape = shape_tuple(&array.shape);
            self.out.line(format!("assert {var}.shape == {shape}, \"{var} must be {shape}\""));
        }
        for (var, array, nl_dtype) in &outputs {
            self.out.line(format!(
                "{var} = nl.ndarray({}, dtype={nl_dtype}, buffer=nl.shared_hbm)",
                shape_tuple(&array.shape)
            ));
        }
        self.block(entry)?;
        let returned: Vec<&str> = outputs.iter().map(|(v, _, _)| v.as_str()).collect();
        match returned.as_slice() {
            [] => {
                return refuse(function, format!("@{name} writes no hbm argument: an NKI kernel returns its outputs"))
            }
            [one] => self.out.line(format!("return {one}")),
            many => self.out.line(format!("return {}", many.join(", "))),
        }
        self.out.dedent();
        let body = std::mem::take(&mut self.out).finish();
        Ok(Kernel { name, doc, body })
    }

    fn block<'c>(&mut self, block: BlockRef<'c, '_>) -> Emitted<'c, ()> {
        let mut next = block.first_operation();
        while let Some(op) = next {
            let fused = self.op(op)?;
            next = op.next_in_block();
            if fused {
                next = next.and_then(|n| n.next_in_block());
            }
        }
        Ok(())
    }

    /// Emits one op; `Ok(true)` when it also emitted the op after it (an alloc and its fill).
    fn op<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, bool> {
        let name = op_name(op);
        let binary = |n: &str| match n {
            "arith.addi" => Some(BinOp::Add),
            "arith.subi" => Some(BinOp::Sub),
            "arith.muli" => Some(BinOp::Mul),
            "arith.divui" | "arith.floordivsi" => Some(BinOp::Div),
            "arith.remui" => Some(BinOp::Rem),
            _ => None,
        };
        match name.as_str() {
            "arith.constant" => self.constant(op)?,
            "arith.index_cast" | "arith.index_castui" => {
                let e = self.index(op, operand(op, 0)?)?;
                self.bind(result(op)?, Bound::Index(e));
            }
            n if binary(n).is_some() => {
                let (lhs, rhs) = (operand(op, 0)?, operand(op, 1)?);
                let e = Expr::binary(binary(n).unwrap_or(BinOp::Add), self.index(op, lhs)?, self.index(op, rhs)?);
                self.bind(result(op)?, Bound::Index(e));
            }
            "scf.for" => self.for_loop(op)?,
            "scf.yield" if op.operand_count() == 0 => {}
            "func.return" if op.operand_count() == 0 => {}
            _ => match AxeOp::new(op).map(|o| o.kind()) {
                Some(OpKind::Alloc) => return self.alloc(op),
                Some(OpKind::Slice) => self.slice(op)?,
                Some(OpKind::Copy) => self.copy(op)?,
                Some(OpKind::Cast) => self.cast(op)?,
                Some(OpKind::Gemm) => self.gemm(op)?,
                Some(OpKind::Scale) => self.scale(op)?,
                Some(kind @ (OpKind::Add | OpKind::Sub | OpKind::Mul | OpKind::Max | OpKind::Div)) => {
                    self.binary_op(op, kind)?
                }
                Some(OpKind::Exp) => self.exp(op)?,
                Some(OpKind::Reduce) => self.reduce(op)?,
                Some(OpKind::Fill) => {
                    return refuse(op, "nki-fill rule: axe.fill must directly follow the axe.alloc of its tensor (the pair is nl.zeros or nl.full)".to_string())
                }
                _ => {
                    return refuse(
                        op,
                        format!(
                            "nki-op rule: {name} has no NKI form here (the emitter knows axe.alloc, fill, slice, copy, \
                             cast, gemm, scale, add, sub, mul, max, div, exp and reduce, scf.for without results, and \
                             arith index arithmetic)"
                        ),
                    )
                }
            },
        }
        Ok(false)
    }

    fn constant<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let value = result(op)?;
        if let Some(n) = access::constant_int(value) {
            self.bind(value, Bound::Index(Expr::Int(n)));
            return Ok(());
        }
        let text = op.attribute("value").map(|a| a.to_string()).unwrap_or_default();
        match text.split(':').next().map(str::trim).and_then(|t| t.parse::<f64>().ok()) {
            Some(x) => self.bind(value, Bound::Scalar(format!("{x:?}"))),
            None => return refuse(op, format!("nki-op rule: the constant {text} has no NKI form")),
        }
        Ok(())
    }

    fn for_loop<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        if op.result_count() > 0 {
            return refuse(
                op,
                "nki-loop rule: a loop that yields values has no NKI form; keep state in tiles".to_string(),
            );
        }
        let (lb, ub, step) =
            (self.index(op, operand(op, 0)?)?, self.index(op, operand(op, 1)?)?, self.index(op, operand(op, 2)?)?);
        let Some(body) = access::entry_block(op) else { return refuse(op, "a loop without a body".to_string()) };
        let Some(iv) = access::argument(body, 0) else {
            return refuse(op, "a loop without an induction variable".to_string());
        };
        let var = self.names.fresh(&self.name_after(op, "scf.for"), "i");
        self.bind(iv.into(), Bound::Index(Expr::Name(var.clone())));
        let range = match (&lb, &step) {
            (Expr::Int(0), Expr::Int(1)) => format!("{ub}"),
            (_, Expr::Int(1)) => format!("{lb}, {ub}"),
            _ => format!("{lb}, {ub}, {step}"),
        };
        let kind = if carries_state(op) { "sequential_range" } else { "affine_range" };
        self.out.line(format!("for {var} in nl.{kind}({range}):"));
        self.out.indent();
        self.block(body)?;
        self.out.dedent();
        Ok(())
    }

    /// `axe.alloc` of an sbuf or psum tensor: an NKI tile (`nl.zeros`/`nl.full` with the fill after it).
    fn alloc<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, bool> {
        let value = result(op)?;
        let tensor = axe_tensor(op, value)?;
        let (mem, nl_buffer) = match tensor.mem {
            Memory::Sbuf => (TrnMemory::Sbuf, "nl.sbuf"),
            Memory::Psum => (TrnMemory::Psum, "nl.psum"),
            other => return refuse(op, format!("nki-memory rule: a kernel allocates sbuf or psum tiles, got {other}")),
        };
        let (elem, nl_dtype) = element(op, &tensor)?;
        let layout = known_layout(op, &tensor)?;
        let &[rows, cols] = tensor.shape.as_slice() else {
            return refuse(op, format!("nki-tile rule: an NKI tile is 2-D, got shape {:?}", tensor.shape));
        };
        let buffer_shape =
            buffer(&tensor.shape, &layout, mem, self.chip, elem.bytes()).map_err(|e| (op.location(), e.to_string()))?;
        let rect = region(&tensor.shape, &layout, [0, 0], [rows, cols]);
        let var = self.names.fresh(&self.result_name(op), "t");
        let shape = shape_tuple(&buffer_shape);
        let fill = op.next_in_block().filter(|next| {
            AxeOp::new(*next).is_some_and(|o| o.kind() == OpKind::Fill)
                && access::operand(*next, 0).map(key) == Some(key(value))
        });
        let scalar = match fill {
            Some(f) => match self.bound(f, operand(f, 1)?)? {
                Bound::Scalar(s) => Some(s),
                Bound::Index(Expr::Int(n)) => Some(n.to_string()),
                _ => return refuse(f, "nki-fill rule: the fill value must be a constant".to_string()),
            },
            None => None,
        };
        match scalar.as_deref() {
            None => self.out.line(format!("{var} = nl.ndarray({shape}, dtype={nl_dtype}, buffer={nl_buffer})")),
            Some("0.0" | "0" | "-0.0") => {
                self.out.line(format!("{var} = nl.zeros({shape}, dtype={nl_dtype}, buffer={nl_buffer})"))
            }
            Some(s) => self.out.line(format!("{var} = nl.full({shape}, {s}, dtype={nl_dtype}, buffer={nl_buffer})")),
        }
        let tile = Tile {
            var,
            buffer: buffer_shape,
            mem,
            dtype: elem,
            layout,
            root_shape: [rows, cols],
            origin: [0, 0],
            shape: [rows, cols],
            rect,
            shift: [Expr::Int(0), Expr::Int(0)],
        };
        self.bind(value, Bound::Tile(tile));
        Ok(fill.is_some())
    }

    /// `axe.slice` of an hbm tensor: a region of its array (a rank-reducing slice indexes the dimensions it drops).
    fn slice<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let Some(axe) = AxeOp::new(op) else { return refuse(op, "not an axe op".to_string()) };
        let region = axe.slice_region().map_err(|e| (op.location(), format!("nki: {e}")))?;
        let source = match self.bound(op, operand(op, 0)?)? {
            Bound::Hbm(source) => source,
            Bound::Tile(tile) => return self.slice_tile(op, tile, &region),
            _ => return refuse(op, "axe.slice needs a tensor".to_string()),
        };
        let result_shape = axe_tensor(op, result(op)?)?.shape;
        let Some(kept) = kept_dimensions(&region.sizes, &result_shape) else {
            return refuse(op, format!("the slice result {result_shape:?} is not the region {:?}", region.sizes));
        };
        let mut dynamic = 1;
        let (mut offsets, mut sizes) = (source.offsets.clone(), source.sizes.clone());
        for (i, &d) in source.kept.iter().enumerate() {
            let offset = match region.offsets.get(i) {
                Some(Some(n)) => Expr::Int(*n),
                _ => {
                    let e = self.index(op, operand(op, dynamic)?)?;
                    dynamic += 1;
                    e
                }
            };
            offsets[d] = Expr::binary(BinOp::Add, offsets[d].clone(), offset);
            sizes[d] = region.sizes[i];
        }
        let kept = kept.iter().map(|&i| source.kept[i]).collect();
        self.bind(result(op)?, Bound::Hbm(HbmView { offsets, sizes, kept, ..source }));
        Ok(())
    }

    /// `axe.slice` of an sbuf or psum tensor: a region of its tile. A run-time offset must be a multiple (read from
    /// the IR) of a step that moves the region as a whole ([`region_step`]); the region moves by that many steps.
    fn slice_tile<'c>(&mut self, op: OperationRef<'c, '_>, tile: Tile, slice: &SliceRegion) -> Emitted<'c, ()> {
        let at = |e: NkiError| (op.location(), e.to_string());
        let Ok(sizes) = <[i64; 2]>::try_from(slice.sizes.as_slice()) else {
            return refuse(op, format!("nki-tile rule: an NKI tile is 2-D, got a slice of {:?}", slice.sizes));
        };
        let mut origin = tile.origin;
        let mut moves = Vec::new();
        let mut dynamic = 1;
        for (d, offset) in slice.offsets.iter().enumerate().take(2) {
            match offset {
                Some(n) => origin[d] += n,
                None => {
                    let value = operand(op, dynamic)?;
                    dynamic += 1;
                    moves.push((d, self.index(op, value)?, known_multiple(value)));
                }
            }
        }
        let mut shift = tile.shift.clone();
        for (d, offset, multiple) in moves {
            let (dp, df) = region_step(&tile.root_shape, &tile.layout, origin, sizes, d, multiple).map_err(at)?;
            let steps = Expr::binary(BinOp::Div, offset, Expr::Int(multiple));
            for (axis, delta) in [(0, dp), (1, df)] {
                let moved = Expr::binary(BinOp::Mul, steps.clone(), Expr::Int(delta));
                shift[axis] = Expr::binary(BinOp::Add, shift[axis].clone(), moved);
            }
        }
        let rect = region(&tile.root_shape, &tile.layout, origin, sizes);
        self.bind(result(op)?, Bound::Tile(Tile { origin, shape: sizes, rect, shift, ..tile }));
        Ok(())
    }

    fn copy<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let (source, dest) = (self.bound(op, operand(op, 0)?)?, self.bound(op, operand(op, 1)?)?);
        match (source, dest) {
            (Bound::Hbm(from), Bound::Tile(to)) if to.mem == TrnMemory::Sbuf => {
                let load = if from.axis_order().first() == Some(&rect_of(op, &to)?.partition_dim) {
                    "nl.load"
                } else {
                    "nl.load_transpose2d"
                };
                self.out.line(format!("{} = {load}({})", write_of(op, &to)?, hbm_region(&from)));
            }
            (Bound::Tile(from), Bound::Hbm(to)) if from.mem == TrnMemory::Sbuf => {
                if to.axis_order().first() != Some(&rect_of(op, &from)?.partition_dim) {
                    return refuse(
                        op,
                        "nki-store rule: nl.store writes a tile's partition dimension as the array's first axis; this \
                         tile lies transposed to its destination (transpose it on chip first)"
                            .to_string(),
                    );
                }
                self.out.line(format!("nl.store({}, value={})", hbm_region(&to), read_of(op, &from)?));
            }
            // The same logical tile with the other dimension on the partitions: a transpose on the Tensor Engine
            // (SBUF in, PSUM out, at most 128 x 128), copied into the destination.
            (Bound::Tile(from), Bound::Tile(to))
                if rect_of(op, &from)?.partition_dim != rect_of(op, &to)?.partition_dim =>
            {
                if from.mem != TrnMemory::Sbuf || rect_of(op, &from)?.rows > 128 || rect_of(op, &from)?.cols > 128 {
                    return refuse(
                        op,
                        format!(
                            "nki-copy rule: a copy that moves a dimension onto the partitions is an nc_transpose on \
                             the Tensor Engine: an sbuf tile of at most 128 x 128, got a {} x {} {} tile",
                            rect_of(op, &from)?.rows,
                            rect_of(op, &from)?.cols,
                            from.mem.name()
                        ),
                    );
                }
                let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
                self.out.line(format!(
                    "{} = nl.copy(nisa.nc_transpose({}), dtype={nl_dtype})",
                    write_of(op, &to)?,
                    read_of(op, &from)?
                ));
            }
            (Bound::Tile(from), Bound::Tile(to)) => {
                self.out.line(format!("{} = nl.copy({})", write_of(op, &to)?, read_of(op, &from)?));
            }
            (Bound::Tile(from), Bound::Hbm(_)) => {
                return refuse(
                    op,
                    format!(
                        "nki-memory rule: NKI stores to hbm from sbuf, got {}: copy it to an sbuf tile first",
                        from.mem.name()
                    ),
                )
            }
            (Bound::Hbm(_), Bound::Tile(to)) => {
                return refuse(op, format!("nki-memory rule: NKI loads from hbm into sbuf, got {}", to.mem.name()))
            }
            _ => return refuse(op, "nki-memory rule: a copy moves hbm <-> sbuf or between on-chip tiles".to_string()),
        }
        Ok(())
    }

    fn cast<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let (from, to) = (self.tile(op, operand(op, 0)?, "source")?, self.tile(op, operand(op, 1)?, "dest")?);
        same_orientation(op, &from, &to)?;
        if to.mem != TrnMemory::Sbuf {
            return refuse(op, "nki-memory rule: a conversion writes an sbuf tile".to_string());
        }
        let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
        self.out.line(format!("{} = nl.copy({}, dtype={nl_dtype})", write_of(op, &to)?, read_of(op, &from)?));
        Ok(())
    }

    /// An operand of an elementwise op writing `dest`: the same partitions as dest, and along the free axis dest's
    /// extent or 1 (NKI broadcasts a `[P, 1]` tile along the free axis; nothing broadcasts across partitions).
    fn operand_of<'c>(&self, op: OperationRef<'c, '_>, index: usize, dest: &Tile) -> Emitted<'c, String> {
        let value = operand(op, index)?;
        let tile = match self.bound(op, value)? {
            Bound::Scalar(s) => return Ok(s),
            Bound::Tile(t) => t,
            _ => return refuse(op, format!("{} operand {index} must be an sbuf or psum tile", op_name(op))),
        };
        let d = rect_of(op, dest)?.partition_dim;
        let partitions_match =
            tile.shape[d] == dest.shape[d] && (rect_of(op, &tile)?.partition_dim == d || tile.shape[d] == 1);
        let free = tile.shape[1 - d];
        if !partitions_match || (free != dest.shape[1 - d] && free != 1) {
            return refuse(
                op,
                format!(
                    "nki-broadcast rule: operand {index} ({:?}, dimension {} on the partitions) must lie on dest's \
                     partitions ({:?}, dimension {d}) and match or broadcast along the free axis",
                    tile.shape,
                    rect_of(op, &tile)?.partition_dim,
                    dest.shape
                ),
            );
        }
        read_of(op, &tile)
    }

    /// `dest = alpha * source`.
    fn scale<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let to = self.tile(op, operand(op, 1)?, "dest")?;
        let from = self.operand_of(op, 0, &to)?;
        let Bound::Scalar(alpha) = self.bound(op, operand(op, 2)?)? else {
            return refuse(op, "nki-op rule: axe.scale's factor must be a constant".to_string());
        };
        let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
        self.out.line(format!("{} = nl.multiply({from}, {alpha}, dtype={nl_dtype})", write_of(op, &to)?));
        Ok(())
    }

    /// `dest = lhs <op> rhs` on the Vector Engine.
    fn binary_op<'c>(&mut self, op: OperationRef<'c, '_>, kind: OpKind) -> Emitted<'c, ()> {
        let to = self.tile(op, operand(op, 2)?, "dest")?;
        let (lhs, rhs) = (self.operand_of(op, 0, &to)?, self.operand_of(op, 1, &to)?);
        let function = match kind {
            OpKind::Add => "nl.add",
            OpKind::Sub => "nl.subtract",
            OpKind::Mul => "nl.multiply",
            OpKind::Max => "nl.maximum",
            _ => "nl.divide",
        };
        let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
        self.out.line(format!("{} = {function}({lhs}, {rhs}, dtype={nl_dtype})", write_of(op, &to)?));
        Ok(())
    }

    /// `dest = e^source` on the Scalar Engine.
    fn exp<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let to = self.tile(op, operand(op, 1)?, "dest")?;
        let from = self.tile(op, operand(op, 0)?, "source")?;
        same_orientation(op, &from, &to)?;
        let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
        self.out.line(format!("{} = nl.exp({}, dtype={nl_dtype})", write_of(op, &to)?, read_of(op, &from)?));
        Ok(())
    }

    /// `axe.reduce`: the Vector Engine reduces along the free axis (`nl.max`/`nl.sum` over axis 1, kept).
    fn reduce<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let from = self.tile(op, operand(op, 0)?, "source")?;
        let to = self.tile(op, operand(op, 1)?, "dest")?;
        let kind = op.attribute("kind").map(|a| a.to_string()).unwrap_or_default();
        let function = if kind.contains("max") { "nl.max" } else { "nl.sum" };
        let (p, f) = (rect_of(op, &from)?.partition_dim, 1 - rect_of(op, &from)?.partition_dim);
        if to.shape[p] != from.shape[p]
            || to.shape[f] != 1
            || (rect_of(op, &to)?.partition_dim != p && to.shape[p] != 1)
        {
            return refuse(
                op,
                format!(
                    "nki-reduce rule: the Vector Engine reduces along the free axis: dest {:?} must keep source's \
                     partition dimension {p} ({:?}) and reduce dimension {f} to 1",
                    to.shape, from.shape
                ),
            );
        }
        let nl_dtype = dtype(to.dtype).unwrap_or("nl.float32");
        self.out.line(format!(
            "{} = {function}({}, axis=1, keepdims=True, dtype={nl_dtype})",
            write_of(op, &to)?,
            read_of(op, &from)?
        ));
        Ok(())
    }

    /// `axe.gemm` (c += a * b): the Tensor Engine plan, one `nisa.nc_matmul` per instruction.
    fn gemm<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        let a = self.tile(op, operand(op, 0)?, "a")?;
        let b = self.tile(op, operand(op, 1)?, "b")?;
        let c = self.tile(op, operand(op, 2)?, "c")?;
        // Each operand's region as a layout of its own; A transposed to the planner's [K, M].
        let planned = |t: &Tile| t.planned_layout().map_err(|e| (op.location(), e));
        let (a_mk, b_kn, c_mn) = (planned(&a)?, planned(&b)?, planned(&c)?);
        let a_km = transpose(&a_mk, a.shape).map_err(|e| (op.location(), format!("nki: a: {e}")))?;
        let request = MatmulRequest {
            chip: self.chip,
            dtype: a.dtype,
            acc: c.dtype,
            a: Operand { layout: &a_km, shape: [a.shape[1], a.shape[0]], mem: a.mem },
            b: Operand { layout: &b_kn, shape: b.shape, mem: b.mem },
            c: Operand { layout: &c_mn, shape: c.shape, mem: c.mem },
        };
        let plan = matmul::plan(&request).map_err(|e| (op.location(), e.to_string()))?;
        let [kt, mt, nt] = plan.tile;
        for step in &plan.steps {
            let target = operand_region(&c, step.c, [mt, nt]);
            let (stationary, moving) = (operand_region(&a, step.a, [kt, mt]), operand_region(&b, step.b, [kt, nt]));
            self.out.line(format!("{target} += nisa.nc_matmul({stationary}, {moving})"));
        }
        Ok(())
    }
}

/// One instruction's operand: the rectangle of `extent` at `place` of the tile (moved by its shift), or the bare
/// tile when that is all of it.
fn operand_region(tile: &Tile, place: Place, extent: [i64; 2]) -> String {
    let start =
        Rect { partition_dim: 0, partition: place.partition, free: place.free, rows: extent[0], cols: extent[1] };
    if tile.is_whole(start) {
        return tile.var.clone();
    }
    tile.region(place.partition, extent[0], place.free, extent[1])
}

/// How a function uses an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    ReadWrite,
}

/// The arguments (by number) that copies read or write, through slices.
fn written_arguments(function: OperationRef) -> HashMap<usize, Access> {
    let mut uses: HashMap<usize, Access> = HashMap::new();
    axe_dialect::ops::walk_preorder(function, &mut |op| {
        if AxeOp::new(op).is_none_or(|o| o.kind() != OpKind::Copy) {
            return;
        }
        for (index, access) in [(0, Access::Read), (1, Access::Write)] {
            if let Some(argument) = access::operand(op, index).and_then(root_argument) {
                let entry = uses.entry(argument).or_insert(access);
                if *entry != access {
                    *entry = Access::ReadWrite;
                }
            }
        }
    });
    uses
}

/// The function argument a value is (a slice of), by number.
fn root_argument(value: Value) -> Option<usize> {
    let mut value = value;
    loop {
        if let Some(argument) = access::as_argument(value) {
            let owner = argument.owner().parent_operation()?;
            return (op_name(owner) == "func.func").then(|| argument.argument_number());
        }
        let op = access::defining_op(value)?;
        if AxeOp::new(op).is_none_or(|o| o.kind() != OpKind::Slice) {
            return None;
        }
        value = access::operand(op, 0)?;
    }
}

/// True when a loop's iterations depend on each other: some op inside writes a tile made outside it, other than a
/// gemm accumulating into PSUM (which NKI lets `affine_range` iterations do) or a write into a region that moves
/// with the loop by at least its own extent (each iteration its own region: `%v_all[%b * 128, 0] [128, 64]`) of a
/// tile the loop does not also read.
fn carries_state(for_op: OperationRef) -> bool {
    let Some(iv) = access::entry_block(for_op).and_then(|b| access::argument(b, 0)) else { return true };
    let iv: Value = iv.into();
    let (mut carried, mut written_regions, mut read) = (false, Vec::new(), Vec::new());
    axe_dialect::ops::walk_preorder(for_op, &mut |op| {
        // Slices and views name regions; the collective ops read and write them.
        let Some(axe) = AxeOp::new(op).filter(|o| o.kind().is_collective()) else { return };
        for (i, name) in axe.kind().tensor_operand_names().iter().enumerate() {
            let Some((root, own_region)) = access::operand(op, i).and_then(|v| outside_root(for_op, v, iv)) else {
                continue;
            };
            match (*name, axe.kind()) {
                (_, OpKind::Gemm) if *name == "c" => {}
                ("dest", _) if own_region => written_regions.push(root),
                ("dest", _) => carried = true,
                _ => read.push(root),
            }
        }
    });
    carried || written_regions.iter().any(|w| read.contains(w))
}

/// The allocation made outside `for_op` that `value` is (a slice of), by key, and whether some slice on the way
/// moves with the loop by its extent or more ([`moves_with`]); `None` for a tile made inside, or no tile.
fn outside_root(for_op: OperationRef, value: Value, iv: Value) -> Option<(usize, bool)> {
    let (mut value, mut own_region) = (value, false);
    loop {
        let op = access::defining_op(value)?;
        match AxeOp::new(op).map(|o| o.kind()) {
            Some(OpKind::Slice) => {
                own_region |= moves_with(op, iv);
                value = access::operand(op, 0)?;
            }
            Some(OpKind::Alloc) if !encloses(for_op, op) => return Some((key(value), own_region)),
            _ => return None,
        }
    }
}

/// True when one of a slice's run-time offsets depends on `iv` and is a multiple of at least the region's extent
/// along its dimension (so each value of `iv` gives a region of its own).
fn moves_with(slice: OperationRef, iv: Value) -> bool {
    let Some(region) = AxeOp::new(slice).and_then(|o| o.slice_region().ok()) else { return false };
    let mut operand_index = 1;
    for (d, offset) in region.offsets.iter().enumerate() {
        if offset.is_some() {
            continue;
        }
        let Some(value) = access::operand(slice, operand_index) else { return false };
        operand_index += 1;
        if depends_on(value, iv, 8) && known_multiple(value) >= region.sizes.get(d).copied().unwrap_or(i64::MAX) {
            return true;
        }
    }
    false
}

/// True when `value` is `iv` or computed from it by ops within `depth` steps.
fn depends_on(value: Value, iv: Value, depth: usize) -> bool {
    if key(value) == key(iv) {
        return true;
    }
    let Some(op) = access::defining_op(value).filter(|_| depth > 0) else { return false };
    (0..op.operand_count()).filter_map(|i| access::operand(op, i)).any(|v| depends_on(v, iv, depth - 1))
}

fn encloses(outer: OperationRef, op: OperationRef) -> bool {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if parent == outer {
            return true;
        }
        current = parent.parent_operation();
    }
    false
}

fn operand<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Emitted<'c, Value<'c, 'a>> {
    access::operand(op, index).ok_or_else(|| (op.location(), format!("nki: {} lacks operand {index}", op_name(op))))
}

fn result<'c, 'a>(op: OperationRef<'c, 'a>) -> Emitted<'c, Value<'c, 'a>> {
    access::result(op, 0).ok_or_else(|| (op.location(), format!("nki: {} has no result", op_name(op))))
}

fn axe_tensor<'c>(op: OperationRef<'c, '_>, value: Value) -> Emitted<'c, TensorType> {
    match tensor_of(value) {
        Ok(Some(t)) => Ok(t),
        Ok(None) => refuse(op, format!("{} must produce an axe tensor", op_name(op))),
        Err(e) => refuse(op, e),
    }
}

fn known_layout<'c>(op: OperationRef<'c, '_>, tensor: &TensorType) -> Emitted<'c, Layout> {
    match tensor.layout.parse() {
        Some(Ok(layout)) => Ok(layout),
        Some(Err(e)) => refuse(op, e.to_string()),
        None => refuse(op, format!("nki-tile rule: the tensor needs a layout, got {}", tensor.layout.describe())),
    }
}

fn element<'c>(op: OperationRef<'c, '_>, tensor: &TensorType) -> Emitted<'c, (ElemType, &'static str)> {
    match tensor.dtype.number().and_then(|t| dtype(t).map(|n| (t, n))) {
        Some(pair) => Ok(pair),
        None => refuse(
            op,
            format!(
                "nki-dtype rule: {} has no NKI type here (f32, f16, bf16, tf32, f8E4M3FN, f8E5M2, i32)",
                tensor.dtype
            ),
        ),
    }
}

/// An hbm argument's array and NKI dtype.
fn hbm_tensor<'c>(
    function: OperationRef<'c, '_>,
    tensor: &TensorType,
    var: &str,
) -> Emitted<'c, (HbmArray, &'static str)> {
    if tensor.has_runtime_extents() || tensor.layout == LayoutSpec::RowMajor {
        return refuse(
            function,
            format!(
                "nki-hbm rule: argument {var} needs static extents and a layout (an NKI kernel is traced per shape)"
            ),
        );
    }
    let layout = known_layout(function, tensor)?;
    let array =
        hbm_array(&tensor.shape, &layout).map_err(|e| (function.location(), format!("{e} (argument {var})")))?;
    let (_, nl_dtype) = element(function, tensor)?;
    Ok((array, nl_dtype))
}

/// The Python index of an HBM region, in the array's axis order: a slice per kept dimension, the offset of each
/// dropped one (the bare array when the region is all of it).
fn hbm_region(view: &HbmView) -> String {
    let whole = view.kept.len() == view.sizes.len()
        && view.offsets.iter().all(|o| *o == Expr::Int(0))
        && view.array.dims.iter().zip(&view.array.shape).all(|(&d, &extent)| view.sizes[d] == extent);
    if whole {
        return view.var.clone();
    }
    let axes: Vec<String> =
        view.array
            .dims
            .iter()
            .map(|&d| {
                if view.kept.contains(&d) {
                    slice(&view.offsets[d], view.sizes[d])
                } else {
                    view.offsets[d].to_string()
                }
            })
            .collect();
    format!("{}[{}]", view.var, axes.join(", "))
}

fn same_orientation<'c>(op: OperationRef<'c, '_>, from: &Tile, to: &Tile) -> Emitted<'c, ()> {
    let (source, dest) = (rect_of(op, from)?.partition_dim, rect_of(op, to)?.partition_dim);
    if source != dest {
        return refuse(
            op,
            format!(
                "nki-copy rule: {} keeps partitions: source dimension {source} is on the partitions but dest's is \
                 {dest} (a transpose is an nc_transpose)",
                op_name(op)
            ),
        );
    }
    Ok(())
}

/// `[a, b]`, a logical shape in the docstring.
fn shape_text(shape: &[i64]) -> String {
    format!("[{}]", shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", "))
}

/// Where a tile lies, or its refusal at `op`.
fn rect_of<'c>(op: OperationRef<'c, '_>, tile: &Tile) -> Emitted<'c, Rect> {
    tile.rect().map_err(|e| (op.location(), e))
}

/// A tile as an operand of `op`.
fn read_of<'c>(op: OperationRef<'c, '_>, tile: &Tile) -> Emitted<'c, String> {
    tile.read().map_err(|e| (op.location(), e))
}

/// A tile as the target of `op`.
fn write_of<'c>(op: OperationRef<'c, '_>, tile: &Tile) -> Emitted<'c, String> {
    tile.write().map_err(|e| (op.location(), e))
}

/// `(a, b)` as Python writes a tuple.
fn shape_tuple(shape: &[i64]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!("({})", shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")),
    }
}
