"""``tools list``: one block a tool, its parameters with short type labels, then what each
parameter with a description is."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from agentforge_cli.cli.render.consoles import safe_text, stdout_console
from agentforge_cli.core.define.schema_labels import schema_label

if TYPE_CHECKING:
    from agentforge_cli.core.define.spec import ToolSpecification


def _param_item(name: str, schema: Any, required: bool) -> Text:
    item = Text()
    item.append(name, style="green")
    item.append(": " + schema_label(schema))
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
        for name, schema in properties.items():
            _describe(console, name, schema, width)


def _describe(console: Any, name: str, schema: Any, width: int) -> None:
    """``    name: what it is``, under the parameters, for a parameter with a description
    (continuation lines indented under the text)."""
    text = schema.get("description") if isinstance(schema, dict) else None
    if not isinstance(text, str) or not text.strip():
        return
    line = Text("    ")
    line.append(safe_text(name, one_line=True), style="green")
    line.append(": " + safe_text(" ".join(text.split())), style="dim")
    for index, part in enumerate(line.wrap(console, width - 6, justify="default",
                                           overflow="fold")):
        part.rstrip()
        console.print(Text("      ") + part if index else part, no_wrap=True,
                      overflow="ignore", crop=False)
