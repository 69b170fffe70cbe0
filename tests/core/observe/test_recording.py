"""The in-process recorder: ``ToolService(record=...)``, ``AGENTFORGE_RECORD``, ``serve
--record`` and ``pytest --agentforge-record`` write transcripts that replay all matched;
threads and event loops may call at once; secrets are masked; a closed recorder and a
rotated file lose nothing they should keep."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Annotated

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recording_tools import add, login, slow_echo

from agentforge_cli import (
    P,
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolService,
    build_local_tools,
    tool,
)
from agentforge_cli.core.observe import recording
from agentforge_cli.core.observe.recording import CallRecorder
from agentforge_cli.replay.transcripts import ToolCall, ToolResult, open_transcript

AGENTFORGE = Path(sys.executable).with_name("agentforge")
ROOT = Path(__file__).resolve().parents[3]
TOOLS = Path(__file__).with_name("recording_tools.py")


def request(name: str, arguments: object, call_id: str | None = None) -> ToolExecutionRequest:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolExecutionRequest(id=call_id, name=name, arguments=text)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def tools_module(tmp_path: Path) -> Path:
    """The tools as a file of the test's own (its folder on PYTHONPATH as
    ``recorded_tools``)."""
    path = tmp_path / "recorded_tools.py"
    path.write_text(TOOLS.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def replay_json(transcript: Path, target: Path) -> tuple[int, dict]:
    done = subprocess.run([str(AGENTFORGE), "replay", str(transcript), "-t", str(target),
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_a_service_records_every_call_and_the_transcript_replays(tmp_path):
    path = tmp_path / "calls.jsonl"
    service = ToolService(record=path).tools(build_local_tools([add, slow_echo, login]))
    service.execute(request("add", {"a": 1, "b": "2"}, "c1"))
    service.execute(request("add", {"a": 1, "b": 2.5}, "c2"))          # an argument error
    service.execute(request("ad", {}, "c3"))                            # an unknown tool
    asyncio.run(service.aexecute(request("slow_echo", {"text": "你好"}, "c4")))
    service.execute(request("add", '{"a": 2, "b": 2,}'))                # repaired, no id
    service.recorder.close()
    recorded = lines(path)
    assert [(r["type"], r["id"]) for r in recorded] == [
        ("tool_call", "c1"), ("tool_result", "c1"), ("tool_call", "c2"), ("tool_result", "c2"),
        ("tool_call", "c3"), ("tool_result", "c3"), ("tool_call", "c4"), ("tool_result", "c4"),
        ("tool_call", None), ("tool_result", None)]
    assert recorded[1]["content"] == "3" and recorded[1]["is_error"] is False
    assert recorded[3]["is_error"] is True and recorded[5]["is_error"] is True
    assert recorded[7]["content"] == "你好"
    assert recorded[8]["arguments"] == '{"a": 2, "b": 2,}'  # as the model wrote it
    code, report = replay_json(path, tools_module(tmp_path))
    assert code == 0, report
    assert report["summary"] == {"matched": 5, "mismatched": 0, "unrecorded": 0}


def test_secrets_are_masked_unless_asked(tmp_path):
    masked, clear = tmp_path / "masked.jsonl", tmp_path / "clear.jsonl"
    arguments = {"user": "ann", "pin": "4321", "password": "hunter2"}
    for recorder in (CallRecorder(masked), CallRecorder(clear, mask=False)):
        service = ToolService(record=recorder).tools(build_local_tools([login]))
        service.execute(request("login", arguments, "c1"))
        recorder.close()
    assert json.loads(lines(masked)[0]["arguments"]) == {"user": "ann", "pin": "***",
                                                         "password": "***"}
    assert json.loads(lines(clear)[0]["arguments"]) == arguments


@tool
def sign_in(user: str, pw: Annotated[str, P(name="pass_code", sensitive=True)],
            api_tokens: list[str] | None = None) -> str:
    """Sign in."""
    return "ok"


@pytest.mark.parametrize("arguments", [
    {"user": "ann", "pass_code": "hunter22"},  # the JSON key
    {"user": "ann", "pw": "hunter22"},  # the Python name (refused, still recorded)
    {"user": "ann", "passCode": "hunter22"},  # another spelling of the key
    {"user": "ann", "PASS-CODE": "hunter22"},
    {"user": "ann", "pass_code": "x", "api_tokens": ["hunter22"]},  # a plural secret name
])
def test_a_renamed_sensitive_parameter_is_masked_under_any_name(tmp_path, arguments):
    path = tmp_path / "calls.jsonl"
    recorder = CallRecorder(path)
    service = ToolService(record=recorder).tools(build_local_tools([sign_in]))
    service.execute(request("sign_in", arguments, "c1"))
    recorder.close()
    recorded = lines(path)[0]["arguments"]
    assert "hunter22" not in recorded and "***" in recorded
    assert '"user":"ann"' in recorded


def test_threads_and_tasks_at_once_keep_each_result_after_its_call(tmp_path):
    path = tmp_path / "calls.jsonl"
    service = ToolService(record=path).tools(build_local_tools([add, slow_echo]))

    def worker(number: int) -> None:
        for i in range(200):
            service.execute(request("add", {"a": number, "b": i}, f"t{number}-{i}"))

    async def tasks() -> None:
        await asyncio.gather(*(service.aexecute(request("slow_echo", {"text": str(i)},
                                                        f"a{i}")) for i in range(200)))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    asyncio.run(tasks())
    for thread in threads:
        thread.join(timeout=60)
    service.recorder.close()
    recorded = lines(path)
    assert len(recorded) == 2 * (4 * 200 + 200)
    for call, result in zip(recorded[::2], recorded[1::2], strict=True):
        assert (call["type"], result["type"]) == ("tool_call", "tool_result")
        assert call["id"] == result["id"]
    events = list(open_transcript(path).events())
    assert sum(isinstance(e, ToolCall) for e in events) == 1000
    assert sum(isinstance(e, ToolResult) for e in events) == 1000


def test_a_lone_surrogate_and_a_closed_recorder(tmp_path):
    @tool
    def listing() -> str:
        """A file name that is not UTF-8."""
        return "bad-\udcff-name"

    path = tmp_path / "calls.jsonl"
    service = ToolService(record=path).tools(build_local_tools([listing]))
    service.execute(request("listing", {}, "c1"))
    service.recorder.close()
    service.execute(request("listing", {}, "c2"))  # after close: answered, not recorded
    recorded = lines(path)
    assert [r["id"] for r in recorded] == ["c1", "c1"]
    assert recorded[1]["content"] == "bad-\udcff-name"


def test_a_directory_gets_a_file_of_this_process_rotated_by_size(tmp_path, monkeypatch):
    monkeypatch.setattr(recording, "ROTATE_BYTES", 500)
    recorder = CallRecorder(tmp_path)
    service = ToolService(record=recorder).tools(build_local_tools([add]))
    for i in range(20):
        service.execute(request("add", {"a": i, "b": i}, f"c{i}"))
    recorder.close()
    files = sorted(tmp_path.glob(f"agentforge-calls-*-{os.getpid()}*.jsonl"))
    assert len(files) > 1
    ids = [r["id"] for f in files for r in lines(f) if r["type"] == "tool_call"]
    assert sorted(ids) == sorted(f"c{i}" for i in range(20))
    for f in files:  # each file replays on its own: no call is split from its result
        kinds = [r["type"] for r in lines(f)]
        assert kinds == ["tool_call", "tool_result"] * (len(kinds) // 2)


def test_the_environment_records_every_service_of_a_process(tmp_path):
    code = ("from agentforge_cli import ToolService, ToolExecutionRequest, build_local_tools\n"
            "import recorded_tools as t\n"
            "for n in range(2):\n"
            "    s = ToolService().tools(build_local_tools([t.add]))\n"
            "    s.execute(ToolExecutionRequest(id=f'c{n}', name='add', "
            "arguments='{\"a\": 1, \"b\": 1}'))\n")
    tools_module(tmp_path)
    out = tmp_path / "recorded"
    env = {**os.environ, "AGENTFORGE_RECORD": str(out),
           "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tmp_path,
                   timeout=60)
    (transcript,) = out.glob("agentforge-calls-*.jsonl")
    assert [r["id"] for r in lines(transcript)] == ["c0", "c0", "c1", "c1"]
    code_, report = replay_json(transcript, tmp_path / "recorded_tools.py")
    assert code_ == 0 and report["summary"]["matched"] == 2


def test_not_recording_leaves_the_service_as_it_was(monkeypatch):
    monkeypatch.delenv("AGENTFORGE_RECORD", raising=False)
    service = ToolService().tools(build_local_tools([add]))
    assert service.recorder is None
    assert service._start(request("add", {}), None)[1] is None  # no token: no _finish


def test_serve_record_writes_what_it_served(tmp_path):
    target = tools_module(tmp_path)
    path = tmp_path / "served.jsonl"
    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "login", "arguments": {"user": "ann", "pin": "1"}}},
    ]
    done = subprocess.run([str(AGENTFORGE), "serve", str(target), "--record", str(path)],
                          input="".join(json.dumps(m) + "\n" for m in messages),
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    recorded = lines(path)
    assert [(r["type"], r["id"]) for r in recorded] == [
        ("tool_call", "1"), ("tool_result", "1"), ("tool_call", "2"), ("tool_result", "2")]
    assert '"pin":"***"' in recorded[2]["arguments"]
    code, report = replay_json(path, target)
    assert report["summary"]["matched"] == 2 and code == 0


def test_serve_record_into_a_missing_directory_is_a_usage_error(tmp_path):
    done = subprocess.run([str(AGENTFORGE), "serve", str(tools_module(tmp_path)), "--record",
                           str(tmp_path / "no" / "such" / "f.jsonl")], input="",
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2
    assert "cannot be opened for appending" in done.stderr and done.stdout == ""


def test_pytest_records_the_calls_the_tests_make(tmp_path):
    tools_module(tmp_path)
    (tmp_path / "test_app.py").write_text(
        "from agentforge_cli import ToolService, ToolExecutionRequest, build_local_tools\n"
        "import recorded_tools as t\n\n"
        "def test_adds():\n"
        "    s = ToolService().tools(build_local_tools([t.add]))\n"
        "    r = s.execute(ToolExecutionRequest(id='c1', name='add', "
        "arguments='{\"a\": 2, \"b\": 2}'))\n"
        "    assert r.text == '4'\n", encoding="utf-8")
    out = tmp_path / "recorded"
    env = {key: value for key, value in os.environ.items() if key != "AGENTFORGE_RECORD"}
    env["PYTHONPATH"] = f"{tmp_path}{os.pathsep}{ROOT}"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "--agentforge-record", str(out), "test_app.py"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    (transcript,) = out.glob("agentforge-calls-*.jsonl")
    code, report = replay_json(transcript, tmp_path / "recorded_tools.py")
    assert code == 0 and report["summary"]["matched"] == 1


@pytest.mark.parametrize("value", ["", None])
def test_an_empty_environment_variable_records_nothing(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("AGENTFORGE_RECORD", raising=False)
    else:
        monkeypatch.setenv("AGENTFORGE_RECORD", value)
    assert ToolService().recorder is None


def test_calls_reach_the_file_a_batch_at_a_time_and_each_is_masked_on_its_own(tmp_path):
    """Calls wait in memory and are written every FLUSH_EVERY: a killed process loses at
    most those waiting. A batch is checked for secrets at once, yet only the calls that
    hold one are masked."""
    path = tmp_path / "calls.jsonl"
    service = ToolService(record=path).tools(build_local_tools([add, login]))
    secret = {"user": "ann", "pin": "4321", "password": "hunter2"}
    for i in range(recording.FLUSH_EVERY - 1):
        service.execute(request("add", {"a": i, "b": 1}, f"c{i}"))
    assert path.read_bytes() == b""  # waiting
    service.execute(request("login", secret, "last"))
    recorded = lines(path)  # written without a close
    assert len(recorded) == 2 * recording.FLUSH_EVERY
    assert json.loads(recorded[0]["arguments"]) == {"a": 0, "b": 1}
    assert recorded[-2]["id"] == "last"
    assert json.loads(recorded[-2]["arguments"]) == {"user": "ann", "pin": "***",
                                                     "password": "***"}
    for i in range(5):  # a secret named only by a key, beside calls without one
        service.execute(request("add", {"a": i, "b": 1, "api_key": "sk-1"} if i == 2
                                else {"a": i, "b": 1}, f"d{i}"))
    service.recorder.close()
    arguments = [json.loads(r["arguments"]) for r in lines(path)[2 * recording.FLUSH_EVERY:]
                 if r["type"] == "tool_call"]
    assert arguments[2] == {"a": 2, "b": 1, "api_key": "***"}
    assert [a for i, a in enumerate(arguments) if i != 2] == [
        {"a": i, "b": 1} for i in (0, 1, 3, 4)]


def test_a_request_that_is_not_text_spoils_no_other_call_of_its_batch(tmp_path):
    """A caller's request whose name is not a str, beside others written in the same
    batch: every call is answered and written."""
    path = tmp_path / "calls.jsonl"
    service = ToolService(record=path).tools(build_local_tools([add]))
    odd = ToolExecutionRequest(id="odd", name=None, arguments="{}")  # type: ignore[arg-type]
    assert service.execute(odd).is_error
    for i in range(recording.FLUSH_EVERY - 1):
        service.execute(request("add", {"a": i, "b": 1}, f"c{i}"))
    recorded = lines(path)  # the batch, written without a close
    assert [(r["id"], r.get("name")) for r in recorded[:2]] == [("odd", None), ("odd", None)]
    assert recorded[1]["is_error"] is True
    assert [r["id"] for r in recorded[2::2]] == [f"c{i}" for i in range(63)]
    service.recorder.close()


def test_a_file_that_cannot_be_written_fails_no_call_and_is_reported_once(tmp_path, capfd):
    recorder = CallRecorder(tmp_path / "calls.jsonl")

    class DiskFull:
        def write(self, data: object) -> int:
            raise OSError(28, "No space left on device")

        def close(self) -> None:
            pass

    recorder._sink.file.close()
    recorder._sink.file = DiskFull()  # type: ignore[assignment]
    service = ToolService(record=recorder).tools(build_local_tools([add]))
    results = [service.execute(request("add", {"a": i, "b": 1}, f"c{i}"))
               for i in range(3 * recording.FLUSH_EVERY)]
    recorder.close()
    assert [r.text for r in results] == [str(i + 1) for i in range(3 * recording.FLUSH_EVERY)]
    out, err = capfd.readouterr()
    assert out == ""
    assert err.count("No space left on device") == 1
    assert "calls are not being recorded" in err


_ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=40)  # surrogates too


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.none() | _ANY_TEXT, _ANY_TEXT, _ANY_TEXT, _ANY_TEXT,
                          st.booleans()), min_size=1, max_size=70))
def test_any_text_is_written_as_json_that_reads_back_the_same(tmp_path_factory, calls):
    """Ids, names, arguments and results of any characters (quotes, backslashes, control
    characters, lone surrogates, what looks like an escape) read back exactly; the file
    is ASCII."""
    path = tmp_path_factory.mktemp("any") / "calls.jsonl"
    recorder = CallRecorder(path, mask=False)
    recording_ = recorder.for_tool(None)
    for call_id, name, arguments, text, is_error in calls:
        recording_.record(ToolExecutionRequest(id=call_id, name=name, arguments=arguments),
                          ToolExecutionResult(text, is_error))
    recorder.close()
    data = path.read_bytes()
    assert data.isascii()
    read = [json.loads(line) for line in data.decode("ascii").split("\n")[:-1]]
    assert read == [record for call_id, name, arguments, text, is_error in calls
                    for record in (
                        {"type": "tool_call", "id": call_id, "name": name,
                         "arguments": arguments},
                        {"type": "tool_result", "id": call_id, "content": text,
                         "is_error": is_error})]
