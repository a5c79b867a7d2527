//! `axe-layout serve` under load and abuse, as a process on a loopback port (issue 22): heavy requests in
//! parallel and a flood of idle connections keep its threads at the worker count and its memory bounded, and it
//! keeps answering. The deadlines, the cross-site rules and the write timeout are tested in `src/serve.rs` with
//! short limits; `bench/serve_abuse.py` measures the same scenarios for people.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Threads of a running server: the accepting main thread and four workers (serve.rs `LIMITS`).
const THREADS: u64 = 1 + 4;

/// A request whose answer was 18 MB (420 MB of peak memory, 13 s of CPU in a debug build) before the caps: 19 axes
/// (every built-in one: an iter or an offset on each, the 16 copies of each element on `tid`) over a 16 x 256
/// grid, 4096 cells of 16 coordinates of 19 values.
const HEAVY: &str = concat!(
    r#"{"layout":"S[(16,16,16):(1@laneid,1@warpid,1@m)] + R[16:1@tid] + 1000000@reg + 1000000@wgid"#,
    r#" + 1000000@wid_in_wg + 1000000@tid_in_wg + 1000000@bx + 1000000@by + 1000000@bz + 1000000@cbx"#,
    r#" + 1000000@cby + 1000000@cbz + 1000000@clusterid + 1000000@gpuid + 1000000@gpuid_x + 1000000@gpuid_y"#,
    r#" + 1000000@pid","shape":"16,256"}"#
);

struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_axe-layout"))
            .args(["serve", "--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.split("127.0.0.1:").nth(1).and_then(|r| r.split('/').next()).unwrap().parse().unwrap();
        Server { child, port }
    }

    /// (VmRSS in kB, threads) of the server process now.
    fn status(&self) -> (u64, u64) {
        proc_status(self.child.id())
    }

    /// Runs `work` while sampling the server every 10 ms; returns the peak (VmRSS kB, threads) seen.
    fn peaks(&self, work: impl FnOnce()) -> (u64, u64) {
        let done = Arc::new(AtomicBool::new(false));
        let (pid, flag) = (self.child.id(), done.clone());
        let sampler = std::thread::spawn(move || {
            let mut peak = (0, 0);
            while !flag.load(Ordering::Relaxed) {
                let (rss, threads) = proc_status(pid);
                peak = (peak.0.max(rss), peak.1.max(threads));
                std::thread::sleep(Duration::from_millis(10));
            }
            peak
        });
        work();
        done.store(true, Ordering::Relaxed);
        sampler.join().unwrap()
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// (VmRSS in kB, threads) of process `pid`, from `/proc`.
fn proc_status(pid: u32) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("Threads:"))
}

fn post(port: u16, body: &str) -> String {
    format!(
        "POST /api/eval HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Sends `request` and reads the whole answer (what arrived before an error, if the server cut it).
fn ask(port: u16, request: &str) -> Vec<u8> {
    let mut s = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let _ = s.write_all(request.as_bytes());
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    answer
}

fn status_of(answer: &[u8]) -> String {
    String::from_utf8_lossy(&answer[..answer.len().min(12)]).into_owned()
}

#[test]
fn heavy_requests_in_parallel_stay_bounded() {
    let mut server = Server::start();
    let port = server.port;
    let (_, idle_threads) = server.status();
    assert_eq!(idle_threads, THREADS);
    let answers = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (rss, threads) = server.peaks(|| {
        let clients: Vec<_> = (0..16)
            .map(|_| {
                let answers = answers.clone();
                std::thread::spawn(move || {
                    let a = ask(port, &post(port, HEAVY));
                    answers.lock().unwrap().push(a);
                })
            })
            .collect();
        for c in clients {
            c.join().unwrap();
        }
    });
    let answers = answers.lock().unwrap();
    let ok: Vec<&Vec<u8>> = answers.iter().filter(|a| a.starts_with(b"HTTP/1.1 200 ")).collect();
    assert!(answers.iter().all(|a| a.starts_with(b"HTTP/1.1 200 ") || a.starts_with(b"HTTP/1.1 503 ")));
    assert!(!ok.is_empty(), "{:?}", answers.iter().map(|a| status_of(a)).collect::<Vec<_>>());
    for a in &ok {
        // At most 2^17 values of at most 20 bytes (`"clusterid":1000000,`) and the grid's other fields.
        assert!(a.len() < 3 << 20, "an answer of {} bytes", a.len());
        let text = String::from_utf8_lossy(a);
        assert!(text.contains("131072 axis values (each cell has 16 coordinates of 19 axes)"), "{}", &text[..300]);
    }
    assert!(threads <= THREADS, "{threads} threads");
    // Before the caps one such request peaked near 480 MB and 16 at once near 7 GB.
    assert!(rss < 300 << 10, "peak RSS {} MB", rss >> 10);
    assert!(server.alive());
}

#[test]
fn a_flood_of_idle_connections_neither_adds_threads_nor_ends_the_server() {
    let mut server = Server::start();
    let port = server.port;
    let mut refused = 0;
    let (_, threads) = server.peaks(|| {
        let mut idle = Vec::new();
        for _ in 0..300 {
            if let Ok(s) = TcpStream::connect((Ipv4Addr::LOCALHOST, port)) {
                idle.push(s);
            }
        }
        std::thread::sleep(Duration::from_millis(300));
        // Four are with the workers and 16 queued (until the 10 s deadline); the rest were answered 503 at once,
        // without being read.
        for s in idle.iter_mut() {
            s.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
            let mut answer = Vec::new();
            let _ = s.read_to_end(&mut answer);
            if answer.starts_with(b"HTTP/1.1 503 Service Unavailable\r\n") {
                refused += 1;
            }
        }
    });
    assert_eq!(refused, 280);
    assert!(threads <= THREADS, "{threads} threads");
    // The idle clients have left; the server answers again.
    let answer = ask(port, &post(port, r#"{"layout":"S[4:1]","shape":""}"#));
    assert!(answer.starts_with(b"HTTP/1.1 200 OK\r\n"), "{}", status_of(&answer));
    assert!(server.alive());
}
