"""A small driver for headless Chromium over the DevTools protocol, through `--remote-debugging-pipe`
(file descriptors 3 and 4, messages ended by a NUL byte): no websocket library, no port, no extra
Python dependency. Enough for the report's browser tests to click, type, download and look.
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Optional


def find_chromium() -> Optional[str]:
    env = os.environ.get("TERMQA_CHROMIUM")
    if env:
        return env
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page, driven over the pipe; use as a context manager."""

    def __init__(self, binary: str, profile: Path, *, width: int = 1366, height: int = 1000):
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire():  # in the child: our pipe ends become its fds 3 (commands) and 4 (answers)
            a = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 100)
            b = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 100)
            os.dup2(a, 3)
            os.dup2(b, 4)

        cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-extensions", "--mute-audio", "--hide-scrollbars", "--remote-debugging-pipe",
               f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, close_fds=False, preexec_fn=wire,
                                     start_new_session=True)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next = 0
        self.events: list[dict] = []
        self.session: Optional[str] = None

    # ------------------------------------------------------------------ protocol
    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise BrowserError("Chromium closed the DevTools pipe")
                self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return json.loads(msg)

    def send(self, method: str, params: Optional[dict] = None, *, browser: bool = False,
             timeout: float = 30) -> dict:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if self.session and not browser:
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result") or {}
            self.events.append(answer)

    def wait_event(self, method: str, timeout: float = 30, **match) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method and all(e.get("params", {}).get(k) == v for k, v in match.items()):
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    # ------------------------------------------------------------------ page helpers
    def open(self, url: str) -> None:
        if self.session is None:
            page = next(t for t in self.send("Target.getTargets", browser=True)["targetInfos"]
                        if t["type"] == "page")
            self.session = self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                                     browser=True)["sessionId"]
            self.send("Page.enable")
        self.events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def eval(self, expression: str) -> Any:
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise BrowserError(f"{expression[:80]}: {r['exceptionDetails'].get('exception', {}).get('description')}")
        return r["result"].get("value")

    def wait_for(self, selector: str, timeout: float = 15) -> None:
        """Until the element exists (controls made on a `toggle` event arrive a moment later)."""
        deadline = time.monotonic() + timeout
        while not self.eval(f"Boolean(document.querySelector({json.dumps(selector)}))"):
            if time.monotonic() > deadline:
                raise BrowserError(f"no {selector} after {timeout} s")
            time.sleep(0.05)

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element (scrolled into view first)."""
        self.wait_for(selector)
        x, y = self.eval(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) { throw new Error('no element ' + " + json.dumps(selector) + "); }"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def type_into(self, selector: str, text: str) -> None:
        self.click(selector)
        self.send("Input.insertText", {"text": text})

    def choose(self, selector: str, value: str) -> None:
        """Pick an option of a <select> as a keyboard user would end up: value set, `change` fired."""
        self.wait_for(selector)
        ok = self.eval(f"(() => {{ const s = document.querySelector({json.dumps(selector)}); s.focus();"
                       f" s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change', {{bubbles: true}}));"
                       f" return s.value; }})()")
        if ok != value:
            raise BrowserError(f"{selector} has no option {value!r}")

    def allow_downloads(self, folder: Path) -> None:
        self.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder),
                                                  "eventsEnabled": True}, browser=True)

    def wait_download(self, timeout: float = 30) -> None:
        self.wait_event("Browser.downloadProgress", timeout=timeout, state="completed")

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.send("Browser.close", browser=True, timeout=5)
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)  # our browser and its helpers only
            self.proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
