//! Unit tests of the machine's ordering rules: races between warps, mbarrier arrive -> wait edges, phase
//! overruns, TMA loads visible to the warps that observe their phase, and mbarrier init visibility.

use super::*;

/// A machine of `warps` warps with 64 shared bytes and an mbarrier (count 1) at byte 64, initialized and
/// fenced by thread 0, then a CTA barrier.
fn machine(warps: usize) -> Machine {
    let mut m = Machine { clocks: Clocks::new(warps), proxy_fence: vec![0; 32 * warps], ..Machine::default() };
    m.alloc_shared(72, 8, "alloc").unwrap();
    m.init_bar(64, 1, 0, "init").unwrap();
    m.fence_mbarrier_init(0);
    m.clocks.barrier();
    m.epoch += 1;
    m
}

/// Thread `t` arrives on the barrier at 64.
fn arrive(m: &mut Machine, t: usize) {
    m.check_bar_use(64, t, "arrive", "arrive").unwrap();
    let clock = m.clocks.release(t / 32);
    m.arrive(64, 0, &clock, "arrive").unwrap();
}

/// Warp `w` waits for parity `p` on the barrier at 64.
fn wait(m: &mut Machine, w: usize, p: u64) {
    m.check_bar_use(64, 32 * w, "wait", "wait").unwrap();
    assert_eq!(m.try_parity(64, p, "wait").unwrap(), None, "the phase of parity {p} has completed");
    m.waited(64, w, "wait").unwrap();
}

#[test]
fn a_write_over_another_warps_read_needs_synchronization() {
    let mut m = machine(2);
    m.read_shared_by(0, 4, 32..33, "read").unwrap();
    let e = m.write_shared_by(0, &[1; 4], 0, "write").unwrap_err();
    assert!(e.message.contains("write-after-read race") && e.message.contains("which warp 1 read"), "{e}");
    // The reading warp itself may write; a CTA barrier orders the read before warp 0's write.
    m.write_shared_by(0, &[2; 4], 33, "write").unwrap();
    m.clocks.barrier();
    m.epoch += 1;
    m.write_shared_by(0, &[3; 4], 0, "write").unwrap();
}

#[test]
fn an_arrive_and_the_wait_that_observes_it_order_warps() {
    let mut m = machine(2);
    m.read_shared_by(0, 4, 32..33, "read").unwrap();
    arrive(&mut m, 32);
    // Warp 0 observes phase 0 (warp 1's arrival): warp 1's read is ordered before warp 0's write.
    wait(&mut m, 0, 0);
    m.write_shared_by(0, &[1; 4], 0, "write").unwrap();
    // Nothing orders that write before a read of warp 1.
    let e = m.read_shared_by(0, 4, 32..33, "read").unwrap_err();
    assert!(e.message.contains("read-after-write race") && e.message.contains("or mbarrier wait"), "{e}");
    // A read warp 1 made after its arrival is not ordered by it.
    m.read_shared_by(8, 4, 32..33, "read again").unwrap();
    let e = m.write_shared_by(8, &[1; 4], 0, "write").unwrap_err();
    assert!(e.message.contains("write-after-read race"), "{e}");
}

#[test]
fn a_phase_completes_only_after_every_wait_for_the_previous_one() {
    // Warp 0 arrives (phase 0 completes), both warps observe it; warp 0 arrives again: no arrival of phase 1
    // is ordered after warp 1's wait, so warp 0 could complete phase 2 before warp 1 even looks.
    let mut m = machine(2);
    arrive(&mut m, 0);
    wait(&mut m, 0, 0);
    wait(&mut m, 1, 0);
    let clock = m.clocks.release(0);
    let e = m.arrive(64, 0, &clock, "second arrive").unwrap_err();
    assert!(e.message.contains("a phase overrun") && e.message.contains("warp 1's wait for phase 0"), "{e}");
    assert_eq!(e.loc, "second arrive");
    // With a CTA barrier after the waits, the next phase is fine.
    let mut m = machine(2);
    arrive(&mut m, 0);
    wait(&mut m, 0, 0);
    wait(&mut m, 1, 0);
    m.clocks.barrier();
    arrive(&mut m, 0);
}

#[test]
fn a_tma_load_is_visible_to_the_warps_that_observe_its_phase() {
    let mut m = machine(2);
    m.check_bar_use(64, 0, "arrive", "expect").unwrap();
    let clock = m.clocks.release(0);
    m.arrive(64, 8, &clock, "expect").unwrap();
    let clock = m.clocks.release(0);
    let load = PendingLoad {
        bar: 64,
        start: 0,
        bytes: vec![9; 8],
        tx: 8,
        loc: "tma".into(),
        group: None,
        thread: 0,
        landed: false,
        phase: None,
        clock,
    };
    m.pending.push(load);
    m.land_load(0).unwrap();
    wait(&mut m, 0, 0);
    assert_eq!(m.read_shared_by(0, 8, 1..2, "lane 1 of warp 0").unwrap(), &[9; 8]);
    // Warp 1 did not wait: nothing orders the load before its read.
    let e = m.read_shared_by(0, 8, 32..33, "warp 1").unwrap_err();
    assert!(e.message.contains("read-after-write race") && e.message.contains("wrote at tma"), "{e}");
    wait(&mut m, 1, 0);
    m.read_shared_by(0, 8, 32..33, "warp 1").unwrap();
    // TMA-written bytes need no proxy fence before an async-proxy read.
    m.check_async_read(0, 8, 32..64, "wgmma", "wgmma").unwrap();
}

#[test]
fn another_thread_uses_an_mbarrier_after_the_init_fence_and_a_barrier() {
    let mut m = machine(2);
    m.init_bar(64, 1, 0, "init2").unwrap();
    m.check_bar_use(64, 0, "arrive", "use").unwrap();
    let e = m.check_bar_use(64, 1, "arrive", "use").unwrap_err();
    assert!(e.message.contains("missing mbarrier init fence") && e.message.contains("init2"), "{e}");
    m.fence_mbarrier_init(0);
    for t in [1, 32] {
        let e = m.check_bar_use(64, t, "arrive", "use").unwrap_err();
        assert!(e.message.contains("missing barrier after mbarrier init"), "thread {t}: {e}");
    }
    m.clocks.barrier();
    m.epoch += 1;
    m.check_bar_use(64, 1, "arrive", "use").unwrap();
    m.check_bar_use(64, 32, "arrive", "use").unwrap();
}
