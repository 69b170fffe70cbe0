"""``agentforge serve``: the tool table as a Model Context Protocol server.

Built on the official ``mcp`` Python SDK (2.x, low-level ``Server`` API), installed with
the optional extra: ``pip install '.[mcp]'`` in a clone of agentforge. The SDK (and
``anyio``, which comes with it) is imported only inside the functions below, so importing
this module never fails; :func:`require_mcp` raises :class:`MCPUnavailableError`, whose
message says how to install the extra, when the SDK is missing or too old.

* ``initialize`` reports the server name and agentforge's version;
* ``tools/list`` is generated from the service's ``ToolSpecification`` table:
  ``name``, ``description``, ``inputSchema`` = ``parameters``;
* ``tools/call`` sends the request's ``arguments`` object through the same parsing,
  binding and coercion pipeline as ``agentforge tools call`` (the low-level server does
  not validate arguments against ``inputSchema``, so a model's ``"3"`` for an int reaches
  the coercion table). Argument and execution errors are a result with ``isError: true``
  and the message the CLI prints; an unknown tool is a JSON-RPC error (``-32602``); a
  successful result whose text is a JSON object is also sent as ``structuredContent``,
  checked against the tool's ``outputSchema`` when its return type has one
  (:mod:`~agentforge_cli.integrations.mcp.server.output_schemas`); an MCP target's tool keeps its
  ``outputSchema`` and its results go on as its server sent them;
* ``resources/list``, ``resources/templates/list`` and ``prompts/list`` list what the
  targets declare with ``@resource`` and ``@prompt``, and what the MCP servers served
  again offer (:mod:`~agentforge_cli.integrations.mcp.server.upstreams`), read and got
  through :mod:`~agentforge_cli.integrations.mcp.server.extras_handlers` (empty lists
  when none);
  every list has one page, so a ``cursor`` is ``-32602``;
* ``async def`` Python tools run on a tool loop, off the server's event loop
  (:mod:`~agentforge_cli.core.run.tool_loops`: one that blocks, ``time.sleep`` in an ``async
  def``, holds up nothing else and still times out); sync tools each on a thread of their
  own (:mod:`~agentforge_cli.core.run.tool_threads`, 64 at once); an MCP target's tools on the
  server's loop, where its session lives. A call's time limit and strictness are the
  executor's (``build_local_tools(..., timeout=..., strict=...)``);
* ``notifications/cancelled`` is the SDK's: the call's task is cancelled (an ``async
  def`` tool is interrupted; a sync tool runs on in its thread and its result is
  dropped) and the request is never answered;
* stdout carries the protocol only, at the file-descriptor level
  (:func:`~agentforge_cli.integrations.mcp.server.stdio.claim_stdio`), and logging
  (``log=True``) goes to stderr;
* every request read is answered: when stdin closes, the calls still running finish
  and are answered before the server returns
  (:func:`~agentforge_cli.integrations.mcp.server.stdio.draining`).

Typical use (what ``agentforge serve TARGET... [--log]`` does)::

    with claim_stdio() as wire:  # before the targets are imported
        service = ToolService().tools(build_local_tools(targets, logging=log))
        run_stdio(service, log=log, wire=wire)
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import sys
import threading
from typing import TYPE_CHECKING, Any

from agentforge_cli import __version__
from agentforge_cli.core.define.spec import ToolExecutionRequest, ToolExecutionResult
from agentforge_cli.core.observe.calllog import LOGGER_NAME
from agentforge_cli.core.observe.surrogates import encodable
from agentforge_cli.core.observe.terminal_text import safe_text
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.core.run.service import ToolService, unknown_tool_message
from agentforge_cli.core.run.wrapping import innermost
from agentforge_cli.errors import MCPUnavailableError, ToolExecutionError
from agentforge_cli.integrations.mcp.server.output_schemas import OutputSchemas, StructuredResult

if TYPE_CHECKING:
    from mcp.server import Server
    from mcp.types import CallToolResult, ListToolsResult

    from agentforge_cli.integrations.config.serve import ServerIdentity
    from agentforge_cli.integrations.mcp.server.stdio import Wire
    from agentforge_cli.integrations.mcp.server.upstreams import Upstreams

__all__ = [
    "INSTALL_HINT",
    "MCP_MIN_VERSION",
    "SERVER_NAME",
    "MCPUnavailableError",
    "ToolCalls",
    "build_server",
    "call_tool_result",
    "execute_tool",
    "list_tools_result",
    "require_mcp",
    "run_stdio",
    "serve_stdio",
]

SERVER_NAME = "agentforge"
"""The name ``initialize`` reports by default."""
MCP_MIN_VERSION = (2, 3)
"""Oldest ``mcp`` SDK release this module is written against (its API differs from 1.x)."""
_RESOURCE_NOT_FOUND = -32002
"""An unknown resource, up to revision 2025-11-25 (from 2026-07-28: Invalid Params)."""


def resource_not_found_code(version: str | None) -> int:
    """The error code of an unknown resource in a session of protocol ``version``:
    ``-32602`` (Invalid Params) from 2026-07-28 on (SEP-2164), ``-32002`` before."""
    return -32602 if version is not None and version >= "2026-07-28" else _RESOURCE_NOT_FOUND
"""The JSON-RPC error code MCP gives an unknown resource."""
LOG_BACKLOG = 10_000
"""Call-log records (``serve --log``) waiting for standard error at most; more are dropped
and counted."""
BLOCKED_GRACE = 0.5
"""How long past its timeout an ``async def`` tool that blocks its event loop is given
before the server answers the timeout itself."""
LOG_DRAIN_SECONDS = 2.0
"""How long the records still waiting are given to reach standard error at exit."""
INSTALL_HINT = "pip install '.[mcp]'"
"""How to install the optional MCP extra, run in a clone of agentforge (it is installed
from source)."""


def require_mcp() -> str:
    """Check that a usable ``mcp`` SDK is installed; return its version.

    Raises:
        MCPUnavailableError: With a message saying how to install the extra.
    """
    from importlib import metadata

    wanted = ".".join(map(str, MCP_MIN_VERSION))
    try:
        version = metadata.version("mcp")
    except metadata.PackageNotFoundError:
        raise MCPUnavailableError(
            f"agentforge serve needs the MCP SDK (mcp>={wanted}), which is not installed. "
            f"Install it from a clone of agentforge with: {INSTALL_HINT}") from None
    if _release(version) < MCP_MIN_VERSION:
        raise MCPUnavailableError(
            f"agentforge serve needs mcp>={wanted}; mcp {version} is installed. "
            f"Upgrade it from a clone of agentforge with: {INSTALL_HINT}")
    try:
        import mcp.server  # noqa: F401
    except ImportError as exc:
        raise MCPUnavailableError(
            f"the MCP SDK (mcp {version}) cannot be imported: {exc}. "
            f"Reinstall it from a clone of agentforge with: {INSTALL_HINT}") from exc
    return version


def _release(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split(".")[:3]:
        digits = ""
        for char in piece:
            if not char.isdigit():
                break
            digits += char
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


# ---------------------------------------------------------------- the call pipeline


async def execute_tool(service: ToolService, request: ToolExecutionRequest,
                       memory_id: object = None) -> ToolExecutionResult:
    """Execute ``request`` through ``service`` without blocking the event loop.

    :meth:`ToolService.aexecute`: ``async def`` Python tools run on a tool loop and are
    waited for by wall clock (:func:`_off_the_loop`), sync tools run on a thread of their
    own; argument errors and unknown tools are error results. An
    executor set to propagate execution errors still yields an error result here. Lone
    surrogates in the text are escaped (``\\udcff``), so the answer can be encoded.
    """
    try:
        local = _async_tool(service.executor(request.name))
        if local is None:
            result = await service.aexecute(request, memory_id)
        else:
            result = await _off_the_loop(service, request, memory_id, local)
    except ToolExecutionError as error:
        result = ToolExecutionResult(str(error), True)
    text = encodable(result.text)  # what any executor answers must reach the wire
    return result if text is result.text else ToolExecutionResult(text, result.is_error)


def _async_tool(executor: Any) -> LocalToolExecutor | None:
    """The ``async def`` Python tool behind ``executor`` (through log and trace wrappers),
    or ``None`` (a sync tool, an MCP target's, a foreign framework's)."""
    executor = innermost(executor)
    if isinstance(executor, LocalToolExecutor) and executor.definition.is_async:
        return executor
    return None


async def _off_the_loop(service: ToolService, request: ToolExecutionRequest,
                        memory_id: object, local: LocalToolExecutor) -> ToolExecutionResult:
    """Run an ``async def`` tool's call on a tool loop (:mod:`~agentforge_cli.core.run.tool_loops`)
    and wait for it by wall clock: a tool that blocks its loop (``time.sleep``) holds up
    neither the server nor other calls, and still times out (:data:`BLOCKED_GRACE` after
    its limit, when its own loop cannot run the timeout)."""
    import asyncio

    from agentforge_cli.core.run.tool_loops import tool_loops

    answer = asyncio.wrap_future(
        tool_loops(_warn).run(service.aexecute(request, memory_id), request.name))
    if local.timeout is None:
        result: ToolExecutionResult = await answer
        return result
    try:
        async with asyncio.timeout(local.timeout + BLOCKED_GRACE) as scope:
            result = await answer
    except TimeoutError:
        if not scope.expired():
            raise
        # the call is cancelled on its loop; the late outcome is dropped
        return ToolExecutionResult(
            f'Tool "{request.name}" timed out after {local.timeout:g} s', True)
    return result


def _warn(text: str) -> None:
    """Say ``text`` on stderr from a thread of its own: a client that never reads
    stderr never holds up serving."""
    def write() -> None:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"agentforge: {text}\n")
            sys.stderr.flush()

    threading.Thread(target=write, name="agentforge-warn", daemon=True).start()


# ---------------------------------------------------------------- protocol shapes


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)


def _structured(text: str) -> dict[str, Any] | None:
    """The object a result's text holds, or ``None`` when it is not a JSON object."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return None
    return value if type(value) is dict else None


def call_tool_result(result: ToolExecutionResult) -> CallToolResult:
    """The ``tools/call`` result for a :class:`ToolExecutionResult`: its text as text
    content, ``isError``, and ``structuredContent`` for a successful JSON object. The
    result of an MCP target's tool (it keeps ``content``) goes on as its server sent it:
    every block, and its ``structuredContent``."""
    from mcp import types

    content = getattr(result, "content", None)
    if content is not None:
        structured = getattr(result, "structured_content", None)
        return types.CallToolResult.model_validate(
            {"content": content, "structuredContent": structured, "isError": result.is_error})
    structured = getattr(result, "structured_content", None)  # checked (see _checked)
    if structured is None and not result.is_error:
        structured = _structured(result.text)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structured_content=structured,
        is_error=result.is_error,
    )


ANY_STRUCTURED_CONTENT = "2026-07-28"
"""The first protocol revision whose ``structuredContent`` may be any JSON value."""


def _checked(result: ToolExecutionResult, name: str, schemas: OutputSchemas,
             version: str | None = None) -> ToolExecutionResult:
    """``result``, or an error result when it does not match the tool's ``outputSchema``
    (a client would refuse it); in a session of ``version`` 2026-07-28 or later, the
    value of a tool returning a scalar or a list as its ``structuredContent``."""
    if result.is_error:
        return result
    if getattr(result, "content", None) is not None:  # an MCP target's, sent on as it came
        return _for_session(result, version)
    if schemas.schema(name) is None:
        if version is None or version < ANY_STRUCTURED_CONTENT:
            return result
        found, value = schemas.value(name, result.text)
        if not found:
            return result
        structured = StructuredResult(result.text, False)
        structured.structured_content = value
        return structured
    value, problem = schemas.structured(name, result.text)
    if value is not None and problem is None:
        checked = StructuredResult(result.text, False)
        checked.structured_content = value
        return checked
    return ToolExecutionResult(f'Tool "{name}" returned a result that does not match its '
                               f"outputSchema: {problem}", True)


def _for_session(result: ToolExecutionResult, version: str | None) -> ToolExecutionResult:
    """An MCP target's result as a session of ``version`` may receive it: a
    ``structuredContent`` that is not an object (a server of 2026-07-28 may send one) goes
    only to a session of 2026-07-28 or later; an older one requires an object, so it gets
    the content blocks alone."""
    import copy

    structured = getattr(result, "structured_content", None)
    if structured is None or type(structured) is dict or (
            version is not None and version >= ANY_STRUCTURED_CONTENT):
        return result
    sent = copy.copy(result)
    sent.structured_content = None  # type: ignore[attr-defined]  # an McpToolResult's
    return sent


class ToolCalls:
    """How ``tools/call`` is answered: through ``service``'s call pipeline, each result
    checked against its tool's ``outputSchema``. One per server, shared by the SDK's
    handler and :mod:`~agentforge_cli.integrations.mcp.server.plain_calls`, so that both
    answer a call alike."""

    def __init__(self, service: ToolService, memory_id: object = None) -> None:
        self.service = service
        self.schemas = OutputSchemas(service)
        self.memory_id = memory_id

    def knows(self, name: str) -> bool:
        return self.service.executor(name) is not None

    async def answer(self, name: str, arguments: Any, request_id: str | None,
                     version: str | None = None) -> CallToolResult:
        """The result of calling the known tool ``name`` with the ``arguments`` object as
        received (``parse_arguments`` takes a dict as parsed, then binding and coercion
        run as for ``agentforge tools call``), for a session of protocol ``version``."""
        request = ToolExecutionRequest(id=request_id, name=name, arguments=arguments)
        result = await execute_tool(self.service, request, self.memory_id)
        return call_tool_result(_checked(result, name, self.schemas, version))


def list_tools_result(service: ToolService, output_schemas: OutputSchemas | None = None
                      ) -> ListToolsResult:
    """The ``tools/list`` result: one tool per registered specification (``outputSchema``:
    an MCP target's, or that of a Python tool's return type, from ``output_schemas``)."""
    from mcp import types

    schemas = output_schemas or OutputSchemas(service)
    return types.ListToolsResult(tools=[
        types.Tool.model_validate({
            "name": spec.name, "title": spec.title, "description": spec.description,
            "inputSchema": spec.parameters,
            "outputSchema": spec.output_schema or schemas.schema(spec.name),
            "annotations": spec.annotations or None, "execution": spec.execution or None,
            "icons": spec.icons or None, "_meta": spec.meta or None})
        for spec in service.specifications
    ])


# ---------------------------------------------------------------- the server


def build_server(service: ToolService, *, name: str = SERVER_NAME,
                 version: str | None = None, instructions: str | None = None,
                 memory_id: object = None, calls: ToolCalls | None = None,
                 identity: ServerIdentity | None = None) -> Server:
    """Build a low-level MCP ``Server`` serving ``service``'s tools.

    Args:
        service: The tool table (built once; tools registered later are listed too).
        name: The server name ``initialize`` reports.
        version: The version ``initialize`` reports (agentforge's version by default).
        instructions: Optional instructions for the client's model.
        memory_id: Passed to every execution (shows in call logs).
        calls: How calls are answered, when shared with another path (made from
            ``service`` and ``memory_id`` by default).
        identity: The project's ``[tool.agentforge.serve]``: its name, version and
            instructions win over the arguments, and its title, description, website and
            icons are added to ``serverInfo``.

    Raises:
        MCPUnavailableError: The ``mcp`` SDK is missing or too old.
        TargetError: Two targets offer one resource, template or prompt (an MCP server
            served again among them), or such a server refused to list them.
    """
    require_mcp()
    from mcp import types
    from mcp.server import ServerRequestContext
    from mcp.shared.exceptions import MCPError
    from mcp.types import INVALID_PARAMS, CallToolRequestParams, PaginatedRequestParams

    calls = calls or ToolCalls(service, memory_id)
    schemas = calls.schemas

    async def on_list_tools(ctx: ServerRequestContext,
                            params: PaginatedRequestParams | None) -> Any:
        if params is not None and params.cursor is not None:
            # one page, so no cursor was ever handed out
            raise MCPError(code=INVALID_PARAMS, message=f"Invalid cursor {params.cursor!r}: "
                                                        "tools/list has one page")
        return list_tools_result(service, schemas)

    async def on_call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> Any:
        if not calls.knows(params.name):
            # A protocol error, not a result: the client asked for a tool never listed.
            raise MCPError(code=INVALID_PARAMS,
                           message=unknown_tool_message(params.name, service.names))
        async with passing_progress_on(ctx):
            return await calls.answer(params.name, params.arguments,
                                      None if ctx.request_id is None else str(ctx.request_id),
                                      ctx.protocol_version)

    # resources and prompts the targets declare; empty lists when none (clients list
    # them without asking first)
    from agentforge_cli.integrations.config.serve import ServerIdentity
    from agentforge_cli.integrations.mcp.server.extras_handlers import extras_handlers
    from agentforge_cli.integrations.mcp.server.relaying_server import relaying_server
    from agentforge_cli.integrations.mcp.server.upstreams import Upstreams

    upstreams = Upstreams.of(service)  # the MCP servers served again: theirs are passed on
    if upstreams:
        upstreams.check()
    said = identity or ServerIdentity()
    icons = [types.Icon.model_validate(icon) for icon in said.icons] or None
    server: Server = relaying_server(
        said.name or name, version=said.version or version or __version__,
        instructions=said.instructions or instructions, title=said.title,
        description=said.description, website_url=said.website, icons=icons,
        on_list_tools=on_list_tools, on_call_tool=on_call_tool,
        **extras_handlers(service.extras, resource_not_found_code, upstreams))
    if upstreams:
        _relay_tasks(server, service, upstreams)
        _relay_list_changes(server, service, upstreams)
    return server


def _relay_list_changes(server: Any, service: ToolService, upstreams: Upstreams) -> None:
    """The list changes of the servers served again, passed on (their tools served anew
    first)."""
    from agentforge_cli.integrations.mcp.server.list_changes import ListChanges
    from agentforge_cli.integrations.mcp.server.tool_changes import ToolChanges

    changes = ListChanges()
    changes.tools_changed = ToolChanges(service, changes.tell).heard
    server.list_changed = changes.listen_to(upstreams.surfaces)
    server.middleware.append(changes.middleware)


def _relay_tasks(server: Any, service: ToolService, upstreams: Upstreams) -> None:
    """Tasks of the servers served again that run tools as tasks, forwarded to them."""
    from agentforge_cli.integrations.mcp.server.task_forwarding import TaskForwarding

    tasks = TaskForwarding.of(service, upstreams.surfaces)
    if not tasks:
        return
    server.tasks = tasks.capability()
    server.middleware.append(tasks.middleware)
    for method, (params_type, handler) in tasks.handlers().items():
        server.add_request_handler(method, params_type, handler)


@contextlib.asynccontextmanager
async def passing_progress_on(ctx: Any) -> Any:
    """Within it, the progress a re-served MCP server reports for a call (heard on its
    connection's thread, :data:`~agentforge_cli.integrations.mcp.client.answering.CALL_PROGRESS`)
    goes on to this request's client as its own ``notifications/progress``
    (``ctx.session.report_progress``: nothing when the client asked for none), all of it before
    the result."""
    import asyncio

    from agentforge_cli.integrations.mcp.client.answering import CALL_PROGRESS

    loop = asyncio.get_running_loop()
    sent: list[Any] = []

    def forward(progress: float, total: float | None, message: str | None) -> None:
        sent.append(asyncio.run_coroutine_threadsafe(
            ctx.session.report_progress(progress, total, message), loop))

    token = CALL_PROGRESS.set(forward)
    try:
        yield
    finally:
        CALL_PROGRESS.reset(token)
        if sent:  # the last reports reach the client before the result does
            await asyncio.gather(*map(asyncio.wrap_future, sent), return_exceptions=True)


class _UnblockingHandler(logging.Handler):
    """Writes log records to a stream, with what a terminal would act on escaped
    (:func:`~agentforge_cli.core.observe.terminal_text.safe_text`; newlines stay, as a multi-line
    result is logged and read back by replay), from a thread of its own, so a client that
    never
    reads standard error (MCP lets a client ignore it) never holds up serving: past
    :data:`LOG_BACKLOG` records waiting, new ones are dropped and counted, and the count
    is written once the stream takes lines again."""

    def __init__(self, stream: Any, backlog: int = LOG_BACKLOG) -> None:
        super().__init__()
        import queue

        self.stream = stream
        self.lines: queue.Queue[str] = queue.Queue(backlog)
        self.dropped = 0
        self._said = 0
        threading.Thread(target=self._write, name="agentforge-log", daemon=True).start()

    def emit(self, record: logging.LogRecord) -> None:
        import queue

        try:
            # a client's text (a tool name, arguments) must not act on the terminal
            self.lines.put_nowait(safe_text(self.format(record)))
        except queue.Full:
            self.dropped += 1
        except Exception:
            self.handleError(record)

    def flush(self) -> None:
        """Wait, at most :data:`LOG_DRAIN_SECONDS`, for the records waiting to be
        written (at exit: the last calls' lines are not lost to a reader)."""
        import time

        deadline = time.monotonic() + LOG_DRAIN_SECONDS
        while self.lines.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.005)

    def _write(self) -> None:
        while True:
            line = self.lines.get()
            try:
                if self.dropped > self._said:
                    missed, self._said = self.dropped - self._said, self.dropped
                    self.stream.write(f"agentforge: {missed} log record"
                                      f"{'' if missed == 1 else 's'} dropped: standard "
                                      "error was not read\n")
                self.stream.write(line + "\n")
                self.stream.flush()
            except (OSError, ValueError):
                return  # the stream is gone: nothing more can be said
            finally:
                self.lines.task_done()


def _log_to_stderr() -> None:
    """Send the call log (``agentforge.tools``, INFO) to stderr, once."""
    call_logger = logging.getLogger(LOGGER_NAME)
    if call_logger.level == logging.NOTSET or call_logger.level > logging.INFO:
        call_logger.setLevel(logging.INFO)
    for handler in call_logger.handlers:
        if getattr(handler, "_agentforge_mcp", False):
            return
    handler = _UnblockingHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler._agentforge_mcp = True  # type: ignore[attr-defined]  # our mark, read by getattr
    call_logger.addHandler(handler)


async def serve_stdio(service: ToolService, *, name: str = SERVER_NAME,
                      version: str | None = None, instructions: str | None = None,
                      log: bool = False, wire: Wire | None = None,
                      identity: ServerIdentity | None = None) -> None:
    """Serve ``service`` over stdio until the client closes stdin and every request read
    has been answered.

    Args:
        log: Also send the call log to stderr (build the table with
            ``build_local_tools(..., logging=True)`` so calls are logged).
        wire: The protocol's streams from an enclosing
            :func:`~agentforge_cli.integrations.mcp.server.stdio.claim_stdio` (``agentforge
            serve`` claims before it imports the targets); claimed here when omitted.

    Raises:
        MCPUnavailableError: The ``mcp`` SDK is missing or too old.
    """
    server = build_server(service, name=name, version=version, instructions=instructions,
                          identity=identity)
    from agentforge_cli.integrations.mcp.server.stdio import claim_stdio

    if log:
        _log_to_stderr()
    if wire is None:
        with claim_stdio() as claimed:
            await _serve_wire(server, claimed, len(service.names))
    else:
        await _serve_wire(server, wire, len(service.names))


async def _serve_wire(server: Server, wire: Wire, count: int) -> None:
    from mcp.server.stdio import stdio_server

    from agentforge_cli.integrations.mcp.server.stdio import LineReader, WireWriter, draining

    if wire.interactive:
        print(f"agentforge: MCP server ({count} tool{'' if count == 1 else 's'}) on stdio; "
              "waiting for a client on stdin (register this command with an MCP client; "
              "Ctrl-C stops)", file=sys.stderr, flush=True)
    # Explicit streams: the SDK leaves the descriptors alone (claim_stdio moved them). Both
    # are duck-typed: the SDK iterates the reader and awaits the writer's write() and flush().
    reader, writer = LineReader(wire.reader), WireWriter(wire.writer)
    streams = stdio_server(reader, writer)  # type: ignore[arg-type]  # not anyio AsyncFiles
    async with streams as (read_stream, write_stream):
        read_stream, write_stream = draining(read_stream, write_stream, reader)
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_stdio(service: ToolService, *, name: str = SERVER_NAME, version: str | None = None,
              instructions: str | None = None, log: bool = False,
              wire: Wire | None = None, identity: ServerIdentity | None = None) -> None:
    """Blocking :func:`serve_stdio` (the body of ``agentforge serve``); returns when the
    client disconnects (closes stdin, once every request read is answered, or stops
    reading stdout), or on Ctrl-C.

    Raises:
        MCPUnavailableError: The ``mcp`` SDK is missing or too old (checked first, before
            anything is read from stdin).
    """
    require_mcp()
    import anyio

    try:
        anyio.run(functools.partial(serve_stdio, service, name=name, version=version,
                                    instructions=instructions, log=log, wire=wire,
                                    identity=identity))
    except* BrokenPipeError:
        pass  # the client stopped reading our stdout: it has gone, the session is over
    except* KeyboardInterrupt:
        pass  # Ctrl-C, also one that lands while the session's tasks start (in a group)
