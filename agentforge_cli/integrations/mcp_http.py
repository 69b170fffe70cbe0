"""``agentforge serve --transport http``: the MCP server over streamable HTTP.

The server is :func:`~agentforge_cli.integrations.mcp_server.build_server`'s, mounted at
``/mcp`` with the SDK's streamable HTTP app and run by uvicorn (both come with the ``mcp``
extra). Against DNS rebinding (as the MCP specification asks), every request passes
:class:`HeaderGuard` first: a ``Host`` other than the bound name and port, or an
``Origin`` not on the allowed list, is refused with ``403``. On a loopback address the
names ``127.0.0.1``, ``localhost`` and ``[::1]`` are all accepted.

The socket is bound before serving, so a taken port is a :class:`ListenError` and port
``0`` picks a free one; the URL goes to standard error once the server listens. SIGINT
and SIGTERM stop it (uvicorn's handlers), exit 0: open connections get a few seconds to
finish.
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

from agentforge_cli.core.service import ToolService

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["MCP_PATH", "HeaderGuard", "ListenError", "bind_socket", "run_http"]

MCP_PATH = "/mcp"
"""Where the endpoint is served."""
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_SHUTDOWN_GRACE = 3
"""Seconds open connections (an SSE stream, say) get to close on SIGINT/SIGTERM."""


class ListenError(OSError):
    """The address cannot be listened on (a taken port, an unknown host)."""


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    return False


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


class HeaderGuard:
    """ASGI middleware refusing (``403``) a foreign ``Host`` or ``Origin`` header.

    Allowed hosts are ``NAME:PORT`` for the bound host's names (the loopback names when
    it is a loopback address) and the port the request came in on; allowed origins are
    ``http://`` and those hosts, plus ``extra_origins``. A request without ``Origin``
    (a non-browser client) passes the origin check.
    """

    def __init__(self, app: ASGIApp, *, host: str, extra_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.names = _LOOPBACK_NAMES if _is_loopback(host) else (_url_host(host),)
        self.extra_origins = frozenset(origin.rstrip("/") for origin in extra_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            port = (scope.get("server") or (None, None))[1]
            hosts = {f"{name}:{port}" for name in self.names}
            if port == 80:
                hosts |= set(self.names)  # a client leaves the default port out
            headers = {key.lower(): value.decode("latin-1") for key, value in scope["headers"]}
            origin = headers.get(b"origin")
            refusal = None
            if headers.get(b"host") not in hosts:
                refusal = "Invalid Host header"
            elif origin is not None and origin.rstrip("/") not in (
                    {f"http://{host}" for host in hosts} | self.extra_origins):
                refusal = "Invalid Origin header"
            if refusal:
                from starlette.responses import PlainTextResponse

                await PlainTextResponse(refusal, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``0``: a free port).

    Raises:
        ListenError: The port is taken or the host cannot be bound, with the reason.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, _, _, _, address = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
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


def build_app(service: ToolService, *, host: str, allow_origins: Iterable[str] = ()) -> Any:
    """The ASGI app: the SDK's streamable HTTP app at :data:`MCP_PATH`, behind
    :class:`HeaderGuard` (the SDK's own host check is off: the guard does it)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from agentforge_cli.integrations.mcp_server import build_server

    app = build_server(service).streamable_http_app(
        streamable_http_path=MCP_PATH, host=host,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    return HeaderGuard(app, host=host, extra_origins=allow_origins)


def run_http(service: ToolService, *, host: str, sock: socket.socket,
             allow_origins: Iterable[str] = (), log: bool = False) -> None:
    """Serve ``service`` on the bound ``sock`` until SIGINT or SIGTERM (``log``: the
    call log to stderr, as for stdio)."""
    import uvicorn

    from agentforge_cli.integrations.mcp_server import _log_to_stderr

    if log:
        _log_to_stderr()
    url = f"http://{_url_host(host)}:{sock.getsockname()[1]}{MCP_PATH}"
    count = len(service.names)

    class _Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                print(f"agentforge: MCP server ({count} tool{'' if count == 1 else 's'}) "
                      f"listening on {url} (Ctrl-C stops)", file=sys.stderr, flush=True)

    config = uvicorn.Config(build_app(service, host=host, allow_origins=allow_origins),
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
