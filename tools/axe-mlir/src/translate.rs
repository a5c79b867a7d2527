//! `axe-translate`: a module of llvm/nvvm ops to LLVM IR or PTX, in memory.
//!
//! Picks the `gpu.module` to translate (the only one, or `--gpu-module=NAME`;
//! the whole module when there is none), translates it with MLIR's LLVM IR
//! export into an inkwell context, sets the NVPTX triple and data layout, runs
//! LLVM's optimization pipeline, and prints LLVM IR (`--emit=llvm`) or PTX
//! (`--emit=ptx --chip=...`), or the kernels' launch contract as JSON (`--emit=launch`, [`crate::launch`]).
//! Exit code 0 on success, 1 on any failure.

use crate::{
    args::{no_value, Arg, Args},
    io::{drop_unless_exiting, read_input, tool_main, write_output, write_stderr},
    nvshmem,
    ptx::{self, Chip},
};
use anyhow::{anyhow, bail, Context as _, Result};
use axe_dialect::{create_context, ffi, parse_module, AxeContext, Diagnostic};
use inkwell::{context::Context as LlvmContext, module::Module as LlvmModule, targets::TargetMachine};
use melior::ir::{block::BlockLike, operation::OperationLike, Module, OperationRef};
use std::ffi::OsString;

/// What to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// LLVM IR text.
    Llvm,
    /// PTX assembly.
    Ptx,
    /// The kernels' launch records as JSON (`crate::launch`); nothing is translated.
    Launch,
    /// A Trainium module of axe ops as NKI kernels in Python (`axe_passes::nki`).
    Nki,
}

impl Emit {
    /// The `--emit` value that asks for it.
    pub fn flag(self) -> &'static str {
        match self {
            Emit::Llvm => "llvm",
            Emit::Ptx => "ptx",
            Emit::Launch => "launch",
            Emit::Nki => "nki",
        }
    }
}

/// Everything the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Input path, `-` for stdin.
    pub input: String,
    /// Output path; stdout when `None`.
    pub output: Option<String>,
    /// `--emit=llvm|ptx|launch|nki`; `None` (not given): by the module's `axe.target`, NKI for a Trainium chip and
    /// PTX otherwise.
    pub emit: Option<Emit>,
    /// `--chip=sm_80|sm_90a|sm_100a` (default sm_90a).
    pub chip: Chip,
    /// `--gpu-module=NAME`: which gpu.module to translate.
    pub gpu_module: Option<String>,
    /// `-O0`..`-O3` (default 2, as upstream gpu-module-to-binary).
    pub opt_level: u8,
    /// `--nvshmem-lib=PATH|none`: NVSHMEM's device bitcode, linked when the module calls it ([`crate::nvshmem`]).
    pub nvshmem: nvshmem::Source,
    /// `-v`: say on stderr which NVSHMEM bitcode file was linked.
    pub verbose: bool,
}

/// What `axe-translate` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Translate the input.
    Run(Options),
    /// Print `--help`.
    Help,
}

const HELP: &str = "OVERVIEW: axe-translate - MLIR (llvm/nvvm ops) to LLVM IR or PTX; axe IR to NKI

USAGE: axe-translate [options] [<input file> | -]

The input is a module whose gpu.module holds llvm and nvvm ops (the output of
`axe-opt --lower-to-nvvm`). Host code outside the gpu.module is ignored.
With --emit=nki the input is a Trainium module of axe ops (axe.target = \"trn1\"),
printed as NKI kernels in Python.

OPTIONS:
  --emit=ptx|llvm|launch|nki  What to print (default: nki for a module whose axe.target is
                           trn1, else ptx); launch: JSON with each kernel's grid, block,
                           dynamic shared bytes, parameters and tensor maps; nki: each
                           func.func of a trn1 module as an @nki.jit kernel
  --chip=<chip>            sm_80, sm_90a or sm_100a (default: sm_90a); sets the PTX ISA
  --gpu-module=<name>      Which gpu.module to translate when there are several
  -O0 | -O1 | -O2 | -O3    LLVM optimization level before codegen (default: -O2)
  --nvshmem-lib=<path>     NVSHMEM device bitcode (a libnvshmem_device_sm_*.bc or its directory) linked
                           when the module calls nvshmem functions (default: $AXE_NVSHMEM_LIB, then the
                           nvidia-nvshmem wheel in the project's .venv, nowhere else); `none` leaves
                           them .extern in the PTX (for nvlink)
  -v, --verbose            Say on stderr which NVSHMEM bitcode file was linked
  -o <file>                Write the output to <file> (default: stdout)
  -h, --help               Show this help
";

/// Entry point of the `axe-translate` binary.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ! {
    tool_main("axe-translate", || parse_command(args), run)
}

/// Reads the command line.
pub fn parse_command(words: impl IntoIterator<Item = OsString>) -> Result<Command> {
    let mut args = Args::new(words)?;
    let mut options = Options {
        input: "-".into(),
        output: None,
        emit: None,
        chip: Chip::Sm90a,
        gpu_module: None,
        opt_level: 2,
        nvshmem: nvshmem::Source::Search,
        verbose: false,
    };
    let mut input = None;
    while let Some(arg) = args.next_arg() {
        let (name, value) = match arg {
            Arg::Positional(word) => {
                if input.replace(word).is_some() {
                    bail!("more than one input file given");
                }
                continue;
            }
            Arg::Flag { name, value } => (name, value),
        };
        match name.as_str() {
            "h" | "help" => return Ok(Command::Help),
            "o" => options.output = Some(args.value(&name, value)?),
            "emit" => {
                options.emit = Some(match args.value(&name, value)?.as_str() {
                    "llvm" => Emit::Llvm,
                    "ptx" => Emit::Ptx,
                    "launch" => Emit::Launch,
                    "nki" => Emit::Nki,
                    other => bail!("unknown --emit value '{other}' (expected llvm, ptx, launch or nki)"),
                });
            }
            "chip" => options.chip = ptx::parse_chip(&args.value(&name, value)?)?,
            "gpu-module" => options.gpu_module = Some(args.value(&name, value)?),
            "nvshmem-lib" => options.nvshmem = nvshmem::Source::parse(&args.value(&name, value)?),
            "v" | "verbose" => {
                no_value(&name, &value)?;
                options.verbose = true;
            }
            "O0" | "O1" | "O2" | "O3" => {
                no_value(&name, &value)?;
                options.opt_level = name.as_bytes()[1] - b'0';
            }
            _ => bail!("unknown option '-{name}' (see axe-translate --help)"),
        }
    }
    if let Some(input) = input {
        options.input = input;
    }
    Ok(Command::Run(options))
}

/// The dialects `axe-opt --lower-to-nvvm` leaves (what `axe-translate` reads), loaded before the input arrives.
const LOWERED_DIALECTS: [&str; 3] = ["gpu", "llvm", "nvvm"];

/// Runs a parsed command; `Ok(false)` means "failed, diagnostics printed".
pub fn run(command: Command) -> Result<bool> {
    let options = match command {
        Command::Run(options) => options,
        Command::Help => return write_output(None, HELP.as_bytes()).map(|()| true),
    };
    // The context, the dialects of lowered IR and the target machine come before the input: in a pipeline
    // (`axe-opt ... | axe-translate`) the input is the previous tool's output, and making them while it runs
    // takes them off the pipeline's critical path (docs/performance.md). Loading a dialect the input turns out
    // not to use changes nothing it prints.
    let context = create_context()?;
    for dialect in LOWERED_DIALECTS {
        context.context().get_or_load_dialect(dialect);
    }
    let machine = match options.emit {
        Some(Emit::Launch | Emit::Nki) => None,
        _ => Some(ptx::target_machine(options.chip, ptx::optimization_level(options.opt_level)?)?),
    };
    let input = read_input(&options.input)?;
    let Some(module) = parse_module(&context, &input.text, &input.name) else {
        report(&context, &input.name, &input.text);
        return Ok(false);
    };
    // A module for a Trainium chip translates to NKI: by default, and only so.
    let trainium = module.as_operation().attribute(axe_passes::TARGET_ATTRIBUTE).ok().and_then(|a| {
        let name = a.to_string().trim_matches('"').to_string();
        axe_layout::trn::chip(&name).map(|_| name)
    });
    let emit = match (options.emit, trainium) {
        (None | Some(Emit::Nki), Some(_)) => Emit::Nki,
        (Some(other), Some(chip)) => {
            bail!(
                "the module's axe.target is \"{chip}\", a Trainium chip: it translates to NKI (--emit=nki), not {}",
                other.flag()
            )
        }
        (None, None) => Emit::Ptx,
        (Some(emit), None) => emit,
    };
    if emit == Emit::Nki {
        // The axe semantic rules first (as axe-opt runs them), then the emitter's own.
        if !axe_dialect::verify(&module) {
            report(&context, &input.name, &input.text);
            return Ok(false);
        }
        return match axe_passes::nki::emit(&module, &input.text, &input.name) {
            Ok(python) => write_output(options.output.as_deref(), python.as_bytes()).map(|()| true),
            Err(errors) => {
                emit_located(&errors);
                report(&context, &input.name, &input.text);
                Ok(false)
            }
        };
    }
    let target = select_target(&module, options.gpu_module.as_deref())?;
    if emit == Emit::Launch {
        return match crate::launch::launch_json(target, options.chip.name()) {
            Ok(json) => write_output(options.output.as_deref(), json.as_bytes()).map(|()| true),
            Err(errors) => {
                emit_located(&errors);
                report(&context, &input.name, &input.text);
                Ok(false)
            }
        };
    }
    let machine = machine.context("internal: no target machine for this --emit")?;
    let library = Library { source: &options.nvshmem, chip: options.chip, verbose: options.verbose };
    let Some(bytes) = translate_linking(target, &machine, options.opt_level, emit, Some(library))? else {
        report(&context, &input.name, &input.text);
        return Ok(false);
    };
    write_output(options.output.as_deref(), &bytes)?;
    drop_unless_exiting(module);
    drop_unless_exiting(context);
    Ok(true)
}

/// Translates `target` (a `gpu.module` of llvm/nvvm ops, or a whole module) to LLVM IR or PTX for `machine`, in
/// memory. `Ok(None)` when MLIR's export failed (its diagnostics are in the context's sink).
pub fn translate(target: OperationRef, machine: &TargetMachine, opt_level: u8, emit: Emit) -> Result<Option<Vec<u8>>> {
    translate_linking(target, machine, opt_level, emit, None)
}

/// Where NVSHMEM's device library comes from, for [`translate_linking`].
#[derive(Clone, Copy, Debug)]
pub struct Library<'s> {
    /// The `--nvshmem-lib` choice.
    pub source: &'s nvshmem::Source,
    /// The chip whose bitcode is linked.
    pub chip: Chip,
    /// Say on stderr which file was linked (`-v`).
    pub verbose: bool,
}

/// [`translate`], linking NVSHMEM's device bitcode first when the module calls it and `library` finds it
/// ([`crate::nvshmem`]); without it the NVSHMEM functions stay external, with a note on stderr. `Ok(None)` also
/// when a kernel's name cannot be a PTX entry (`--emit=ptx`; the errors are in the context's sink).
pub fn translate_linking(
    target: OperationRef,
    machine: &TargetMachine,
    opt_level: u8,
    emit: Emit,
    library: Option<Library>,
) -> Result<Option<Vec<u8>>> {
    // The launch record names every kernel the PTX has, by the same rule: a kernel whose name cannot be a PTX
    // entry (empty, not UTF-8, not an identifier) is refused at its location, not renamed or dropped by LLVM.
    if emit == Emit::Ptx {
        let bad_names = crate::launch::check_kernel_names(target);
        if !bad_names.is_empty() {
            emit_located(&bad_names);
            return Ok(None);
        }
    }
    let llvm_context = LlvmContext::create();
    // SAFETY: `llvm_context` is live for the whole call; the returned module
    // belongs to it and is wrapped right away, so it is dropped first.
    let raw = unsafe { ffi::translate_to_llvm_ir(target, llvm_context.raw() as *mut _) };
    if raw.is_null() {
        return Ok(None);
    }
    // SAFETY: `raw` is a non-null LLVM module created in `llvm_context`, owned
    // by us from here on; inkwell disposes of it on drop.
    let llvm_module = unsafe { LlvmModule::new(raw as _) };
    let mut raised = None;
    if let Some(library) = library.filter(|_| nvshmem::calls_nvshmem(&llvm_module)) {
        match nvshmem::locate(library.source, library.chip)? {
            Some(path) => {
                let chip_ptx = nvshmem::ptx_version(ptx::isa(library.chip)).unwrap_or(0);
                let ptx = nvshmem::link(&llvm_module, &path, machine)?;
                if library.verbose {
                    write_stderr(&format!("axe-translate: linked NVSHMEM device bitcode {}\n", path.display()));
                }
                if let Some(ptx) = ptx.filter(|v| *v > chip_ptx) {
                    let level = ptx::optimization_level(opt_level)?;
                    raised = Some(ptx::target_machine_with_ptx(library.chip, &format!("+ptx{ptx}"), level)?);
                }
            }
            None if *library.source == nvshmem::Source::None => {}
            None => write_stderr(&format!(
                "axe-translate: note: the module calls NVSHMEM but its device bitcode was not found (--nvshmem-lib, \
                 ${}, or the nvidia-nvshmem-cu13 wheel in the project's .venv, {}); the NVSHMEM functions stay \
                 .extern: assemble with ptxas -c and link with nvlink against libnvshmem_device.a\n",
                nvshmem::ENV,
                nvshmem::PROJECT_VENV
            )),
        }
    }
    let machine = raised.as_ref().unwrap_or(machine);
    ptx::prepare(&llvm_module, machine, opt_level)?;
    let bytes = match emit {
        Emit::Llvm => llvm_module.print_to_string().to_bytes().to_vec(),
        Emit::Ptx => ptx::emit_ptx(&llvm_module, machine)?,
        Emit::Launch | Emit::Nki => {
            bail!("--emit=launch and --emit=nki read the module; they do not translate it to LLVM")
        }
    };
    drop(llvm_module);
    Ok(Some(bytes))
}

/// The op to translate: the `gpu.module` named `wanted`, the only one, or the
/// whole module when it holds none.
pub fn select_target<'c, 'a>(module: &'a Module<'c>, wanted: Option<&str>) -> Result<OperationRef<'c, 'a>> {
    let body = module.body();
    let gpu_modules: Vec<(String, OperationRef<'c, 'a>)> =
        std::iter::successors(body.first_operation(), |op| op.next_in_block())
            .filter(|op| op.name().as_string_ref().as_str() == Ok("gpu.module"))
            .map(|op| (symbol_name(op), op))
            .collect();
    let names = || gpu_modules.iter().map(|(name, _)| format!("@{name}")).collect::<Vec<_>>().join(", ");
    match (wanted, gpu_modules.len()) {
        (Some(wanted), _) => gpu_modules
            .iter()
            .find(|(name, _)| name == wanted.trim_start_matches('@'))
            .map(|(_, op)| *op)
            .ok_or_else(|| anyhow!("no gpu.module named @{wanted} (found: {})", names())),
        (None, 0) => Ok(module.as_operation()),
        (None, 1) => Ok(gpu_modules[0].1),
        (None, _) => {
            Err(anyhow!("the input holds several gpu.modules ({}): choose one with --gpu-module=NAME", names()))
        }
    }
    .context("selecting what to translate")
}

/// The `sym_name` of an op (invalid UTF-8 replaced), or an empty string.
fn symbol_name(op: OperationRef) -> String {
    op.attribute("sym_name")
        .ok()
        .and_then(crate::launch::string_bytes)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

/// Emits located errors into the context's diagnostics, for [`report`].
fn emit_located(errors: &[crate::launch::Located]) {
    for (location, message) in errors {
        ffi::emit_error(*location, message);
    }
}

/// Prints the context's pending diagnostics with source lines.
fn report(context: &AxeContext, name: &str, text: &str) {
    let rendered: String = context
        .diagnostics()
        .take()
        .iter()
        .map(|diagnostic: &Diagnostic| diagnostic.render(Some((name, text))))
        .collect();
    write_stderr(&rendered);
}
