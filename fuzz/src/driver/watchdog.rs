//! The input each worker thread is running now (its slot), for the watchdog thread, which reports an input
//! still running after its target's [`Limits::hang_after`](super::Limits::hang_after) as a hang and exits with
//! [`HANG_EXIT`], and for [`super::fatal`], which prints it when the process is about to die.

use super::report::{excerpt, reproducer, save_input};
use super::{Target, HANG_EXIT};
use std::cell::Cell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// What a worker thread is running now.
pub(super) struct Slot {
    /// Nanoseconds since [`epoch`] when the current input started; 0 while idle.
    pub(super) busy_since: AtomicU64,
    /// Nanoseconds after which the current input is a hang.
    pub(super) hang_after: AtomicU64,
    pub(super) seed: AtomicU64,
    pub(super) index: AtomicU64,
    pub(super) name_ptr: AtomicPtr<u8>,
    pub(super) name_len: AtomicUsize,
    pub(super) input: Mutex<String>,
}

pub(super) static SLOTS: Mutex<Vec<&'static Slot>> = Mutex::new(Vec::new());
pub(super) static CRASH_DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

thread_local! {
    pub(super) static MY_SLOT: Cell<Option<&'static Slot>> = const { Cell::new(None) };
}

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_ns() -> u64 {
    epoch().elapsed().as_nanos() as u64 + 1
}

pub(super) fn my_slot() -> &'static Slot {
    if let Some(slot) = MY_SLOT.with(Cell::get) {
        return slot;
    }
    let slot: &'static Slot = Box::leak(Box::new(Slot {
        busy_since: AtomicU64::new(0),
        hang_after: AtomicU64::new(u64::MAX),
        seed: AtomicU64::new(0),
        index: AtomicU64::new(0),
        name_ptr: AtomicPtr::new(std::ptr::null_mut()),
        name_len: AtomicUsize::new(0),
        input: Mutex::new(String::new()),
    }));
    SLOTS.lock().unwrap_or_else(|e| e.into_inner()).push(slot);
    MY_SLOT.with(|s| s.set(Some(slot)));
    start_watchdog();
    slot
}

impl Slot {
    pub(super) fn name(&self) -> &'static str {
        let (p, n) = (self.name_ptr.load(Ordering::Acquire), self.name_len.load(Ordering::Acquire));
        if p.is_null() {
            return "?";
        }
        // SAFETY: `p`/`n` always come from a `&'static str` (a target name) stored by `begin`.
        unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(p, n)) }
    }

    pub(super) fn begin(&self, target: &Target, seed: u64, index: u64, input: &str) {
        self.name_len.store(target.name.len(), Ordering::Release);
        self.name_ptr.store(target.name.as_ptr() as *mut u8, Ordering::Release);
        self.seed.store(seed, Ordering::Relaxed);
        self.index.store(index, Ordering::Relaxed);
        let mut slot_input = self.input.lock().unwrap_or_else(|e| e.into_inner());
        slot_input.clear();
        slot_input.push_str(input);
        drop(slot_input);
        self.hang_after.store(target.limits.hang_after.as_nanos() as u64, Ordering::Relaxed);
        self.busy_since.store(now_ns(), Ordering::Release);
    }

    pub(super) fn end(&self) {
        self.busy_since.store(0, Ordering::Release);
    }
}

fn start_watchdog() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let spawned = std::thread::Builder::new().name("axe-fuzz-watchdog".into()).spawn(|| loop {
            std::thread::sleep(Duration::from_millis(50));
            let slots: Vec<&'static Slot> = SLOTS.lock().unwrap_or_else(|e| e.into_inner()).clone();
            for slot in slots {
                let since = slot.busy_since.load(Ordering::Acquire);
                if since != 0 && now_ns().saturating_sub(since) > slot.hang_after.load(Ordering::Relaxed) {
                    report_hang(slot, Duration::from_nanos(now_ns() - since));
                }
            }
        });
        if let Err(e) = spawned {
            eprintln!("axe-fuzz: cannot start the watchdog thread: {e}");
        }
    });
}

fn report_hang(slot: &Slot, running: Duration) -> ! {
    let input = slot.input.lock().map(|s| s.clone()).unwrap_or_default();
    let (name, seed, index) = (slot.name(), slot.seed.load(Ordering::Relaxed), slot.index.load(Ordering::Relaxed));
    let dir = CRASH_DIR.lock().ok().and_then(|d| d.clone());
    let saved = dir.and_then(|d| save_input(&d, name, &input).ok());
    eprintln!(
        "axe-fuzz: HANG: target {name}, input #{index} of seed {seed} still running after {:.1} s",
        running.as_secs_f64()
    );
    eprintln!("  reproduce: {}", reproducer(name, Some((seed, index)), saved.as_deref()));
    eprintln!("  input:\n{}", excerpt(&input, 4096));
    std::process::exit(HANG_EXIT);
}
