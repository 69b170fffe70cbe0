"""OpenAI Responses (``/v1/responses``)."""

from __future__ import annotations

from typing import Any

from agentforge_cli.models.connection import Asker, ModelConnection, Settings, require_sdk
from agentforge_cli.models.prompt import Answered, Asked, Call, Prompt, Reply, Said, Usage

__all__ = ["OPENAI_RESPONSES", "input_items"]


def input_items(prompt: Prompt) -> list[dict[str, Any]]:
    """The conversation as Responses input items."""
    out: list[dict[str, Any]] = []
    for item in prompt.items:
        if isinstance(item, Said):
            out.append({"role": item.role, "content": item.text})
        elif isinstance(item, Asked):
            if item.text:
                out.append({"role": "assistant", "content": item.text})
            out.extend({"type": "function_call", "call_id": call.id, "name": call.name,
                        "arguments": call.arguments} for call in item.calls)
        elif isinstance(item, Answered):
            out.append({"type": "function_call_output", "call_id": item.call.id,
                        "output": item.content})
    return out


def _open(settings: Settings) -> Asker:
    openai = require_sdk("openai")
    client = openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url,
                           timeout=settings.timeout, max_retries=settings.max_retries,
                           http_client=settings.http_client)

    def ask(prompt: Prompt) -> Reply:
        request: dict[str, Any] = {"model": settings.model, "input": input_items(prompt)}
        if prompt.system:
            request["instructions"] = prompt.system
        if prompt.tools:
            request["tools"] = prompt.tools
        response = client.responses.create(**request)
        calls: list[Call] = []
        texts: list[str] = []
        for n, output in enumerate(response.output or ()):
            if output.type == "function_call":
                calls.append(Call(output.call_id or f"call_{n}", output.name,
                                  output.arguments or "{}"))
            elif output.type == "message":
                texts.extend(part.text for part in output.content
                             if getattr(part, "type", "") == "output_text")
        usage = response.usage
        return Reply(tuple(calls), "".join(texts),
                     Usage(usage.input_tokens or 0, usage.output_tokens or 0)
                     if usage else Usage())

    return ask


OPENAI_RESPONSES = ModelConnection(name="openai-responses", title="OpenAI Responses",
                                   export="openai-responses", key_env=("OPENAI_API_KEY",),
                                   sdk="openai", open=_open)
