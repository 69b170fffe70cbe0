"""Anthropic tools: ``{"name", "description", "input_schema"}``.

``input_schema`` is JSON Schema and takes ``parameters`` as generated; the only rule is
that it describes an object.
"""

from __future__ import annotations

import re

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.providers.base import (
    NameRule,
    Provider,
    ProviderWalker,
    ToolConversion,
    plain_copy,
)

__all__ = ["ANTHROPIC", "ANTHROPIC_NAMES", "convert_anthropic"]

ANTHROPIC_NAMES = NameRule(pattern=re.compile(r"[a-zA-Z0-9_-]{1,64}"),
                           text="use 1 to 64 letters, digits, '_' or '-'")
"""The tool names Anthropic accepts."""


def convert_anthropic(spec: ToolSpecification) -> ToolConversion:
    """One Anthropic tool definition."""
    walker = ProviderWalker(spec, "anthropic")
    return walker.conversion({
        "name": spec.name, "description": spec.description,
        "input_schema": plain_copy(spec.parameters)} if walker.root_object() else None)


ANTHROPIC = Provider(name="anthropic", convert=convert_anthropic, name_rule=ANTHROPIC_NAMES)
"""Anthropic tool definitions."""
