"""Inspect AI eval logs (``inspect eval ... --log-format json``): each sample's
``messages``, one conversation a sample.

* an ``assistant`` message's ``tool_calls`` (``id``, ``function``: the tool's name,
  ``arguments``: an object) are the calls;
* a ``tool`` message answers the call named by ``tool_call_id`` (an ``error`` object makes
  it an error result: its ``message`` when the content is empty);
* ``user`` and ``assistant`` ``content`` (a string or content parts) is what was said;
  ``system`` messages are skipped.

The file is read by this format itself, whole (up to
:data:`~agentforge_cli.replay.transcripts.files.limits.MAX_DOCUMENT_BYTES`); an ``.eval``
archive (a zip of one JSON file a sample, zstd-compressed) is read sample by sample, with
the ``zstandard`` package (without it, it is refused with what to do). ``--update`` is
refused: the log is Inspect's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentforge_cli.replay.transcripts.files.limits import (
    MAX_DOCUMENT_BYTES,
    open_bytes,
    read_whole_text,
)
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, FileReading, TranscriptFormat
from agentforge_cli.replay.transcripts.model import (
    AssistantMessage,
    ConversationStart,
    Event,
    ToolResult,
    TranscriptError,
    UserMessage,
)
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place
from agentforge_cli.replay.transcripts.reading.calls import CallBook, named_call
from agentforge_cli.replay.transcripts.reading.fields import content_text, optional_id

if TYPE_CHECKING:
    import zipfile

__all__ = ["FORMAT", "SampleBook", "claims", "file_records", "opens", "record_events"]

_JSON_LOG = re.compile(r'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
_ZIP = b"PK\x03\x04"


class SampleBook(CallBook):
    """The state of reading one log: how many samples have been read."""

    def __init__(self, path: Path, *, track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.samples = 0


def _start(path: Path) -> bytes:
    try:
        with open_bytes(path) as stream:
            return stream.read(4096)
    except (OSError, EOFError):
        return b""


def opens(path: Path, head: str) -> bool:
    """An Inspect log: a JSON object that starts ``{"version": N, "status": ...``, or an
    ``.eval`` archive."""
    if path.name.lower().endswith(".eval"):
        return _start(path).startswith(_ZIP)
    if head.strip() not in ("{", "") and not head.lstrip().startswith('{"version"'):
        return False
    return _JSON_LOG.match(_start(path).decode("utf-8", "replace").removeprefix("\ufeff")
                           ) is not None


def file_records(path: Path) -> Iterator[Record]:
    """The log's samples, one record each.

    Raises:
        TranscriptError: An ``.eval`` archive, a file too large, or one that is not an
            Inspect log.
    """
    if _start(path).startswith(_ZIP):
        yield from _archive_samples(path)
        return
    try:
        data = json.loads(read_whole_text(path, "log"))
    except (ValueError, RecursionError) as exc:
        raise TranscriptError(path, WHOLE_FILE, f"invalid JSON: {exc}") from None
    samples = data.get("samples") if isinstance(data, dict) else None
    if not isinstance(samples, list):
        raise TranscriptError(path, WHOLE_FILE, 'an Inspect log needs a "samples" list (a log '
                              "written with samples); found "
                              f"{record_shape(data)}")
    for i, sample in enumerate(samples):
        yield Record(sample, WHOLE_FILE.at("samples", i), i)


_ZSTD = 93
"""The zip compression method Inspect writes its archives with."""


def _archive_samples(path: Path) -> Iterator[Record]:
    """The samples of an ``.eval`` archive (``samples/<id>_epoch_<n>.json``), in order."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            members = sorted((info for info in archive.infolist()
                              if info.filename.startswith("samples/")
                              and info.filename.endswith(".json")),
                             key=lambda info: _natural(info.filename))
            for i, info in enumerate(members):
                if info.file_size > MAX_DOCUMENT_BYTES:
                    raise TranscriptError(path, WHOLE_FILE.at(info.filename), "the sample is more "
                                          f"than the {MAX_DOCUMENT_BYTES} bytes a sample may have")
                raw = _member(path, archive, info)
                try:
                    data = json.loads(raw.decode("utf-8-sig"))
                except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                    raise TranscriptError(path, WHOLE_FILE.at(info.filename), f"invalid JSON: {exc}"
                                          ) from None
                yield Record(data, WHOLE_FILE.at(info.filename), i)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise TranscriptError(path, WHOLE_FILE, f"not a readable .eval archive ({exc})") from None


def _member(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """One member's bytes: zstd (Inspect's) through ``zstandard``, the rest by zipfile."""
    if info.compress_type != _ZSTD:
        return archive.read(info)
    try:
        import zstandard
    except ImportError:
        raise TranscriptError(path, WHOLE_FILE, "reading an Inspect .eval archive needs the "
                              "zstandard package (pip install zstandard); or convert it: "
                              "inspect log convert --to json --output-dir DIR "
                              f"{path.name}") from None
    import struct

    with path.open("rb") as stream:
        stream.seek(info.header_offset)
        header = stream.read(30)
        name_size, extra_size = struct.unpack("<HH", header[26:30])
        stream.seek(info.header_offset + 30 + name_size + extra_size)
        packed = stream.read(info.compress_size)
    try:
        return zstandard.ZstdDecompressor().decompress(packed, max_output_size=info.file_size)
    except zstandard.ZstdError as exc:
        raise TranscriptError(path, WHOLE_FILE.at(info.filename),
                              f"does not decompress ({exc})") from None


def _natural(name: str) -> list[Any]:
    """``samples/2_epoch_1.json`` before ``samples/10_epoch_1.json``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def claims(data: Any) -> Claim:
    """No JSONL record is this format's: its files are told by :func:`opens`."""
    return Claim.NO


def record_events(record: Record, book: SampleBook) -> list[Event]:
    """The events of one sample: a conversation of its own."""
    path, where, sample = book.path, record.where, record.data
    messages = sample.get("messages") if isinstance(sample, dict) else None
    if not isinstance(messages, list):
        raise TranscriptError(path, where, 'a sample needs a "messages" list; found '
                              f"{record_shape(sample)}")
    events: list[Event] = []
    if book.samples:
        events.append(ConversationStart(conversation=book.samples, where=where))
    for i, message in enumerate(messages):
        events.extend(_message_events(message, book, where.then("messages", i)))
    book.samples += 1
    return events


def _message_events(message: Any, book: SampleBook, where: Place) -> list[Event]:
    path = book.path
    if not isinstance(message, dict) or not isinstance(message.get("role"), str):
        raise TranscriptError(path, where, f"expected a chat message; found "
                              f"{record_shape(message)}")
    role = message["role"]
    if "content" not in message:
        raise TranscriptError(path, where, f'a "{role}" message needs "content"')
    text = content_text(_said(message["content"]))
    conversation = book.samples
    if role == "user":
        return [UserMessage(content=text, where=where)] if text else []
    if role == "assistant":
        events: list[Event] = [AssistantMessage(content=text, where=where)] if text else []
        for j, call in enumerate(message.get("tool_calls") or []):
            at = where.at("tool_calls", j)
            if not isinstance(call, dict):
                raise TranscriptError(path, at, "expected a tool call object")
            found = named_call({"name": call.get("function"), "arguments": call.get(
                "arguments")}, optional_id(call.get("id"), path, at, "id"), call, book, at)
            found.conversation = conversation
            events.append(found)
        return events
    if role == "tool":
        call_id = optional_id(message.get("tool_call_id"), path, where, "tool_call_id")
        error = message.get("error")
        if not text and isinstance(error, dict):
            text = str(error.get("message") or "")
        return [ToolResult(book.result(call_id, where), call_id, text, error is not None,
                           where)]
    return []  # system


def _said(content: Any) -> Any:
    """Content parts as :func:`content_text` reads them: reasoning parts left out."""
    if isinstance(content, list):
        return [part for part in content
                if not (isinstance(part, dict) and part.get("type") == "reasoning")]
    return content


FORMAT: TranscriptFormat[SampleBook] = TranscriptFormat(
    name="inspect",
    title="Inspect AI eval logs",
    claims=claims,
    start=SampleBook.start,
    record_events=record_events,
    not_updated="does not write into an Inspect log; replay it without --update",
    files=FileReading(opens=opens, records=file_records),
    names=("*.eval", "*.json"),
    before=("vcr",),  # a JSON cassette may start with "version" too
)
