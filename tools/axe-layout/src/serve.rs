//! `axe-layout serve [--port P]`: the layout explorer on `http://127.0.0.1:P/`, loopback only.
//!
//! A small HTTP/1.1 server over `std::net` (no framework): `GET /` is the page ([`crate::page::served`]),
//! `POST /api/eval`, `/api/tma` and `/api/mma` take a JSON object and answer with [`crate::explore::answer`]
//! (status 200, or 400 with `{"error": ...}`). Each connection carries one request and is closed after its answer.
//!
//! Any web page the user visits can reach 127.0.0.1, so the server bounds what one client can take and answers
//! only its own page:
//! - [`LIMITS`]`.workers` threads answer requests, started once; an accepted connection waits in a queue of
//!   `queue` for one, and a connection beyond that is answered 503 at once. Threads and memory do not grow with
//!   the number of clients, and nothing is spawned per connection (a refused spawn cannot end the server); a
//!   handler that panicked loses its connection, not its worker.
//! - A request must be read whole within `read` of its connection being accepted (one deadline for all its bytes,
//!   not per read: a client sending a byte now and then gets 408) and fit [`MAX_REQUEST_BYTES`]; the answer must be
//!   taken within `write` (a client that never reads loses its connection and its answer).
//! - What one answer computes and holds is capped by [`crate::explore`] (cells, coordinates times axes, plan
//!   issues), and an answer over [`MAX_ANSWER_BYTES`] is refused rather than sent.
//! - `Host` must name the loopback address (403), so a page elsewhere cannot reach the server by DNS rebinding.
//!   An API request must say `Content-Type: application/json` (415), which a cross-site page can only send after
//!   a CORS preflight that the server never grants, and is refused (403) when its `Origin` is not the server's or
//!   its `Sec-Fetch-Site` says another site sent it. The page itself is same-origin.

use crate::cli::{Args, CliError, Command};
use crate::{explore, page};
use serde_json::Value;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::mpsc::{self, Receiver, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The bounds of a running server: see the module documentation.
#[derive(Clone, Copy, Debug)]
struct Limits {
    /// Threads answering requests.
    workers: usize,
    /// Accepted connections waiting for a worker; one more is answered 503.
    queue: usize,
    /// From a connection's acceptance to the last byte of its request (time in the queue included).
    read: Duration,
    /// To send a whole answer.
    write: Duration,
}

/// The limits of `axe-layout serve`: a page asks one question at a time, so four workers serve several tabs.
const LIMITS: Limits = Limits { workers: 4, queue: 16, read: Duration::from_secs(10), write: Duration::from_secs(10) };
/// The largest request (headers and body) the server reads: the page's requests are a few layouts' text.
const MAX_REQUEST_BYTES: usize = 64 << 10;
/// The largest answer the server sends (the caps of [`crate::explore`] keep answers well below it).
const MAX_ANSWER_BYTES: usize = 8 << 20;
/// The port when `--port` is not given.
const DEFAULT_PORT: u16 = 8765;

/// The `serve` subcommand.
pub const COMMAND: Command = Command {
    name: "serve",
    usage: "serve [--port P]",
    about: "serve the layout explorer page on http://127.0.0.1:P/ (loopback only)",
    help: "Type a layout and a shape and see the grid of the logical tensor coloured by thread, with each\n\
           element's image; the bank view of a shared layout, the TMA and MMA plans. --port defaults to 8765;\n\
           --port 0 picks a free port. The first line on standard output is the address; the server runs until\n\
           it is stopped. `show LAYOUT --html FILE` writes the same page for one layout as a self-contained file.\n\
           API: POST /api/eval {layout, shape}, /api/tma {global, global_shape, global_region, shared,\n\
           shared_shape, shared_region, dtype, direction}, /api/mma {chip, dtype, acc_dtype, a, a_shape, a_mem,\n\
           b, ...} with Content-Type: application/json: the JSON of eval/tma-plan/mma-plan --json plus what the\n\
           page draws; errors as {\"error\": {\"field\", \"column\", \"message\", \"text\"}} with status 400.\n\
           Requests from other web sites are refused (403); 4 requests are answered at a time, 16 more wait,\n\
           and further ones get 503; a request must arrive within 10 s and its answer be read within 10 s.\n",
    positional: &[],
    values: &["port"],
    switches: &[],
    run,
};

fn run(args: &Args) -> Result<String, CliError> {
    let port = match args.value("port") {
        None => DEFAULT_PORT,
        Some(p) => p
            .trim()
            .parse()
            .map_err(|_| CliError::Failed(format!("--port: expected a port number 0..65535, got '{p}'")))?,
    };
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
        .map_err(|e| CliError::Failed(format!("cannot listen on 127.0.0.1:{port}: {e}")))?;
    let port = listener.local_addr().map_err(|e| CliError::Failed(format!("cannot read the port: {e}")))?.port();
    let page = Arc::new(page::served());
    let queue = start_workers(port, page, LIMITS)
        .map_err(|e| CliError::Failed(format!("cannot start the server's threads: {e}")))?;
    {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "axe-layout: serving the explorer on http://127.0.0.1:{port}/ (Ctrl-C stops)");
        let _ = out.flush();
    }
    accept(&listener, &queue);
    Ok(String::new())
}

/// An accepted connection and when it was accepted (its request's deadline counts from then).
type Job = (TcpStream, Instant);

/// Starts `limits.workers` threads answering the connections sent to the returned queue.
fn start_workers(port: u16, page: Arc<String>, limits: Limits) -> std::io::Result<mpsc::SyncSender<Job>> {
    let (sender, receiver) = mpsc::sync_channel::<Job>(limits.queue);
    let receiver = Arc::new(Mutex::new(receiver));
    for i in 0..limits.workers {
        let (receiver, page) = (receiver.clone(), page.clone());
        std::thread::Builder::new()
            .name(format!("axe-serve-{i}"))
            .spawn(move || work(&receiver, port, &page, limits))?;
    }
    Ok(sender)
}

/// Accepts connections into `queue` until the listener fails for good; a connection the queue has no room for is
/// answered 503 on the spot.
fn accept(listener: &TcpListener, queue: &mpsc::SyncSender<Job>) {
    for stream in listener.incoming() {
        match stream {
            Ok(stream) => match queue.try_send((stream, Instant::now())) {
                Ok(()) => {}
                Err(TrySendError::Full((stream, _))) => refuse_busy(&stream),
                Err(TrySendError::Disconnected(_)) => return,
            },
            // Out of file descriptors, or a connection reset before it was accepted: wait for some to close.
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// One worker: answers queued connections, one at a time, for as long as the server runs.
fn work(queue: &Mutex<Receiver<Job>>, port: u16, page: &str, limits: Limits) {
    loop {
        // Nothing panics while the lock is held, so a poisoned lock still guards a sound receiver.
        let job = queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).recv();
        let Ok((stream, accepted)) = job else { return };
        // A panic in a handler (a bug) costs its connection, not the worker.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            handle(&stream, port, page, accepted + limits.read, limits.write)
        }));
    }
}

/// The answer to a connection no worker can take: a 503 written without waiting (it fits the socket's empty send
/// buffer; if it does not, the client gets a closed connection).
fn refuse_busy(stream: &TcpStream) {
    let _ = stream.set_nonblocking(true);
    let body = json_error("the explorer is busy; try again");
    let mut answer = head(503, "application/json", body.len()).into_bytes();
    answer.extend_from_slice(&body);
    let _ = (&*stream).write(&answer);
    // Whatever of the request has arrived is read, so that closing sends a clean end rather than a reset.
    let _ = (&*stream).read(&mut [0; 4096]);
}

/// A connection with one deadline for a whole phase (reading the request, or writing the answer): each read or
/// write waits at most for what is left of it, and fails with `TimedOut` once it has passed.
struct Timed<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Timed<'_> {
    fn left(&self) -> std::io::Result<Duration> {
        match self.deadline.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => Ok(left),
            _ => Err(std::io::Error::new(ErrorKind::TimedOut, "the deadline passed")),
        }
    }
}

impl Read for Timed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.set_read_timeout(Some(self.left()?))?;
        (&*self.stream).read(buf)
    }
}

impl Write for Timed<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.set_write_timeout(Some(self.left()?))?;
        (&*self.stream).write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        (&*self.stream).flush()
    }
}

/// Whether an I/O error is a passed deadline (a socket timeout reads as `WouldBlock` on Linux).
fn timed_out(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock)
}

/// One parsed request.
struct Request {
    method: String,
    path: String,
    host: Option<String>,
    origin: Option<String>,
    fetch_site: Option<String>,
    content_type: Option<String>,
    body: Vec<u8>,
}

fn read_request(stream: &TcpStream, deadline: Instant) -> Result<Request, (u16, String)> {
    let bad = |m: &str| (400, m.to_owned());
    let failed = |what: &str, e: std::io::Error| {
        if timed_out(&e) {
            (408, format!("the request did not arrive in time ({what})"))
        } else {
            (400, format!("cannot read the {what}: {e}"))
        }
    };
    let mut reader = BufReader::new(Timed { stream, deadline }.take(MAX_REQUEST_BYTES as u64));
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| failed("request line", e))?;
    let mut words = line.split_whitespace();
    let (method, path) = match (words.next(), words.next()) {
        (Some(m), Some(p)) => (m.to_owned(), p.to_owned()),
        _ => return Err(bad("malformed request line")),
    };
    let mut request =
        Request { method, path, host: None, origin: None, fetch_site: None, content_type: None, body: Vec::new() };
    let mut length = 0usize;
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(|e| failed("headers", e))? == 0 {
            return Err(bad("the request ended inside its headers"));
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else { return Err(bad("malformed header")) };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "host" => request.host = Some(value.to_owned()),
            "origin" => request.origin = Some(value.to_owned()),
            "sec-fetch-site" => request.fetch_site = Some(value.to_owned()),
            "content-type" => request.content_type = Some(value.to_owned()),
            "content-length" => {
                length = value.parse().map_err(|_| bad("malformed Content-Length"))?;
                if length > MAX_REQUEST_BYTES {
                    return Err((413, format!("the request body is larger than {MAX_REQUEST_BYTES} bytes")));
                }
            }
            _ => {}
        }
    }
    request.body = vec![0; length];
    reader.read_exact(&mut request.body).map_err(|e| failed("body", e))?;
    Ok(request)
}

/// The status line and headers of an answer with a body of `length` bytes.
fn head(status: u16, content_type: &str, length: usize) -> String {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        503 => "Service Unavailable",
        _ => "Error",
    };
    format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
    )
}

fn respond(stream: &TcpStream, deadline: Instant, status: u16, content_type: &str, body: &[u8]) -> std::io::Result<()> {
    let mut out = Timed { stream, deadline };
    out.write_all(head(status, content_type, body.len()).as_bytes())?;
    out.write_all(body)?;
    out.flush()
}

fn json_error(message: &str) -> Vec<u8> {
    serde_json::json!({ "error": { "field": null, "column": null, "message": message, "text": message } })
        .to_string()
        .into_bytes()
}

/// Whether a `Host` header names this server on the loopback interface.
fn loopback_host(host: &str, port: u16) -> bool {
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|h| host == *h || host == format!("{h}:{port}"))
}

/// Whether an `Origin` header is this server's page: `http://` and a loopback host with the server's port (no port
/// only when the server is on 80, as browsers omit the default port).
fn loopback_origin(origin: &str, port: u16) -> bool {
    origin.strip_prefix("http://").is_some_and(|host| {
        ["127.0.0.1", "localhost", "[::1]"].iter().any(|h| host == format!("{h}:{port}") || (port == 80 && host == *h))
    })
}

/// Why an API request is refused as sent by another web site, if it is: its `Origin` is not this server's page, or
/// its `Sec-Fetch-Site` names another origin (browsers send both; other clients may send neither).
fn cross_site(request: &Request, port: u16) -> Option<String> {
    if let Some(site) = request.fetch_site.as_deref().filter(|s| !matches!(*s, "same-origin" | "none")) {
        return Some(format!("the explorer answers its own page only (Sec-Fetch-Site: {site})"));
    }
    if let Some(origin) = request.origin.as_deref().filter(|o| !loopback_origin(o, port)) {
        return Some(format!("the explorer answers its own page only (Origin: {origin})"));
    }
    None
}

/// Whether a `Content-Type` header is JSON (`application/json`, parameters such as a charset allowed).
fn is_json(content_type: Option<&str>) -> bool {
    content_type.and_then(|t| t.split(';').next()).is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// Reads one request from `stream` (by `read_deadline`) and writes its answer (within `write` from then).
fn handle(stream: &TcpStream, port: u16, page: &str, read_deadline: Instant, write: Duration) -> std::io::Result<()> {
    let request = read_request(stream, read_deadline);
    let deadline = Instant::now() + write;
    let error =
        |status: u16, message: &str| respond(stream, deadline, status, "application/json", &json_error(message));
    let request = match request {
        Ok(r) => r,
        Err((status, message)) => return error(status, &message),
    };
    if !request.host.as_deref().is_some_and(|h| loopback_host(h, port)) {
        return error(403, "the explorer answers loopback requests only");
    }
    let path = request.path.split('?').next().unwrap_or("");
    match (request.method.as_str(), path) {
        ("GET", "/") | ("GET", "/index.html") => {
            respond(stream, deadline, 200, "text/html; charset=utf-8", page.as_bytes())
        }
        ("POST", api) if api.starts_with("/api/") => {
            if let Some(why) = cross_site(&request, port) {
                return error(403, &why);
            }
            if !is_json(request.content_type.as_deref()) {
                return error(415, "the API takes Content-Type: application/json");
            }
            let endpoint = &api["/api/".len()..];
            let answer = serde_json::from_slice::<Value>(&request.body)
                .map_err(|e| explore::ApiError::from(CliError::Failed(format!("the request is not JSON: {e}"))))
                .and_then(|v| explore::answer(endpoint, &v));
            let (status, body) = match answer {
                Ok(v) => (200, v.to_string()),
                Err(e) => (400, e.to_json().to_string()),
            };
            if body.len() > MAX_ANSWER_BYTES {
                let message =
                    format!("the answer has {} bytes, more than the explorer sends ({MAX_ANSWER_BYTES})", body.len());
                return error(400, &message);
            }
            respond(stream, deadline, status, "application/json", body.as_bytes())
        }
        (_, api) if api.starts_with("/api/") => error(405, "the API takes POST requests"),
        _ => error(404, "not found"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server on a free loopback port with `limits`, running for the rest of the test process.
    fn server(limits: Limits) -> u16 {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let queue = start_workers(port, Arc::new("<html>page</html>".to_owned()), limits).unwrap();
        std::thread::spawn(move || accept(&listener, &queue));
        port
    }

    const SHORT: Limits =
        Limits { workers: 2, queue: 2, read: Duration::from_millis(600), write: Duration::from_millis(600) };

    fn connect(port: u16) -> TcpStream {
        let s = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s
    }

    fn ask(port: u16, request: &str) -> String {
        let mut s = connect(port);
        s.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        answer
    }

    fn post(port: u16, headers: &str, body: &str) -> String {
        format!(
            "POST /api/eval HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    const JSON: &str = "Content-Type: application/json\r\n";
    const SMALL: &str = r#"{"layout":"S[4:1@laneid]","shape":""}"#;

    #[test]
    fn only_loopback_hosts_and_origins_are_answered() {
        assert!(loopback_host("127.0.0.1:8765", 8765));
        assert!(loopback_host("localhost:8765", 8765));
        assert!(loopback_host("localhost", 8765));
        assert!(!loopback_host("localhost:80", 8765));
        assert!(!loopback_host("evil.example:8765", 8765));
        assert!(loopback_origin("http://127.0.0.1:8765", 8765));
        assert!(loopback_origin("http://[::1]:8765", 8765));
        assert!(!loopback_origin("http://127.0.0.1", 8765));
        assert!(!loopback_origin("https://127.0.0.1:8765", 8765));
        assert!(!loopback_origin("http://127.0.0.1:8765.evil.example", 8765));
        assert!(!loopback_origin("null", 8765));
        assert!(loopback_origin("http://localhost", 80));
    }

    #[test]
    fn the_server_answers_the_page_and_the_api_and_refuses_other_hosts() {
        let port = server(SHORT);
        let page = ask(port, &format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"));
        assert!(page.starts_with("HTTP/1.1 200 OK\r\n") && page.ends_with("<html>page</html>"), "{page}");
        // What the page sends: same-origin, JSON.
        let headers = format!("{JSON}Origin: http://127.0.0.1:{port}\r\nSec-Fetch-Site: same-origin\r\n");
        let api = ask(port, &post(port, &headers, SMALL));
        assert!(api.starts_with("HTTP/1.1 200 OK\r\n") && api.contains(r#""points":[[{"laneid":0}],"#), "{api}");
        // A script without browser headers (curl) is answered too.
        assert!(ask(port, &post(port, JSON, SMALL)).starts_with("HTTP/1.1 200 OK\r\n"));
        let refused = ask(port, "GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n");
        assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    }

    #[test]
    fn cross_site_requests_are_refused_before_any_work() {
        let port = server(SHORT);
        // The form any page can post: text/plain, from another origin.
        let form = "Content-Type: text/plain\r\nOrigin: http://evil.example\r\nSec-Fetch-Site: cross-site\r\n";
        let answer = ask(port, &post(port, form, SMALL));
        assert!(answer.starts_with("HTTP/1.1 403 Forbidden\r\n"), "{answer}");
        assert!(answer.contains("Sec-Fetch-Site: cross-site"), "{answer}");
        // Each signal alone is enough.
        let answer = ask(port, &post(port, &format!("{JSON}Origin: http://evil.example\r\n"), SMALL));
        assert!(answer.starts_with("HTTP/1.1 403") && answer.contains("Origin: http://evil.example"), "{answer}");
        let answer = ask(port, &post(port, &format!("{JSON}Origin: null\r\n"), SMALL));
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        let answer = ask(port, &post(port, &format!("{JSON}Sec-Fetch-Site: same-site\r\n"), SMALL));
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        // A simple (preflight-free) content type, or none, is not JSON.
        for content_type in ["Content-Type: text/plain\r\n", "Content-Type: application/x-www-form-urlencoded\r\n", ""]
        {
            let answer = ask(port, &post(port, content_type, SMALL));
            assert!(answer.starts_with("HTTP/1.1 415 Unsupported Media Type\r\n"), "{content_type}: {answer}");
        }
        let charset = ask(port, &post(port, "Content-Type: application/json; charset=utf-8\r\n", SMALL));
        assert!(charset.starts_with("HTTP/1.1 200"), "{charset}");
    }

    #[test]
    fn a_request_trickling_in_meets_one_deadline() {
        // A byte every 100 ms never lets a per-read timeout of 600 ms fire; the request's deadline does.
        let port = server(SHORT);
        let mut s = connect(port);
        s.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        let request = post(port, JSON, &SMALL.repeat(40));
        let start = Instant::now();
        let mut answer = Vec::new();
        for byte in request.as_bytes() {
            if start.elapsed() > Duration::from_secs(5) || s.write_all(std::slice::from_ref(byte)).is_err() {
                break;
            }
            // Waits 100 ms for an answer between two bytes.
            let mut buf = [0; 4096];
            if let Ok(n) = s.read(&mut buf) {
                answer.extend_from_slice(&buf[..n]);
                break;
            }
        }
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"), "{answer}");
        assert!(start.elapsed() < Duration::from_secs(3), "the request stayed open {:?}", start.elapsed());
    }

    #[test]
    fn connections_beyond_the_workers_and_the_queue_get_503_and_the_server_recovers() {
        let port = server(SHORT);
        // Two workers and two queued places held by clients that send nothing; the fifth and later are refused.
        // (One at a time, so that the first two have reached the workers before the next two are queued.)
        let idle: Vec<TcpStream> = (0..SHORT.workers + SHORT.queue)
            .map(|_| {
                let s = connect(port);
                std::thread::sleep(Duration::from_millis(30));
                s
            })
            .collect();
        for _ in 0..5 {
            // The refusal comes without reading the request (none is sent, so the close is clean).
            let mut answer = String::new();
            connect(port).read_to_string(&mut answer).unwrap();
            assert!(answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"), "{answer}");
        }
        // The idle clients run out of time (or leave), and the server answers again.
        drop(idle);
        std::thread::sleep(Duration::from_millis(100));
        assert!(ask(port, &post(port, JSON, SMALL)).starts_with("HTTP/1.1 200"));
    }

    #[test]
    fn an_answer_nobody_reads_is_dropped_at_the_write_deadline() {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let client = connect(listener.local_addr().unwrap().port());
        let (stream, _) = listener.accept().unwrap();
        // Far more than the socket buffers hold: the write blocks until the deadline, then gives up.
        let start = Instant::now();
        let sent = respond(&stream, start + Duration::from_millis(300), 200, "text/plain", &vec![b'x'; 64 << 20]);
        assert!(sent.as_ref().is_err_and(timed_out), "{sent:?}");
        assert!(start.elapsed() < Duration::from_secs(3), "the write took {:?}", start.elapsed());
        drop(client);
    }
}
