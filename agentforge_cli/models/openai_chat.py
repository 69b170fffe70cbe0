"""OpenAI chat completions, and every server that speaks them (Azure, Ollama, vLLM,
llama.cpp's server, LM Studio, OpenRouter, Groq) through ``--base-url``."""

from __future__ import annotations

from typing import Any

from agentforge_cli.models.connection import Asker, ModelConnection, Settings, require_sdk
from agentforge_cli.models.prices import reported_cost
from agentforge_cli.models.prompt import Answered, Asked, Call, Prompt, Reply, Said, Usage

__all__ = ["OPENAI_CHAT", "messages"]


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


def _open(settings: Settings) -> Asker:
    openai = require_sdk("openai")
    client = openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url,
                           timeout=settings.timeout, max_retries=settings.max_retries,
                           http_client=settings.http_client)

    def ask(prompt: Prompt) -> Reply:
        # The conversation and the tools go as ``extra_body``: JSON as built, where the
        # ``messages=`` parameter walks every message through the SDK's type annotations
        # (a no-op for these plain values, and a quarter of eval's time on a long
        # conversation). ``messages=[]`` satisfies the signature; the extra body wins.
        body: dict[str, Any] = {"messages": messages(prompt)}
        if prompt.tools:
            body["tools"] = prompt.tools
        response = client.chat.completions.create(model=settings.model, messages=[],
                                                  extra_body=body)
        message = response.choices[0].message if response.choices else None
        calls = tuple(Call(call.id or f"call_{n}", call.function.name,
                           call.function.arguments or "{}")
                      for n, call in enumerate(getattr(message, "tool_calls", None) or ())
                      if getattr(call, "function", None) is not None)
        usage = response.usage
        return Reply(calls, (message.content or "") if message else "",
                     Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0,
                           reported_cost(usage)) if usage else Usage())

    return ask


OPENAI_CHAT = ModelConnection(name="openai", title="OpenAI chat completions", export="openai",
                              key_env=("OPENAI_API_KEY",), sdk="openai", open=_open)
