"""OpenAI Responses API function tools: ``{"type": "function", "name", "description",
"parameters", "strict"}``.

The Responses API takes the function's fields flat, beside ``"type": "function"`` (the
Chat Completions export nests them under ``"function"``), and says ``strict`` outright:
the plain form carries ``parameters`` as generated with ``"strict": false``; the strict
form (``--strict``) carries the strict-mode schema of :mod:`.openai` with
``"strict": true``. Names follow OpenAI's rule.

Two providers live here: :data:`OPENAI_RESPONSES` (``openai-responses``) and
:data:`OPENAI_RESPONSES_STRICT` (``openai-responses-strict``, what ``tools list --format
openai-responses --strict`` exports).
"""

from __future__ import annotations

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.providers.base import (
    Provider,
    ProviderWalker,
    ToolConversion,
    plain_copy,
)
from agentforge_cli.schema.providers.openai import OPENAI_NAMES, strict_parameters

__all__ = [
    "OPENAI_RESPONSES",
    "OPENAI_RESPONSES_STRICT",
    "convert_openai_responses",
    "convert_openai_responses_strict",
]


def convert_openai_responses(spec: ToolSpecification) -> ToolConversion:
    """The plain function tool: ``parameters`` as generated, ``"strict": false``."""
    walker = ProviderWalker(spec, "openai-responses")
    return walker.conversion({
        "type": "function", "name": spec.name, "description": spec.description,
        "parameters": plain_copy(spec.parameters), "strict": False,
    } if walker.root_object() else None)


def convert_openai_responses_strict(spec: ToolSpecification) -> ToolConversion:
    """The strict-mode function tool: the strict-mode schema, ``"strict": true``."""
    walker, parameters = strict_parameters(spec, "openai-responses-strict")
    return walker.conversion({
        "type": "function", "name": spec.name, "description": spec.description,
        "parameters": parameters, "strict": True,
    })


OPENAI_RESPONSES = Provider(name="openai-responses", convert=convert_openai_responses,
                            name_rule=OPENAI_NAMES, strict="openai-responses-strict")
"""Responses API function tools (``--strict`` selects :data:`OPENAI_RESPONSES_STRICT`)."""

OPENAI_RESPONSES_STRICT = Provider(
    name="openai-responses-strict", convert=convert_openai_responses_strict,
    name_rule=OPENAI_NAMES, list_format=False, strict="openai-responses-strict")
"""Responses API function tools in strict mode (``--format openai-responses --strict``)."""
