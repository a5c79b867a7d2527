//! The process dying: [`fatal`] prints the input being run (and its reproducer) without allocating, for the
//! allocator's hard cap and for the fatal-signal handler that [`install_signal_handlers`] installs.

use super::watchdog::{MY_SLOT, SLOTS};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

static FATAL_PRINTED: AtomicBool = AtomicBool::new(false);

/// Prints the input being run on this thread (or on any busy worker), then returns; async-signal-safe (no
/// allocation, no locks held across the write). Used by the allocator's hard cap and the fatal-signal handler.
pub fn fatal(reason: &str, value: usize) {
    if FATAL_PRINTED.swap(true, Ordering::SeqCst) {
        return;
    }
    let mut w = RawWriter::default();
    w.str("\naxe-fuzz: FATAL: ").str(reason).str(" (").num(value as u64).str(")");
    let slot = MY_SLOT.try_with(Cell::get).ok().flatten().or_else(|| {
        let slots = SLOTS.try_lock().ok()?;
        slots.iter().copied().find(|s| s.busy_since.load(Ordering::Acquire) != 0)
    });
    match slot {
        Some(slot) => {
            let (seed, index) = (slot.seed.load(Ordering::Relaxed), slot.index.load(Ordering::Relaxed));
            w.str(" in target ").str(slot.name()).str(", input #").num(index).str(" of seed ").num(seed);
            w.str("\n  reproduce: axe-fuzz --target ").str(slot.name()).str(" --seed ").num(seed);
            w.str(" --index ").num(index).str("\n");
            w.flush();
            if let Ok(input) = slot.input.try_lock() {
                w.str("  input:\n");
                w.flush();
                let bytes = input.as_bytes();
                raw_write(&bytes[..bytes.len().min(4096)]);
                raw_write(b"\n");
            }
        }
        None => {
            w.str(" outside any input\n");
            w.flush();
        }
    }
}

/// A fixed-size buffer written with `write(2)`: formatting without allocation.
struct RawWriter {
    buf: [u8; 512],
    len: usize,
}

impl Default for RawWriter {
    fn default() -> Self {
        RawWriter { buf: [0; 512], len: 0 }
    }
}

impl RawWriter {
    fn str(&mut self, s: &str) -> &mut Self {
        for &b in s.as_bytes() {
            if self.len == self.buf.len() {
                self.flush();
            }
            self.buf[self.len] = b;
            self.len += 1;
        }
        self
    }

    fn num(&mut self, mut v: u64) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut n = 0;
        loop {
            digits[n] = b'0' + (v % 10) as u8;
            n += 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        for i in (0..n).rev() {
            let d = [digits[i]];
            // SAFETY-free: an ASCII digit is valid UTF-8.
            self.str(std::str::from_utf8(&d).unwrap_or("?"));
        }
        self
    }

    fn flush(&mut self) {
        raw_write(&self.buf[..self.len]);
        self.len = 0;
    }
}

/// Writes `bytes` to stderr with `write(2)`: no allocation, no lock (usable in signal and fatal-error handlers).
pub fn raw_write(bytes: &[u8]) {
    let mut rest = bytes;
    while !rest.is_empty() {
        // SAFETY: writes from a valid buffer to fd 2; `write` is async-signal-safe.
        let n = unsafe { libc::write(2, rest.as_ptr().cast(), rest.len()) };
        if n <= 0 {
            return;
        }
        rest = &rest[n as usize..];
    }
}

const FATAL_SIGNALS: [libc::c_int; 5] = [libc::SIGABRT, libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE];

/// The actions in place before [`install_signal_handlers`], restored before a fatal signal goes on.
static OLD_ACTIONS: Mutex<Vec<(libc::c_int, libc::sigaction)>> = Mutex::new(Vec::new());

extern "C" fn on_fatal_signal(sig: libc::c_int) {
    fatal("fatal signal", sig as usize);
    // Put back the previous action (Rust's stack-overflow handler for SIGSEGV/SIGBUS, else the default) and
    // return: a fault re-executes into it, and `abort` raises SIGABRT again with the default action.
    let old = OLD_ACTIONS.try_lock().ok().and_then(|v| v.iter().find(|(s, _)| *s == sig).map(|(_, a)| *a));
    // SAFETY: sigaction/signal are async-signal-safe; `old` is a copy of an action the kernel gave us.
    unsafe {
        match old {
            Some(action) => {
                libc::sigaction(sig, &action, std::ptr::null_mut());
            }
            None => {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
    }
}

/// Installs the fatal-signal handler (abort, segfault, bus error, illegal instruction, FP exception), which
/// prints the input being run before the signal takes its usual course. Idempotent.
pub fn install_signal_handlers() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let mut olds = OLD_ACTIONS.lock().unwrap_or_else(|e| e.into_inner());
        for sig in FATAL_SIGNALS {
            // SAFETY: a zeroed sigaction is a valid starting value; the handler is an `extern "C" fn(c_int)`.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_fatal_signal as *const () as usize;
                action.sa_flags = libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &action, &mut old) == 0 {
                    olds.push((sig, old));
                }
            }
        }
    });
}
