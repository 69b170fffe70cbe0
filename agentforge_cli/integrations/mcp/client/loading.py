"""MCP servers as targets: :func:`load_mcp_tools` reaches the server a target names and
makes each of its tools a specification with its executor; the tools join the others.

``mcp:COMMAND [ARGS...]`` starts a server over stdio, ``http://...``/``https://...``
reaches one over streamable HTTP or the older HTTP+SSE transport (the transports and
when each is used: :mod:`~agentforge_cli.integrations.mcp.client.transports`), with the
headers of ``AGENTFORGE_MCP_HEADERS`` and :class:`McpOptions`, never printed, in the
protocol era :attr:`McpOptions.protocol_era` asks for
(:mod:`~agentforge_cli.integrations.mcp.client.eras`). A
streamable-HTTP server that answers plainly is listed without the SDK
(:mod:`~agentforge_cli.integrations.mcp.client.plain_listing`). Its tools come from
``tools/list`` (every page) and keep the server's names, descriptions, ``inputSchema``,
``outputSchema``, title, annotations and ``execution`` (a tool the SDK's types refuse is
left out and reported; one that must be called as a task is
reported, and its calls are sent as plain ones);
calling one sends ``tools/call`` with the arguments as given (the server binds them):
:mod:`~agentforge_cli.integrations.mcp.client.executor`.

Start-up waits at most ``timeout`` seconds (default
:data:`~agentforge_cli.integrations.mcp.client.options.DEFAULT_TIMEOUT`, or
``AGENTFORGE_MCP_TIMEOUT``); calls wait at most the caller's ``timeout`` when one is
given, else :attr:`McpOptions.call_timeout`
(:data:`~agentforge_cli.integrations.mcp.client.options.DEFAULT_CALL_TIMEOUT`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.mcp.client.connection import McpConnection
from agentforge_cli.integrations.mcp.client.executor import McpToolExecutor
from agentforge_cli.integrations.mcp.client.listing import as_json
from agentforge_cli.integrations.mcp.client.options import McpOptions

__all__ = ["load_mcp_server", "load_mcp_tools", "protocol_of", "tool_specification"]


def tool_specification(tool: Mapping[str, Any] | Any) -> ToolSpecification:
    """An MCP tool of a ``tools/list`` answer (its JSON, or the SDK's ``Tool``) as a
    specification."""
    if not isinstance(tool, Mapping):
        tool = as_json(tool)
    return ToolSpecification(name=tool["name"], description=tool.get("description") or "",
                             parameters=tool["inputSchema"], title=tool.get("title"),
                             annotations=tool.get("annotations") or None,
                             output_schema=tool.get("outputSchema"),
                             execution=tool.get("execution") or None,
                             icons=tool.get("icons") or None, meta=tool.get("_meta") or None)


def _refuse_duplicates(connection: McpConnection, tools: list[Any]) -> None:
    """Two tools of one name: the server cannot tell which one a call means."""
    first: dict[str, int] = {}
    for index, tool in enumerate(tools, 1):
        name = tool["name"]
        if name in first:
            connection.close()
            raise TargetError(f"MCP server {connection.shown} lists two tools named "
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
        raise TargetError(f"MCP server {connection.shown} lists tools that cannot be used: "
                          + "; ".join(f"{s.name!r} ({s.reason})" for s in connection.skipped),
                          hint="the command line leaves such tools out and warns")


def load_mcp_tools(spec: str, base: Path, *, timeout: float | None = None,
                   logging: bool = False, propagate_execution_errors: bool = False,
                   options: McpOptions | None = None,
                   skip_problems: Callable[[str], None] | None = None
                   ) -> dict[ToolSpecification, Any]:
    """Start the server ``spec`` names and return its tools and their executors
    (:func:`load_mcp_server`'s table)."""
    return load_mcp_server(spec, base, timeout=timeout, logging=logging,
                           propagate_execution_errors=propagate_execution_errors,
                           options=options, skip_problems=skip_problems)[1]


def load_mcp_server(spec: str, base: Path, *, timeout: float | None = None,
                    logging: bool = False, propagate_execution_errors: bool = False,
                    options: McpOptions | None = None,
                    skip_problems: Callable[[str], None] | None = None
                    ) -> tuple[McpConnection, dict[ToolSpecification, Any]]:
    """Start the server ``spec`` names: its open connection, and its tools and their
    executors. The connection is kept even when the server lists no tool (a server of
    resources and prompts only, which ``serve`` serves again).

    ``timeout`` bounds start-up and each call (default: see the module docstring, and
    :attr:`McpOptions.call_timeout` for the calls). ``options`` adds headers
    (``http(s)://``), or environment variables and a working directory (``mcp:``).

    A tool of the server's ``tools/list`` that the SDK's types refuse is left out, the
    others load: each goes to :attr:`McpOptions.on_skipped` as a
    :class:`~agentforge_cli.integrations.mcp.client.listing.SkippedTool`, else to
    ``skip_problems`` as a message; with neither, the server is refused (a
    ``TargetError`` naming them).

    Raises:
        TargetConfigError: An empty or malformed command, or the SDK is not installed.
        TargetError: The server cannot be started or spoken to.
    """
    from agentforge_cli.integrations.mcp.client.connecting import server_connection

    options = options or McpOptions()
    connection = server_connection(spec, base, options=options, timeout=timeout)
    table: dict[ToolSpecification, Any] = {}
    tools = connection.open()
    _refuse_duplicates(connection, tools)
    _report_skipped(connection, options, skip_problems)
    connection.make_executor = functools.partial(
        _executor, connection, logging=logging,
        propagate_execution_errors=propagate_execution_errors)
    for tool in tools:
        specification = tool_specification(tool)
        table[specification] = connection.make_executor(specification)
    return connection, table


def _executor(connection: McpConnection, specification: ToolSpecification, *,
              logging: bool, propagate_execution_errors: bool) -> Any:
    """The executor of one of the server's tools (its calls logged when ``logging``)."""
    executor: Any = McpToolExecutor(connection, specification,
                                    propagate_execution_errors=propagate_execution_errors)
    if logging:
        from agentforge_cli.core.observe.calllog import LoggingToolExecutor

        executor = LoggingToolExecutor(executor)
    return executor


def protocol_of(tools: Mapping[ToolSpecification, Any]) -> str | None:
    """The protocol version agreed with the server of :func:`load_mcp_tools`' ``tools``
    (``None`` when it serves none)."""
    from agentforge_cli.core.run.wrapping import innermost

    for executor in tools.values():
        base = innermost(executor)
        if isinstance(base, McpToolExecutor) and base.connection.agreement is not None:
            return base.connection.agreement.version
    return None
