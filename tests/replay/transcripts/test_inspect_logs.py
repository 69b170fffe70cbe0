"""Inspect AI eval logs as transcripts: a log written by Inspect itself (its ``mockllm``
model calling the task's tool, offline), one conversation a sample; an ``.eval`` archive
read sample by sample; a malformed sample named."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import (
    ConversationStart,
    ToolCall,
    TranscriptError,
    open_transcript,
)

MAKE_LOG = '''
import sys
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool

@tool
def lookup():
    async def execute(city: str) -> str:
        """Look a city up.

        Args:
            city: The city.
        """
        return f"{city}: found"

    return execute

outputs = []
for city in ("Paris", "Oslo"):
    outputs += [ModelOutput.for_tool_call(model="mockllm/model", tool_name="lookup",
                                          tool_arguments={"city": city}),
                ModelOutput.from_content(model="mockllm/model", content="found")]
for output in outputs:  # so that mockllm counts no tokens (it would fetch an encoding)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
task = Task(dataset=[Sample(input="Paris?", target="found"),
                     Sample(input="Oslo?", target="found")],
            solver=[use_tools(lookup()), generate()], scorer=includes())
[log] = eval(task, model=get_model("mockllm/model", custom_outputs=outputs),
             log_dir=sys.argv[1], log_format=sys.argv[2], display="none", max_samples=1)
assert log.status == "success", log.error
print(log.location)
'''


def inspect_log(folder: Path, log_format: str = "json") -> Path:
    """An Inspect eval of two samples, each calling ``lookup`` once, logged by Inspect (in
    a process of its own: Inspect leaves asyncio streams for the garbage collector)."""
    done = subprocess.run([sys.executable, "-c", MAKE_LOG, str(folder), log_format],
                          capture_output=True, text=True, timeout=120, check=True)
    return Path(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inspect")
    return {"json": inspect_log(folder), "eval": inspect_log(folder, "eval")}


def test_an_inspect_log_replays_all_matched_a_conversation_a_sample(cli, logs, city_tools):
    events = list(open_transcript(logs["json"]).events())
    assert sum(isinstance(e, ConversationStart) for e in events) == 1
    assert sorted(json.loads(e.arguments)["city"] for e in events
                  if isinstance(e, ToolCall)) == ["Oslo", "Paris"]
    done = cli("replay", str(logs["json"]), "-t", city_tools, "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "inspect" and data["summary"]["matched"] == 2


def test_an_eval_archive_reads_as_its_json_log(cli, logs, city_tools):
    done = cli("replay", str(logs["eval"]), "-t", city_tools, "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "inspect" and data["summary"]["matched"] == 2
    assert data["calls"][0]["where"].startswith("samples/1_epoch_1.json")


def test_a_folder_holding_an_eval_archive_replays_it(cli, logs, city_tools, tmp_path):
    """A folder is searched for the files the registered formats read: the ``.eval``
    archive is found (an ``.eval`` that is no archive is left alone)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(logs["eval"], folder / "run.eval")
    (folder / "notes.eval").write_text("not an archive", encoding="utf-8")
    done = cli("replay", str(folder), "-t", city_tools, "--json")
    assert done.exit_code == 0, done.stderr
    files = json.loads(done.stdout)["files"]
    assert [(Path(f["transcript"]).name, f["format"]) for f in files] == [("run.eval",
                                                                            "inspect")]
    assert files[0]["summary"]["matched"] == 2


def test_without_zstandard_an_eval_archive_says_what_to_do(cli, logs, city_tools,
                                                           monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard fails
    done = cli("replay", str(logs["eval"]), "-t", city_tools)
    assert done.exit_code == 3
    flat = " ".join(done.stderr.split())
    assert "pip install zstandard" in flat and "inspect log convert --to json" in flat
    assert "no tool calls" not in done.stderr


def test_a_sample_without_messages_is_named(tmp_path, logs):
    data = json.loads(logs["json"].read_text(encoding="utf-8"))
    del data["samples"][1]["messages"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TranscriptError, match=r'samples\[1\]: a sample needs a "messages" '
                                              "list"):
        list(open_transcript(path).events())


def test_update_is_refused(cli, tmp_path, logs, city_tools):
    text = logs["json"].read_text(encoding="utf-8").replace("Paris: found", "Paris: gone")
    path = tmp_path / "changed.json"
    path.write_text(text, encoding="utf-8")
    done = cli("replay", str(path), "-t", city_tools, "--update")
    assert done.exit_code == 3 and "--update does not write into an Inspect log" in (
        done.stderr)
