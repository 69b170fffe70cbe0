"""Model responses kept on disk: a VCR cassette (vcrpy's YAML, version 1), keyed by the
request, that ``agentforge replay`` reads like any other cassette.

A request's key is its method, its URL (without a ``key`` query parameter) and its JSON
body with the keys sorted: the same conversation, model and tools give the same key,
whoever serialised them. A cassette may hold one request several times (``--repeat``):
within one run, the n-th time a key is asked the n-th response recorded for it plays,
as vcrpy plays each interaction once; when they are used up, the request goes out and
its response is added (played already: it plays in the next run). Once every recorded
response has played (always, in a first run), no key is made: a request could only go
out, and making its key re-serialises the whole conversation. Only what a request needs
is written: the method, the URL, the ``content-type`` header and the body; never an
authorization header or a key.

Writes are atomic (a temporary file renamed over the cassette), so an interrupted run
keeps what it paid for: made after every new response, or, for a cassette opened
``write_behind`` (a model's), by a writer thread while the next request waits for its
model (:mod:`~agentforge_cli.models.cassette_writer`: flushed at the close, at exit, on
SIGTERM). Each interaction is turned into YAML once (with libyaml's emitter where PyYAML
has it) and kept as UTF-8: a write joins the kept bytes, so a run of n responses emits
and encodes n interactions, not n²/2. Safe across threads.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import urllib.parse
from collections import defaultdict
from pathlib import Path
from typing import Any

from agentforge_cli.core.run.sigterm import hold, release
from agentforge_cli.models.cassette_writer import WriteBehind, flush_open

__all__ = ["Cassette", "Recorded", "request_key"]

_SECRET_QUERY = frozenset({"key", "api_key", "api-key"})


def clean_uri(uri: str) -> str:
    """The URL without a key in its query (Gemini's ``?key=`` form)."""
    if "?" not in uri:
        return uri
    parts = urllib.parse.urlsplit(uri)
    query = [(name, value) for name, value in urllib.parse.parse_qsl(parts.query, True)
             if name.lower() not in _SECRET_QUERY]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def _canonical_body(body: str) -> str:
    try:
        return json.dumps(json.loads(body), sort_keys=True, ensure_ascii=False,
                          separators=(",", ":"))
    except ValueError:
        return body


def request_key(method: str, uri: str, body: str) -> str:
    """The key a response is kept under."""
    text = "\n".join((method.upper(), clean_uri(uri), _canonical_body(body)))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Recorded:
    """One kept response: status, content type, body text."""

    __slots__ = ("body", "content_type", "status")

    def __init__(self, status: int, content_type: str, body: str) -> None:
        self.status = status
        self.content_type = content_type
        self.body = body


class Cassette:
    """The cassette at ``path`` (created at the first response kept); ``write_behind``
    writes it on a thread of its own, until :meth:`close`."""

    def __init__(self, path: Path, *, write_behind: bool = False) -> None:
        self.path = path
        self._lock = threading.Lock()
        """Held for the interactions and the play turns."""
        self._write_lock = threading.Lock()
        """Held for a write of the file (and for the texts)."""
        self._interactions: list[dict[str, Any]] = []
        self._texts: list[bytes] = []
        """The YAML of each interaction, as an item of the ``interactions`` list (UTF-8)."""
        self._on_disk = 0
        """Interactions the file holds (counted once it was written by this cassette)."""
        self._by_key: dict[str, list[Recorded]] = defaultdict(list)
        self._played: dict[str, int] = defaultdict(int)
        self._unplayed = 0
        """Responses read from the file that have not played in this run."""
        flush_open(path)  # a cassette of this file still open in this process writes first
        if path.is_file():
            self._load()
        self._on_disk = len(self._interactions)
        self._writer = WriteBehind(self) if write_behind else None

    def _load(self) -> None:
        import yaml

        from agentforge_cli.models.errors import ModelError

        try:
            document = yaml.safe_load(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise ModelError(f"cannot read the model cassette {self.path}: {exc}") from None
        interactions = document.get("interactions") if isinstance(document, dict) else None
        if not isinstance(interactions, list):
            raise ModelError(f"cannot read the model cassette {self.path}: it holds no "
                             "interactions list (is it a VCR cassette?)")
        for interaction in interactions:
            try:
                request, response = interaction["request"], interaction["response"]
                key = request_key(request["method"], request["uri"], request["body"])
                headers = response.get("headers") or {}
                kind = (headers.get("content-type") or ["application/json"])[0]
                self._by_key[key].append(Recorded(int(response["status"]["code"]), kind,
                                                  response["body"]["string"]))
            except (KeyError, TypeError, ValueError, AttributeError):
                continue  # an interaction of another shape: not ours to play
            self._interactions.append(interaction)
        self._unplayed = len(self._interactions)

    def key(self, method: str, uri: str, body: str) -> str | None:
        """The request's key (:func:`request_key`), or ``None`` when no recorded response
        is left to play in this run (it could find nothing)."""
        return request_key(method, uri, body) if self._unplayed else None

    def play(self, key: str | None) -> Recorded | None:
        """The next response kept for ``key`` in this run, or ``None``."""
        if key is None:
            return None
        with self._lock:
            kept = self._by_key.get(key, [])
            turn = self._played[key]
            if turn >= len(kept):
                return None
            self._played[key] = turn + 1
            self._unplayed -= 1  # what plays was read from the file: added ones count played
            return kept[turn]

    def add(self, method: str, uri: str, body: str, answer: Recorded,
            key: str | None = None) -> None:
        """Keep a new response (played already in this run) and write it (or have the
        writer write it). ``key`` is the request's :meth:`key`, when already made."""
        if key is None:
            key = self.key(method, uri, body)
        interaction = {
            "request": {"body": body, "headers": {"content-type": ["application/json"]},
                        "method": method.upper(), "uri": clean_uri(uri)},
            "response": {"body": {"string": answer.body},
                         "headers": {"content-type": [answer.content_type]},
                         "status": {"code": answer.status, "message": "OK"}},
        }
        held = hold()  # a SIGTERM waits: its flush would wait for the lock
        try:
            with self._lock:
                if key is not None:  # else nothing is left to play: no turn to count
                    self._by_key[key].append(answer)
                    self._played[key] += 1
                self._interactions.append(interaction)
        finally:
            if held:
                release()
        if self._writer is None or not self._writer.kept():
            self.flush()

    def sending(self) -> None:
        """A request was sent to its server (a write behind is made while it waits)."""
        if self._writer is not None:
            self._writer.sending()

    def flush(self) -> None:
        """Write the file now, if it lacks responses kept (on this thread).

        Raises:
            OSError: The file cannot be written (it is left as it was).
        """
        held = hold()
        try:
            with self._write_lock:
                with self._lock:
                    interactions = self._interactions[len(self._texts):]
                    count = len(self._interactions)
                if count == self._on_disk:
                    return
                self._texts.extend(_item_yaml(interaction).encode("utf-8")
                                   for interaction in interactions)
                self._write((b"interactions:\n", *self._texts, b"version: 1\n"))
                self._on_disk = count
        finally:
            if held:
                release()

    def check(self) -> None:
        """Raise the failure of a write behind, if one failed.

        Raises:
            ModelError: The cassette could not be written.
        """
        if self._writer is not None:
            self._writer.check()

    def close(self) -> None:
        """Write what is not written yet; a write-behind cassette's thread ends.

        Raises:
            ModelError: The cassette could not be written.
        """
        if self._writer is not None:
            self._writer.close()

    def _write(self, parts: tuple[bytes, ...]) -> None:
        """The file, made of ``parts``, replaced at once."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".cassette-", dir=self.path.parent)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(b"".join(parts))
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _item_yaml(interaction: dict[str, Any]) -> str:
    """One interaction as an item of a block list at the top level: what ``safe_dump``
    writes for it inside ``{"interactions": [...]}`` (PyYAML does not indent a list
    under its key)."""
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text: str = yaml.dump([interaction], Dumper=dumper, allow_unicode=True, sort_keys=False,
                          width=1 << 20)
    return text
