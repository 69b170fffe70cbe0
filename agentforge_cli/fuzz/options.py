"""How to fuzz: :class:`FuzzOptions`, what the command's and the pytest route's options
become."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentforge_cli.fuzz.classify import CrashRule

__all__ = ["FuzzOptions"]


@dataclass(frozen=True, kw_only=True, slots=True)
class FuzzOptions:
    """How to fuzz."""

    examples: int = 200
    """Calls per tool."""
    seed: int = 0
    rule: CrashRule = field(default_factory=CrashRule)
    include_destructive: bool = False
    """Also call tools annotated ``destructiveHint: true`` and MCP tools not marked
    ``readOnlyHint: true``; and call the Python tools that declare effects
    (:func:`~agentforge_cli.fuzz.selection.declares_effects`) without the effect guard."""
    allow_effects: bool = False
    """Call Python tools without the effect guard."""
    served: frozenset[str] = frozenset()
    """The tools of MCP servers: called only when marked read-only (see
    :func:`~agentforge_cli.fuzz.selection.skip_reason`), named in :attr:`chosen`, or with
    :attr:`include_destructive`; never under the guard (they run in their server's
    process)."""
    chosen: frozenset[str] = frozenset()
    """The tools the user named (``--tool``)."""
