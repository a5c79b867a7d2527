//! `axe-layout serve [--port P]`: the layout explorer on `http://127.0.0.1:P/`, loopback only.
//!
//! A small HTTP/1.1 server over `std::net` (no framework): `GET /` is the page ([`crate::page::served`]),
//! `POST /api/eval`, `/api/tma` and `/api/mma` take a JSON object and answer with [`crate::explore::answer`]
//! (status 200, or 400 with `{"error": ...}`). Every connection gets its own thread and is closed after one
//! answer; a request must arrive within [`READ_TIMEOUT`] and fit [`MAX_REQUEST_BYTES`]. Requests whose `Host` is
//! not the loopback address are refused (403), so a web page elsewhere cannot reach the server by DNS rebinding.

use crate::cli::{Args, CliError, Command};
use crate::{explore, page};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::time::Duration;

/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request (headers and body) the server reads.
const MAX_REQUEST_BYTES: usize = 1 << 20;
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
           b, ...}: the JSON of eval/tma-plan/mma-plan --json plus what the page draws; errors as\n\
           {\"error\": {\"field\", \"column\", \"message\", \"text\"}} with status 400.\n",
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
    let page = std::sync::Arc::new(page::served());
    {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "axe-layout: serving the explorer on http://127.0.0.1:{port}/ (Ctrl-C stops)");
        let _ = out.flush();
    }
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let page = page.clone();
        std::thread::spawn(move || {
            let _ = handle(stream, port, &page);
        });
    }
    Ok(String::new())
}

/// One parsed request.
struct Request {
    method: String,
    path: String,
    host: Option<String>,
    body: Vec<u8>,
}

fn read_request(stream: &TcpStream) -> Result<Request, (u16, String)> {
    let bad = |m: &str| (400, m.to_owned());
    let mut reader = BufReader::new(stream.take(MAX_REQUEST_BYTES as u64));
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| (400, format!("cannot read the request: {e}")))?;
    let mut words = line.split_whitespace();
    let (method, path) = match (words.next(), words.next()) {
        (Some(m), Some(p)) => (m.to_owned(), p.to_owned()),
        _ => return Err(bad("malformed request line")),
    };
    let mut host = None;
    let mut length = 0usize;
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(|e| (400, format!("cannot read the headers: {e}")))? == 0 {
            return Err(bad("the request ended inside its headers"));
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else { return Err(bad("malformed header")) };
        match name.trim().to_ascii_lowercase().as_str() {
            "host" => host = Some(value.trim().to_owned()),
            "content-length" => {
                length = value.trim().parse().map_err(|_| bad("malformed Content-Length"))?;
                if length > MAX_REQUEST_BYTES {
                    return Err((413, format!("the request body is larger than {MAX_REQUEST_BYTES} bytes")));
                }
            }
            _ => {}
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).map_err(|e| (400, format!("cannot read the body: {e}")))?;
    Ok(Request { method, path, host, body })
}

fn respond(mut stream: &TcpStream, status: u16, content_type: &str, body: &[u8]) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Payload Too Large",
        _ => "Error",
    };
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)?;
    stream.flush()
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

fn handle(stream: TcpStream, port: u16, page: &str) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let request = match read_request(&stream) {
        Ok(r) => r,
        Err((status, message)) => return respond(&stream, status, "application/json", &json_error(&message)),
    };
    if !request.host.as_deref().is_some_and(|h| loopback_host(h, port)) {
        return respond(&stream, 403, "application/json", &json_error("the explorer answers loopback requests only"));
    }
    let path = request.path.split('?').next().unwrap_or("");
    match (request.method.as_str(), path) {
        ("GET", "/") | ("GET", "/index.html") => respond(&stream, 200, "text/html; charset=utf-8", page.as_bytes()),
        ("POST", api) if api.starts_with("/api/") => {
            let endpoint = &api["/api/".len()..];
            let answer = serde_json::from_slice::<Value>(&request.body)
                .map_err(|e| explore::ApiError::from(CliError::Failed(format!("the request is not JSON: {e}"))))
                .and_then(|v| explore::answer(endpoint, &v));
            let (status, body) = match answer {
                Ok(v) => (200, v),
                Err(e) => (400, e.to_json()),
            };
            respond(&stream, status, "application/json", body.to_string().as_bytes())
        }
        (_, api) if api.starts_with("/api/") => {
            respond(&stream, 405, "application/json", &json_error("the API takes POST requests"))
        }
        _ => respond(&stream, 404, "application/json", &json_error("not found")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_are_answered() {
        assert!(loopback_host("127.0.0.1:8765", 8765));
        assert!(loopback_host("localhost:8765", 8765));
        assert!(loopback_host("localhost", 8765));
        assert!(!loopback_host("localhost:80", 8765));
        assert!(!loopback_host("evil.example:8765", 8765));
    }

    #[test]
    fn the_server_answers_the_page_and_the_api_and_refuses_other_hosts() {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            for stream in listener.incoming().take(3) {
                handle(stream.unwrap(), port, "<html>page</html>").unwrap();
            }
        });
        let ask = |request: String| {
            let mut s = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).unwrap();
            s.write_all(request.as_bytes()).unwrap();
            let mut answer = String::new();
            s.read_to_string(&mut answer).unwrap();
            answer
        };
        let page = ask(format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"));
        assert!(page.starts_with("HTTP/1.1 200 OK\r\n") && page.ends_with("<html>page</html>"), "{page}");
        let body = r#"{"layout":"S[4:1@laneid]","shape":""}"#;
        let api = ask(format!(
            "POST /api/eval HTTP/1.1\r\nHost: localhost:{port}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ));
        assert!(api.starts_with("HTTP/1.1 200 OK\r\n") && api.contains(r#""points":[[{"laneid":0}],"#), "{api}");
        let refused = ask("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n".to_owned());
        assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
        server.join().unwrap();
    }
}
