"""One MCP server and the SDK's client session to it, used synchronously
(:class:`McpConnection`).

The core's executors are synchronous, so each connection runs in an event loop of its own
in a background thread (an anyio blocking portal). The transport comes from
:func:`~agentforge_cli.integrations.mcp.client.transports.inference.infer_transport`. A
connection lives until the process exits (``atexit`` closes it: the SDK ends the server,
escalating to a kill) or until
:func:`~agentforge_cli.integrations.mcp.client.lifecycle.close_all`. The server's
standard error goes to a temporary file; its last lines are quoted when the server fails.

The session opens in the protocol era asked for (``--protocol-era``:
:mod:`~agentforge_cli.integrations.mcp.client.eras`); :attr:`McpConnection.agreement` says
what was agreed, and :attr:`McpConnection.shown` names the server with its version.

Failures raise :class:`~agentforge_cli.errors.TargetError`: a command that does not start,
a server that exits, writes something other than MCP, refuses the request that opens the
era or does not answer in time, an HTTP endpoint that answers with an error status
(quoted with the URL, never the headers).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

from agentforge_cli.core.observe.masking import (
    mask_command,
    mask_target,
    mask_values,
    secret_values,
)
from agentforge_cli.errors import (
    MCPUnavailableError,
    ServerCallError,
    TargetConfigError,
    TargetError,
)
from agentforge_cli.integrations.mcp.client.broken_output import broken_output
from agentforge_cli.integrations.mcp.client.eras import (
    DEFAULT_ERA,
    Agreement,
    ProtocolEra,
    refusal,
    supported_versions,
)
from agentforge_cli.integrations.mcp.client.failures import (
    HTTP_HINTS,
    INSTALL_HINT,
    OAUTH_HINT,
    answered_too_much,
    closed,
    describe,
    http_status,
    innermost,
    not_mcp,
)
from agentforge_cli.integrations.mcp.client.lifecycle import forget, register
from agentforge_cli.integrations.mcp.client.listing import MAX_PAGES, SkippedTool, as_json
from agentforge_cli.integrations.mcp.client.server_requests import ClientAnswers
from agentforge_cli.integrations.mcp.client.transports.inference import infer_transport
from agentforge_cli.integrations.mcp.client.transports.sse import SSE
from agentforge_cli.integrations.mcp.client.transports.stdio import PREFIX
from agentforge_cli.integrations.mcp.client.transports.streamable_http import STREAMABLE_HTTP
from agentforge_cli.integrations.mcp.client.urls import is_url

__all__ = ["McpConnection"]

_STDERR_LINES = 10
_EXIT_WAIT = 2.0  # seconds a server that closed the connection gets to exit
_UNANSWERED_PROBE = ("if it is a server of the initialize handshake that leaves "
                     "server/discover unanswered, --protocol-era legacy skips that request")


class McpConnection:
    """One running MCP server and the SDK's client session to it, used synchronously."""

    def __init__(self, spec: str, argv: list[str], *, cwd: Path, timeout: float,
                 call_timeout: float | None = None,
                 headers: dict[str, str] | None = None,
                 env: Mapping[str, str] | None = None,
                 era: ProtocolEra = DEFAULT_ERA, oauth: Any = None,
                 answers: ClientAnswers | None = None) -> None:
        self.spec = spec
        self.argv = argv
        self.headers = headers or {}
        self.env = dict(env or {})
        self.cwd = cwd
        self.timeout = timeout
        self.call_timeout = call_timeout
        self.era: ProtocolEra = era
        self.oauth = oauth
        """The server's :class:`~.oauth.Authorizer` (``None``: no OAuth)."""
        self._asks_oauth = False  # a 401 whose WWW-Authenticate asks for OAuth
        """The protocol era asked for (``auto``: the server's)."""
        self.agreement: Agreement | None = None
        """The protocol agreed with the server, once it answered (kept across sessions)."""
        self.answers = answers or ClientAnswers()
        """What the server's requests are answered, and who hears of its notifications."""
        self.on_list_changed: Callable[[str], None] | None = None
        """Called with the method of each ``notifications/.../list_changed`` the server
        sends (on the connection's own thread); ``None``: they are dropped."""
        self.make_executor: Callable[[Any], Any] | None = None
        """Makes the executor of one of its tools (a ``ToolSpecification``) as its tools'
        were made when it was loaded (``None``: not loaded as a target)."""
        self._opening_error: BaseException | None = None  # the era's first request, refused
        self._problems: list[BaseException] = []  # lines on stdout that are not MCP
        self._refused: str | None = None  # the first HTTP error status, e.g. HTTP 401 ...
        self._refused_code: int | None = None  # ... and its code
        self._refused_answered = False  # ... with a JSON-RPC error of the server's
        self.transport = infer_transport(spec)
        """The transport the server is spoken to over."""
        self._stack: Any = None
        self._session: Any = None
        self._sorter: Any = None  # the session's dispatcher (listing.tool_sorter)
        self._portal: Any = None
        self._stderr: Any = None
        self._process: Any = None  # the stdio server's process (see stdio_process)
        self._died: str | None = None  # how the server died during a call
        self._listed_plainly = False  # listed without the SDK: its session opens at a call
        self._plain: Any = None  # the legacy session a plain listing left open (its owner)
        self._opening = threading.Lock()
        self._replaying: Any = None  # the RequestScript of the replayed call in progress
        self._between: Any = None  # ... and of the time since the last one (its roots)
        self.skipped: list[SkippedTool] = []
        """The tools its ``tools/list`` held that cannot be used (set by :meth:`open`)."""

    @property
    def label(self) -> str:
        """The URL (its credentials masked), or the command in backquotes, for messages
        (never the headers)."""
        if is_url(self.spec):
            return mask_target(self.spec)
        return f"`{' '.join(mask_command(self.spec[len(PREFIX):].split()))}`"

    @property
    def shown(self) -> str:
        """:attr:`label`, with the protocol version once agreed: ``http://host/mcp
        (protocol 2026-07-28)``."""
        if self.agreement is None:
            return self.label
        return f"{self.label} (protocol {self.agreement.version})"

    @property
    def errlog(self) -> TextIO:
        """Where the server's standard error goes: a temporary file, made by :meth:`_open`
        before the transport opens and kept until :meth:`close`."""
        stderr: TextIO = self._stderr
        return stderr

    # -- start and stop -------------------------------------------------------------------

    def open(self) -> list[dict[str, Any]]:
        """Start the server, initialize the session and return its tools (the JSON of
        each ``tools/list`` entry).

        The transport is the one :func:`infer_transport` gives, and the one it gives
        instead when the first refuses the POST (tried once; if it fails too, the first
        error stands). A streamable-HTTP server that answers plainly is listed without
        the SDK, whose session then opens at the first call (:meth:`_list_plainly`).

        Raises:
            TargetError: The server does not start, exits, does not speak MCP or does not
                answer within the timeout (the connection is closed again).
            TargetConfigError: ``modern`` asked of an HTTP+SSE endpoint.
        """
        if self.era == "modern" and self.transport is SSE:
            raise TargetConfigError(f"MCP server {self.label} is an HTTP+SSE endpoint: that "
                                    "transport has no 2026-07-28 revision (--protocol-era "
                                    "modern)", hint="drop --protocol-era modern, or give the "
                                                    "server's streamable HTTP endpoint")
        if self.transport is STREAMABLE_HTTP and self.oauth is None:
            tools = self._list_plainly()
            if tools is not None:
                return tools
        return self._open_session()

    def open_session(self) -> None:
        """Start the server and open the SDK's session, without listing its tools (for
        its resources and prompts: :mod:`~agentforge_cli.integrations.mcp.client.surface`).

        Raises:
            TargetError: As :meth:`open`.
        """
        self._open_session(list_tools=False)

    def _open_session(self, *, list_tools: bool = True) -> list[dict[str, Any]]:
        """:meth:`open` through the SDK's session."""
        try:
            return self._open(list_tools=list_tools)
        except TargetError as error:
            instead = infer_transport(self.spec, self._refused_code)
            if self._refused_code is None or instead is self.transport or self.era == "modern":
                raise  # (HTTP+SSE has no modern era)
            self.transport, self._refused, self._refused_code = instead, None, None
            self._problems.clear()
            self._opening_error, self._refused_answered = None, False
            try:
                return self._open(list_tools=list_tools)
            except TargetError:
                raise error from None

    def _list_plainly(self) -> list[dict[str, Any]] | None:
        """The tools, listed without importing the SDK when the server answers plainly
        (:mod:`~agentforge_cli.integrations.mcp.client.plain_listing`); ``None`` otherwise."""
        from agentforge_cli import __version__
        from agentforge_cli.integrations.mcp.client.answering import LOG_LEVEL
        from agentforge_cli.integrations.mcp.client.plain_listing import (
            Unanswered,
            list_tools_plainly,
        )

        try:
            listing = list_tools_plainly(self.spec, self.headers, self.timeout, __version__,
                                         MAX_PAGES, era=self.era,
                                         log_level=LOG_LEVEL)
        except Unanswered:
            raise self._error("did not answer", TimeoutError(), self.timeout) from None
        if listing is None:
            return None
        self.agreement = listing.agreement  # the SDK's session adopts it: no second probe
        self._plain = listing.session  # ... and goes on with a legacy session left open
        self._listed_plainly = True
        register(self)
        return listing.tools

    def _open(self, *, list_tools: bool = True) -> list[dict[str, Any]]:
        import tempfile

        try:
            from anyio.from_thread import start_blocking_portal
        except ImportError as exc:  # anyio comes with the SDK
            raise MCPUnavailableError(f"cannot use target {self.label}: the mcp package is "
                                      "not installed", hint=INSTALL_HINT) from exc
        # lives as long as the connection: close() closes it
        self._stderr = tempfile.TemporaryFile(  # noqa: SIM115
            "w+", encoding="utf-8", errors="replace")
        self._stack = contextlib.ExitStack()
        try:
            self._portal = self._stack.enter_context(start_blocking_portal())
            self._session = self._stack.enter_context(
                self._portal.wrap_async_context_manager(self._connect()))
            tools: list[dict[str, Any]] = (self._portal.call(
                self._bounded, self._list_tools, self.timeout) if list_tools else [])
            self.skipped = [SkippedTool(self.shown, name, reason)
                            for name, reason in self._sorter.skipped]
        except TargetError:
            self.close()
            raise
        except BaseException as exc:
            if isinstance(innermost(exc), TargetError):  # the OAuth flow's own failure
                self.close()
                raise innermost(exc) from None
            what = "did not answer" if is_url(self.spec) else "did not start"
            if answered_too_much(exc):  # it started, and answered too much
                what = "cannot be listed"
            error = self._error(what, exc, self.timeout)
            self.close()
            raise error from None
        register(self)
        return tools

    def close(self) -> None:
        """End the session and the server (idempotent)."""
        self._listed_plainly = False
        self._portal = self._session = None
        stack, self._stack = self._stack, None
        if stack is not None:
            with contextlib.suppress(BaseException):  # the server is gone either way
                stack.close()
        plain, self._plain = self._plain, None
        if plain is not None:  # the session the SDK's went on with, if it did: ended once
            plain.close()
        forget(self)
        if self.oauth is not None:
            self.oauth.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _connect(self) -> Any:
        from contextlib import asynccontextmanager

        @asynccontextmanager
        async def connect() -> Any:
            from mcp import ClientSession

            async def on_message(message: Any) -> None:
                if isinstance(message, Exception):  # a stdout line that is not JSON-RPC
                    self._problems.append(message)
                    return
                method = getattr(message, "method", None)
                if (self.on_list_changed is not None and isinstance(method, str)
                        and method.endswith("/list_changed")):
                    self.on_list_changed(method)

            from mcp import types

            from agentforge_cli import __version__
            from agentforge_cli.integrations.mcp.client.answering import session_callbacks
            from agentforge_cli.integrations.mcp.client.deadlines import deadline
            from agentforge_cli.integrations.mcp.client.listing import tool_sorter

            me = types.Implementation(name="agentforge", version=__version__)
            async with self.transport.open_streams(self) as (read, write):
                self._sorter = tool_sorter(read, write)
                async with ClientSession(dispatcher=self._sorter, message_handler=on_message,
                                         client_info=me,
                                         **session_callbacks(
                                             self.answers, self._script)
                                         ) as session:
                    self._sorter.version = lambda: session.protocol_version
                    with deadline(self.timeout):  # its clock stops during an authorization
                        await self._agree(session)
                    yield session

        return connect()

    async def _agree(self, session: Any) -> None:
        """Open the session's protocol era (:func:`~.eras.agree`); a refusal is kept for
        the error's message."""
        from mcp.shared.exceptions import MCPError

        from agentforge_cli.integrations.mcp.client.eras import agree

        try:
            self.agreement = await agree(session, self.era, self.agreement,
                                        legacy_transport=self.transport is SSE)
        except MCPError as exc:
            if not closed(exc):
                self._opening_error = exc
            raise

    def http_auth(self) -> Any:
        """The ``httpx2.Auth`` of a new HTTP session (``None``: no OAuth)."""
        return None if self.oauth is None else self.oauth.provider()

    def keep_process(self, process: Any) -> None:
        """Keep the process of the ``mcp:`` server (the stdio transport gives it)."""
        self._process = process

    def signal_server(self, signum: int) -> None:
        """Send ``signum`` to the server's process (``mcp:`` targets; nothing for a URL or
        a process gone)."""
        pid = getattr(self._process, "pid", None)
        if isinstance(pid, int):
            with contextlib.suppress(OSError):
                os.kill(pid, signum)

    async def note_status(self, response: Any) -> None:
        """Keep the first HTTP error status of a request (a POST; over streamable HTTP the
        optional event stream's GET may be refused, over SSE it is the connection): the
        SDK's own error does not name it."""
        if (response.status_code >= 400 and self._refused is None
                and (response.request.method == "POST" or self.transport is SSE)
                and not self._probing(response.request)):
            self._refused = http_status(response)
            self._refused_code = response.status_code
            # a JSON body is the server's JSON-RPC error, which the SDK raises as it is
            self._refused_answered = "json" in response.headers.get("content-type", "")
            if response.status_code == 401:
                from agentforge_cli.integrations.mcp.client.oauth import asks_for_oauth

                self._asks_oauth = asks_for_oauth(response)

    def _probing(self, request: Any) -> bool:
        """Whether ``request`` is ``auto``'s ``server/discover`` probe, whose refusal only
        says that the server is of the legacy era."""
        return (self.era == "auto" and self.agreement is None
                and request.headers.get("mcp-method") == "server/discover")

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
            tools.extend(map(as_json, page.tools))
            cursor = page.next_cursor
            if not cursor:
                return tools
        raise TargetError(f"MCP server {self.label} keeps paging past {MAX_PAGES} pages of "
                          "tools/list (it always answers with a nextCursor)")

    async def _call_tool(self, name: str, arguments: dict[str, Any],
                         forward: Any = None) -> Any:
        """``tools/call``, with progress asked for when someone listens (``forward``, the
        caller's :data:`~.answering.CALL_PROGRESS`, else the options' listener), and a
        2026-07-28 server's requests for input answered (:mod:`.answering`)."""
        import functools

        from agentforge_cli.integrations.mcp.client.answering import (
            call_answering,
            progress_callback,
        )

        send = functools.partial(self._session.call_tool, name, arguments,
                                 progress_callback=progress_callback(self.answers, forward))
        return await call_answering(self._session, send)

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Send ``tools/call`` and return the SDK's ``CallToolResult``.

        Raises:
            ServerCallError: The server died during the call (or an earlier one), or did
                not answer within the call timeout.
            RuntimeError: The SDK refused the result: it breaks the tool's
                ``outputSchema`` (:func:`~.broken_output.broken_output` says how).
            TargetError: The connection is closed, or failed otherwise.
        """
        from agentforge_cli.replay.recorded_requests import RECORDED_REQUESTS

        script = RECORDED_REQUESTS.get()  # a replayed call: its server's requests recorded
        if script is None:
            return self._call(name, arguments)
        self._replaying, self._between = script, script.between()  # (one call at a time)
        try:
            return self._call(name, arguments)
        finally:
            self._replaying = None

    def _call(self, name: str, arguments: dict[str, Any]) -> Any:
        """:meth:`call`, its requests answered by :meth:`_script`."""
        self._sdk_session()
        from mcp.shared.exceptions import MCPError

        if self._portal is None:
            raise TargetError(f"MCP server {self.label} is closed")
        if self._died is not None:
            raise ServerCallError(f"MCP server {self.shown} is gone: it {self._died}",
                                  outcome="gone", hint=self._stderr_tail())
        from agentforge_cli.integrations.mcp.client.answering import CALL_PROGRESS

        try:
            return self._portal.call(self._bounded, self._call_tool, self.call_timeout, name,
                                     arguments, CALL_PROGRESS.get())
        except MCPError as exc:
            if not closed(exc):
                raise
            raise self._death(f"tools/call {name}") from None
        except BaseException as exc:
            if broken_output(exc, name) is not None:
                raise  # the tool's result, refused by its own outputSchema: the caller's
            error = self._error(f"failed during tools/call {name}", exc, self.call_timeout)
            if isinstance(innermost(exc), TimeoutError):
                raise ServerCallError(error.message, outcome="hung", hint=error.hint) from None
            raise error from None

    def _script(self) -> Any:
        """The RequestScript that answers the server's requests now: the replayed call's,
        or between replayed calls the one that answers with the recorded client's roots
        (``None``: nothing is being replayed)."""
        return self._replaying if self._replaying is not None else self._between

    def _sdk_session(self) -> None:
        """Open the SDK's session when the tools were listed without it: from the first
        call or request on."""
        if self._listed_plainly:
            with self._opening:  # calls from several threads open it once
                if self._listed_plainly:
                    if self._plain is not None:  # the SDK's session goes on with it
                        self.headers = {**self.headers,
                                        "Mcp-Session-Id": self._plain.session_id}
                    try:
                        self._open_session()
                    finally:  # opened, or failed (closing): the next call tries again
                        self._listed_plainly = self._stack is None

    def list_tools_again(self) -> list[dict[str, Any]]:
        """The server's tools listed again (it said they changed), as :meth:`open` gives
        them.

        Raises:
            ServerCallError: The server died, or did not answer in time.
            TargetError: The connection is closed, failed, or the server answered with an
                error.
        """
        from mcp.shared.exceptions import MCPError

        try:
            tools: list[dict[str, Any]] = self.ask("tools/list",
                                                   lambda _session: self._list_tools())
        except MCPError as exc:
            raise TargetError(f"MCP server {self.label} refused tools/list: {exc}") from None
        return tools

    def ask(self, what: str, request: Any, *args: Any) -> Any:
        """``await request(session, *args)`` on the open session, within the call timeout
        (``what`` names it in errors, e.g. ``resources/read file:///x``).

        Raises:
            mcp.shared.exceptions.MCPError: The server answered with an error.
            ServerCallError: The server died, or did not answer in time.
            TargetError: The connection is closed, or failed otherwise.
        """
        self._sdk_session()
        from mcp.shared.exceptions import MCPError

        if self._portal is None:
            raise TargetError(f"MCP server {self.label} is closed")
        try:
            return self._portal.call(self._bounded, request, self.call_timeout,
                                     self._session, *args)
        except MCPError as exc:
            if not closed(exc):
                raise
            raise self._death(what) from None
        except BaseException as exc:
            error = self._error(f"failed during {what}", exc, self.call_timeout)
            if isinstance(innermost(exc), TimeoutError):
                raise ServerCallError(error.message, outcome="hung", hint=error.hint) from None
            raise error from None

    def _death(self, what: str) -> ServerCallError:
        """The server closed the connection during ``what`` (``tools/call NAME``): how it ended (its
        exit status, once it has exited) and the end of its standard error."""
        import time

        from agentforge_cli.integrations.mcp.client.transports.stdio_process import (
            exit_status,
        )

        status = None
        if self._process is not None:
            deadline = time.monotonic() + _EXIT_WAIT
            while (status := exit_status(self._process.returncode)) is None and (
                    time.monotonic() < deadline):
                time.sleep(0.02)
        if status is not None:
            self._died = f"died during {what}: {status}"
        else:
            self._died = (f"closed the connection during {what}" if is_url(
                self.spec) else f"closed its standard output during {what}")
        return ServerCallError(f"MCP server {self.shown} {self._died}", outcome="died",
                               hint=self._stderr_tail())

    def _error(self, what: str, exc: BaseException, bound: float | None) -> TargetError:
        timed_out = isinstance(innermost(exc), TimeoutError)
        reason = describe(exc)
        if timed_out and bound is not None:
            reason = f"no answer within {bound:g} s"
        elif self._refused is not None:
            reason = f"{self._refused} ({reason})"
            if self._refused.startswith(("HTTP 401", "HTTP 404")):
                what = ("needs authorization" if self._refused.startswith("HTTP 401")
                        else what)
                told = (OAUTH_HINT if self._asks_oauth and self.oauth is None
                        else HTTP_HINTS[self._refused[:8]])
                return TargetError(f"MCP server {self.shown} {what}: {reason}", hint=told)
        if self._problems:
            reason += ("; it wrote something other than MCP on standard output: "
                       f"{not_mcp(self._problems[0])}")
        advice = None
        if timed_out and bound is not None and self._probed_in_vain():
            advice = _UNANSWERED_PROBE
        elif not timed_out and self._opening_refused():
            what, advice = refusal(self.era, getattr(self._opening_error, "code", None))
            if versions := supported_versions(self._opening_error):
                reason += f"; it speaks {', '.join(versions)}"
        hint = "\n".join(part for part in (advice, self._stderr_tail()) if part) or None
        return TargetError(f"MCP server {self.shown} {what}: {reason}", hint=hint)

    def _probed_in_vain(self) -> bool:
        """Whether ``auto``'s probe may be what an ``mcp:`` server left unanswered."""
        return self.era == "auto" and self.agreement is None and not is_url(self.spec)

    def _opening_refused(self) -> bool:
        """Whether the server answered the request that opens the era with an error of
        its own (not an HTTP status the SDK turned into one)."""
        return self._opening_error is not None and (self._refused is None
                                                    or self._refused_answered)

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
