"""``serve``'s ``outputSchema`` and ``structuredContent`` for a pydantic model or a
``NamedTuple`` return type (``output_tools.py``): the official client, which validates
``structuredContent`` against the ``outputSchema``, gets both, and ``jsonschema`` agrees.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from mcp import types
from mcp_client_support import AGENTFORGE, HERE, Remote, serve


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory):
    yield from serve(["serve", str(HERE / "output_tools.py")],
                     tmp_path_factory.mktemp("output-schemas"), command=str(AGENTFORGE))


@pytest.fixture(scope="module")
def schemas(remote: Remote) -> dict[str, Any]:
    return {tool.name: tool.output_schema
            for tool in remote.run(remote.session.list_tools).tools}


def _structured(remote: Remote, schemas: dict[str, Any], name: str,
                arguments: dict[str, Any]) -> tuple[str, Any]:
    """Call ``name``: its text and ``structuredContent``, checked against its schema."""
    result: types.CallToolResult = remote.call(name, arguments)
    assert result.is_error is False, remote.text(result)
    jsonschema.Draft202012Validator(schemas[name]).validate(result.structured_content)
    return remote.text(result), result.structured_content


def test_a_pydantic_model_declares_the_schema_of_what_it_writes(
        remote: Remote, schemas: dict[str, Any]) -> None:
    schema = schemas["get_order"]
    assert schema["type"] == "object"
    assert {"order_id", "placed", "lines", "line_count"} <= set(schema["properties"])
    text, structured = _structured(remote, schemas, "get_order", {"order_id": "A-1"})
    assert structured == json.loads(text)
    assert structured == {"order_id": "A-1", "placed": "2026-03-01", "note": None,
                          "lines": [{"product_code": "TEA-001", "quantity": 2}],
                          "line_count": 1}


def test_a_model_that_serializes_by_alias_declares_its_aliases(
        remote: Remote, schemas: dict[str, Any]) -> None:
    assert set(schemas["camel"]["properties"]) == {"firstName"}
    text, structured = _structured(remote, schemas, "camel", {"name": "Ada"})
    assert structured == json.loads(text) == {"firstName": "Ada"}


def test_a_named_tuple_is_an_object_of_its_fields(remote: Remote,
                                                  schemas: dict[str, Any]) -> None:
    assert schemas["corner"]["required"] == ["x", "y"]
    text, structured = _structured(remote, schemas, "corner", {"x": 5})
    assert (text, structured) == ("[5,5]", {"x": 5, "y": 5})
    text, structured = _structured(remote, schemas, "box", {})
    assert json.loads(text) == [[1, 2], [3, 4], "LARGE", None]
    assert structured == {"low": {"x": 1, "y": 2}, "high": {"x": 3, "y": 4},
                          "size": "LARGE", "label": None}


def test_a_result_that_does_not_match_is_an_error_result(remote: Remote) -> None:
    result = remote.call("box", {"broken": True})
    assert result.is_error is True
    assert result.structured_content is None
    assert remote.text(result).startswith(
        'Tool "box" returned a result that does not match its outputSchema: ["low"]')
