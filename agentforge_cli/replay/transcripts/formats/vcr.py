"""VCR cassettes (vcrpy, pytest-recording, pydantic-ai): the model API calls they hold,
rebuilt into conversations, each recorded tool call read once.

The file is read by :mod:`.cassettes`, one interaction a record. An interaction is a model
API call when a registered format reads it
(one with an :class:`~agentforge_cli.replay.transcripts.format.ApiReading`: OpenAI chat, Responses,
Anthropic, Gemini, asked in registry order); any other interaction (a GET, another host,
an embeddings request) is skipped. A request to a model API path whose body does not read
is an error naming the interaction, as is a response never read whose conversation no
later request continues (its calls would be lost); a response with an HTTP error status
is a turn without an answer. A request that repeats its conversation's last request
exactly and got an empty body (a client's retry, a test recording the call twice) adds
nothing and loses nothing: it is passed over, the conversation left as it was.

**The identity rule.** A request repeats its conversation so far, so calls are known
again instead of run again:

* a request *continues* the conversation whose last request its messages extend (the
  longest such; the conversation its ``previous_response_id`` names; else the one that
  knows one of its call ids; else the one *waiting* for a call the request holds: made
  in its last response, by the same name and arguments, and not answered yet), or
  starts a new one: conversations interleaved in one cassette (an agent and the agents
  its tools call), and a conversation resumed with another provider (its call answered
  in the other API's request, under an id the client made up) are told apart;
* a request that repeats a conversation's last request exactly, while another
  conversation waits for a call it holds, continues the waiting one: the same run made
  again (a test run three times in one cassette) sends the same request, and its answer
  belongs to the run that made the call;
* within a conversation, a call is the same call when it has the same id, or, when its
  id is new or absent (Gemini records none and the client adds one in the next request;
  some clients give their own), the same name and arguments as a call the conversation
  made whose id the request does not name, each taken once;
* a call appears once, where it is first recorded (a response, or the next request when
  the response was streamed or unreadable), and its result where the result is first
  recorded; user text is replayed from the request that first sends it.

Each conversation after the first starts with a
:class:`~agentforge_cli.replay.transcripts.model.ConversationStart` (``alongside``: they
may interleave). ``--update`` cannot write into a cassette: its recorded HTTP bodies stay
as they were.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Self

from agentforge_cli.replay.transcripts.files import cassettes
from agentforge_cli.replay.transcripts.files.json_text import dumps
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import (
    Claim,
    FileReading,
    FormatList,
    TranscriptFormat,
)
from agentforge_cli.replay.transcripts.model import (
    AssistantMessage,
    ConversationStart,
    Event,
    SystemPrompt,
    ToolCall,
    ToolResult,
    TranscriptError,
    UserMessage,
)
from agentforge_cli.replay.transcripts.place import Place
from agentforge_cli.replay.transcripts.reading.calls import CallBook
from agentforge_cli.replay.transcripts.reading.exchanges import Exchange, Unreadable, uri_path

__all__ = ["FORMAT", "CassetteBook", "claims", "record_events"]

REMEMBERED = 4096
"""How many call ids and read results a cassette's reader remembers beyond the
conversations' own state: what a request that does not extend its conversation's history
is matched against (a bound on memory for cassettes of thousands of conversations)."""

_NOT_READ = (
    (re.compile(r"/invoke\Z"), "an AWS Bedrock InvokeModel call: replay does not read this "
                               "API yet"),
    (re.compile(r"/invoke-with-response-stream\Z"),
     "an AWS Bedrock InvokeModel stream: replay does not read this API yet"),
    (re.compile(r"/agents/[^/]+/agentAliases/[^/]+/sessions/[^/]+/text\Z"),
     "an AWS Bedrock Agents InvokeAgent recording, which replay does not read: the agent "
     "runs its action groups itself, and their calls are only trace events of the "
     "response's event stream"),
)
"""Model APIs whose calls replay does not read (request path -> what to say): refused by
name, never skipped as no model call (their tool calls would be lost unsaid)."""


@dataclasses.dataclass(kw_only=True, slots=True)
class _Thread:
    """One conversation rebuilt from the cassette's requests: what a later request of it
    must be matched against, and no more (a call its last request sent is in every later
    request's repeated part, so it is known there without being looked up)."""

    number: int
    """Its conversation number (0 for the cassette's first)."""
    sent: int = 0
    """Its last request's messages: how many, and the hash of their canonical JSON texts
    (:func:`_prefix_hashes`), as one key (:func:`_sent_key`)."""
    sent_size: int = 0
    sent_hash: int = 0
    by_id: dict[str, int] | None = None
    """The calls of its last response: call id -> the file's call index (``None`` for
    none: a conversation that waits for nothing holds no container)."""
    made: tuple[tuple[str, int, int], ...] = ()
    """The calls of its last response, in order: (name, arguments key, file index)."""
    response_id: str | None = None
    """Its last response's id (a Responses request may continue it by naming it)."""
    system: str | None = None
    """The system prompt its requests gave last (beside their messages)."""


class CassetteBook(CallBook):
    """The state of reading one cassette: the model API formats it asks, and its
    conversations so far."""

    def __init__(self, path: Path, formats: FormatList = (), *,
                 track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.formats = formats
        """The registered formats (a conversation's records are read in one of them)."""
        self.apis = tuple((fmt, fmt.api) for fmt in formats if fmt.api is not None)
        """The formats that read model API calls, in registry order, with how they do."""
        self.conversations = 0
        """How many conversations have started."""
        self.unread: dict[int, tuple[Place, str]] = {}
        """Conversation number -> (where, what) of its last response, when it could not be
        read."""
        self.by_sent: dict[int, _Thread | int] = {}
        """The key of a conversation's last request -> the conversation, or only its number
        when it waits for nothing (what most of a long cassette's conversations are)."""
        self.by_response: dict[str, _Thread] = {}
        self.by_call_id: dict[str, tuple[_Thread, int]] = {}
        """call id -> the conversation that made it and its index (the latest, when ids
        repeat): finds a conversation whose history a request does not extend. The
        :data:`REMEMBERED` latest only."""
        self.results: dict[int, None] = {}
        """The file's call indexes whose result has been read (the :data:`REMEMBERED`
        latest: a result is read again only when a request does not extend its
        conversation's history)."""
        self.made: dict[tuple[str, int], tuple[_Thread, int]] = {}
        """The calls of the conversations' last responses: name and arguments key -> the
        conversation that made it last and the call's index (forgotten once its
        conversation moves on; the :data:`REMEMBERED` latest at most). Finds the
        conversation waiting for a call that a request of another API answers."""

    @classmethod
    def start(cls, path: Path, formats: Sequence[Any] = ()) -> Self:
        """A new book for one cassette, asking the model API formats among ``formats``."""
        return cls(path, formats)

    def finish(self) -> list[Event]:
        """Refuse the cassette when a response was never read and no later request told
        what it said."""
        for where, found in self.unread.values():
            raise TranscriptError(self.path, where, f"the response cannot be read ({found}) "
                                  "and no later request repeats it, so the tool calls it "
                                  "may hold would not be replayed")
        return []


def claims(data: Any) -> Claim:
    """An interaction (``{"request": {...}, "response": {...}}``) is this format's."""
    if isinstance(data, dict) and isinstance(data.get("request"), dict) and isinstance(
            data.get("response"), dict):
        return Claim.OWN
    return Claim.NO


def record_events(record: Record, book: CassetteBook) -> list[Event]:
    """The new events of one interaction: calls and results not read before."""
    if record.blank:
        return []
    found = _exchange(record, book)
    if found is None:
        return []
    fmt, exchange, empty = found
    try:
        return _read_exchange(fmt, exchange, record.where, book, empty=empty)
    except RecursionError:
        raise TranscriptError(book.path, record.where, "a body is nested too deeply to "
                              "be read") from None


def _exchange(record: Record, book: CassetteBook
              ) -> tuple[TranscriptFormat[Any], Exchange, bool] | None:
    """The model API call an interaction holds, and whether its response had no body at
    all; ``None`` when it holds none."""
    path, where, data = book.path, record.where, record.data
    if not isinstance(data, dict) or not isinstance(data.get("request"), dict):
        raise TranscriptError(path, where, 'a cassette interaction needs a "request" object; '
                              f"found {record_shape(data)}")
    side = data.get("response")
    if side is not None and not isinstance(side, dict):
        raise TranscriptError(path, where, '"response" must be an object')
    side = side or {}
    method = data["request"].get("method")
    if isinstance(method, str) and method.upper() != "POST":
        return None  # a GET to a package index, a health check: never a model call
    uri = data["request"].get("uri")
    uri = uri if isinstance(uri, str) else ""
    endpoint = uri_path(uri)
    owner = next(((fmt, api) for fmt, api in book.apis if endpoint.endswith(api.paths)),
                 None)
    not_read = next((what for pattern, what in _NOT_READ if pattern.search(endpoint)), None)
    if not_read is not None:
        raise TranscriptError(path, where, not_read)
    request = cassettes.body_value(data["request"])
    response = cassettes.body_value(side)
    if _failed(side):
        response = None  # an error status: the turn has no answer
    for fmt, api in (owner,) if owner is not None else book.apis:
        exchange = api.exchange(request, response, uri, where)
        if exchange is not None:
            if _failed(side):
                exchange = dataclasses.replace(exchange, answer=[], unread=None)
            return fmt, exchange, response is None and exchange.unread is not None
    if owner is not None:
        found = request.found if isinstance(request, Unreadable) else (
            "no body" if request is None else record_shape(request))
        raise TranscriptError(path, where.at("request body"), f"a request to {endpoint} that "
                              f"does not hold {owner[0].title}: found {found}")
    return None


def _failed(side: dict[str, Any]) -> bool:
    status = side.get("status")
    code = status.get("code") if isinstance(status, dict) else status
    return isinstance(code, int) and code >= 400


def _key(data: Any) -> str:
    return dumps(data) if not isinstance(data, dict) else json.dumps(
        data, sort_keys=True, ensure_ascii=False, default=str)


def _arguments_key(text: str) -> int:
    """What a call's arguments are compared by: their JSON value (key order aside), as a
    hash."""
    try:
        return hash(json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False))
    except (ValueError, RecursionError):
        return hash(text)


def _prefix_hashes(keys: list[str], start: int = 0) -> list[int]:
    """The hash of each prefix of ``keys`` (from ``start``, a prefix's hash), so that the
    conversation a request extends is found by lookups, not by comparing it with each."""
    hashes, current = [], start
    for key in keys:
        current = hash((current, key))
        hashes.append(current)
    return hashes


def _sent_key(size: int, digest: int) -> int:
    """The key of a request's messages: how many, and their prefix hash."""
    return hash((size, digest))


def _remember_bounded(table: dict[Any, Any], key: Any, value: Any) -> None:
    table.pop(key, None)
    table[key] = value
    if len(table) > REMEMBERED:
        del table[next(iter(table))]


def _thread(book: CassetteBook, exchange: Exchange, hashes: list[int],
            calls: Callable[[], list[tuple[str, int]]]) -> tuple[_Thread | None, int]:
    """The conversation a request continues, and how many of its messages that
    conversation's last request already sent. ``calls``: the request's calls, as
    ``(name, arguments key)``, asked for only when the history does not tell."""
    if exchange.previous_response_id is not None:
        thread = book.by_response.get(exchange.previous_response_id)
        if thread is not None:
            return thread, 0
    for size in range(len(hashes), 0, -1):  # the longest, the latest for a size
        key = _sent_key(size, hashes[size - 1])
        found = book.by_sent.get(key)
        if isinstance(found, int):  # a conversation that waited for nothing, made again
            found = book.by_sent[key] = _Thread(number=found, sent=key, sent_size=size,
                                                sent_hash=hashes[size - 1])
        if found is not None:
            if size == len(hashes):  # its last request again: another run's, perhaps
                waiting = _waiting_for(book, calls)
                if waiting is not None and waiting is not found:
                    return waiting, 0
            return found, size
    for record in exchange.asked:
        for call_id in _ids(record.data):
            if call_id in book.by_call_id:
                return book.by_call_id[call_id][0], 0
    return _waiting_for(book, calls), 0


def _waiting_for(book: CassetteBook,
                 calls: Callable[[], list[tuple[str, int]]]) -> _Thread | None:
    """The conversation whose last response made one of ``calls()`` (by name and
    arguments) and has not had it answered, or ``None`` (``calls`` is not asked when no
    conversation waits)."""
    if not book.made:
        return None
    for key in calls():
        found = book.made.get(key)
        if found is None:
            continue
        thread, index = found
        if index not in book.results and any(made[2] == index for made in thread.made):
            return thread
    return None


def _request_calls(fmt: TranscriptFormat[Any], exchange: Exchange,
                   book: CassetteBook) -> list[tuple[str, int]]:
    """The calls a request's messages hold, as ``(name, arguments key)``: read on their
    own (up to a message that does not read so, which the reading proper names)."""
    scratch = fmt.start(book.path, book.formats)
    found: list[tuple[str, int]] = []
    try:
        for record in exchange.asked:
            found.extend((event.name, _arguments_key(event.arguments))
                         for event in fmt.record_events(record, scratch)
                         if isinstance(event, ToolCall))
    except TranscriptError:
        pass
    return found


def _ids(data: Any) -> Iterator[str]:
    """The call ids a message names anywhere (calls and results), for the fallback rule;
    walked without recursion (a body may nest deeply)."""
    pending = [data]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            for key, inner in value.items():
                if key in ("id", "call_id", "tool_call_id", "tool_use_id") and isinstance(
                        inner, str):
                    yield inner
                elif isinstance(inner, dict | list):
                    pending.append(inner)
        elif isinstance(value, list):
            pending.extend(reversed(value))


def _read_exchange(fmt: TranscriptFormat[Any], exchange: Exchange, where: Place,
                   book: CassetteBook, *, empty: bool = False) -> list[Event]:
    keys = [_key(record.data) for record in exchange.asked]
    thread, sent = _thread(book, exchange, _prefix_hashes(keys),
                           lambda: _request_calls(fmt, exchange, book))
    if empty and thread is not None and sent == len(keys):
        return []  # the last request again, with no body back: nothing new, nothing lost
    events: list[Event] = []
    if thread is None:
        thread = _Thread(number=book.conversations)
        book.conversations += 1
        if thread.number:
            events.append(ConversationStart(conversation=thread.number, where=where,
                                            alongside=True))
        history_is_new = True
    else:
        history_is_new = thread.number in book.unread
    if exchange.system is not None and exchange.system != thread.system:
        thread.system = exchange.system
        events.append(SystemPrompt(content=exchange.system, where=where.at("request body")))
    scratch = fmt.start(book.path, book.formats)
    scratch.earlier = thread.by_id or {}
    asked = [(i, fmt.record_events(record, scratch)) for i, record in
             enumerate(exchange.asked)]
    answer = [event for record in exchange.answer for event in fmt.record_events(record,
                                                                                    scratch)]
    mapping = dict(scratch.outside)  # scratch call index -> the file's
    calls = [event for i, found in asked if i >= sent for event in found
             if isinstance(event, ToolCall)]
    mapping.update(_same_calls(calls, thread, book))
    known_until = sent  # messages up to here repeat the conversation
    for i, found in asked:
        for event in found:
            if i >= sent and ((isinstance(event, ToolCall) and event.index in mapping) or (
                    isinstance(event, ToolResult)
                    and mapping.get(event.call_index, -1) in book.results)):
                known_until = max(known_until, i + 1)
    for i, found in asked[sent:]:
        for event in found:
            new = _file_event(event, thread, mapping, book, user=i >= known_until,
                              assistant=history_is_new and i >= known_until)
            if new is not None:
                events.append(new)
    first_answered = book.count
    for event in answer:
        new = _file_event(event, thread, mapping, book, user=True, assistant=True)
        if new is not None:
            events.append(new)
    # what later requests must still be matched against: this response's calls only
    for name, arguments, index in thread.made:
        if index < first_answered and book.made.get((name, arguments), (None, -1))[1] == index:
            del book.made[name, arguments]
    thread.made = tuple(made for made in thread.made if made[2] >= first_answered)
    if thread.by_id:
        thread.by_id = {key: index for key, index in thread.by_id.items()
                        if index >= first_answered} or None
    _remember(book, thread, keys, chained=exchange.previous_response_id is not None,
              response_id=exchange.response_id)
    if exchange.unread:
        book.unread[thread.number] = (where.at("response body"), exchange.unread)
    else:
        book.unread.pop(thread.number, None)
    return events


def _remember(book: CassetteBook, thread: _Thread, keys: list[str], *, chained: bool,
              response_id: str | None) -> None:
    """Index the conversation by its last request (a chained request adds to what its
    conversation sent), its response id and its call ids."""
    if book.by_sent.get(thread.sent) is thread:
        del book.by_sent[thread.sent]
    size, start = (thread.sent_size, thread.sent_hash) if chained else (0, 0)
    if keys:
        thread.sent_size, thread.sent_hash = size + len(keys), _prefix_hashes(keys, start)[-1]
        thread.sent = _sent_key(thread.sent_size, thread.sent_hash)
        waits = thread.by_id or thread.made or thread.response_id is not None
        book.by_sent[thread.sent] = thread if waits else thread.number
    if thread.response_id is not None and book.by_response.get(thread.response_id) is thread:
        del book.by_response[thread.response_id]
    thread.response_id = response_id
    if response_id is not None:
        book.by_response[response_id] = thread


def _same_calls(calls: list[ToolCall], thread: _Thread,
                book: CassetteBook) -> dict[int, int]:
    """The calls among a request's that the conversation made before: their book index
    -> the file's. By id first; then a call whose id is new (or absent) by name and
    arguments among the conversation's calls no id of the request named (a client may add
    ids, or give its own, in the next request), each taken once."""
    same: dict[int, int] = {}
    for call in calls:
        if call.id is None:
            continue
        if thread.by_id and call.id in thread.by_id:
            same[call.index] = thread.by_id[call.id]
        elif call.id in book.by_call_id and book.by_call_id[call.id][0].number == (
                thread.number):
            same[call.index] = book.by_call_id[call.id][1]
    taken = set(same.values())
    for call in calls:
        if call.index in same:
            continue
        arguments = _arguments_key(call.arguments)
        for name, recorded, index in thread.made:
            if index not in taken and name == call.name and recorded == arguments:
                taken.add(index)
                same[call.index] = index
                if call.id is not None:
                    _known_id(book, thread, call.id, index)
                break
    return same


def _known_id(book: CassetteBook, thread: _Thread, call_id: str, index: int) -> None:
    if thread.by_id is None:
        thread.by_id = {}
    thread.by_id[call_id] = index
    _remember_bounded(book.by_call_id, call_id, (thread, index))


def _file_event(event: Event, thread: _Thread, mapping: dict[int, int], book: CassetteBook,
                *, user: bool, assistant: bool) -> Event | None:
    """``event`` as the file's event (its call numbering, its conversation), or ``None``
    when it was read before (``user``/``assistant``: its text is new)."""
    if isinstance(event, ToolCall):
        index = mapping.get(event.index, -1)
        if index >= 0:
            return None
        index = mapping[event.index] = book.count
        book.count += 1
        if event.id is not None:
            _known_id(book, thread, event.id, index)
        arguments = _arguments_key(event.arguments)
        thread.made = (*thread.made, (event.name, arguments, index))
        _remember_bounded(book.made, (event.name, arguments), (thread, index))
        return dataclasses.replace(event, index=index, conversation=thread.number)
    if isinstance(event, ToolResult):
        index = mapping.get(event.call_index, -1)
        if index < 0 or index in book.results:
            return None
        _remember_bounded(book.results, index, None)
        if book.answered is not None:
            book.answered.add(index)
        return dataclasses.replace(event, call_index=index)
    if isinstance(event, UserMessage):
        return event if user else None
    if isinstance(event, AssistantMessage):
        return event if assistant else None
    if isinstance(event, SystemPrompt):
        return event if user else None  # a system message: new when first sent
    return None


FORMAT: TranscriptFormat[CassetteBook] = TranscriptFormat(
    name="vcr",
    title="VCR cassettes",
    claims=claims,
    start=CassetteBook.start,
    record_events=record_events,
    not_updated="cannot write into a VCR cassette (its recorded HTTP bodies are kept as "
                "they are); record it again",
    files=FileReading(opens=cassettes.is_cassette, records=cassettes.iter_interactions),
    names=("*.yaml", "*.yml", "*.json"),
    before=("call-log",),  # a YAML file is never searched for call-log lines
)
