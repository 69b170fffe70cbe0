"""FastMCP servers as targets, and agentforge tools as a FastMCP server.

A ``fastmcp.FastMCP`` server (``module:server``, or found in a scanned module) is run
in-process, never as a subprocess: a ``fastmcp.Client`` connects to it over FastMCP's
in-memory transport, in an event loop of its own in a background thread (an anyio
blocking portal) that lives as long as the process (``atexit`` closes it, and with it the
server's lifespan). A ``fastmcp.tools.Tool`` object named on its own (``Tool.from_function``;
``@server.tool`` returns the plain function in FastMCP 4) is served by a private server of
its own the same way.

* **Schema**: each tool's ``name``, ``description``, ``inputSchema``, ``title``,
  ``annotations`` and ``outputSchema`` exactly as the server answers ``tools/list``.
* **Native path** (``--binding native``): ``tools/call`` through the client, so the
  server's middleware, transforms, argument validation (pydantic, lax unless the server
  sets ``strict_input_validation``) and result conversion all run. The model's argument
  text is parsed with ``json.loads`` as an MCP host does (unparsable text, or JSON that is
  not an object, is refused before the call). An error result FastMCP answers for the
  arguments (``1 validation error for call[forecast] ...``) is returned as the server
  sends it. The blocks are rendered as an MCP target's are
  (:func:`~agentforge_cli.core.run.content_blocks.blocks_text`), in an
  :class:`~agentforge_cli.integrations.mcp.client.executor.McpToolResult`, so ``serve`` passes the
  blocks and ``structuredContent`` on.
* **Tool exceptions**: FastMCP turns them into ``isError`` results (``Error calling tool
  'x': ...``, or only ``Error calling tool 'x'`` with ``mask_error_details``). To get the
  function's own exception, a middleware of agentforge's is appended to the server's
  (innermost, so the server's own middleware still sees every error): it notes the
  exception a call ended with, by a key the client sends in the request's ``_meta``
  (``agentforge/call``), and re-raises it unchanged. When the answer is an error result,
  that exception is raised out of ``invoke``. A ``ToolError`` the function raises itself
  is raised too (its text is what FastMCP sends).
* **Function** (``--binding agentforge``): a ``FunctionTool``'s ``fn``, unless it takes
  parameters FastMCP fills in (``Context``, ``Depends(...)``, a session); other tool
  classes (transformed, proxied, mounted from an OpenAPI spec) have no plain function.

:func:`to_fastmcp` goes the other way: agentforge's tools as a ``FastMCP`` server whose
tools list agentforge's schemas and whose calls go through agentforge's executors.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import threading
import uuid
from typing import Any

from agentforge_cli.core.define.spec import ToolExecutionResult
from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.frameworks.foreign import ForeignTool, refusal

__all__ = ["LIBRARY", "holds_tools", "in_module_scan", "read_tools", "to_fastmcp"]

LIBRARY = "FastMCP"
CALL_KEY = "agentforge/call"
"""The ``_meta`` key of a ``tools/call`` that names the call for the middleware."""
_PATH = "tools/call through an in-memory fastmcp.Client"
_OPEN: list[_Connection] = []
_LOCK = threading.Lock()
_CONNECTIONS: dict[int, _Connection] = {}  # id(server or tool) -> its connection


def holds_tools(obj: Any) -> bool:
    """A ``FastMCP`` server, or a ``fastmcp.tools.Tool``."""
    from fastmcp.server.server import FastMCP
    from fastmcp.tools.base import Tool

    return isinstance(obj, FastMCP | Tool)


def in_module_scan(obj: Any) -> bool:
    """Servers only: a ``Tool`` object in a module is most often one of its server's."""
    from fastmcp.server.server import FastMCP

    return isinstance(obj, FastMCP)


def read_tools(obj: Any) -> list[ForeignTool]:
    """The tools ``obj`` answers ``tools/list`` with (see the module docstring).

    Raises:
        TargetError: The server cannot be started in-process or listed, or lists the
            same name twice.
    """
    connection = _connection(obj)
    listed = connection.list_tools()
    seen: set[str] = set()
    tools = []
    for tool in listed:
        if tool.name in seen:
            raise TargetError(f"the FastMCP server {connection.label} lists two tools "
                              f"named {tool.name!r}",
                              hint="a call names a tool only by its name")
        seen.add(tool.name)
        tools.append(_foreign(connection, tool))
    return tools


# ---------------------------------------------------------------- the connection


def _connection(obj: Any) -> _Connection:
    from fastmcp.server.server import FastMCP

    with _LOCK:
        connection = _CONNECTIONS.get(id(obj))
        if connection is not None and connection.owner is obj:
            return connection
        if isinstance(obj, FastMCP):
            server = obj
            label = repr(obj.name)
        else:  # one Tool: a private server of its own
            server = FastMCP(f"agentforge: {obj.name}")
            server.add_tool(obj)
            label = f"of tool {obj.name!r}"
        connection = _Connection(obj, server, label)
        connection.open()
        _CONNECTIONS[id(obj)] = connection
        return connection


def _catcher_class() -> type:
    from fastmcp.server.middleware import Middleware

    global _CATCHER
    if _CATCHER is None:

        class Catcher(Middleware):
            """Notes the exception a keyed ``tools/call`` ended with, and re-raises it."""

            def __init__(self) -> None:
                self.failures: dict[str, BaseException] = {}

            async def on_call_tool(self, context: Any, call_next: Any) -> Any:
                key = _call_key(context)
                token = _OURS.set(key is not None)
                try:
                    return await call_next(context)
                except Exception as exc:
                    caught = _tool_exception(exc, context.message.name)
                    if key is not None and caught is not None:
                        self.failures[key] = caught
                    raise
                finally:
                    _OURS.reset(token)

        _CATCHER = Catcher
    return _CATCHER


_CATCHER: type | None = None
_OURS: contextvars.ContextVar[bool] = contextvars.ContextVar("agentforge_fastmcp_call",
                                                            default=False)
_REPORTED = ("Error calling tool ", "Invalid arguments for tool ")


class _QuietReported(logging.Filter):
    """Drops the server's own report of a failed call agentforge made (its traceback):
    agentforge reports the failure itself. Every other record is kept."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_OURS.get() and str(record.msg).startswith(_REPORTED))


def _quiet_server_log() -> None:
    logger = logging.getLogger("fastmcp.server.server")
    if not any(isinstance(f, _QuietReported) for f in logger.filters):
        logger.addFilter(_QuietReported())


def _call_key(context: Any) -> str | None:
    ctx = getattr(context, "fastmcp_context", None)
    request = getattr(ctx, "request_context", None) if ctx is not None else None
    meta = getattr(request, "meta", None) if request is not None else None
    key = meta.get(CALL_KEY) if isinstance(meta, dict) else None
    return key if isinstance(key, str) else None


_GENERIC = ("Rate limited by upstream API, please retry later",
            "Upstream request timed out, please retry")


def _tool_exception(exc: BaseException, name: str) -> BaseException | None:
    """The tool function's own exception behind ``exc`` (what ``FastMCP.call_tool``
    raised), or ``None`` when FastMCP itself refused the call (arguments, auth, ...)."""
    from fastmcp.exceptions import FastMCPError, ToolError

    if not isinstance(exc, ToolError):
        return None  # ValidationError, NotFoundError, ...: FastMCP's answer
    cause = exc.__cause__
    text = str(exc)
    wrapped = (text == f"Error calling tool {name!r}"
               or text.startswith(f"Error calling tool {name!r}: ") or text in _GENERIC)
    if cause is None or isinstance(cause, FastMCPError) or not wrapped:
        return exc  # a ToolError of the tool's own
    if type(cause).__name__ == "_ToolBodyError" and cause.__cause__ is not None:
        return cause.__cause__  # a pydantic error of the body, tagged by FastMCP
    return cause


class _Connection:
    """A ``fastmcp.Client`` connected in memory to one server, used synchronously."""

    def __init__(self, owner: Any, server: Any, label: str) -> None:
        self.owner = owner
        self.server = server
        self.label = label
        self.catcher: Any = None
        self._stack: contextlib.ExitStack | None = None
        self._portal: Any = None
        self._client: Any = None

    def open(self) -> None:
        from anyio.from_thread import start_blocking_portal
        from fastmcp import Client

        catcher_class = _catcher_class()
        _quiet_server_log()
        found = [m for m in self.server.middleware if isinstance(m, catcher_class)]
        if found:
            self.catcher = found[0]
        else:
            self.catcher = catcher_class()
            self.server.add_middleware(self.catcher)
        self._stack = contextlib.ExitStack()
        try:
            self._portal = self._stack.enter_context(start_blocking_portal())
            self._client = self._stack.enter_context(
                self._portal.wrap_async_context_manager(Client(self.server)))
        except BaseException as exc:
            self.close()
            raise TargetError(f"cannot start the FastMCP server {self.label} in-process: "
                              f"{type(exc).__name__}: {exc}") from exc
        if not _OPEN:
            import atexit

            atexit.register(close_all)
        _OPEN.append(self)

    def close(self) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            with contextlib.suppress(BaseException):
                stack.close()
        if self in _OPEN:
            _OPEN.remove(self)
        with contextlib.suppress(KeyError):
            if _CONNECTIONS[id(self.owner)] is self:
                del _CONNECTIONS[id(self.owner)]

    def run(self, func: Any, *args: Any) -> Any:
        if self._portal is None:
            raise TargetError(f"the FastMCP server {self.label} is closed")
        return self._portal.call(func, *args)

    def list_tools(self) -> list[Any]:
        try:
            tools: list[Any] = self.run(self._client.list_tools)
        except TargetError:
            raise
        except Exception as exc:
            raise TargetError(f"the FastMCP server {self.label} failed during tools/list: "
                              f"{type(exc).__name__}: {exc}") from exc
        return tools

    def server_tool(self, name: str) -> Any:
        """The server's ``Tool`` object listed as ``name`` (``None`` if it has none)."""
        try:
            return self.run(self.server.get_tool, name)
        except Exception:
            return None

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[Any, BaseException | None]:
        """``tools/call``: the ``CallToolResult`` and the exception the call ended with
        inside the server (``None`` when FastMCP answered on its own)."""
        key = uuid.uuid4().hex

        async def call() -> Any:
            return await self._client.call_tool_mcp(name, arguments, meta={CALL_KEY: key})

        try:
            result = self.run(call)
        finally:
            failure = self.catcher.failures.pop(key, None)
        return result, failure


def close_all() -> None:
    """Close every in-process FastMCP connection, newest first (also run at exit)."""
    while _OPEN:
        _OPEN[-1].close()


# ---------------------------------------------------------------- one tool


def _function(server_tool: Any) -> tuple[Any, str]:
    """The plain function behind a server's tool, or ``None`` and why not."""
    from fastmcp.server.dependencies import without_injected_parameters
    from fastmcp.tools.function_tool import FunctionTool

    if not isinstance(server_tool, FunctionTool):
        kind = type(server_tool).__name__ if server_tool is not None else "this tool"
        return None, f"a {kind} has no plain Python function (only FunctionTool does)"
    fn = server_tool.fn
    if without_injected_parameters(fn) is not fn:
        return None, ("it takes parameters FastMCP fills in (a Context, a Depends(...) or a "
                      "session)")
    return fn, ""


def _foreign(connection: _Connection, listed: Any) -> ForeignTool:
    from agentforge_cli.integrations.mcp.client.loading import tool_specification

    specification = tool_specification(listed)
    name = listed.name
    server_tool = connection.server_tool(name)
    function, unreachable = _function(server_tool)

    def invoke(text: str | None) -> ToolExecutionResult:
        return _invoke(connection, name, text)

    return ForeignTool(library=LIBRARY, specification=specification, invoke=invoke,
                       source=server_tool if server_tool is not None else listed,
                       path=_PATH, function=function, unreachable=unreachable,
                       failure_text=_answered)


_ANSWER = "_agentforge_fastmcp_answer"
"""The attribute on a tool's exception holding the error result FastMCP answered for it."""


def _answered(exc: BaseException, text: str | None) -> str:
    """FastMCP's own text for the call ``exc`` ended (``Error calling tool 'x': ...``)."""
    from agentforge_cli.core.run.call_policy import error_message

    answer = getattr(exc, _ANSWER, None)
    return answer if isinstance(answer, str) else error_message(exc)


def _invoke(connection: _Connection, name: str, text: str | None) -> ToolExecutionResult:
    from mcp.shared.exceptions import MCPError

    from agentforge_cli.core.run.content_blocks import blocks_text
    from agentforge_cli.integrations.mcp.client.executor import McpToolResult

    arguments: Any
    if isinstance(text, dict):  # serve hands the tools/call arguments object on as parsed
        arguments = dict(text)
    elif text is None or not text.strip():
        arguments = {}
    else:
        try:
            arguments = json.loads(text)
        except ValueError as exc:
            return refusal(f"the arguments of {name} are not valid JSON: {exc}")
        if not isinstance(arguments, dict):
            return refusal("tools/call arguments must be a JSON object, not "
                                          f"{type(arguments).__name__}")
    try:
        answer, failure = connection.call(name, arguments)
    except MCPError as exc:  # a JSON-RPC error answer
        return ToolExecutionResult(f"Error executing tool {name}: {exc.error.message}", True)
    content = [block.model_dump(mode="json", by_alias=True, exclude_none=True)
               for block in answer.content]
    if answer.is_error and failure is not None:
        with contextlib.suppress(Exception):  # an exception refusing attributes: our words
            setattr(failure, _ANSWER, blocks_text(content))
        raise failure
    result = McpToolResult(blocks_text(content), bool(answer.is_error))
    result.arguments = arguments
    result.content = content
    result.structured_content = answer.structured_content
    return result


# ---------------------------------------------------------------- export


def to_fastmcp(tools: Any, name: str = "agentforge") -> Any:
    """agentforge's tools as a ``fastmcp.FastMCP`` server named ``name``.

    ``tools`` is what :func:`~agentforge_cli.build_local_tools` takes, or a
    ``ToolService``. Each tool lists agentforge's schema (``inputSchema`` = its
    ``parameters``) and its calls go through agentforge's executor, coercion and repairs
    included: the arguments FastMCP receives are sent on as JSON text, and the result is
    one text block (``isError`` when agentforge's result is an error).
    """
    from fastmcp import FastMCP
    from fastmcp.tools.base import Tool, ToolResult

    from agentforge_cli.integrations.frameworks.exporting import exported_tools

    exported = exported_tools(tools)
    by_name = {tool.name: tool for tool in exported}

    class AgentforgeTool(Tool):
        """One agentforge tool: its schema, and calls through its executor."""

        async def run(self, arguments: dict[str, Any]) -> Any:
            result = await by_name[self.name].acall(arguments)
            structured = None
            if self.output_schema is not None and not result.is_error:
                with contextlib.suppress(ValueError):
                    value = json.loads(result.text)
                    structured = value if isinstance(value, dict) else None
            return ToolResult(content=result.text, structured_content=structured,
                              is_error=result.is_error)

    server = FastMCP(name)
    for tool in exported:
        spec = tool.specification
        annotations = None
        if spec.annotations:
            from mcp.types import ToolAnnotations

            annotations = ToolAnnotations.model_validate(spec.annotations)
        server.add_tool(AgentforgeTool(name=spec.name, title=spec.title,
                                       description=spec.description,
                                       parameters=dict(spec.parameters),
                                       output_schema=spec.output_schema,
                                       annotations=annotations))
    return server
