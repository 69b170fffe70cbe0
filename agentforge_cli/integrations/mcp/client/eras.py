"""The two eras of the MCP protocol, and how a connection agrees on one
(``--protocol-era``).

* ``legacy``: a session opened by the ``initialize`` handshake (revisions 2024-11-05 to
  2025-11-25); the version is agreed once, for the session.
* ``modern``: revision 2026-07-28, stateless. There is no handshake: ``server/discover``
  says which versions and capabilities the server has, and every request carries the
  version, the client's name and its capabilities in ``_meta`` (over HTTP also in the
  ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers). The SDK's session
  stamps each request once it has adopted the discover result.
* ``auto`` (the default): ``server/discover`` first; a server that answers it with
  anything but a modern result or a modern error is a legacy one, and ``initialize``
  follows. This is the policy of the SDK's own ``Client(mode="auto")``, run on
  agentforge's session (:func:`agree`).

The HTTP+SSE transport belongs to the legacy era: a connection over it always opens with
``initialize``. What a connection learnt of its server (:class:`Agreement`) is kept, so
that a session opened later to the same server (the SDK's, after a listing without it)
neither probes nor negotiates again, as the specification advises.

Importing this module loads only the standard library.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

__all__ = ["DEFAULT_ERA", "ERAS", "MODERN_VERSIONS", "Agreement", "ProtocolEra", "agree",
           "check_era", "refusal", "supported_versions"]

ProtocolEra = Literal["auto", "legacy", "modern"]
"""How a connection chooses its protocol era."""
ERAS: tuple[str, ...] = get_args(ProtocolEra)
DEFAULT_ERA: ProtocolEra = "auto"
MODERN_VERSIONS = ("2026-07-28",)
"""The stateless revisions agentforge speaks, oldest first (a test keeps them equal to the
SDK's); the last is offered."""
UNSUPPORTED_VERSION = -32022
"""The error of a modern server that does not speak the version a request names."""


@dataclass(frozen=True, slots=True)
class Agreement:
    """The protocol a connection agreed on with its server."""

    version: str
    """The protocol version, e.g. ``2026-07-28`` or ``2025-11-25``."""
    discovered: Mapping[str, Any] | None = None
    """The ``server/discover`` result of a modern server (``None``: a legacy one)."""
    initialized: Mapping[str, Any] | None = None
    """The ``initialize`` result of a legacy session still open, which a session opened
    later adopts to go on with it (its ``Mcp-Session-Id`` given by the caller)."""

    @property
    def era(self) -> str:
        """``modern`` or ``legacy``."""
        return "legacy" if self.discovered is None else "modern"


def check_era(era: str) -> ProtocolEra:
    """``era`` when it names an era.

    Raises:
        ValueError: It names none (the message lists them).
    """
    for known in get_args(ProtocolEra):
        if era == known:
            chosen: ProtocolEra = known
            return chosen
    raise ValueError(f"unknown protocol era {era!r}: choose one of {', '.join(ERAS)}")


async def agree(session: Any, era: ProtocolEra, known: Agreement | None, *,
                legacy_transport: bool) -> Agreement:
    """Open ``session`` (the SDK's ``ClientSession``) in the era asked for, and say what
    was agreed.

    ``known`` (what an earlier connection to the server agreed) is adopted without a
    request of its own; a legacy-only transport (HTTP+SSE) opens with ``initialize``.

    Raises:
        mcp.shared.exceptions.MCPError: The server refused the request that opens the
            era (``initialize``, ``server/discover``), or shares no version with
            agentforge.
    """
    if known is not None and known.discovered is not None:
        from mcp import types

        session.adopt(types.DiscoverResult.model_validate(dict(known.discovered)))
    elif known is not None and known.initialized is not None:
        from mcp import types

        session.adopt(types.InitializeResult.model_validate(dict(known.initialized)))
        return known
    elif known is not None or era == "legacy" or legacy_transport:
        await session.initialize()
    elif era == "modern":
        await session.discover()
    else:
        # the SDK's Client(mode="auto") runs this policy; agentforge runs it on its own
        # session (a dispatcher that sorts tools/list), which Client cannot take
        from mcp.client._probe import negotiate_auto

        await negotiate_auto(session)
    discovered = session.discover_result
    return Agreement(version=session.protocol_version,
                     discovered=None if discovered is None else discovered.model_dump(
                         mode="json", by_alias=True, exclude_none=True))


def refusal(era: ProtocolEra, code: int | None) -> tuple[str, str | None]:
    """What the server did when it refused the request that opens ``era`` with the
    JSON-RPC error ``code`` (``refused initialize``...), and what to do about it."""
    if code == UNSUPPORTED_VERSION and era != "legacy":
        return "shares no protocol version with agentforge", (
            f"agentforge speaks {', '.join(MODERN_VERSIONS)} and the initialize handshake "
            "(2024-11-05 to 2025-11-25)")
    if era == "legacy":
        return "refused initialize", (
            "a server of the stateless 2026-07-28 revision answers no initialize: drop "
            "--protocol-era legacy (auto, the default, asks server/discover first)")
    if era == "modern":
        return "refused server/discover", (
            "a server of the initialize handshake (2025-11-25 and older) answers no "
            "server/discover: drop --protocol-era modern (auto, the default, falls back to "
            "initialize)")
    return "refused initialize (its server/discover was refused too)", None


def supported_versions(error: Any) -> list[str]:
    """The versions an ``UnsupportedProtocolVersionError`` (the SDK's ``MCPError``) names
    (none when it names none)."""
    data = getattr(getattr(error, "error", None), "data", None)
    supported = data.get("supported") if isinstance(data, dict) else None
    if not isinstance(supported, list):
        return []
    return [str(version) for version in supported][:10]
