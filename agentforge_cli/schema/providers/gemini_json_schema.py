"""Gemini function declarations with JSON Schema: ``{"name", "description",
"parametersJsonSchema"}``.

``parametersJsonSchema`` takes JSON Schema itself (it is mutually exclusive with the
OpenAPI-subset ``parameters`` of :mod:`.gemini`), so ``parameters`` goes as generated:
unions, ``null``, ``$defs`` and ``$ref`` are kept, and a recursive type exports. The only
rule is that it describes an object. Names and parameter names follow Gemini's rules.
"""

from __future__ import annotations

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.providers.base import (
    Provider,
    ProviderWalker,
    ToolConversion,
    plain_copy,
)
from agentforge_cli.schema.providers.gemini import GEMINI_NAMES, parameter_names

__all__ = ["GEMINI_JSON_SCHEMA", "convert_gemini_json_schema"]


def convert_gemini_json_schema(spec: ToolSpecification) -> ToolConversion:
    """One function declaration whose parameters are JSON Schema."""
    walker = ProviderWalker(spec, "gemini-json-schema")
    return walker.conversion({
        "name": spec.name, "description": spec.description,
        "parametersJsonSchema": plain_copy(spec.parameters),
    } if walker.root_object() else None)


GEMINI_JSON_SCHEMA = Provider(name="gemini-json-schema", convert=convert_gemini_json_schema,
                              name_rule=GEMINI_NAMES, lint_rules=(parameter_names,))
"""Gemini function declarations with ``parametersJsonSchema``."""
