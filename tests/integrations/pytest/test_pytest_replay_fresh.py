"""``pytest --agentforge-replay`` gives the same verdicts under ``-n 0`` and ``-n 2`` when
the target is a class or a factory: each transcript, and each conversation of a file of
several, replays on tools of its own. A module-level instance is shared by the
transcripts a process replays, as documented."""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[3]

STORE_TOOLS = '''
from agentforge_cli import tool


class Store:
    def __init__(self):
        self.items = []

    @tool
    def add(self, item: str) -> str:
        """Add an item and answer every item added so far."""
        self.items.append(item)
        return ",".join(self.items)


def make_store():
    return Store()


store = Store()
'''


def _plugin_args() -> list[str]:
    installed = any(ep.value == "agentforge_cli.integrations.pytest.plugin"
                    for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "agentforge_cli.integrations.pytest.plugin"]


def _calls(*items: tuple[str, str]) -> str:
    """agentforge JSONL: one ``add`` call per (item, recorded result)."""
    lines = []
    for number, (item, result) in enumerate(items):
        lines.append({"type": "tool_call", "id": f"c{number}", "name": "add",
                      "arguments": json.dumps({"item": item})})
        lines.append({"type": "tool_result", "id": f"c{number}", "content": result,
                      "is_error": False})
    return "".join(json.dumps(line) + "\n" for line in lines)


def _conversation(item: str) -> str:
    return json.dumps({"messages": [
        {"role": "user", "content": f"add {item}"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "add", "arguments": json.dumps({"item": item})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": item}]}) + "\n"


@pytest.fixture
def recordings(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Two transcripts and a file of two conversations, each recorded on an empty store."""
    monkeypatch.delenv("AGENTFORGE_TOOLS", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("PYTHONPATH", f"{pytester.path}{os.pathsep}{ROOT}")
    pytester.makepyfile(store_tools=STORE_TOOLS)
    folder = pytester.path / "recordings"
    folder.mkdir()
    (folder / "a.jsonl").write_text(_calls(("apple", "apple"), ("pear", "apple,pear")),
                                    encoding="utf-8")
    (folder / "b.jsonl").write_text(_calls(("plum", "plum")), encoding="utf-8")
    (folder / "c.jsonl").write_text(_conversation("fig") + _conversation("kiwi"),
                                    encoding="utf-8")
    return pytester


def _verdicts(pytester: pytest.Pytester, target: str, workers: str) -> dict[str, str]:
    """``nodeid -> outcome`` of every replay item."""
    report = pytester.path / f"report-{workers}.json"
    result = pytester.runpytest_subprocess(
        *_plugin_args(), "-p", "no:cacheprovider", "--agentforge-replay", "recordings",
        "--agentforge-tools", target, "-n", workers, "--junitxml", str(report))
    assert result.ret in (0, 1), result.stdout.str()
    import xml.etree.ElementTree as ElementTree

    verdicts = {}
    for case in ElementTree.parse(report).iter("testcase"):
        outcome = "failed" if case.find("failure") is not None else "passed"
        verdicts[f"{case.get('classname')}::{case.get('name')}"] = outcome
    return verdicts


@pytest.mark.parametrize("target", ["store_tools:Store", "store_tools:make_store()"])
def test_the_same_verdicts_in_one_process_and_on_two_workers(recordings, target):
    alone = _verdicts(recordings, target, "0")
    spread = _verdicts(recordings, target, "2")
    assert len(alone) == 5  # 2 + 1 calls, and 2 conversations of one call each
    assert set(alone.values()) == {"passed"}
    assert spread == alone


def test_a_module_level_instance_is_shared_by_the_process(recordings):
    alone = _verdicts(recordings, "store_tools:store", "0")
    failed = sorted(nodeid for nodeid, outcome in alone.items() if outcome == "failed")
    # a ran first on the empty store; b and both conversations of c saw what came before
    assert len(failed) == 3
    assert all("recordings.a" not in nodeid for nodeid in failed)
