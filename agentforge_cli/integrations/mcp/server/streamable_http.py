"""``agentforge serve --transport http``: the MCP server over streamable HTTP.

The server is :func:`~agentforge_cli.integrations.mcp.server.tool_server.build_server`'s, mounted at
``/mcp`` with the SDK's streamable HTTP app and run by uvicorn (both come with the ``mcp``
extra). Against DNS rebinding (as the MCP specification asks), every request passes
:class:`HeaderGuard` first: a ``Host`` that does not name this server (with its port), or
an ``Origin`` not on the allowed list, is refused with ``403``. On a loopback address the
names ``127.0.0.1``, ``localhost`` and ``[::1]`` are accepted; on a wildcard address
(``0.0.0.0``, ``::``) the machine's own names and addresses too; ``--allow-host`` adds
names (behind a proxy). Allowed browser origins get CORS answers (preflight included).

An answer ends with its last message: one that streams nothing is a JSON body
(:mod:`~agentforge_cli.integrations.mcp.server.json_answers`), and a plain ``tools/call``
is answered in front of the SDK
(:mod:`~agentforge_cli.integrations.mcp.server.plain_calls`).

The socket is bound before serving, so a taken port is a :class:`ListenError` and port
``0`` picks a free one; the URL goes to standard error once the server listens. SIGINT
and SIGTERM stop it (uvicorn's handlers), exit 0: open connections get a few seconds to
finish. No client can lock the others out by opening sessions or connections:
:mod:`~agentforge_cli.integrations.mcp.server.http_sessions` bounds sessions per client and in all,
:mod:`~agentforge_cli.integrations.mcp.server.http_connections` how long a request may take to
arrive and how many connections are read at once.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import signal
import socket
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.run.service import ToolService
from agentforge_cli.errors import ListenError
from agentforge_cli.integrations.mcp.server.http_sessions import SessionGuard, SessionLimits

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from agentforge_cli.integrations.config.serve import ServerIdentity

__all__ = ["MCP_PATH", "HeaderGuard", "ListenError", "bind_socket", "build_app", "host_names",
           "machine_names", "run_http"]

MCP_PATH = "/mcp"
"""Where the endpoint is served."""
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_WILDCARDS = ("0.0.0.0", "::", "[::]", "")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CORS_METHODS = "GET, POST, DELETE, OPTIONS"
_CORS_HEADERS = ("content-type", "accept", "authorization", "mcp-session-id",
                 "mcp-protocol-version", "last-event-id")
_SHUTDOWN_GRACE = 3
"""Seconds open connections (an SSE stream, say) get to close on SIGINT/SIGTERM."""


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    return False


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def machine_names() -> set[str]:
    """This machine's names and addresses, as far as the standard library can tell: the
    loopback names, the host name and FQDN, the addresses they resolve to, and the
    addresses outgoing IPv4 and IPv6 traffic leaves from (lower case, IPv6 in brackets)."""
    names = set(_LOOPBACK_NAMES)
    for name in {socket.gethostname(), socket.getfqdn()} - {""}:
        names.add(name)
        with contextlib.suppress(OSError, UnicodeError):
            for *_, address in socket.getaddrinfo(name, None, type=socket.SOCK_STREAM):
                names.add(_url_host(str(address[0]).partition("%")[0]))
    for family, documentation_address in ((socket.AF_INET, "192.0.2.1"),
                                          (socket.AF_INET6, "2001:db8::1")):
        # connecting a UDP socket sends nothing: it only picks the route and its address
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((documentation_address, 9))
            names.add(_url_host(str(probe.getsockname()[0]).partition("%")[0]))
    return {name.lower() for name in names}


def host_names(host: str) -> frozenset[str]:
    """The names a ``Host`` header may carry for a server bound to ``host``: the machine's
    own (:func:`machine_names`) for a wildcard address, the loopback names for a loopback
    one, else ``host`` itself (lower case)."""
    if host in _WILDCARDS:
        return frozenset(machine_names())
    if _is_loopback(host):
        return frozenset(_LOOPBACK_NAMES)
    return frozenset({_url_host(host).lower()})


def _split_host(value: str) -> tuple[str, str | None]:
    """``("name", "port")`` of a ``Host`` value (``port`` ``None`` when left out)."""
    if value.startswith("["):
        name, _, rest = value.partition("]")
        return name + "]", rest[1:] if rest.startswith(":") else None
    name, found, port = value.rpartition(":")
    return (name, port) if found else (value, None)


class HeaderGuard:
    """ASGI middleware refusing (``403``) a foreign ``Host`` or ``Origin`` header, and
    answering CORS for the allowed origins.

    A ``Host`` passes when it is one of :func:`host_names` with the port the request came
    in on (without a port: port 80), or one of ``extra_hosts`` (any port; ``NAME:PORT``:
    that port), compared case-insensitively. An ``Origin`` passes when its host passes
    the same way (scheme ``http`` or ``https``), or when it is one of ``extra_origins``.
    A request without ``Origin`` (a non-browser client) passes the origin check.

    For an allowed ``Origin``, a preflight (``OPTIONS`` with
    ``Access-Control-Request-Method``) is answered ``204`` here, and every other response
    gets ``Access-Control-Allow-Origin`` (that origin) and exposes ``Mcp-Session-Id``.
    """

    def __init__(self, app: ASGIApp, *, host: str, extra_origins: Iterable[str] = (),
                 extra_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.names = host_names(host)
        self.extra_hosts = frozenset(name.lower() for name in extra_hosts)
        self.extra_origins = frozenset(origin.rstrip("/").lower() for origin in extra_origins)

    def host_allowed(self, value: str, port: object, default_port: int = 80) -> bool:
        """Whether ``value`` (``NAME[:PORT]``) names this server reached on ``port``."""
        value = value.lower()
        name, given = _split_host(value)
        if value in self.extra_hosts or name in self.extra_hosts:
            return True
        return name in self.names and (given or str(default_port)) == str(port)

    def origin_allowed(self, origin: str, port: object) -> bool:
        origin = origin.rstrip("/").lower()
        scheme, found, rest = origin.partition("://")
        if origin in self.extra_origins:
            return True
        return (bool(found) and scheme in _DEFAULT_PORTS and "/" not in rest
                and self.host_allowed(rest, port, _DEFAULT_PORTS[scheme]))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        port = (scope.get("server") or (None, None))[1]
        headers = {key.lower(): value.decode("latin-1") for key, value in scope["headers"]}
        origin = headers.get(b"origin")
        refusal = None
        if not self.host_allowed(headers.get(b"host", ""), port):
            refusal = "Invalid Host header"
        elif origin is not None and not self.origin_allowed(origin, port):
            refusal = "Invalid Origin header"
        if refusal:
            from starlette.responses import PlainTextResponse

            await PlainTextResponse(refusal, status_code=403)(scope, receive, send)
            return
        if origin is None:
            await self.app(scope, receive, send)
        elif scope["method"] == "OPTIONS" and b"access-control-request-method" in headers:
            requested = headers.get(b"access-control-request-headers", "")
            await _preflight(origin, requested)(scope, receive, send)
        else:
            await self.app(scope, receive, _with_cors(send, origin))


def _preflight(origin: str, requested: str) -> Any:
    """Answer a CORS preflight of an allowed origin: ``204`` and what it may send (the
    MCP headers, and any header it asks for)."""
    from starlette.responses import Response

    allowed = dict.fromkeys([*_CORS_HEADERS, *(name.strip().lower()
                                              for name in requested.split(",") if name.strip())])
    return Response(status_code=204, headers={
        "Access-Control-Allow-Origin": origin, "Access-Control-Allow-Methods": _CORS_METHODS,
        "Access-Control-Allow-Headers": ", ".join(allowed),
        "Access-Control-Max-Age": "600", "Vary": "Origin"})


def _with_cors(send: Send, origin: str) -> Send:
    """``send``, adding the CORS headers of an allowed ``origin`` to the response."""
    extra = [(b"access-control-allow-origin", origin.encode("latin-1")),
             (b"access-control-expose-headers", b"Mcp-Session-Id"), (b"vary", b"Origin")]

    async def send_with_cors(message: Any) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *extra]}
        await send(message)

    return send_with_cors


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``0``: a free port).

    Raises:
        ListenError: The port is taken or the host cannot be bound, with the reason.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        # the protocol number matters: asyncio turns Nagle off (TCP_NODELAY) only on
        # accepted sockets whose ``proto`` is IPPROTO_TCP, and ``proto`` 0 would leave
        # each response's body waiting for the client's delayed ACK (~40 ms)
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise ListenError(f"cannot listen on {_url_host(host)}:{port}: "
                          f"{exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        reason = "the port is taken" if exc.errno in (98, 48, 10048) else exc.strerror or exc
        raise ListenError(f"cannot listen on {_url_host(host)}:{port}: {reason}") from None
    return sock


def build_app(service: ToolService, *, host: str, allow_origins: Iterable[str] = (),
              allow_hosts: Iterable[str] = (), limits: SessionLimits | None = None,
              identity: ServerIdentity | None = None) -> Any:
    """The ASGI app: the SDK's streamable HTTP app at :data:`MCP_PATH`, its answers sent
    as JSON when nothing streams
    (:class:`~agentforge_cli.integrations.mcp.server.json_answers.JsonAnswers`) and plain
    calls answered without it
    (:class:`~agentforge_cli.integrations.mcp.server.plain_calls.PlainCalls`), behind
    :class:`~agentforge_cli.integrations.mcp.server.http_sessions.SessionGuard` (``limits``),
    :class:`~agentforge_cli.integrations.mcp.server.jsonrpc_ids.RequestIdGuard` and
    :class:`HeaderGuard` (the SDK's own host check is off: the guard does it)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from agentforge_cli.integrations.mcp.server.json_answers import JsonAnswers
    from agentforge_cli.integrations.mcp.server.jsonrpc_ids import RequestIdGuard
    from agentforge_cli.integrations.mcp.server.plain_calls import PlainCalls
    from agentforge_cli.integrations.mcp.server.tool_server import ToolCalls, build_server

    limits = limits or SessionLimits()
    calls = ToolCalls(service)
    # no idle timer in the SDK: it would not see plain calls; SessionGuard ends idle sessions
    app = build_server(service, calls=calls, identity=identity).streamable_http_app(
        streamable_http_path=MCP_PATH, host=host, session_idle_timeout=None,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    answering = PlainCalls(JsonAnswers(app), calls, MCP_PATH)
    return HeaderGuard(RequestIdGuard(SessionGuard(answering, limits)), host=host,
                       extra_origins=allow_origins, extra_hosts=allow_hosts)


def run_http(service: ToolService, *, host: str, sock: socket.socket,
             allow_origins: Iterable[str] = (), allow_hosts: Iterable[str] = (),
             log: bool = False, identity: ServerIdentity | None = None) -> None:
    """Serve ``service`` on the bound ``sock`` until SIGINT or SIGTERM (``log``: the
    call log to stderr, as for stdio; ``identity``: the project's ``serverInfo``). A host
    other than loopback gets a warning on stderr: nothing authenticates the callers."""
    import asyncio

    import uvicorn

    from agentforge_cli.integrations.mcp.server.http_connections import (
        BACKLOG,
        ReadingConnections,
        protocol_class,
        reading_limit,
    )
    from agentforge_cli.integrations.mcp.server.tool_server import _log_to_stderr, _warn

    if log:
        _log_to_stderr()
    url = f"http://{_url_host(host)}:{sock.getsockname()[1]}{MCP_PATH}"
    if not _is_loopback(host):
        where = "every interface of this machine" if host in _WILDCARDS else "that interface"
        print(f"agentforge: warning: {_url_host(host)} exposes the tools without "
              f"authentication to every client that can reach {where}; put a reverse "
              "proxy that checks a token in front of it (see docs/mcp.md)",
              file=sys.stderr, flush=True)
    count = len(service.names)
    reading = ReadingConnections(limit=reading_limit(), say=_warn)

    class _Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            asyncio.get_running_loop().set_exception_handler(reading.exception_handler)
            await super().startup(sockets=sockets)
            if self.started:
                print(f"agentforge: MCP server ({count} tool{'' if count == 1 else 's'}) "
                      f"listening on {url} (Ctrl-C stops)", file=sys.stderr, flush=True)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            reading.close_oldest(len(reading.waiting))  # no request of theirs to finish
            await super().shutdown(sockets=sockets)

    app = build_app(service, host=host, allow_origins=allow_origins, allow_hosts=allow_hosts,
                    identity=identity)
    config = uvicorn.Config(app, http=protocol_class(reading), backlog=BACKLOG,
                            log_config=None, log_level=logging.WARNING, access_log=False,
                            lifespan="on", timeout_graceful_shutdown=_SHUTDOWN_GRACE)
    # uvicorn stops on SIGINT/SIGTERM, then raises the signal again for the old handler:
    # Python's turns SIGINT into KeyboardInterrupt; SIGTERM's, set here, does the same.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            _Server(config).run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
