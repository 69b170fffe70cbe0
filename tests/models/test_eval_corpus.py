"""``agentforge eval`` on real recordings of the corpus: a server answering each request
with the recorded response to the same conversation agrees 100 % with the recording;
after a tool is renamed in the tool module, exactly the decisions that called it move.
A cached run repeats with no request."""

from __future__ import annotations

import json
import shutil

import pytest
from model_servers import CORPUS, RecordedPolicy, model_server

CASES = {
    # connection: (folder, tool module, the tool renamed, its new name)
    "openai": ("llm-chat-dragons", "llm_tools.py:LlmTools", "lookup_population",
               "find_population"),
    "anthropic": ("crewai-research-anthropic", "crewai_research.py:ResearchTools",
                  "web_search", "search_web"),
    "gemini": ("crewai-research-gemini", "crewai_research.py:ResearchTools", "web_search",
               "search_web"),
}


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(name, "sk-corpus-test")


def _tools_dir():
    from cli_support import ROOT

    return ROOT / "tests" / "corpus" / "tools"


def _eval(cli, server, connection, target, cassette, tmp_path, *options):
    result = cli("eval", target, str(cassette), "-m", f"{connection}:recorded",
                 "--base-url", server.base_url(connection),
                 "--cache", str(tmp_path / "cache.yaml"), "--json", *options)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("connection", CASES)
def test_the_recorded_answers_agree_and_a_rename_moves_exactly_its_decisions(
        connection, cli, tmp_path):
    folder, module, old, new = CASES[connection]
    cassette = next((CORPUS / folder).glob("*.yaml"))
    policy = RecordedPolicy(cassette)
    target = str(_tools_dir() / module)
    with model_server(policy) as server:
        report = _eval(cli, server, connection, target, cassette, tmp_path)
        assert policy.misses == 0
        assert report["summary"]["agreement"] == 1.0
        recorded = {d["decision"]: [c["name"] for c in d["recorded"]]
                    for d in report["decisions"]}
        assert any(old in names for names in recorded.values())

        # the same tools, renamed in a copy of the module
        renamed = tmp_path / "renamed"
        renamed.mkdir()
        shutil.copy(_tools_dir() / "execution_log.py", renamed)
        file, name = module.split(":")
        source = (_tools_dir() / file).read_text(encoding="utf-8")
        (renamed / file).write_text(source.replace(f'name="{old}"', f'name="{new}"'),
                                    encoding="utf-8")
        moved = _eval(cli, server, connection, f"{renamed / file}:{name}", cassette,
                      tmp_path, "--cache", str(tmp_path / "renamed.yaml"))
    flipped = {d["decision"] for d in moved["decisions"] if not d["pass_all"]}
    assert flipped == {n for n, names in recorded.items() if old in names}
    for decision in moved["decisions"]:
        if decision["decision"] in flipped:
            assert decision["replies"][0]["verdict"] == "flip"
            assert old in decision["replies"][0]["note"]
    assert moved["tools"][old]["agreement"] == 0.0


def test_a_cached_run_repeats_with_no_request(cli, tmp_path):
    folder, module, _, _ = CASES["anthropic"]
    cassette = next((CORPUS / folder).glob("*.yaml"))
    target = str(_tools_dir() / module)
    with model_server(RecordedPolicy(cassette)) as server:
        first = _eval(cli, server, "anthropic", target, cassette, tmp_path, "-k", "2")
        sent = server.count()
        again = _eval(cli, server, "anthropic", target, cassette, tmp_path, "-k", "2",
                      "--offline")
    assert sent == first["summary"]["replies"] == 20
    assert server.count() == sent  # nothing more was asked
    assert again["summary"]["requests"] == {"sent": 0, "cached": 20}
    assert again["decisions"] == first["decisions"] or all(
        a["agreed"] == b["agreed"] for a, b in zip(again["decisions"], first["decisions"],
                                                   strict=True))
