"""``serve --transport http --allow-origin``, used from a page in headless Chromium, as a
browser client would: the page's script calls the server with ``fetch()`` (initialize,
then ``tools/list`` and ``tools/call`` with the ``Mcp-Session-Id`` header) and writes what
it got into the page, which Chromium's ``--dump-dom`` prints.

The page comes from a static server of the test's on another loopback port, so every call
is cross-origin: the browser sends the preflight and reads the CORS headers itself. From
an origin not allowed, the browser refuses to hand the answer to the script.

Chromium is Debian's ``chromium`` package, which ``make install`` installs when it is
missing; without it these tests fail (they are not skipped).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_mcp_http import Served

BOUND = 60.0
# The flags this machine's headless Chromium needs: no sandbox as root, and nothing that
# reaches for the network on its own.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--virtual-time-budget=5000"]

PAGE = """<!doctype html>
<html><body><pre id="out">pending</pre><script>
const server = %(server)s;
let id = 0;
let session = null;
async function rpc(method, params) {
  const headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream"};
  if (session) {
    headers["Mcp-Session-Id"] = session;
    headers["MCP-Protocol-Version"] = "2025-06-18";
  }
  const message = {jsonrpc: "2.0", method: method, params: params};
  const notification = method.startsWith("notifications/");
  if (!notification) message.id = ++id;
  const response = await fetch(server, {method: "POST", headers: headers,
                                        body: JSON.stringify(message)});
  if (!session) session = response.headers.get("Mcp-Session-Id");
  if (notification) return null;
  const text = await response.text();
  const data = text.split("\\n").filter(l => l.startsWith("data:")).map(l => l.slice(5));
  return JSON.parse(data.length ? data[data.length - 1] : text).result;
}
(async () => {
  const out = document.getElementById("out");
  try {
    const init = await rpc("initialize", {protocolVersion: "2025-06-18", capabilities: {},
                                          clientInfo: {name: "page", version: "0"}});
    await rpc("notifications/initialized", {});
    const listed = await rpc("tools/list", {});
    const called = await rpc("tools/call", {name: "add", arguments: {a: 20, b: 22}});
    out.textContent = "server=" + init.serverInfo.name + " session=" + Boolean(session) +
      " listed-add=" + listed.tools.some(t => t.name === "add") +
      " result=" + called.content[0].text + " error=" + called.isError;
  } catch (error) {
    out.textContent = "blocked: " + error;
  }
})();
</script></body></html>
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def _page_site() -> Iterator[tuple[Path, str]]:
    """A static server on a free loopback port: its folder and its origin."""
    with tempfile.TemporaryDirectory() as folder:
        handler = functools.partial(_Quiet, directory=folder)
        site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=site.serve_forever, daemon=True)
        thread.start()
        try:
            yield Path(folder), f"http://127.0.0.1:{site.server_address[1]}"
        finally:
            site.shutdown()
            site.server_close()
            thread.join(BOUND)


@pytest.fixture(scope="module")
def browsed() -> Iterator[tuple[Served, tuple[Path, str], tuple[Path, str]]]:
    """One server allowing the origin of the first page site and not of the second."""
    with _page_site() as allowed, _page_site() as other:
        server = Served("--allow-origin", allowed[1])
        try:
            yield server, allowed, other
        finally:
            code, out, err = server.stop()
        assert (code, out) == (0, ""), err


def _chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        pytest.fail("chromium is missing: run make install (it installs Debian's chromium "
                    "package when it is missing)")
    return found


def _page_result(folder: Path, origin: str, server_url: str) -> str:
    """Open the page in headless Chromium; the text the page's script wrote."""
    (folder / "index.html").write_text(PAGE % {"server": f'"{server_url}"'},
                                       encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                               "--dump-dom", f"{origin}/index.html"],
                              capture_output=True, text=True, timeout=BOUND,
                              stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    start = done.stdout.index('<pre id="out">') + len('<pre id="out">')
    return done.stdout[start:done.stdout.index("</pre>", start)]


def test_a_page_of_an_allowed_origin_lists_and_calls_tools(browsed: Any) -> None:
    server, (folder, origin), _ = browsed
    shown = _page_result(folder, origin, server.url)
    assert shown == ("server=agentforge session=true listed-add=true result=42 "
                     "error=false"), shown


def test_a_page_of_another_origin_is_blocked_by_the_browser(browsed: Any) -> None:
    server, _, (folder, origin) = browsed
    shown = _page_result(folder, origin, server.url)
    assert shown == "blocked: TypeError: Failed to fetch", shown
