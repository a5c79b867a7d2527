//! The raw `mlir-sys` calls that melior does not wrap, each behind a safe function.
//!
//! **Invariant:** this is the only module in the workspace that calls
//! `mlir_sys` directly. Every function here takes and returns melior types, so
//! callers never see a raw handle except the LLVM module pointer of
//! [`translate_to_llvm_ir`], which crosses into inkwell.

use melior::{
    dialect::DialectRegistry,
    ir::{
        attribute::AttributeLike, block::BlockArgument, r#type::TypeLike, Attribute, Location, Operation, OperationRef,
        Type, ValueLike,
    },
    pass::OperationPassManager,
    Context, StringRef,
};
use std::ffi::{c_void, CString};

/// Parses `source` as mlir-opt parses its input; locations name `source_name`.
///
/// One `builtin.module` is returned as is; anything else (one other op, several, none) is wrapped in an implicit
/// module located at `source_name`:0:0. The text is parsed once (resource keys such as `dense_resource<blob1>`
/// keep their names). Returns `None` after emitting diagnostics when the text does not parse or verify.
pub fn parse_module_for_tool<'c>(context: &'c Context, source: &str, source_name: &str) -> Option<Operation<'c>> {
    let text = NulTerminated::new(source);
    // SAFETY: the string refs borrow `text`/`source_name` for the duration of
    // the call (the C++ side keeps neither); the returned operation (or null) is owned by the caller.
    unsafe {
        Operation::from_option_raw(axeParseSourceForTool(
            context.to_raw(),
            text.to_raw(),
            StringRef::new(source_name).to_raw(),
        ))
    }
}

/// A copy of a source text with a NUL byte after its end, for MLIR's source parser.
///
/// MLIR's lexer finds the end of a source by the byte after it (the terminator `llvm::MemoryBuffer` gives a file
/// it reads; a buffer made from a string is taken as it is): a token at the very end (`-> i32` with no newline)
/// is lexed on into whatever memory follows the text. A Rust `&str` has no such byte, so the parser read past the
/// input (issue 22; valgrind: an invalid read in `Lexer::lexBareIdentifierOrKeyword`). The guards have refused
/// NUL bytes inside the text, so the first NUL is the end.
struct NulTerminated(Vec<u8>);

impl NulTerminated {
    fn new(source: &str) -> Self {
        let mut bytes = Vec::with_capacity(source.len() + 1);
        bytes.extend_from_slice(source.as_bytes());
        bytes.push(0);
        NulTerminated(bytes)
    }

    /// The text without its terminator, borrowing `self`.
    fn to_raw(&self) -> mlir_sys::MlirStringRef {
        mlir_sys::MlirStringRef { data: self.0.as_ptr().cast(), length: self.0.len() - 1 }
    }
}

/// The handle of an upstream dialect melior has no constructor for (`nvgpu`, `nvvm`, `vector`), by namespace; `None` for
/// others (use `melior::dialect::DialectHandle`'s constructors).
pub fn dialect_handle(namespace: &str) -> Option<melior::dialect::DialectHandle> {
    // SAFETY: the getters return static handles that live for the whole process.
    unsafe {
        let raw = match namespace {
            "nvgpu" => mlir_sys::mlirGetDialectHandle__nvgpu__(),
            "nvvm" => mlir_sys::mlirGetDialectHandle__nvvm__(),
            "vector" => mlir_sys::mlirGetDialectHandle__vector__(),
            _ => return None,
        };
        Some(melior::dialect::DialectHandle::from_raw(raw))
    }
}

/// The upstream dialects every context registers (loaded on first use), by namespace, with their C API handles.
///
/// The dialects axe's input, passes and `--lower-to-nvvm` pipeline use, and their neighbours on the way to NVVM:
/// an op of any other dialect is MLIR's "dialect not found" error. Registering every upstream dialect instead
/// (`mlirRegisterAllDialects`) links all of them into both tools and costs start-up time (ARCHITECTURE.md, "Where
/// start-up time goes").
const UPSTREAM_DIALECTS: &[(&str, unsafe extern "C" fn() -> mlir_sys::MlirDialectHandle)] = &[
    ("affine", mlir_sys::mlirGetDialectHandle__affine__),
    ("arith", mlir_sys::mlirGetDialectHandle__arith__),
    ("cf", mlir_sys::mlirGetDialectHandle__cf__),
    ("dlti", mlir_sys::mlirGetDialectHandle__dlti__),
    ("func", mlir_sys::mlirGetDialectHandle__func__),
    ("gpu", mlir_sys::mlirGetDialectHandle__gpu__),
    ("index", mlir_sys::mlirGetDialectHandle__index__),
    ("llvm", mlir_sys::mlirGetDialectHandle__llvm__),
    ("math", mlir_sys::mlirGetDialectHandle__math__),
    ("memref", mlir_sys::mlirGetDialectHandle__memref__),
    ("nvgpu", mlir_sys::mlirGetDialectHandle__nvgpu__),
    ("nvvm", mlir_sys::mlirGetDialectHandle__nvvm__),
    ("scf", mlir_sys::mlirGetDialectHandle__scf__),
    ("ub", mlir_sys::mlirGetDialectHandle__ub__),
    ("vector", mlir_sys::mlirGetDialectHandle__vector__),
];

/// The namespaces of [`UPSTREAM_DIALECTS`], in order.
pub fn upstream_dialects() -> impl Iterator<Item = &'static str> {
    UPSTREAM_DIALECTS.iter().map(|(namespace, _)| *namespace)
}

// `cpp/registration.cpp`, compiled by `build.rs`: what the C API registers only all at once.
unsafe extern "C" {
    fn mlirGetDialectHandle__axe__() -> mlir_sys::MlirDialectHandle;
    fn axeRegisterDialectExtensions(registry: mlir_sys::MlirDialectRegistry);
    fn axeRegisterLLVMTranslations(context: mlir_sys::MlirContext);
    fn axeParseSourceForTool(
        context: mlir_sys::MlirContext,
        source: mlir_sys::MlirStringRef,
        name: mlir_sys::MlirStringRef,
    ) -> mlir_sys::MlirOperation;
    fn axeRegisterUpstreamPassesNamedIn(text: mlir_sys::MlirStringRef);
    fn axeRegisterAllUpstreamPasses();
    fn axeUpstreamPassCount() -> usize;
    fn axeUpstreamPassName(index: usize) -> mlir_sys::MlirStringRef;
    fn axeRegisterExternalPass(index: usize, create: unsafe extern "C" fn(usize) -> mlir_sys::MlirPass);
    fn axeRegisterPipelineAlias(
        name: mlir_sys::MlirStringRef,
        summary: mlir_sys::MlirStringRef,
        elements: mlir_sys::MlirStringRef,
    );
    fn axeAddPassByName(
        manager: mlir_sys::MlirOpPassManager,
        name: mlir_sys::MlirStringRef,
        options: mlir_sys::MlirStringRef,
        callback: mlir_sys::MlirStringCallback,
        data: *mut c_void,
    ) -> mlir_sys::MlirLogicalResult;
    fn axeSetAnchoredPipeline(
        manager: mlir_sys::MlirPassManager,
        text: mlir_sys::MlirStringRef,
        callback: mlir_sys::MlirStringCallback,
        data: *mut c_void,
    ) -> mlir_sys::MlirLogicalResult;
}

/// Adds the upstream dialects axe uses to `registry`, with their dialect extensions (the convert-to-llvm
/// interfaces) and the interface models the generic passes use on them.
pub fn register_upstream_dialects(registry: &DialectRegistry) {
    // SAFETY: the handle getters return static handles; the registry is live and only gains entries.
    unsafe {
        for (_, handle) in UPSTREAM_DIALECTS {
            mlir_sys::mlirDialectHandleInsertDialect(handle(), registry.to_raw());
        }
        axeRegisterDialectExtensions(registry.to_raw());
    }
}

/// Registers the axe dialect (`cpp/axe/Axe.td`, compiled by `build.rs`) in `context` and loads it: parsing would
/// load it on first use, but building an axe op by name (`OperationBuilder`) needs it loaded.
pub fn load_axe_dialect(context: &Context) {
    // SAFETY: the handle getter returns a static handle; the context is live and only gains a dialect.
    unsafe {
        let handle = mlirGetDialectHandle__axe__();
        mlir_sys::mlirDialectHandleRegisterDialect(handle, context.to_raw());
        mlir_sys::mlirDialectHandleLoadDialect(handle, context.to_raw());
    }
}

/// Makes the builtin, llvm, nvvm and gpu dialects translatable to LLVM IR in `context`.
pub fn register_llvm_translations(context: &Context) {
    // SAFETY: the context is live; the call appends a registry of translation interfaces to it.
    unsafe { axeRegisterLLVMTranslations(context.to_raw()) }
}

/// Registers every upstream pass and pipeline axe-opt can name (process-wide; `--help`, tests). Idempotent.
pub fn register_all_upstream_passes() {
    // SAFETY: only adds entries to MLIR's global pass registry, under the C++ side's lock.
    unsafe { axeRegisterAllUpstreamPasses() }
}

/// Registers the upstream passes and pipelines whose names occur as words in `text` (a pass name or pipeline text),
/// process-wide; other words are ignored. Registering constructs each pass once, so tools register only what a
/// command line names (ARCHITECTURE.md, "Where start-up time goes"). Idempotent.
pub fn register_upstream_passes_named_in(text: &str) {
    // SAFETY: the string ref borrows `text` for the call; the C++ side copies what it keeps.
    unsafe { axeRegisterUpstreamPassesNamedIn(StringRef::new(text).to_raw()) }
}

/// The names of every upstream pass and pipeline axe-opt can name (`cpp/registration.cpp`'s table), sorted.
pub fn upstream_pass_names() -> Vec<&'static str> {
    // SAFETY: the table's names are static C++ string literals of ASCII text.
    unsafe {
        (0..axeUpstreamPassCount())
            .map(|index| {
                let name = axeUpstreamPassName(index);
                std::str::from_utf8(std::slice::from_raw_parts(name.data as *const u8, name.length)).unwrap_or("")
            })
            .collect()
    }
}

/// The constructors of the passes registered with [`register_external_pass`], by registration index.
static EXTERNAL_PASSES: std::sync::Mutex<Vec<fn() -> melior::pass::Pass>> = std::sync::Mutex::new(Vec::new());

/// Builds external pass `index` for MLIR's pass registry.
unsafe extern "C" fn create_external_pass(index: usize) -> mlir_sys::MlirPass {
    let create = EXTERNAL_PASSES.lock().unwrap_or_else(|poisoned| poisoned.into_inner())[index];
    create().to_raw()
}

/// Registers a pass built by `create` (a melior external pass) in MLIR's pass registry under its own argument, so
/// pipeline text and [`add_pass_by_name`] name it like an upstream pass. Call once per pass, process-wide.
pub fn register_external_pass(create: fn() -> melior::pass::Pass) {
    let index = {
        let mut passes = EXTERNAL_PASSES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        passes.push(create);
        passes.len() - 1
    };
    // SAFETY: `create_external_pass` returns a fresh pass the registry takes ownership of, for an index just stored.
    unsafe { axeRegisterExternalPass(index, create_external_pass) }
}

/// Registers `name` as a pipeline that appends the pipeline elements `elements` (an alias). Call once per name.
pub fn register_pipeline_alias(name: &str, summary: &str, elements: &str) {
    // SAFETY: the string refs borrow their arguments for the call; the C++ side copies them.
    unsafe {
        axeRegisterPipelineAlias(
            StringRef::new(name).to_raw(),
            StringRef::new(summary).to_raw(),
            StringRef::new(elements).to_raw(),
        )
    }
}

/// A pass manager anchored on `builtin.module`, as mlir-opt's is for a module input. melior's `PassManager::new`
/// anchors on `any` (op-agnostic), where a pass anchored on another op (`convert-gpu-to-nvvm` on `gpu.module`) is
/// added as it is and then refused on the module when run, instead of being nested under its op.
pub fn module_pass_manager(context: &Context) -> melior::pass::PassManager<'_> {
    // SAFETY: the context is live; the new pass manager is owned by the returned value, which borrows the context.
    unsafe {
        melior::pass::PassManager::from_raw(mlir_sys::mlirPassManagerCreateOnOperation(
            context.to_raw(),
            StringRef::new("builtin.module").to_raw(),
        ))
    }
}

/// Adds the registered pass or pipeline `name`, with `options` (the text after `--name=`), to `manager` as mlir-opt
/// adds a pass flag: a pass anchored on another op than the manager's runs nested under that op
/// (`convert-gpu-to-nvvm` on each `gpu.module`). Upstream passes named so are registered first. On failure returns
/// MLIR's message (`'x' does not refer to a registered pass or pass pipeline`, option errors).
pub fn add_pass_by_name(manager: OperationPassManager, name: &str, options: &str) -> Result<(), String> {
    register_upstream_passes_named_in(name);
    // Options may hold pipelines (`inline{default-pipeline=canonicalize}`).
    register_upstream_passes_named_in(options);
    let mut message = String::new();
    // SAFETY: `collect_string` only appends to the `String` passed as user data, which outlives the call.
    let result = unsafe {
        axeAddPassByName(
            manager.to_raw(),
            StringRef::new(name).to_raw(),
            StringRef::new(options).to_raw(),
            Some(collect_string),
            &mut message as *mut String as *mut c_void,
        )
    };
    if result.value != 0 {
        Ok(())
    } else {
        Err(message)
    }
}

/// Replaces what `manager` runs with the anchored pipeline `text` (`builtin.module(cse)`), taking the pipeline's
/// anchor as mlir-opt's `--pass-pipeline` does (a `func.func(...)` pipeline then fails on a module when run). Passes
/// the text names are registered first. On a parse error returns MLIR's message.
pub fn set_anchored_pipeline(manager: &melior::pass::PassManager, text: &str) -> Result<(), String> {
    register_upstream_passes_named_in(text);
    let mut message = String::new();
    // SAFETY: as for `add_pass_by_name`; the manager is live and only its pass list changes.
    let result = unsafe {
        axeSetAnchoredPipeline(
            manager.to_raw(),
            StringRef::new(text).to_raw(),
            Some(collect_string),
            &mut message as *mut String as *mut c_void,
        )
    };
    if result.value != 0 {
        Ok(())
    } else {
        Err(message.trim_end().to_string())
    }
}

/// Loads the dialects named in `namespaces` (registered upstream ones) into the context of `operation`.
///
/// Contexts load dialects on first use; a function that builds ops of a dialect calls this first, so it works
/// when called directly as well as inside a pass that declared the dialects. Returns the namespaces that are not
/// registered.
pub fn load_dialects<'n>(operation: OperationRef, namespaces: &[&'n str]) -> Vec<&'n str> {
    // SAFETY: the op's context is live; a null dialect means the namespace is not registered.
    let missing = |namespace: &&str| unsafe {
        let context = mlir_sys::mlirOperationGetContext(operation.to_raw());
        mlir_sys::mlirContextGetOrLoadDialect(context, StringRef::new(namespace).to_raw()).ptr.is_null()
    };
    namespaces.iter().copied().filter(|namespace| missing(namespace)).collect()
}

/// Returns the location of a block argument.
pub fn block_argument_location<'c>(argument: BlockArgument<'c, '_>) -> Location<'c> {
    // SAFETY: the argument is a live value; locations are owned by the context.
    unsafe { Location::from_raw(mlir_sys::mlirValueGetLocation(argument.to_raw())) }
}

/// Sets the location of an op (melior sets it only through a mutable reference).
pub fn set_location(operation: OperationRef, location: Location) {
    // SAFETY: both handles are live; the call only stores the location.
    unsafe { mlir_sys::mlirOperationSetLocation(operation.to_raw(), location.to_raw()) }
}

/// Sets the location of a block argument.
pub fn set_block_argument_location(argument: BlockArgument, location: Location) {
    // SAFETY: both handles are live; the call only stores the location.
    unsafe { mlir_sys::mlirBlockArgumentSetLocation(argument.to_raw(), location.to_raw()) }
}

/// Returns `location` with its file name replaced by `file`, keeping its line
/// and column range; `None` when `location` is not a file location.
pub fn rename_file_location<'c>(location: Location<'c>, file: &str) -> Option<Location<'c>> {
    if !location.is_file_line_col_range() {
        return None;
    }
    let (start_line, start_column) =
        (location.file_line_col_range_start_line() as u32, location.file_line_col_range_start_column() as u32);
    let (end_line, end_column) =
        (location.file_line_col_range_end_line() as u32, location.file_line_col_range_end_column() as u32);
    let file = StringRef::new(file).to_raw();
    // SAFETY: the location is live, so its context is; the new location is
    // owned by that context and lives as long as `location` does.
    unsafe {
        let context = mlir_sys::mlirLocationGetContext(location.to_raw());
        let raw = if (start_line, start_column) == (end_line, end_column) {
            mlir_sys::mlirLocationFileLineColGet(context, file, start_line, start_column)
        } else {
            mlir_sys::mlirLocationFileLineColRangeGet(context, file, start_line, start_column, end_line, end_column)
        };
        Some(Location::from_raw(raw))
    }
}

/// Appends textual pipeline elements (`canonicalize,gpu.module(cse)`) to `manager`.
///
/// Unlike `melior::utility::parse_pass_pipeline`, this keeps the passes already
/// in the manager. The upstream passes the text names are registered first.
/// On a parse error returns MLIR's message.
pub fn add_pipeline(manager: OperationPassManager, elements: &str) -> Result<(), String> {
    register_upstream_passes_named_in(elements);
    let mut message = String::new();
    // SAFETY: `collect_string` only appends to the `String` passed as user data,
    // which outlives the call.
    let result = unsafe {
        mlir_sys::mlirOpPassManagerAddPipeline(
            manager.to_raw(),
            StringRef::new(elements).to_raw(),
            Some(collect_string),
            &mut message as *mut String as *mut c_void,
        )
    };
    if result.value != 0 {
        Ok(())
    } else if message.is_empty() {
        Err(format!("failed to parse pass pipeline '{elements}'"))
    } else {
        Err(message)
    }
}

/// Emits an error diagnostic at `location` through the context's handlers.
pub fn emit_error(location: Location, message: &str) {
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: `message` is a valid NUL-terminated string for the call.
    unsafe { mlir_sys::mlirEmitError(location.to_raw(), message.as_ptr()) }
}

/// Translates `operation` (a `builtin.module` or `gpu.module` of llvm/nvvm ops)
/// into an LLVM module created in `llvm_context`.
///
/// Returns a raw `LLVMModuleRef` owned by the caller, or null after emitting
/// diagnostics when the translation fails, or when `operation` holds an op MLIR
/// 22's export crashes on ([`crate::llvm_export::check`], refused at its location).
///
/// # Safety
///
/// `llvm_context` must be a live `LLVMContextRef` (for example
/// `inkwell::context::Context::raw()`); the returned module belongs to that
/// context and must be disposed before it.
pub unsafe fn translate_to_llvm_ir(operation: OperationRef, llvm_context: *mut c_void) -> *mut c_void {
    let refused = crate::llvm_export::check(operation);
    if !refused.is_empty() {
        for (location, message) in refused {
            emit_error(location, &message);
        }
        return std::ptr::null_mut();
    }
    // SAFETY: the caller guarantees `llvm_context` is a live LLVM context; the
    // mlir-sys and llvm-sys opaque types are the same C structs.
    unsafe {
        mlir_sys::mlirTranslateModuleToLLVMIR(operation.to_raw(), llvm_context as mlir_sys::LLVMContextRef)
            as *mut c_void
    }
}

/// Appends a string chunk to the `String` behind `data` (a C API string callback).
unsafe extern "C" fn collect_string(chunk: mlir_sys::MlirStringRef, data: *mut c_void) {
    // SAFETY: `data` is the `&mut String` passed by `add_pipeline`; the chunk
    // points at `length` readable bytes for the duration of the callback.
    unsafe {
        let buffer = &mut *(data as *mut String);
        let bytes = std::slice::from_raw_parts(chunk.data as *const u8, chunk.length);
        buffer.push_str(&String::from_utf8_lossy(bytes));
    }
}

/// Parses a type in the context of `operation` (passes get only an op, not a `&Context`).
pub fn parse_type<'c>(operation: OperationRef<'c, '_>, text: &str) -> Option<Type<'c>> {
    // SAFETY: the op's context is live for `'c`; a null result means the text did not parse.
    unsafe {
        let raw = mlir_sys::mlirTypeParseGet(
            mlir_sys::mlirOperationGetContext(operation.to_raw()),
            StringRef::new(text).to_raw(),
        );
        Type::from_option_raw(raw)
    }
}

/// Parses an attribute in the context of `operation`.
pub fn parse_attribute<'c>(operation: OperationRef<'c, '_>, text: &str) -> Option<Attribute<'c>> {
    // SAFETY: as for `parse_type`.
    unsafe {
        let raw = mlir_sys::mlirAttributeParseGet(
            mlir_sys::mlirOperationGetContext(operation.to_raw()),
            StringRef::new(text).to_raw(),
        );
        Attribute::from_option_raw(raw)
    }
}

/// The function type `(inputs) -> (results)` in the context of `operation`.
pub fn function_type<'c>(operation: OperationRef<'c, '_>, inputs: &[Type<'c>], results: &[Type<'c>]) -> Type<'c> {
    let inputs: Vec<mlir_sys::MlirType> = inputs.iter().map(|t| t.to_raw()).collect();
    let results: Vec<mlir_sys::MlirType> = results.iter().map(|t| t.to_raw()).collect();
    // SAFETY: the arrays outlive the call; MLIR uniques the type in the op's live context.
    unsafe {
        Type::from_raw(mlir_sys::mlirFunctionTypeGet(
            mlir_sys::mlirOperationGetContext(operation.to_raw()),
            inputs.len() as isize,
            inputs.as_ptr(),
            results.len() as isize,
            results.as_ptr(),
        ))
    }
}

/// Sets (or replaces) the attribute `name` of `operation`.
pub fn set_attribute(operation: OperationRef, name: &str, attribute: Attribute) {
    // SAFETY: both handles are live; MLIR copies the name.
    unsafe {
        mlir_sys::mlirOperationSetAttributeByName(operation.to_raw(), StringRef::new(name).to_raw(), attribute.to_raw())
    }
}

/// Moves `operation` right before `anchor` (which must be in a block; the operation leaves its own block).
pub fn move_before(operation: OperationRef, anchor: OperationRef) {
    // SAFETY: both are live operations of one context; MLIR unlinks `operation` and relinks it before `anchor`.
    unsafe { mlir_sys::mlirOperationMoveBefore(operation.to_raw(), anchor.to_raw()) }
}

/// Replaces operand `index` of `operation` with `value`.
pub fn set_operand(operation: OperationRef, index: usize, value: melior::ir::Value) {
    // SAFETY: both handles are live; the caller keeps `index` below the operand count.
    unsafe { mlir_sys::mlirOperationSetOperand(operation.to_raw(), index as isize, value.to_raw()) }
}

/// Whether `value` has any use.
pub fn has_uses(value: melior::ir::Value) -> bool {
    // SAFETY: the value is live; a null op operand means no use.
    unsafe { !mlir_sys::mlirOpOperandIsNull(mlir_sys::mlirValueGetFirstUse(value.to_raw())) }
}

/// The ops that use `value`, one entry per use (an op using it twice appears twice), in MLIR's use-list order.
pub fn users<'c, 'a>(value: melior::ir::Value<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = Vec::new();
    // SAFETY: the value is live; each non-null op operand is a live use whose owner lives as long as the value's
    // IR, which the returned refs borrow (`'a`).
    unsafe {
        let mut operand = mlir_sys::mlirValueGetFirstUse(value.to_raw());
        while !mlir_sys::mlirOpOperandIsNull(operand) {
            out.push(OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(operand)));
            operand = mlir_sys::mlirOpOperandGetNextUse(operand);
        }
    }
    out
}

/// The identity of `ty` within its context: MLIR uniques types, so two types of one context are equal exactly
/// when their storage is, and the storage lives as long as the context. A key for memo tables that must not print
/// the type (printing builds an `AsmState`); valid only while the context lives (see `intern::forget_handles`).
pub fn type_key(ty: Type) -> (usize, usize) {
    // SAFETY: the type is live; reading its context handle has no side effect.
    let context = unsafe { mlir_sys::mlirTypeGetContext(ty.to_raw()) };
    (context.ptr as usize, ty.to_raw().ptr as usize)
}

/// One MLIR diagnostic read out of MLIR: severity, location, message text and notes.
pub struct RawDiagnostic<'c> {
    /// Error, warning, note or remark (`None` for a severity MLIR 22 does not define).
    pub severity: Option<melior::diagnostic::DiagnosticSeverity>,
    /// Where MLIR says it points.
    pub location: Location<'c>,
    /// The text, with any bytes that are not UTF-8 replaced by U+FFFD.
    pub message: String,
    /// The attached notes, in order.
    pub notes: Vec<RawDiagnostic<'c>>,
}

/// Attaches `handler` to every diagnostic `context` emits (the handler reports it handled).
///
/// melior's own handler gives a `Diagnostic` whose `Display` fails when MLIR prints bytes that are not UTF-8 (an op
/// name written with a `\BA` escape is echoed raw), and `to_string` then panics inside a C callback, which aborts.
/// Here the text is collected as bytes and converted once, lossily.
pub fn attach_diagnostic_handler<F: FnMut(RawDiagnostic) + 'static>(context: &Context, handler: F) {
    unsafe extern "C" fn handle<F: FnMut(RawDiagnostic)>(
        diagnostic: mlir_sys::MlirDiagnostic,
        data: *mut c_void,
    ) -> mlir_sys::MlirLogicalResult {
        // SAFETY: `data` is the `Box<F>` leaked below, alive until `drop_handler`; MLIR calls handlers on the
        // context's (single) thread, so the `&mut` is unique.
        let handler = unsafe { &mut *(data as *mut F) };
        handler(read_diagnostic(diagnostic));
        mlir_sys::MlirLogicalResult { value: 1 }
    }
    unsafe extern "C" fn drop_handler<F>(data: *mut c_void) {
        // SAFETY: `data` came from `Box::into_raw` in `attach_diagnostic_handler`; MLIR calls this once.
        drop(unsafe { Box::from_raw(data as *mut F) });
    }
    let data = Box::into_raw(Box::new(handler)) as *mut c_void;
    // SAFETY: the context is live; MLIR owns `data` from here and frees it with `drop_handler`.
    unsafe {
        mlir_sys::mlirContextAttachDiagnosticHandler(
            context.to_raw(),
            Some(handle::<F>),
            data,
            Some(drop_handler::<F>),
        );
    }
}

/// Reads a diagnostic (and its notes) handed to a diagnostic handler.
fn read_diagnostic<'c>(diagnostic: mlir_sys::MlirDiagnostic) -> RawDiagnostic<'c> {
    let mut bytes = Vec::new();
    // SAFETY: `diagnostic` is valid for the duration of the handler call that reads it; `collect_bytes` only
    // appends to `bytes`, which outlives the call.
    unsafe {
        mlir_sys::mlirDiagnosticPrint(diagnostic, Some(collect_bytes), &mut bytes as *mut Vec<u8> as *mut c_void);
        let notes = (0..mlir_sys::mlirDiagnosticGetNumNotes(diagnostic))
            .map(|index| read_diagnostic(mlir_sys::mlirDiagnosticGetNote(diagnostic, index)))
            .collect();
        RawDiagnostic {
            severity: melior::diagnostic::DiagnosticSeverity::try_from(mlir_sys::mlirDiagnosticGetSeverity(diagnostic))
                .ok(),
            location: Location::from_raw(mlir_sys::mlirDiagnosticGetLocation(diagnostic)),
            message: String::from_utf8_lossy(&bytes).into_owned(),
            notes,
        }
    }
}

/// Appends a chunk to the `Vec<u8>` behind `data` (a C API string callback; chunks may split a UTF-8 sequence).
unsafe extern "C" fn collect_bytes(chunk: mlir_sys::MlirStringRef, data: *mut c_void) {
    // SAFETY: `data` is the `&mut Vec<u8>` passed by the caller; the chunk points at `length` readable bytes.
    unsafe {
        let buffer = &mut *(data as *mut Vec<u8>);
        buffer.extend_from_slice(std::slice::from_raw_parts(chunk.data as *const u8, chunk.length));
    }
}
