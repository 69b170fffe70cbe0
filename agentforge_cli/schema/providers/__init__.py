"""Provider exports: one ``ToolSpecification`` list, the wire shape each provider documents.

Each provider is one module of this package that declares a
:class:`~agentforge_cli.schema.providers.base.Provider` — its export, its tool-name rule,
its own lint rules and the document its entries go in — and :data:`REGISTRY` lists them,
and those other packages add through ``register()`` or the ``agentforge.providers``
entry-point group (read at first use). Everything else reads the registry:
:data:`PROVIDERS`, :data:`LIST_FORMATS`, the lint rules of ``tools check --provider``, and
the choices and help of the command line.

Every export is a pure function of the specifications. A part a provider cannot express
exactly is exported in the closest accepted form and reported in
:attr:`ProviderExport.warnings`; a part with no accepted form makes the export raise
:class:`ProviderExportError`, which lists every such part (tool, parameter path, rule).
A tool name the provider refuses is exported as it is, with a ``name`` warning that
states the provider's rule (``tools check --provider`` reports it as an error).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.jsonschema import ROOT
from agentforge_cli.schema.providers.anthropic import ANTHROPIC
from agentforge_cli.schema.providers.base import (
    Provider,
    ProviderExportError,
    SchemaIssue,
    ToolConversion,
)
from agentforge_cli.schema.providers.gemini import GEMINI
from agentforge_cli.schema.providers.gemini_json_schema import GEMINI_JSON_SCHEMA
from agentforge_cli.schema.providers.gemini_mcp import GEMINI_MCP
from agentforge_cli.schema.providers.mcp import MCP
from agentforge_cli.schema.providers.openai import OPENAI, OPENAI_STRICT
from agentforge_cli.schema.providers.openai_responses import (
    OPENAI_RESPONSES,
    OPENAI_RESPONSES_STRICT,
)
from agentforge_cli.schema.tool_origins import ToolOrigin, origin_of

__all__ = [
    "LIST_FORMATS",
    "PROVIDERS",
    "REGISTRY",
    "Provider",
    "ProviderExport",
    "ProviderExportError",
    "SchemaIssue",
    "ToolConversion",
    "a_provider",
    "convert_tool",
    "export_tools",
    "get_provider",
    "name_problem",
    "provider_name",
]

def a_provider(entry: object) -> Provider:
    """``entry`` when it is a :class:`Provider` (the registry's check of what plugins
    give)."""
    if not isinstance(entry, Provider):
        raise TypeError(f"a provider is a Provider (agentforge_cli.schema.providers.base), "
                        f"not {type(entry).__name__}")
    return entry


REGISTRY: ExtensionPoint[Provider] = ExtensionPoint("provider", "agentforge.providers", (
    OPENAI,
    OPENAI_STRICT,
    OPENAI_RESPONSES,
    OPENAI_RESPONSES_STRICT,
    ANTHROPIC,
    GEMINI,
    GEMINI_JSON_SCHEMA,
    GEMINI_MCP,
    MCP,
), check=a_provider)
"""Every provider agentforge knows, in the order the command line lists them: these, then
those added with ``REGISTRY.register(...)``, then those of the ``agentforge.providers``
entry points."""


def __getattr__(name: str) -> tuple[str, ...]:
    # PROVIDERS and LIST_FORMATS are read from REGISTRY on each access, so they always
    # agree with it (a provider may be registered after this module is imported).
    if name == "PROVIDERS":
        return REGISTRY.names()
    if name == "LIST_FORMATS":
        return tuple(p.name for p in REGISTRY if p.list_format)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


PROVIDERS: tuple[str, ...]
"""The providers ``tools check --provider`` knows."""

LIST_FORMATS: tuple[str, ...]
"""The providers ``tools list --format`` exports (a strict form is reached with
``--strict``)."""


def get_provider(provider: str, strict: bool = False) -> Provider:
    """The registered provider of that name (case and spaces ignored); with ``strict``,
    its strict form.

    Raises:
        ValueError: For an unknown provider, or ``strict`` with a provider that has no
            strict form.
    """
    found = REGISTRY.get(provider.strip().lower())
    if found is None:
        raise ValueError(f"unknown provider {provider!r}; choose one of: "
                         f"{', '.join(REGISTRY.names())}")
    if strict:
        if found.strict is None:
            with_strict = [p.name for p in REGISTRY if p.strict and p.list_format]
            raise ValueError(f"strict mode applies to {', '.join(with_strict)} only, not "
                             f"{provider!r}")
        strict_form = REGISTRY.get(found.strict)
        if strict_form is None:
            raise ValueError(f"the strict form of {found.name!r}, {found.strict!r}, is not "
                             f"registered; register it too")
        found = strict_form
    return found


def provider_name(provider: str, strict: bool = False) -> str:
    """Normalise a provider name; ``("openai", strict=True)`` is ``openai-strict``.

    Raises:
        ValueError: See :func:`get_provider`.
    """
    return get_provider(provider, strict).name


def name_problem(provider: str, name: str) -> str | None:
    """What ``provider`` finds wrong with a tool name, or ``None``."""
    return get_provider(provider).name_rule.problem(name)


def convert_tool(spec: ToolSpecification, provider: str) -> ToolConversion:
    """Convert one tool, collecting warnings and errors instead of raising."""
    return get_provider(provider).convert(spec)


@dataclass(frozen=True, kw_only=True, slots=True)
class ProviderExport:
    """The result of :func:`export_tools`."""

    provider: str
    """The normalised provider name."""
    data: Any
    """What to send: the provider's document of the entries (a JSON-able list, or e.g.
    MCP's ``{"tools": [...]}``)."""
    warnings: list[SchemaIssue] = field(default_factory=list)
    """Parts exported in the closest accepted form."""


def export_tools(specs: Iterable[ToolSpecification], provider: str, *,
                 strict: bool = False,
                 origins: Mapping[str, ToolOrigin] | None = None) -> ProviderExport:
    """Export every tool for one provider.

    Args:
        specs: The specifications (a ``build_local_tools`` table works too: its keys).
        provider: A name of :data:`PROVIDERS`.
        strict: The provider's strict form (``openai`` -> ``openai-strict``).
        origins: Where each tool comes from, by name, so that the warnings' advice fits
            it (see :mod:`~agentforge_cli.schema.tool_origins`); a tool left out is
            agentforge's own.

    Raises:
        ProviderExportError: Some part of some tool has no form the provider accepts;
            every such part is listed. (A name the provider refuses is a warning.)
        ValueError: Unknown provider (see :func:`get_provider`).
    """
    chosen = get_provider(provider, strict)
    entries: list[dict[str, Any]] = []
    warnings: list[SchemaIssue] = []
    errors: list[SchemaIssue] = []
    for spec in specs:
        origin = origin_of(origins, spec.name)
        if chosen.name_rule.problem(spec.name):
            warnings.append(SchemaIssue(
                provider=chosen.name, tool=spec.name, path=ROOT, rule="name",
                message=f"the name is refused: {chosen.name_rule.text}; exported as it is "
                        f"({origin.rename})"))
        result = chosen.convert(spec)
        warnings.extend(issue.told(origin) for issue in result.warnings)
        errors.extend(result.errors)
        if result.data is not None:
            entries.append(result.data)
    if errors:
        raise ProviderExportError(chosen.name, errors)
    return ProviderExport(provider=chosen.name, data=chosen.wrap(entries), warnings=warnings)

