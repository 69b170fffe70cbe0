"""An MCP server of the stateless 2026-07-28 revision only, written with the standard
library, for the protocol-era tests: no ``initialize``, no session.

* ``server/discover`` names ``2026-07-28`` as the one version, the server's name in
  ``_meta``;
* every other request must carry that version, the client's capabilities (and its name)
  in ``_meta``: a request without them is refused (``-32602``), one naming another version
  gets ``-32022`` with the version supported; ``initialize`` is refused that way too;
* over HTTP, ``MCP-Protocol-Version``, ``Mcp-Method`` and, for ``tools/call``, ``Mcp-Name``
  must repeat the body (``-32020`` and 400 otherwise); an unknown method is a 404, ``GET``
  and ``DELETE`` a 405, a notification a 202; every answer is JSON;
* ``tools/list`` gives a page per tool: ``echo(text)``, ``add(a, b)`` and ``busy()``, whose
  calls are answered with the JSON-RPC error ``-32000`` (a server's own error code, which
  the SDK also uses for a closed connection).

``python stateless_server.py stdio [LOG]`` serves over stdio (the version
``STATELESS_VERSION`` names, if set); :func:`serving_http` serves
over HTTP on a loopback port in a thread. Each request received is appended to ``LOG``
(a JSON line: method, ``_meta``, the MCP headers) or to the list given.
"""

from __future__ import annotations

import base64
import http.server
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

VERSION = "2026-07-28"
"""The version it speaks; over stdio, ``STATELESS_VERSION`` names another (a revision
no client speaks, say)."""
PROTOCOL = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
CLIENT = "io.modelcontextprotocol/clientInfo"
SERVER = {"io.modelcontextprotocol/serverInfo": {"name": "stateless-test", "version": "1.0"}}
HEADERS = ("mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id")
TOOLS = [
    {"name": "echo", "description": "Says the text back",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                     "required": ["text"]}},
    {"name": "add", "description": "Adds two integers",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"},
                                                      "b": {"type": "integer"}},
                     "required": ["a", "b"]}},
    {"name": "busy", "description": "Always answers the JSON-RPC error -32000",
     "inputSchema": {"type": "object"}},
]
_STATUS = {-32601: 404, -32600: 400, -32602: 400, -32020: 400, -32022: 400, -32000: 200}


class Refusal(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def _version() -> str:
    return os.environ.get("STATELESS_VERSION", VERSION)


def _unsupported(requested: object) -> Refusal:
    return Refusal(-32022, "Unsupported protocol version",
                   {"supported": [_version()], "requested": requested})


def _call(params: dict[str, Any]) -> dict[str, Any]:
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name == "echo":
        text = str(arguments.get("text", ""))
        return {"content": [{"type": "text", "text": text}], "isError": False}
    if name == "add":
        a, b = arguments.get("a"), arguments.get("b")
        if not (isinstance(a, int) and isinstance(b, int)):
            return {"content": [{"type": "text", "text": "a and b must be integers"}],
                    "isError": True}
        return {"content": [{"type": "text", "text": str(a + b)}], "isError": False}
    if name == "busy":
        raise Refusal(-32000, "Busy: try again later")
    raise Refusal(-32602, f"Unknown tool: {name}")


def _result(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "server/discover":
        return {"supportedVersions": [_version()], "capabilities": {"tools": {}},
                "instructions": "A test server of the stateless revision.",
                "ttlMs": 0, "cacheScope": "public"}
    if method == "tools/list":
        page = int(params.get("cursor") or 0)
        listed: dict[str, Any] = {"tools": [TOOLS[page]], "ttlMs": 60000,
                                  "cacheScope": "public"}
        if page + 1 < len(TOOLS):
            listed["nextCursor"] = str(page + 1)
        return listed
    if method == "tools/call":
        return _call(params)
    raise Refusal(-32601, f"Method not found: {method}")


def _check_headers(method: str, params: dict[str, Any], headers: dict[str, str]) -> None:
    """What the HTTP binding of 2026-07-28 asks of a request's headers."""
    if headers.get("mcp-protocol-version") != params["_meta"][PROTOCOL]:
        raise Refusal(-32020, "Header mismatch: MCP-Protocol-Version")
    if headers.get("mcp-method") != method:
        raise Refusal(-32020, "Header mismatch: Mcp-Method")
    if method == "tools/call":
        name = headers.get("mcp-name", "")
        if name.startswith("=?base64?") and name.endswith("?="):
            name = base64.b64decode(name[9:-2]).decode("utf-8")
        if name != params.get("name"):
            raise Refusal(-32020, "Header mismatch: Mcp-Name")


def answer(message: Any, headers: dict[str, str] | None,
           seen: Callable[[dict[str, Any]], None]) -> tuple[int, dict[str, Any] | None]:
    """The HTTP status and the JSON-RPC answer to one message (``None``: a notification);
    ``headers`` are the HTTP request's (``None`` over stdio)."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return 400, {"jsonrpc": "2.0", "id": None,
                     "error": {"code": -32600, "message": "Invalid Request"}}
    method, params = message.get("method"), message.get("params") or {}
    if not isinstance(params, dict):
        params = {}
    meta = params.get("_meta")
    seen({"method": method, "meta": meta,
          "headers": {name: value for name, value in (headers or {}).items()
                      if name in HEADERS}})
    if "id" not in message:
        return 202, None
    try:
        if method == "initialize":
            raise Refusal(-32022, f"This server speaks only MCP {_version()}, which has "
                                  "no initialize: send server/discover",
                          {"supported": [_version()],
                           "requested": params.get("protocolVersion")})
        if not isinstance(meta, dict) or PROTOCOL not in meta or CAPABILITIES not in meta:
            raise Refusal(-32602, f"_meta must carry {PROTOCOL} and {CAPABILITIES}")
        if meta[PROTOCOL] != _version():
            raise _unsupported(meta[PROTOCOL])
        if headers is not None:
            _check_headers(method, params, headers)
        result = {**_result(method, params), "resultType": "complete", "_meta": SERVER}
    except Refusal as refusal:
        error: dict[str, Any] = {"code": refusal.code, "message": refusal.message}
        if refusal.data is not None:
            error["data"] = refusal.data
        return _STATUS.get(refusal.code, 400), {"jsonrpc": "2.0", "id": message["id"],
                                                 "error": error}
    return 200, {"jsonrpc": "2.0", "id": message["id"], "result": result}


def _handler(seen: Callable[[dict[str, Any]], None]) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            accept = self.headers.get("accept", "")
            if "application/json" not in accept or "text/event-stream" not in accept:
                self._send(406, None)
                return
            try:
                message = json.loads(body)
            except ValueError:
                message = None
            headers = {name.lower(): value for name, value in self.headers.items()}
            self._send(*answer(message, headers, seen))

        def do_GET(self) -> None:
            self._send(405, None)

        def do_DELETE(self) -> None:
            self._send(405, None)

        def _send(self, status: int, reply: dict[str, Any] | None) -> None:
            body = b"" if reply is None else json.dumps(reply).encode()
            self.send_response(status)
            if reply is not None:
                self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serving_http(seen: list[dict[str, Any]]) -> Iterator[str]:
    """The server on a loopback port, in a thread: its endpoint's URL, until the end of
    the block; each request received is appended to ``seen``."""
    lock = threading.Lock()

    def note(request: dict[str, Any]) -> None:
        with lock:
            seen.append(request)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(note))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def serve_stdio(log: str | None) -> None:
    """Answer each line of standard input on standard output until it closes."""
    def note(request: dict[str, Any]) -> None:
        if log is not None:
            with open(log, "a", encoding="utf-8") as file:
                file.write(json.dumps(request) + "\n")

    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        _, reply = answer(message, None, note)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    serve_stdio(sys.argv[2] if len(sys.argv) > 2 else None)
