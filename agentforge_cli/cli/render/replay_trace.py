"""The replay trace: ``[user] [think] [act] [reflect] [final]`` rows as entries arrive."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from agentforge_cli.cli.render.consoles import safe_text, stdout_console

if TYPE_CHECKING:
    from agentforge_cli.replay.report import CallReport, CallStatus


@functools.cache
def status_badges() -> dict[CallStatus, tuple[str, str]]:
    """Each call status's badge and style (made on first use: the replay package loads
    only when a replay is drawn)."""
    from agentforge_cli.replay.report import CallStatus

    return {CallStatus.MATCHED: ("✓ matched", "green"),
            CallStatus.MISMATCHED: ("✗ mismatched", "bold red"),
            CallStatus.UNRECORDED: ("• unrecorded", "yellow"),
            CallStatus.DRIFTED: ("⚠ drifted", "bold magenta")}


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


def _call_rows(call: CallReport, badges: bool = True) -> list[_Row]:
    badge = status_badges()[call.status] if badges else None
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
    for outcome in call.requests:  # what the server asked during the call, and how it went
        rows.append(("", "", [(_one_line("↳ server asked " + outcome.line(), 400),
                               "dim" if outcome.status == "answered" else "yellow")], None))
    if call.scrubbed:  # compared without these: say so, matched or not
        rows.append(("", "", [(_one_line("scrubbed: " + ", ".join(call.scrubbed), 400),
                               "dim")], None))
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

    def __init__(self, *, badges: bool = True) -> None:
        self.badges = badges  # False for a live chat: nothing recorded to compare with
        self.console = stdout_console()
        self.width = max(self.console.width, 40)
        self._plain = (self.console.color_system is None
                       and self.console.encoding.replace("-", "") == "utf8")
        self._held: list[Any] = []
        self._previous: Any = None
        from agentforge_cli.replay.report import CallReport
        from agentforge_cli.replay.transcripts.model import AssistantMessage, ConversationStart

        self._call_type, self._assistant_type = CallReport, AssistantMessage
        self._start_type = ConversationStart

    def add(self, entry: Any) -> None:
        """Print (or hold) one settled entry."""
        if not isinstance(entry, self._call_type):
            if isinstance(entry, self._start_type):  # a thin line between conversations
                self._flush(final=not entry.alongside)
                where = f" ({safe_text(str(entry.where))})" if entry.where else ""
                self._row("", "", [(f"── conversation {entry.conversation}{where}", "dim")])
                self._previous = None
                return
            self._held.append(entry)
            return
        self._flush(final=False)
        if not self._previous_is("assistant", "call"):
            self._row("think", "yellow", [(f"call {safe_text(entry.name, one_line=True)}", "")])
        for tag, style, body, badge in _call_rows(entry, self.badges):
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
        if held:
            last = _final_answer(held) if final else -1
            for i, entry in enumerate(held):
                if self._show_message(entry, final=i == last):
                    self._previous = entry
        if final and self._plain:
            self.console.file.flush()

    def _show_message(self, entry: object, *, final: bool) -> bool:
        """Draw one held message (a user's, or the assistant's thinking or final answer);
        whether it was drawn."""
        from agentforge_cli.replay.transcripts import AssistantMessage, UserMessage

        if isinstance(entry, UserMessage):
            self._row("user", "cyan", [(safe_text(entry.content), "")])
            return True
        if not isinstance(entry, AssistantMessage) or not entry.content.strip():
            return False
        self._row("final" if final else "think", "bold green" if final else "yellow",
                  [(safe_text(entry.content), "dim" if entry.thinking else "")])
        return True

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


def _final_answer(held: list[Any]) -> int:
    """The index of the last assistant message that answers (not thinking, not empty), or
    -1: the one a finished transcript shows as ``[final]``."""
    from agentforge_cli.replay.transcripts import AssistantMessage

    return max((i for i, e in enumerate(held) if isinstance(e, AssistantMessage)
                and not e.thinking and e.content.strip()), default=-1)
