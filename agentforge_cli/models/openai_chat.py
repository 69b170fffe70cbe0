"""OpenAI chat completions, and every server that speaks them (Azure, Ollama, vLLM,
llama.cpp's server, LM Studio, OpenRouter, Groq) through ``--base-url``."""

from __future__ import annotations

import json
from typing import Any

from agentforge_cli.models.arguments import as_text
from agentforge_cli.models.connection import Asker, ModelConnection, Settings, require_sdk
from agentforge_cli.models.prices import reported_cost
from agentforge_cli.models.prompt import Answered, Asked, Call, Prompt, Reply, Said, Usage

__all__ = ["OPENAI_CHAT", "messages", "reply_of"]


def messages(prompt: Prompt) -> list[dict[str, Any]]:
    """The conversation as chat-completions messages."""
    out: list[dict[str, Any]] = []
    if prompt.system:
        out.append({"role": "system", "content": prompt.system})
    for item in prompt.items:
        if isinstance(item, Said):
            out.append({"role": item.role, "content": item.text})
        elif isinstance(item, Asked):
            out.append({"role": "assistant", "content": item.text or None, "tool_calls": [
                {"id": call.id, "type": "function",
                 "function": {"name": call.name, "arguments": call.arguments}}
                for call in item.calls]})
        elif isinstance(item, Answered):
            out.append({"role": "tool", "tool_call_id": item.call.id, "content": item.content})
    return out


def reply_of(text: str | bytes) -> Reply:
    """A chat completion's JSON text, read: its calls, text and usage.

    Raises:
        ValueError: The text is not a JSON object.
    """
    data = json.loads(text)
    if not isinstance(data, dict):
        shown = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise ValueError(f"the response is not a chat completion: {shown[:200]}")
    choices: list[Any] = data.get("choices") or [{}]
    message: dict[str, Any] = (choices[0] or {}).get("message") or {}
    calls = tuple(Call(call.get("id") or f"call_{n}", function.get("name") or "",
                       _text(function.get("arguments")))
                  for n, call in enumerate(message.get("tool_calls") or ())
                  if (function := call.get("function")) is not None)
    usage = data.get("usage")
    return Reply(calls, message.get("content") or "",
                 Usage(usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0,
                       reported_cost(usage)) if usage else Usage())


def _text(arguments: Any) -> str:
    if arguments is None or arguments == "":
        return "{}"
    return arguments if isinstance(arguments, str) else as_text(arguments)


def _open(settings: Settings) -> Asker:
    openai = require_sdk("openai")
    client = openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url,
                           timeout=settings.timeout, max_retries=settings.max_retries,
                           http_client=settings.http_client)
    security = {"bearer_auth": True}  # what ``chat.completions.create`` authenticates with

    def ask(prompt: Prompt) -> Reply:
        # The body is sent as built, through the client's own ``post`` (its headers, key,
        # retries and errors), and the answer read as JSON bytes: ``create`` walks every
        # message through the SDK's type annotations and builds the response's pydantic
        # models, a no-op for these plain values and most of eval's own time per request.
        body: dict[str, Any] = {"model": settings.model, "messages": messages(prompt)}
        if prompt.tools:
            body["tools"] = prompt.tools
        answer = client.post("/chat/completions", body=body, cast_to=bytes,
                             options={"security": security})
        return reply_of(answer)

    return ask


OPENAI_CHAT = ModelConnection(name="openai", title="OpenAI chat completions", export="openai",
                              key_env=("OPENAI_API_KEY",), sdk="openai", open=_open)
