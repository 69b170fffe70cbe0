"""SWE-agent trajectories (``.traj``) read as transcripts: the corpus's real trajectory, one
in the shape SWE-agent writes, what is not replayable, and malformed ones refused naming
the family."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import AssistantMessage, ToolResult, open_transcript

REPOSITORY = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("AGENTFORGE_CORPUS") or REPOSITORY.parent / "shared" / "corpus")
TRAJ = CORPUS / "sweagent-traj" / "6e44b9__sweagenttestrepo-1c2844.traj"
TOOLS = REPOSITORY / "tests" / "corpus" / "tools" / "ol_sweagent.py"
CRM = "sample_tools.crm:CrmTools"
STATE = "\n(Open file: n/a)\n(Current directory: /repo)\nbash-$"


def message(role: str, content: str, kind: str, **more: object) -> dict[str, object]:
    return {"role": role, "content": content, "agent": "main", "message_type": kind, **more}


HISTORY = [
    message("system", "SETTING: You are an autonomous programmer.", "system_prompt"),
    message("user", "查一下客户长路", "observation"),
    message("user", "A demonstration.", "observation", is_demo=True),
    message("assistant", "Let me look.", "action", thought="Let me look.",
            action="queryCustomer 长路 5", tool_calls=[{
                "function": {"arguments": json.dumps({"name": "长路", "limit": 5},
                                                     ensure_ascii=False),
                             "name": "queryCustomer"},
                "id": "call_1", "type": "function"}]),
    message("tool", "customer:长路,limit:5", "observation", tool_call_ids=["call_1"])]


def trajectory(tmp_path: Path, history: list[object]) -> Path:
    path = tmp_path / "instance-1.traj"
    steps = [{"action": "queryCustomer 长路 5", "observation": "customer:长路,limit:5",
              "response": "Let me look.", "thought": "Let me look.", "state": {}}]
    path.write_text(json.dumps({"environment": "main", "trajectory": steps,
                                "history": history, "info": {"exit_status": "submitted"}},
                               indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def test_the_corpus_trajectory_replays_all_matched(cli):
    """Refused before this reader (no format read an object without "messages"); now its
    four commands run once each and match, observations and SWE-agent's state line alike."""
    done = cli("replay", str(TRAJ), "-t", f"{TOOLS}:SweAgentTools", "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "swe-agent"
    assert data["summary"] == {"matched": 4, "mismatched": 0, "unrecorded": 0}
    assert [c["name"] for c in data["calls"]] == ["find_file", "open", "edit", "bash"]


def test_a_trajectory_is_detected_and_replays_all_matched(cli, tmp_path):
    path = trajectory(tmp_path, HISTORY)
    transcript = open_transcript(path)
    assert transcript.format == "swe-agent"
    events = list(transcript.events())
    assert [type(e).__name__ for e in events] == [  # the system prompt kept, no demo
        "SystemPrompt", "UserMessage", "AssistantMessage", "ToolCall", "ToolResult"]
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["matched"] == 1


def test_a_folder_search_collects_traj_files(cli, tmp_path):
    trajectory(tmp_path, HISTORY)
    done = cli("replay", str(tmp_path), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    assert [f["format"] for f in json.loads(done.stdout)["files"]] == ["swe-agent"]


def test_an_observation_keeps_the_state_line_swe_agent_appends(tmp_path):
    path = trajectory(tmp_path, [*HISTORY[:4], {**HISTORY[4], "content": "found" + STATE}])
    results = [e for e in open_transcript(path).events() if isinstance(e, ToolResult)]
    assert [(r.id, r.content, r.is_error) for r in results] == [
        ("call_1", "found" + STATE, None)]


def test_a_command_given_only_as_text_is_shown_as_not_replayable(tmp_path):
    thought_action = message("assistant", "ls\n```\nls -a\n```", "action", action="ls -a")
    path = trajectory(tmp_path, [*HISTORY[:2], thought_action,
                                 message("user", "a.txt" + STATE, "observation")])
    events = list(open_transcript(path).events())
    said = [e.content for e in events if isinstance(e, AssistantMessage)]
    assert said[-1] == "(not replayable: a command SWE-agent ran in its shell: ls -a)"
    assert not [e for e in events if isinstance(e, ToolResult)]


def test_an_update_is_refused_saying_why(cli, tmp_path):
    path = trajectory(tmp_path, [*HISTORY[:4], {**HISTORY[4], "content": "stale"}])
    before = path.read_bytes()
    done = cli("replay", str(path), "-t", CRM, "--update")
    assert done.exit_code == 3
    assert "it keeps each observation twice" in " ".join(done.stderr.split())
    assert path.read_bytes() == before


@pytest.mark.parametrize(("change", "where", "reason"), [
    ({"tool_call_ids": "call_1"}, "history[4], tool_call_ids",
     '"tool_call_ids" must be a non-empty array of call ids'),
    ({"tool_call_ids": [7.5]}, "history[4], tool_call_ids[0]",
     '"tool_call_ids" must be a string, got 7.5'),
    ({"tool_call_ids": ["call_9"]}, "history[4]",
     "tool result for call id 'call_9', but no earlier call with that id is waiting")])
def test_a_malformed_trajectory_is_refused_naming_the_family(cli, tmp_path, change, where,
                                                             reason):
    path = trajectory(tmp_path, [*HISTORY[:4], {**HISTORY[4], **change}])
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 3
    said = " ".join(done.stderr.split())
    assert f"{path}, {where}: {reason}" in said, said
    assert said.endswith("(in a SWE-agent trajectory)")
    assert done.stdout == "" and "Traceback" not in done.stderr  # read through first
