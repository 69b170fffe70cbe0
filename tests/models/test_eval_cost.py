"""``agentforge eval`` counts what the responses cost: the cost a response reports
(OpenRouter's ``usage.cost``), else the tokens priced from ``--prices`` or
``[tool.agentforge.models.prices]``, else says it is unknown. Asked through the official
OpenAI SDK against the local policy server (11 input and 7 output tokens a response)."""

from __future__ import annotations

import json

import pytest
from model_servers import Calls, Raw, encode, model_server

from agentforge_cli.cli.eval_costs import money

CRM = "sample_tools.crm:CrmTools"
TRANSCRIPT = "sample_tools/transcripts/crm.jsonl"
ANSWER = Calls([("queryCustomer", {"name": "长路", "limit": 5})])


@pytest.fixture(autouse=True)
def _plain(plain_terminal, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-eval-cost")


def _openrouter(wire, body):
    document = encode(wire, ANSWER)
    document["usage"]["cost"] = 0.00105  # what OpenRouter adds to the usage
    return Raw(document)


def _eval(cli, tmp_path, *options, policy=lambda wire, body: ANSWER):
    with model_server(policy) as server:
        return cli("eval", CRM, TRANSCRIPT, "-m", "openai:local", "--base-url",
                   server.base_url("openai"), "--cache", str(tmp_path / "c.yaml"), *options)


def _cost(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["summary"]["cost"]


def test_the_cost_a_response_reports_is_counted_and_a_rerun_costs_nothing(cli, tmp_path):
    with model_server(_openrouter) as server:
        def run(*options):
            return cli("eval", CRM, TRANSCRIPT, "-m", "openai:local", "-k", "2",
                       "--base-url", server.base_url("openai"),
                       "--cache", str(tmp_path / "c.yaml"), *options)

        first = run()
        assert "tokens: 22 in, 14 out · cost: $0.0021\n" in first.stdout
        again = run("--json")  # played from the cassette: the same cost, none of it spent
        assert _cost(again) == {"total": 0.0021, "sent": 0.0, "unknown": None}
        assert "cost: $0.0021, $0.00 of it sent now" in run().stdout
        assert server.count() == 2


def test_without_a_price_the_cost_is_unknown_and_says_why(cli, tmp_path):
    result = _eval(cli, tmp_path)
    assert "tokens: 11 in, 7 out · cost unknown: no price for openai:local" in result.stdout
    assert _cost(_eval(cli, tmp_path, "--json")) == {
        "total": None, "sent": None, "unknown": "no price for openai:local"}


def test_a_prices_file_prices_the_tokens(cli, tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text('local = {input = 1.0, output = 2}\nother = {input = 9, output = 9}\n',
                      encoding="utf-8")
    cost = _cost(_eval(cli, tmp_path, "--json", "--prices", str(prices)))
    assert cost["total"] == pytest.approx((11 * 1.0 + 7 * 2) / 1e6)
    as_json = tmp_path / "prices.json"
    as_json.write_text(json.dumps({"openai:local": {"input": 2, "output": 0}}), encoding="utf-8")
    result = _eval(cli, tmp_path, "--prices", str(as_json))
    assert "cost: $0.000022" in result.stdout


def test_a_reported_cost_wins_over_the_price_table(cli, tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text('local = {input = 1000, output = 1000}\n', encoding="utf-8")
    cost = _cost(_eval(cli, tmp_path, "--json", "--prices", str(prices), policy=_openrouter))
    assert cost["total"] == pytest.approx(0.00105)


def test_the_projects_price_table(cli, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentforge.models.prices]\n"openai:local" = {input = 0.15, output = 0.6}\n',
        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    from cli_support import ROOT

    with model_server(lambda wire, body: ANSWER) as server:
        result = cli("eval", CRM, str(ROOT / TRANSCRIPT), "-m", "openai:local", "--base-url",
                     server.base_url("openai"), "--json")
    assert _cost(result)["total"] == pytest.approx((11 * 0.15 + 7 * 0.6) / 1e6)


@pytest.mark.parametrize(("text", "message"), [
    ("local = {input = 1}\n", "the price of 'local' must be a table with input and output"),
    ("local = {input = -1, output = 1}\n", "the price of 'local' input must be a number"),
    ("local = [\n", "is not TOML"),
])
def test_a_bad_price_table_exits_2_before_any_request(cli, tmp_path, text, message):
    prices = tmp_path / "prices.toml"
    prices.write_text(text, encoding="utf-8")
    with model_server(lambda wire, body: ANSWER) as server:
        result = cli("eval", CRM, TRANSCRIPT, "-m", "openai:local", "--base-url",
                     server.base_url("openai"), "--cache", str(tmp_path / "c.yaml"),
                     "--prices", str(prices))
        assert server.count() == 0
    assert result.exit_code == 2
    assert message in result.stderr


def test_a_bad_project_price_is_a_configuration_error(cli, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentforge.models]\nprice = {}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = cli("eval", CRM, "t.jsonl", "-m", "openai:local")
    assert result.exit_code == 2
    assert "unknown key 'price' in [tool.agentforge.models]" in result.stderr


@pytest.mark.parametrize(("dollars", "shown"), [
    (0, "$0.00"), (1.234, "$1.23"), (0.5, "$0.50"), (0.0021, "$0.0021"),
    (0.000025, "$0.000025"), (0.012, "$0.012"),
])
def test_money_is_shown_to_two_significant_digits_below_a_dollar(dollars, shown):
    assert money(dollars) == shown


def test_a_malformed_price_is_shown_its_example_once(tmp_path):
    """The table's own message carries the example; the hint does not repeat it."""
    import subprocess
    import sys
    from pathlib import Path

    prices = tmp_path / "prices.json"
    prices.write_text('{"gpt-x": 1}', encoding="utf-8")
    agentforge = str(Path(sys.executable).with_name("agentforge"))
    done = subprocess.run([agentforge, "eval", "sample_tools.crm:CrmTools",
                           "sample_tools/transcripts/crm.jsonl", "--model", "openai:gpt-x",
                           "--offline", "--prices", str(prices)],
                          capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 2
    assert done.stderr.count('"gpt-4o-mini" = {input = 0.15, output = 0.60}') == 1
    assert "Traceback" not in done.stderr


def test_chat_says_what_its_requests_cost_on_stderr(cli, tmp_path):
    """Two requests (a call, then the answer), priced from --prices; the trace on stdout
    is the conversation alone. A rerun plays both from the cassette."""
    prices = tmp_path / "prices.toml"
    prices.write_text('local = {input = 1.0, output = 2}\n', encoding="utf-8")

    def agent(wire, body):
        said = [m for m in body["messages"] if m.get("role") == "tool"]
        return Calls([], text="done") if said else ANSWER

    with model_server(agent) as server:
        def chat():
            return cli("chat", CRM, "-m", "openai:local", "--base-url",
                       server.base_url("openai"), "--cache", str(tmp_path / "c.yaml"),
                       "--prices", str(prices), "--message", "find 长路")

        first, again = chat(), chat()
        assert server.count() == 2
    assert first.exit_code == 0, first.output
    cost = money((22 * 1.0 + 14 * 2) / 1e6)
    assert f"requests: 2 sent, 0 from the cassette · tokens: 22 in, 14 out · cost: {cost}" \
        in first.stderr
    assert "tokens" not in first.stdout and first.stdout.startswith("[user]")
    assert f"requests: 0 sent, 2 from the cassette · tokens: 22 in, 14 out · cost: {cost}, " \
        "$0.00 of it sent now" in again.stderr


def test_chat_with_a_bad_price_table_exits_2_before_any_request(cli, tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text("local = [\n", encoding="utf-8")
    with model_server(lambda wire, body: ANSWER) as server:
        result = cli("chat", CRM, "-m", "openai:local", "--base-url",
                     server.base_url("openai"), "--prices", str(prices), "--message", "hi")
        assert server.count() == 0
    assert result.exit_code == 2
    assert "is not TOML" in result.stderr


def test_a_scripted_chat_costs_nothing_and_says_nothing_of_it(cli):
    result = cli("chat", CRM, "-m", "scripted:sample_tools/scripts/crm_chat.json",
                 "--message", "hi")
    assert result.exit_code == 0, result.output
    assert "requests:" not in result.stderr
