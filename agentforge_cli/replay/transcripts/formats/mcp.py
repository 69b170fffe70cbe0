"""MCP sessions: JSON-RPC 2.0 messages, one a JSONL line or in a JSON array.

* a ``tools/call`` request (``{"jsonrpc": "2.0", "id", "method": "tools/call", "params":
  {"name", "arguments"}}``) is a call; its response, paired by ``id``, is the result:
  the ``result.content`` blocks one after another as an MCP target's result reads
  (text as is; an image as ``[image/png, 4 035 bytes, sha256 1a2b3c4d]``, see
  :mod:`~agentforge_cli.core.run.content_blocks`), ``result.isError`` as the error flag; a
  JSON-RPC ``error`` response is an error result worded as an MCP target's failed call
  is (``Error executing tool NAME: MESSAGE``), so replay compares it with the server's
  answer today;
* the server's requests to its client while a call runs (``roots/list``,
  ``elicitation/create``, ``sampling/createMessage``) and the client's answers are kept
  with the call (``ToolCall.asked``): a request sent on its own during the call (the
  initialize handshake's sessions), or one of the ``inputRequests`` of an
  ``input_required`` result (2026-07-28), whose answers are the ``inputResponses`` of the
  call sent again (which is the same call, not another). A request goes with the call
  its wrapper's ``related`` names (the ``tools/call`` on whose response stream it came,
  which ``record --url`` writes), else with the call begun last of those still running
  (a stdio log holds no link); one made outside every call is not kept, except
  that the last ``roots/list`` answered before a call begins (outside every call or
  during an earlier one) goes with it too, as the recorded client's roots
  (``ServerRequest.standing``: a server asks for them when it chooses, often once as the
  session opens, and keeps them). So that a
  call carries them when it is replayed, a call's event comes out once its response is
  read (calls in their order; at most :data:`HELD_CALLS` wait);
* every other message (``initialize``, ``tools/list``, notifications and their responses)
  is skipped;
* a message may be wrapped as recorders write it, with its direction and time:
  ``{"direction": "...", "timestamp": "...", "message": {...}}`` (the message under
  ``message``, ``payload`` or ``data``); its ``direction`` (``client_to_server``,
  ``server_to_client``) tells a client's answer from a server's response of the same id.

``--update`` writes the result into the response (``content`` as one text block and
``isError``; a recorded ``structuredContent`` is dropped, it would be stale) and adds a
response right after each call that had none (wrapped under the same key as the request,
without its other fields).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agentforge_cli.core.run.content_blocks import blocks_text
from agentforge_cli.replay.transcripts.files.json_text import dumps
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.model import (
    Event,
    ServerRequest,
    ToolCall,
    ToolResult,
    TranscriptError,
)
from agentforge_cli.replay.transcripts.place import Place
from agentforge_cli.replay.transcripts.reading.calls import (
    CallBook,
    Updates,
    calls_to_answer,
    named_call,
)
from agentforge_cli.replay.transcripts.reading.fields import content_text, optional_bool
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = ["ASKING_METHODS", "FORMAT", "HELD_CALLS", "McpBook", "claims", "message_events",
           "record_events", "rewrite"]

_WRAPPERS = ("message", "payload", "data")
ASKING_METHODS = frozenset({"roots/list", "elicitation/create", "sampling/createMessage"})
"""The requests a server makes of its client during a call."""
HELD_CALLS = 256
"""Calls whose events wait for their response at most; past that the oldest comes out
without the requests still to come."""
_TO_SERVER, _TO_CLIENT = "client_to_server", "server_to_client"


def _is_jsonrpc(data: Any) -> bool:
    return isinstance(data, dict) and data.get("jsonrpc") == "2.0" and (
        "method" in data or "result" in data or "error" in data)


def unwrap(data: Any) -> tuple[Any, str | None]:
    """The JSON-RPC message of a record and the wrapper key it sat under (``None`` when
    it is not wrapped)."""
    if isinstance(data, dict) and "jsonrpc" not in data:
        for key in _WRAPPERS:
            if _is_jsonrpc(data.get(key)):
                return data[key], key
    return data, None


def claims(data: Any) -> Claim:
    """A JSON-RPC 2.0 message (``"jsonrpc": "2.0"`` with a ``method``, ``result`` or
    ``error``), bare or wrapped, is MCP's own."""
    return Claim.OWN if _is_jsonrpc(unwrap(data)[0]) else Claim.NO


@dataclass(slots=True)
class _Asked:
    """A server's request read, waiting for the client's answer."""

    method: str
    params: Any
    where: Place
    result: Any = None
    error: Any = None

    def request(self, *, standing: bool = False) -> ServerRequest:
        return ServerRequest(method=self.method, params=self.params, result=self.result,
                             error=self.error, where=self.where, standing=standing)


@dataclass(slots=True)
class _Held:
    """A call read, with the server's requests made while it ran and, once read, its
    result."""

    call: ToolCall
    roots: _Asked | None = None  # the last roots/list read before the call began
    asked: list[_Asked] = field(default_factory=list)
    keyed: dict[str, _Asked] = field(default_factory=dict)  # a 2026-07-28 call's, by key
    result: ToolResult | None = None
    out: bool = False  # its call event went out before its result was read

    def event(self) -> ToolCall:
        asked = [asked.request() for asked in self.asked]
        roots = self.roots
        if roots is not None and (roots.result is not None or roots.error is not None):
            asked.append(roots.request(standing=True))
        return replace(self.call, asked=tuple(asked))


class McpBook(CallBook):
    """The state of reading one file: the ``tools/call`` requests waiting for a response
    (only their responses are results; other requests' ids are not calls), the server's
    requests waiting for the client's answer, and the calls whose events wait for their
    response (with :attr:`hold`)."""

    def __init__(self, path: Path, *, track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.pending: dict[str, str] = {}
        self.hold = True
        """A call's event waits for its response, so that it carries the server's
        requests; ``False`` (a rewrite): it comes out at its own record."""
        self._running: dict[str, _Held] = {}  # tools/call id -> the call, in call order
        self._held: deque[_Held] = deque()
        self._asking: dict[str, _Asked] = {}  # a server's request id -> the request
        self._again: dict[str, tuple[_Held, str]] = {}  # requestState -> call, its id
        self._roots: _Asked | None = None  # the last roots/list read
        self.sent_again: ToolCall | None = None
        """The call the message read last sent again (a migration renames it too), its
        ``raw`` that message."""

    def finish(self) -> list[Event]:
        events = super().finish()
        while self._held:
            events.extend(self._out(self._held.popleft()))
        return events

    def called(self, message: dict[str, Any], where: Place) -> list[Event]:
        """A ``tools/call`` request: a call, or the call sent again with answers."""
        if "id" not in message:
            raise TranscriptError(self.path, where, 'a tools/call request needs an "id"')
        call_id = _id_text(message["id"], self, where)
        params = message.get("params")
        if not isinstance(params, dict):
            raise TranscriptError(self.path, where, 'a tools/call request needs "params"')
        again = self._sent_again(params)
        if again is not None:
            held, old_id = again
            self.sent_again = replace(held.call, raw=message)
            self.carry(old_id, call_id, where)
            self.pending[call_id] = held.call.name
            self._running[call_id] = held
            answers = params.get("inputResponses")
            for key, answer in (answers.items() if isinstance(answers, dict) else ()):
                asked = held.keyed.get(key)
                if asked is not None and isinstance(answer, dict):
                    asked.result = answer
            return []
        call = named_call(params, call_id, message, self, where)
        self.pending[call_id] = call.name
        held = self._running[call_id] = _Held(call, self._roots)
        if not self.hold:
            return [call]
        self._held.append(held)
        if len(self._held) > HELD_CALLS:  # the oldest goes out without what is to come
            first = self._held.popleft()
            first.out = True
            return [first.event(), *self._release()]
        return []

    def _sent_again(self, params: dict[str, Any]) -> tuple[_Held, str] | None:
        """The call a ``tools/call`` sends again with the answers to its server's
        requests (``requestState``, ``inputResponses``), if it is one."""
        if "requestState" not in params and "inputResponses" not in params:
            return None
        state = params.get("requestState")
        found = self._again.pop(state if isinstance(state, str) else "", None)
        if found is None:  # no state to tell by: the call of that name waiting longest
            name = params.get("name")
            key = next((k for k, (held, _) in self._again.items()
                        if held.call.name == name), None)
            found = None if key is None else self._again.pop(key)
        return found

    def asked(self, message: dict[str, Any], where: Place, related: Any = None) -> None:
        """A server's request to its client: kept with the call ``related`` names (the
        ``tools/call`` whose response stream carried it, as ``record --url`` writes it)
        when it is running, else with the call begun last of those running (one made
        outside every call is not kept, but its answer is told); the last ``roots/list``
        goes with the calls begun after it too."""
        asked = _Asked(str(message["method"]), message.get("params"), where)
        self._asking[_id_text(message["id"], self, where)] = asked
        if asked.method == "roots/list":
            self._roots = asked
        if len(self._asking) > HELD_CALLS:  # requests never answered: the oldest forgotten
            del self._asking[next(iter(self._asking))]
        named = self._running.get(str(related)) if isinstance(related, str | int) \
            and not isinstance(related, bool) else None
        if named is not None:
            named.asked.append(asked)
        elif self._running:
            next(reversed(self._running.values())).asked.append(asked)

    def answers(self, call_id: str, message: dict[str, Any], direction: str | None) -> bool:
        """Whether a response is the client's answer to a server's request (and keep it)."""
        asked = self._asking.get(call_id)
        if asked is None or direction == _TO_CLIENT:
            return False
        if direction is None and call_id in self.pending and _tool_response(message):
            return False  # no direction recorded: the shape tells a tool's response
        del self._asking[call_id]
        asked.result, asked.error = message.get("result"), message.get("error")
        return True

    def input_required(self, call_id: str, result: dict[str, Any], where: Place) -> None:
        """A 2026-07-28 ``input_required`` result: the call waits to be sent again, its
        server's requests kept."""
        self.pending.pop(call_id, None)
        held = self._running.pop(call_id, None)
        if held is None:
            return
        requests = result.get("inputRequests")
        for key, request in (requests.items() if isinstance(requests, dict) else ()):
            if isinstance(request, dict) and isinstance(request.get("method"), str):
                asked = _Asked(request["method"], request.get("params"), where)
                held.keyed[key] = asked
                held.asked.append(asked)
        state = result.get("requestState")
        self._again[state if isinstance(state, str) else ""] = (held, call_id)

    def settled(self, call_id: str, result: ToolResult) -> list[Event]:
        """A call's result read: the events that may go out now."""
        held = self._running.pop(call_id, None)
        if not self.hold or held is None or held.out:
            return [result]
        held.result = result
        return self._release()

    def _release(self) -> list[Event]:
        events: list[Event] = []
        held = self._held
        while held and held[0].result is not None:
            events.extend(self._out(held.popleft()))
        return events

    @staticmethod
    def _out(held: _Held) -> list[Event]:
        call = held.event()
        return [call] if held.result is None else [call, held.result]


def _tool_response(message: dict[str, Any]) -> bool:
    """A response shaped as a ``tools/call`` one (an error, content, or input required)."""
    result = message.get("result")
    return "error" in message or (isinstance(result, dict) and (
        isinstance(result.get("content"), list) or "inputRequests" in result
        or result.get("resultType") == "input_required"))


def _id_text(value: Any, book: McpBook, where: Place) -> str:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    raise TranscriptError(book.path, where, 'a JSON-RPC "id" must be a string or a number, '
                          f"got {dumps(value)[:40]}")


def message_events(data: Any, where: Place, book: McpBook) -> list[Event]:
    """The events of one JSON-RPC message (any decoded JSON value, bare or wrapped)."""
    message, key = unwrap(data)
    if not _is_jsonrpc(message):
        raise TranscriptError(book.path, where, "not a JSON-RPC 2.0 message "
                              f"({record_shape(data)})")
    direction = data.get("direction") if key is not None else None
    method = message.get("method")
    if method == "tools/call":
        return book.called(message, where)
    if method in ASKING_METHODS and "id" in message and direction != _TO_SERVER:
        book.asked(message, where, data.get("related") if key is not None else None)
        return []
    if method is not None or message.get("id") is None:
        return []  # another request, a notification, or an error about no request
    call_id = _id_text(message["id"], book, where)
    if book.answers(call_id, message, direction):
        return []
    pending = book.pending
    if call_id not in pending or direction == _TO_SERVER:
        return []  # the response to another request
    if "error" in message:
        name = pending.pop(call_id)
        index = book.result(call_id, where)
        error = message["error"]
        text = error.get("message") if isinstance(error, dict) else None
        said = text if isinstance(text, str) else dumps(error)
        return book.settled(call_id, ToolResult(
            call_index=index, id=call_id, content=f"Error executing tool {name}: {said}",
            is_error=True, where=where))
    result = message["result"]
    if isinstance(result, dict) and (result.get("resultType") == "input_required"
                                     or ("inputRequests" in result and "content" not in result)):
        book.input_required(call_id, result, where)
        return []
    if not isinstance(result, dict) or "content" not in result:
        raise TranscriptError(book.path, where, 'a tools/call result needs "content"; found '
                              f"{record_shape(result)}")
    pending.pop(call_id)
    index = book.result(call_id, where)
    is_error = optional_bool(result.get("isError"), book.path, where, "isError")
    return book.settled(call_id, ToolResult(
        call_index=index, id=call_id, content=_result_text(result["content"]),
        is_error=bool(is_error), where=where))


def _result_text(content: Any) -> str:
    """A ``tools/call`` result's text: its blocks rendered as an MCP target's result is
    (:mod:`~agentforge_cli.core.run.content_blocks`), so the two compare block by block."""
    if isinstance(content, list) and all(isinstance(block, dict) for block in content):
        return blocks_text(content)
    return content_text(content)


def record_events(record: Record, book: McpBook) -> list[Event]:
    """The events of one message."""
    if record.blank:
        return []
    return message_events(record.data, record.where, book)


def _response(message_id: Any, text: str, is_error: bool, old: dict[str, Any] | None
              ) -> dict[str, Any]:
    result = {k: v for k, v in (old or {}).items() if k != "structuredContent"}
    result["content"] = [{"type": "text", "text": text}]
    result["isError"] = is_error
    return {"jsonrpc": "2.0", "id": message_id, "result": result}


def _wrapped(record: Record, message: dict[str, Any], key: str | None) -> Record:
    data = message if key is None else {**record.data, key: message}
    return Record(data, record.where, record.position)


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: McpBook) -> Iterator[Record]:
    """Yield the messages with the updated results written into the responses."""
    book.hold = False  # each call's event at its own record, where a response is added
    for record in records:
        if record.blank:
            yield record
            continue
        events = record_events(record, book)
        message, key = unwrap(record.data)
        result = next((e for e in events if isinstance(e, ToolResult)), None)
        if result is not None and result.call_index in updates:
            text, is_error = updates[result.call_index]
            old = message.get("result")
            new = _response(message["id"], text, bool(is_error),
                             old if isinstance(old, dict) else None)
            rest = {k: v for k, v in message.items() if k not in ("result", "error")}
            yield _wrapped(record, {**rest, **new}, key)
            continue
        yield record
        for call in calls_to_answer(events, updates, answered):
            text, is_error = updates[call.index]
            response = _response(message["id"], text, bool(is_error), None)
            yield Record(response if key is None else {key: response})


def _unheld_events(record: Record, book: McpBook) -> list[Event]:
    """:func:`record_events`, each call's event at its own record (a migration's); a
    2026-07-28 call sent again with its answers is a call of its own here, so that it is
    migrated as the first was."""
    book.hold = False
    book.sent_again = None
    events = record_events(record, book)
    again = book.sent_again
    return events if again is None else [*events, again]


FORMAT: TranscriptFormat[McpBook] = TranscriptFormat(
    name="mcp",
    title="MCP JSON-RPC messages",
    claims=claims,
    start=McpBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(_unheld_events,
                           (CallFields(("params", "name"), ("params", "arguments")),)),
)
