"""Gemini (``generateContent``) through google-genai.

The SDK validates the export into its own types, so the wire spells the schema types in
capitals (``OBJECT``), as the API's own form does; nothing else changes.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.models.arguments import as_object, as_text
from agentforge_cli.models.connection import Asker, ModelConnection, Settings, require_sdk
from agentforge_cli.models.prompt import Answered, Asked, Call, Prompt, Reply, Said, Usage

__all__ = ["GEMINI", "contents"]


def _content(item: Said | Asked | Answered) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(item, Said):
        return ("model" if item.role == "assistant" else "user"), [{"text": item.text}]
    if isinstance(item, Asked):
        text = [{"text": item.text}] if item.text else []
        return "model", [*text, *({"function_call": {"name": call.name,
                                                     "args": as_object(call.arguments)}}
                                  for call in item.calls)]
    key = "error" if item.is_error else "result"
    return "user", [{"function_response": {"name": item.call.name,
                                           "response": {key: item.content}}}]


def contents(prompt: Prompt) -> list[dict[str, Any]]:
    """The conversation as Gemini contents; neighbours of one role share a content."""
    out: list[dict[str, Any]] = []
    for item in prompt.items:
        role, parts = _content(item)
        if out and out[-1]["role"] == role:
            out[-1]["parts"].extend(parts)
        else:
            out.append({"role": role, "parts": parts})
    return out


def _open(settings: Settings) -> Asker:
    require_sdk("google.genai")
    from google import genai
    from google.genai import types

    options = types.HttpOptions(
        base_url=settings.base_url, timeout=int(settings.timeout * 1000),
        httpx_client=settings.http_client,
        retry_options=types.HttpRetryOptions(attempts=settings.max_retries + 1,
                                             initial_delay=settings.retry_delay))
    client = genai.Client(api_key=settings.api_key, http_options=options)

    def ask(prompt: Prompt) -> Reply:
        config: dict[str, Any] = {}
        if prompt.system:
            config["system_instruction"] = prompt.system
        if prompt.tools:
            config["tools"] = [{"function_declarations": prompt.tools}]
            config["automatic_function_calling"] = {"disable": True}
        response = client.models.generate_content(
            model=settings.model,
            contents=contents(prompt),  # type: ignore[arg-type]  # dicts the SDK validates
            config=config)  # type: ignore[arg-type]  # a dict the SDK validates
        calls: list[Call] = []
        texts: list[str] = []
        candidate = response.candidates[0] if response.candidates else None
        parts = candidate.content.parts if candidate and candidate.content else None
        for n, part in enumerate(parts or ()):
            if part.function_call is not None:
                calls.append(Call(part.function_call.id or f"call_{n}",
                                  part.function_call.name or "",
                                  as_text(part.function_call.args)))
            elif part.text and not part.thought:
                texts.append(part.text)
        usage = response.usage_metadata
        return Reply(tuple(calls), "".join(texts),
                     Usage(usage.prompt_token_count or 0, usage.candidates_token_count or 0)
                     if usage else Usage())

    return ask


GEMINI = ModelConnection(name="gemini", title="Gemini", export="gemini",
                         key_env=("GEMINI_API_KEY", "GOOGLE_API_KEY"), sdk="google.genai",
                         open=_open)
