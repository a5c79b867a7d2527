//! Reading the input and writing the output of a tool, without panics.

use anyhow::{Context as _, Result};
use std::{
    ffi::{c_char, CStr},
    io::{Read, Write},
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

/// Reads `path` (`-` for stdin) as UTF-8 text.
pub fn read_input(path: &str) -> Result<Input> {
    let mut bytes = Vec::new();
    let name = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes).context("cannot read standard input")?;
        "<stdin>".to_string()
    } else {
        bytes = std::fs::read(path).with_context(|| format!("cannot open input file '{path}'"))?;
        path.to_string()
    };
    let text = String::from_utf8(bytes).with_context(|| format!("{name} is not valid UTF-8"))?;
    Ok(Input { name, text })
}

/// Writes `bytes` to `path`, or to stdout when `path` is `None` or `-`.
pub fn write_output(path: Option<&str>, bytes: &[u8]) -> Result<()> {
    match path {
        Some(path) if path != "-" => std::fs::write(path, bytes).with_context(|| format!("cannot write '{path}'")),
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
/// diagnostics were already printed when `run` returns `Ok(false)`).
pub fn tool_main<C>(
    tool: &'static str,
    parse: impl FnOnce() -> anyhow::Result<C>,
    run: impl FnOnce(C) -> anyhow::Result<bool>,
) -> std::process::ExitCode {
    install_llvm_fatal_error_handler(tool);
    match parse().and_then(run) {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::FAILURE,
        Err(error) => {
            write_stderr(&format!("{tool}: error: {error:#}\n"));
            std::process::ExitCode::FAILURE
        }
    }
}
