//! Reading the input and writing the output of a tool, without panics.

use anyhow::{Context as _, Result};
use std::{
    ffi::{c_char, CStr},
    io::{Read, Write},
    path::Path,
    sync::OnceLock,
};

/// An input buffer: its name in diagnostics and its text.
#[derive(Clone, Debug)]
pub struct Input {
    /// `<stdin>` or the path as given on the command line.
    pub name: String,
    /// The whole text.
    pub text: String,
}

/// Reads `path` (`-` for stdin) as UTF-8 text; invalid UTF-8 is an error at its line and column.
pub fn read_input(path: &str) -> Result<Input> {
    let mut bytes = Vec::new();
    let name = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes).context("cannot read standard input")?;
        "<stdin>".to_string()
    } else {
        bytes = std::fs::read(path).with_context(|| format!("cannot open input file '{path}'"))?;
        path.to_string()
    };
    let text = axe_dialect::guards::decode_utf8(bytes, &name)?;
    Ok(Input { name, text })
}

/// Writes `bytes` to `path`, or to stdout when `path` is `None` or `-`.
///
/// A file is written by [`axe_output::write_file`], shared with `axe-layout show --html`: a regular file
/// atomically (an exclusive temporary file with an unpredictable name beside it, renamed over it with its
/// permission bits), so a failed write leaves an existing file untouched and never a partial one; anything else
/// (`/dev/null`, a pipe) in place. Nothing is synced to disk (`fsync` cost 2-3 ms of every `-o` run).
pub fn write_output(path: Option<&str>, bytes: &[u8]) -> Result<()> {
    match path {
        Some(path) if path != "-" => {
            axe_output::write_file(Path::new(path), bytes).with_context(|| format!("cannot write '{path}'"))
        }
        _ => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(bytes).and_then(|()| stdout.flush()).context("cannot write to standard output")
        }
    }
}

/// Writes diagnostics text to stderr, ignoring a closed stderr.
pub fn write_stderr(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// Turns LLVM's `report_fatal_error` (for example an intrinsic the chip lacks)
/// into `<tool>: error: LLVM: <reason>` and exit code 1 instead of an abort.
pub fn install_llvm_fatal_error_handler(tool: &'static str) {
    static TOOL: OnceLock<&'static str> = OnceLock::new();
    let _ = TOOL.set(tool);
    extern "C" fn on_fatal_error(reason: *const c_char) {
        let reason = if reason.is_null() {
            "unknown reason".into()
        } else {
            // SAFETY: LLVM passes a NUL-terminated message that lives for the call.
            unsafe { CStr::from_ptr(reason) }.to_string_lossy()
        };
        let tool = TOOL.get().copied().unwrap_or("axe");
        write_stderr(&format!("{tool}: error: LLVM: {reason}\n"));
        std::process::exit(1);
    }
    // SAFETY: the handler never returns into LLVM and touches no LLVM state.
    unsafe { inkwell::support::error_handling::install_fatal_error_handler(on_fatal_error) };
}

/// The shared shape of every axe tool's `main`: install the LLVM fatal-error handler, parse the command line, run
/// it, and map the outcome to the exit code (0 success; 1 failure, with `<tool>: error: ...` for tool-level errors;
/// diagnostics were already printed when `run` returns `Ok(false)`). `run` works on a thread whose stack is sized
/// for the deepest input the guards accept; a located input error (`Diagnostic`) prints as a diagnostic.
pub fn tool_main<C: Send + 'static>(
    tool: &'static str,
    parse: impl FnOnce() -> anyhow::Result<C>,
    run: impl FnOnce(C) -> anyhow::Result<bool> + Send + 'static,
) -> ! {
    install_llvm_fatal_error_handler(tool);
    EXITS_AFTER_RUN.store(true, std::sync::atomic::Ordering::Relaxed);
    let code = match parse().and_then(|command| on_tool_stack(move || run(command))) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(error) => {
            match error.downcast_ref::<axe_dialect::Diagnostic>() {
                Some(diagnostic) => write_stderr(&diagnostic.render(None)),
                None => write_stderr(&format!("{tool}: error: {error:#}\n")),
            }
            1
        }
    };
    exit_now(code)
}

/// Set by [`tool_main`], which ends the process with `_exit` as soon as `run` returns.
static EXITS_AFTER_RUN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Drops `value` (a context, or a module with its context) unless the process ends right after this run: under
/// [`tool_main`] it is left to the OS, since tearing down an MLIR context (every uniqued type and attribute, every
/// registered op) is a measurable part of a short run and frees nothing the exit would not. Library callers
/// (tests, the Python package, embedders) get the ordinary drop.
pub fn drop_unless_exiting<T>(value: T) {
    if EXITS_AFTER_RUN.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(value);
    }
}

/// Flushes the standard streams and ends the process without running static destructors.
///
/// The MLIR/LLVM objects the tool made are gone by now (contexts drop inside `run`, or are left to the exit by
/// [`drop_unless_exiting`]); what remains are the static
/// registries of the linked LLVM and MLIR libraries (thousands of command-line options, dialect and pass
/// registrations), whose destructors only free memory the OS reclaims anyway; running them was a measurable part
/// of a short run.
fn exit_now(code: i32) -> ! {
    let _ = std::io::stdout().lock().flush();
    let _ = std::io::stderr().lock().flush();
    // SAFETY: `_exit` takes any status and never returns; the streams were flushed above.
    unsafe { libc::_exit(code) }
}

/// Stack size of the thread a tool works on. MLIR's parser, verifier, printer and passes recurse once per nesting
/// level; the input guard caps nesting at `MAX_NESTING_DEPTH` levels (about 2 KiB of stack each when parsing), so
/// this leaves an order of magnitude of margin for passes that recurse deeper per level. Untouched pages cost
/// nothing.
const TOOL_STACK_BYTES: usize = 256 << 20;

/// Runs `work` on a thread with [`TOOL_STACK_BYTES`] of stack (MLIR contexts are created and used on it alone).
fn on_tool_stack<C: Send + 'static>(work: impl FnOnce() -> C + Send + 'static) -> C {
    let spawned = std::thread::Builder::new().name("axe".into()).stack_size(TOOL_STACK_BYTES).spawn(work);
    match spawned.map(std::thread::JoinHandle::join) {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => {
            write_stderr("axe: error: cannot start the worker thread\n");
            std::process::exit(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::drop_unless_exiting;
    use std::rc::Rc;

    #[test]
    fn outside_a_tool_run_values_drop() {
        // Library callers (this test harness among them) never reach tool_main: the value is dropped, not leaked.
        let shared = Rc::new(());
        drop_unless_exiting(Rc::clone(&shared));
        assert_eq!(Rc::strong_count(&shared), 1);
    }
}
