"""``notifications/.../list_changed`` of the MCP servers served again (``serve
'mcp:...'``), passed on to every client session of the initialize handshake. Resources
and prompts are asked of the servers at each ``resources/list`` or ``prompts/list``, so a
client that lists again sees the change; a server's tools are listed again first and put
in place of those it had in the served table
(:mod:`~agentforge_cli.integrations.mcp.server.tool_changes`), then the change is told.

A 2026-07-28 session hears of changes only on a ``subscriptions/listen`` stream, which
``serve`` does not offer (it declares no ``listChanged`` there).

A session is known from its requests (any request: the ``initialize`` of a session
already makes it known); each is told on its own connection's stream.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentforge_cli.integrations.mcp.client.surface import ServerSurface

__all__ = ["PASSED_ON", "TOOLS_CHANGED", "ListChanges"]

TOOLS_CHANGED = "notifications/tools/list_changed"
PASSED_ON = {TOOLS_CHANGED: "tools", "notifications/resources/list_changed": "resources",
             "notifications/prompts/list_changed": "prompts"}
"""The notifications passed on, and the capability each one's ``listChanged`` is in."""
_MAX_SESSIONS = 1_000
"""Client sessions remembered at most (the longest silent are forgotten first)."""
_MODERN = "2026-07-28"


class ListChanges:
    """The client sessions of one ``serve``, told of the upstreams' list changes."""

    def __init__(self) -> None:
        self._sessions: OrderedDict[int, tuple[object, Any, asyncio.AbstractEventLoop]] = (
            OrderedDict())
        self._lock = threading.Lock()
        self.tools_changed: Callable[[Any], None] | None = None
        """Called with the connection of a server whose tools changed, which tells the
        sessions once the served table is in place (set before :meth:`listen_to`);
        ``None``: such a change is not passed on."""

    def listen_to(self, surfaces: Iterable[ServerSurface]) -> frozenset[str]:
        """Hear the list changes of ``surfaces``' servers (those they tell of without
        declaring ``listChanged`` too, as the SDK's ``MCPServer`` does); the capabilities
        (``tools``, ``resources``, ``prompts``) whose ``listChanged`` one of them
        declares."""
        declared = set()
        for surface in surfaces:
            capabilities = surface.capabilities()
            declared |= {name for name in PASSED_ON.values()
                         if (capabilities.get(name) or {}).get("listChanged")}
            surface.connection.on_list_changed = functools.partial(self._heard,
                                                                   surface.connection)
        if self.tools_changed is None:
            declared.discard("tools")
        return frozenset(declared)

    def _heard(self, connection: Any, method: str) -> None:
        if method != TOOLS_CHANGED:
            self.tell(method)
        elif self.tools_changed is not None:
            self.tools_changed(connection)

    async def middleware(self, ctx: Any, call_next: Any) -> Any:
        """Know the session of each request of the handshake (a middleware)."""
        version = ctx.protocol_version
        owner = ctx.session.client_params
        if owner is not None and (version is None or version < _MODERN):
            with self._lock:
                self._sessions[id(owner)] = (owner, ctx.session, asyncio.get_running_loop())
                self._sessions.move_to_end(id(owner))
                while len(self._sessions) > _MAX_SESSIONS:
                    self._sessions.popitem(last=False)
        return await call_next(ctx)

    def tell(self, method: str) -> None:
        """Pass ``method`` (a ``.../list_changed``) on to every session known (from any
        thread)."""
        if method not in PASSED_ON:
            return
        with self._lock:
            known = list(self._sessions.values())
        for _, session, loop in known:
            if not loop.is_closed():
                asyncio.run_coroutine_threadsafe(_notify(session, method), loop)


async def _notify(session: Any, method: str) -> None:
    from mcp import types

    notification = (types.ToolListChangedNotification() if method == TOOLS_CHANGED
                    else types.ResourceListChangedNotification() if "resources" in method
                    else types.PromptListChangedNotification())
    await session.send_notification(notification)
