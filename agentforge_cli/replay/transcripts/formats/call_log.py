"""Call logs: what agentforge's logging decorator writes through a standard formatter, as
``agentforge serve --log`` writes it to standard error after a timestamp (and an application
logging its ``ToolService`` the same way writes to its log)::

    INFO agentforge.tools: Tool request: add arguments={"a":1} memory_id=None call_id="3"
    INFO agentforge.tools: Tool response: add result=3 is_error=False duration_ms=1.5 call_id="3"
    WARNING agentforge.tools: Tool failed: add error=ArgumentError: ... duration_ms=0.4 call_id="4"

The file is read by this format itself (it is text): a ``Tool request:`` message is a
call (its arguments as agentforge parsed them), the next ``Tool response:`` or ``Tool
failed:`` of the same call id (of the same tool, for a log without ids) its result; a
result may run over several lines. Every other line (the server's own output, what tools
print) is skipped. A call whose arguments were masked (a secret shown as ``"***"``) is
shown as not replayable: the log does not hold what the tool received. The whole log is
one conversation, as one server process is one set of tools. ``--update`` is refused: a
log is a record of what ran.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

from agentforge_cli.replay.transcripts.files.limits import open_bytes, text_lines
from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.format import Claim, FileReading, TranscriptFormat
from agentforge_cli.replay.transcripts.model import (
    AssistantMessage,
    Event,
    ToolCall,
    ToolResult,
    TranscriptError,
)
from agentforge_cli.replay.transcripts.place import Place
from agentforge_cli.replay.transcripts.reading.calls import CallBook

__all__ = ["FORMAT", "CallLogBook", "claims", "file_records", "opens", "record_events"]


_ID = r'(?: call_id=(?P<id>"(?:[^"\\]|\\.)*"))?$'
_START = re.compile(r"Tool (?P<event>request|response|failed): (?P<name>\S+) "
                    r"(?P<rest>(?:arguments|result|error)=.*)", re.DOTALL)
_ENDS = MappingProxyType({
    "request": re.compile(r"arguments=(?P<arguments>.*) memory_id=.*?" + _ID, re.DOTALL),
    "response": re.compile(r"result=(?P<text>.*) is_error=(?P<error>True|False) "
                           r"duration_ms=[0-9.]+" + _ID, re.DOTALL),
    "failed": re.compile(r"error=[\w.]+: (?P<text>.*) duration_ms=[0-9.]+" + _ID, re.DOTALL),
})
_MASKED = re.compile(r':\s*"\*\*\*"')
_MAX_RECORD_LINES = 100_000
_SNIFF_BYTES = 64 * 1024


def _is_log_line(line: str) -> bool:
    found = _START.search(line)
    return found is not None and found.group("event") == "request" and (
        _ENDS["request"].match(found.group("rest").rstrip("\r\n")) is not None)


def opens(path: Path, head: str) -> bool:
    """A text file with a logged ``Tool request:`` line: the first line, or one within
    its first 64 KiB when that line is not JSON (a server's start-up line comes first)."""
    if _is_log_line(head):
        return True
    if head.lstrip()[:1] in ("{", "["):
        return False
    try:
        with open_bytes(path) as stream:
            sniffed = stream.read(_SNIFF_BYTES)
    except (OSError, EOFError):
        return False
    lines = sniffed.decode("utf-8", "replace").splitlines()
    return any(_is_log_line(line) for line in lines[:-1] or lines)


def file_records(path: Path) -> Iterator[Record]:
    """Each logged call record, ``{"event", "name", "id", ...}`` at its first line;
    other lines skipped.

    Raises:
        TranscriptError: The file cannot be read, a line is not UTF-8 or too long, or a
            logged record never ends (its duration and id are missing).
    """
    pending: tuple[int, str, str, list[str]] | None = None  # line, event, name, text
    for number, line in text_lines(path):
        if pending is not None:
            pending[3].append(line)
            if len(pending[3]) > _MAX_RECORD_LINES:
                raise TranscriptError(path, Place(pending[0]), "a logged result runs "
                                      f"over more than {_MAX_RECORD_LINES} lines")
            record = _finished(*pending)
            if record is not None:
                yield record
                pending = None
            continue
        found = _START.search(line)
        if found is None:
            continue
        pending = (number, found.group("event"), found.group("name"), [found.group("rest")])
        record = _finished(*pending)
        if record is not None:
            yield record
            pending = None
    if pending is not None:
        raise TranscriptError(path, Place(pending[0]), f"the logged tool {pending[1]} of "
                              f"{pending[2]!r} never ends (no duration_ms=... after it)")


def _finished(number: int, event: str, name: str, lines: list[str]) -> Record | None:
    """The record of a logged message once its lines end as its kind ends, else ``None``."""
    text = "".join(lines).rstrip("\r\n")
    found = _ENDS[event].match(text)
    if found is None:
        if event == "request":  # one line always: arguments are compact JSON
            return Record({"event": "unreadable", "name": name}, Place(number), number)
        return None
    data: dict[str, Any] = {"event": event, "name": name,
                            "id": json.loads(found["id"]) if found["id"] else None}
    if event == "request":
        data["arguments"] = found["arguments"]
    else:
        data["text"] = found["text"]
        data["is_error"] = event == "failed" or found["error"] == "True"
    return Record(data, Place(number), number)


class CallLogBook(CallBook):
    """The state of reading one log: the calls waiting for their result, by call id (by
    tool name for calls logged without one), oldest first. A server's clients may each
    use the same JSON-RPC ids, so one id can wait twice."""

    def __init__(self, path: Path, *, track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.waiting: dict[tuple[str, str | None], deque[str | None]] = {}
        """(tool, call id) -> the book's ids of its calls waiting (``None``: a masked
        call, not replayed)."""
        self.serial = 0


def claims(data: Any) -> Claim:
    """No JSON record is this format's: its files are told by :func:`opens`."""
    return Claim.NO


def record_events(record: Record, book: CallLogBook) -> list[Event]:
    """The events of one logged message: a call, or the result of the call it names."""
    data, where = record.data, record.where
    if data["event"] == "unreadable":
        raise TranscriptError(book.path, where, f"the logged request of {data['name']!r} "
                              "does not end in memory_id=... (not an agentforge call log "
                              "line)")
    call_id: str | None = data["id"]
    key = (data["name"], call_id)
    if data["event"] == "request":
        queue = book.waiting.setdefault(key, deque())
        arguments = data["arguments"]
        if _MASKED.search(arguments):
            queue.append(None)  # its result is skipped with it
            return [AssistantMessage(content=f"(not replayable: a call of {data['name']} "
                                     "whose arguments the log shows masked: "
                                     f"{arguments})", where=where)]
        book.serial += 1
        token = str(book.serial)  # the book's own id: unique though log ids repeat
        queue.append(token)
        index = book.call(token, where)
        return [ToolCall(index, call_id, data["name"], arguments, data, where)]
    waiting = book.waiting.get(key)
    if not waiting:
        return []  # the result of a call logged before the file begins
    answered = waiting.popleft()
    if not waiting:
        del book.waiting[key]
    if answered is None:
        return []
    index = book.result(answered, where)
    return [ToolResult(index, call_id, data["text"], data["is_error"], where)]


FORMAT: TranscriptFormat[CallLogBook] = TranscriptFormat(
    name="call-log",
    title="agentforge call logs (serve --log)",
    claims=claims,
    start=CallLogBook.start,
    record_events=record_events,
    not_updated="does not write into a call log; replay it without --update",
    files=FileReading(opens=opens, records=file_records),
    names=("*.log",),  # serve --log's standard error, kept under any name: recognised
)
