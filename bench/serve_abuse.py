#!/usr/bin/env python3
"""The explorer server under abuse: peak memory and thread count of `axe-layout serve`, loopback only, bounded.

Starts `axe-layout serve --port 0` (the binary given, default target/debug/axe-layout), samples its /proc status
(VmRSS, Threads) every 20 ms, and runs each scenario in turn, printing one row per scenario: the peak RSS and
thread count while it ran, the statuses the clients got, and how long it took. Every scenario ends on its own
(sockets are closed, waits are capped), and the server is stopped at the end; the last row says whether it was
still answering. Used for the before/after figures of issue 22 (ARCHITECTURE.md, tools/axe-layout).

    bench/serve_abuse.py [--binary PATH] [--concurrency N] [--hold S] [--only NAME,...]

Scenarios:
  heavy-eval     one /api/eval of the heaviest kind (19 axes, 16 copies per element, a 16 x 256 grid)
  parallel-eval  --concurrency of them at once
  never-read     --concurrency heavy evals whose clients never read the answer, held --hold seconds
  idle-flood     300 connections that send nothing, held 3 s, then one normal request
  drip           one request sent a byte every 2 s: how long the server keeps it open (capped at 30 s)
  cross-site     a text/plain POST from another origin (a form any web page can send)
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time

# 19 axes (every built-in one), 16 copies of each element, a 16 x 256 grid: 4096 cells x 16 = 65536 coordinates
# of 19 values each.
HEAVY_LAYOUT = "S[(16,16,16):(1@laneid,1@warpid,1@m)] + R[16:1@tid]" + "".join(
    f" + 1000000@{a}"
    for a in "reg wgid wid_in_wg tid_in_wg bx by bz cbx cby cbz clusterid gpuid gpuid_x gpuid_y pid".split()
)
HEAVY = json.dumps({"layout": HEAVY_LAYOUT, "shape": "16,256"}).encode()


class Sampler(threading.Thread):
    """Samples the server's VmRSS (kB) and Threads until stopped; `window()` returns the peaks since the last call."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid = pid
        self.lock = threading.Lock()
        self.peak_rss = 0
        self.peak_threads = 0
        self.last = (0, 0)
        self.running = True

    def read(self):
        rss = threads = 0
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss = int(line.split()[1])
                    elif line.startswith("Threads:"):
                        threads = int(line.split()[1])
        except OSError:
            pass
        return rss, threads

    def run(self):
        while self.running:
            rss, threads = self.read()
            with self.lock:
                self.last = (rss, threads)
                self.peak_rss = max(self.peak_rss, rss)
                self.peak_threads = max(self.peak_threads, threads)
            time.sleep(0.02)

    def window(self):
        with self.lock:
            peaks = (self.peak_rss, self.peak_threads)
            self.peak_rss, self.peak_threads = self.last
        return peaks


def request(port, path, body, content_type="application/json", extra=""):
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {content_type}\r\n{extra}"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def ask(port, data, timeout=60):
    """Sends `data`, reads the whole answer; returns (status, bytes) or (error text, 0)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(data)
            chunks = []
            while True:
                c = s.recv(1 << 16)
                if not c:
                    break
                chunks.append(c)
        answer = b"".join(chunks)
        status = answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.1 ") else "no answer"
        return status, len(answer)
    except OSError as e:
        return type(e).__name__, 0


def statuses(results):
    counts = {}
    for status, _ in results:
        counts[status] = counts.get(status, 0) + 1
    return " ".join(f"{k}x{v}" for k, v in sorted(counts.items()))


def heavy_eval(port, args):
    status, size = ask(port, request(port, "/api/eval", HEAVY))
    return f"{status}, answer {size / 1e6:.2f} MB"


def parallel_eval(port, args):
    results = [None] * args.concurrency
    def one(i):
        results[i] = ask(port, request(port, "/api/eval", HEAVY))
    threads = [threading.Thread(target=one, args=(i,)) for i in range(args.concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return f"{args.concurrency} clients: {statuses(results)}"


def never_read(port, args):
    sockets = []
    for _ in range(args.concurrency):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(request(port, "/api/eval", HEAVY))
        sockets.append(s)
    time.sleep(args.hold)
    for s in sockets:
        s.close()
    return f"{args.concurrency} clients held {args.hold:.0f} s"


def idle_flood(port, args):
    sockets = []
    refused = 0
    for _ in range(300):
        try:
            sockets.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            refused += 1
    time.sleep(3)
    status, _ = ask(port, request(port, "/api/eval", b'{"layout":"S[4:1]","shape":""}'), timeout=15)
    for s in sockets:
        s.close()
    return f"300 idle ({refused} not connected); a normal request meanwhile: {status}"


def drip(port, args):
    data = request(port, "/api/eval", HEAVY)
    start = time.time()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(2)
        for i in range(len(data)):
            if time.time() - start > 30:
                return "still open after 30 s"
            try:
                s.sendall(data[i : i + 1])
                s.recv(1 << 16)  # waits up to 2 s (the drip's pace); an answer or a close ends the request
                break
            except socket.timeout:
                continue
            except OSError:
                break
    return f"closed by the server after {time.time() - start:.1f} s"


def cross_site(port, args):
    body = b'{"layout":"S[4:1]","shape":""}'
    extra = "Origin: http://evil.example\r\nSec-Fetch-Site: cross-site\r\n"
    status, _ = ask(port, request(port, "/api/eval", body, content_type="text/plain", extra=extra))
    return f"status {status}"


SCENARIOS = [
    ("heavy-eval", heavy_eval),
    ("parallel-eval", parallel_eval),
    ("never-read", never_read),
    ("idle-flood", idle_flood),
    ("drip", drip),
    ("cross-site", cross_site),
]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--binary", default=os.path.join(root, "target", "debug", "axe-layout"))
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--hold", type=float, default=15.0)
    p.add_argument("--only", default="")
    args = p.parse_args()
    only = set(filter(None, args.only.split(",")))
    server = subprocess.Popen([args.binary, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline().split("127.0.0.1:")[1].split("/")[0])
        sampler = Sampler(server.pid)
        sampler.start()
        time.sleep(0.2)
        rss, threads = sampler.window()
        print(f"{'scenario':<14} {'peak RSS':>9} {'threads':>7} {'seconds':>7}  outcome")
        print(f"{'idle':<14} {rss / 1024:>6.0f} MB {threads:>7} {0:>7.1f}  listening on {port}")
        for name, scenario in SCENARIOS:
            if only and name not in only:
                continue
            start = time.time()
            outcome = scenario(port, args)
            time.sleep(0.1)
            rss, threads = sampler.window()
            print(f"{name:<14} {rss / 1024:>6.0f} MB {threads:>7} {time.time() - start:>7.1f}  {outcome}", flush=True)
        alive = server.poll() is None
        status, _ = ask(port, request(port, "/api/eval", b'{"layout":"S[4:1]","shape":""}'), timeout=30)
        rss, threads = sampler.read()
        print(f"{'after':<14} {rss / 1024:>6.0f} MB {threads:>7} {'':>7}  alive: {alive}, a normal request: {status}")
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
