"""An MCP server's resources, resource templates and prompts: listed, read and got through
the SDK's session (:class:`ServerSurface`), for ``agentforge resources`` and ``agentforge
prompts``.

Each list is read page by page, as ``tools/list`` is; a server that does not declare the
capability (``resources``, ``prompts``) is not asked, and has none. Every object is kept
as the JSON of the protocol (``by_alias``, no ``null``), which is what the commands print
with ``--format json`` and what snapshots keep.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.mcp.client.connection import McpConnection
from agentforge_cli.integrations.mcp.client.listing import MAX_PAGES
from agentforge_cli.integrations.mcp.client.options import McpOptions

if TYPE_CHECKING:
    from agentforge_cli.schema.surface import McpSurface

__all__ = ["ServerSurface", "open_surface", "served_surface"]


def _json(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


class ServerSurface:
    """The resources and prompts of one MCP server, on an open connection."""

    def __init__(self, connection: McpConnection) -> None:
        self.connection = connection

    @property
    def shown(self) -> str:
        """The server as messages name it, with its protocol version."""
        return self.connection.shown

    def capabilities(self) -> dict[str, Any]:
        """The server's capabilities, as it declared them (the JSON of the protocol)."""
        declared: dict[str, Any] = self.connection.ask("capabilities", _capabilities)
        return declared

    def _declares(self, capability: str) -> bool:
        return self.capabilities().get(capability) is not None

    def _pages(self, method: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = self.connection.ask(method, _page, method, cursor)
            items.extend(page.get(key) or [])
            cursor = page.get("nextCursor")
            if not cursor:
                return items
        raise TargetError(f"MCP server {self.shown} keeps paging past {MAX_PAGES} pages of "
                          f"{method} (it always answers with a nextCursor)")

    def resources(self) -> list[dict[str, Any]]:
        """Every resource of ``resources/list``."""
        return self._pages("resources/list", "resources") if self._declares("resources") else []

    def templates(self) -> list[dict[str, Any]]:
        """Every resource template of ``resources/templates/list``."""
        if not self._declares("resources"):
            return []
        return self._pages("resources/templates/list", "resourceTemplates")

    def prompts(self) -> list[dict[str, Any]]:
        """Every prompt of ``prompts/list``."""
        return self._pages("prompts/list", "prompts") if self._declares("prompts") else []

    def read(self, uri: str) -> dict[str, Any]:
        """The ``resources/read`` result of ``uri``.

        Raises:
            mcp.shared.exceptions.MCPError: The server refused it (no such resource...).
        """
        return self.connection.ask(f"resources/read {uri}", _read, uri)  # type: ignore[no-any-return]  # the JSON of a result

    def get(self, name: str, arguments: Mapping[str, str]) -> dict[str, Any]:
        """The ``prompts/get`` result of ``name`` with ``arguments``.

        Raises:
            mcp.shared.exceptions.MCPError: The server refused it.
        """
        return self.connection.ask(f"prompts/get {name}", _get, name,  # type: ignore[no-any-return]  # the JSON of a result
                                   dict(arguments))

    def send(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Send the request ``method`` with ``params`` as they are, and return the
        server's result as it is (the JSON), unchecked: for what the SDK's session has no
        typed request or would refuse the answer of (a ``tools/call`` made a task, whose
        answer is a ``CreateTaskResult``; ``tasks/get``...).

        Raises:
            mcp.shared.exceptions.MCPError: The server refused it.
        """
        return self.connection.ask(method, _raw, method, dict(params))  # type: ignore[no-any-return]  # the JSON of a result

    def close(self) -> None:
        """End the session and the server."""
        self.connection.close()


async def _capabilities(session: Any) -> dict[str, Any]:
    capabilities = session.server_capabilities
    return {} if capabilities is None else _json(capabilities)


async def _page(session: Any, method: str, cursor: str | None) -> dict[str, Any]:
    from mcp import types

    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
    if method == "resources/list":
        return _json(await session.list_resources(params=params))
    if method == "resources/templates/list":
        return _json(await session.list_resource_templates(params=params))
    return _json(await session.list_prompts(params=params))


async def _raw(session: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    # The session's typed path checks a tools/call answer against CallToolResult, which a
    # task's CreateTaskResult is not: this sends through the session's own dispatcher,
    # stamped as the session stamps its requests (the protocol version header).
    data: dict[str, Any] = {"method": method, "params": params}
    options: dict[str, Any] = {}
    session._stamp(data, options)
    answer = await session._dispatcher.send_raw_request(method, data.get("params"), options)
    return dict(answer)


async def _read(session: Any, uri: str) -> dict[str, Any]:
    import functools

    from agentforge_cli.integrations.mcp.client.answering import call_answering

    return _json(await call_answering(session, functools.partial(session.read_resource, uri)))


async def _get(session: Any, name: str, arguments: dict[str, str]) -> dict[str, Any]:
    import functools

    from agentforge_cli.integrations.mcp.client.answering import call_answering

    send = functools.partial(session.get_prompt, name, arguments)
    return _json(await call_answering(session, send))


def open_surface(spec: str, base: Path, *, options: McpOptions | None = None,
                 timeout: float | None = None) -> ServerSurface:
    """Start the server ``spec`` names (``mcp:COMMAND`` or a URL) and open its session.

    Raises:
        TargetConfigError: A malformed command or URL, or the SDK is not installed.
        TargetError: The server cannot be started or spoken to.
    """
    from agentforge_cli.integrations.mcp.client.connecting import server_connection

    connection = server_connection(spec, base, options=options, timeout=timeout)
    connection.open_session()
    return ServerSurface(connection)


def served_surface(executors: Iterable[Any]) -> McpSurface | None:
    """The resources, templates and prompts of every MCP server whose tools ``executors``
    call (each server once, on the connection its tools already use), for a snapshot;
    ``None`` when no executor calls an MCP server.

    Raises:
        SnapshotError: Two servers list an object under one key.
        TargetError: A server cannot be spoken to, or refused a list.
    """
    from agentforge_cli.core.run.wrapping import innermost
    from agentforge_cli.integrations.mcp.client.executor import McpToolExecutor
    from agentforge_cli.schema.surface import McpSurface

    connections: list[McpConnection] = []
    for executor in executors:
        base = innermost(executor)
        if isinstance(base, McpToolExecutor) and all(base.connection is not c
                                                     for c in connections):
            connections.append(base.connection)
    if not connections:
        return None
    from mcp.shared.exceptions import MCPError  # the SDK: only once a server is there

    listed: dict[str, list[dict[str, Any]]] = {"resources": [], "resourceTemplates": [],
                                               "prompts": []}
    for connection in connections:
        surface = ServerSurface(connection)
        try:
            listed["resources"].extend(surface.resources())
            listed["resourceTemplates"].extend(surface.templates())
            listed["prompts"].extend(surface.prompts())
        except MCPError as exc:
            raise TargetError(f"MCP server {surface.shown} refused to list its resources "
                              f"or prompts for the snapshot: {exc}") from None
    return McpSurface.from_lists(listed)
