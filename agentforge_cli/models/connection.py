"""A model connection, declared: which provider export it sends, which SDK it needs,
which environment variables hold its key, and how it asks.

A connection module declares one :class:`ModelConnection`; its ``open(settings)`` builds
the SDK's client (with the caching HTTP client of the settings) and returns the function
that sends one :class:`~agentforge_cli.models.prompt.Prompt` and reads the
:class:`~agentforge_cli.models.prompt.Reply`. Standard library only at import.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from agentforge_cli.models.errors import ModelUnavailableError
from agentforge_cli.models.prompt import Prompt, Reply

__all__ = ["EXTRA", "Asker", "ModelConnection", "Settings", "http_library", "require_sdk"]

EXTRA = "agentforge-tools[models]"
"""The optional extra that installs every connection's SDK."""

Asker = Callable[[Prompt], Reply]


@dataclass(frozen=True, kw_only=True, slots=True)
class Settings:
    """How a connection reaches its model."""

    model: str
    """The model's name as the provider spells it (``gpt-4o``)."""
    api_key: str
    """The key (a placeholder for a local server or an offline run); never printed."""
    base_url: str | None = None
    """Another server speaking the provider's API (Ollama, vLLM, a test's server)."""
    timeout: float = 60.0
    """Seconds one HTTP request may take."""
    max_retries: int = 2
    """Retries of a request answered 429 or 5xx (or not at all), by the SDK, with backoff."""
    retry_delay: float = 0.5
    """The first backoff, in seconds, where the SDK lets it be set (Gemini)."""
    max_tokens: int = 1024
    """The longest answer asked for, where the API requires a bound (Anthropic)."""
    http_client: Any = None
    """The ``httpx.Client`` every request goes through (the cassette's)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelConnection:
    """Everything agentforge knows about one model API."""

    name: str
    """What ``--model`` names before the colon (``openai`` in ``openai:gpt-4o``)."""
    title: str
    """The API as people call it, for messages."""
    export: str
    """The provider export its tools are sent in (a ``tools list --format`` name)."""
    key_env: tuple[str, ...]
    """The environment variables the key is read from, first set wins."""
    sdk: str
    """The module the connection imports (``openai``)."""
    open: Callable[[Settings], Asker]
    """Build the client and return the function that asks."""
    http: str = "httpx"
    """The HTTP library the SDK takes a client of (``httpx``, ``httpx2``) when its base
    client does not say (:func:`http_library`)."""
    before: tuple[str, ...] = ()


def require_sdk(module: str) -> ModuleType:
    """Import a connection's SDK, or say which extra installs it.

    Raises:
        ModelUnavailableError: The SDK is not installed.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ModelUnavailableError(
            f"the {module} package is not installed; model connections need the "
            f"optional extra: pip install '{EXTRA}'") from None


def http_library(connection: ModelConnection) -> str:
    """The HTTP library to give the connection's (imported) SDK a client of: ``httpx2``
    where the SDK's base client is built on it (the OpenAI and Anthropic SDKs of 2026,
    whose own client it is; the OpenAI SDK takes an ``httpx`` one too, converting on
    every request), else the one the connection declares."""
    base = sys.modules.get(f"{connection.sdk}._base_client")
    return "httpx2" if base is not None and hasattr(base, "httpx2") else connection.http
