//! A counting global allocator: live and peak bytes, per process and per thread, and a hard cap.
//!
//! The binary (and the unit tests) install it with `#[global_allocator]`; the driver reads it around each input.
//! Per-thread counters make the per-input peak meaningful when several workers run at once: a thread's counter
//! goes up with what it allocates and down with what it frees (memory freed by another thread is credited to
//! that thread, so a per-thread value is an estimate; the driver only compares a thread's peak with the value it
//! had when the input started). When the process-wide live total crosses the hard cap, the allocator calls
//! [`crate::driver::fatal`], which prints the input being run and a reproducer, then aborts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The allocator to install with `#[global_allocator]`.
pub struct CountingAlloc;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static HARD_CAP: AtomicUsize = AtomicUsize::new(0);
static CAP_HIT: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Bytes this thread allocated minus bytes it freed (can go negative for memory freed on behalf of others).
    static THREAD_LIVE: Cell<isize> = const { Cell::new(0) };
    /// The largest `THREAD_LIVE` since the last [`reset_thread_peak`].
    static THREAD_PEAK: Cell<isize> = const { Cell::new(0) };
}

fn grew(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
    // `try_with`: the thread-local may already be gone while a thread shuts down.
    let _ = THREAD_LIVE.try_with(|l| {
        let now = l.get() + size as isize;
        l.set(now);
        let _ = THREAD_PEAK.try_with(|p| p.set(p.get().max(now)));
    });
    let cap = HARD_CAP.load(Ordering::Relaxed);
    if cap != 0 && live > cap && !CAP_HIT.swap(true, Ordering::SeqCst) {
        crate::driver::fatal("memory hard cap exceeded", live);
        std::process::abort();
    }
}

fn shrank(size: usize) {
    LIVE.fetch_sub(size, Ordering::Relaxed);
    let _ = THREAD_LIVE.try_with(|l| l.set(l.get() - size as isize));
}

// SAFETY: every call is forwarded to `System` unchanged; the counters are plain atomics and const thread-locals
// without destructors, which never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

/// Bytes allocated and not yet freed, process-wide.
pub fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The largest [`live`] value seen so far, process-wide.
pub fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Whether [`CountingAlloc`] is the global allocator of this process (it counted an allocation).
pub fn installed() -> bool {
    let before = thread_live();
    let probe = std::hint::black_box(Box::new([0u8; 64]));
    let counted = thread_live() != before;
    drop(probe);
    counted
}

/// This thread's allocated-minus-freed bytes.
pub fn thread_live() -> isize {
    THREAD_LIVE.with(Cell::get)
}

/// Starts a new per-thread peak at the current per-thread live value and returns that value.
pub fn reset_thread_peak() -> isize {
    let now = thread_live();
    THREAD_PEAK.with(|p| p.set(now));
    now
}

/// The largest per-thread live value since [`reset_thread_peak`].
pub fn thread_peak() -> isize {
    THREAD_PEAK.with(Cell::get)
}

/// Sets the process-wide hard cap in bytes (0: none). Crossing it aborts the process after printing the input.
pub fn set_hard_cap(bytes: usize) {
    CAP_HIT.store(false, Ordering::SeqCst);
    HARD_CAP.store(bytes, Ordering::Relaxed);
}

/// The hard cap in bytes (0: none).
pub fn hard_cap() -> usize {
    HARD_CAP.load(Ordering::Relaxed)
}
