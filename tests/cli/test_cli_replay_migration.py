"""``replay --update`` after a rename: the drifted calls' next step names the command that
migrates them (``--rename-arg``, ``--rename-tool``, ``--drop-arg``), that command rewrites
the recorded calls and nothing else, and the transcript then replays all matched; and
where a format has no error flag, an error written over a success is said and counted."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

from agentforge_cli.cli.app import app

REPOSITORY = Path(__file__).resolve().parents[2]
TRANSCRIPTS = REPOSITORY / "sample_tools" / "transcripts"
CRM = "sample_tools.crm:CrmTools"

RENAMED_TOOLS = '''
from agentforge_cli import tool

RAN = []

@tool
def find(city: str, limit: int = 1) -> str:
    """Find a city (it was ``lookup(q)``)."""
    RAN.append(city)
    return f"{city}: found"
'''


def test_the_drift_names_the_command_that_migrates_the_recordings(cli, tmp_path):
    path = tmp_path / "crm_drift.jsonl"
    shutil.copy(TRANSCRIPTS / "crm_drift.jsonl", path)
    before = path.read_text(encoding="utf-8")
    drifted = cli("replay", str(path), "-t", CRM)
    assert drifted.exit_code == 1
    command = (f"agentforge replay {path} -t {CRM} --update "
               "--rename-arg queryCustomer.customer=name")
    assert drifted.stderr.endswith(
        f"next: if these arguments were renamed or removed, migrate the recordings:\n"
        f"  {command}\n")

    migrated = cli(*shlex.split(command)[1:])
    assert migrated.exit_code == 0, migrated.stderr
    assert "migrated 1 recorded call in the transcript" in migrated.stdout
    after = path.read_text(encoding="utf-8")
    assert after == before.replace('{\\"customer\\":\\"长路\\"', '{\\"name\\":\\"长路\\"')
    again = cli("replay", str(path), "-t", CRM, "--json")
    assert again.exit_code == 0
    assert json.loads(again.stdout)["summary"] == {"matched": 2, "mismatched": 0,
                                                   "unrecorded": 0}


def test_a_removed_argument_is_dropped_and_a_renamed_tool_renamed(cli, write_module,
                                                                 tmp_path):
    tools = write_module("renamed_tools", RENAMED_TOOLS)
    path = tmp_path / "gemini.json"  # no call ids: each response is paired by its name
    path.write_text(json.dumps({"contents": [
        {"role": "user", "parts": [{"text": "Paris?"}]},
        {"role": "model", "parts": [
            {"functionCall": {"name": "lookup", "args": {"city": "Paris", "verbose": True}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "lookup", "response": {"result": "Paris: found"}}}]},
    ]}, indent=2), encoding="utf-8")
    done = cli("replay", str(path), "-t", str(tools), "--update", "--json",
               "--rename-tool", "lookup=find", "--drop-arg", "find.verbose")
    assert done.exit_code == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["summary"]["matched"], report["migrated"], report["updated"]) == (1, 1, 0)
    contents = json.loads(path.read_text(encoding="utf-8"))["contents"]
    assert contents[1]["parts"][0] == {"functionCall": {"name": "find",
                                                        "args": {"city": "Paris"}}}
    assert contents[2]["parts"][0]["functionResponse"]["name"] == "find"
    assert cli("replay", str(path), "-t", str(tools)).exit_code == 0


def test_a_migration_needs_update_and_rules_that_read(cli, tmp_path):
    path = tmp_path / "crm_drift.jsonl"
    shutil.copy(TRANSCRIPTS / "crm_drift.jsonl", path)
    alone = cli("replay", str(path), "-t", CRM, "--rename-arg", "queryCustomer.customer=name")
    assert alone.exit_code == 2
    assert "error: --rename-arg rewrites the recorded calls: it needs --update" in alone.stderr
    bad = cli("replay", str(path), "-t", CRM, "--update", "--rename-arg", "customer=name")
    assert bad.exit_code == 2
    assert "--rename-arg takes TOOL.OLD=NEW (the tool, a dot, the argument)" in bad.stderr
    assert path.read_bytes() == (TRANSCRIPTS / "crm_drift.jsonl").read_bytes()


def test_a_format_that_cannot_write_its_calls_is_refused_before_any_call_runs(
        cli, write_module, tmp_path):
    tools = write_module("renamed_tools_b", RENAMED_TOOLS)
    session = tmp_path / "session.jsonl"  # a Claude Code session: another program's file
    session.write_text(json.dumps({
        "type": "assistant", "sessionId": "s", "uuid": "u1", "message": {
            "role": "assistant", "content": [{"type": "tool_use", "id": "t1",
                                              "name": "lookup", "input": {"city": "Oslo"}}]}})
        + "\n", encoding="utf-8")
    done = cli("replay", str(session), "-t", str(tools), "--update", "--rename-tool",
               "lookup=find")
    assert done.exit_code == 3
    assert "--update does not write into" in done.stderr
    assert "[act]" not in done.stdout  # nothing ran


def test_the_next_step_without_a_known_command_line_names_the_options():
    from agentforge_cli.cli.replay_writers import migration_step

    remedies = [("--rename-arg", "find.q=query"), ("--drop-arg", "find.x y")]
    assert migration_step(remedies, None).endswith(
        "add --update --rename-arg find.q=query --drop-arg 'find.x y' to the command")
    assert migration_step(remedies, ("replay", "t.json", "--update")).endswith(
        "agentforge replay t.json --update --rename-arg find.q=query --drop-arg 'find.x y'")


BROKEN_CITY = '''
from agentforge_cli import tool

@tool
def lookup(city: str) -> str:
    """Look a city up."""
    raise RuntimeError("the atlas is gone")
'''


def test_an_error_written_where_the_format_has_no_flag_is_said_and_counted(
        cli, write_module, tmp_path):
    tools = write_module("broken_city", BROKEN_CITY)
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": [
        {"role": "user", "content": "Oslo?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "lookup", "arguments": '{"city": "Oslo"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Oslo: found"}]}), encoding="utf-8")
    done = cli("replay", str(path), "-t", str(tools), "--update")
    assert done.exit_code == 0
    assert ("warning: --update wrote 1 error result over a recorded success in "
            f"{path}, and its format has no error flag: the transcript now records it as "
            "a success:\n  c1 lookup: ") in done.stderr
    assert ("1 error result written as a plain result (the format has no error flag)"
            in done.stdout)
    report = cli("replay", str(path), "-t", str(tools), "--update", "--json")
    assert json.loads(report.stdout)["errors_unmarked"] == 0  # nothing differs any more


def test_the_command_line_is_kept_as_given(tmp_path):
    from typer.testing import CliRunner

    path = tmp_path / "crm_drift.jsonl"
    shutil.copy(TRANSCRIPTS / "crm_drift.jsonl", path)
    done = CliRunner().invoke(app, ["replay", str(path), "--debug", "-t", CRM])
    assert (f"migrate the recordings:\n  agentforge replay {path} --debug -t {CRM} "
            "--update --rename-arg queryCustomer.customer=name") in done.stderr
