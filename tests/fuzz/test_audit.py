"""``agentforge tools audit``: annotations checked against what the tools do.

audit_tools.py holds tools with known effects, each (but two) claiming to be harmless.
The command runs as a subprocess in a working directory of the test, with a loopback HTTP
server the test starts; the observe mode of the effect guard is also driven directly.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fuzz_support import ROOT

from agentforge_cli import build_local_tools
from agentforge_cli.core.declare.decorator import tool_meta
from agentforge_cli.errors import BlockedEffectError
from agentforge_cli.fuzz.effects import guarding
from agentforge_cli.fuzz.observe import Effect, EffectKind, Observation
from agentforge_cli.fuzz.sandbox import sandboxed

HERE = Path(__file__).resolve().parent
TOOLS = HERE / "audit_tools.py"
AGENTFORGE = Path(sys.executable).with_name("agentforge")
MAIN = ("import sys; from agentforge_cli.cli.app import main; sys.argv[0] = 'agentforge'; "
        "main()")


class _Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"pong")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    """A loopback HTTP server answering ``pong``."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, port: int) -> dict[str, Path]:
    """``work`` (the working directory), ``home`` and ``read`` (a file peek reads, next to
    which escape tries to write)."""
    base = tmp_path_factory.mktemp("audit")
    places = {"work": base / "work", "home": base / "home", "read": base / "data" / "in.txt"}
    for name in ("work", "home"):
        places[name].mkdir()
    places["read"].parent.mkdir()
    places["read"].write_text("hello", encoding="utf-8")
    return places


def audit(world: dict[str, Path], port: int, *options: str, summary: Path | None = None
          ) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "GITHUB_STEP_SUMMARY")}
    if summary is not None:
        env["GITHUB_STEP_SUMMARY"] = str(summary)
    env.update(PYTHONPATH=str(ROOT), HOME=str(world["home"]), AUDIT_PORT=str(port),
               AUDIT_READ=str(world["read"]))
    return subprocess.run([sys.executable, "-c", MAIN, "tools", "audit", *options],
                          cwd=world["work"], env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def audited(world: dict[str, Path], port: int) -> dict:
    """The --json document of the whole module (5 examples, seed 1) and its exit code."""
    done = audit(world, port, str(TOOLS), "--examples", "5", "--seed", "1", "--json")
    document = json.loads(done.stdout)
    document["exit"], document["stderr"] = done.returncode, done.stderr
    return document


def tool_row(document: dict, name: str) -> dict:
    return next(row for row in document["tools"] if row["name"] == name)


def messages(document: dict, name: str) -> list[tuple[str, str, str]]:
    prefix = f'tool "{name}": '
    return [(f["level"], f["rule"], f["message"].removeprefix(prefix))
            for f in document["findings"] if f["tool"] == name]


def effects(document: dict, name: str) -> list[str]:
    return [effect["effect"] for effect in tool_row(document, name)["effects"]]


# ---------------------------------------------------------------- each kind of effect


def test_a_tool_writing_a_file_is_not_read_only_and_overwrites_on_the_repeat(audited):
    assert effects(audited, "save_state") == ["wrote <sandbox>/state.json",
                                              "overwrote <sandbox>/state.json"]
    assert tool_row(audited, "save_state")["inferred"] == {
        "readOnlyHint": False, "destructiveHint": True, "idempotentHint": True,
        "openWorldHint": False}
    found = messages(audited, "save_state")
    assert [(level, rule) for level, rule, _ in found] == [
        ("error", "annotation-contradicted")] * 2
    assert found[0][2].startswith("declared readOnlyHint: true but wrote "
                                  "<sandbox>/state.json; overwrote <sandbox>/state.json; "
                                  "declare readOnlyHint: false or change the tool")
    assert found[1][2].startswith("declared destructiveHint: false but overwrote "
                                  "<sandbox>/state.json; declare destructiveHint: true")


def test_a_tool_deleting_a_file_is_destructive(audited):
    assert effects(audited, "forget") == ["tried to delete <sandbox>/cache.db (missing)"]
    assert tool_row(audited, "forget")["inferred"]["destructiveHint"] is True
    assert [m for _, _, m in messages(audited, "forget")][1].startswith(
        "declared destructiveHint: false but tried to delete <sandbox>/cache.db (missing)")


def test_a_tool_calling_a_loopback_server_is_closed_world_and_read_only(audited, port):
    row = tool_row(audited, "fetch_local")
    assert row["effects"] == [{"kind": "loopback", "effect": f"connected to 127.0.0.1:{port}",
                               "blocked": False}]
    assert row["reached"] == 2 * row["examples"] == 10  # each call got its answer
    assert row["inferred"] == {"readOnlyHint": True, "openWorldHint": False}
    assert messages(audited, "fetch_local") == []


def test_a_tool_reaching_another_host_is_blocked_and_open_world(audited):
    row = tool_row(audited, "ping")
    assert row["effects"] == [{"kind": "network", "blocked": True,
                               "effect": "tried to connect to 192.0.2.1:80 (blocked)"}]
    assert row["inferred"]["openWorldHint"] is True
    assert [(level, m.split(";")[0]) for level, _, m in messages(audited, "ping")] == [
        ("error", "declared openWorldHint: false but tried to connect to 192.0.2.1:80 "
                  "(blocked)")]


def test_a_pure_tool_is_clean(audited):
    row = tool_row(audited, "add")
    assert row["effects"] == [] and row["idempotent_evidence"] is None
    assert row["inferred"] == {"readOnlyHint": True, "openWorldHint": False}
    assert messages(audited, "add") == []


def test_a_tool_appending_to_a_file_is_not_idempotent(audited):
    row = tool_row(audited, "log_line")
    assert effects(audited, "log_line") == ["appended to <sandbox>/log.txt"]
    assert row["inferred"] == {"readOnlyHint": False, "destructiveHint": False,
                               "idempotentHint": False, "openWorldHint": False}
    assert row["idempotent_evidence"] == "a second identical call changed <sandbox>/log.txt"
    assert [(level, m.split(";")[0]) for level, _, m in messages(audited, "log_line")] == [
        ("error", "declared readOnlyHint: true but appended to <sandbox>/log.txt"),
        ("warning", "declared idempotentHint: true but a second identical call changed "
                    "<sandbox>/log.txt")]


def test_a_tool_that_only_reads_a_file_is_clean(audited):
    row = tool_row(audited, "peek")
    assert row["effects"] == [] and row["reached"] == 10
    assert messages(audited, "peek") == []


def test_a_write_outside_the_sandbox_is_blocked_and_counts(audited, world):
    target = world["read"].with_name("escaped.txt")
    assert effects(audited, "escape") == [f"tried to open('{target}', 'w') (blocked)"]
    assert not target.exists()
    assert messages(audited, "escape")[0][2].startswith(
        f"declared readOnlyHint: true but tried to open('{target}', 'w') (blocked)")


def test_contradictory_and_missing_annotations(audited):
    assert messages(audited, "confused") == [
        ("error", "annotations-inconsistent", "declared readOnlyHint: true and "
         "destructiveHint: true; a read-only tool cannot be destructive: drop one of them")]
    assert messages(audited, "undeclared") == [
        ("info", "annotations-missing", 'no annotations; from what it did on 5 examples, '
         'declare @tool(annotations={"readOnlyHint": false, "destructiveHint": true, '
         '"idempotentHint": true, "openWorldHint": false})')]


def test_the_run_fails_and_leaves_the_world_as_it_was(audited, world):
    assert audited["exit"] == 1 and audited["ok"] is False
    assert audited["summary"] == {"breaking": 0, "error": 8, "warning": 1, "info": 1}
    assert sorted(p.name for p in world["work"].iterdir()) == []
    assert sorted(p.name for p in world["home"].iterdir()) == []
    assert "auditing 10 tools: 5 examples each, seed 1, timeout 5 s" in audited["stderr"]
    assert ("- log_line: 5 examples, not read-only, not destructive, not idempotent, "
            "closed-world") in audited["stderr"]


def test_harmless_tools_pass_and_the_table_names_the_evidence(world, port, tmp_path):
    done = audit(world, port, str(TOOLS), "--tool", "add", "--tool", "peek",
                 "--tool", "fetch_local", "--examples", "3", "--seed", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "✓ audit passed: no findings\n  3 tools"
    summary = tmp_path / "summary.md"
    done = audit(world, port, str(TOOLS), "--tool", "log_line", "--examples", "2",
                 summary=summary)
    assert done.returncode == 1
    assert "declared readOnlyHint: true but appended to" in done.stdout
    assert "✗ audit failed: 1 error, 1 warning" in done.stdout
    job = summary.read_text(encoding="utf-8")  # the GitHub job summary: the error listed
    assert job.startswith("### ❌ `agentforge tools audit`")
    assert "| error | log\\_line |  | annotation-contradicted |" in job


def test_recorded_calls_are_run(world, port, tmp_path):
    transcript = tmp_path / "calls.jsonl"
    transcript.write_text(
        '{"type":"tool_call","id":"c1","name":"save_state","arguments":"{\\"text\\":\\"x\\"}"}\n'
        '{"type":"tool_result","id":"c1","content":"saved","is_error":false}\n',
        encoding="utf-8")
    done = audit(world, port, str(TOOLS), "--tool", "save_state", "--examples", "0",
                 "--calls", str(transcript), "--json")
    row = json.loads(done.stdout)["tools"][0]
    assert (row["examples"], row["reached"]) == (1, 2)
    assert row["effects"][0]["effect"] == "wrote <sandbox>/state.json"


def test_bad_input_is_refused(world, port, tmp_path):
    missing = tmp_path / "missing.jsonl"
    done = audit(world, port, str(TOOLS), "--calls", str(missing))
    assert done.returncode == 3 and f"cannot read the calls of {missing}" in done.stderr
    done = audit(world, port, str(TOOLS), "--examples", "-1")
    assert done.returncode == 2 and "--examples must be 0 or more, got -1" in done.stderr
    done = audit(world, port, str(TOOLS), "--tool", "nope")
    assert done.returncode == 2 and "nope" in done.stderr
    assert done.stdout == ""


def test_a_tool_whose_every_input_is_refused_was_not_exercised(world, port, tmp_path):
    transcript = tmp_path / "bad.jsonl"
    transcript.write_text('{"type":"tool_call","id":"c1","name":"add","arguments":"{}"}\n',
                          encoding="utf-8")
    done = audit(world, port, str(TOOLS), "--tool", "add", "--examples", "0",
                 "--calls", str(transcript), "--json", "--fail-on", "warning")
    document = json.loads(done.stdout)
    assert done.returncode == 1
    assert [(f["level"], f["rule"], f["message"]) for f in document["findings"]] == [
        ("warning", "audit-not-exercised", 'tool "add": none of its 1 example got past '
         "argument binding, so nothing it does was seen; give it recorded calls (--calls) "
         "that reach its code")]
    done = audit(world, port, str(TOOLS), "--tool", "peek", "--examples", "0", "--json")
    assert done.returncode == 0  # a warning, and the run fails on errors
    assert [f["message"] for f in json.loads(done.stdout)["findings"]] == [
        'tool "peek": it had no example to run, so nothing it does was seen; give it '
        "recorded calls (--calls) that reach its code"]


def test_a_fastmcp_servers_annotations_are_checked_against_its_tools(world, port):
    done = audit(world, port, f"{HERE / 'audit_fastmcp_tools.py'}:server", "--examples", "3",
                 "--seed", "1", "--json")
    document = json.loads(done.stdout)
    assert done.returncode == 1, done.stderr
    assert [(f["tool"], f["level"], f["message"].split(";")[0]) for f in document["findings"]
            ] == [("remember", "error", 'tool "remember": declared readOnlyHint: true but '
                                        "appended to <sandbox>/facts.txt")]
    assert tool_row(document, "echo")["effects"] == []
    assert list(world["work"].iterdir()) == []


# ---------------------------------------------------------------- MCP servers


def test_an_mcp_server_is_checked_by_its_annotations_only(world, port):
    served = f"mcp:{AGENTFORGE} serve {TOOLS}"
    done = audit(world, port, served, "--json", "--examples", "3")
    document = json.loads(done.stdout)
    assert done.returncode == 1, done.stderr
    assert document["tools"] == []  # none is run
    assert [(f["tool"], f["level"], f["rule"]) for f in document["findings"]] == [
        ("confused", "error", "annotations-inconsistent"),
        ("undeclared", "info", "annotations-missing")]
    assert "- save_state: not run (an MCP tool runs in its server's process)" in done.stderr


def test_serve_exports_the_four_annotations(world, port):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", MAIN, "tools", "list", "--format", "json",
                           f"mcp:{AGENTFORGE} serve {TOOLS}"], capture_output=True,
                          text=True, env=env, timeout=120, cwd=world["work"])
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["save_state"]["annotations"] == {
        "readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
        "openWorldHint": False}
    assert "annotations" not in rows["undeclared"]


def test_tool_accepts_the_four_annotations():
    import audit_tools

    claims = audit_tools.CLAIMS
    meta = tool_meta(audit_tools.save_state)
    assert meta is not None and meta.annotations == claims
    spec = next(s for s in build_local_tools([audit_tools]) if s.name == "save_state")
    assert spec.annotations == claims


# ---------------------------------------------------------------- the guard, observing


def test_observe_mode_lets_the_sandbox_change_and_blocks_the_rest_of_temp(tmp_path):
    outside = tmp_path / "outside.txt"  # under the temporary directory, not the sandbox
    with sandboxed() as directory:
        assert os.getcwd() == directory == os.environ["HOME"] == os.environ["TMPDIR"]
        observation = Observation(sandbox=directory)
        with guarding("t", sandbox=directory, observer=observation) as attempts:
            Path("a.txt").write_text("1", encoding="utf-8")
            Path("a.txt").write_text("2", encoding="utf-8")
            os.remove("a.txt")
            with pytest.raises(BlockedEffectError, match="the audit blocked an effect"):
                outside.write_text("x", encoding="utf-8")
            with pytest.raises(BlockedEffectError):
                subprocess.run(["true"], check=False)
        assert attempts == [f"open('{outside}', 'w')", "start a process: true"]
    assert not outside.exists() and not Path(directory).exists()
    assert observation.effects == [
        Effect(kind=EffectKind.WRITE, text="wrote <sandbox>/a.txt"),
        Effect(kind=EffectKind.OVERWRITE, text="overwrote <sandbox>/a.txt"),
        Effect(kind=EffectKind.DELETE, text="deleted <sandbox>/a.txt"),
        Effect(kind=EffectKind.WRITE, text=f"tried to open('{outside}', 'w') (blocked)",
               blocked=True),
        Effect(kind=EffectKind.PROCESS, text="tried to start a process: true (blocked)",
               blocked=True)]


def test_fuzz_mode_is_unchanged_by_observers(tmp_path):
    inside = tmp_path / "ok.txt"
    with guarding("t") as attempts:
        inside.write_text("x", encoding="utf-8")
    assert attempts == [] and inside.exists()
