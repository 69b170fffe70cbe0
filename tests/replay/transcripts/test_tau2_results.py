"""tau2-bench results files, in the shape tau2's data model writes them (``Results``:
``simulations`` of ``messages``; ``ToolCall`` with ``id``, ``name``, ``arguments``,
``requestor``; ``ToolMessage`` with ``id``, ``content``, ``requestor``, ``error``): one
conversation a simulation, each on tools of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import ConversationStart, TranscriptError, open_transcript


def simulation(sim_id: str, city: str, recorded: str) -> dict:
    call = {"id": f"call_{sim_id}", "name": "lookup", "arguments": {"city": city},
            "requestor": "assistant"}
    return {"id": sim_id, "task_id": sim_id, "trial": 0, "messages": [
        {"role": "assistant", "content": "Hi! How can I help?", "turn_idx": 0,
         "timestamp": "2026-01-01T00:00:00", "tool_calls": None},
        {"role": "user", "content": f"Is {city} there?", "turn_idx": 1, "tool_calls": None},
        {"role": "assistant", "content": None, "turn_idx": 2, "tool_calls": [call]},
        {"id": call["id"], "role": "tool", "content": recorded, "requestor": "assistant",
         "error": False, "turn_idx": 3},
        {"role": "assistant", "content": "Yes.", "turn_idx": 4, "tool_calls": None}]}


def results(path: Path, *sims: dict) -> Path:
    path.write_text(json.dumps({"timestamp": "2026-01-01T00:00:00", "info": {},
                                "tasks": [], "simulations": list(sims)}), encoding="utf-8")
    return path


def test_a_results_file_replays_a_conversation_a_simulation(cli, tmp_path, city_tools):
    path = results(tmp_path / "results.json", simulation("1", "Paris", "Paris: found"),
                   simulation("2", "Oslo", "Oslo: found"))
    events = list(open_transcript(path).events())
    assert sum(isinstance(e, ConversationStart) for e in events) == 2
    done = cli("replay", str(path), "-t", city_tools, "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "conversations" and data["summary"]["matched"] == 2


@pytest.mark.parametrize("form", ["document", "jsonl"])
def test_format_tau2_reads_what_auto_detection_reads(cli, tmp_path, city_tools, form):
    """--format tau2 on a results file (or on JSONL of tau2 conversations): every
    conversation read as tau2, the same report as auto-detection's."""
    sims = (simulation("1", "Paris", "Paris: found"), simulation("2", "Oslo", "Oslo: x"))
    if form == "document":
        path = results(tmp_path / "results.json", *sims)
    else:
        path = tmp_path / "sims.jsonl"
        path.write_text("".join(json.dumps(sim) + "\n" for sim in sims), encoding="utf-8")
    detected = cli("replay", str(path), "-t", city_tools, "--json")
    named = cli("replay", str(path), "-t", city_tools, "--json", "--format", "tau2")
    assert named.exit_code == detected.exit_code == 1, named.stderr
    assert _without_durations(named.stdout) == _without_durations(detected.stdout)
    data = json.loads(named.stdout)
    assert data["format"] == "conversations"
    assert data["summary"] == {"matched": 1, "mismatched": 1, "unrecorded": 0}


def test_a_format_named_reads_every_conversation_in_that_format(tmp_path):
    """Named, the format reads each conversation without detection: one it does not
    read is refused at its place, not read in another format."""
    sim = simulation("1", "Paris", "Paris: found")
    openai_sim = {"messages": [{"role": "assistant", "tool_calls": [{
        "id": "c1", "type": "function", "function": {"name": "lookup",
                                                     "arguments": '{"city": "Oslo"}'}}]}]}
    path = results(tmp_path / "results.json", sim, openai_sim)
    assert len([e for e in open_transcript(path).events()
                if type(e).__name__ == "ToolCall"]) == 2  # auto: each its own format
    with pytest.raises(TranscriptError, match=r"simulations\[1\], messages\[0\], "
                                              r"tool_calls\[0\]"):
        list(open_transcript(path, "tau2").events())


def _without_durations(text: str) -> dict:
    data = json.loads(text)
    for call in data["calls"]:
        call["duration_ms"] = 0
    return data


def test_update_writes_tau2_tool_messages(cli, tmp_path, city_tools):
    path = results(tmp_path / "results.json", simulation("1", "Paris", "Paris: gone"))
    assert cli("replay", str(path), "-t", city_tools, "--update").exit_code == 0
    tool = json.loads(path.read_text(encoding="utf-8"))["simulations"][0]["messages"][3]
    assert tool["content"] == "Paris: found" and tool["requestor"] == "assistant"
    assert cli("replay", str(path), "-t", city_tools).exit_code == 0


def test_a_result_for_no_call_is_named(tmp_path):
    sim = simulation("1", "Paris", "Paris: found")
    sim["messages"][3]["id"] = "call_nobody"
    with pytest.raises(TranscriptError, match=r"simulations\[0\], messages\[3\]: .*call_nobody"):
        list(open_transcript(results(tmp_path / "r.json", sim)).events())
