"""MCP servers as targets: ``mcp:COMMAND [ARGS...]`` starts a server over stdio,
``http://...``/``https://...`` reaches one over streamable HTTP, or the older HTTP+SSE
transport (:meth:`McpConnection.open` says when) (headers from
``AGENTFORGE_MCP_HEADERS``, a JSON object, and :class:`McpOptions`, never printed); their
tools join the others.

The command is split as a shell would split it (``shlex``; no shell runs it), started in
the target's base directory (or :attr:`McpOptions.cwd`) with the caller's environment
(minus ``AGENTFORGE_TOOLS``, so an ``agentforge serve`` without targets cannot start itself
again) plus :attr:`McpOptions.env`, and spoken to with the official ``mcp`` SDK client (a
streamable-HTTP server that answers plainly is listed without it:
:mod:`~agentforge_cli.integrations.mcp.client.plain_listing`). Its
tools come from ``tools/list`` (every page) and keep the server's names, descriptions,
``inputSchema``, ``outputSchema``, title, annotations and ``execution`` (a tool the SDK's
types refuse is left out and reported, see :func:`load_mcp_tools`; one that must be
called as a task is refused when called); calling one sends ``tools/call``
with the arguments as given (the server binds them) and returns a :class:`McpToolResult`
(the text, plus the content blocks and ``structuredContent`` as the server sent them).

The core's executors are synchronous, so each connection runs in an event loop of its own
in a background thread (an anyio blocking portal). A connection lives until the process
exits (``atexit`` closes it: the SDK ends the server, escalating to a kill) or until
:func:`close_all`. The server's standard error goes to a temporary file; its last lines are
quoted when the server fails. Start-up waits at most ``timeout`` seconds (default
:data:`DEFAULT_TIMEOUT`, or ``AGENTFORGE_MCP_TIMEOUT``); calls wait at most the caller's
``timeout`` when one is given, else :attr:`McpOptions.call_timeout`
(:data:`DEFAULT_CALL_TIMEOUT`).

Failures raise :class:`~agentforge_cli.errors.TargetError` (exit 3 on the command line): a
command that does not start, a server that exits, writes something other than MCP or does
not answer in time, an HTTP endpoint that answers with an error status (quoted with the
URL, never the headers); :class:`~agentforge_cli.errors.TargetConfigError` for an empty
command or a missing SDK.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentforge_cli.core.bind.argument_explanation import ArgumentExplanation, sent_explanation
from agentforge_cli.core.define.spec import (
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolSpecification,
)
from agentforge_cli.core.observe.masking import (
    mask_command,
    mask_target,
    mask_values,
    secret_values,
)
from agentforge_cli.core.run.call_policy import CallPolicy
from agentforge_cli.errors import (
    MCPUnavailableError,
    ServerCallError,
    TargetConfigError,
    TargetError,
    ToolErrorAnswer,
)

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "HEADERS_VAR",
    "PREFIX",
    "TASK_REQUIRED",
    "TASK_REQUIRED_TEXT",
    "TIMEOUT_VAR",
    "McpConnection",
    "McpOptions",
    "McpToolExecutor",
    "McpToolResult",
    "SkippedTool",
    "close_all",
    "is_mcp_target",
    "load_mcp_tools",
    "task_required",
    "tool_specification",
]

PREFIX = "mcp:"
_URL_PREFIXES = ("http://", "https://")
TIMEOUT_VAR = "AGENTFORGE_MCP_TIMEOUT"
HEADERS_VAR = "AGENTFORGE_MCP_HEADERS"
DEFAULT_TIMEOUT = 10.0
"""Seconds a server may take to start and answer ``initialize`` and ``tools/list``."""
DEFAULT_CALL_TIMEOUT = 60.0
"""Seconds a ``tools/call`` may take unless the command says otherwise (``--timeout``)."""
_STDERR_LINES = 10
_INSTALL_HINT = ("MCP targets need the official MCP SDK: in a clone of agentforge run "
                 "`pip install '.[mcp]'` (or `pip install mcp`)")
_CONNECTION_CLOSED = -32000  # the SDK's JSON-RPC error code for a closed connection
_METHOD_NOT_FOUND = -32601  # what a server answers a task-only tool called without a task
_EXIT_WAIT = 2.0  # seconds a server that closed the connection gets to exit
MAX_PAGES = 1000
"""Pages of ``tools/list`` read before a server that keeps paging is given up on."""
_OPEN: list[McpConnection] = []
_HTTP_HINTS = {
    "HTTP 401": "send the credentials it expects with --header, e.g. --header "
                "'Authorization: Bearer ...' (or AGENTFORGE_MCP_HEADERS)",
    "HTTP 404": "nothing is served at this path: a streamable HTTP endpoint is usually at "
                "/mcp, one of the older HTTP+SSE transport at /sse (agentforge speaks both, "
                "and tried both here)",
}
_TRY_SSE_ON = (400, 404, 405)
"""HTTP statuses of a refused POST after which a URL is tried over HTTP+SSE (the
protocol's advice for clients that support older servers)."""
_SSE_READ = 300.0  # the SDK's default wait for the next event of an SSE stream
_SSE_FOREVER = 24 * 3600.0  # ... when calls have no time limit


def _names_sse(url: str) -> bool:
    """Whether the URL's path ends in ``/sse``, where HTTP+SSE servers serve."""
    from urllib.parse import urlsplit

    return urlsplit(url).path.rstrip("/").endswith("/sse")


@dataclass(frozen=True, kw_only=True, slots=True)
class McpOptions:
    """How to reach the MCP servers of a command (``--header``, ``--env``, ``--cwd``).

    The values may be secrets: they are left out of ``repr`` and never printed.
    """

    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    """HTTP headers for ``http(s)://`` targets; they win over ``AGENTFORGE_MCP_HEADERS``
    key by key (names compare case-insensitively)."""
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Variables added to the environment of ``mcp:`` servers."""
    cwd: Path | None = None
    """The working directory of ``mcp:`` servers (default: the target's base directory)."""
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT
    """Seconds each ``tools/call`` may take (``None``: no limit); a command's ``timeout``
    wins."""
    on_skipped: Callable[[SkippedTool], None] | None = None
    """Receives each tool a server lists that cannot be used (see :func:`load_mcp_tools`)."""


@dataclass(frozen=True, slots=True)
class SkippedTool:
    """A tool of a ``tools/list`` answer that agentforge leaves out: the SDK's types
    refuse it (an ``inputSchema`` that is not an object schema, no name...)."""

    server: str
    """The server, as messages name it (a URL masked, or the command in backquotes)."""
    name: str
    """The tool's name, or ``#N`` (its place in the listing) when it has none."""
    reason: str
    """Why, e.g. ``inputSchema.type: Input should be 'object'``."""

    def __str__(self) -> str:
        return f"tool {self.name!r} of MCP server {self.server}: {self.reason}"


TASK_REQUIRED = "required"
"""The ``execution.taskSupport`` of a tool that must be called as a task."""


def task_required(specification: ToolSpecification) -> bool:
    """Whether the MCP tool must be called as a task (``execution.taskSupport:
    "required"``), which agentforge cannot do yet."""
    execution = specification.execution or {}
    return execution.get("taskSupport") == TASK_REQUIRED


TASK_REQUIRED_TEXT = ('it must be called as an MCP task (execution.taskSupport: '
                      '"required"), which agentforge cannot do yet')
"""Why a task-only tool cannot be called."""


def is_mcp_target(spec: str) -> bool:
    """Whether ``spec`` names an MCP server (``mcp:COMMAND ...``, ``http(s)://...``)."""
    return spec.startswith((PREFIX, *_URL_PREFIXES))


def _is_url(spec: str) -> bool:
    return spec.startswith(_URL_PREFIXES)


def _headers(given: Mapping[str, str] | None = None) -> dict[str, str]:
    """The headers of ``AGENTFORGE_MCP_HEADERS``, then ``given`` (which wins per name,
    compared case-insensitively)."""
    merged = _env_headers()
    for name, value in (given or {}).items():
        for known in [key for key in merged if key.lower() == name.lower()]:
            del merged[known]
        merged[name] = value
    return merged


def _env_headers() -> dict[str, str]:
    """The HTTP headers of ``AGENTFORGE_MCP_HEADERS`` (a JSON object of strings)."""
    import json

    text = os.environ.get(HEADERS_VAR, "").strip()
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        # the value may hold a secret: never quote it
        raise TargetConfigError(f"{HEADERS_VAR} must be a JSON object of strings",
                                hint=f"""e.g. {HEADERS_VAR}='{{"Authorization": "Bearer ..."}}'""")
    return dict(value)


def _url_checked(spec: str) -> None:
    """Refuse a URL that cannot be parsed (brackets, a port that is not a number or out
    of range) before anything tries to reach it."""
    from urllib.parse import urlsplit

    try:
        urlsplit(spec).port  # noqa: B018 (parsed for its errors)
    except ValueError as exc:
        raise TargetConfigError(f"target {mask_target(spec)!r} is not a valid URL: {exc}",
                                hint="write it as http(s)://HOST[:PORT]/PATH, an IPv6 "
                                     "host in brackets") from None


def _argv(spec: str) -> list[str]:
    import shlex

    try:
        argv = shlex.split(spec[len(PREFIX):])
    except ValueError as exc:
        raise TargetConfigError(f"cannot read the command of target {mask_target(spec)!r}: "
                                f"{exc}") from exc
    if not argv:
        raise TargetConfigError(f"target {mask_target(spec)!r} names no command",
                                hint="write the server's command after mcp:, e.g. "
                                     "'mcp:python -m mcp_server_time'")
    return argv


def _startup_timeout(timeout: float | None) -> float:
    if timeout is not None:
        return timeout
    text = os.environ.get(TIMEOUT_VAR, "").strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise TargetConfigError(f"{TIMEOUT_VAR} must be a positive number of seconds, "
                                f"got {text!r}")
    return value


def _innermost(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (anyio task groups wrap what they raise)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _http_status(response: Any) -> str:
    """``HTTP 401 Unauthorized``: the code and its standard phrase, never the server's own
    reason phrase (it may echo a header), a header or the body."""
    from http import HTTPStatus

    code = response.status_code
    try:
        return f"HTTP {code} {HTTPStatus(code).phrase}"
    except ValueError:
        return f"HTTP {code}"


def _describe(exc: BaseException) -> str:
    exc = _innermost(exc)
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if getattr(exc, "code", None) == _CONNECTION_CLOSED:
        return "it exited or closed its standard output"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _not_mcp(exc: BaseException) -> str:
    """What a stdout line that is not JSON-RPC held (the SDK's parse error keeps it)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            return repr(errors()[0]["input"])[:120]
        except (LookupError, TypeError, ValueError):
            pass
    return str(exc).splitlines()[0][:120]


class _QuietParseErrors:
    """Drops the SDK's traceback for a stdout line that is not JSON-RPC: the error
    agentforge raises quotes the line."""

    @staticmethod
    def filter(record: Any) -> bool:
        return not str(record.msg).startswith("Failed to parse JSONRPC message")


class McpConnection:
    """One running MCP server and the SDK's client session to it, used synchronously."""

    def __init__(self, spec: str, argv: list[str], *, cwd: Path, timeout: float,
                 call_timeout: float | None = None,
                 headers: dict[str, str] | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.spec = spec
        self.argv = argv
        self.headers = headers or {}
        self.env = dict(env or {})
        self.cwd = cwd
        self.timeout = timeout
        self.call_timeout = call_timeout
        self._problems: list[BaseException] = []  # lines on stdout that are not MCP
        self._refused: str | None = None  # the first HTTP error status, e.g. HTTP 401 ...
        self._refused_code: int | None = None  # ... and its code
        self.sse = _is_url(spec) and _names_sse(spec)
        """Whether the URL is spoken to over the older HTTP+SSE transport."""
        self._stack: Any = None
        self._session: Any = None
        self._sorter: Any = None  # the session's dispatcher (mcp_listing.tool_sorter)
        self._portal: Any = None
        self._stderr: Any = None
        self._process: Any = None  # the stdio server's process (see mcp_process)
        self._died: str | None = None  # how the server died during a call
        self._listed_plainly = False  # listed without the SDK: its session opens at a call
        self._opening = threading.Lock()
        self.skipped: list[SkippedTool] = []
        """The tools its ``tools/list`` held that cannot be used (set by :meth:`open`)."""

    @property
    def label(self) -> str:
        """The URL (its credentials masked), or the command in backquotes, for messages
        (never the headers)."""
        if _is_url(self.spec):
            return mask_target(self.spec)
        return f"`{' '.join(mask_command(self.spec[len(PREFIX):].split()))}`"

    # -- start and stop -------------------------------------------------------------------

    def open(self) -> list[dict[str, Any]]:
        """Start the server, initialize the session and return its tools (the JSON of
        each ``tools/list`` entry).

        A URL is spoken to over streamable HTTP, or over the older HTTP+SSE transport when
        its path ends in ``/sse`` or its POST is refused with HTTP 400, 404 or 405 and a GET
        of it opens an event stream (tried once; if it fails too, the first error stands).
        A streamable-HTTP server that answers plainly is listed without the SDK, whose
        session then opens at the first call (:meth:`_list_plainly`).

        Raises:
            TargetError: The server does not start, exits, does not speak MCP or does not
                answer within the timeout (the connection is closed again).
        """
        if _is_url(self.spec) and not self.sse:
            tools = self._list_plainly()
            if tools is not None:
                return tools
        return self._open_session()

    def _open_session(self) -> list[dict[str, Any]]:
        """:meth:`open` through the SDK's session."""
        try:
            return self._open()
        except TargetError as error:
            if self.sse or self._refused_code not in _TRY_SSE_ON:
                raise
            self.sse, self._refused, self._refused_code = True, None, None
            self._problems.clear()
            try:
                return self._open()
            except TargetError:
                raise error from None

    def _list_plainly(self) -> list[dict[str, Any]] | None:
        """The tools, listed without importing the SDK when the server answers plainly
        (:mod:`~agentforge_cli.integrations.mcp.client.plain_listing`); ``None`` otherwise."""
        from agentforge_cli import __version__
        from agentforge_cli.integrations.mcp.client.plain_listing import (
            Unanswered,
            list_tools_plainly,
        )

        try:
            tools = list_tools_plainly(self.spec, self.headers, self.timeout, __version__,
                                       MAX_PAGES)
        except Unanswered:
            raise self._error("did not answer", TimeoutError(), self.timeout) from None
        if tools is not None:
            self._listed_plainly = True
            _register(self)
        return tools

    def _open(self) -> list[dict[str, Any]]:
        import contextlib
        import tempfile

        try:
            from anyio.from_thread import start_blocking_portal
        except ImportError as exc:  # anyio comes with the SDK
            raise MCPUnavailableError(f"cannot use target {self.label}: the mcp package is "
                                      "not installed", hint=_INSTALL_HINT) from exc
        # lives as long as the connection: close() closes it
        self._stderr = tempfile.TemporaryFile(  # noqa: SIM115
            "w+", encoding="utf-8", errors="replace")
        self._stack = contextlib.ExitStack()
        try:
            self._portal = self._stack.enter_context(start_blocking_portal())
            self._session = self._stack.enter_context(
                self._portal.wrap_async_context_manager(self._connect()))
            tools: list[dict[str, Any]] = self._portal.call(self._bounded, self._list_tools,
                                                            self.timeout)
            self.skipped = [SkippedTool(self.label, name, reason)
                            for name, reason in self._sorter.skipped]
        except TargetError:
            self.close()
            raise
        except BaseException as exc:
            what = "did not answer" if _is_url(self.spec) else "did not start"
            if _too_large(exc):  # it started, and answered too much
                what = "cannot be listed"
            error = self._error(what, exc, self.timeout)
            self.close()
            raise error from None
        _register(self)
        return tools

    def close(self) -> None:
        """End the session and the server (idempotent)."""
        import contextlib

        self._listed_plainly = False
        self._portal = self._session = None
        stack, self._stack = self._stack, None
        if stack is not None:
            with contextlib.suppress(BaseException):  # the server is gone either way
                stack.close()
        if self in _OPEN:
            _OPEN.remove(self)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _connect(self) -> Any:
        from contextlib import asynccontextmanager

        @asynccontextmanager
        async def connect() -> Any:
            import anyio
            from mcp import ClientSession

            async def on_message(message: Any) -> None:
                if isinstance(message, Exception):  # a stdout line that is not JSON-RPC
                    self._problems.append(message)

            from mcp import types

            from agentforge_cli import __version__
            from agentforge_cli.integrations.mcp.client.listing import tool_sorter

            me = types.Implementation(name="agentforge", version=__version__)
            async with self._transport() as (read, write):
                self._sorter = tool_sorter(read, write)
                async with ClientSession(dispatcher=self._sorter, message_handler=on_message,
                                         client_info=me) as session:
                    self._sorter.version = lambda: session.protocol_version
                    with anyio.fail_after(self.timeout):
                        await session.initialize()
                    yield session

        return connect()

    def _transport(self) -> Any:
        """The SDK's transport: streamable HTTP for a URL, else the command over stdio."""
        from contextlib import asynccontextmanager

        @asynccontextmanager
        async def transport() -> Any:
            import logging

            if self.sse:
                from mcp.client.sse import sse_client

                # the event stream stays open between calls: a call may wait that long
                read = max(_SSE_READ, self.call_timeout or _SSE_FOREVER, self.timeout)
                async with sse_client(self.spec, headers=self.headers, timeout=self.timeout,
                                      sse_read_timeout=read,
                                      httpx_client_factory=self._http_client) as streams:
                    yield streams
                return
            if _is_url(self.spec):
                from mcp.client.streamable_http import streamable_http_client
                from mcp.shared._httpx_utils import create_mcp_http_client

                async with create_mcp_http_client(headers=self.headers) as client:
                    client.event_hooks["response"].append(self._note_status)
                    async with streamable_http_client(self.spec, http_client=client) as streams:
                        yield streams
                return
            from mcp.client.stdio import StdioServerParameters, stdio_client

            env = {key: value for key, value in os.environ.items()
                   if key != "AGENTFORGE_TOOLS"}
            env.update(self.env)
            logging.getLogger("mcp.client.stdio").addFilter(_QuietParseErrors)
            params = StdioServerParameters(command=self.argv[0], args=self.argv[1:],
                                           env=env, cwd=str(self.cwd))
            from agentforge_cli.integrations.mcp.client.process import capturing

            with capturing(self._keep_process):
                async with stdio_client(params, errlog=self._stderr) as streams:
                    yield streams

        return transport()

    def _keep_process(self, process: Any) -> None:
        self._process = process

    def signal_server(self, signum: int) -> None:
        """Send ``signum`` to the server's process (``mcp:`` targets; nothing for a URL or
        a process gone)."""
        pid = getattr(self._process, "pid", None)
        if isinstance(pid, int):
            with contextlib.suppress(OSError):
                os.kill(pid, signum)

    def _http_client(self, headers: dict[str, str] | None = None, timeout: Any = None,
                     auth: Any = None) -> Any:
        """The SDK's HTTP client for the SSE transport, noting error statuses."""
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
        client.event_hooks["response"].append(self._note_status)
        return client

    async def _note_status(self, response: Any) -> None:
        """Keep the first HTTP error status of a request (a POST; over streamable HTTP the
        optional event stream's GET may be refused, over SSE it is the connection): the
        SDK's own error does not name it."""
        if (response.status_code >= 400 and self._refused is None
                and (response.request.method == "POST" or self.sse)):
            self._refused = _http_status(response)
            self._refused_code = response.status_code

    # -- requests -------------------------------------------------------------------------

    @staticmethod
    async def _bounded(func: Any, timeout: float | None, *args: Any) -> Any:
        import anyio

        with anyio.fail_after(timeout):
            return await func(*args)

    async def _list_tools(self) -> list[dict[str, Any]]:
        from mcp import types

        tools: list[dict[str, Any]] = []
        cursor = None
        for _ in range(MAX_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await self._session.list_tools(params=params)
            tools.extend(map(_as_json, page.tools))
            cursor = page.next_cursor
            if not cursor:
                return tools
        raise TargetError(f"MCP server {self.label} keeps paging past {MAX_PAGES} pages of "
                          "tools/list (it always answers with a nextCursor)")

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Send ``tools/call`` and return the SDK's ``CallToolResult``.

        Raises:
            ServerCallError: The server died during the call (or an earlier one), or did
                not answer within the call timeout.
            TargetError: The connection is closed, or failed otherwise.
        """
        if self._listed_plainly:  # the SDK's session, from the first call on
            with self._opening:  # calls from several threads open it once
                if self._listed_plainly:
                    try:
                        self._open_session()
                    finally:  # opened, or failed (closing): the next call tries again
                        self._listed_plainly = self._stack is None
        from mcp.shared.exceptions import MCPError

        if self._portal is None:
            raise TargetError(f"MCP server {self.label} is closed")
        if self._died is not None:
            raise ServerCallError(f"MCP server {self.label} is gone: it {self._died}",
                                  outcome="gone", hint=self._stderr_tail())
        try:
            return self._portal.call(self._bounded, self._session.call_tool,
                                     self.call_timeout, name, arguments)
        except MCPError as exc:
            if exc.code != _CONNECTION_CLOSED:
                raise
            raise self._death(name) from None
        except BaseException as exc:
            error = self._error(f"failed during tools/call {name}", exc, self.call_timeout)
            if isinstance(_innermost(exc), TimeoutError):
                raise ServerCallError(error.message, outcome="hung", hint=error.hint) from None
            raise error from None

    def _death(self, name: str) -> ServerCallError:
        """The server closed the connection during ``tools/call name``: how it ended (its
        exit status, once it has exited) and the end of its standard error."""
        import time

        from agentforge_cli.integrations.mcp.client.process import exit_status

        status = None
        if self._process is not None:
            deadline = time.monotonic() + _EXIT_WAIT
            while (status := exit_status(self._process.returncode)) is None and (
                    time.monotonic() < deadline):
                time.sleep(0.02)
        if status is not None:
            self._died = f"died during tools/call {name}: {status}"
        else:
            self._died = (f"closed the connection during tools/call {name}" if _is_url(
                self.spec) else f"closed its standard output during tools/call {name}")
        return ServerCallError(f"MCP server {self.label} {self._died}", outcome="died",
                               hint=self._stderr_tail())

    def _error(self, what: str, exc: BaseException, bound: float | None) -> TargetError:
        reason = _describe(exc)
        if isinstance(_innermost(exc), TimeoutError) and bound is not None:
            reason = f"no answer within {bound:g} s"
        elif self._refused is not None:
            reason = f"{self._refused} ({reason})"
            if self._refused.startswith(("HTTP 401", "HTTP 404")):
                what = ("needs authorization" if self._refused.startswith("HTTP 401")
                        else what)
                return TargetError(f"MCP server {self.label} {what}: {reason}",
                                   hint=_HTTP_HINTS[self._refused[:8]])
        if self._problems:
            reason += ("; it wrote something other than MCP on standard output: "
                       f"{_not_mcp(self._problems[0])}")
        return TargetError(f"MCP server {self.label} {what}: {reason}",
                           hint=self._stderr_tail())

    def _stderr_tail(self) -> str | None:
        if self._stderr is None:
            return None
        try:
            self._stderr.flush()
            self._stderr.seek(0)
            lines = [line.rstrip() for line in self._stderr.read().splitlines()
                     if line.strip()]
        except (OSError, ValueError):
            return None
        if not lines:
            return None
        # what the server was given (--env, --header values) never comes back out
        tail = mask_values("\n  ".join(lines[-_STDERR_LINES:]),
                           secret_values(self.env, self.headers))
        return "the server's standard error ended with:\n  " + tail


def _register(connection: McpConnection) -> None:
    if not _OPEN:
        import atexit

        atexit.unregister(close_all)
        atexit.register(close_all)
        _stop_servers_on_sigterm()
    _OPEN.append(connection)


def _stop_servers_on_sigterm() -> None:
    """SIGTERM ends the process as its default handler would, but first passes SIGTERM on
    to the ``mcp:`` servers started: one busy in a call is not left running (``atexit``
    does not run on a signal). Only where the default handler is in place (or the shared
    one of :mod:`~agentforge_cli.core.run.sigterm`, which ends the process the same way)."""
    from agentforge_cli.core.run.sigterm import before_sigterm

    before_sigterm(_signal_servers)


def _signal_servers() -> None:
    import signal

    for connection in list(_OPEN):
        connection.signal_server(signal.SIGTERM)


def close_all() -> None:
    """Close every open MCP connection, newest first (also run at exit)."""
    while _OPEN:
        _OPEN[-1].close()


class McpToolResult(ToolExecutionResult):
    """A :class:`ToolExecutionResult` that also keeps what the server sent: ``arguments``
    (the object sent), ``content`` (the blocks as plain JSON) and ``structured_content``
    (``structuredContent``, or ``None``). It compares as ``(text, is_error)``."""

    arguments: dict[str, Any]
    content: list[dict[str, Any]]
    structured_content: dict[str, Any] | None


def _result(text: str, is_error: bool, arguments: dict[str, Any], answer: Any
            ) -> McpToolResult:
    result = McpToolResult(text, is_error)
    result.arguments = arguments
    result.content = [block.model_dump(mode="json", by_alias=True, exclude_none=True)
                      for block in answer.content]
    result.structured_content = answer.structured_content
    return result


class McpToolExecutor:
    """Runs one tool of an MCP server: ``tools/call`` with the request's arguments.

    The arguments are parsed leniently (as for local tools) and sent as given; the result's
    blocks are rendered one per line (:mod:`~agentforge_cli.core.run.content_blocks`) and
    its ``isError`` kept (an :class:`McpToolResult`). Its :attr:`policy` bounds the
    arguments and the result as a Python tool's, and answers a failed call (the call's
    time limit is the connection's).
    """

    __slots__ = ("connection", "name", "policy", "specification")

    def __init__(self, connection: McpConnection, specification: ToolSpecification, *,
                 propagate_execution_errors: bool = False) -> None:
        self.connection = connection
        self.specification = specification
        self.name = specification.name
        self.policy = CallPolicy(propagate_execution_errors=propagate_execution_errors)
        """The limits and the error switch of every call."""

    @property
    def propagate_execution_errors(self) -> bool:
        """Raise a failed call (``ToolErrorAnswer``, ``ToolExecutionError``)."""
        return self.policy.propagate_execution_errors

    def __repr__(self) -> str:
        return f"<McpToolExecutor {self.name} of {mask_target(self.connection.spec)}>"

    def execute(self, request: ToolExecutionRequest, memory_id: object = None
                ) -> ToolExecutionResult:
        from mcp.shared.exceptions import MCPError

        from agentforge_cli.core.bind.arguments import parse_arguments
        from agentforge_cli.core.run.content_blocks import blocks_text
        from agentforge_cli.integrations.mcp.client.framing import TOO_LARGE_CODE

        policy = self.policy
        arguments = parse_arguments(request.arguments, max_chars=policy.max_argument_chars,
                                    max_depth=policy.max_depth)
        if task_required(self.specification):  # the server would answer -32601
            return self._failed(f"Error executing tool {self.name}: "
                                f"{TASK_REQUIRED_TEXT}", _METHOD_NOT_FOUND)
        try:
            result = self.connection.call(self.name, arguments)
        except MCPError as exc:  # a JSON-RPC error answer: the call failed
            if exc.code == TOO_LARGE_CODE:  # an answer past the limit of a line
                return self._too_large(f"an answer of {exc.error.data} bytes")
            return self._failed(f"Error executing tool {self.name}: {exc.message}", exc.code)
        text = blocks_text(block.model_dump(mode="json", by_alias=True, exclude_none=True)
                            for block in result.content)
        limit = policy.max_result_chars  # the limit a Python tool's result has
        if limit is not None and len(text) > limit:
            return self._too_large(f"{len(text)} characters")
        if result.is_error:
            if policy.propagate_execution_errors:
                raise ToolErrorAnswer(text)
            return _result(text, True, arguments, result)
        return _result(text, False, arguments, result)

    def _too_large(self, size: str) -> ToolExecutionResult:
        return self.policy.failure(self.name, self.policy.too_large(self.name, size))

    def _failed(self, text: str, code: int) -> ToolExecutionResult:
        return self.policy.failure(self.name, ToolErrorAnswer(text, code=code))

    def explain_arguments(self, arguments: str | dict[str, Any] | None
                          ) -> ArgumentExplanation:
        """``--explain``: the server binds the arguments; what it is sent, per parameter."""
        return sent_explanation(
            self.specification.parameters, arguments, bound_by="bound by the MCP server",
            schema_label="inputSchema",
            lead=f"{self.name} is served by MCP server {self.connection.label}: agentforge "
                 "parses the arguments and sends the object as it is; the server binds it "
                 "(no coercion here).")


def _too_large(exc: BaseException) -> bool:
    """Whether ``exc`` is the answer given for a line past the limit of a message."""
    from agentforge_cli.integrations.mcp.client.framing import TOO_LARGE_CODE

    return getattr(getattr(_innermost(exc), "error", None), "code", None) == TOO_LARGE_CODE


def _as_json(tool: Any) -> dict[str, Any]:
    """The SDK's ``Tool`` as the JSON of a ``tools/list`` entry."""
    json: dict[str, Any] = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json


def tool_specification(tool: Mapping[str, Any] | Any) -> ToolSpecification:
    """An MCP tool of a ``tools/list`` answer (its JSON, or the SDK's ``Tool``) as a
    specification."""
    if not isinstance(tool, Mapping):
        tool = _as_json(tool)
    return ToolSpecification(name=tool["name"], description=tool.get("description") or "",
                             parameters=tool["inputSchema"], title=tool.get("title"),
                             annotations=tool.get("annotations") or None,
                             output_schema=tool.get("outputSchema"),
                             execution=tool.get("execution") or None)


def _refuse_duplicates(connection: McpConnection, tools: list[Any]) -> None:
    """Two tools of one name: the server cannot tell which one a call means."""
    first: dict[str, int] = {}
    for index, tool in enumerate(tools, 1):
        name = tool["name"]
        if name in first:
            connection.close()
            raise TargetError(f"MCP server {connection.label} lists two tools named "
                              f"{name!r}: #{first[name]} and #{index} of its "
                              "tools/list", hint="a call names a tool only by its name: "
                                                 "the server must give each tool its own")
        first[name] = index


def _report_skipped(connection: McpConnection, options: McpOptions,
                    skip_problems: Callable[[str], None] | None) -> None:
    """Give each unusable tool to ``options.on_skipped``, else to ``skip_problems`` as a
    message; with neither, refuse the server naming them."""
    for skipped in connection.skipped:
        if options.on_skipped is not None:
            options.on_skipped(skipped)
        elif skip_problems is not None:
            skip_problems(str(skipped))
    if connection.skipped and options.on_skipped is None and skip_problems is None:
        connection.close()
        raise TargetError(f"MCP server {connection.label} lists tools that cannot be used: "
                          + "; ".join(f"{s.name!r} ({s.reason})" for s in connection.skipped),
                          hint="the command line leaves such tools out and warns")


def load_mcp_tools(spec: str, base: Path, *, timeout: float | None = None,
                   logging: bool = False, propagate_execution_errors: bool = False,
                   options: McpOptions | None = None,
                   skip_problems: Callable[[str], None] | None = None
                   ) -> dict[ToolSpecification, Any]:
    """Start the server ``spec`` names and return its tools and their executors.

    ``timeout`` bounds start-up and each call (default: see the module docstring, and
    :attr:`McpOptions.call_timeout` for the calls). ``options`` adds headers
    (``http(s)://``), or environment variables and a working directory (``mcp:``).

    A tool of the server's ``tools/list`` that the SDK's types refuse is left out, the
    others load: each goes to :attr:`McpOptions.on_skipped` as a :class:`SkippedTool`,
    else to ``skip_problems`` as a message; with neither, the server is refused (a
    ``TargetError`` naming them).

    Raises:
        TargetConfigError: An empty or malformed command, or the SDK is not installed.
        TargetError: The server cannot be started or spoken to.
    """
    import importlib.util

    if _is_url(spec):
        _url_checked(spec)
    argv = [] if _is_url(spec) else _argv(spec)
    if importlib.util.find_spec("mcp") is None:  # found, not imported: that takes a while
        raise MCPUnavailableError(f"cannot use target {mask_target(spec)!r}: the mcp package is "
                                  "not installed", hint=_INSTALL_HINT)
    options = options or McpOptions()
    url = _is_url(spec)
    connection = McpConnection(spec, argv, cwd=options.cwd or base,
                               timeout=_startup_timeout(timeout),
                               call_timeout=options.call_timeout if timeout is None else timeout,
                               headers=_headers(options.headers) if url else None,
                               env=None if url else options.env)
    table: dict[ToolSpecification, Any] = {}
    tools = connection.open()
    _refuse_duplicates(connection, tools)
    _report_skipped(connection, options, skip_problems)
    for tool in tools:
        specification = tool_specification(tool)
        executor: Any = McpToolExecutor(connection, specification,
                                        propagate_execution_errors=propagate_execution_errors)
        if logging:
            from agentforge_cli.core.observe.calllog import LoggingToolExecutor

            executor = LoggingToolExecutor(executor)
        table[specification] = executor
    return table
