"""A model opened for a run: its connection, its key, the cassette in front of it, and the
counts (requests sent and played, tokens, money).

:func:`open_model` reads the key from the connection's environment variables (a local
server named by ``base_url``, or an offline run, needs none), opens the cassette and
hands the SDK an HTTP client that goes through it. :meth:`Model.ask` raises only
:class:`~agentforge_cli.models.errors.ModelError` (``CacheMiss`` offline), and no message
ever holds the key.
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from agentforge_cli.models.connection import ModelConnection, Settings
from agentforge_cli.models.errors import CacheMiss, ModelError, ModelUnavailableError
from agentforge_cli.models.http_cache import CacheGate, caching_client
from agentforge_cli.models.prices import Price, Spend
from agentforge_cli.models.prompt import Prompt, Reply, Usage

__all__ = ["DEFAULT_CACHE_DIR", "Model", "Use", "default_cassette", "open_model"]

DEFAULT_CACHE_DIR = Path(".agentforge") / "models"
_PLACEHOLDER_KEY = "no-key"  # a local server or an offline run: the SDKs want some key
_LONGEST_MESSAGE = 600


def default_cassette(connection: ModelConnection, model: str) -> Path:
    """``.agentforge/models/<connection>-<model>.yaml``."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", model)
    return DEFAULT_CACHE_DIR / f"{connection.name}-{safe}.yaml"


@dataclasses.dataclass(frozen=True, slots=True)
class Use:
    """What a model was asked until some moment; two subtracted, what was asked between."""

    sent: int = 0
    """Requests sent to the server."""
    cached: int = 0
    """Requests answered from the cassette."""
    usage: Usage = dataclasses.field(default_factory=Usage)
    spend: Spend = dataclasses.field(default_factory=Spend)

    def __sub__(self, earlier: Use) -> Use:
        return Use(self.sent - earlier.sent, self.cached - earlier.cached,
                   Usage(self.usage.input_tokens - earlier.usage.input_tokens,
                         self.usage.output_tokens - earlier.usage.output_tokens),
                   Spend(self.spend.total - earlier.spend.total,
                         self.spend.sent - earlier.spend.sent,
                         self.spend.unknown - earlier.spend.unknown))


class Model:
    """One model, asked through its connection and the cassette."""

    def __init__(self, connection: ModelConnection, settings: Settings, gate: CacheGate,
                 key: str | None, price: Price | None = None) -> None:
        self.connection = connection
        self.name = f"{connection.name}:{settings.model}"
        self.gate = gate
        self._http = settings.http_client
        self.usage = Usage()
        self.price = price
        """The user's price for this model (``None``: none given)."""
        self.spend = Spend()
        self._key = key
        self._lock = threading.Lock()
        self._ask = connection.open(settings)

    def export(self, specs: Iterable[Any], origins: Mapping[str, Any] | None = None
               ) -> list[dict[str, Any]]:
        """The tools as the connection's provider export (``tools list --format``)."""
        from agentforge_cli.schema.providers import export_tools

        data = export_tools(specs, self.connection.export, origins=origins).data
        return list(data) if isinstance(data, list) else [data]

    def ask(self, prompt: Prompt) -> Reply:
        """Send one prompt (or play its response from the cassette)."""
        try:
            reply = self._ask(prompt)
        except Exception as exc:
            missed = self.gate.take_miss()
            if missed is not None:
                where = self.gate.cassette.path if self.gate.cassette else "(none)"
                raise CacheMiss(f"--offline: no response to {missed} in the cassette "
                                f"{where}") from None
            raise ModelError(self._masked(f"{self.connection.title} ({self.name}) failed: "
                                          f"{type(exc).__name__}: {exc}")) from None
        self.gate.check()  # the cassette's writer failed: stop before paying for more
        reply = dataclasses.replace(reply, cached=self.gate.last_cached())
        usage = reply.usage
        cost = usage.cost if usage.cost is not None else (
            self.price.of(usage.input_tokens, usage.output_tokens)
            if self.price is not None else None)
        with self._lock:
            self.usage.add(usage)
            self.spend.add(cost, cached=reply.cached)
        return reply

    def request_counts(self) -> tuple[int, int]:
        """Requests sent to the server, and answered from the cassette."""
        return self.gate.sent, self.gate.cached

    def use(self) -> Use:
        """What the model was asked so far."""
        with self._lock:
            return Use(self.gate.sent, self.gate.cached, dataclasses.replace(self.usage),
                       dataclasses.replace(self.spend))

    def _masked(self, text: str) -> str:
        if self._key and self._key != _PLACEHOLDER_KEY:
            text = text.replace(self._key, "***")
        text = " ".join(text.split())
        return text if len(text) <= _LONGEST_MESSAGE else text[:_LONGEST_MESSAGE] + "..."

    def close(self) -> None:
        """Close the connections and write what the cassette has not written yet.

        Raises:
            ModelError: The cassette cannot be written.
        """
        try:
            self._http.close()
        finally:
            self.gate.close()


def _key(connection: ModelConnection, *, needed: bool) -> str | None:
    for name in connection.key_env:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    if needed:
        raise ModelUnavailableError(
            f"no API key for {connection.title}: set {' or '.join(connection.key_env)}",
            )
    return None


def open_model(connection: ModelConnection, model: str, *, cassette: Path | None,
               offline: bool = False, base_url: str | None = None, timeout: float = 60.0,
               max_retries: int = 2, retry_delay: float = 0.5,
               max_tokens: int = 1024, price: Price | None = None) -> Model:
    """Open ``model`` through ``connection`` (``price``: the user's, to count what its
    responses cost when they do not say).

    Raises:
        ModelUnavailableError: The SDK is missing, or no key is set for a hosted API.
        ModelError: The cassette cannot be read.
    """
    from agentforge_cli.models.cassette import Cassette
    from agentforge_cli.models.connection import http_library, require_sdk

    require_sdk(connection.sdk)  # before anything else: the extra may be missing
    key = _key(connection, needed=not offline and base_url is None)
    gate = CacheGate(Cassette(cassette, write_behind=True) if cassette is not None else None,
                     offline=offline)
    settings = Settings(model=model, api_key=key or _PLACEHOLDER_KEY, base_url=base_url,
                        timeout=timeout, max_retries=max_retries, retry_delay=retry_delay,
                        max_tokens=max_tokens,
                        http_client=caching_client(http_library(connection), gate, timeout))
    return Model(connection, settings, gate, key, price)
