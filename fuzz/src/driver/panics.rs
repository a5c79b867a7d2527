//! Panics as values: [`catching`] runs a generator or a check under `catch_unwind` and returns a panic as
//! `Err("panicked at FILE:LINE:COL: MESSAGE")`, recorded by a panic hook instead of printed.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;

thread_local! {
    /// True while this thread runs a generator or a check: the panic hook records instead of printing.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// The last recorded panic: "panicked at FILE:LINE:COL: MESSAGE".
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn install_panic_hook() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let location = info.location().map_or_else(String::new, |l| format!(" at {l}"));
                let payload = info.payload();
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(non-string panic payload)".into());
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("panicked{location}: {message}")));
            } else {
                default(info);
            }
        }));
    });
}

/// Runs `f`, turning a panic into `Err("panicked at FILE:LINE:COL: MESSAGE")` without printing it.
pub(super) fn catching<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_panic_hook();
    QUIET.with(|q| q.set(true));
    LAST_PANIC.with(|p| p.borrow_mut().take());
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    result.map_err(|_| LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "panicked".into()))
}
