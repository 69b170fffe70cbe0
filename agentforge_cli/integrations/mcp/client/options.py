"""How to reach the MCP servers of a command: :class:`McpOptions` (``--header``, ``--env``,
``--cwd``, ``--protocol-era``, ``--oauth``, ``--root``, ``--elicit``, the call timeout), the
timeouts' defaults and the
environment variables read."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentforge_cli.errors import TargetConfigError
from agentforge_cli.integrations.mcp.client.eras import DEFAULT_ERA, ProtocolEra, check_era
from agentforge_cli.integrations.mcp.client.listing import SkippedTool
from agentforge_cli.integrations.mcp.client.server_requests import ClientAnswers

__all__ = ["DEFAULT_CALL_TIMEOUT", "DEFAULT_TIMEOUT", "HEADERS_VAR", "TIMEOUT_VAR",
           "McpOptions", "startup_timeout"]

TIMEOUT_VAR = "AGENTFORGE_MCP_TIMEOUT"
HEADERS_VAR = "AGENTFORGE_MCP_HEADERS"
DEFAULT_TIMEOUT = 10.0
"""Seconds a server may take to start and answer ``initialize`` and ``tools/list``."""
DEFAULT_CALL_TIMEOUT = 60.0
"""Seconds a ``tools/call`` may take unless the command says otherwise (``--timeout``)."""


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
    """Receives each tool a server lists that cannot be used (see
    :func:`~agentforge_cli.integrations.mcp.client.loading.load_mcp_tools`)."""
    protocol_era: ProtocolEra = DEFAULT_ERA
    """How sessions open: ``auto`` (``server/discover``, falling back to ``initialize``),
    ``legacy`` (``initialize`` only) or ``modern`` (2026-07-28 only); see
    :mod:`~agentforge_cli.integrations.mcp.client.eras`."""
    oauth: bool = False
    """Authorize with OAuth an ``http(s)://`` server that asks for it (``--oauth``): the
    user is sent to the authorization URL, given to :attr:`on_authorize`. Without it,
    tokens cached by an earlier authorization are still used (and refreshed); see
    :mod:`~agentforge_cli.integrations.mcp.client.oauth`."""
    on_authorize: Callable[[str], None] | None = None
    """Receives the authorization URL to show the user (the command line prints it on
    standard error)."""
    answers: ClientAnswers = field(default_factory=ClientAnswers)
    """What the servers' requests are answered (roots, elicitation) and who hears of them
    and of the servers' progress and log messages; see
    :mod:`~agentforge_cli.integrations.mcp.client.server_requests`."""

    def __post_init__(self) -> None:
        try:
            check_era(self.protocol_era)
        except ValueError as exc:
            raise TargetConfigError(str(exc)) from None


def startup_timeout(timeout: float | None) -> float:
    """The seconds a server gets to start: ``timeout`` when given, else
    ``AGENTFORGE_MCP_TIMEOUT``, else :data:`DEFAULT_TIMEOUT`."""
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
