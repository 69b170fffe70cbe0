"""``pytest --agentforge-replay -n 2``: under xdist's default ``--dist load`` each
transcript's calls stay on one worker, so no call is replayed twice."""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from agentforge_cli.integrations.pytest.replay_items import transcript_scope

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[3]
TRANSCRIPTS, CALLS = 4, 3

COUNTING_TOOLS = '''
import os

from agentforge_cli import tool


@tool(name="queryCustomer")
def query_customer(name: str, limit: int) -> str:
    """Look a customer up, logging which worker ran the call."""
    with open(os.environ["CALL_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{os.environ.get('PYTEST_XDIST_WORKER')} {name} {limit}\\n")
    return f"customer:{name},limit:{limit}"
'''


def _plugin_args() -> list[str]:
    installed = any(ep.value == "agentforge_cli.integrations.pytest.plugin"
                    for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "agentforge_cli.integrations.pytest.plugin"]


def _transcript(number: int) -> str:
    lines = [{"type": "user", "content": f"look up customers of session {number}"}]
    for call in range(CALLS):
        call_id = f"call_{call}"
        lines.append({"type": "tool_call", "id": call_id, "name": "queryCustomer",
                      "arguments": json.dumps({"name": f"s{number}", "limit": call})})
        lines.append({"type": "tool_result", "id": call_id,
                      "content": f"customer:s{number},limit:{call}", "is_error": False})
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.fixture
def session(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Four transcripts of three calls of a tool that logs the worker running each call."""
    monkeypatch.delenv("AGENTFORGE_TOOLS", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("PYTHONPATH", f"{pytester.path}{os.pathsep}{ROOT}")
    monkeypatch.setenv("CALL_LOG", str(pytester.path / "calls.log"))
    pytester.makepyfile(counting_tools=COUNTING_TOOLS, test_plain="def test_plain():\n"
                                                                  "    pass\n")
    recordings = pytester.path / "recordings"
    recordings.mkdir()
    for number in range(TRANSCRIPTS):
        (recordings / f"session_{number}.jsonl").write_text(_transcript(number),
                                                            encoding="utf-8")
    pytester.makeini("[pytest]\nagentforge_tools = counting_tools\n")
    return pytester


def _workers_per_transcript(log: Path) -> dict[str, list[str]]:
    runs: dict[str, list[str]] = defaultdict(list)
    for line in log.read_text(encoding="utf-8").splitlines():
        worker, transcript, _ = line.split()
        runs[transcript].append(worker)
    return runs


def test_each_transcript_is_replayed_by_one_worker_under_the_default_dist(session):
    result = session.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider",
                                          "--agentforge-replay", "recordings", "-n", "2")
    result.assert_outcomes(passed=TRANSCRIPTS * CALLS + 1)
    runs = _workers_per_transcript(session.path / "calls.log")
    assert sorted(runs) == [f"s{number}" for number in range(TRANSCRIPTS)]
    for workers in runs.values():
        assert len(workers) == CALLS  # each call once: no transcript replayed twice
        assert len(set(workers)) == 1


def test_an_explicit_dist_mode_is_kept(session):
    result = session.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider",
                                          "--agentforge-replay", "recordings", "-n", "2",
                                          "--dist", "loadfile")
    result.assert_outcomes(passed=TRANSCRIPTS * CALLS + 1)
    runs = _workers_per_transcript(session.path / "calls.log")
    assert all(len(workers) == CALLS for workers in runs.values())


def test_the_scope_of_a_replay_item_is_its_transcript():
    assert transcript_scope("recordings/a.jsonl::agentforge_replay[call_1 queryCustomer]"
                            ) == "recordings/a.jsonl"
    assert transcript_scope("tests/test_x.py::test_y[agentforge_replay]") == (
        "tests/test_x.py::test_y[agentforge_replay]")
    assert transcript_scope("tests/test_x.py::TestA::test_b") == "tests/test_x.py::TestA::test_b"


class _Node:
    """What a scheduler sees of an xdist worker: the work sent to it, and its shutdown."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.gateway = type("Gateway", (), {"id": name})()
        self.sent: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def _drive(scheduler, collection: list[str], seed: int) -> list[tuple]:
    """Run ``scheduler`` over two workers that finish their items in order, picking the
    worker at random each step: what it sends and reports after every step."""
    import random

    rng = random.Random(seed)
    nodes = [_Node("gw0"), _Node("gw1")]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    done = {node.name: 0 for node in nodes}
    steps = []
    while True:
        busy = [node for node in nodes if done[node.name] < len(node.sent)]
        if not busy:
            break
        node = rng.choice(busy)
        scheduler.mark_test_complete(node, node.sent[done[node.name]])
        done[node.name] += 1
        steps.append((node.name, tuple(nodes[0].sent), tuple(nodes[1].sent),
                      nodes[0].shutting_down, nodes[1].shutting_down,
                      scheduler.tests_finished, scheduler.has_pending))
    return steps


@pytest.mark.parametrize("seed", range(6))
def test_the_transcript_scheduler_schedules_as_xdist_loadscope_does(pytester, seed):
    """The scheduler keeps its own books (linear, where xdist's are quadratic) and sends,
    finishes and shuts down exactly as xdist's scope scheduler does with the same
    scopes."""
    import random

    from xdist.scheduler import LoadScopeScheduling

    from agentforge_cli.integrations.pytest.replay_items import transcript_scheduling

    rng = random.Random(seed)
    collection = [f"tests/test_plain.py::test_{n}" for n in range(rng.randrange(3))]
    for number in range(rng.randrange(1, 12)):
        collection += [f"recordings/s{number}.jsonl::agentforge_replay[call_{call} q]"
                       for call in range(rng.randrange(1, 40))]
    rng.shuffle(collection)
    config = pytester.parseconfigure("--tx", "2*popen")

    class ByTranscript(LoadScopeScheduling):  # xdist's own books, the same scopes
        def _split_scope(self, nodeid: str) -> str:
            return transcript_scope(nodeid)

    ours = _drive(transcript_scheduling(config), collection, seed)
    assert ours == _drive(ByTranscript(config), collection, seed)
    assert ours[-1][-2:] == (True, False)  # finished, nothing pending
    sent = sorted(ours[-1][1] + ours[-1][2])
    assert sent == list(range(len(collection)))  # every item once
