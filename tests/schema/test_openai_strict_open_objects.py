"""``tools check --provider openai-strict`` on the open objects MCP servers send: an object
whose keys are not fixed (``additionalProperties`` true or a schema, or no properties and
no ``additionalProperties``) is an error, since strict mode takes only closed objects and
clients such as openai-agents fall back to a non-strict tool for it; an object that lists
its properties without saying ``additionalProperties`` is closed by the export."""

from __future__ import annotations

from typing import Any

import pytest
from provider_testing import obj, raw

from agentforge_cli.schema.lint import check_specs

NAMED = {"a": {"type": "string", "description": "a"}}


def strict_findings(parameters: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f.rule, f.level, f.path) for f in check_specs([raw("t", parameters)],
                                                            ["openai-strict"])
            if f.rule.startswith("openai-strict:")]


@pytest.mark.parametrize(("value", "path"), [
    ({"type": "object", "properties": NAMED, "additionalProperties": True}, "$.p"),
    ({"type": "object", "additionalProperties": True}, "$.p"),
    ({"type": "object", "additionalProperties": {"type": "integer"}}, "$.p"),
    ({"type": "object"}, "$.p"),
    ({"type": "array", "items": {"type": "object"}}, "$.p[*]"),
])
def test_an_open_object_is_a_free_form_error(value: dict[str, Any], path: str) -> None:
    parameters = obj({"p": {**value, "description": "p"}})
    assert strict_findings(parameters) == [("openai-strict:free-form-object", "error", path)]


def test_an_open_arguments_object_is_an_error_at_the_root() -> None:
    parameters = {**obj(NAMED), "additionalProperties": True}
    assert strict_findings(parameters) == [("openai-strict:free-form-object", "error", "$")]


@pytest.mark.parametrize("value", [
    {"type": "object", "properties": NAMED},
    {"type": "object", "properties": NAMED, "additionalProperties": False},
])
def test_an_object_with_fixed_keys_passes(value: dict[str, Any]) -> None:
    assert strict_findings(obj({"p": {**value, "description": "p"}})) == []
