"""The short path of ``replay`` on agentforge JSONL (the runner reads the common call and
result lines itself) gives exactly what the general path gives: the same ``--json`` and
trace output, stderr, exit code, JUnit report and ``--update``d file, on many varied
transcripts."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from agentforge_cli.replay import report, runner
from agentforge_cli.replay.transcripts import agentforge

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


def _transcript(seed: int) -> str:
    """A transcript of calls, results and other lines, mostly well formed."""
    rng = random.Random(seed)
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


MODES = [
    ["--json"],
    [],
    ["--json", "--match", "status"],
    ["--json", "--match", "json"],
    ["--junit", "{junit}"],
    ["--update", "--json"],
    ["--update"],
    ["--json", "--allow-empty", "--junit", "{junit}"],
]

_DURATION = re.compile(r'("duration_ms": )[-0-9.e]+|( time=")[0-9.]+"')


def _normal(text: str) -> str:
    return _DURATION.sub(lambda m: (m.group(1) or m.group(2)) + "T", text)


def _run(cli, monkeypatch, folder: Path, module: Path, transcript: str, options: list[str],
         *, short: bool) -> tuple:
    folder.mkdir()
    path = folder / "t.jsonl"
    path.write_bytes(transcript.encode("utf-8"))
    junit = folder / "report.xml"
    args = [option.format(junit=junit) for option in options]
    monkeypatch.setattr(runner, "_SHORT_PATH", short)
    result = cli("replay", str(path), "-t", str(module), *args)
    report = junit.read_text(encoding="utf-8") if junit.exists() else ""
    return (result.exit_code, *(_normal(text).replace(str(folder), "DIR")
                                for text in (result.stdout, result.stderr, report)),
            path.read_bytes())


@pytest.mark.parametrize("seed", range(96))
def test_the_short_path_replays_exactly_as_the_general_path(cli, monkeypatch, tmp_path,
                                                            write_module, seed):
    module = write_module(f"fast_path_tools_{seed}", TOOLS)
    transcript = _transcript(seed)
    options = MODES[seed % len(MODES)]
    general = _run(cli, monkeypatch, tmp_path / "g", module, transcript, options,
                   short=False)
    short = _run(cli, monkeypatch, tmp_path / "s", module, transcript, options,
                 short=True)
    assert short == general


def test_common_lines_take_the_short_path(cli, monkeypatch, tmp_path):
    """Only the lines that are not a common call or result are read into events."""
    read = []
    record_events = agentforge.record_events
    monkeypatch.setattr(agentforge, "record_events",
                        lambda record, book: read.append(record.where)
                        or record_events(record, book))
    path = tmp_path / "t.jsonl"
    lines = [{"type": "user", "content": "hi"}]
    for i in range(3):
        lines += [{"type": "tool_call", "id": f"c{i}", "name": "queryCustomer",
                   "arguments": json.dumps({"name": "长路", "limit": i})},
                  {"type": "tool_result", "id": f"c{i}", "content": f"customer:长路,limit:{i}",
                   "is_error": False}]
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n",
                    encoding="utf-8")
    result = cli("replay", str(path), "-t", "sample_tools.crm:CrmTools", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["summary"]["matched"] == 3
    assert read == ["line 1"]


@pytest.mark.parametrize("value", [0.0, 0.0004, 0.0005, 0.0015, 0.0025, 1.0, 2.5, 10.0,
                                   0.1 + 0.2, 123.4565, 999_999_999.9999, 1e9, 3e15,
                                   -0.0, float("inf"), float("nan"), 7])
def test_durations_are_written_as_the_encoder_writes_them_rounded(value):
    assert report._json_duration(value) == report._encode(round(value, 3))


def test_durations_over_many_values(monkeypatch):
    rng = random.Random(5)
    values = [rng.uniform(0, 10) for _ in range(3000)] + [k / 2000 for k in range(3000)]
    values += [rng.expovariate(100) for _ in range(3000)]
    values += [rng.uniform(0, 1e9) for _ in range(3000)]
    assert [report._json_duration(v) for v in values] == [
        report._encode(round(v, 3)) for v in values]


def _tool_service():
    from agentforge_cli import ToolService, build_local_tools

    namespace: dict = {}
    exec(TOOLS, namespace)
    return ToolService().tools(build_local_tools(
        [namespace[name] for name in ("lookup", "unlock", "fail")]))


def _json_lines(monkeypatch, path: Path, match: str, *, short: bool) -> tuple:
    """``Replayer.json_lines`` on one path: the entries (durations blanked), the summary,
    and the error that stopped it, if any."""
    from agentforge_cli.errors import TranscriptError
    from agentforge_cli.replay.runner import Replayer
    from agentforge_cli.replay.transcripts import open_transcript

    monkeypatch.setattr(runner, "_SHORT_PATH", short)
    replayer = Replayer(_tool_service(), describe=False, match=match)
    lines, error = [], None
    try:
        for line in replayer.json_lines(open_transcript(path).events()):
            lines.append(_normal(line))
    except TranscriptError as exc:
        error = str(exc)
    return lines, replayer.summary, error


def _answered_transcript(seed: int, service) -> str:
    """A transcript whose calls are mostly answered on the next line with today's result
    (as the service gives it), in any layout; some later, differently or never."""
    from agentforge_cli.core.spec import ToolExecutionRequest

    rng = random.Random(seed)
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

    for number in range(rng.randrange(3, 30)):
        pick = rng.random()
        if pick < 0.65 or not waiting:
            name, arguments = _arguments(rng)
            call_id = None if rng.random() < 0.05 else f"call_{number}"
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
def test_json_lines_on_the_short_path_are_the_general_paths(monkeypatch, tmp_path, match):
    """What ``replay --json`` writes per call, through the library: matched calls settled
    at their result line give exactly the entries of the general path's reports, on the
    command-line comparison's transcripts and on many whose calls are answered at once."""
    path = tmp_path / "t.jsonl"
    service = _tool_service()
    for seed in range(400):
        text = _transcript(seed) if seed % 2 else _answered_transcript(seed, service)
        path.write_bytes(text.encode("utf-8"))
        short = _json_lines(monkeypatch, path, match, short=True)
        assert short == _json_lines(monkeypatch, path, match, short=False), seed
