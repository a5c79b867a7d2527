"""A minimal Chrome DevTools Protocol client for headless Chromium, standard library only.

Chromium is started with --remote-debugging-pipe: it reads protocol messages (JSON, each ended by a NUL byte)
from file descriptor 3 and writes its answers and events to file descriptor 4. That needs neither a WebDriver
(chromedriver) nor a websocket library, only Debian's `chromium` package; the few protocol commands used are
documented at https://chromedevtools.github.io/devtools-protocol/ (Target, Page, Runtime, Input, Emulation,
Network).
"""

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time


class BrowserError(Exception):
    """A protocol error, a script exception in the page, or a wait that timed out."""


def find_chromium():
    """The Chromium binary: $AXE_CHROMIUM, else `chromium` on PATH; a clear failure otherwise."""
    path = os.environ.get("AXE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path or not os.access(path, os.X_OK):
        raise BrowserError(
            "chromium not found: the browser tests need Debian's chromium package "
            "(scripts/setup-browser.sh installs it; AXE_CHROMIUM names another binary)"
        )
    return path


class Browser:
    """One headless Chromium with one page, driven over the DevTools pipe."""

    def __init__(self, width=1200, height=900, timeout=30.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="axe-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # Move the child's ends above the low descriptors, then onto 3 and 4 in the child.
        child_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
        child_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def onto_3_and_4():
            os.dup2(child_r, 3)
            os.dup2(child_w, 4)

        args = [
            find_chromium(),
            "--headless=new",
            "--remote-debugging-pipe",
            "--user-data-dir=" + self.profile,
            "--disable-gpu",
            "--disable-dev-shm-usage",  # containers often have a small /dev/shm
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-sync",
            "--disable-component-update",
            "--hide-scrollbars",
            "--window-size=%d,%d" % (width, height),
            "about:blank",
        ]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium's sandbox refuses to run as root
        self.log = open(os.path.join(self.profile, "chromium.log"), "wb")
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, pass_fds=(3, 4), preexec_fn=onto_3_and_4
        )
        os.close(child_r)
        os.close(child_w)
        self._buffer = b""
        self._next_id = 0
        self.events = []
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True, session=False)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Network"):
            self.call(domain + ".enable")
        self.resize(width, height)
        # A headless page never has the window's focus; without this, focus() fires no focus events.
        self.call("Emulation.setFocusEmulationEnabled", enabled=True)

    # ---- protocol ----
    def call(self, method, session=True, **params):
        """Sends one command (to the page's session unless session=False) and returns its result."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            for reply in self._messages():
                if reply.get("id") == self._next_id:
                    if "error" in reply:
                        raise BrowserError("%s: %s" % (method, reply["error"]))
                    return reply.get("result", {})
                self.events.append(reply)
            if time.monotonic() > deadline:
                raise BrowserError("%s: no answer in %.0f s" % (method, self.timeout))
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise BrowserError("chromium exited (log: %s)" % self.log.name)
            self._buffer += chunk

    def _messages(self):
        while b"\0" in self._buffer:
            raw, self._buffer = self._buffer.split(b"\0", 1)
            yield json.loads(raw)

    # ---- page helpers ----
    def resize(self, width, height):
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def js(self, expression):
        """Evaluates an expression in the page (promises awaited) and returns its JSON value."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError("page script failed: %s" % details.get("exception", {}).get("description", details))
        return result["result"].get("value")

    def wait_for(self, expression, what, timeout=None):
        """Polls a page expression until it is truthy; returns its value."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            value = self.js(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError("timed out waiting for %s" % what)
            time.sleep(0.05)

    def navigate(self, url):
        self.call("Page.navigate", url=url)
        self.wait_for(
            "document.readyState === 'complete' && document.body && document.body.dataset.pending === '0'",
            "the page to load and draw " + url,
        )

    def settled_after(self, action):
        """Runs action() (which makes the page ask for answers) and waits until they are all drawn."""
        before = int(self.js("+(document.body.dataset.done || 0)"))
        action()
        self.wait_for(
            "+(document.body.dataset.done || 0) > %d && document.body.dataset.pending === '0'" % before,
            "the page to draw its answers",
        )

    def key(self, key, code=None, keycode=0, text=None):
        """Presses and releases one key in the focused element."""
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code or key,
                "windowsVirtualKeyCode": keycode}
        if text:
            down["text"] = text
        self.call("Input.dispatchKeyEvent", **down)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code or key, windowsVirtualKeyCode=keycode)

    def type_into(self, element_id, text):
        """Focuses an input, selects its text and types `text` over it (as an input method would)."""
        self.js("(() => { const e = document.getElementById(%s); e.focus(); e.select(); return true; })()"
                % json.dumps(element_id))
        self.call("Input.insertText", text=text)

    def enter(self):
        self.key("Enter", "Enter", 13, "\r")

    def screenshot(self, path, element_id=None):
        """Saves a PNG of the page, or of one element (scrolled into view)."""
        params = {"format": "png", "captureBeyondViewport": True}
        if element_id:
            box = self.js(
                "(() => { const r = document.getElementById(%s).getBoundingClientRect(); "
                "return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; })()"
                % json.dumps(element_id)
            )
            params["clip"] = dict(box, scale=1)
        data = self.call("Page.captureScreenshot", **params)["data"]
        import base64

        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def requested_urls(self):
        """Every URL the page asked the network for since it was opened."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except BrowserError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def script_errors(self):
        """Every uncaught exception the page's scripts threw."""
        return [e["params"]["exceptionDetails"] for e in self.events if e.get("method") == "Runtime.exceptionThrown"]

    def __exit__(self, kind, *exc):
        errors = self.script_errors()
        self.close()
        if kind is None and errors:
            raise BrowserError("the page threw: %s" % errors)
