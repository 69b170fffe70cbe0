"""VCR cassette files (as vcrpy and pytest-recording write them): their interactions as
records, and the JSON an HTTP body holds.

A cassette is ``{"interactions": [{"request": {...}, "response": {...}}, ...],
"version": 1}`` in YAML or JSON, ``.gz`` read transparently. YAML is read one interaction
at a time (PyYAML's composer, its C parser when available), so memory holds one
interaction; a JSON cassette is parsed whole, up to
:data:`~agentforge_cli.replay.transcripts.records.MAX_DOCUMENT_BYTES`. PyYAML is
imported only here, when a YAML cassette is read.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentforge_cli.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.events import TranscriptError
from agentforge_cli.replay.transcripts.exchanges import Unreadable, parse_events
from agentforge_cli.replay.transcripts.records import (
    MAX_DOCUMENT_BYTES,
    Record,
    open_bytes,
    read_head,
    record_shape,
)

__all__ = ["body_value", "is_cassette", "iter_interactions"]

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
        raise TranscriptError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    with stream:
        try:
            if as_json:
                yield from _json_interactions(path, stream)
            else:
                yield from _yaml_interactions(path, stream)
        except (OSError, EOFError) as exc:  # a damaged .gz stream
            raise TranscriptError(path, "", f"cannot be read: {exc}") from None


def _json_interactions(path: Path, stream: Any) -> Iterator[Record]:
    raw = stream.read(MAX_DOCUMENT_BYTES + 1)
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise TranscriptError(path, "", f"the cassette is more than the {MAX_DOCUMENT_BYTES} "
                              "bytes a JSON cassette may have (YAML cassettes are streamed)")
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise TranscriptError(path, "", f"not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise TranscriptError(path, f"line {exc.lineno}",
                              f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:
        raise TranscriptError(path, "", f"invalid JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise TranscriptFormatError(path, "", f"{_NOT_A_CASSETTE}; found {record_shape(data)}")
    for i, item in enumerate(data["interactions"]):
        yield Record(item, f"interactions[{i}]", i)


def _loader(stream: Any) -> Any:
    """A PyYAML safe loader over ``stream`` that can compose one node at a time."""
    import yaml
    from yaml.composer import Composer

    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

    class _Loader(base, Composer):  # type: ignore[misc, valid-type]  # a base chosen at run time
        def __init__(self, source: Any) -> None:
            base.__init__(self, source)
            Composer.__init__(self)

    return _Loader(stream)


def _yaml_interactions(path: Path, stream: Any) -> Iterator[Record]:
    import yaml
    from yaml import events

    loader = _loader(stream)
    try:
        yield from _walk(path, loader, events)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}" if mark is not None else ""
        raise TranscriptError(path, where, f"invalid YAML: {exc.problem or exc.context}"
                              ) from None
    except yaml.YAMLError as exc:
        raise TranscriptError(path, "", f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()


def _walk(path: Path, loader: Any, events: Any) -> Iterator[Record]:
    """The interactions of the top-level mapping, composed and built one at a time; any
    other top-level value is composed and dropped."""
    loader.get_event()  # stream start
    if loader.check_event(events.StreamEndEvent):
        raise TranscriptError(path, "", "the cassette is empty")
    loader.get_event()  # document start
    if not loader.check_event(events.MappingStartEvent):
        node = loader.compose_node(None, None)
        raise TranscriptFormatError(path, f"line {node.start_mark.line + 1}",
                                    f"{_NOT_A_CASSETTE}; found a YAML {node.id}")
    loader.get_event()
    found = False
    while not loader.check_event(events.MappingEndEvent):
        key = loader.compose_node(None, None)
        if key.id == "scalar" and key.value == "interactions" and loader.check_event(
                events.SequenceStartEvent):
            found = True
            loader.get_event()
            index = 0
            while not loader.check_event(events.SequenceEndEvent):
                node = loader.compose_node(None, None)
                where = f"line {node.start_mark.line + 1}, interactions[{index}]"
                yield Record(loader.construct_document(node), where, index)
                index += 1
            loader.get_event()
        else:
            loader.compose_node(None, None)
    if not found:
        raise TranscriptFormatError(path, "", _NOT_A_CASSETTE)


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


def body_value(side: dict[str, Any]) -> Any:
    """What an HTTP body holds: a JSON value, the events of a streamed body
    (:class:`~agentforge_cli.replay.transcripts.exchanges.ServerEvents`), ``None`` for no
    body, or :class:`~agentforge_cli.replay.transcripts.exchanges.Unreadable`.

    The body is a string, bytes (YAML ``!!binary``), ``{"string": ...}`` (vcrpy's
    response) or a ``parsed_body`` mapping (pydantic-ai's cassettes); gzip- or
    deflate-compressed when ``Content-Encoding`` says so or it starts with gzip's magic
    bytes. A body that does not decompress is read as it is (a header that says gzip over
    plain text is common in recordings). Never raises.
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
            body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            body = zlib.decompress(body)
    except zlib.error as exc:
        damaged = exc  # perhaps not compressed after all: read as it is
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        if damaged is not None:
            return Unreadable(f"a compressed body that does not decompress ({damaged})")
        return Unreadable(f"{len(body)} bytes of binary data")
    start = text.lstrip()[:6]
    if not start:
        return None
    if start.startswith(("data:", "event:")) or "event-stream" in _header(
            side.get("headers"), "content-type"):
        return parse_events(text)
    try:
        return json.loads(text)
    except ValueError:
        return Unreadable("text that is not JSON")
    except RecursionError:
        return Unreadable("JSON nested too deeply")
