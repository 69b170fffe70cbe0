"""MCP: the ``tools/list`` result, ``{"tools": [{"name", "description", "inputSchema"}]}``.

``inputSchema`` is JSON Schema and takes ``parameters`` as generated (it must describe an
object). ``title``, ``annotations``, ``outputSchema``, ``execution`` (an MCP tool's
``taskSupport``), ``icons`` and ``_meta`` are added when the specification carries them.
Lint warns about a ``/`` in a tool name (``mcp:name``): the protocol accepts it, its
tool-name guidance does not list it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.findings import WARNING, Finding, finding
from agentforge_cli.schema.providers.base import (
    NameRule,
    Provider,
    ProviderWalker,
    ToolConversion,
    plain_copy,
)

__all__ = ["MCP", "MCP_NAMES", "convert_mcp"]

MCP_NAMES = NameRule(pattern=re.compile(r"[A-Za-z0-9_./-]{1,128}"),
                     text="use 1 to 128 letters, digits, '_', '.', '-' or '/'")
"""The tool names MCP accepts."""


def convert_mcp(spec: ToolSpecification) -> ToolConversion:
    """One entry of the ``tools/list`` result."""
    walker = ProviderWalker(spec, "mcp")
    if not walker.root_object():
        return walker.conversion(None)
    data: dict[str, Any] = {"name": spec.name}
    title = getattr(spec, "title", None)
    if title:
        data["title"] = title
    data["description"] = spec.description
    data["inputSchema"] = plain_copy(spec.parameters)
    annotations = getattr(spec, "annotations", None)
    if annotations:
        data["annotations"] = plain_copy(dict(annotations))
    output_schema = getattr(spec, "output_schema", None)
    if output_schema is not None:
        data["outputSchema"] = plain_copy(output_schema)
    execution = getattr(spec, "execution", None)
    if execution:
        data["execution"] = plain_copy(dict(execution))
    icons = getattr(spec, "icons", None)
    if icons:
        data["icons"] = plain_copy(list(icons))
    meta = getattr(spec, "meta", None)
    if meta:
        data["_meta"] = plain_copy(dict(meta))
    return walker.conversion(data)


def tools_list_result(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The entries as a ``tools/list`` result: ``{"tools": [...]}``."""
    return {"tools": entries}


def slash_in_name(spec: ToolSpecification) -> Iterator[Finding]:
    """Lint: a warning for a ``/`` in an otherwise accepted tool name."""
    if "/" in spec.name and MCP_NAMES.problem(spec.name) is None:
        yield finding(spec.name, "mcp:name", WARNING,
                      "'/' in a tool name is outside the characters the MCP 2025-11-25 "
                      "tool-name guidance lists (letters, digits, '_', '-', '.')")


MCP = Provider(name="mcp", convert=convert_mcp, name_rule=MCP_NAMES,
               lint_rules=(slash_in_name,), wrap=tools_list_result)
"""MCP ``tools/list`` entries."""
