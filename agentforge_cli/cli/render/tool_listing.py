"""``tools list``: one block a tool, its parameters with short type labels."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from agentforge_cli.cli.render.consoles import safe_text, stdout_console
from agentforge_cli.core.aliases import FLOAT32_MAX

if TYPE_CHECKING:
    from agentforge_cli.core.spec import ToolSpecification


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _bounds(schema: dict[str, Any]) -> str:
    """The bounds a schema sets, shortly: `` 1..100``, `` >= 0``, `` 1..50 chars``,
    `` <= 5 items`` (``""`` for none)."""
    for low, high, unit in (("minimum", "maximum", ""), ("minLength", "maxLength", " chars"),
                            ("minItems", "maxItems", " items")):
        if unit == " items" and "prefixItems" in schema:
            continue  # a tuple: its length is its items
        least, most = schema.get(low), schema.get(high)
        if unit == "":  # a fixed-width integer's own range says nothing of the domain
            least = None if least in _WIDTH_LIMITS else least
            most = None if most in _WIDTH_LIMITS else most
            if least is None and "exclusiveMinimum" in schema:
                return f" > {_number(schema['exclusiveMinimum'])}" + (
                    f", <= {_number(most)}" if most is not None else "")
            if most is None and "exclusiveMaximum" in schema:
                return (f" >= {_number(least)}, " if least is not None else " ") + \
                    f"< {_number(schema['exclusiveMaximum'])}"
        if least is not None and most is not None:
            return f" {_number(least)}..{_number(most)}{unit}"
        if least is not None:
            return f" >= {_number(least)}{unit}"
        if most is not None:
            return f" <= {_number(most)}{unit}"
    return ""


_WIDTH_LIMITS = frozenset([*(limit for bits in (8, 16, 32, 64)
                             for limit in (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)),
                           -FLOAT32_MAX, FLOAT32_MAX])
"""The ranges of ``Int8`` … ``Int64`` and ``Float32``: not shown as bounds."""


def _number(value: Any) -> str:
    return json.dumps(value) if isinstance(value, int | float) else str(value)


def type_label(schema: Any) -> str:
    """A short type name for a JSON Schema: ``integer``, ``array<string>``, ``enum(a, b)``,
    with the bounds it sets (``integer 1..100``, ``string 1..50 chars``)."""
    label = _type_name(schema)
    return label + _bounds(schema) if isinstance(schema, dict) and "type" in schema else label


def _type_name(schema: Any) -> str:
    if not isinstance(schema, dict) or not schema:
        return "any"
    if "$ref" in schema:
        return _ref_name(str(schema["$ref"]))
    if "enum" in schema:
        values = [v if isinstance(v, str) else json.dumps(v) for v in schema["enum"]]
        shown = ", ".join(values[:6]) + (", …" if len(values) > 6 else "")
        return f"enum({shown})"
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(type_label(s) for s in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(type_label({**schema, "type": k}) for k in kind)
    if kind == "array":
        if isinstance(schema.get("prefixItems"), list):
            return "[" + ", ".join(type_label(s) for s in schema["prefixItems"]) + "]"
        items = schema.get("items")
        return f"array<{type_label(items)}>" if isinstance(items, dict) else "array"
    if kind == "object":
        if schema.get("title"):
            return str(schema["title"])
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return f"object<string, {type_label(extra)}>"
        return "object"
    if kind == "string" and schema.get("format"):
        return f"string({schema['format']})"
    return str(kind) if kind else "any"


def _param_item(name: str, schema: Any, required: bool) -> Text:
    item = Text()
    item.append(name, style="green")
    item.append(": " + type_label(schema))
    if required:
        item.append(" (required)", style="yellow")
    elif isinstance(schema, dict) and schema.get("default") is not None:
        item.append(" = " + json.dumps(schema["default"], ensure_ascii=False), style="dim")
    else:
        item.append(" (optional)", style="dim")
    return item


def _flow(prefix: Text, items: Sequence[Text], close: str, width: int) -> list[Text]:
    """``prefix item, item, ... close`` wrapped at ``width``, continuation lines aligned
    under the first item."""
    indent = " " * prefix.cell_len
    lines: list[Text] = []
    line = prefix.copy()
    empty = True
    for i, item in enumerate(items):
        piece = item.copy()
        piece.append("," if i < len(items) - 1 else close)
        gap = 0 if empty else 1
        if not empty and line.cell_len + gap + piece.cell_len > width:
            lines.append(line)
            line = Text(indent)
            gap = 0
        if gap:
            line.append(" ")
        line.append_text(piece)
        empty = False
    if empty:
        line.append(close.strip())
    lines.append(line)
    return lines


def tool_list(specs: Sequence[ToolSpecification]) -> None:
    """One tool a block: ``[name] description`` and ``  parameters: { a: string (required) }``."""
    console = stdout_console()
    width = max(console.width, 40)
    for spec in specs:
        head = Text()
        head.append(f"[{safe_text(spec.name, one_line=True)}]", style="bold cyan")
        if spec.description:
            head.append(" " + safe_text(" ".join(spec.description.split())))
        for index, line in enumerate(head.wrap(console, width - 2, justify="default",
                                               overflow="fold")):
            line.rstrip()  # a description's continuation lines are indented under it
            console.print(Text("  ") + line if index else line, no_wrap=True,
                          overflow="ignore", crop=False)
        parameters = spec.parameters if isinstance(spec.parameters, dict) else {}
        properties = parameters.get("properties") or {}
        required = set(parameters.get("required") or ())
        items = [_param_item(safe_text(name, one_line=True), schema, name in required)
                 for name, schema in properties.items()]
        prefix = Text("  parameters: {" + (" " if items else ""))
        for line in _flow(prefix, items, " }", width):
            console.print(line, overflow="fold")
