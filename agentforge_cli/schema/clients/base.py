"""What an MCP client is to ``tools check --client``: a declared set of rules, each with
the page or issue it comes from and the date it was checked.

A :class:`Client` says which rule kinds (:data:`RULE_KINDS`) apply to it and with what
limit, how it rewrites tool names before the model sees them, and which providers'
lint rules describe the model behind it. :mod:`~agentforge_cli.schema.clients.rules`
turns a client and a tool set into findings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["RULE_KINDS", "Client", "ClientRule", "Source"]

RULE_KINDS: dict[str, str] = {
    "name": "tool name characters",
    "name-length": "tool name length (with the client's prefix)",
    "name-collision": "names that collide once the client rewrites them",
    "input-root": "input schema root: an object, no anyOf/oneOf/allOf",
    "output-root": 'outputSchema root: {"type": "object"}',
    "output-dialect": "outputSchema dialect ($schema)",
    "refs": "$ref / $defs in the input schema",
    "description-length": "tool description length",
    "tool-count": "tools in one request",
    "strict-optional": "optional parameters across all strict tools",
    "strict-unions": "union-typed parameters across all strict tools",
}
"""Every rule kind a client can declare, with what it is about (the docs table's rows).
A finding's rule id is ``<client>:<kind>``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Source:
    """Where a rule comes from."""

    url: str
    """A documentation page or an issue."""
    checked: str
    """The date it was last read against the client (``YYYY-MM-DD``)."""
    note: str = ""
    """What is uncertain about it (a limit seen in reports only, a version)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ClientRule:
    """One rule of one client."""

    kind: str
    """One of :data:`RULE_KINDS`."""
    level: str
    """``error``: the tool (or the whole server) does not work; ``warning``: it works
    in a degraded way (truncated, renamed, some of it ignored)."""
    source: Source
    """Where the rule comes from."""
    consequence: str
    """What the client does when the rule is broken, for the message."""
    limit: int | None = None
    """The number a ``*-length``, ``tool-count`` or ``strict-*`` rule allows."""
    pattern: str | None = None
    """The regular expression a ``name`` rule's names must match whole."""
    prefix: str = ""
    """What a ``name-length`` rule counts before the name (``mcp__<server>__``); the
    ``<server>`` part counts as nothing, the message says so."""


def _keep(name: str) -> str:
    return name


@dataclass(frozen=True, kw_only=True, slots=True)
class Client:
    """Everything ``tools check --client`` knows about one client; the registry in
    :mod:`agentforge_cli.schema.clients` lists them."""

    name: str
    """What ``--client`` takes, and the prefix of its findings' rules."""
    title: str
    """The client's name as people write it."""
    rules: tuple[ClientRule, ...]
    """Its rules (at most one per kind)."""
    providers: tuple[str, ...] = ()
    """The providers whose lint rules describe the model behind the client."""
    providers_note: str = ""
    """Why these providers (the client lets users pick other models, ...)."""
    rewrite: Callable[[str], str] = _keep
    """How the client rewrites a tool name before the model sees it (``name-collision``
    compares the rewritten names)."""

    def rule(self, kind: str) -> ClientRule | None:
        """Its rule of that kind, or ``None``."""
        return next((rule for rule in self.rules if rule.kind == kind), None)
