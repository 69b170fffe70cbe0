"""A whole-file JSON transcript parsed at once, its text kept, to be written back
(:class:`~agentforge_cli.replay.transcripts.files.records.Document`). Reading it for a
replay streams it instead (:mod:`~agentforge_cli.replay.transcripts.files.documents`)."""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.files.envelopes import envelope_keys, envelope_records
from agentforge_cli.replay.transcripts.files.json_text import decode_error, loads
from agentforge_cli.replay.transcripts.files.limits import open_bytes
from agentforge_cli.replay.transcripts.files.records import Document, Record, record_shape
from agentforge_cli.replay.transcripts.model import TranscriptError
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place

__all__ = ["load_document"]


def load_document(path: Path) -> Document:
    """Parse a whole-file JSON transcript, all of it, keeping its text (to write it back):
    an array of messages or ``{"messages": [...]}``. Reading for a replay streams it
    instead (:func:`~agentforge_cli.replay.transcripts.files.documents.iter_document`)."""
    try:
        with open_bytes(path) as stream:
            try:
                raw = stream.read()
            except EOFError as exc:  # a truncated .gz stream
                raise OSError(str(exc)) from None
        text = raw.decode("utf-8-sig")
    except OSError as exc:
        raise TranscriptError(path, WHOLE_FILE, f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise TranscriptError(path, Place(line), f"not UTF-8 text ({exc.reason})") from None
    if not text.strip():
        raise TranscriptError(path, WHOLE_FILE, "the transcript is empty")
    try:
        data = loads(text)
    except (ValueError, RecursionError) as exc:
        raise decode_error(path, WHOLE_FILE, exc) from None
    envelope: dict[str, Any] | None = None
    keys: tuple[str, ...] = ()
    if isinstance(data, dict):
        keys = envelope_keys(data)
        if not keys:
            raise TranscriptFormatError(path, WHOLE_FILE,
                                        'a JSON object transcript needs a "messages" '
                                        'array (or "contents", "input", "output"); found '
                                        f"{record_shape(data)}")
        envelope = data
        records = envelope_records(data, keys)
    elif isinstance(data, list):
        records = [Record(item, WHOLE_FILE.at("messages", i), i)
                   for i, item in enumerate(data)]
    else:
        raise TranscriptFormatError(path, WHOLE_FILE,
                                    "expected a JSON array of messages or an object "
                                    f'with "messages", got {record_shape(data)}')
    return Document(records=records, envelope=envelope, keys=keys, text=text, value=data,
                    bom=raw.startswith(codecs.BOM_UTF8))
