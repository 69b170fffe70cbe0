"""Every format ``--update`` writes, checked the same way: a conversation is written as the
format's own recorder would write it (its escapes, spacing and indentation), today's
results and a migration are written into it, and the file must then be exactly what that
recorder writes for the updated conversation — so the update changed nothing else, byte
for byte — and read back as updated, error flags included where the format has them."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentforge_cli.replay.transcripts import ToolCall, ToolResult, open_transcript
from agentforge_cli.replay.transcripts.registry import transcript_formats
from agentforge_cli.replay.transcripts.writing.migration import Migration


@dataclass(frozen=True)
class Call:
    id: str
    name: str
    args: dict[str, Any]
    result: str
    error: bool = False


Rounds = list[list[Call]]
"""A conversation: rounds of calls, each answered before the next round."""

# -- how each format's recorder writes a conversation ------------------------------------


def _agentforge(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"type": "user", "content": "caf\u00e9?"}]
    for calls in rounds:
        for call in calls:
            records.append({"type": "tool_call", "id": call.id, "name": call.name,
                            "arguments": json.dumps(call.args, **inner)})
            records.append({"type": "tool_result", "id": call.id, "content": call.result,
                            "is_error": call.error})
    return [*records, {"type": "assistant", "content": "done"}]


def _openai(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"role": "user", "content": "caf\u00e9?"}]
    for calls in rounds:
        records.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.args, **inner)}}
            for c in calls]})
        records.extend({"role": "tool", "tool_call_id": c.id, "content": c.result}
                       for c in calls)
    return [*records, {"role": "assistant", "content": "done"}]


def _responses(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"type": "message", "role": "user", "content": "caf\u00e9?"}]
    for calls in rounds:
        records.extend({"type": "function_call", "call_id": c.id, "name": c.name,
                        "arguments": json.dumps(c.args, **inner)} for c in calls)
        records.extend({"type": "function_call_output", "call_id": c.id, "output": c.result}
                       for c in calls)
    return [*records, {"type": "message", "role": "assistant",
                       "content": [{"type": "output_text", "text": "done"}]}]


def _anthropic(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"role": "user", "content": "caf\u00e9?"}]
    for calls in rounds:
        records.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.args} for c in calls]})
        records.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": c.id, "content": c.result,
             "is_error": c.error} for c in calls]})
    return [*records, {"role": "assistant", "content": [{"type": "text", "text": "done"}]}]


def _bedrock(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"role": "user", "content": [{"text": "caf\u00e9?"}]}]
    for calls in rounds:
        records.append({"role": "assistant", "content": [
            {"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.args}} for c in calls]})
        records.append({"role": "user", "content": [
            {"toolResult": {"toolUseId": c.id, "content": [{"text": c.result}],
                            "status": "error" if c.error else "success"}} for c in calls]})
    return [*records, {"role": "assistant", "content": [{"text": "done"}]}]


def _cohere(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"role": "user", "content": "caf\u00e9?"}]
    for calls in rounds:
        records.append({"role": "assistant", "tool_plan": "caf\u00e9", "tool_calls": [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.args, **inner)}}
            for c in calls]})
        records.extend({"role": "tool", "tool_call_id": c.id, "content": [
            {"type": "document", "document": {"data": c.result}}]} for c in calls)
    return [*records, {"role": "assistant", "content": [{"type": "text", "text": "done"}]}]


def _ollama(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"role": "user", "content": "caf\u00e9?"}]
    for calls in rounds:
        records.append({"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": c.name, "arguments": c.args}} for c in calls]})
        records.extend({"role": "tool", "content": c.result, "tool_name": c.name}
                       for c in calls)
    return [*records, {"role": "assistant", "content": "done"}]


def _gemini(rounds: Rounds, inner: dict[str, Any], ids: bool = True) -> list[Any]:
    def named(c: Call, **more: Any) -> dict[str, Any]:
        return {"id": c.id, "name": c.name, **more} if ids else {"name": c.name, **more}

    records: list[Any] = [{"role": "user", "parts": [{"text": "caf\u00e9?"}]}]
    for calls in rounds:
        records.append({"role": "model", "parts": [
            {"functionCall": named(c, args=c.args)} for c in calls]})
        records.append({"role": "user", "parts": [
            {"functionResponse": named(c, response={"error" if c.error else "result":
                                                    c.result})} for c in calls]})
    return [*records, {"role": "model", "parts": [{"text": "done"}]}]


_GEMINI_CLI_HEADER = {"sessionId": "s-1", "projectHash": "ab12",
                      "startTime": "2025-12-06T15:00:00.000Z",
                      "lastUpdated": "2025-12-06T15:05:00.000Z"}


def _gemini_cli(rounds: Rounds, inner: dict[str, Any], header: bool = False) -> list[Any]:
    """A Gemini CLI session's messages: each call holds its functionResponse and status."""
    stamp = "2025-12-06T15:00:00.000Z"
    records: list[Any] = [_GEMINI_CLI_HEADER] if header else []
    records.append({"id": "m0", "timestamp": stamp, "type": "user", "content": "caf\u00e9?"})
    for number, calls in enumerate(rounds, 1):
        records.append({"id": f"m{number}", "timestamp": stamp, "type": "gemini",
                        "content": "", "toolCalls": [
            {"id": c.id, "name": c.name, "args": c.args, "result": [{"functionResponse": {
                "id": c.id, "name": c.name,
                "response": {"error" if c.error else "output": c.result}}}],
             "status": "error" if c.error else "success", "timestamp": stamp}
            for c in calls]})
    return [*records, {"id": "m9", "timestamp": stamp, "type": "gemini", "content": "done"}]


def _mcp(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                           "params": {"clientInfo": {"name": "caf\u00e9"}}}]
    for number, call in enumerate((c for calls in rounds for c in calls), 1):
        records.append({"direction": "out", "message": {
            "jsonrpc": "2.0", "id": number, "method": "tools/call",
            "params": {"name": call.name, "arguments": call.args}}})
        records.append({"direction": "in", "message": {
            "jsonrpc": "2.0", "id": number, "result": {
                "content": [{"type": "text", "text": call.result}], "isError": call.error}}})
    return records


def _tau2(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"role": "user", "content": "caf\u00e9?", "tool_calls": None}]
    for calls in rounds:
        records.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": c.args, "requestor": "assistant"}
            for c in calls]})
        records.extend({"id": c.id, "role": "tool", "content": c.result,
                        "requestor": "assistant", "error": c.error} for c in calls)
    return [*records, {"role": "assistant", "content": "done", "tool_calls": None}]


def _langchain(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"type": "human", "data": {"content": "caf\u00e9?", "type": "human"}}]
    for calls in rounds:
        records.append({"type": "ai", "data": {"content": "", "type": "ai", "tool_calls": [
            {"name": c.name, "args": c.args, "id": c.id, "type": "tool_call"}
            for c in calls]}})
        records.extend({"type": "tool", "data": {
            "content": c.result, "type": "tool", "tool_call_id": c.id, "name": c.name,
            "status": "error" if c.error else "success"}} for c in calls)
    return [*records, {"type": "ai", "data": {"content": "done", "type": "ai"}}]


def _pydantic_ai(rounds: Rounds, inner: dict[str, Any]) -> list[Any]:
    records: list[Any] = [{"kind": "request", "parts": [
        {"part_kind": "user-prompt", "content": "caf\u00e9?"}]}]
    for calls in rounds:
        records.append({"kind": "response", "parts": [
            {"part_kind": "tool-call", "tool_name": c.name,
             "args": json.dumps(c.args, **inner), "tool_call_id": c.id} for c in calls]})
        records.append({"kind": "request", "parts": [
            {"part_kind": "tool-return", "tool_name": c.name, "content": c.result,
             "tool_call_id": c.id, "outcome": "failed" if c.error else "success"}
            for c in calls]})
    return [*records, {"kind": "response", "parts": [{"part_kind": "text", "content": "done"}]}]


Build = Callable[[Rounds, dict[str, Any]], Any]


@dataclass(frozen=True)
class Recorder:
    """How one format's files are written: the records, then the file around them."""

    format: str
    build: Build
    jsonl: bool = False
    """One record a line; else one JSON document (``envelope`` holds the records)."""
    envelope: str | None = None
    marks_errors: bool = True
    """Every error it writes is marked (else: none, or those of its first conversation)."""
    conversations: int = 1
    """The conversations ``build`` writes, each of an equal share of the rounds."""


RECORDERS = [
    Recorder("agentforge", _agentforge, jsonl=True),
    Recorder("openai", _openai, envelope="messages", marks_errors=False),
    Recorder("openai", _openai, jsonl=True, marks_errors=False),
    Recorder("openai-responses", _responses, envelope="input", marks_errors=False),
    Recorder("anthropic", _anthropic),
    Recorder("bedrock", _bedrock, envelope="messages"),
    Recorder("cohere", _cohere, envelope="messages", marks_errors=False),
    Recorder("ollama", _ollama, envelope="messages", marks_errors=False),
    Recorder("ollama", _ollama, jsonl=True, marks_errors=False),
    Recorder("gemini", _gemini, envelope="contents"),
    Recorder("gemini", lambda rounds, inner: _gemini(rounds, inner, ids=False), jsonl=True),
    Recorder("gemini-cli", _gemini_cli, envelope="messages"),
    Recorder("gemini-cli", lambda rounds, inner: _gemini_cli(rounds, inner, header=True),
             jsonl=True),
    Recorder("mcp", _mcp, jsonl=True),
    Recorder("tau2", _tau2, envelope="messages"),
    Recorder("langchain", _langchain),
    Recorder("pydantic-ai", _pydantic_ai),
    Recorder("conversations", lambda rounds, inner: [
        {"messages": _openai(rounds[:len(rounds) // 2], inner)},
        {"messages": _anthropic(rounds[len(rounds) // 2:], inner)}],
             jsonl=True, marks_errors=False, conversations=2),
    Recorder("conversations", lambda rounds, inner: {"simulations": [
        {"id": "1", "messages": _tau2(rounds, inner)}]}),
]


def _text(recorder: Recorder, rounds: Rounds, writer: dict[str, Any],
          inner: dict[str, Any]) -> str:
    records = recorder.build(rounds, inner)
    if recorder.jsonl:
        line_writer = {key: value for key, value in writer.items() if key != "indent"}
        return "".join(json.dumps(record, **line_writer) + "\n" for record in records)
    document = {recorder.envelope: records} if recorder.envelope else records
    return json.dumps(document, **writer) + "\n"


# -- the conversations, the changes ----------------------------------------------------------

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8) | \
    st.sampled_from(["caf\u00e9", "\u957f\u8def", "\U0001f4f6", 'say "hi"', "a\nb", "\\"])
_ARGS = st.fixed_dictionaries({"q": _TEXT}, optional={"n": st.integers(0, 99),
                                                       "flag": st.booleans()})
_WRITERS = [{}, {"ensure_ascii": False}, {"separators": (",", ":"), "ensure_ascii": False},
            {"indent": 2}, {"indent": 4, "ensure_ascii": False}]
_INNER = [{}, {"separators": (",", ":")}]


@st.composite
def _rounds(draw: st.DrawFn) -> Rounds:
    rounds: Rounds = []
    number = 0
    for _ in range(draw(st.integers(1, 2))):
        calls = []
        for _ in range(draw(st.integers(1, 2))):
            number += 1
            calls.append(Call(f"call_{number}", draw(st.sampled_from(["lookup", "find"])),
                              draw(_ARGS), draw(_TEXT), draw(st.booleans())))
        rounds.append(calls)
    return rounds


def _migrated(call: Call, migration: Migration) -> Call:
    name = migration.name(call.name)
    args = migration.arguments_object(name, call.args)
    return replace(call, name=name, args=call.args if args is None else args)


@settings(max_examples=60, suppress_health_check=list(HealthCheck), deadline=None)
@given(recorder=st.sampled_from(RECORDERS), rounds=_rounds(), writer=st.sampled_from(_WRITERS),
       inner=st.sampled_from(_INNER), data=st.data())
def test_an_update_changes_only_what_changed(tmp_path_factory, recorder, rounds, writer,
                                             inner, data):
    path = tmp_path_factory.mktemp("t") / ("t.jsonl" if recorder.jsonl else "t.json")
    rounds = rounds * recorder.conversations
    path.write_text(_text(recorder, rounds, writer, inner), encoding="utf-8")
    transcript = open_transcript(path)
    assert transcript.format == recorder.format

    calls = [call for calls in rounds for call in calls]
    first = len(calls) // recorder.conversations  # the calls of the first conversation
    updates: dict[int, tuple[str, bool]] = {}
    for index in range(len(calls)):
        if data.draw(st.booleans(), label=f"update {index}"):
            updates[index] = (data.draw(_TEXT), data.draw(st.booleans()))
    migration = data.draw(st.sampled_from([
        Migration(), Migration.parse(["lookup=find_v2"]),
        Migration.parse(rename_arg=["find.q=query"], drop_arg=["find.flag"]),
        Migration.parse(["lookup=find"], ["find.q=query"])]), label="migration")
    written = transcript.write(updates, migration or None)

    def updated(call: Call, index: int) -> Call:
        call = _migrated(call, migration)
        if index in updates:
            text, error = updates[index]
            call = replace(call, result=text, error=error)
        return call

    numbers = iter(range(len(calls)))
    expected_rounds = [[updated(call, next(numbers)) for call in round_] for round_ in rounds]
    assert path.read_text(encoding="utf-8") == _text(recorder, expected_rounds, writer, inner)
    events = list(open_transcript(path).events())
    read_calls = [e for e in events if isinstance(e, ToolCall)]
    results = {e.call_index: e for e in events if isinstance(e, ToolResult)}
    unmarked = {i for i, (_, error) in updates.items()
                if error and not recorder.marks_errors and i < first}
    for index, call in enumerate(calls):
        today = updated(call, index)
        assert read_calls[index].name == today.name
        assert json.loads(read_calls[index].arguments) == today.args
        assert results[index].content == today.result
        if recorder.marks_errors or index >= first:
            assert results[index].is_error is today.error
    assert written.unmarked == unmarked


def test_every_format_that_writes_results_back_is_checked_here():
    writable = {fmt.name for fmt in transcript_formats() if fmt.rewrite is not None}
    assert writable == {recorder.format for recorder in RECORDERS}
    assert all(fmt.migrate is not None for fmt in transcript_formats()
               if fmt.rewrite is not None)
