"""nock recordings (``nock.recorder.play()`` with ``output_objects``, ``nock.back``
fixtures): the HTTP calls a JavaScript test suite made, a JSON array of
``{"scope", "method", "path", "body", "status", "response", "rawHeaders", ...}``.

An envelope, as a VCR cassette is: each recorded call becomes a cassette interaction
(``scope`` + ``path`` its URI; a ``body`` or ``response`` that nock parsed as JSON kept as
that value; a ``responseIsBinary`` response decoded from its hex, a gzipped one from its
hex chunks) and is read by :mod:`.vcr`, which asks the model API formats and rebuilds the
conversations, each call read once. So what a cassette reads, skips or refuses by name,
a nock recording does too (an AWS Bedrock ConverseStream body in hex, for one, is read as
the binary event stream it is).

``--update`` is refused: the recorded bodies stay as they were; record the suite again.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.replay.transcripts.families import naming
from agentforge_cli.replay.transcripts.files.json_text import dumps
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.formats import vcr
from agentforge_cli.replay.transcripts.model import Event, TranscriptError
from agentforge_cli.replay.transcripts.place import Place

__all__ = ["FORMAT", "claims", "interaction", "record_events"]

_NEEDS = ("scope", "method", "path")


def claims(data: Any) -> Claim:
    """A recorded call (``scope``, ``method`` and ``path`` strings) is nock's own."""
    if isinstance(data, dict) and all(isinstance(data.get(key), str) for key in _NEEDS):
        return Claim.OWN
    return Claim.NO


def record_events(record: Record, book: vcr.CassetteBook) -> list[Event]:
    """The new events of one recorded call, read as a cassette's interaction."""
    if record.blank:
        return []
    where = Place(record.where.line, ((record.position,),))
    with naming("a nock recording"):
        return vcr.record_events(Record(interaction(record.data, book, where), where,
                                        record.position), book)


def interaction(data: Any, book: vcr.CassetteBook, where: Place) -> dict[str, Any]:
    """A nock recorded call as the VCR cassette interaction it stands for."""
    if not isinstance(data, dict):
        raise TranscriptError(book.path, where, "expected a recorded HTTP call; found "
                              f"{record_shape(data)}")
    for key in _NEEDS:
        if not isinstance(data.get(key), str):
            raise TranscriptError(book.path, where.at(key), f'a recorded call needs a "{key}" '
                                  f'string; found {dumps(data.get(key))[:80]}')
    status = data.get("status", 200)
    if not isinstance(status, int) or isinstance(status, bool):
        raise TranscriptError(book.path, where.at("status"), '"status" must be a number, '
                              f"got {dumps(status)[:80]}")
    request: dict[str, Any] = {"method": data["method"],
                               "uri": data["scope"].rstrip("/") + data["path"],
                               "headers": _headers(data.get("reqheaders"))}
    request.update(_body(data.get("body"), False, book, where.at("body")))
    headers = _headers(data.get("rawHeaders"))
    response: dict[str, Any] = {"status": {"code": status}, "headers": headers}
    response.update(_body(data.get("response"), data.get("responseIsBinary") is True or (
        isinstance(data.get("response"), list) and _gzipped(headers)), book,
        where.at("response")))
    return {"request": request, "response": response}


def _headers(value: Any) -> dict[str, list[str]]:
    """nock's headers (``rawHeaders``: a flat name, value list; ``reqheaders``: an
    object) as a cassette keeps them."""
    if isinstance(value, list):
        pairs = zip(value[::2], value[1::2], strict=False)
    elif isinstance(value, dict):
        pairs = zip(value.keys(), value.values(), strict=True)
    else:
        return {}
    return {str(name): [str(text)] for name, text in pairs}


def _gzipped(headers: dict[str, list[str]]) -> bool:
    return any(name.lower() == "content-encoding" and "gzip" in value[0].lower()
               for name, value in headers.items())


def _body(value: Any, binary: bool, book: vcr.CassetteBook, where: Place) -> dict[str, Any]:
    """A recorded body as a cassette side holds it: a parsed JSON value, text, or the
    bytes of a hex body (a binary one, or the chunks of a gzipped one)."""
    if binary:
        chunks = value if isinstance(value, list) else [value]
        try:
            return {"body": b"".join(bytes.fromhex(chunk) for chunk in chunks)}
        except (TypeError, ValueError):
            raise TranscriptError(book.path, where, "a binary body must be hex text (or a "
                                  f"list of hex chunks); found {dumps(value)[:80]}") from None
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        return {"body": value}
    return {"parsed_body": value}


FORMAT: TranscriptFormat[vcr.CassetteBook] = TranscriptFormat(
    name="nock",
    title="nock recordings",
    claims=claims,
    start=vcr.CassetteBook.start,
    record_events=record_events,
    not_updated="cannot write into a nock recording (its recorded HTTP bodies are kept as "
                "they are); record it again",
)
