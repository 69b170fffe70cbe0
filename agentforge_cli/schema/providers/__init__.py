"""Provider exports: one ``ToolSpecification`` list, the wire shape each provider documents.

=================  ===========================================================
``openai``         ``[{"type": "function", "function": {name, description, parameters}}]``
``openai-strict``  the same with ``"strict": true`` and a strict-mode schema
``anthropic``      ``[{"name", "description", "input_schema"}]``
``gemini``         ``[{"name", "description", "parameters"}]`` in Gemini's OpenAPI subset
``mcp``            ``{"tools": [{"name", "description", "inputSchema"}]}``
=================  ===========================================================

Every export is a pure function of the specifications. A part a provider cannot express
exactly is exported in the closest accepted form and reported in
:attr:`ProviderExport.warnings`; a part with no accepted form makes the export raise
:class:`ProviderExportError`, which lists every such part (tool, parameter path, rule).
Tool names are not checked here: :mod:`agentforge_cli.schema.lint` applies
:data:`NAME_RULES`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.core.spec import ToolSpecification
from agentforge_cli.schema.providers.anthropic import convert_anthropic
from agentforge_cli.schema.providers.base import (
    ProviderExportError,
    SchemaIssue,
    ToolConversion,
    display_path,
)
from agentforge_cli.schema.providers.gemini import GEMINI_KEYWORDS, convert_gemini
from agentforge_cli.schema.providers.mcp import convert_mcp
from agentforge_cli.schema.providers.openai import (
    STRICT_KEYWORDS,
    convert_openai,
    convert_openai_strict,
)

__all__ = [
    "FORMATS",
    "GEMINI_KEYWORDS",
    "NAME_RULES",
    "PROVIDERS",
    "STRICT_KEYWORDS",
    "NameRule",
    "ProviderExport",
    "ProviderExportError",
    "SchemaIssue",
    "ToolConversion",
    "convert_tool",
    "display_path",
    "export_tools",
    "name_problem",
    "provider_name",
    "to_anthropic",
    "to_gemini",
    "to_mcp",
    "to_openai",
]

PROVIDERS = ("openai", "openai-strict", "anthropic", "gemini", "mcp")
"""The providers ``tools check --provider`` knows."""

FORMATS = ("openai", "anthropic", "gemini", "mcp")
"""The provider formats of ``tools list --format`` (``openai`` takes ``--strict``)."""

_CONVERTERS: dict[str, Callable[[ToolSpecification], ToolConversion]] = {
    "openai": convert_openai,
    "openai-strict": convert_openai_strict,
    "anthropic": convert_anthropic,
    "gemini": convert_gemini,
    "mcp": convert_mcp,
}


@dataclass(frozen=True, kw_only=True, slots=True)
class NameRule:
    """What a provider accepts as a tool name."""

    pattern: re.Pattern[str]
    """The whole name must match."""
    text: str
    """The rule in words, for messages."""

    def problem(self, name: str) -> str | None:
        """``None`` when ``name`` is accepted, else what is wrong with it."""
        if self.pattern.fullmatch(name):
            return None
        return f'the name "{name}": {self.text}'


_OPENAI_NAMES = NameRule(pattern=re.compile(r"[a-zA-Z0-9_-]{1,64}"),
                         text="use 1 to 64 letters, digits, '_' or '-'")

NAME_RULES: dict[str, NameRule] = {
    "openai": _OPENAI_NAMES,
    "openai-strict": _OPENAI_NAMES,
    "anthropic": _OPENAI_NAMES,
    "gemini": NameRule(pattern=re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}"),
                       text="start with a letter or '_', then letters, digits, '_', '.', "
                            "':' or '-', at most 64 characters"),
    "mcp": NameRule(pattern=re.compile(r"[A-Za-z0-9_./-]{1,128}"),
                    text="use 1 to 128 letters, digits, '_', '.', '-' or '/'"),
}
"""Tool-name rules per provider (SPEC 5)."""


def name_problem(provider: str, name: str) -> str | None:
    """What ``provider`` finds wrong with a tool name, or ``None``."""
    return NAME_RULES[provider_name(provider)].problem(name)


def provider_name(provider: str, strict: bool = False) -> str:
    """Normalise a provider name; ``("openai", strict=True)`` is ``openai-strict``.

    Raises:
        ValueError: For an unknown provider, or ``strict`` with a provider other than
            OpenAI.
    """
    name = provider.strip().lower()
    if name not in _CONVERTERS:
        raise ValueError(f"unknown provider {provider!r}; choose one of: "
                         f"{', '.join(PROVIDERS)}")
    if strict:
        if name not in ("openai", "openai-strict"):
            raise ValueError(f"strict mode applies to openai only, not {provider!r}")
        name = "openai-strict"
    return name


def convert_tool(spec: ToolSpecification, provider: str) -> ToolConversion:
    """Convert one tool, collecting warnings and errors instead of raising."""
    return _CONVERTERS[provider_name(provider)](spec)


@dataclass(frozen=True, kw_only=True, slots=True)
class ProviderExport:
    """The result of :func:`export_tools`."""

    provider: str
    """The normalised provider name."""
    data: Any
    """What to send: a JSON-able list (a ``{"tools": [...]}`` object for MCP)."""
    warnings: list[SchemaIssue] = field(default_factory=list)
    """Parts exported in the closest accepted form."""


def export_tools(specs: Iterable[ToolSpecification], provider: str, *,
                 strict: bool = False) -> ProviderExport:
    """Export every tool for one provider.

    Args:
        specs: The specifications (a ``build_local_tools`` table works too: its keys).
        provider: ``openai``, ``openai-strict``, ``anthropic``, ``gemini`` or ``mcp``.
        strict: With ``openai``, the strict-mode form.

    Raises:
        ProviderExportError: Some part of some tool has no form the provider accepts;
            every such part is listed.
        ValueError: Unknown provider (see :func:`provider_name`).
    """
    name = provider_name(provider, strict)
    convert = _CONVERTERS[name]
    entries: list[dict[str, Any]] = []
    warnings: list[SchemaIssue] = []
    errors: list[SchemaIssue] = []
    for spec in specs:
        result = convert(spec)
        warnings.extend(result.warnings)
        errors.extend(result.errors)
        if result.data is not None:
            entries.append(result.data)
    if errors:
        raise ProviderExportError(name, errors)
    data: Any = {"tools": entries} if name == "mcp" else entries
    return ProviderExport(provider=name, data=data, warnings=warnings)


def to_openai(specs: Iterable[ToolSpecification], *, strict: bool = False
              ) -> list[dict[str, Any]]:
    """OpenAI function tools (strict-mode form with ``strict=True``)."""
    return export_tools(specs, "openai", strict=strict).data


def to_anthropic(specs: Iterable[ToolSpecification]) -> list[dict[str, Any]]:
    """Anthropic tool definitions."""
    return export_tools(specs, "anthropic").data


def to_gemini(specs: Iterable[ToolSpecification]) -> list[dict[str, Any]]:
    """Gemini function declarations."""
    return export_tools(specs, "gemini").data


def to_mcp(specs: Iterable[ToolSpecification]) -> dict[str, Any]:
    """The MCP ``tools/list`` result."""
    return export_tools(specs, "mcp").data
