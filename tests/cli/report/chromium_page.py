"""Headless Chromium driven over the DevTools protocol, for the HTML report's tests and
the benchmark row that times it.

Debian's ``chromium`` (``make install`` installs it) is started on a loopback debugging
port of its choosing, read from the ``DevToolsActivePort`` file of a temporary profile;
one page is driven through ``websockets``' synchronous client. Console errors, uncaught
exceptions and network requests other than ``file:``/``data:`` are collected. The
browser is stopped when the block ends, also when a test fails.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

BOUND = 60.0
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--remote-debugging-address=127.0.0.1",
         "--remote-debugging-port=0", "--remote-allow-origins=*"]


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        raise RuntimeError("chromium is missing: run make install (it installs Debian's "
                           "chromium package when it is missing)")
    return found


class Page:
    """One browser tab: commands sent, events kept."""

    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self._ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, **params: Any) -> Any:
        """Send a command and wait for its answer (events meanwhile are kept)."""
        number = next(self._ids)
        self._socket.send(json.dumps({"id": number, "method": method, "params": params}))
        deadline = time.monotonic() + BOUND
        while True:
            message = json.loads(self._socket.recv(timeout=deadline - time.monotonic()))
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` in the page (a promise is awaited)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = BOUND) -> Any:
        """Poll ``expression`` until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(expression)
            time.sleep(0.02)

    def open(self, url: str) -> None:
        """Navigate to ``url`` and wait until the report says it is drawn."""
        self.send("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete' && "
                      "document.body && document.body.dataset.ready === 'true'")

    def viewport(self, width: int, height: int, *, mobile: bool = False) -> None:
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=mobile)

    def screenshot(self, path: Path) -> None:
        shot = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=False)
        path.write_bytes(base64.b64decode(shot["data"]))

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions and requests that left the file."""
        self.send("Runtime.evaluate", expression="0")  # flush the events sent so far
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails']}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error",
                                                                                "assert"):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"log: {params['entry'].get('text')}")
            elif method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                if not url.startswith(("file:", "data:")):
                    found.append(f"request: {url}")
        return found


def _port(profile: Path, process: subprocess.Popen[bytes]) -> str:
    """The debugging port Chromium chose, once it has written it down."""
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + BOUND
    while not marker.is_file() or not marker.read_text().strip():
        if process.poll() is not None:
            raise RuntimeError(f"chromium exited with {process.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError("chromium wrote no DevToolsActivePort")
        time.sleep(0.05)
    return marker.read_text().split()[0]


@contextlib.contextmanager
def browser_page() -> Iterator[Page]:
    """A fresh headless Chromium and one of its pages, with the console, the log and the
    network watched; the browser is killed when the block ends."""
    with tempfile.TemporaryDirectory(prefix="agentforge-chromium-",
                                     ignore_cleanup_errors=True) as folder:
        profile = Path(folder)
        process = subprocess.Popen([chromium(), *FLAGS, f"--user-data-dir={profile}",
                                    "about:blank"], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        try:
            port = _port(profile, process)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list",
                                        timeout=BOUND) as answer:
                targets = json.load(answer)
            url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
            with connect(url, max_size=None, open_timeout=BOUND) as socket:
                page = Page(socket)
                for domain in ("Page", "Runtime", "Log", "Network"):
                    page.send(f"{domain}.enable")
                yield page
        finally:  # the browser's own group: its renderers and helpers go with it
            for sent in (signal.SIGTERM, signal.SIGKILL):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, sent)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(5)
                    break
            process.wait(BOUND)
