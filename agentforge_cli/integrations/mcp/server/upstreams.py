"""The MCP servers ``agentforge serve`` serves again (``serve 'mcp:...'``, its *upstreams*):
their resources, resource templates and prompts, merged with what the Python targets
declare (``@resource``, ``@prompt``).

Each list is asked of every upstream when a client lists (every page, served as one), so
what a client sees is what the upstreams hold now; a read goes to the Python target that
declares the URI, else to the upstream that lists it or one of whose templates it fits,
else, when there is a single upstream, to that one (it decides); a get goes to the
target that has the prompt. Answers go on unchanged (text and blob contents, embedded
resources in messages), and an upstream's JSON-RPC error goes on with its code and
message (the SDK's ``MCPError``, raised here for the handler to answer with).

Two targets that offer one resource URI, one template or one prompt name stop ``serve``
before it starts (:meth:`Upstreams.check`), as two tools of one name do. Every method here
blocks (each upstream is spoken to on its connection's own thread): the server calls them
from a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from agentforge_cli.errors import AgentForgeError, TargetError

if TYPE_CHECKING:
    from agentforge_cli.core.run.served_extras import DeclaredExtras
    from agentforge_cli.integrations.mcp.client.surface import ServerSurface

__all__ = ["KINDS", "Upstreams"]

KINDS = {"resources": "uri", "resourceTemplates": "uriTemplate", "prompts": "name"}
"""Each list a server offers, and the key that names one of its objects."""
_WHAT = {"resources": "resource", "resourceTemplates": "resource template",
         "prompts": "prompt"}
_INTERNAL_ERROR = -32603
T = TypeVar("T")


@dataclass
class _Upstream:
    surface: ServerSurface
    listed: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """What each list held when last asked."""

    @property
    def shown(self) -> str:
        return f"MCP server {self.surface.shown}"


def _declared_lists(extras: DeclaredExtras | None) -> dict[str, list[dict[str, Any]]]:
    if not extras:
        return {kind: [] for kind in KINDS}
    return {"resources": extras.list_resources(), "resourceTemplates": extras.list_templates(),
            "prompts": extras.list_prompts()}


class Upstreams:
    """The upstreams of one served service, in the order of the targets."""

    def __init__(self, surfaces: Iterable[ServerSurface],
                 declared: DeclaredExtras | None = None) -> None:
        self._upstreams = [_Upstream(surface) for surface in surfaces]
        self.declared = declared

    @classmethod
    def of(cls, service: Any) -> Upstreams:
        """The upstreams of ``service`` (a ``ToolService``), each once: the servers its
        targets name (``service.servers``, those that list no tool too), then any other
        whose tools it holds; and what its Python targets declare."""
        from agentforge_cli.core.run.wrapping import innermost
        from agentforge_cli.integrations.mcp.client.executor import McpToolExecutor
        from agentforge_cli.integrations.mcp.client.surface import ServerSurface

        found = [*service.servers]
        for name in service.names:
            base = innermost(service.executor(name))
            if isinstance(base, McpToolExecutor):
                found.append(base.connection)
        connections: list[Any] = []
        for connection in found:
            if all(connection is not known for known in connections):
                connections.append(connection)
        return cls(map(ServerSurface, connections), service.extras)

    def __bool__(self) -> bool:
        return bool(self._upstreams)

    @property
    def surfaces(self) -> list[ServerSurface]:
        return [upstream.surface for upstream in self._upstreams]

    # -- lists ----------------------------------------------------------------------------

    def _ask_lists(self, upstream: _Upstream) -> dict[str, list[dict[str, Any]]]:
        surface = upstream.surface
        upstream.listed = self._forward(lambda: {"resources": surface.resources(),
                                                 "resourceTemplates": surface.templates(),
                                                 "prompts": surface.prompts()})
        return upstream.listed

    def check(self) -> None:
        """List every upstream once, and refuse two targets offering one object.

        Raises:
            TargetError: Two targets offer one resource URI, template or prompt name, or
                an upstream refused a list.
        """
        owners: dict[tuple[str, str], str] = {}
        for kind, items in _declared_lists(self.declared).items():
            for item in items:
                owners[kind, item[KINDS[kind]]] = "the Python targets"
        from mcp.shared.exceptions import MCPError

        for upstream in self._upstreams:
            try:
                listed = self._ask_lists(upstream)
            except MCPError as refused:
                raise TargetError(f"{upstream.shown} refused to list its resources or "
                                  f"prompts: {refused.message}") from None
            for kind, items in listed.items():
                for item in items:
                    key = (kind, str(item.get(KINDS[kind])))
                    if key in owners:
                        raise TargetError(
                            f"Duplicated {_WHAT[kind]} {key[1]!r}: offered by "
                            f"{owners[key]} and by {upstream.shown}",
                            hint="serve only one of them")
                    owners[key] = upstream.shown

    def lists(self) -> dict[str, list[dict[str, Any]]]:
        """Every list, the Python targets' first, then each upstream's as it is now (an
        object already listed under its key is not listed twice).

        Raises:
            mcp.shared.exceptions.MCPError: An upstream refused a list, or failed.
        """
        merged = _declared_lists(self.declared)
        seen = {(kind, item[KINDS[kind]]) for kind, items in merged.items() for item in items}
        for upstream in self._upstreams:
            for kind, items in self._ask_lists(upstream).items():
                for item in items:
                    key = (kind, item.get(KINDS[kind]))
                    if key not in seen:
                        seen.add(key)
                        merged[kind].append(item)
        return merged

    # -- read and get ---------------------------------------------------------------------

    def _reader(self, uri: str) -> _Upstream | None:
        """The upstream to read ``uri`` from: the one that lists it, else one whose
        template it fits, else the only one."""
        from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate

        for upstream in self._upstreams:
            if any(item.get("uri") == uri for item in upstream.listed.get("resources", ())):
                return upstream
        for upstream in self._upstreams:
            for item in upstream.listed.get("resourceTemplates", ()):
                try:
                    if UriTemplate.parse(str(item.get("uriTemplate"))).match(uri) is not None:
                        return upstream
                except InvalidUriTemplate:
                    continue
        return self._upstreams[0] if len(self._upstreams) == 1 else None

    def read(self, uri: str) -> dict[str, Any] | None:
        """The upstream's ``resources/read`` result of ``uri``; ``None`` when no upstream
        has it (the Python targets are asked first, by the caller).

        Raises:
            mcp.shared.exceptions.MCPError: The upstream refused it, or failed.
        """
        upstream = self._reader(uri)
        if upstream is None:
            return None
        return self._forward(upstream.surface.read, uri)

    def get(self, name: str, arguments: Mapping[str, str] | None) -> dict[str, Any] | None:
        """The ``prompts/get`` result of the upstream that lists ``name``; ``None`` when
        none does.

        Raises:
            mcp.shared.exceptions.MCPError: The upstream refused it, or failed.
        """
        for upstream in self._upstreams:
            if not upstream.listed:
                self._ask_lists(upstream)
            if any(item.get("name") == name for item in upstream.listed.get("prompts", ())):
                return self._forward(upstream.surface.get, name, dict(arguments or {}))
        if len(self._upstreams) == 1:
            return self._forward(self._upstreams[0].surface.get, name, dict(arguments or {}))
        return None

    @staticmethod
    def _forward(send: Callable[..., T], *args: Any) -> T:
        """``send(*args)``: the upstream's own error goes on as it is; its failure (it
        died, did not answer in time) as an internal error saying so."""
        from mcp.shared.exceptions import MCPError

        try:
            return send(*args)
        except AgentForgeError as exc:
            raise MCPError(code=_INTERNAL_ERROR, message=str(exc)) from None
