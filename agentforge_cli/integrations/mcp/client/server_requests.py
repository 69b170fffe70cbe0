"""What agentforge answers an MCP server that asks its client something, and the client
capabilities it declares for that.

A server may ask its client for the client's *roots* (the directories the user works in),
to *elicit* input from the user, or to *sample* the client's model. agentforge declares
all three, so a server shows it what it shows any capable client (tools that need a
capability are often listed only to clients that declare it), and answers:

* ``roots/list``: the directories of :attr:`ClientAnswers.roots` (``--root``), else the
  current working directory, as ``file://`` URIs;
* ``elicitation/create`` (form mode): the answers of ``--elicit FILE``, a JSON or YAML
  object of answers by field name; a request whose required fields the file does not all
  answer, every request without a file, and every URL-mode request (no one is there to
  open the page) are declined;
* ``sampling/createMessage``: declined with an error saying that agentforge has no model
  connection.

In the initialize era the server sends these as requests of its own during a call; in the
2026-07-28 era it returns them in an ``input_required`` result, which the connection
answers and retries (:mod:`~agentforge_cli.integrations.mcp.client.connection`). Each
request answered is told to :attr:`ClientAnswers.on_notice`.

Importing this module loads only the standard library.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentforge_cli.errors import TargetConfigError

__all__ = ["CLIENT_CAPABILITIES", "SAMPLING_DECLINED", "ClientAnswers", "elicit_answer",
           "load_elicit_answers", "roots_listing"]

CLIENT_CAPABILITIES: dict[str, Any] = {
    "sampling": {},
    "elicitation": {"form": {}, "url": {}},
    "roots": {"listChanged": True},
}
"""The capabilities agentforge declares, in the JSON of the protocol: what the SDK's
session declares when it has the three callbacks (a test keeps them equal)."""
SAMPLING_DECLINED = ("agentforge has no model connection to sample from: "
                     "sampling/createMessage is declined")
"""The message of the error that answers ``sampling/createMessage``."""
_MAX_ANSWERS_BYTES = 1024 * 1024


@dataclass(frozen=True, kw_only=True, slots=True)
class ClientAnswers:
    """What the client answers the server's requests (``--root``, ``--elicit``)."""

    roots: tuple[Path, ...] = ()
    """The directories listed as roots; none: the current working directory."""
    elicit: Mapping[str, Any] | None = field(default=None, repr=False)
    """The answers to elicitation requests, by field name (``None``: every request is
    declined). They may be secrets: never printed."""
    on_notice: Callable[[str], None] | None = None
    """Receives one line per request answered and per log message of the server
    (``None``: nothing is said)."""
    on_progress: Callable[[float, float | None, str | None], None] | None = None
    """Receives each progress notification of a call: progress, total (``None``:
    unknown) and message; ``None``: no progress is asked for."""

    def notice(self, text: str) -> None:
        """Say ``text`` to :attr:`on_notice`, if any."""
        if self.on_notice is not None:
            self.on_notice(text)


def roots_listing(roots: Sequence[Path]) -> dict[str, Any]:
    """The ``roots/list`` result for ``roots`` (none: the current working directory)."""
    directories = list(roots) or [Path(os.getcwd())]
    return {"roots": [{"uri": directory.resolve().as_uri(),
                       "name": directory.resolve().name or str(directory)}
                      for directory in directories]}


def elicit_answer(params: Mapping[str, Any], answers: Mapping[str, Any] | None
                  ) -> tuple[dict[str, Any], str]:
    """The ``elicitation/create`` result for ``params`` (the request's), and what to say
    about it: ``accept`` with the answers the requested schema names, or ``decline``."""
    message = str(params.get("message", ""))[:200]
    if params.get("mode") == "url":
        url = str(params.get("url", ""))[:200]
        return {"action": "decline"}, (f"the server asked to open {url} ({message}): "
                                      "declined, agentforge opens no page")
    if answers is None:
        return {"action": "decline"}, (f"the server asked for input ({message}): declined "
                                      "(--elicit FILE answers it)")
    schema = params.get("requestedSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    required = schema.get("required") if isinstance(schema, Mapping) else None
    fields = list(properties) if isinstance(properties, Mapping) else []
    missing = [name for name in (required if isinstance(required, list) else [])
               if name not in answers]
    if missing:
        return {"action": "decline"}, (
            f"the server asked for input ({message}): declined, the answers file has no "
            f"{', '.join(map(str, missing))}")
    content = {name: answers[name] for name in fields if name in answers}
    return {"action": "accept", "content": content}, (
        f"the server asked for input ({message}): answered {', '.join(content) or 'nothing'} "
        "from the answers file")


def load_elicit_answers(path: Path) -> dict[str, Any]:
    """The answers of an ``--elicit`` file: a JSON or YAML object (YAML unless the file
    parses as JSON).

    Raises:
        TargetConfigError: The file cannot be read, or holds no object of answers.
    """
    import json

    try:
        with path.open("rb") as stream:
            data = stream.read(_MAX_ANSWERS_BYTES + 1)
    except OSError as exc:
        raise TargetConfigError(f"--elicit {path}: cannot read it ({exc.strerror})") from None
    if len(data) > _MAX_ANSWERS_BYTES:
        raise TargetConfigError(f"--elicit {path}: larger than 1 MiB")
    try:
        answers = json.loads(data)
    except (ValueError, RecursionError):
        answers = _yaml(path, data)
    if not isinstance(answers, dict) or not all(isinstance(key, str) for key in answers):
        raise TargetConfigError(f"--elicit {path}: not an object of answers by field name",
                                hint="write e.g. {\"name\": \"Ada\", \"confirm\": true}")
    return answers


def _yaml(path: Path, data: bytes) -> Any:
    import yaml

    try:
        return yaml.safe_load(data)
    except (yaml.YAMLError, RecursionError) as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        raise TargetConfigError(f"--elicit {path}: neither JSON nor YAML{line}") from None
