"""Listing a streamable-HTTP MCP server's tools without the SDK, when the server answers
plainly.

Importing the official SDK takes longer than other clients take for the whole listing (its
protocol types are built for every protocol version at import). A listing is four
requests: ``initialize``, ``notifications/initialized``, ``tools/list`` (each page) and the
session's ``DELETE``; the standard library's ``http.client`` makes them in milliseconds.
:func:`list_tools_plainly` makes them and returns the tools as the server sent them when
everything is plain:

* each answer is a 2xx status with JSON, or an event stream holding the answer (with
  nothing but notifications before it);
* the server agrees on a protocol version of the ``initialize`` handshake;
* no JSON-RPC error, and every tool passes :func:`surely_valid`, a check narrower than the
  SDK's types: a tool it accepts, the SDK accepts, with the same fields;
* the URL names no credentials and no proxy of the environment applies to it.

Anything else gives ``None``, and the caller lists through the SDK, whose answers and
messages stand. A server that does not answer in time is the exception
(:class:`Unanswered`), so that the wait is not spent twice.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from agentforge_cli.errors import TargetError

if TYPE_CHECKING:
    import http.client

__all__ = ["HANDSHAKE_VERSIONS", "Unanswered", "list_tools_plainly", "surely_valid"]

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions the SDK negotiates by ``initialize`` (a test keeps them equal);
the last is offered."""
_MAX_BODY = 64 * 1024 * 1024
"""Bytes of one answer read at most (the bound of every MCP message agentforge reads)."""
_TOOL_FIELDS = frozenset({"name", "title", "description", "inputSchema", "outputSchema",
                          "annotations", "execution", "_meta"})
_HINTS = frozenset({"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
_TASK_SUPPORT = ("forbidden", "optional", "required")


class Unanswered(TargetError):
    """The server did not answer within the time given."""


def surely_valid(tool: object) -> bool:
    """Whether the SDK's types surely accept ``tool`` (a ``tools/list`` entry) and keep
    every field of it: known fields only, each of a plain type, no ``null``."""
    if not isinstance(tool, dict) or not tool.keys() <= _TOOL_FIELDS:
        return False
    name = tool.get("name")
    if not (isinstance(name, str) and name) or not _object_schema(tool.get("inputSchema")):
        return False
    if not all(isinstance(tool[key], str) for key in ("title", "description") if key in tool):
        return False
    if "outputSchema" in tool and not _object_schema(tool["outputSchema"]):
        return False
    if "_meta" in tool and not isinstance(tool["_meta"], dict):
        return False
    annotations = tool.get("annotations", {})
    if not (isinstance(annotations, dict) and annotations.keys() <= _HINTS | {"title"}
            and all(type(annotations[hint]) is bool for hint in _HINTS & annotations.keys())
            and isinstance(annotations.get("title", ""), str)):
        return False
    execution = tool.get("execution", {})
    return (isinstance(execution, dict) and execution.keys() <= {"taskSupport"}
            and execution.get("taskSupport", "optional") in _TASK_SUPPORT)


def _plain_initialize(result: dict[str, Any]) -> bool:
    """Whether the SDK surely accepts an ``initialize`` result: a handshake version, the
    server's name and version, capabilities that are objects, text instructions."""
    info = result.get("serverInfo")
    capabilities = result.get("capabilities")
    return (result.get("protocolVersion") in HANDSHAKE_VERSIONS
            and isinstance(info, dict) and isinstance(info.get("name"), str)
            and isinstance(info.get("version"), str)
            and isinstance(capabilities, dict)
            and all(isinstance(value, dict) for value in capabilities.values())
            and isinstance(result.get("instructions", ""), str))


def _object_schema(schema: object) -> bool:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return False
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    return (isinstance(properties, dict)
            and all(isinstance(value, dict | bool) for value in properties.values())
            and isinstance(required, list) and all(isinstance(key, str) for key in required)
            and isinstance(schema.get("$schema", ""), str))


def list_tools_plainly(url: str, headers: Mapping[str, str], timeout: float,
                       client_version: str, max_pages: int) -> list[dict[str, Any]] | None:
    """The tools of the server at ``url`` (every page), or ``None`` when anything is not
    plain (see the module).

    Raises:
        Unanswered: The server did not answer within ``timeout`` seconds.
    """
    import http.client
    from urllib.parse import urlsplit
    from urllib.request import getproxies, proxy_bypass

    try:
        parts = urlsplit(url)
        if (parts.scheme not in ("http", "https") or not parts.hostname or parts.username
                or parts.password or (parts.scheme in getproxies()
                                      and not proxy_bypass(parts.hostname))):
            return None
        session = _Session(parts.scheme, parts.netloc, parts.path or "/", parts.query,
                           headers, time.monotonic() + timeout)
    except (ValueError, http.client.HTTPException):  # the SDK's path says what is wrong
        return None
    try:
        init = session.request("initialize", {
            "protocolVersion": HANDSHAKE_VERSIONS[-1], "capabilities": {},
            "clientInfo": {"name": "agentforge", "version": client_version}})
        if init is None or not _plain_initialize(init):
            return None
        session.version = init["protocolVersion"]
        if not session.notify("notifications/initialized"):
            return None
        tools: list[dict[str, Any]] = []
        cursor = None
        for _ in range(max_pages):
            page = session.request("tools/list", {"cursor": cursor} if cursor else None)
            listed = None if page is None else page.get("tools")
            cursor = None if page is None else page.get("nextCursor")
            if not isinstance(listed, list) or not all(map(surely_valid, listed)) or (
                    cursor is not None and not isinstance(cursor, str)):
                return None
            tools.extend(listed)
            if not cursor:
                return tools
        return None  # a server that keeps paging: the SDK's path says so
    except TimeoutError:
        raise Unanswered(f"no answer within {timeout:g} s") from None
    except (OSError, http.client.HTTPException, ValueError, RecursionError):
        return None  # (RecursionError: JSON nested too deep)
    finally:
        session.close()


class _Session:
    """One MCP session over streamable HTTP, request by request."""

    def __init__(self, scheme: str, netloc: str, path: str, query: str,
                 headers: Mapping[str, str], deadline: float) -> None:
        import http.client

        kind = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        self.connection = kind(netloc, timeout=max(deadline - time.monotonic(), 0.001))
        self.path = f"{path}?{query}" if query else path
        self.headers = dict(headers)
        self.deadline = deadline
        self.session_id: str | None = None
        self.version: str | None = None
        self._next_id = 0

    def _send(self, method: str, message: dict[str, Any] | None = None
              ) -> http.client.HTTPResponse:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        self.connection.timeout = left
        if self.connection.sock is not None:
            self.connection.sock.settimeout(left)
        headers = {**self.headers, "accept": "application/json, text/event-stream",
                   "content-type": "application/json"}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        if self.version is not None:
            headers["mcp-protocol-version"] = self.version
        body = None if message is None else json.dumps(message).encode("utf-8")
        self.connection.request(method, self.path, body=body, headers=headers)
        return self.connection.getresponse()

    def request(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """The result of one request, or ``None`` when the answer is not plain."""
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        response = self._send("POST", message)
        if method == "initialize":
            self.session_id = response.getheader("mcp-session-id")
        kind = (response.getheader("content-type") or "").partition(";")[0].strip().lower()
        if response.status != 200 or kind not in ("application/json", "text/event-stream"):
            response.read(_MAX_BODY)
            return None
        if kind == "application/json":
            answer = json.loads(_bounded_read(response))
        else:
            answer = next((event for event in _events(response) if "method" not in event),
                          None)
            self.connection.close()  # the stream may stay open: the next request reconnects
        if not (isinstance(answer, dict) and answer.get("id") == self._next_id
                and isinstance(answer.get("result"), dict)):
            return None
        result: dict[str, Any] = answer["result"]
        return result

    def notify(self, method: str) -> bool:
        """Send a notification; whether the server took it."""
        response = self._send("POST", {"jsonrpc": "2.0", "method": method})
        response.read(_MAX_BODY)
        return 200 <= response.status < 300

    def close(self) -> None:
        """End the session on the server (as the SDK's client does) and the connection."""
        import http.client

        try:
            if self.session_id is not None:
                self._send("DELETE").read(_MAX_BODY)
        except (OSError, http.client.HTTPException):  # a courtesy: never an error
            pass
        finally:
            self.connection.close()


def _bounded_read(response: http.client.HTTPResponse) -> bytes:
    data = response.read(_MAX_BODY + 1)
    if len(data) > _MAX_BODY:
        raise ValueError("an answer larger than the bound")
    return data


def _events(response: http.client.HTTPResponse) -> Iterator[dict[str, Any]]:
    """The JSON-RPC messages of an event stream, up to the first that is not a
    notification (a request of the server's, or the answer), within the byte bound."""
    data: list[str] = []
    read = 0
    while True:
        line = response.readline(_MAX_BODY)
        read += len(line)
        if not line or read > _MAX_BODY:
            return
        text = line.decode("utf-8").rstrip("\r\n")
        if text.startswith("data:"):
            data.append(text[5:].removeprefix(" "))
        elif not text and data:
            payload = "\n".join(data).strip()
            data = []
            if not payload:  # an event that only primes the stream for resumption
                continue
            message = json.loads(payload)
            if not isinstance(message, dict):
                return
            yield message
            if "method" not in message or "id" in message:
                return
