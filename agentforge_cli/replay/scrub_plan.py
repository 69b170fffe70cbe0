"""Which scrubbers a service's tools get: the ones asked for outside their code (a
:class:`~agentforge_cli.replay.scrubbing.ScrubSettings`) plus each tool's own
``@tool(volatile=...)``, read once per session.

A replay for which no rule applies anywhere gets ``None`` and never imports the
scrubbing machinery (:mod:`~agentforge_cli.replay.scrubbing`, its compiled patterns):
nothing is done for scrubbing, at start or per call. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentforge_cli.replay.scrubbing import Scrubbing, ScrubSettings

__all__ = ["scrubbing_for"]


def scrubbing_for(service: Any, settings: ScrubSettings | None) -> Scrubbing | None:
    """The scrubbing of a service's tools: ``settings`` plus each tool's
    ``@tool(volatile=...)``; ``None`` when no rule applies to any tool.

    Raises:
        TargetConfigError: A tool declares a scrubber that is not one (naming the tool
            and where it is declared).
    """
    declared = list(_declared(service))
    if settings is None and not declared:
        return None
    from agentforge_cli.errors import TargetConfigError
    from agentforge_cli.replay.scrubbing import Scrubbing, parse_rules

    every = settings.every if settings is not None else ()
    tools = {name: list(rules) for name, rules in
             (settings.tools.items() if settings is not None else ())}
    for name, texts, place in declared:
        try:
            rules = parse_rules(texts, f"@tool(volatile=...) of {name!r}{place}")
        except ValueError as exc:
            raise TargetConfigError(str(exc), hint="a scrubber is a JSON path ($.id), "
                                    "re:PATTERN or a detector; see docs/replay.md") from None
        tools.setdefault(name, []).extend(rules)
    if not every and not any(tools.values()):
        return None
    return Scrubbing(every, tools)


def _declared(service: Any) -> Iterator[tuple[str, tuple[str, ...], str]]:
    """``(tool name, scrubbers as written, where declared)`` of each tool of ``service``
    that declares volatile parts."""
    from agentforge_cli.core.declare.decorator import tool_meta
    from agentforge_cli.core.define.capabilities import DefinedToolExecutor
    from agentforge_cli.core.run.wrapping import innermost

    for name in service.names:
        base = innermost(service.executor(name))
        if not isinstance(base, DefinedToolExecutor):
            continue
        definition = base.definition
        meta = tool_meta(getattr(definition, "original", None)) or tool_meta(
            getattr(definition, "call", None))
        if meta is not None and meta.volatile:
            yield name, meta.volatile, _place(definition)


def _place(definition: Any) -> str:
    """`` at tools/ops.py:12`` (the function's first line, relative to the working
    directory when under it), or nothing."""
    import os

    code = getattr(getattr(definition, "original", None), "__code__", None)
    if code is None:
        return ""
    path = code.co_filename
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        relative = os.pardir
    return f" at {path if relative.startswith(os.pardir) else relative}:{code.co_firstlineno}"
