"""The model connections, driven through the official SDK clients (openai, anthropic,
google-genai) against a local server speaking each wire format."""

from __future__ import annotations

import json
import sys

import pytest
from model_servers import Calls, Status, Text, model_server

from agentforge_cli.models.cassette import Cassette
from agentforge_cli.models.errors import CacheMiss, ModelError, ModelUnavailableError
from agentforge_cli.models.model import open_model
from agentforge_cli.models.prompt import Answered, Asked, Call, Prompt, Said
from agentforge_cli.models.registry import MODEL_CONNECTIONS, parse_model

CONNECTIONS = ("openai", "openai-responses", "anthropic", "gemini")
SECRET = "sk-test-4f9a1c0ffee"
TOOLS = {"openai": [{"type": "function", "function": {
    "name": "search", "description": "Search.", "parameters": {
        "type": "object", "properties": {"query": {"type": "string"}},
        "required": ["query"], "additionalProperties": False}}}]}
CALL = Call("call_1", "search", '{"query":"a"}')
PROMPT_ITEMS = (Said("user", "find a"), Asked((CALL,), "looking"),
                Answered(CALL, "found a"), Said("user", "now find b"))


def _prompt(model) -> Prompt:
    from agentforge_cli.core.define.spec import ToolSpecification

    spec = ToolSpecification(name="search", description="Search.", parameters={
        "type": "object", "properties": {"query": {"type": "string"}},
        "required": ["query"], "additionalProperties": False})
    return Prompt("be brief", PROMPT_ITEMS, model.export([spec]))


def _open(name: str, server, tmp_path, **options):
    connection = MODEL_CONNECTIONS.get(name)
    return open_model(connection, "m-1", cassette=tmp_path / "c.yaml",
                      base_url=server.base_url(name), **options)


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(name, SECRET)


@pytest.mark.parametrize("name", CONNECTIONS)
def test_a_call_and_its_usage_come_back_through_the_sdk(name, tmp_path):
    with model_server(lambda wire, body: Calls([("search", {"query": "b"})])) as server:
        model = _open(name, server, tmp_path)
        reply = model.ask(_prompt(model))
    assert [(c.name, json.loads(c.arguments)) for c in reply.calls] == [("search",
                                                                        {"query": "b"})]
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (11, 7)
    assert reply.cached is False
    wire, _, _, body = server.requests[0]
    assert wire == name
    text = json.dumps(body)
    assert "find a" in text and "found a" in text and "now find b" in text
    assert "be brief" in text  # the system prompt


@pytest.mark.parametrize("name", CONNECTIONS)
def test_the_tools_go_as_the_provider_export(name, tmp_path):
    with model_server(lambda wire, body: Text("no")) as server:
        model = _open(name, server, tmp_path)
        prompt = _prompt(model)
        reply = model.ask(prompt)
    assert reply.calls == () and reply.text == "no"
    body = server.requests[0][3]
    if name == "gemini":  # the SDK spells the schema's types in capitals
        sent = body["tools"][0]["functionDeclarations"]
        assert json.loads(json.dumps(sent).replace('"OBJECT"', '"object"').replace(
            '"STRING"', '"string"')) == prompt.tools
    else:
        assert body["tools"] == prompt.tools


@pytest.mark.parametrize("name", CONNECTIONS)
def test_429_twice_is_retried_by_the_sdk(name, tmp_path):
    answers = [Status(429, {"retry-after-ms": "10", "retry-after": "0"})] * 2

    def policy(wire, body):
        return answers.pop() if answers else Calls([("search", {"query": "b"})])

    with model_server(policy) as server:
        model = _open(name, server, tmp_path, retry_delay=0.01)
        reply = model.ask(_prompt(model))
    assert reply.calls[0].name == "search"
    assert server.count() == 3


@pytest.mark.parametrize("name", CONNECTIONS)
def test_a_refusal_is_a_model_error_that_never_shows_the_key(name, tmp_path):
    with model_server(lambda wire, body: Status(401)) as server:
        model = _open(name, server, tmp_path, max_retries=0)
        with pytest.raises(ModelError) as caught:
            model.ask(_prompt(model))
    assert SECRET not in str(caught.value)
    headers = server.requests[0][2]
    assert SECRET in json.dumps(headers)  # the key did go to the server, and only there
    assert not (tmp_path / "c.yaml").exists() or SECRET not in (tmp_path / "c.yaml").read_text()


@pytest.mark.parametrize("name", CONNECTIONS)
def test_a_cached_response_is_played_and_offline_fails_on_a_miss(name, tmp_path):
    with model_server(lambda wire, body: Calls([("search", {"query": "b"})])) as server:
        model = _open(name, server, tmp_path)
        first = model.ask(_prompt(model))
        again = _open(name, server, tmp_path, offline=True)
        played = again.ask(_prompt(again))
        assert server.count() == 1
        assert played.cached and played.calls == first.calls
        with pytest.raises(CacheMiss, match="--offline: no response to POST"):
            again.ask(_prompt(again))  # the one kept response is used up
    assert SECRET not in (tmp_path / "c.yaml").read_text()
    assert len(Cassette(tmp_path / "c.yaml")._interactions) == 1


def test_a_hosted_api_without_a_key_is_refused_by_name(monkeypatch, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ModelUnavailableError, match="set ANTHROPIC_API_KEY"):
        open_model(MODEL_CONNECTIONS.get("anthropic"), "claude", cassette=tmp_path / "c")


def test_a_missing_sdk_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(ModelUnavailableError, match=r"pip install 'agentforge-tools\[models\]'"):
        open_model(MODEL_CONNECTIONS.get("anthropic"), "claude", cassette=tmp_path / "c")


def test_model_names_are_parsed_against_the_registry():
    assert parse_model("openai:gpt-4o")[1] == "gpt-4o"
    assert parse_model("gemini:models/gemini-2.5-flash")[0].name == "gemini"
    for bad in ("gpt-4o", "openai:", "mistral:large"):
        with pytest.raises(ValueError, match="--model") as caught:
            parse_model(bad)
        assert "CONNECTION:MODEL" in caught.value.hint
