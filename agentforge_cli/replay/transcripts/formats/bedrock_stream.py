"""AWS event streams (``application/vnd.amazon.eventstream``): the binary frames Bedrock's
``converse-stream`` answers in, decoded into their messages.

A message is a 12-byte prelude (total length, headers length, and the prelude's CRC32,
each a big-endian 32-bit number), its headers, its payload, and the CRC32 of everything
before it. A header is its name (one length byte, UTF-8), a type byte and a value: true,
false, an 8-, 16-, 32- or 64-bit integer, bytes or a string (two length bytes), a
timestamp (milliseconds, 64 bits) or a UUID (16 bytes). Both checksums are verified; a
frame that is cut short, fails a checksum or holds a header of an unknown type is refused
naming the message and its byte offset (:class:`EventStreamError`).

:func:`decode_event_stream` takes the body's bytes, from wherever the recording keeps them
(a cassette's ``!!binary`` body, a hex string). Standard library only.
"""

from __future__ import annotations

import json
import uuid
import zlib
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from agentforge_cli.errors import AgentForgeError

__all__ = ["EventMessage", "EventStreamError", "decode_event_stream", "looks_like_event_stream"]

_PRELUDE = 12
_CHECKSUM = 4
_MAX_MESSAGE = 16 * 1024 * 1024 + 128 * 1024
"""The largest message accepted: AWS's 16 MiB payload plus its 128 KiB of headers."""


class EventStreamError(AgentForgeError, ValueError):
    """An event stream that cannot be decoded; the message says which frame and why."""


@dataclass(frozen=True, slots=True)
class EventMessage:
    """One message of an event stream: its headers (name -> value) and its payload."""

    headers: dict[str, Any]
    payload: bytes
    offset: int
    """Where the message starts in the stream, in bytes."""

    @property
    def message_type(self) -> str:
        """``event``, ``exception`` or ``error`` (the ``:message-type`` header)."""
        value = self.headers.get(":message-type", "event")
        return value if isinstance(value, str) else "event"

    @property
    def name(self) -> str:
        """The event's type, or the exception's, or the error's code."""
        key = {"exception": ":exception-type", "error": ":error-code"}.get(
            self.message_type, ":event-type")
        value = self.headers.get(key)
        return value if isinstance(value, str) else ""

    def json(self) -> Any:
        """The payload parsed as JSON (``None`` for an empty payload).

        Raises:
            EventStreamError: It is not JSON.
        """
        if not self.payload:
            return None
        try:
            return json.loads(self.payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise EventStreamError(f"the payload of message {self.name or '?'} at byte "
                                   f"{self.offset} is not JSON ({exc})") from None


def looks_like_event_stream(data: bytes) -> bool:
    """Whether ``data`` starts with an event-stream prelude whose checksum holds."""
    if len(data) < _PRELUDE + _CHECKSUM:
        return False
    total = int.from_bytes(data[0:4], "big")
    return (total >= _PRELUDE + _CHECKSUM
            and zlib.crc32(data[:8]) == int.from_bytes(data[8:12], "big"))


def decode_event_stream(data: bytes) -> list[EventMessage]:
    """Every message of an event stream, in order.

    Raises:
        EventStreamError: A frame is cut short, fails its prelude or message checksum,
            or holds a header that cannot be read.
    """
    messages: list[EventMessage] = []
    offset = 0
    while offset < len(data):
        messages.append(_message(data, offset, len(messages) + 1))
        offset += int.from_bytes(data[offset:offset + 4], "big")
    return messages


def _message(data: bytes, offset: int, number: int) -> EventMessage:
    at = f"message {number} (byte {offset})"
    left = len(data) - offset
    if left < _PRELUDE:
        raise EventStreamError(f"the stream is cut short: {at} has {left} of the "
                               f"{_PRELUDE} bytes of its prelude")
    prelude = data[offset:offset + _PRELUDE]
    total = int.from_bytes(prelude[0:4], "big")
    headers_length = int.from_bytes(prelude[4:8], "big")
    if zlib.crc32(prelude[:8]) != int.from_bytes(prelude[8:12], "big"):
        raise EventStreamError(f"{at} fails its prelude checksum (CRC32): not an event "
                               "stream, or a damaged one")
    if not _PRELUDE + _CHECKSUM + headers_length <= total <= _MAX_MESSAGE:
        raise EventStreamError(f"{at} gives impossible lengths: {total} bytes in all, "
                               f"{headers_length} of headers")
    if left < total:
        raise EventStreamError(f"the stream is cut short: {at} has {left} of its {total} "
                               "bytes")
    frame = data[offset:offset + total]
    if zlib.crc32(frame[:-_CHECKSUM]) != int.from_bytes(frame[-_CHECKSUM:], "big"):
        raise EventStreamError(f"{at} fails its message checksum (CRC32): the frame is "
                               "damaged")
    headers = _headers(frame[_PRELUDE:_PRELUDE + headers_length], at)
    return EventMessage(headers, frame[_PRELUDE + headers_length:-_CHECKSUM], offset)


_FIXED = MappingProxyType({2: 1, 3: 2, 4: 4, 5: 8, 8: 8})
"""Header types of a fixed size: byte, short, integer, long, timestamp -> bytes."""


def _headers(raw: bytes, at: str) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    position = 0
    try:
        while position < len(raw):
            size = raw[position]
            name = raw[position + 1:position + 1 + size].decode("utf-8")
            position += 1 + size
            kind = raw[position]
            position += 1
            value: Any
            if kind in (0, 1):
                value = kind == 0
            elif kind in _FIXED:
                width = _FIXED[kind]
                value = int.from_bytes(_take(raw, position, width), "big", signed=True)
                position += width
            elif kind in (6, 7):
                length = int.from_bytes(_take(raw, position, 2), "big")
                value = _take(raw, position + 2, length)
                value = value.decode("utf-8") if kind == 7 else value
                position += 2 + length
            elif kind == 9:
                value = str(uuid.UUID(bytes=_take(raw, position, 16)))
                position += 16
            else:
                raise EventStreamError(f"{at} holds header {name!r} of unknown type {kind}")
            headers[name] = value
    except (IndexError, UnicodeDecodeError):
        raise EventStreamError(f"{at} holds headers that cannot be read") from None
    return headers


def _take(raw: bytes, start: int, size: int) -> bytes:
    piece = raw[start:start + size]
    if len(piece) != size:
        raise IndexError(start)
    return piece
