"""The one replay engine: ``Replayer.run``, which settles a call answered at once without
queueing it, gives the entries of the queued path (each event fed, settled entries
drained) on many varied transcripts (calls answered at once or later, drifted calls,
unknown tools, secrets, malformed lines), and each entry's ``--json`` text is its
dictionary encoded; the command's ``--json`` is the library's report; the runner has no
format-specific branch; durations are written as the encoder writes them."""

from __future__ import annotations

import ast
import inspect
import json
import random
import re
from pathlib import Path

import pytest

from agentforge_cli.replay import report, runner
from agentforge_cli.replay.transcripts.place import Place

TOOLS = '''
from typing import Annotated

from agentforge_cli import P, tool


@tool
def lookup(name: str, limit: int = 1) -> str:
    """Find a customer."""
    return f"customer:{name},limit:{limit}"


@tool
def unlock(door: str, pin: Annotated[str, P(sensitive=True)]) -> str:
    """Open a door."""
    return "opened " + door


@tool
def fail(reason: str) -> str:
    """Always fails."""
    raise ValueError(reason)
'''

NAMES = ["长路", "Zoë", r"a\"b", r"line\nbreak", "x" * 70, r"\u957f路", "emoji 😀"]
"""JSON string contents (escapes included)."""


def _arguments(rng: random.Random) -> tuple[str, object]:
    """A recorded call's name and arguments (a string, or rarely an object)."""
    pick = rng.randrange(12)
    if pick < 5:
        name = rng.choice(NAMES)
        text = json.dumps({"name": json.loads(f'"{name}"'), "limit": rng.randrange(5)},
                          ensure_ascii=rng.random() < 0.2)
        return "lookup", text
    if pick == 5:
        return "lookup", {"name": "obj", "limit": 2}  # an object, not a string
    if pick == 6:
        return "unlock", json.dumps({"door": "front", "pin": "40417731"})
    if pick == 7:
        return "lookup", '{"name": "t", "limit": 1, "api_token": "secret-value"}'
    if pick == 8:
        return "fail", json.dumps({"reason": rng.choice(["boom", "坏了", ""])})
    if pick == 9:
        return "lookupp", '{"name": "typo"}'  # an unknown tool
    if pick == 10:
        return "lookup", rng.choice(['{"name": ', "not json", '{"limit": "many"}', "{}"])
    return "unlock", "{door: 'back', pin: '1'}"  # sloppy, repaired


def _content(rng: random.Random, name: str, arguments: object) -> tuple[object, object]:
    """A recorded result: today's text, or not; an error flag, or none."""
    today = None
    if name == "lookup" and isinstance(arguments, str):
        try:
            values = json.loads(arguments)
            today = f"customer:{values['name']},limit:{values.get('limit', 1)}"
        except (ValueError, KeyError, TypeError):
            pass
    pick = rng.randrange(8)
    if pick < 4 and today is not None:
        content: object = today
    elif pick == 4:
        content = '{"b": 2, "a": 1.0}'
    elif pick == 5:
        content = {"structured": [1, 2]}
    elif pick == 6:
        content = "opened front"
    else:
        content = rng.choice(["different", "", "customer:长路,limit:1"])
    flag = rng.choice([False, False, False, True, None, "yes"])
    return content, flag


def _dump(rng: random.Random, data: dict) -> str:
    layout = rng.randrange(6)
    if layout == 0:
        return json.dumps(data, ensure_ascii=False)
    if layout == 1:
        return json.dumps(data)
    if layout == 2:
        return json.dumps(dict(reversed(list(data.items()))), separators=(",", ":"))
    if layout == 3:
        return "  " + json.dumps(data, separators=(", ", ":"), ensure_ascii=False)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def _transcript(number: int) -> str:
    """A transcript of calls, results and other lines, mostly well formed."""
    rng = random.Random(number)
    lines: list[str] = []
    waiting: list[tuple[object, str, object]] = []
    used = 0
    for _ in range(rng.randrange(4, 28)):
        pick = rng.randrange(20)
        if pick < 8:
            name, arguments = _arguments(rng)
            call_id: object = f"call_{used}"
            used += 1
            roll = rng.random()
            if roll < 0.1:
                call_id = None
            elif roll < 0.13 and waiting and waiting[-1][0] is not None:
                call_id = waiting[-1][0]  # used twice while still waiting: an error
            elif roll < 0.16:
                call_id = 7  # not a string: an error
            data = {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}
            if call_id is None and rng.random() < 0.5:
                data = {"name": name, "arguments": arguments}  # the bare call shape
            elif call_id is None:
                del data["id"]
            lines.append(_dump(rng, data))
            waiting.append((call_id, name, arguments))
        elif pick < 15 and waiting:
            index = 0 if rng.random() < 0.7 else rng.randrange(len(waiting))
            call_id, name, arguments = waiting.pop(index)
            content, flag = _content(rng, name, arguments)
            data = {"type": "tool_result", "id": call_id, "content": content,
                    "is_error": flag}
            if flag is None and rng.random() < 0.5:
                del data["is_error"]
            if call_id is None or rng.random() < 0.05:
                data.pop("id")
            if rng.random() < 0.05:
                data["id"] = "call_nobody"  # answers no waiting call: an error
            if rng.random() < 0.1:
                data["extra"] = [1, {"k": None}]
            lines.append(_dump(rng, data))
        elif pick == 15:
            lines.append(_dump(rng, {"type": rng.choice(["user", "assistant"]),
                                     "content": rng.choice(["hi", "查一下", ""])}))
        elif pick == 16:
            lines.append(rng.choice(["", "   ", "null", '{"type": "system", "content": "s"}']))
        elif pick == 17:
            lines.append(rng.choice(['{"type": "user"}', '{"type": "nope"}', "[1, 2]",
                                     '{"type": "tool_call", "id": "z", "name": ""}',
                                     '{"type": "tool_result", "id": "q", "content": NaN}',
                                     '{"type": "tool_call", "name": "lookup", "arguments"'])
                         if rng.random() < 0.15 else '{"type":"assistant","content":"ok"}')
        else:
            lines.append(_dump(rng, {"type": "assistant", "content": "thinking 😀"}))
    end = rng.choice(["\n", "\n", "\r\n", ""])
    text = "\n".join([*lines[:-1], lines[-1] + end] if lines else [])
    if end == "\r\n":
        text = text.replace("\n", "\r\n").replace("\r\r\n", "\r\n")
    if rng.random() < 0.1:
        text = "\ufeff" + text
    return text


_DURATION = re.compile(r'("duration_ms": )[-0-9.e]+')


def _normal(text: str) -> str:
    return _DURATION.sub(lambda m: m.group(1) + '"T"', text)


def _tool_service():
    from agentforge_cli import ToolService, build_local_tools

    namespace: dict = {}
    exec(TOOLS, namespace)
    return ToolService().tools(build_local_tools(
        [namespace[name] for name in ("lookup", "unlock", "fail")]))


def _lane(path: Path, match: str, lane: str) -> tuple:
    """The engine on one path, through ``run`` or the ``queued`` path: each call's
    ``--json`` entry (durations blanked), the summary, and the error that stopped it."""
    from agentforge_cli.replay.runner import Replayer
    from agentforge_cli.replay.transcripts import open_transcript
    from agentforge_cli.replay.transcripts.errors import TranscriptError

    replayer = Replayer(_tool_service(), describe=False, match=match)
    lines, error = [], None
    try:
        if lane == "queued":
            for event in open_transcript(path).events():
                replayer.feed(event)
                lines += [_normal(report.call_json(entry)) for entry in replayer._drain()
                          if isinstance(entry, report.CallReport)]
            lines += [_normal(report.call_json(entry)) for entry in replayer.close()
                      if isinstance(entry, report.CallReport)]
        else:
            for entry in replayer.run(open_transcript(path).events()):
                if isinstance(entry, report.CallReport):
                    line = report.call_json(entry)
                    assert line == json.dumps(entry.to_dict(), ensure_ascii=False)
                    lines.append(_normal(line))
    except TranscriptError as exc:
        error = str(exc)
        if lane == "queued":  # run settles and gives what ran before it raises
            lines += [_normal(report.call_json(entry)) for entry in replayer.close()
                      if isinstance(entry, report.CallReport)]
    return lines, replayer.summary, error


def _answered_transcript(number: int, service) -> str:
    """A transcript whose calls are mostly answered on the next line with today's result
    (as the service gives it), in any layout; some later, differently or never."""
    from agentforge_cli.core.define.spec import ToolExecutionRequest

    rng = random.Random(number)
    lines: list[str] = []
    waiting: list[tuple] = []

    def answer(call_id, name, arguments) -> None:
        today = service.execute(ToolExecutionRequest(
            id=call_id, name=name,
            arguments=arguments if isinstance(arguments, str) else json.dumps(arguments)))
        content, flag = today.text, today.is_error
        if rng.random() < 0.15:
            content, flag = rng.choice([(content + "!", flag), (content, not flag),
                                        (content, None)])
        data = {"type": "tool_result", "id": call_id, "content": content, "is_error": flag}
        if call_id is None:
            del data["id"]
        lines.append(_dump(rng, data))

    for position in range(rng.randrange(3, 30)):
        pick = rng.random()
        if pick < 0.65 or not waiting:
            name, arguments = _arguments(rng)
            call_id = None if rng.random() < 0.05 else f"call_{position}"
            data = {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}
            if call_id is None:
                del data["id"]
            lines.append(_dump(rng, data))
            if rng.random() < 0.75:
                answer(call_id, name, arguments)
            else:
                waiting.append((call_id, name, arguments))
        elif pick < 0.85:
            answer(*waiting.pop(rng.randrange(len(waiting))))
        else:
            lines.append(_dump(rng, {"type": rng.choice(["user", "assistant"]),
                                     "content": "查一下"}))
    return "".join(line + "\n" for line in lines)


@pytest.mark.parametrize("match", ["exact", "json", "status"])
def test_run_gives_the_entries_of_the_queued_path(tmp_path, match):
    """Calls settled at their result event give exactly the entries of the queued path,
    on transcripts of every kind of line and on many whose calls are answered at once."""
    path = tmp_path / "t.jsonl"
    service = _tool_service()
    statuses: set[str] = set()
    for number in range(400):
        text = _transcript(number) if number % 2 else _answered_transcript(number, service)
        path.write_bytes(text.encode("utf-8"))
        lane = _lane(path, match, "run")
        assert lane == _lane(path, match, "queued"), number
        statuses.update(json.loads(line)["status"] for line in lane[0])
    assert statuses == {"matched", "mismatched", "unrecorded", "drifted"}


@pytest.mark.parametrize("number", range(0, 96, 4))
def test_the_command_writes_the_librarys_report(cli, tmp_path, write_module, number):
    """``replay --json`` of a file is the library's report of it: the same calls, the
    same summary, the exit code the summary gives."""
    from agentforge_cli.replay.runner import replay
    from agentforge_cli.replay.transcripts import open_transcript

    module = write_module(f"engine_tools_{number}", TOOLS)
    path = tmp_path / "t.jsonl"
    path.write_bytes(_transcript(number).encode("utf-8"))
    result = cli("replay", str(path), "-t", str(module), "--json", "--allow-empty")
    try:
        expected = replay(open_transcript(path).events(), _tool_service())
    except Exception as exc:  # a malformed line: the command exits 3 and names it
        assert result.exit_code == 3, number
        assert str(exc) in result.stderr
        return
    document = json.loads(result.stdout)
    for call in document["calls"]:
        call["duration_ms"] = "T"
    assert document["calls"] == [dict(call.to_dict(), duration_ms="T")
                                 for call in expected.calls]
    assert document["summary"] == expected.summary
    assert result.exit_code == (1 if expected.failed else 0)


def test_the_runner_has_no_format_specific_branch():
    """One engine for every format: the runner reads events, never a file or a format."""
    tree = ast.parse(Path(runner.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    transcripts = {name for name in imported if name and ".transcripts" in name}
    assert transcripts == {"agentforge_cli.replay.transcripts.model"}
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert not names & {"agentforge", "registry", "transcript", "container", "path",
                        "jsonl_blocks", "jsonl_record", "EventStream", "_SHORT_PATH"}
    assert not any(name.startswith("_run_lines") for name in names)


def test_transcript_events_are_a_plain_iterator():
    from cli_support import TRANSCRIPTS

    from agentforge_cli.replay.transcripts import open_transcript, transcript

    events = open_transcript(TRANSCRIPTS / "crm.jsonl").events()
    assert inspect.isgenerator(events)
    assert not hasattr(transcript, "EventStream")


@pytest.mark.parametrize("value", [0.0, 0.0004, 0.0005, 0.0015, 0.0025, 1.0, 2.5, 10.0,
                                   0.1 + 0.2, 123.4565, 999_999_999.9999, 1e9, 3e15,
                                   -0.0, float("inf"), float("nan"), 7])
def test_durations_are_written_as_the_encoder_writes_them_rounded(value):
    assert report._json_duration(value) == report._encode(round(value, 3))


def test_durations_over_many_values():
    rng = random.Random(5)
    values = [rng.uniform(0, 10) for _ in range(3000)] + [k / 2000 for k in range(3000)]
    values += [rng.expovariate(100) for _ in range(3000)]
    values += [rng.uniform(0, 1e9) for _ in range(3000)]
    assert [report._json_duration(v) for v in values] == [
        report._encode(round(v, 3)) for v in values]


@pytest.mark.parametrize("value", [0.0, 0.0005, 2.5, 0.1 + 0.2, 999_999_999.9999, 1e9,
                                   float("inf"), 7])
def test_a_match_settled_at_once_is_written_as_any_entry(value):
    """A match whose recorded text is today's (how ``run`` settles a call answered at
    once) is written, on its short way, as :func:`json_entry` writes it: its dictionary
    encoded."""
    for call_id, flag, is_error, text in [("c1", False, False, "customer:长路"),
                                          (None, None, True, 'a "quoted"\n😀'),
                                          ("\u957f", True, True, "")]:
        call = report.CallReport(index=0, id=call_id, name="look\tup", arguments='{"a":1}',
                                 where=Place(3), actual=text, is_error=is_error,
                                 duration_ms=value, shown_arguments='{"a":1}',
                                 expected=text, expected_is_error=flag,
                                 status=report.MATCHED)
        assert report.call_json(call) == report.json_entry(
            call_id, "look\tup", report.MATCHED, text, text, flag, is_error, '{"a":1}',
            Place(3), value)
        assert json.loads(report.call_json(call)) == json.loads(
            json.dumps(call.to_dict(), ensure_ascii=False))


@pytest.mark.parametrize("name", ["auth", "OTP", "bearer", "passphrase", "pass", "secret"])
def test_a_secret_named_without_c_k_w_or_z_is_masked_in_the_report(name):
    """Secret names such as ``auth`` or ``otp`` hold none of the letters the runner's own
    prefilter used to look for; recorded arguments naming one are still shown masked."""
    from agentforge_cli import ToolService, build_local_tools, tool
    from agentforge_cli.replay.report import CallReport
    from agentforge_cli.replay.transcripts import ToolCall

    @tool
    def lookup(name: str) -> str:
        """Find a customer."""
        return name

    service = ToolService().tools(build_local_tools([lookup]))
    events = [ToolCall(index=0, id="a", name="lookup",
                       arguments=f'{{"name": "ann", "{name}": "s3-99"}}')]
    (call,) = [e for e in runner.Replayer(service).run(events) if isinstance(e, CallReport)]
    assert "s3-99" not in call.shown_arguments and "***" in call.shown_arguments


@pytest.mark.parametrize("odd", ["plain", "\ud800"])
def test_spooled_entries_are_written_as_text_would_write_them(monkeypatch, odd):
    """Entries spooled as bytes and copied to a UTF-8 stream give the text written
    through ``emit``; an entry holding a lone surrogate goes the text way."""
    import io

    from agentforge_cli.cli import replay_outputs as reports

    copied = []
    buffer_of = reports._utf8_buffer
    monkeypatch.setattr(reports, "_utf8_buffer",
                        lambda stream: copied.append(buffer_of(stream)) or copied[-1])
    calls = [report.CallReport(index=i, id=f"c{i}", name="lookup", arguments="{}",
                               where=Place(i + 1), actual=odd if i == 1500 else "长路",
                               is_error=False, duration_ms=0.5, status=report.UNRECORDED)
             for i in range(3000)]
    outputs = []
    for use_stream in (False, True):
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
        spooled = reports.JsonReport()
        for call in calls:
            spooled.add_entry(call)

        def emit(text: str, stream=stream) -> None:
            try:
                stream.write(text)
            except UnicodeEncodeError:  # what the command's writer does
                stream.write(text.encode("utf-8", "backslashreplace").decode("utf-8"))

        spooled.write(emit, {"matched": 3000}, {"x": 1}, stream=stream if use_stream else None)
        stream.flush()
        outputs.append(raw.getvalue())
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0].decode("utf-8"))["calls"][1500]["id"] == "c1500"
    assert [buffer is not None for buffer in copied] == ([False, True] if odd == "plain"
                                                        else [])
