"""``--update`` on real recordings (read from the shared corpus, ``$AGENTFORGE_CORPUS`` or
``../shared/corpus``; never copied here): the bytes it does not mean to change stay as the
recorder wrote them, error flags are written where the format keeps one, and a migration
renames the recorded calls and nothing else."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import ToolCall, ToolResult, open_transcript
from agentforge_cli.replay.transcripts.writing.migration import Migration

REPOSITORY = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("AGENTFORGE_CORPUS") or REPOSITORY.parent / "shared" / "corpus")
TAU2 = CORPUS / "tau2-telecom" / "2025-08-10T02-44-06_telecom_gpt-4o.json"

NO_SUCH_TOOLS = '''
from agentforge_cli import tool

@tool
def unrelated() -> str:
    """None of the recorded tools: every recorded call answers an error today."""
    return ""
'''


def _copy(source: Path, tmp_path: Path) -> Path:
    path = tmp_path / source.name
    shutil.copyfile(source, path)
    return path


def test_a_breaking_change_written_into_a_tau2_results_file(cli, write_module, tmp_path):
    """Every call fails today: the update writes each error with tau2's ``error`` flag,
    changes no other line (the file's 319 ``\\uXXXX`` escapes included), and the updated
    file replays all matched."""
    tools = write_module("no_such_tools", NO_SUCH_TOOLS)
    path = _copy(TAU2, tmp_path)
    before = path.read_text(encoding="utf-8").splitlines()
    done = cli("replay", str(path), "-t", str(tools), "--update")
    assert done.exit_code == 0, done.stderr
    assert "updated 215 recorded results in the transcript" in done.stdout
    assert "wrote 214 error results over a recorded success" in done.stderr
    after = path.read_text(encoding="utf-8").splitlines()
    assert len(after) == len(before)
    changed = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
    assert len(changed) == 215 + 214
    assert all(new.strip().startswith('"content": "Unknown tool') or
               (new.strip() == '"error": true,' and old.strip() == '"error": false,')
               for old, new in changed)
    assert sum(line.count("\\u") for line in after) == sum(
        line.count("\\u") for line in before) - sum(old.count("\\u") for old, _ in changed)
    again = cli("replay", str(path), "-t", str(tools), "--json")
    assert again.exit_code == 0, again.stdout[-500:]


def _undo_renamed_error(content: str, rule: dict[str, str]) -> str:
    """A recorded JSON-RPC error is worded as agentforge words a call's error, naming the
    call as it is recorded now; a result's own text is recorded as it was."""
    for old, new in rule.items():
        content = content.replace(f"Error executing tool {new}:", f"Error executing tool {old}:")
    return content


@pytest.mark.parametrize("recording", [
    "derived-openai-json/crewai-openai-final-request.messages.json",
    "derived-anthropic-json/crewai-anthropic-final-request.messages.json",
    "derived-gemini-json/crewai-gemini-final-request.contents.json",
    "derived-gemini-snake-json/llm-gemini-final-request.contents.json",
    "derived-gemini-pai-json/pai-google-retry-final-request.contents.json",
    "derived-responses-json/llm-dblookup-final.input-output.json",
    "mcp-time/mcp-server-time.session.jsonl",
    "tau2-telecom/2025-08-10T02-44-06_telecom_gpt-4o.json",
])
def test_renaming_every_tool_changes_only_the_names(recording, tmp_path):
    path = _copy(CORPUS / recording, tmp_path)
    before_text = path.read_text(encoding="utf-8")
    before = list(open_transcript(path).events())
    names = sorted({e.name for e in before if isinstance(e, ToolCall)})
    assert names
    rule = {name: f"{name}_v2" for name in names}
    assert not any(f'"{new}"' in before_text for new in rule.values())
    open_transcript(path).write({}, Migration(tools=rule))

    after_text = path.read_text(encoding="utf-8")
    undone = after_text
    for old, new in rule.items():
        undone = undone.replace(f'"{new}"', f'"{old}"')
    assert undone == before_text  # nothing but the names changed, byte for byte
    after = list(open_transcript(path).events())
    assert [(e.index, rule[e.name], e.arguments) for e in before if isinstance(e, ToolCall)] \
        == [(e.index, e.name, e.arguments) for e in after if isinstance(e, ToolCall)]
    assert [(e.call_index, e.content, e.is_error) for e in before if isinstance(e, ToolResult)] \
        == [(e.call_index, _undo_renamed_error(e.content, rule), e.is_error)
            for e in after if isinstance(e, ToolResult)]
