"""The HTTP client every connection's SDK is given: requests answered from the cassette
when it holds them, sent (and kept) otherwise, refused when offline.

The SDKs do not all use one HTTP library (the Anthropic SDK has moved to ``httpx2``, an
``httpx`` with the same API under another name), so the transport is made for the
library the connection names; what it decides is in one :class:`CacheGate` shared by
all. A refused request is answered ``404`` with ``x-should-retry: false`` (so no SDK
retries it) and remembered for the thread, so the model raises
:class:`~agentforge_cli.models.errors.CacheMiss` rather than the SDK's own error.

The transport that sends is made at the first request of each kind: a server named by a
plain ``http://`` URL (a local model) gets one on ``http.client``
(:mod:`~agentforge_cli.models.plain_http`: a third of the CPU per request, and no
certificate bundle loaded for a server that never speaks TLS); ``https://`` gets the
library's default transport, verifying as it always does.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from agentforge_cli.models.cassette import Cassette, Recorded
from agentforge_cli.models.plain_http import plain_transport_class

__all__ = ["CacheGate", "caching_client"]


class CacheGate:
    """The cassette (or none), offline or not, and the counts of a run."""

    def __init__(self, cassette: Cassette | None, *, offline: bool) -> None:
        self.cassette = cassette
        self.offline = offline
        self.sent = 0
        self.cached = 0
        self._lock = threading.Lock()
        self._state = threading.local()

    def take_miss(self) -> str | None:
        """The request of this thread's last refusal, once."""
        missed: str | None = getattr(self._state, "missed", None)
        self._state.missed = None
        return missed

    def last_cached(self) -> bool:
        """This thread's last request was answered from the cassette."""
        return bool(getattr(self._state, "cached", False))

    def key(self, method: str, uri: str, body: str) -> str | None:
        """The request's key, or ``None`` when the cassette has nothing left to play."""
        return self.cassette.key(method, uri, body) if self.cassette is not None else None

    def kept(self, key: str | None) -> Recorded | None:
        """The response to play for the request of ``key`` (:meth:`key`), or ``None`` to
        send (counted either way)."""
        kept = self.cassette.play(key) if self.cassette is not None else None
        self._state.cached = kept is not None
        if kept is not None or not self.offline:
            with self._lock:
                if kept is not None:
                    self.cached += 1
                else:
                    self.sent += 1
        return kept

    def refuse(self, what: str) -> None:
        self._state.missed = what

    def keep(self, method: str, uri: str, body: str, answer: Recorded,
             key: str | None) -> None:
        if self.cassette is not None and answer.status < 300:
            self.cassette.add(method, uri, body, answer, key)

    def sending(self) -> None:
        """A request has been sent: its thread is about to wait for the answer."""
        if self.cassette is not None:
            self.cassette.sending()

    def check(self) -> None:
        """Raise the cassette's failure to write, if it failed (``ModelError``)."""
        if self.cassette is not None:
            self.cassette.check()

    def close(self) -> None:
        """Write what the cassette has not written yet (``ModelError`` if it cannot)."""
        if self.cassette is not None:
            self.cassette.close()


def _transport_class(http: Any) -> Any:
    """A transport class of the HTTP library ``http`` (``httpx`` or ``httpx2``)."""

    class SentBody(http.SyncByteStream):  # type: ignore[misc]  # a base made per library
        """A request's body that says when its last byte went to the socket: its thread
        is then about to wait for the answer, with the GIL released."""

        def __init__(self, body: Any, sent: Callable[[], None]) -> None:
            self._body = body
            self._sent = sent

        def __iter__(self) -> Iterator[bytes]:
            yield from self._body
            self._sent()

    class CachingTransport(http.BaseTransport):  # type: ignore[misc]  # a base made per library
        def __init__(self, gate: CacheGate) -> None:
            self.gate = gate
            self._inner: dict[bool, Any] = {}  # secure or not -> the transport that sends
            self._made = threading.Lock()

        def _sender(self, request: Any) -> Any:
            secure = request.url.scheme != "http"
            inner = self._inner.get(secure)
            if inner is None:
                with self._made:
                    inner = self._inner.get(secure)
                    if inner is None:
                        inner = self._inner[secure] = http.HTTPTransport() if secure else \
                            plain_transport_class(http)()
            return inner

        def handle_request(self, request: Any) -> Any:
            body = request.read().decode("utf-8", "surrogatepass")
            uri = str(request.url)
            key = self.gate.key(request.method, uri, body)
            kept = self.gate.kept(key)
            if kept is not None:
                return http.Response(kept.status, headers={"content-type": kept.content_type},
                                     content=kept.body.encode("utf-8", "surrogatepass"),
                                     request=request)
            if self.gate.offline:
                self.gate.refuse(f"{request.method} {request.url.copy_with(query=None)}")
                return http.Response(404, headers={"x-should-retry": "false"},
                                     json={"error": {"message": "not in the cassette"}},
                                     request=request)
            request.stream = SentBody(request.stream, self.gate.sending)
            answer = self._sender(request).handle_request(request)
            answer.read()  # decoded: what the SDK reads, and what is kept
            kind = answer.headers.get("content-type", "application/json")
            text = answer.content.decode("utf-8", "replace") \
                if "charset" not in kind else answer.text  # JSON is UTF-8 unless it says
            self.gate.keep(request.method, uri, body, Recorded(answer.status_code, kind, text),
                           key)
            return answer

        def close(self) -> None:
            for inner in list(self._inner.values()):
                inner.close()

    return CachingTransport


def caching_client(library: str, gate: CacheGate, timeout: float) -> Any:
    """A client of the HTTP library ``library`` whose requests go through ``gate``."""
    http = importlib.import_module(library)
    return http.Client(transport=_transport_class(http)(gate), timeout=timeout)
