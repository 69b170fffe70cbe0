"""VCR cassette files (as vcrpy and pytest-recording write them): their interactions as
records, and the JSON an HTTP body holds.

A cassette is ``{"interactions": [{"request": {...}, "response": {...}}, ...],
"version": 1}`` in YAML or JSON, ``.gz`` read transparently. YAML is read one interaction
at a time (PyYAML's composer, its C parser when available), so memory holds one
interaction, and that one is at most
:data:`~agentforge_cli.replay.transcripts.files.limits.MAX_LINE_BYTES` of YAML (a longer one,
or a scalar as long, is refused as soon as that much is read: a 2 MB ``.yaml.gz`` may
hold a scalar of gigabytes); a cassette, YAML or JSON, is at most
:data:`~agentforge_cli.replay.transcripts.files.limits.MAX_DOCUMENT_BYTES` decompressed, and a
JSON one is parsed whole. YAML nested deeper than :data:`MAX_YAML_NESTING` is refused
before it is composed. A compressed HTTP body is inflated no further than its limit
(:func:`body_value`). PyYAML is imported only here, when a YAML cassette is read.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.files.limits import (
    MAX_DOCUMENT_BYTES,
    MAX_LINE_BYTES,
    open_bytes,
    read_head,
)
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.model import TranscriptError
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place
from agentforge_cli.replay.transcripts.reading.exchanges import (
    Unreadable,
    parse_events,
    parse_json_lines,
)

__all__ = ["MAX_YAML_NESTING", "body_value", "is_cassette", "iter_interactions"]

MAX_YAML_NESTING = 200
"""Levels of mappings and lists a YAML cassette may nest (PyYAML composes a level with
Python calls: deeper, a cassette would exhaust the interpreter's stack)."""

_YAML_SUFFIXES = (".yaml", ".yml")
_JSON_HEAD = re.compile(rb'\A\s*\{\s*"(interactions|version)"\s*:')
_FIRST_KEY = re.compile(r'\s*\{\s*("(?:[^"\\]|\\.)*")\s*:', re.ASCII)
"""An object's first key, up to its colon, on the file's first line."""
_NOT_A_CASSETTE = 'not a VCR cassette: expected a mapping with an "interactions" list'


def _is_yaml(path: Path) -> bool:
    return path.name.lower().removesuffix(".gz").endswith(_YAML_SUFFIXES)


def is_cassette(path: Path, head: str) -> bool:
    """Whether the file is one for this reader: any YAML file (by its name, or a first
    line that is a cassette's YAML key), or a JSON object whose first key is
    ``interactions`` or ``version``."""
    if _is_yaml(path) or head.startswith(("interactions:", "version:", "---")):
        return True
    if not head.lstrip().startswith("{"):
        return False
    first_key = _FIRST_KEY.match(head)
    if first_key is not None:  # the first line tells (a JSONL file's line always does)
        return first_key.group(1) in ('"interactions"', '"version"')
    try:
        with open_bytes(path) as stream:
            start = stream.read(4096)
    except (OSError, EOFError):
        return False
    return _JSON_HEAD.match(start.removeprefix(b"\xef\xbb\xbf")) is not None


def iter_interactions(path: Path) -> Iterator[Record]:
    """Yield each interaction of the cassette as a record (``interactions[3]``, with its
    line in a YAML cassette).

    Raises:
        TranscriptFormatError: The file is not a cassette.
        TranscriptError: It cannot be read, or its YAML/JSON is malformed.
    """
    as_json = not _is_yaml(path) and (read_head(path) or "").lstrip().startswith("{")
    try:
        stream = open_bytes(path)
    except OSError as exc:
        raise TranscriptError(path, WHOLE_FILE, f"cannot be read: {exc.strerror or exc}") from None
    with stream:
        try:
            if as_json:
                yield from _json_interactions(path, stream)
            else:
                yield from _yaml_interactions(path, stream)
        except (OSError, EOFError) as exc:  # a damaged .gz stream
            raise TranscriptError(path, WHOLE_FILE, f"cannot be read: {exc}") from None


def _json_interactions(path: Path, stream: Any) -> Iterator[Record]:
    raw = stream.read(MAX_DOCUMENT_BYTES + 1)
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise TranscriptError(path, WHOLE_FILE,
                              f"the cassette is more than the {MAX_DOCUMENT_BYTES} "
                              "bytes a cassette may have (decompressed)")
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise TranscriptError(path, WHOLE_FILE, f"not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise TranscriptError(path, Place(exc.lineno),
                              f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:
        raise TranscriptError(path, WHOLE_FILE, f"invalid JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise TranscriptFormatError(path, WHOLE_FILE,
                                    f"{_NOT_A_CASSETTE}; found {record_shape(data)}")
    for i, item in enumerate(data["interactions"]):
        yield Record(item, WHOLE_FILE.at("interactions", i), i)


def _loader(stream: Any) -> Any:
    """A PyYAML safe loader over ``stream`` that can compose one node at a time."""
    import yaml
    from yaml.composer import Composer

    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

    class _Loader(base, Composer):  # type: ignore[misc, valid-type]  # a base chosen at run time
        def __init__(self, source: Any) -> None:
            base.__init__(self, source)
            Composer.__init__(self)
            self.depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            try:
                if self.depth > MAX_YAML_NESTING:
                    raise _TooDeep(self.peek_event().start_mark.line + 1)
                return Composer.compose_node(self, parent, index)
            finally:
                self.depth -= 1

    return _Loader(stream)


_READ_AHEAD = 1 << 20
"""More than the parser reads ahead of the value it is composing (its buffer is 16 KiB
for the C parser, 64 KiB for the Python one): a value is refused only past its limit and
this much, so that one is never refused for the bytes of the next."""


class _TooLong(Exception):
    """The YAML read so far is over a limit (the message says which)."""


class _TooDeep(Exception):
    """The YAML nests deeper than :data:`MAX_YAML_NESTING` (the argument: its line)."""


class _CountedStream:
    """A cassette's bytes as the YAML parser reads them, counted, so that no value (an
    interaction, or any other top-level value: a scalar may be gigabytes) is read past
    :data:`~agentforge_cli.replay.transcripts.files.limits.MAX_LINE_BYTES`, nor the cassette
    past :data:`~agentforge_cli.replay.transcripts.files.limits.MAX_DOCUMENT_BYTES`; a
    compressed cassette is inflated only as far as it is read."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.total = 0
        self.value_start = 0
        """How much had been read when the value being composed started."""
        self.where = WHOLE_FILE
        """The value being composed (``interactions[3]``, with its line once known)."""

    def read(self, size: int = -1) -> bytes:
        data: bytes = self._stream.read(size if 0 <= size <= _READ_AHEAD else _READ_AHEAD)
        self.total += len(data)
        if self.total > MAX_DOCUMENT_BYTES:
            raise _TooLong(f"the cassette is more than the {MAX_DOCUMENT_BYTES} bytes a "
                           "cassette may have (decompressed)")
        if self.total - self.value_start > MAX_LINE_BYTES + _READ_AHEAD:
            raise _TooLong(f"more than {MAX_LINE_BYTES} bytes of YAML (the limit of an "
                           "interaction); nothing more of it was read")
        return data

    def start_value(self, where: Place) -> None:
        self.value_start, self.where = self.total, where


def _yaml_interactions(path: Path, stream: Any) -> Iterator[Record]:
    import yaml
    from yaml import events

    counted = _CountedStream(stream)
    loader = _loader(counted)
    try:
        yield from _walk(path, loader, events, counted)
    except _TooLong as exc:
        raise TranscriptError(path, counted.where, str(exc)) from None
    except _TooDeep as exc:
        raise TranscriptError(path, Place(exc.args[0]), f"YAML nested more than "
                              f"{MAX_YAML_NESTING} levels deep (the limit)") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Place(mark.line + 1) if mark is not None else WHOLE_FILE
        raise TranscriptError(path, where, f"invalid YAML: {exc.problem or exc.context}"
                              ) from None
    except yaml.YAMLError as exc:
        raise TranscriptError(path, WHOLE_FILE, f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()


def _walk(path: Path, loader: Any, events: Any, counted: _CountedStream) -> Iterator[Record]:
    """The interactions of the top-level mapping, composed and built one at a time; any
    other top-level value is composed and dropped (each counted from its start)."""
    loader.get_event()  # stream start
    if loader.check_event(events.StreamEndEvent):
        raise TranscriptError(path, WHOLE_FILE, "the cassette is empty")
    loader.get_event()  # document start
    if not loader.check_event(events.MappingStartEvent):
        node = loader.compose_node(None, None)
        raise TranscriptFormatError(path, Place(node.start_mark.line + 1),
                                    f"{_NOT_A_CASSETTE}; found a YAML {node.id}")
    loader.get_event()
    found = False
    counted.start_value(WHOLE_FILE)
    while not loader.check_event(events.MappingEndEvent):
        key = loader.compose_node(None, None)
        counted.start_value(Place(key.start_mark.line + 1))
        if key.id == "scalar" and key.value == "interactions" and loader.check_event(
                events.SequenceStartEvent):
            found = True
            loader.get_event()
            index = 0
            while True:
                counted.start_value(WHOLE_FILE.at("interactions", index))
                if loader.check_event(events.SequenceEndEvent):
                    break
                line = loader.peek_event().start_mark.line + 1
                counted.where = Place(line, (("interactions", index),))
                node = loader.compose_node(None, None)
                yield Record(loader.construct_document(node), counted.where, index)
                index += 1
            loader.get_event()
        else:
            loader.compose_node(None, None)
        counted.start_value(WHOLE_FILE)
    if not found:
        raise TranscriptFormatError(path, WHOLE_FILE, _NOT_A_CASSETTE)


def _header(headers: Any, name: str) -> str:
    """A header's value (vcrpy keeps each as a list), case-insensitively; ``""`` if absent."""
    if not isinstance(headers, dict):
        return ""
    for key, value in headers.items():
        if isinstance(key, str) and key.lower() == name:
            if isinstance(value, list):
                value = value[0] if value else ""
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            return value if isinstance(value, str) else ""
    return ""


_NOT_DECOMPRESSED = frozenset({"br", "zstd", "compress"})
"""Content encodings a body is not decompressed from (they stay their few bytes)."""


class _TooLarge(Exception):
    """A compressed body inflates to more than the limit."""


def _inflate(body: bytes, wbits: int) -> bytes:
    """A gzip (``wbits`` 16 + 15) or zlib body, inflated no further than one byte past
    :data:`~agentforge_cli.replay.transcripts.files.limits.MAX_LINE_BYTES` (a body of 1 MB
    may inflate to gigabytes).

    Raises:
        _TooLarge: It inflates to more.
        zlib.error: It is not a whole stream.
    """
    inflater = zlib.decompressobj(wbits)
    out = inflater.decompress(body, MAX_LINE_BYTES + 1)
    if len(out) > MAX_LINE_BYTES:
        raise _TooLarge
    if not inflater.eof:
        raise zlib.error("incomplete or truncated stream")
    return out


def body_value(side: dict[str, Any]) -> Any:
    """What an HTTP body holds: a JSON value, the events of a streamed body
    (:class:`~agentforge_cli.replay.transcripts.reading.exchanges.ServerEvents`), ``None`` for no
    body, or :class:`~agentforge_cli.replay.transcripts.reading.exchanges.Unreadable`.

    The body is a string, bytes (YAML ``!!binary``), ``{"string": ...}`` (vcrpy's
    response) or a ``parsed_body`` mapping (pydantic-ai's cassettes); gzip- or
    deflate-compressed when ``Content-Encoding`` says so or it starts with gzip's magic
    bytes. A body that does not decompress is read as it is (a header that says gzip over
    plain text is common in recordings); one that inflates to more than
    :data:`~agentforge_cli.replay.transcripts.files.limits.MAX_LINE_BYTES` is unreadable, found
    out without inflating more, as is a ``br`` or ``zstd`` body. Text of one JSON value a
    line is a stream of chunks (Ollama's); a binary body is unreadable with its bytes
    kept (an AWS event stream, which Bedrock's reader decodes). Never raises.
    """
    if "parsed_body" in side:
        return side["parsed_body"]
    body = side.get("body")
    if isinstance(body, dict):
        body = body.get("string")
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    if not isinstance(body, bytes) or not body:
        return None
    encoding = _header(side.get("headers"), "content-encoding").strip().lower()
    damaged = None
    try:
        if encoding == "gzip" or body.startswith(b"\x1f\x8b"):
            body = _inflate(body, 16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            body = _inflate(body, zlib.MAX_WBITS)
    except zlib.error as exc:
        damaged = exc  # perhaps not compressed after all: read as it is
    except _TooLarge:
        return Unreadable(f"a {encoding or 'gzip'} body that inflates to more than "
                          f"{MAX_LINE_BYTES} bytes (the limit)")
    if encoding in _NOT_DECOMPRESSED:
        return Unreadable(f"a {encoding}-compressed body (replay does not decompress "
                          f"{encoding})")
    if body.startswith(b"\x00"):  # never text: an AWS event stream's length, say
        return Unreadable(f"{len(body)} bytes of binary data", body)
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        if damaged is not None:
            return Unreadable(f"a compressed body that does not decompress ({damaged})")
        return Unreadable(f"{len(body)} bytes of binary data", body)
    start = text.lstrip()[:6]
    if not start:
        return None
    if start.startswith(("data:", "event:")) or "event-stream" in _header(
            side.get("headers"), "content-type"):
        return parse_events(text)
    try:
        return json.loads(text)
    except ValueError:
        return parse_json_lines(text) or Unreadable("text that is not JSON")
    except RecursionError:
        return Unreadable("JSON nested too deeply")
