"""Counting tool executions for the corpus run.

``counted_tool(...)`` is ``@tool(...)`` plus one thing: when the environment variable
``AGENTFORGE_CORPUS_CALLS`` names a file, every execution appends one JSON line to it,
``{"tool": name, "arguments": {...}}`` (the arguments as the function received them).
``tests/corpus/check_corpus.py`` compares these lines with the calls replay reports, so
a recorded call that runs twice (or never) is seen.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
from collections.abc import Callable
from typing import Any

from agentforge_cli import tool

CALLS_ENV = "AGENTFORGE_CORPUS_CALLS"


def counted_tool(**options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``@tool(**options)`` whose executions are logged to ``$AGENTFORGE_CORPUS_CALLS``."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        name = options.get("name") or function.__name__
        signature = inspect.signature(function)

        @functools.wraps(function)
        def logged(*args: Any, **kwargs: Any) -> Any:
            log_execution(name, _arguments(signature, args, kwargs))
            return function(*args, **kwargs)

        return tool(**options)(logged)

    return decorate


def log_execution(name: str, arguments: dict[str, Any]) -> None:
    """Append one execution to the log file, if one is named."""
    path = os.environ.get(CALLS_ENV)
    if not path:
        return
    line = json.dumps({"tool": name, "arguments": arguments}, ensure_ascii=False,
                      sort_keys=True, default=str)
    with open(path, "a", encoding="utf-8") as log:
        log.write(line + "\n")


def _arguments(signature: inspect.Signature, args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> dict[str, Any]:
    bound = signature.bind_partial(*args, **kwargs).arguments
    bound.pop("self", None)
    return {key: _plain(value) for key, value in bound.items()}


def _plain(value: Any) -> Any:
    """A pydantic model or dataclass as its fields; anything else as it is."""
    dump = getattr(value, "model_dump", None)
    return dump() if callable(dump) else value
