"""The SDK's low-level ``Server`` with the capabilities that MCP servers served again
(``serve 'mcp:...'``) add in sessions of the initialize handshake: ``tasks``, when one of
them runs tools as tasks
(:mod:`~agentforge_cli.integrations.mcp.server.task_forwarding`), and ``listChanged``,
whose notifications are passed on
(:mod:`~agentforge_cli.integrations.mcp.server.list_changes`). A 2026-07-28 session gets
the SDK's own capabilities: that revision has neither.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["relaying_server"]

_MODERN = "2026-07-28"


@functools.cache
def _server_class() -> type[Any]:
    from mcp import types
    from mcp.server import Server

    class RelayingServer(Server):
        """A ``Server`` declaring :attr:`tasks` and :attr:`list_changed` in handshake
        sessions."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.tasks: dict[str, Any] | None = None
            """The ``tasks`` capability (``None``: none)."""
            self.list_changed: frozenset[str] = frozenset()
            """The lists (``tools``, ``resources``, ``prompts``) whose changes are told."""

        def get_capabilities(self, notification_options: Any = None,
                             experimental_capabilities: Any = None, extensions: Any = None,
                             *, protocol_version: str | None = None) -> Any:
            declared = super().get_capabilities(notification_options,
                                                experimental_capabilities, extensions,
                                                protocol_version=protocol_version)
            if protocol_version is not None and protocol_version >= _MODERN:
                return declared
            if self.tasks is not None:
                declared.tasks = types.ServerTasksCapability.model_validate(self.tasks)
            for name in self.list_changed:
                capability = getattr(declared, name, None)
                if capability is not None:
                    capability.list_changed = True
            return declared

    return RelayingServer


def relaying_server(*args: Any, **kwargs: Any) -> Any:
    """A new ``Server(*args, **kwargs)`` that declares what it relays (set its ``tasks``
    and ``list_changed``)."""
    return _server_class()(*args, **kwargs)
