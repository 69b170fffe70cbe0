"""The JSONL splitter: a JSONL file read lazily, in blocks of whole lines, each line a
:class:`~agentforge_cli.replay.transcripts.files.records.Record` numbered from 1 (a line
that is not UTF-8 or longer than the limit is reported by number, unread; a run of blank
lines is one record)."""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.files import limits
from agentforge_cli.replay.transcripts.files.json_text import decode_error, loads, scan_json
from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.model import TranscriptError
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place

__all__ = ["iter_jsonl", "jsonl_blocks", "jsonl_record"]


def _line_blocks(path: Path, stream: Any) -> Iterator[bytes]:
    """The file in blocks of whole lines (the last one may lack its newline), refusing a
    line over :data:`.limits.MAX_LINE_BYTES` before it is read whole. Reading blocks rather than
    a line at a time halves the cost of reading a long JSONL transcript."""
    rest: list[bytes] = []
    rest_size = lines_before = 0  # the unfinished line: its parts, size, and its number - 1
    while True:
        try:
            block = stream.read(limits.BLOCK_BYTES)
        except (OSError, EOFError) as exc:  # a damaged .gz stream
            raise TranscriptError(path, Place(lines_before + 1),
                                  f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
                                  ) from None
        if not block:
            break
        cut = block.rfind(b"\n") + 1
        if not cut:
            rest.append(block)
            rest_size += len(block)
        else:
            whole = b"".join([*rest, block[:cut]]) if rest else block[:cut]
            _check_lengths(path, whole, lines_before)
            lines_before += whole.count(b"\n")
            yield whole
            rest, rest_size = [block[cut:]], len(block) - cut
        if rest_size > limits.MAX_LINE_BYTES:
            raise TranscriptError(path, Place(lines_before + 1), f"the line is longer "
                                  f"than {limits.MAX_LINE_BYTES} bytes (the limit)")
    if rest_size:
        yield b"".join(rest)


def _check_lengths(path: Path, block: bytes, lines_before: int) -> None:
    if len(block) <= limits.MAX_LINE_BYTES:
        return
    for number, line in enumerate(block.split(b"\n"), lines_before + 1):
        if len(line) + 1 > limits.MAX_LINE_BYTES:
            raise TranscriptError(path, Place(number), f"the line is longer than "
                                  f"{limits.MAX_LINE_BYTES} bytes (the limit)")


class _BlankRun(str):
    """Blank lines, one piece of :func:`_decode_block` (the whole run)."""

    __slots__ = ()


_SPACES = re.compile(r"[ \t\r\f\v\n]*")
"""ASCII white space, newlines included: blank lines, from a line's start."""
_BLANK_AFTER = re.compile(r"\n[ \t\r\f\v]*\n")
"""A line's end followed by a blank line."""


def _decode_block(path: Path, block: bytes, lines_before: int) -> list[str]:
    """A block's lines, decoded, each ending with its newline (but a last one without).

    A run of blank lines is one piece, so that millions of them cost what their bytes
    cost, not a record each: :func:`iter_jsonl` makes one blank record of it."""
    text = _decode_text(path, block, lines_before)
    if _BLANK_AFTER.search(text) is None:
        lines = text.split("\n")
        last = lines.pop()
        lines = [line + "\n" for line in lines]
        if last:
            lines.append(last)
        return lines
    pieces: list[str] = []
    start, size = 0, len(text)
    while start < size:
        spaces = _SPACES.match(text, start).end()  # type: ignore[union-attr]  # always matches
        end = text.rfind("\n", start, spaces) + 1 if spaces > start else 0
        if end:
            pieces.append(_BlankRun(text[start:end]))
        else:  # not a blank line: one line
            end = text.find("\n", start) + 1 or size
            pieces.append(text[start:end])
        start = end
    return pieces


def _decode_text(path: Path, block: bytes, lines_before: int) -> str:
    # utf-8-sig only drops a leading byte order mark, and costs more than utf-8
    encoding = "utf-8" if lines_before or block[:1] != b"\xef" else "utf-8-sig"
    try:
        return block.decode(encoding)
    except UnicodeDecodeError:  # name the line, with its own reason
        for number, raw in enumerate(block.split(b"\n"), lines_before + 1):
            try:
                raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise TranscriptError(path, Place(number),
                                      f"not UTF-8 text ({exc.reason})") from None
        raise  # not reached: some line failed


def jsonl_blocks(path: Path, content: bytes | None = None,
                 ) -> Iterator[tuple[int, list[str], bool]]:
    """The JSONL file in blocks of decoded lines, as :func:`iter_jsonl` reads it (the same
    checks and errors): ``(lines before the block, its lines without their "\\n", whether
    the block's last line ended with one)``. For a caller that handles the common lines
    itself and makes :func:`jsonl_record` of the others (the replay's short path).
    ``content``: the file's bytes, when they were read already (:func:`.limits.read_small`)."""
    try:
        stream = limits.open_content(path, content)
    except OSError as exc:
        raise TranscriptError(path, WHOLE_FILE, f"cannot be read: {exc.strerror or exc}") from None
    number = 0
    with stream:
        for block in _line_blocks(path, stream):
            lines = _decode_text(path, block, number).split("\n")
            ended = not lines[-1]
            if ended:
                lines.pop()
            yield number, lines, ended
            number += len(lines)


def jsonl_record(path: Path, line: str, number: int) -> Record:
    """The record of line ``number`` (``line`` with its end of line), as :func:`iter_jsonl`
    yields it."""
    body = line.rstrip("\r\n")
    try:  # hot path: json's C scanner directly; decode() for the rest
        data, end = scan_json(body, 0)
    except (StopIteration, ValueError, RecursionError):
        end = -1
    if end != len(body):
        if not body.strip():
            return Record(None, Place(number), number, line)
        try:
            data = loads(body)
        except (ValueError, RecursionError) as exc:
            raise decode_error(path, Place(number), exc, line_offset=number) from None
    return Record(data, Place(number), number, line)


def iter_jsonl(path: Path, content: bytes | None = None) -> Generator[Record, None, None]:
    """Yield each line of a JSONL file as a record, parsed, lazily. ``content``: the file's
    bytes, when they were read already (:func:`.limits.read_small`)."""
    try:
        stream = limits.open_content(path, content)
    except OSError as exc:
        raise TranscriptError(path, WHOLE_FILE, f"cannot be read: {exc.strerror or exc}") from None
    number = 0
    scan = scan_json
    with stream:
        for block in _line_blocks(path, stream):
            for line in _decode_block(path, block, number):
                number += 1
                if line.__class__ is _BlankRun:
                    yield Record(None, Place(number), number, str(line))
                    number += line.count("\n") - 1
                    continue
                body = line.rstrip("\r\n")
                try:  # hot path: json's C scanner directly; decode() for the rest
                    data, end = scan(body, 0)
                except (StopIteration, ValueError, RecursionError):
                    end = -1
                if end != len(body):
                    if not body.strip():
                        yield Record(None, Place(number), number, line)
                        continue
                    try:
                        data = loads(body)
                    except (ValueError, RecursionError) as exc:
                        raise decode_error(path, Place(number), exc,
                                            line_offset=number) from None
                yield Record(data, Place(number), number, line)
