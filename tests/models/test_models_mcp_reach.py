"""``chat`` and ``eval`` take the MCP options of every command with MCP targets, and they
take effect: the server of ``tests/integrations/rooted_server.py`` lists ``in_<dir>`` per
root and ``for_<name>`` when the client answers its question, so the model is offered
(and a script may call) those tools only when ``--root`` and ``--elicit`` reached it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from model_servers import Calls, model_server

ROOT = Path(__file__).resolve().parents[2]
ROOTED = f"mcp:{sys.executable} {ROOT / 'tests' / 'integrations' / 'rooted_server.py'}"


@pytest.fixture(autouse=True)
def _plain(plain_terminal, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-reach-test")


@pytest.fixture
def reach(tmp_path: Path) -> list[str]:
    (tmp_path / "alpha").mkdir()
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"name": "Ada"}), encoding="utf-8")
    return ["--root", str(tmp_path / "alpha"), "--elicit", str(answers)]


def _script(tmp_path: Path) -> Path:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"call": "in_alpha", "arguments": {}},
                                  {"call": "for_Ada", "arguments": {}}, {"text": "done"}]),
                      encoding="utf-8")
    return script


def test_chat_calls_the_tools_the_options_bring(cli, reach, tmp_path):
    script = f"scripted:{_script(tmp_path)}"
    done = cli("chat", ROOTED, "-m", script, "--message", "go", *reach)
    assert done.exit_code == 0, done.output
    assert "[reflect] in_alpha → in_alpha" in done.stdout
    assert "[reflect] for_Ada → for_Ada" in done.stdout
    unknown = cli("chat", ROOTED, "-m", script, "--message", "go")  # the script's tools: none
    assert unknown.exit_code == 3, unknown.output


def test_eval_offers_the_model_the_tools_the_options_bring(cli, reach, tmp_path):
    transcript = tmp_path / "chat.jsonl"
    recorded = cli("chat", ROOTED, "-m", f"scripted:{_script(tmp_path)}", "--message", "go",
                   "--record", str(transcript), *reach)
    assert recorded.exit_code == 0, recorded.output
    offered: list[list[str]] = []

    def policy(wire, body):
        offered.append(sorted(tool["function"]["name"] for tool in body.get("tools", [])))
        return Calls([("in_alpha", {})])

    with model_server(policy) as server:
        done = cli("eval", ROOTED, str(transcript), "-m", "openai:local", "--base-url",
                   server.base_url("openai"), "--cache", str(tmp_path / "c.yaml"), *reach)
    assert done.exit_code == 0, done.output
    assert offered and all(names == ["for_Ada", "in_alpha"] for names in offered)
