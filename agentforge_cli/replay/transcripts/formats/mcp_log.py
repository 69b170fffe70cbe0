"""MCP client logs that print each JSON-RPC message on a line of their own, as Claude
Desktop's ``mcp-server-<name>.log`` does::

    2025-09-04T10:08:38.663Z [info] [time] Message from client: {"jsonrpc": "2.0", ...}
    2025-09-04T10:08:38.700Z [info] [time] Message from server: {"jsonrpc": "2.0", ...}

The file is read by this format itself (it is text, not JSON): each ``Message from
client|server:`` line's JSON is a record, read as an MCP message (:mod:`.mcp`: a
``tools/call`` request is a call, its response the result); every other line (the
server's own log output, such as the ``Initializing server...`` lines a log starts with)
is skipped. Claude Desktop's 2025 builds end each message line with ``{ metadata:
undefined }``, JavaScript's print of a second argument: that tail is not part of the
message. ``--update`` is refused: the log is the client's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.files.limits import open_bytes, text_lines
from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.format import Claim, FileReading, TranscriptFormat
from agentforge_cli.replay.transcripts.formats import mcp
from agentforge_cli.replay.transcripts.model import Event, TranscriptError
from agentforge_cli.replay.transcripts.place import Place

__all__ = ["FORMAT", "claims", "file_records", "opens", "record_events"]

_LOG_LINE = r"\S+ (?:\[[^\]\n]*\] ){1,3}"
_MESSAGE = re.compile(_LOG_LINE + r"Message from (?:client|server): (.*)")
_STARTS_LOG = re.compile(r"\d{4}-\d\d-\d\dT" + _LOG_LINE)
_TAIL = re.compile(r"\s*(?:\{ metadata: [^{}]*\})?\s*")  # what may follow the message
_LOOK = 64 * 1024  # bytes of a log read for its first message line


def opens(path: Path, head: str) -> bool:
    """A file whose first line is a logged ``Message from client|server:`` line, or that
    starts as such a log does (a timestamp and ``[name] [level]``) and has one among its
    first 64 KiB."""
    if _MESSAGE.match(head.strip()) is not None:
        return True
    if _STARTS_LOG.match(head.strip()) is None:
        return False
    try:
        with open_bytes(path) as stream:
            start = stream.read(_LOOK).decode("utf-8", "replace")
    except OSError:
        return False
    return any(_MESSAGE.match(line.strip()) for line in start.splitlines())


def file_records(path: Path) -> Iterator[Record]:
    """Each logged message, a record at its line; other lines skipped.

    Raises:
        TranscriptError: The file cannot be read, a line is not UTF-8 or too long, or a
            logged message is not JSON.
    """
    for number, line in text_lines(path):
        where = Place(number)
        found = _MESSAGE.match(line.strip())
        if found is None:
            continue
        try:
            data = _message(found.group(1))
        except (ValueError, RecursionError) as exc:
            raise TranscriptError(path, where, f"the logged message is not JSON ({exc})"
                                  ) from None
        yield Record(data, where, number)


def _message(text: str) -> Any:
    """The JSON message at the start of ``text``, and nothing else but its known tail."""
    data, end = _DECODER.raw_decode(text)
    if _TAIL.fullmatch(text, end) is None:
        raise ValueError(f"unexpected text after the message: {text[end:end + 40]!r}")
    return data


_DECODER = json.JSONDecoder()


def claims(data: Any) -> Claim:
    """No JSON record is this format's: its files are told by :func:`opens`."""
    return Claim.NO


def record_events(record: Record, book: mcp.McpBook) -> list[Event]:
    """The events of one logged message (an MCP message)."""
    return mcp.record_events(record, book)


FORMAT: TranscriptFormat[mcp.McpBook] = TranscriptFormat(
    name="mcp-log",
    title="MCP client logs",
    claims=claims,
    start=mcp.McpBook.start,
    record_events=record_events,
    not_updated="does not write into a client's log; replay it without --update",
    files=FileReading(opens=opens, records=file_records),
    names=("*.log",),  # Claude Desktop's mcp.log and mcp-server-NAME.log, recognised
)
