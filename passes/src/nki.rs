//! `axe-translate --emit=nki`: a Trainium module of axe ops to an NKI kernel (Python), for the Neuron compiler.
//!
//! The input is the same axe IR as the GPU path (`axe.copy`, `axe.gemm`, `axe.cast`, `axe.fill`, `axe.alloc`,
//! `axe.slice`, the elementwise ops and `axe.reduce`, `scf.for` and `arith` index arithmetic) on tensors in
//! Trainium's memories (`hbm`, `sbuf`, `psum`) under `axe.target = "trn1"`. Each `func.func` becomes one
//! `@nki.jit` kernel; its `hbm` arguments that the function only reads are the kernel's inputs, those it only
//! writes are allocated in `nl.shared_hbm` and returned (NKI kernels return their outputs). Every decision about
//! where data lies is the layout crate's (`axe_layout::trn`):
//! - an `sbuf`/`psum` allocation is one NKI tile of the partitions by free offsets its layout reaches
//!   (`nki::buffer`), and every tensor an op touches, the allocation or a slice, one rectangle of it
//!   (`nki::region`; a run-time slice offset moves it by whole steps, `nki::region_step`);
//! - an `hbm` tensor is an NKI array: `nki::hbm_array` gives its axis order, which says whether a load arrives with
//!   the partition dimension first (`nl.load`) or transposed (`nl.load_transpose2d`);
//! - `axe.gemm` is planned by `matmul::plan` (Appendix H), one `nisa.nc_matmul` per planned instruction, each
//!   accumulating into the PSUM tile (`axe.gemm` is `c += a * b`).
//!
//! A private `func.func` is a helper: a plain Python function of whole tiles, indices and scalars that kernels
//! (`func.call`) call. A loop becomes `nl.affine_range` when its iterations are independent, else
//! `nl.sequential_range` (`analysis`). Names come from the source (`%acc` is `acc`). What has no NKI form is refused at the op, with
//! the rule.
//!
//! Here: the module and function walk, names, scalars and loops; `values` (what each IR value is in the kernel and
//! how it prints), `ops` (one axe op each), `analysis` (arguments' and loops' uses), `python` (lines,
//! expressions, names and dtypes as Python writes them).

mod analysis;
mod ops;
mod python;
mod values;

use crate::ir::target::target_name;
use analysis::{carries_state, written_arguments, Access};
use axe_dialect::access;
use axe_dialect::ops::{tensor_of, AxeOp, OpKind};
use axe_dialect::types::{LayoutSpec, TensorType};
use axe_dialect::SourceLoc;
use axe_layout::hw::{ElemType, Memory};
use axe_layout::trn::nki::{hbm_array, HbmArray};
use axe_layout::trn::{self, Chip};
use axe_layout::Layout;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, Location, Module, OperationRef, Value, ValueLike};
use python::{dtype, shape_tuple, BinOp, Expr, Lines, Names};
use std::collections::HashMap;
use values::{Bound, HbmView, Tile};

/// An error at an op.
pub type Located<'c> = (Location<'c>, String);

/// An emitted value, or the refusal at its op.
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
    let (mut kernels, mut helpers) = (Vec::new(), Vec::new());
    for function in &functions {
        let mut emitter = Emitter::new(chip, source);
        if is_private(*function) {
            helpers.push(emitter.helper(*function)?);
        } else {
            kernels.push(emitter.function(*function)?);
        }
    }
    let Some(first) = kernels.first() else {
        return Err((location, "nki: the module has no public func.func: a kernel is a public function".to_string()));
    };
    out.line(format!(
        "\"\"\"Emitted by `axe-translate --emit=nki` from {file} (Axe) for {}. Regenerate it; do not edit it.",
        chip.name
    ));
    out.line("");
    out.line("Run with the AWS Neuron SDK (neuronx-cc) on a trn1 instance: call a kernel on XLA tensors from PyTorch");
    out.line("(torch_neuronx) or JAX, where @nki.jit compiles it, or on numpy arrays without a device:");
    out.line(format!("nki.simulate_kernel({}, *arrays).", first.name));
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
    for helper in helpers {
        text.push_str("\n\n");
        text.push_str(&helper);
    }
    for kernel in kernels {
        text.push_str("\n\n");
        text.push_str(&kernel.body);
    }
    Ok(text)
}

/// True for a `func.func` with `private` visibility: a helper the kernels call, emitted as a plain Python function.
fn is_private(function: OperationRef) -> bool {
    function.attribute("sym_visibility").is_ok_and(|a| a.to_string() == "\"private\"")
}

/// The Python name of a function: its symbol, which must be an identifier Python and NKI leave free.
fn function_name<'c>(function: OperationRef<'c, '_>, symbol: &str) -> Emitted<'c, String> {
    let valid = symbol.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && symbol.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid || python::is_reserved(symbol) {
        return refuse(function, format!("nki-op rule: @{symbol} is not a Python name a kernel or helper can have"));
    }
    Ok(symbol.to_string())
}

/// One emitted kernel.
struct Kernel {
    name: String,
    /// Its lines in the file's docstring (arguments and results).
    doc: Vec<String>,
    /// `@nki.jit` and the function.
    body: String,
}

/// The state of emitting one function: the chip, the source's lines (for names), the Python names taken, what
/// each IR value is, and the lines so far.
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

    /// A private function: a plain Python function of its arguments (tiles by reference, so it writes the caller's
    /// tiles in place; indices and scalars by value), called from kernels as NKI kernels call helpers.
    fn helper<'c>(&mut self, function: OperationRef<'c, '_>) -> Emitted<'c, String> {
        let symbol =
            function.attribute("sym_name").map(|a| a.to_string().trim_matches('"').to_string()).unwrap_or_default();
        let name = function_name(function, &symbol)?;
        let Some(entry) = access::entry_block(function) else {
            return refuse(function, "a helper needs a body".to_string());
        };
        let source_names = self.argument_names(function);
        let mut parameters = Vec::new();
        for (i, argument) in access::arguments(entry).enumerate() {
            let value: Value = argument.into();
            let var = self.names.fresh(source_names.get(i).map_or("", String::as_str), "arg");
            let bound = match tensor_of(value) {
                Ok(Some(tensor)) if matches!(tensor.mem, Memory::Sbuf | Memory::Psum) => {
                    Bound::Tile(self.whole_tile(function, &tensor, &var)?)
                }
                Ok(Some(tensor)) if tensor.mem == Memory::Hbm => {
                    let (array, _) = hbm_tensor(function, &tensor, &var)?;
                    let sizes = tensor.shape.clone();
                    let (offsets, kept) = (vec![Expr::Int(0); sizes.len()], (0..sizes.len()).collect());
                    Bound::Hbm(HbmView { var: var.clone(), array, offsets, sizes, kept })
                }
                Ok(None) if value.r#type().to_string() == "index" => Bound::Index(Expr::Name(var.clone())),
                Ok(None) if value.r#type().to_string() == "f32" => Bound::Scalar(var.clone()),
                _ => {
                    return refuse(
                        function,
                        format!("nki-op rule: argument {i} of helper @{symbol} must be a tensor, an index or an f32"),
                    )
                }
            };
            self.bind(value, bound);
            parameters.push(var);
        }
        self.out.line(format!("def {name}({}):", parameters.join(", ")));
        self.out.indent();
        self.block(entry)?;
        self.out.dedent();
        Ok(std::mem::take(&mut self.out).finish())
    }

    /// `func.call @helper(...)`: the call, each tile passed whole (a helper's parameter is a whole tile).
    fn call<'c>(&mut self, op: OperationRef<'c, '_>) -> Emitted<'c, ()> {
        if op.result_count() > 0 {
            return refuse(op, "nki-op rule: a helper returns nothing; it writes the tiles it is given".to_string());
        }
        let callee = op.attribute("callee").map(|a| a.to_string()).unwrap_or_default();
        let name = function_name(op, callee.trim_start_matches('@').trim_matches('"'))?;
        let mut arguments = Vec::new();
        for i in 0..op.operand_count() {
            let argument = match self.bound(op, operand(op, i)?)? {
                Bound::Index(e) => e.to_string(),
                Bound::Scalar(s) => s,
                Bound::Tile(t)
                    if t.origin == [0, 0] && t.shape == t.root_shape && t.shift == [Expr::Int(0), Expr::Int(0)] =>
                {
                    t.var
                }
                Bound::Hbm(v) if v.kept.len() == v.sizes.len() && v.offsets.iter().all(|o| *o == Expr::Int(0)) => v.var,
                _ => {
                    return refuse(
                        op,
                        format!(
                            "nki-call rule: argument {i} of @{name} is a slice; a helper takes whole tiles and arrays"
                        ),
                    )
                }
            };
            arguments.push(argument);
        }
        self.out.line(format!("{name}({})", arguments.join(", ")));
        Ok(())
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
            "func.call" => self.call(op)?,
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

/// `[a, b]`, a logical shape in the docstring.
fn shape_text(shape: &[i64]) -> String {
    format!("[{}]", shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", "))
}
