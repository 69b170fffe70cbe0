"""Minimal edits of JSON text: a JSON text rewritten to spell a new value, with every part
whose value did not change kept byte for byte — its escapes, key order, spacing and
indentation — so that the diff of ``replay --update`` shows only what changed.

:func:`edit_json` walks the old text and the new value together, descending only into
what differs: an unchanged member, item or string is copied from the text; a changed
string keeps the spelling of its unchanged beginning and end (``\\u00e9`` stays an
escape); a new member or item takes its neighbours' separators and indentation. A value
written afresh (:func:`fresh_json`) follows the text's habits: non-ASCII as ``\\u``
escapes when the text escapes it (Python's ``json.dump`` default), as UTF-8 otherwise;
``", "``/``": "`` when the text is spaced; indented like the text when its neighbours
span lines.

Values Python finds equal (``1``, ``1.0``, ``true``) are left as written; a change
nested too deeply for the walk is written as a whole value anew. Standard library only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from agentforge_cli.replay.transcripts.files.json_text import loads, scan_json

__all__ = ["TextStyle", "edit_json", "fresh_json", "text_style"]

_SPACES = re.compile(r"[ \t\n\r]*").match
_ESCAPED_NON_ASCII = re.compile(r"(?<!\\)(?:\\\\)*\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])")
"""A ``\\u`` escape of a character beyond ASCII (an odd run of backslashes before it)."""
_SPACED = re.compile(r'"\s*:\s|,\s+["{\[\d]')
_COMPACT = re.compile(r'":[^\s]|,["{\[\d]')
_INDENT = re.compile(r"\n([ \t]+)\S")
_SAMPLE = 1 << 16
_LOOKAHEAD = 256
"""How far ahead an array's alignment looks for an item that moved (items added)."""
_UNSET: Any = object()


@dataclass(frozen=True, slots=True)
class TextStyle:
    """How a JSON text writes what it holds: what :func:`fresh_json` follows."""

    ascii: bool = False
    """Non-ASCII characters as ``\\u`` escapes (``json.dumps``'s default)."""
    spaced: bool = False
    """``", "`` and ``": "`` between the parts written on one line."""
    indent: str = "  "
    """One indentation level, where values span lines."""
    newline: str = "\n"
    """The end of line (``\\r\\n`` in a text that uses it)."""


def escapes_non_ascii(text: str) -> bool | None:
    """``True`` when ``text`` writes non-ASCII characters only as ``\\u`` escapes,
    ``False`` when it holds some as they are, ``None`` when it holds none either way."""
    if not text.isascii():
        return False
    return True if _ESCAPED_NON_ASCII.search(text) else None


def text_style(text: str) -> TextStyle:
    """The style of a JSON text (its first 64 KiB for spacing and indentation); a text
    that shows no non-ASCII character either way gets UTF-8."""
    sample = text[:_SAMPLE]
    found = _INDENT.search(sample)
    indent = found.group(1) if found else "  "
    if set(indent) != {" "}:
        indent = indent[:1]
    shown = escapes_non_ascii(text)
    return TextStyle(ascii=bool(shown),
                     spaced=_SPACED.search(sample) is not None, indent=indent,
                     newline="\r\n" if "\r\n" in sample else "\n")


def fresh_json(value: Any, style: TextStyle, *, multiline: bool = False,
               indent: str = "") -> str:
    """``value`` written anew in ``style``: on one line, or (``multiline``) indented with
    the style's level, each line after the first starting with ``indent``."""
    if multiline and isinstance(value, dict | list) and value:
        text = _dumps(value, style.ascii, indent=style.indent, separators=(",", ": "))
        return text.replace("\n", style.newline + indent)
    separators = (", ", ": ") if style.spaced else (",", ":")
    return _dumps(value, style.ascii, separators=separators)


def _dumps(value: Any, ascii: bool, **options: Any) -> str:
    text = json.dumps(value, ensure_ascii=ascii, **options)
    if not ascii:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: only an escape can carry it
            return json.dumps(value, ensure_ascii=True, **options)
    return text


def edit_json(text: str, new: Any, old: Any = _UNSET, *,
              style: TextStyle | None = None) -> str:
    """``text``, one JSON value (whitespace around it allowed), rewritten to spell
    ``new``: unchanged parts byte for byte. ``old`` is the value ``text`` spells (parsed
    when not given); ``style`` how fresh parts are written (else :func:`text_style`)."""
    if old is _UNSET:
        old = loads(text)
    if _same(old, new):
        return text
    start = _skip(text, 0)
    style = style or text_style(text)
    multiline = "\n" in text.strip()
    try:
        end, replaced = _Editor(text, style).value(start, old, new, multiline)
    except RecursionError:  # changed that deep down: written anew, in the text's style
        end = len(text.rstrip())
        replaced = fresh_json(new, style, multiline=multiline)
    return text[:start] + replaced + text[end:]


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _skip(text: str, pos: int) -> int:
    """The position of the next character that is not JSON whitespace."""
    return _SPACES(text, pos).end()  # type: ignore[union-attr]  # always matches


@dataclass(slots=True)
class _Member:
    key: str
    start: int
    """Where the key's quote is (an array's item: where it starts)."""
    key_end: int
    """After the key's closing quote (an item: where it starts)."""
    value: int
    """Where its value starts."""
    end: int
    """Where its value ends."""


@dataclass(slots=True)
class _Container:
    """An object's members or an array's items as they are spelled, with the text
    between them."""

    members: list[_Member]
    lead: str
    """From the opening bracket to the first member."""
    separators: list[str]
    """Between one member's end and the next one's start (the comma included)."""
    trail: str
    """From the last member's end to the closing bracket."""
    end: int
    """After the closing bracket."""
    shape: tuple[bool, TextStyle] | None = None
    """What :meth:`_Editor._shape` found, once asked."""

    @property
    def multiline(self) -> bool:
        return "\n" in self.lead


class _Editor:
    """One text and the style of its fresh parts."""

    def __init__(self, text: str, style: TextStyle) -> None:
        self.text = text
        self.style = style

    def value(self, pos: int, old: Any, new: Any, multiline: bool,
              style: TextStyle | None = None) -> tuple[int, str]:
        """The end of the value at ``pos`` (spelling ``old``) and its text for ``new``;
        ``multiline``: a fresh object or array here spans lines, as its neighbours do;
        ``style``: how its container writes what is fresh (default: the text's)."""
        text = self.text
        char = text[pos]
        if isinstance(new, dict) and isinstance(old, dict) and char == "{" and old and new:
            return self._object(pos, old, new)
        if isinstance(new, list) and isinstance(old, list) and char == "[" and old and new:
            return self._array(pos, old, new)
        end = scan_json(text, pos)[1]
        if isinstance(new, str) and isinstance(old, str) and char == '"':
            return end, self._string(text[pos:end], old, new)
        line = text.rfind("\n", 0, pos) + 1
        indent = text[line:_skip_blanks(text, line)]
        return end, fresh_json(new, style or self.style, multiline=multiline, indent=indent)

    # -- strings ---------------------------------------------------------------------------

    def _string(self, literal: str, old: str, new: str) -> str:
        """``literal`` (spelling ``old``) changed to spell ``new``: its unchanged beginning
        and end kept as spelled, the rest written in the literal's own escaping."""
        limit = min(len(old), len(new))
        head = 0
        while head < limit and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        middle = new[head:len(new) - tail]
        shown = escapes_non_ascii(literal)
        ascii = self.style.ascii if shown is None else shown
        body = _dumps(middle, ascii)[1:-1]
        if "\\" not in literal:  # each character spelled as itself
            return literal[:1 + head] + body + literal[1 + len(old) - tail:]
        offsets = _char_offsets(literal)
        return literal[:offsets[head]] + body + literal[offsets[len(old) - tail]:]

    # -- objects ---------------------------------------------------------------------------

    def _object(self, pos: int, old: dict[str, Any], new: dict[str, Any]) -> tuple[int, str]:
        found = self._members(pos, "}")
        members = found.members
        if len({m.key for m in members}) != len(members):  # a key twice: written anew
            nested, style = self._shape(found)
            return found.end, fresh_json(new, style, multiline=nested,
                                         indent=self._indent(found, pos))
        text = self.text
        written: list[str] = []
        for key, member in _member_order(members, new):
            value = new[key]
            if member is None:
                nested, style = self._shape(found)
                first = members[0]
                written.append(self._key(key) + text[first.key_end:first.value] + fresh_json(
                    value, style, multiline=nested, indent=self._indent(found, pos)))
                continue
            key_text = text[member.start:member.key_end] if member.key == key else \
                self._key(key)
            before = old[member.key]
            if _same(before, value):
                shown = text[member.value:member.end]
            else:
                nested, style = self._shape(found)
                shown = self.value(member.value, before, value, nested, style)[1]
            written.append(key_text + text[member.key_end:member.value] + shown)
        return found.end, self._assemble("{", "}", found, written)

    def _key(self, key: str) -> str:
        return _dumps(key, self.style.ascii)

    # -- arrays ----------------------------------------------------------------------------

    def _array(self, pos: int, old: list[Any], new: list[Any]) -> tuple[int, str]:
        found = self._members(pos, "]")
        items = found.members
        text = self.text
        written: list[str] = []
        for kind, i, j in _alignment(old, new):
            if kind == "keep":
                written.append(text[items[i].value:items[i].end])
                continue
            nested, style = self._shape(found)
            if kind == "edit":
                written.append(self.value(items[i].value, old[i], new[j], nested, style)[1])
            elif kind == "add":
                written.append(fresh_json(new[j], style, multiline=nested,
                                          indent=self._indent(found, pos)))
        return found.end, self._assemble("[", "]", found, written)

    # -- what objects and arrays share -----------------------------------------------------

    def _members(self, pos: int, close: str) -> _Container:
        """The members (an object's, with keys) or items (an array's) at ``pos``."""
        text, scan = self.text, scan_json
        members: list[_Member] = []
        separators: list[str] = []
        start = _skip(text, pos + 1)
        lead = text[pos + 1:start]
        keyed = close == "}"
        while True:
            if keyed:
                key, after = scan(text, start)
                value = _skip(text, _skip(text, after) + 1)  # past the colon
            else:
                key, after, value = "", start, start
            end = scan(text, value)[1]
            members.append(_Member(key, start, after, value, end))
            after = _skip(text, end)
            if text[after] == close:
                return _Container(members, lead, separators, text[end:after], after + 1)
            start = _skip(text, after + 1)  # past the comma
            separators.append(text[end:start])

    def _assemble(self, opening: str, closing: str, found: _Container,
                  written: list[str]) -> str:
        """The container's text: ``written`` members between its own separators (the
        last one repeated for members it did not have)."""
        if not written:
            return opening + closing
        separators = found.separators
        default = separators[-1] if separators else self._separator(found)
        parts = [opening, found.lead, written[0]]
        for index, member in enumerate(written[1:]):
            parts.append(separators[index] if index < len(separators) else default)
            parts.append(member)
        parts.extend((found.trail, closing))
        return "".join(parts)

    def _separator(self, found: _Container) -> str:
        """Between two members of a container that had only one."""
        lead = found.lead
        if "\n" in lead:
            return "," + lead.lstrip(" \t")
        member = found.members[0]
        if member.value != member.start:  # an object: its colon tells
            return ", " if " " in self.text[member.key_end:member.value] else ","
        return ", " if self.style.spaced else ","

    def _shape(self, found: _Container) -> tuple[bool, TextStyle]:
        """How an object or array written anew inside ``found`` looks: whether it spans
        lines and its spacing — as a neighbouring object or array, else as ``found``."""
        text = self.text
        for member in found.members:
            if text[member.value] in "{[" and member.end - member.value > 2:
                shown = text[member.value:member.end]
                if "\n" in shown:
                    return True, self.style
                spacing = _spacing(shown)
                if spacing is not None:
                    return False, self._spaced(spacing)
        if found.multiline:
            return True, self.style
        first = found.members[0]
        if found.separators:
            return False, self._spaced(" " in found.separators[0])
        if first.value != first.start:  # an object's one member: its colon tells
            return False, self._spaced(" " in text[first.key_end:first.value])
        return False, self.style

    def _spaced(self, spaced: bool) -> TextStyle:
        style = self.style
        if spaced == style.spaced:
            return style
        return TextStyle(ascii=style.ascii, spaced=spaced, indent=style.indent,
                         newline=style.newline)

    def _indent(self, found: _Container, pos: int) -> str:
        """The indentation of the lines a member starts on."""
        if found.multiline:
            return found.lead[found.lead.rfind("\n") + 1:]
        line = self.text.rfind("\n", 0, pos) + 1
        return self.text[line:_skip_blanks(self.text, line)]


def _spacing(text: str) -> bool | None:
    """Whether a JSON text on one line is spaced (``", "``), compact, or shows neither."""
    if _SPACED.search(text):
        return True
    return False if _COMPACT.search(text) else None


def _skip_blanks(text: str, pos: int) -> int:
    size = len(text)
    while pos < size and text[pos] in " \t":
        pos += 1
    return pos


def _member_order(members: list[_Member], new: dict[str, Any]
                  ) -> list[tuple[str, _Member | None]]:
    """The keys of ``new`` in the order the object is written, each with the member whose
    place (and text) it takes: the object's own order for the keys it had (dict order
    alone changes nothing); a new key where a dropped one was, between the same kept keys
    (a rename), in that one's place; any other new key after the last written of the keys
    it follows in ``new``."""
    had = {m.key: m for m in members}
    dropped: dict[str | None, list[_Member]] = {}  # after which kept key, in the object
    kept: str | None = None
    for member in members:
        if member.key in new:
            kept = member.key
        else:
            dropped.setdefault(kept, []).append(member)
    renamed: dict[str, str] = {}  # a dropped key -> the new key in its place
    added: list[str] = []
    kept = None
    for key in new:
        if key in had:
            kept = key
        elif dropped.get(kept):
            renamed[dropped[kept].pop(0).key] = key
        else:
            added.append(key)
    placed: list[tuple[str, _Member | None]] = [
        (m.key if m.key in new else renamed[m.key], m) for m in members
        if m.key in new or m.key in renamed]
    keys = list(new)
    for key in added:
        before = set(keys[:keys.index(key)])
        after = max((at for at, (placed_key, _) in enumerate(placed) if placed_key in before),
                    default=-1)
        placed.insert(after + 1, (key, None))
    return placed


def _alignment(old: list[Any], new: list[Any]) -> Iterator[tuple[str, int, int]]:
    """How ``old``'s items become ``new``'s: ``("keep", i, j)``, ``("edit", i, j)`` (item
    ``i`` rewritten as ``new[j]``), ``("add", -1, j)`` and ``("drop", i, -1)``, in order.
    Items added (or dropped) are found by looking ahead for the next equal item."""
    i = j = 0
    extra = len(new) - len(old)
    while i < len(old) and j < len(new):
        if _same(old[i], new[j]):
            yield "keep", i, j
            i += 1
            j += 1
            continue
        if extra > 0:
            ahead = next((k for k in range(1, min(extra, _LOOKAHEAD) + 1)
                          if j + k < len(new) and _same(old[i], new[j + k])), 0)
            if ahead:
                for k in range(ahead):
                    yield "add", -1, j + k
                j += ahead
                extra -= ahead
                continue
        elif extra < 0:
            ahead = next((k for k in range(1, min(-extra, _LOOKAHEAD) + 1)
                          if i + k < len(old) and _same(old[i + k], new[j])), 0)
            if ahead:
                for k in range(ahead):
                    yield "drop", i + k, -1
                i += ahead
                extra += ahead
                continue
        yield "edit", i, j
        i += 1
        j += 1
    for k in range(j, len(new)):
        yield "add", -1, k
    for k in range(i, len(old)):
        yield "drop", k, -1


def _char_offsets(literal: str) -> list[int]:
    """For a JSON string literal (its quotes included): where the spelling of each
    character it decodes to starts, and where the closing quote is (one more entry)."""
    offsets: list[int] = []
    pos, end = 1, len(literal) - 1
    while pos < end:
        offsets.append(pos)
        if literal[pos] != "\\":
            pos += 1
        elif literal[pos + 1] != "u":
            pos += 2
        elif (0xD800 <= int(literal[pos + 2:pos + 6], 16) < 0xDC00
              and literal[pos + 6:pos + 8] == "\\u"
              and 0xDC00 <= int(literal[pos + 8:pos + 12] or "0", 16) < 0xE000):
            pos += 12  # a surrogate pair: one character
        else:
            pos += 6
    offsets.append(end)
    return offsets
