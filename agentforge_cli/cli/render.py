"""Everything the command line draws with rich, in one place.

Consoles are created on first use, bound to the current product stream
(:func:`~agentforge_cli.cli.output.product_stream`, the real standard output) and
``sys.stderr``, and created again when those change (a test runner swaps the streams on
every invocation). Markup and highlighting are
off: user text such as ``[user]`` or ``[red]`` is printed as written. ``NO_COLOR`` and
``COLUMNS`` are honoured by rich. Text that cannot be encoded (lone surrogates) is
written with backslash escapes instead of failing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from agentforge_cli.cli.output import product_stream, write
from agentforge_cli.core.aliases import FLOAT32_MAX

if TYPE_CHECKING:
    from agentforge_cli.core.spec import ToolSpecification
    from agentforge_cli.replay.report import CallReport

__all__ = [
    "ToolLogHandler",
    "TracePrinter",
    "error",
    "explain",
    "findings",
    "progress",
    "progress_possible",
    "replay_summary",
    "safe_text",
    "stderr_console",
    "stdout_console",
    "tool_list",
    "tool_logging",
    "warning",
    "write",
]

_consoles: dict[bool, Console] = {}
LONG_TRANSCRIPT = 200
"""Records from which a transcript counts as long (a progress bar on a terminal)."""


def _console(stderr: bool) -> Console:
    stream = sys.stderr if stderr else product_stream()
    console = _consoles.get(stderr)
    if console is None or console.file is not stream:
        console = Console(file=stream, markup=False, emoji=False, highlight=False,
                          soft_wrap=False)
        _consoles[stderr] = console
    return console


def stdout_console() -> Console:
    """The console on standard output."""
    return _console(False)


def stderr_console() -> Console:
    """The console on standard error."""
    return _console(True)


_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_TERMINAL_CONTROL = re.compile(f"[{_CONTROLS}]")  # a tab and a newline are text
_LINE_CONTROL = re.compile(f"[\t\n{_CONTROLS}]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str, *, one_line: bool = False) -> str:
    """``text`` as it may reach a terminal: lone surrogates (unencodable anywhere) written
    as ``\\udcxx``, and what a terminal would act on written as an escape (``\\x1b``):
    control characters (C0 but tab and newline, DEL, C1 — so no escape sequence, OSC
    hyperlink or title) and bidirectional overrides. ``one_line``: tabs and newlines too,
    for a name that must not start a line of its own."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    pattern = _LINE_CONTROL if one_line else _TERMINAL_CONTROL
    if (text.isascii() and text.isprintable()) or pattern.search(text) is None:
        return text
    return pattern.sub(_escaped, text)


def error(message: str, hint: str | None = None) -> None:
    """``error: <message>`` (and an indented hint) on standard error."""
    console = stderr_console()
    lines = safe_text(message).splitlines() or [""]
    text = Text()
    text.append("error: ", style="bold red")
    text.append(lines[0])
    for line in lines[1:]:
        text.append("\n" + line)
    console.print(text, soft_wrap=True)
    if hint:
        for line in safe_text(hint).splitlines():
            console.print(Text("  " + line, style="dim"), soft_wrap=True)


def warning(message: str) -> None:
    """``warning: <message>`` on standard error (continuation lines as written)."""
    text = Text()
    text.append("warning: ", style="yellow")
    text.append(safe_text(message))
    stderr_console().print(text, soft_wrap=True)


def skipped_tool(problem: str) -> None:
    """A tool left out because it cannot be defined (the others load): a warning."""
    warning(f"a tool is left out, it cannot be defined: {problem}")


def print_trimmed(console: Console, renderable: Any) -> None:
    """Print a table or grid without the trailing spaces rich pads its cells with."""
    for segments in console.render_lines(renderable, console.options, pad=False):
        line = Text()
        for segment in segments:
            if not segment.control:
                line.append(segment.text, segment.style)
        line.rstrip()
        console.print(line, no_wrap=True, overflow="ignore", crop=False)


def debug_traceback(exc: BaseException) -> None:
    """The full traceback of ``exc`` (and its causes) on standard error (``--debug``)."""
    import traceback

    write(safe_text("".join(traceback.format_exception(exc)).rstrip()), stderr=True)


# -- tools list --------------------------------------------------------------------------------


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


# -- tools check / tools diff -------------------------------------------------------------------


_LEVEL_STYLES = {"breaking": "bold red", "error": "red", "warning": "yellow", "info": "dim"}
WIDE_FINDINGS = 120
"""Terminal width from which the findings table gives the rule a column of its own."""


def findings(rows: Sequence[dict[str, str]], verdict: str, *, failed: bool,
             details: str | None = None) -> None:
    """The findings table (level, tool, parameter, rule, message), a verdict line and a
    dim line of details (what was checked).

    ``level``, ``tool`` and ``parameter`` open every row, so the first line of a finding
    always names all three; the message wraps under its own column. Below
    :data:`WIDE_FINDINGS` columns the rule is shown after the message, in brackets.
    """
    console = stdout_console()
    wide = console.width >= WIDE_FINDINGS
    if rows:
        table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False,
                      header_style="bold")
        table.add_column("level", no_wrap=True)
        table.add_column("tool", overflow="fold")
        table.add_column("parameter", overflow="fold")
        if wide:
            table.add_column("rule", no_wrap=True, style="dim")
        table.add_column("message", overflow="fold")
        for row in rows:
            message = Text(safe_text(row["message"]))
            if not wide:
                message.append(f" [{safe_text(row['rule'])}]", style="dim")
            cells = [Text(row["level"], style=_LEVEL_STYLES.get(row["level"], "")),
                     Text(safe_text(row["tool"], one_line=True)),
                     Text(safe_text(row["parameter"], one_line=True))]
            if wide:
                cells.append(Text(safe_text(row["rule"])))
            table.add_row(*cells, message)
        print_trimmed(console, table)
        console.print()
    _print_wrapped(console, Text(safe_text(verdict), style="bold red" if failed
                                 else "bold green"))
    if details:
        _print_wrapped(console, Text(safe_text(details), style="dim"), indent=2)


def _print_wrapped(console: Console, text: Text, indent: int = 0) -> None:
    """``text`` wrapped at the console width (long words folded), without trailing
    spaces, every line indented by ``indent``."""
    width = max(console.width - indent, 20)
    for line in text.wrap(console, width, justify="default", overflow="fold"):
        line.rstrip()
        console.print(Text(" " * indent) + line, no_wrap=True, overflow="ignore", crop=False)


# -- tools call --explain ------------------------------------------------------------------------


def explain(rows: Sequence[dict[str, str]], *, error_text: str | None = None) -> None:
    """Per parameter: the raw value, the coerced value and the rule (standard error)."""
    console = stderr_console()
    table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False,
                  header_style="bold")
    table.add_column("parameter", style="green", no_wrap=True)
    table.add_column("raw", overflow="fold")
    table.add_column("coerced", overflow="fold")
    table.add_column("rule", overflow="fold", style="dim")
    for row in rows:
        table.add_row(*(safe_text(row[key]) for key in ("parameter", "raw", "coerced", "rule")))
    console.print(Text("how the arguments were bound:", style="bold"))
    print_trimmed(console, table)
    if error_text:
        console.print(Text("binding failed: " + safe_text(error_text), style="red"))


# -- --log ---------------------------------------------------------------------------------------


class _ToolRecord(Protocol):
    """The fields the logging decorator adds to a request or response record."""

    tool_name: str
    tool_arguments: str
    memory_id: object
    tool_result: object
    duration_ms: float


class ToolLogHandler(logging.Handler):
    """Renders the logging decorator's records (logger ``agentforge.tools``) on stderr,
    as ``=== tool request ===`` / ``=== tool response ===`` blocks."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            console = stderr_console()
            event = getattr(record, "tool_event", None)
            fields = cast("_ToolRecord", record)  # logging's ``extra``: no stub knows them
            if event == "request":
                rows = [("tool", fields.tool_name), ("arguments", fields.tool_arguments),
                        ("memory id", str(fields.memory_id))]
                call_id = getattr(record, "tool_call_id", None)
                if call_id is not None:
                    rows.append(("call id", str(call_id)))
                self._block(console, "tool request", rows, "cyan")
            elif event in ("response", "error"):
                failed = bool(getattr(record, "tool_is_error", False))
                rows = [("tool", fields.tool_name),
                        ("error" if failed else "result", str(fields.tool_result)),
                        ("duration", f"{fields.duration_ms:.1f} ms")]
                self._block(console, "tool response", rows, "red" if failed else "green",
                            close=True)
            else:
                console.print(Text(safe_text(record.getMessage()), style="dim"))
        except Exception:
            self.handleError(record)

    @staticmethod
    def _block(console: Console, title: str, rows: list[tuple[str, str]], style: str,
               close: bool = False) -> None:
        console.print(Text(f"=== {title} ===", style=f"bold {style}"))
        # values run on (the terminal wraps them softly): a JSON result stays copyable
        width = max(len(key) for key, _ in rows) + 2
        for key, value in rows:
            line = Text(f"{key}:".ljust(width), style="dim")
            line.append(safe_text(value).replace("\n", "\n" + " " * width))
            line.rstrip()
            console.print(line, soft_wrap=True)
        if close:
            console.print(Text("=" * (len(title) + 8), style=f"bold {style}"))


@contextlib.contextmanager
def tool_logging(enabled: bool) -> Iterator[None]:
    """While active, the ``agentforge.tools`` logger renders on stderr (when enabled)."""
    if not enabled:
        yield
        return
    from agentforge_cli.core.calllog import LOGGER_NAME

    logger = logging.getLogger(LOGGER_NAME)
    handler = ToolLogHandler(logging.INFO)
    saved = (logger.level, logger.propagate)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]


# -- replay --------------------------------------------------------------------------------------


_STATUS = {"matched": ("✓ matched", "green"), "mismatched": ("✗ mismatched", "bold red"),
           "unrecorded": ("• unrecorded", "yellow"), "drifted": ("⚠ drifted", "bold magenta")}
_SHOWN_RESULT = 160


def _one_line(text: str, limit: int = _SHOWN_RESULT) -> str:
    flat = safe_text(text).replace("\r", "").replace("\n", "⏎")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


_Spans = list[tuple[str, str | None]]
"""A row's body: ``(text, style)`` pieces; the first is the body's own style, the others
are appended (``None``: no style of their own)."""
_Row = tuple[str, str, _Spans, tuple[str, str] | None]
"""A trace row: its tag (``act``; empty for a continuation), the tag's style, the body,
and the badge's ``(text, style)``."""


def _call_rows(call: CallReport) -> list[_Row]:
    badge = _STATUS[call.status]
    act: _Row = ("act", "magenta", [(safe_text(call.name, one_line=True), "bold"),
                                    (" " + _one_line(call.masked_arguments()), None)], None)
    if call.actual is None:  # drifted: not run, the drift says why
        return [act, ("reflect", "blue", [(safe_text(call.name), ""), (" not run", "dim")],
                      badge), ("", "", [(_one_line(call.drift or "", 400), "magenta")], None)]
    rows: list[_Row] = [
        act,
        ("reflect", "blue", [(safe_text(call.invocation or call.name), ""), (" → ", None),
                             (_one_line(call.actual), "red" if call.is_error else "")], badge),
    ]
    for line in call.diff:
        line_style = ("red" if line.startswith("-") else "green" if line.startswith("+")
                      else "dim")
        rows.append(("", "", [(_one_line(line, 400), line_style)], None))
    return rows


class TracePrinter:
    """Prints the replay trace (``[user] [think] [act] [reflect] [final]``) as entries
    arrive, each call marked matched / mismatched (with its diff) / unrecorded.

    Messages after the latest call are held until the next call or :meth:`finish`, which
    is when the last assistant text is known to be the ``[final]`` answer. When the
    console draws no styles (standard output is not a terminal), a row that fits on one
    line is written as plain text, exactly as rich would draw it, without rich's
    per-line rendering (twenty times faster on a long transcript).
    """

    def __init__(self) -> None:
        self.console = stdout_console()
        self.width = max(self.console.width, 40)
        self._plain = (self.console.color_system is None
                       and self.console.encoding.replace("-", "") == "utf8")
        self._held: list[Any] = []
        self._previous: Any = None
        from agentforge_cli.replay.report import CallReport
        from agentforge_cli.replay.transcripts.events import AssistantMessage, ConversationStart

        self._call_type, self._assistant_type = CallReport, AssistantMessage
        self._start_type = ConversationStart

    def add(self, entry: Any) -> None:
        """Print (or hold) one settled entry."""
        if not isinstance(entry, self._call_type):
            if isinstance(entry, self._start_type):  # a thin line between conversations
                self._flush(final=not entry.alongside)
                where = f" ({safe_text(entry.where)})" if entry.where else ""
                self._row("", "", [(f"── conversation {entry.conversation}{where}", "dim")])
                self._previous = None
                return
            self._held.append(entry)
            return
        self._flush(final=False)
        if not self._previous_is("assistant", "call"):
            self._row("think", "yellow", [(f"call {safe_text(entry.name, one_line=True)}", "")])
        for tag, style, body, badge in _call_rows(entry):
            self._row(tag, style, body, badge)
        self._previous = entry
        if self._plain:
            self.console.file.flush()  # as rich does: a call's rows are out before the next runs

    def finish(self) -> None:
        """Print what is held; the last assistant text is the ``[final]`` answer."""
        self._flush(final=True)

    def _previous_is(self, *kinds: str) -> bool:
        previous = self._previous
        return (("assistant" in kinds and isinstance(previous, self._assistant_type))
                or ("call" in kinds and isinstance(previous, self._call_type)))

    def _flush(self, *, final: bool) -> None:
        held, self._held = self._held, []
        if not held:
            if final and self._plain:
                self.console.file.flush()
            return
        from agentforge_cli.replay.transcripts import AssistantMessage, UserMessage

        last = -1
        if final:
            last = max((i for i, e in enumerate(held) if isinstance(e, AssistantMessage)
                        and not e.thinking and e.content.strip()), default=-1)
        for i, entry in enumerate(held):
            if isinstance(entry, UserMessage):
                self._row("user", "cyan", [(safe_text(entry.content), "")])
            elif isinstance(entry, AssistantMessage):
                if not entry.content.strip():
                    continue
                tag = "final" if i == last else "think"
                self._row(tag, "bold green" if tag == "final" else "yellow",
                          [(safe_text(entry.content), "dim" if entry.thinking else "")])
            else:
                continue
            self._previous = entry
        if final and self._plain:
            self.console.file.flush()

    def _row(self, tag: str, style: str, spans: _Spans,
             badge: tuple[str, str] | None = None) -> None:
        if self._plain:
            line = _plain_row(tag, spans, badge, self.width)
            if line is not None:
                self.console.file.write(line)
                return
        label = Text(f"[{tag}]", style=style) if tag else Text("")
        body = Text(spans[0][0], style=spans[0][1] or "")
        for text, span_style in spans[1:]:
            body.append(text, style=span_style)
        shown = Text(badge[0], style=badge[1]) if badge is not None else None
        for row in _hanging(self.console, label, body, self.width, shown):
            self.console.print(row, no_wrap=True, overflow="ignore", crop=False)


_LABEL_WIDTH = 10
_NOT_PLAIN = re.compile("[\x00-\x1f\x7f-\x9f]")
"""Characters rich may draw otherwise than as written (control characters, tabs)."""


def _hanging(console: Console, label: Text, body: Text, width: int,
             badge: Text | None = None) -> list[Text]:
    """``label body [badge]`` wrapped at ``width``, continuation lines indented under the
    body; the badge is never split (it moves to a line of its own when it does not fit)."""
    room = max(width - _LABEL_WIDTH, 20)
    parts = list(body.wrap(console, room, justify="default", overflow="fold"))
    for part in parts:
        part.rstrip()
    if badge is not None:
        if parts and parts[-1].cell_len + 2 + badge.cell_len <= room:
            parts[-1].append("  ")
            parts[-1].append_text(badge)
        else:
            parts.append(badge)
    lines = []
    for i, part in enumerate(parts):
        prefix = label.copy() if i == 0 else Text("")
        prefix.pad_right(_LABEL_WIDTH - prefix.cell_len)
        lines.append(prefix + part)
    return lines


def _cells(text: str) -> int:
    """Terminal cells of printable text: its length when ASCII (rich's ``cell_len``, which
    also caches every short string it measures, only for the rest)."""
    return len(text) if text.isascii() else cell_len(text)


def _plain_row(tag: str, spans: _Spans, badge: tuple[str, str] | None,
               width: int) -> str | None:
    """The row as :func:`_hanging` draws it without styles, when it is one line; ``None``
    when it is not (rich wraps it) or holds characters rich may change."""
    body = "".join([text for text, _ in spans])
    room = max(width - _LABEL_WIDTH, 20)
    if not body or _NOT_PLAIN.search(body) is not None:
        return None
    cells = _cells(body)
    if cells > room:
        return None
    stripped = body.rstrip()
    if len(stripped) != len(body):
        body, cells = stripped, _cells(stripped)
    if badge is not None:
        if cells + 2 + _cells(badge[0]) > room:
            return None
        body += "  " + badge[0]
    label = f"[{tag}]" if tag else ""
    return label.ljust(_LABEL_WIDTH) + body + "\n"


def replay_summary(summary: dict[str, int], title: str, *, failed: bool,
                   updated: int | None = None, allow_drift: bool = False) -> None:
    """The summary table (calls per status) and a one-line verdict (a drifted call fails
    it unless ``allow_drift``, also after ``--update``)."""
    console = stdout_console()
    total = sum(summary.values())
    table = Table(show_edge=False, box=None, padding=(0, 2), pad_edge=False,
                  header_style="bold")
    table.add_column("status")
    table.add_column("calls", justify="right")
    for status, count in summary.items():
        style = _STATUS[status][1] if count else "dim"
        table.add_row(Text(status, style=style), Text(str(count), style=style))
    table.add_row(Text("total", style="bold"), Text(str(total), style="bold"))
    console.print()
    console.print(Text(safe_text(title), style="bold"), overflow="fold")
    print_trimmed(console, table)
    noun = "call" if total == 1 else "calls"
    drifted = summary.get("drifted", 0)
    drift = f"{drifted} of {total} {noun} drifted from today's tools (not run)"
    if updated is not None:
        console.print(Text(f"updated {updated} recorded result"
                           f"{'' if updated == 1 else 's'} in the transcript", style="bold"))
        if drifted:
            console.print(Text(f"{'' if allow_drift else '✗ '}{drift}",
                               style="bold" if allow_drift else "bold red"))
    elif failed and (summary["mismatched"] or (drifted and not allow_drift)):
        differ = "differs" if summary["mismatched"] == 1 else "differ"
        parts = [f"{summary['mismatched']} of {total} {noun} {differ} from the recording"
                 ] if summary["mismatched"] else []
        if drifted and not allow_drift:
            parts.append(f"{drifted} drifted (not run)" if parts else drift)
        console.print(Text("✗ " + "; ".join(parts), style="bold red"))
    else:
        allowed = f" ({drifted} drifted, not run: allowed)" if drifted else ""
        console.print(Text(f"✓ {total} {noun} replayed, no result differs{allowed}",
                           style="bold green"))


def _same_terminal(first: Any, second: Any) -> bool:
    """Both streams are open on the same device (False when that cannot be told)."""
    try:
        return os.path.samestat(os.fstat(first.fileno()), os.fstat(second.fileno()))
    except (AttributeError, ValueError, OSError):
        return False


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def progress_possible(*, trace: bool) -> bool:
    """A progress bar can be drawn: standard error is a terminal and, when the trace is
    printed, standard output is not that same terminal (there the trace lines are the
    progress, and a bar would split them)."""
    if not _is_tty(sys.stderr):
        return False
    return not (trace and _is_tty(product_stream())
                and _same_terminal(product_stream(), sys.stderr))


@contextlib.contextmanager
def progress(total: int, enabled: bool, read: Any = None) -> Iterator[Callable[[Any], None]]:
    """A transient progress bar on stderr; yields a callback taking each event.

    The bar follows the transcript's ``total`` records (lines, messages, interactions) as
    ``read`` (its :class:`~agentforge_cli.replay.transcripts.transcript.ReadProgress`)
    counts them, and counts the calls replayed. While it is drawn, what the user's code
    prints (to ``sys.stdout``, which points at stderr then, or to ``sys.stderr``) is
    printed above it by rich.
    """
    if not enabled:
        yield lambda event: None
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

    from agentforge_cli.replay.transcripts.events import ToolCall

    bar = Progress(TextColumn("replaying"), BarColumn(), TaskProgressColumn(),
                   TextColumn("{task.fields[calls]}"),
                   console=stderr_console(), transient=True)
    with bar:
        task = bar.add_task("replay", total=total, calls="0 calls")
        calls = 0

        def advance(event: Any) -> None:
            nonlocal calls
            if isinstance(event, ToolCall):
                calls += 1
            done = None if read is None else min(read.records, total)
            bar.update(task, completed=done, calls=f"{calls} call{'' if calls == 1 else 's'}")

        yield advance
