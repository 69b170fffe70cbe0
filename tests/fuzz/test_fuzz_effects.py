"""The fuzz effect guard: a fuzzed call may not write outside the temporary directory,
reach another host than loopback or start a process; what it tried is reported as a
blocked effect, not as a crash, and fails nothing.

The command runs as a subprocess with ``TMPDIR`` pointing at a directory of the test, so
that the working directory and the reports' directory are outside the temporary
directory; the guard itself is also driven directly, in this process.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fuzz_support import ROOT

from agentforge_cli.errors import BlockedEffectError

AGENTFORGE = str(Path(sys.executable).parent / "agentforge")
TOOLS = Path(__file__).resolve().parent / "effect_tools.py"
NOWHERE = Path("/nonexistent-agentforge-test-dir")
"""Outside the temporary directory, and missing: an unguarded write there fails."""


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """``tools`` (effect_tools.py and its lazily imported helper), ``work`` (the working
    directory), ``temp`` (the run's TMPDIR) and ``reports``: four directories side by side."""
    places = {name: tmp_path / name for name in ("tools", "work", "temp", "reports")}
    for place in places.values():
        place.mkdir()
    shutil.copy(TOOLS, places["tools"] / "effect_tools.py")
    (places["tools"] / "lazy_helper.py").write_text("VALUE = 7\n", encoding="utf-8")
    return places


def fuzz(world: dict[str, Path], *options: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("HYPOTHESIS_STORAGE_DIRECTORY", "PYTHONDONTWRITEBYTECODE",
                          "AGENTFORGE_TOOLS")}
    env.update(PYTHONPATH=str(ROOT), TMPDIR=str(world["temp"]))
    return subprocess.run([AGENTFORGE, "tools", "fuzz", str(world["tools"] / "effect_tools.py"),
                           "--examples", "10", "--seed", "1", *options], cwd=world["work"],
                          env=env, capture_output=True, text=True, timeout=180)


def tools_of(done: subprocess.CompletedProcess[str]) -> dict[str, dict]:
    return {tool["name"]: tool for tool in json.loads(done.stdout)["tools"]}


# ---------------------------------------------------------------- the command


def test_effects_are_blocked_and_reported_as_such_not_as_failures(world):
    done = fuzz(world, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
    tools = tools_of(done)
    work = world["work"].resolve()
    expected = {"save_note": f"open('{work / 'note.txt'}', 'w')",
                "save_quietly": f"open('{work / 'quiet.txt'}', 'w')",  # it caught the error
                "save_later": f"open('{work / 'later.txt'}', 'w')",  # async: another thread
                "ping": "connect to 192.0.2.1:80",
                "run_true": "start a process: true",
                "append_log": f"open('{work / 'log.txt'}', 'a')"}
    for name, effect in expected.items():
        tool = tools[name]
        assert tool["guarded"] is True, name
        assert tool["counts"]["blocked effect"] == tool["examples"] == 10, (name, tool)
        assert tool["failures"] == [] and tool["failed"] is False, name
        assert [call["effect"] for call in tool["blocked"]] == [effect], name
        assert tool["blocked"][0]["arguments"].startswith("{"), name
    for name in ("scratch", "lazy"):  # under the temporary directory; a bytecode cache
        assert tools[name]["counts"]["ok"] == 10 and tools[name]["blocked"] == [], name
    assert list(world["work"].iterdir()) == []  # no note, no log, no .hypothesis/
    assert list((world["tools"] / "__pycache__").glob("lazy_helper.*.pyc"))
    assert "warning: the effect guard stopped 10 of the 10 calls of save_note" in done.stderr


def test_the_text_and_junit_reports_list_the_blocked_effects(world):
    report = world["reports"] / "fuzz.xml"  # written by the harness, outside the guard
    done = fuzz(world, "--tool", "ping", "--tool", "run_true", "--tool", "scratch",
                "--junit", str(report))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "✓ ping: 10 calls (10 blocked effect)",
        "  blocked effect: connect to 192.0.2.1:80",
        '    arguments (clean): {"n":0}',
        "✓ run_true: 10 calls (10 blocked effect)",
        "  blocked effect: start a process: true",
        '    arguments (clean): {"n":0}',
        "✓ scratch: 10 calls (10 ok)",
        "✓ fuzz found no problem in 3 tools (seed 1)",
    ]
    suite = ET.parse(report).getroot().find("testsuite")
    assert (suite.get("failures"), suite.get("skipped")) == ("0", "0")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert cases["ping"].find("failure") is None
    assert cases["ping"].find("system-out").text.splitlines() == [
        "10 calls stopped by the effect guard", "blocked effect: connect to 192.0.2.1:80",
        '  arguments (clean): {"n":0}']
    assert cases["scratch"].find("system-out") is None


def test_allow_effects_lets_the_calls_run(world):
    done = fuzz(world, "--tool", "save_note", "--tool", "run_true", "--json",
                "--allow-effects")
    assert done.returncode == 0, done.stderr
    assert "effects allowed" in done.stderr.splitlines()[0]
    tools = tools_of(done)
    for name in ("save_note", "run_true"):
        assert tools[name]["counts"]["ok"] == 10 and tools[name]["blocked"] == [], name
        assert tools[name]["guarded"] is False
    assert (world["work"] / "note.txt").exists()


def test_a_tool_declaring_effects_runs_unguarded_only_with_include_destructive(world):
    guarded = tools_of(fuzz(world, "--tool", "append_log", "--json"))["append_log"]
    assert guarded["counts"]["blocked effect"] == 10
    assert not (world["work"] / "log.txt").exists()
    done = fuzz(world, "--tool", "append_log", "--json", "--include-destructive")
    assert done.returncode == 0, done.stderr
    assert tools_of(done)["append_log"]["counts"]["ok"] == 10
    assert "effects allowed for append_log: it declares effects (readOnlyHint: false" in (
        done.stderr)
    assert len((world["work"] / "log.txt").read_text(encoding="utf-8").splitlines()) >= 10


# ---------------------------------------------------------------- the guard itself


def test_a_blocked_connection_sends_nothing():
    from agentforge_cli.fuzz.effects import guarding

    with guarding("ping") as attempts:
        with socket.socket() as tcp:
            with pytest.raises(BlockedEffectError) as info:
                tcp.connect(("192.0.2.1", 80))
            # never bound: connect() never reached the kernel, so no SYN left
            assert tcp.getsockname() == ("0.0.0.0", 0)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            with pytest.raises(BlockedEffectError):
                udp.sendto(b"x", ("192.0.2.1", 53))
            assert udp.getsockname() == ("0.0.0.0", 0)
        with pytest.raises(BlockedEffectError):
            socket.getaddrinfo("example.com", 80)  # the name would go to a DNS server
    assert attempts == ["connect to 192.0.2.1:80", "send to 192.0.2.1:53",
                        "look up the host name 'example.com'"]
    assert info.value.tool == "ping" and info.value.effect == "connect to 192.0.2.1:80"
    assert isinstance(info.value, PermissionError)
    message = str(info.value)
    assert message.startswith('fuzzing blocked an effect of tool "ping": connect to '
                              "192.0.2.1:80 (a fuzzed call may write files only under ")
    assert "--allow-effects" in message


def test_loopback_is_allowed():
    from agentforge_cli.fuzz.effects import guarding

    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with guarding("local") as attempts:
            assert socket.getaddrinfo("localhost", port)
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                pass
    assert attempts == []


@pytest.mark.parametrize(("effect", "expected"), [
    (lambda: open(NOWHERE / "f.txt", "w"), f"open('{NOWHERE}/f.txt', 'w')"),  # noqa: SIM115
    (lambda: os.open(NOWHERE / "f", os.O_WRONLY | os.O_CREAT),
     f"os.open('{NOWHERE}/f', O_WRONLY|O_CREAT)"),
    (lambda: os.mkdir(NOWHERE), f"mkdir('{NOWHERE}')"),
    (lambda: os.remove(NOWHERE / "f"), f"remove('{NOWHERE}/f')"),
    (lambda: os.rename(NOWHERE / "a", NOWHERE / "b"), f"rename('{NOWHERE}/a', '{NOWHERE}/b')"),
    (lambda: shutil.rmtree(NOWHERE), f"rmtree('{NOWHERE}')"),
    (lambda: sqlite3.connect(NOWHERE / "x.db"), f"sqlite3.connect('{NOWHERE}/x.db')"),
    (lambda: os.system("true"), "start a process: true"),
    (lambda: subprocess.run(["ls", "-l"]), "start a process: ls -l"),
])
def test_each_effect_is_refused_before_it_happens_and_named(effect, expected):
    from agentforge_cli.fuzz.effects import guarding

    with guarding("tool") as attempts, pytest.raises(BlockedEffectError):
        effect()
    assert attempts == [expected]


def test_reading_and_the_temporary_directory_are_allowed(tmp_path):
    from agentforge_cli.fuzz.effects import guarding, temporary_directory

    assert str(tmp_path.resolve()).startswith(temporary_directory())
    with guarding("tool") as attempts:
        assert (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        (tmp_path / "tree").mkdir()
        (tmp_path / "tree" / "a.txt").write_text("a", encoding="utf-8")
        os.replace(tmp_path / "tree" / "a.txt", tmp_path / "tree" / "b.txt")
        shutil.rmtree(tmp_path / "tree")  # removes by directory descriptor
        with open(os.devnull, "w") as sink:
            sink.write("x")
        sqlite3.connect(":memory:").close()
        sqlite3.connect(tmp_path / "x.db").close()
    assert attempts == []


def test_a_tool_that_catches_the_refusal_is_still_recorded():
    from agentforge_cli.fuzz.effects import guarding

    with guarding("quiet") as attempts:
        try:
            with open(NOWHERE / "f.txt", "w"):
                pass
        except OSError:
            pass
    assert attempts == [f"open('{NOWHERE}/f.txt', 'w')"]


def test_every_thread_is_held_while_a_call_runs_and_none_after():
    from agentforge_cli.fuzz.effects import guarding

    failures: list[BaseException] = []

    def start() -> None:
        try:
            subprocess.run(["true"], check=True)
        except BaseException as exc:
            failures.append(exc)

    with guarding("threads") as attempts:
        thread = threading.Thread(target=start)
        thread.start()
        thread.join()
    assert [type(exc) for exc in failures] == [BlockedEffectError]
    assert attempts == ["start a process: true"]
    assert subprocess.run(["true"]).returncode == 0  # outside a block: nothing is held
    assert attempts == ["start a process: true"]
