"""Reading ``tools/list`` one tool at a time, so that one malformed tool does not reject a
whole MCP server.

The SDK's session checks a ``tools/list`` page as a whole: one tool whose ``inputSchema``
is not an object schema, or that has no name, fails the page with a pydantic error.
:func:`tool_sorter` makes the SDK's own JSON-RPC dispatcher (given to the session as
``ClientSession(dispatcher=...)``) that checks each tool of a ``tools/list`` answer on its
own, as the session would (against the negotiated protocol version, then the SDK's
``Tool``), passes the valid ones on to the session and keeps the others (each one's name
and why), each of which becomes a :class:`SkippedTool`. The SDK is imported when a sorter is
made, not with this module.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_PAGES", "SkippedTool", "as_json", "tool_sorter"]

_FALLBACK_VERSION = "2025-11-25"  # the SDK's own fallback before a version is negotiated
MAX_PAGES = 1000
"""Pages of ``tools/list`` read before a server that keeps paging is given up on."""


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


def as_json(tool: Any) -> dict[str, Any]:
    """The SDK's ``Tool`` as the JSON of a ``tools/list`` entry."""
    json: dict[str, Any] = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json


def _reason(error: Any) -> str:
    """The first problem of a pydantic ``ValidationError``, where it is inside the tool."""
    first = error.errors()[0]
    location = [str(part) for part in first["loc"]]
    if location[:1] == ["tools"]:
        location = location[2:]  # the tool's own fields: drop "tools", index
    where = ".".join(location)
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def _problem(tool: Any, version: str | None, page: Mapping[str, Any] | None = None
             ) -> str | None:
    """Why the session would refuse ``tool``, listed on ``page`` (the rest of its
    ``tools/list`` result: 2026-07-28 requires fields of its own there); ``None``: it
    would not."""
    from mcp import types
    from mcp_types import methods
    from pydantic_core import ValidationError

    try:
        methods.validate_server_result("tools/list", version or _FALLBACK_VERSION,
                                       {**(page or {}), "tools": [tool]})
    except ValidationError as exc:  # (a ValueError: caught first)
        return _reason(exc)
    except (KeyError, ValueError):  # a version the SDK has no table for: Tool decides
        pass
    try:
        types.Tool.model_validate(tool, by_name=False)
    except ValidationError as exc:
        return _reason(exc)
    return None


@functools.cache
def _sorter_class() -> type[Any]:
    from mcp.shared.dispatcher import CallOptions
    from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

    class ToolSorter(JSONRPCDispatcher):
        """A JSON-RPC dispatcher whose ``tools/list`` answers hold only valid tools; the
        others are appended to ``skipped`` as ``(name, why)``; a tool without a usable
        name is named ``#N``, its place in the listing. ``version`` gives the negotiated
        protocol version (the session's), read when a page arrives."""

        def __init__(self, read_stream: Any, write_stream: Any) -> None:
            super().__init__(read_stream, write_stream)
            self.version: Callable[[], str | None] = lambda: None
            self.skipped: list[tuple[str, str]] = []

        async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                                   opts: CallOptions | None = None, **more: Any
                                   ) -> dict[str, Any]:
            answer = await super().send_raw_request(method, params, opts, **more)
            tools = answer.get("tools")
            if method != "tools/list" or not isinstance(tools, list):
                return answer
            kept = []
            for index, tool in enumerate(tools, 1):
                problem = _problem(tool, self.version(), answer)
                if problem is None:
                    kept.append(tool)
                    continue
                name = tool.get("name") if isinstance(tool, dict) else None
                shown = name if isinstance(name, str) and name else f"#{index}"
                self.skipped.append((shown, problem))
            return {**answer, "tools": kept}

    return ToolSorter


def tool_sorter(read_stream: Any, write_stream: Any) -> Any:
    """A sorting dispatcher over the transport's streams (attributes ``version``, to set
    to the session's, and ``skipped``)."""
    return _sorter_class()(read_stream, write_stream)
