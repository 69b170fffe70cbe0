"""MCP: the ``tools/list`` result, ``{"tools": [{"name", "description", "inputSchema"}]}``.

``inputSchema`` is JSON Schema and takes ``parameters`` as generated (it must describe an
object). ``title`` and ``annotations`` are added when the specification carries them.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.core.spec import ToolSpecification
from agentforge_cli.schema.providers.base import ToolConversion, Walker, plain_copy

__all__ = ["convert_mcp"]


def convert_mcp(spec: ToolSpecification) -> ToolConversion:
    """One entry of the ``tools/list`` result."""
    walker = Walker(spec)
    walker.provider = "mcp"
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
    return walker.conversion(data)
