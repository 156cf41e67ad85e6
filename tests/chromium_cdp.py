"""Load a local page in headless Chromium and report what happened, through the Chrome DevTools Protocol over
``--remote-debugging-pipe`` (standard library only: the browser reads commands on fd 3 and writes on fd 4,
messages are JSON ended by a NUL byte).

:func:`load_page` returns every network request the page made, every console message, log entry and uncaught
exception, the number of ``<svg>`` elements and a full-page PNG screenshot. Chromium is started with no
background networking and a host resolver that resolves nothing, so even a request the page tried would fail
rather than leave the machine.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-quic", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
    "--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND",
)


@dataclass
class PageResult:
    requests: list[str] = field(default_factory=list)
    console: list[tuple[str, str]] = field(default_factory=list)  # (level, text) of console calls and log entries
    exceptions: list[str] = field(default_factory=list)
    svg_count: int = 0
    title: str = ""
    text: str = ""
    screenshot: bytes = b""


class _Pipe:
    def __init__(self, proc: subprocess.Popen, write_fd: int, read_fd: int) -> None:
        self.proc, self.write_fd, self.read_fd = proc, write_fd, read_fd
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.write_fd, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self.read_fd], [], [], left)
            if ready:
                chunk = os.read(self.read_fd, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"Chromium closed the pipe (exit code {self.proc.poll()})")
                self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(raw)

    def call(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 60) -> dict:
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(deadline)
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_for(self, method: str, timeout: float = 60) -> dict:
        for i, ev in enumerate(self.events):
            if ev.get("method") == method:
                return self.events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(deadline)
            if "method" in msg:
                if msg["method"] == method:
                    return msg
                self.events.append(msg)

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        try:
            while True:
                msg = self._read(deadline)
                if "method" in msg:
                    self.events.append(msg)
        except TimeoutError:
            pass


def load_page(path: Path, width: int = 1280, timeout: float = 90) -> PageResult:
    """Open ``path`` (a local file) in headless Chromium and collect what happened (see the module docstring)."""
    url = Path(path).resolve().as_uri()
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    # the child's ends, parked above the stdio range (close-on-exec), become its fds 3 and 4 in the child
    child_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 100)
    child_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 100)
    os.close(to_browser_r)
    os.close(from_browser_w)

    def child_fds() -> None:
        os.dup2(child_r, 3)  # dup2 leaves the copies inheritable; everything else of ours is close-on-exec
        os.dup2(child_w, 4)

    with tempfile.TemporaryDirectory(prefix="ks-chromium-") as profile:
        proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            close_fds=False, preexec_fn=child_fds,
        )
        os.close(child_r)
        os.close(child_w)
        pipe = _Pipe(proc, to_browser_w, from_browser_r)
        result = PageResult()
        try:
            target = pipe.call("Target.createTarget", {"url": "about:blank"}, timeout=timeout)["targetId"]
            session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Network", "Runtime", "Log"):
                pipe.call(f"{domain}.enable", session=session)
            pipe.call("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
            pipe.call("Page.navigate", {"url": url}, session=session)
            pipe.wait_for("Page.loadEventFired", timeout)
            pipe.drain(1.0)  # late console messages / requests
            value = lambda expr: pipe.call(  # noqa: E731
                "Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=session)["result"].get("value")
            result.svg_count = value("document.querySelectorAll('svg').length")
            result.title = value("document.title")
            result.text = value("document.body.innerText")
            height = value("Math.ceil(document.documentElement.scrollHeight)")
            shot = pipe.call("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": min(height, 16000), "scale": 1},
            }, session=session, timeout=timeout)
            result.screenshot = base64.b64decode(shot["data"])
            pipe.drain(0.3)
            for ev in pipe.events:
                m, p = ev["method"], ev.get("params", {})
                if m == "Network.requestWillBeSent":
                    result.requests.append(p["request"]["url"])
                elif m == "Runtime.consoleAPICalled":
                    text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                    result.console.append((p.get("type", ""), text))
                elif m == "Log.entryAdded":
                    entry = p.get("entry", {})
                    result.console.append((entry.get("level", ""), f"{entry.get('source')}: {entry.get('text')}"))
                elif m == "Runtime.exceptionThrown":
                    result.exceptions.append(json.dumps(p.get("exceptionDetails", {}))[:500])
            try:
                pipe.call("Browser.close", timeout=10)
            except (RuntimeError, TimeoutError):
                pass
        finally:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            os.close(to_browser_w)
            os.close(from_browser_r)
        return result
