"""Anthropic tools: ``{"name", "description", "input_schema"}``.

``input_schema`` is JSON Schema and takes ``parameters`` as generated; the only rule is
that it describes an object.
"""

from __future__ import annotations

from agentforge_cli.core.spec import ToolSpecification
from agentforge_cli.schema.providers.base import ToolConversion, Walker, plain_copy

__all__ = ["convert_anthropic"]


def convert_anthropic(spec: ToolSpecification) -> ToolConversion:
    """One Anthropic tool definition."""
    walker = Walker(spec)
    walker.provider = "anthropic"
    return walker.conversion({
        "name": spec.name, "description": spec.description,
        "input_schema": plain_copy(spec.parameters)} if walker.root_object() else None)
