"""OpenAI chat completions sent through the client's ``post`` and read as JSON text: the
same request on the wire as ``chat.completions.create``, the same reply as its models."""

from __future__ import annotations

import json

import openai
import pytest
from model_servers import Calls, Raw, model_server

from agentforge_cli.models.errors import ModelError
from agentforge_cli.models.model import open_model
from agentforge_cli.models.openai_chat import messages, reply_of
from agentforge_cli.models.prices import reported_cost
from agentforge_cli.models.prompt import Answered, Asked, Call, Prompt, Reply, Said, Usage
from agentforge_cli.models.registry import MODEL_CONNECTIONS

CALL = Call("call_1", "search", '{"query":"长路"}')
PROMPT = Prompt("be brief", (Said("user", "find 长路"), Asked((CALL,), "looking"),
                             Answered(CALL, "found"), Said("user", "again")),
                [{"type": "function", "function": {"name": "search", "parameters": {
                    "type": "object", "properties": {"query": {"type": "string"}}}}}])
VOLATILE = {"x-stainless-retry-count", "host"}  # per request / per server


def _sdk_reply(completion) -> Reply:
    """What the connection answered when it read the SDK's ``ChatCompletion``."""
    message = completion.choices[0].message if completion.choices else None
    calls = tuple(Call(call.id or f"call_{n}", call.function.name,
                       call.function.arguments or "{}")
                  for n, call in enumerate(getattr(message, "tool_calls", None) or ())
                  if getattr(call, "function", None) is not None)
    usage = completion.usage
    return Reply(calls, (message.content or "") if message else "",
                 Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0,
                       reported_cost(usage)) if usage else Usage())


@pytest.mark.parametrize("answer", [
    Calls([("search", {"query": "b"}), ("search", {"query": "c"})], text="two"),
    Calls([]),
    Raw({"choices": [{"message": {"role": "assistant", "content": "hi"}}]}),
    Raw({"choices": [], "usage": None}),
    Raw({"choices": [{"message": {"tool_calls": [
        {"id": None, "type": "function", "function": {"name": "search", "arguments": ""}}]}}],
        "usage": {"prompt_tokens": None, "completion_tokens": 3}}),
    Raw({"choices": [{"message": {"content": "priced"}}],
         "usage": {"prompt_tokens": 5, "completion_tokens": 2, "cost": 0.00042}}),
])
def test_the_request_and_the_reply_are_those_of_create(answer, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-same")
    with model_server(lambda wire, body: answer) as server:
        model = open_model(MODEL_CONNECTIONS.get("openai"), "m-1", cassette=None,
                           base_url=server.base_url("openai"))
        ours = model.ask(PROMPT)
        client = openai.OpenAI(api_key="sk-same", base_url=server.base_url("openai"),
                               timeout=60.0)  # the SDK's own HTTP client
        body = {"messages": messages(PROMPT), "tools": PROMPT.tools}
        theirs = _sdk_reply(client.chat.completions.create(model="m-1", messages=[],
                                                           extra_body=body))
        client.close()
        model.close()
    (_, path, our_headers, our_body), (_, _, their_headers, their_body) = server.requests
    assert path.endswith("/chat/completions")
    assert json.dumps(our_body) == json.dumps(their_body)  # the same keys in the same order
    assert {k.lower(): v for k, v in our_headers.items() if k.lower() not in VOLATILE} == {
        k.lower(): v for k, v in their_headers.items() if k.lower() not in VOLATILE}
    assert ours == theirs


def test_arguments_sent_as_an_object_are_read_as_json_text():
    reply = reply_of(json.dumps({"choices": [{"message": {"tool_calls": [{
        "id": "c1", "function": {"name": "search", "arguments": {"query": "长路"}}}]}}]}))
    assert reply.calls == (Call("c1", "search", '{"query":"长路"}'),)


@pytest.mark.parametrize("text", ["<html>bad gateway</html>", "[1, 2]"])
def test_an_answer_that_is_no_completion_is_a_model_error(text, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-same")
    with model_server(lambda wire, body: Raw(json.loads(text)) if text.startswith("[")
                      else Raw(text)) as server:
        model = open_model(MODEL_CONNECTIONS.get("openai"), "m-1", cassette=None,
                           base_url=server.base_url("openai"))
        with pytest.raises(ModelError, match=r"OpenAI chat completions \(openai:m-1\) failed"):
            model.ask(PROMPT)
        model.close()
