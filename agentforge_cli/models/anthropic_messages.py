"""Anthropic Messages (``/v1/messages``)."""

from __future__ import annotations

from typing import Any

from agentforge_cli.models.arguments import as_object, as_text
from agentforge_cli.models.connection import Asker, ModelConnection, Settings, require_sdk
from agentforge_cli.models.prompt import Answered, Asked, Call, Prompt, Reply, Said, Usage

__all__ = ["ANTHROPIC", "messages"]


def _blocks(item: Said | Asked | Answered) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(item, Said):
        return item.role, [{"type": "text", "text": item.text}]
    if isinstance(item, Asked):
        text = [{"type": "text", "text": item.text}] if item.text else []
        return "assistant", [*text, *({"type": "tool_use", "id": call.id, "name": call.name,
                                       "input": as_object(call.arguments)}
                                      for call in item.calls)]
    return "user", [{"type": "tool_result", "tool_use_id": item.call.id,
                     "content": item.content, "is_error": item.is_error}]


def messages(prompt: Prompt) -> list[dict[str, Any]]:
    """The conversation as Messages: turns alternate, so neighbours of one role (the
    results of parallel calls, a text after them) share a message."""
    out: list[dict[str, Any]] = []
    for item in prompt.items:
        role, blocks = _blocks(item)
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def _open(settings: Settings) -> Asker:
    anthropic = require_sdk("anthropic")
    client = anthropic.Anthropic(api_key=settings.api_key, base_url=settings.base_url,
                                 timeout=settings.timeout, max_retries=settings.max_retries,
                                 http_client=settings.http_client)

    def ask(prompt: Prompt) -> Reply:
        request: dict[str, Any] = {"model": settings.model, "messages": messages(prompt),
                                   "max_tokens": settings.max_tokens}
        if prompt.system:
            request["system"] = prompt.system
        if prompt.tools:
            request["tools"] = prompt.tools
        response = client.messages.create(**request)
        calls = tuple(Call(block.id, block.name, as_text(block.input))
                      for block in response.content if block.type == "tool_use")
        text = "".join(block.text for block in response.content if block.type == "text")
        usage = response.usage
        return Reply(calls, text, Usage(usage.input_tokens or 0, usage.output_tokens or 0))

    return ask


ANTHROPIC = ModelConnection(name="anthropic", title="Anthropic Messages", export="anthropic",
                            key_env=("ANTHROPIC_API_KEY",), sdk="anthropic", open=_open)
