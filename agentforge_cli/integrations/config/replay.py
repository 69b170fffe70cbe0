"""``[tool.agentforge.replay]``: the volatile parts of results ``replay`` scrubs.

::

    [tool.agentforge.replay]
    scrub = ["timestamps", "uuids"]              # every tool's results
    volatile = {get_logs = ["$..time"], "mcp-tool" = ["re:op-[0-9a-f]+"]}   # per tool

``scrub`` is a list of scrubbers for every tool; ``volatile`` a table of tool names (as
the model calls them: an MCP server's or another library's tools too), each a list of
scrubbers for that tool. A scrubber is a JSON path, ``re:PATTERN`` or a detector
(:mod:`~agentforge_cli.replay.scrub_rules`). Every scrubber is parsed when the table is
read: an unknown key or a scrubber that is not one is a configuration error naming the
key, the tool and the file (exit 2). Standard library only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentforge_cli.errors import TargetConfigError
from agentforge_cli.integrations.config.keys import refuse_unknown_keys

__all__ = ["REPLAY_KEYS", "replay_scrubbing"]

REPLAY_KEYS = ("scrub", "volatile")
"""The keys ``[tool.agentforge.replay]`` may hold."""

_TABLE = "[tool.agentforge.replay]"
_EXAMPLE = ('e.g.\n  [tool.agentforge.replay]\n  scrub = ["timestamps"]\n'
            '  volatile = {get_logs = ["$..id"]}')


def replay_scrubbing(path: Path | None, table: dict[str, Any]) -> Any:
    """The scrubbers of the ``[tool.agentforge]`` ``table`` read from ``path``, parsed:
    a :class:`~agentforge_cli.replay.scrubbing.ScrubSettings`, or ``None`` when the
    table asks for none.

    Raises:
        TargetConfigError: ``replay`` is not a table, holds an unknown key, or a value
            that is not a list of scrubbers (or, for ``volatile``, a table of them).
    """
    replay = table.get("replay")
    if replay is None or path is None:
        return None
    if not isinstance(replay, dict):
        raise TargetConfigError(f"{path}: [tool.agentforge] replay must be a table "
                                f"({_TABLE}), got {replay!r}", hint=_EXAMPLE)
    refuse_unknown_keys(path, replay, REPLAY_KEYS, _TABLE)
    from agentforge_cli.replay.scrubbing import ScrubSettings

    every = _rules(path, replay.get("scrub", []), f"{_TABLE} scrub")
    volatile = replay.get("volatile", {})
    if not isinstance(volatile, dict):
        raise TargetConfigError(f"{path}: {_TABLE} volatile must be a table of tool names, "
                                f"each with a list of scrubbers, got {volatile!r}",
                                hint=_EXAMPLE)
    tools = {str(name): _rules(path, rules, f"{_TABLE} volatile, tool {name!r}")
             for name, rules in volatile.items()}
    if not every and not any(tools.values()):
        return None
    return ScrubSettings(every=every, tools=tools)


def _rules(path: Path, value: Any, where: str) -> tuple[Any, ...]:
    from agentforge_cli.replay.scrubbing import parse_rules

    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TargetConfigError(f"{path}: {where} must be a list of scrubbers, got {value!r}",
                                hint=_EXAMPLE)
    try:
        return parse_rules(value, f"{path}: {where}")
    except ValueError as exc:
        raise TargetConfigError(str(exc), hint="a scrubber is a JSON path ($.id), "
                                "re:PATTERN or a detector; see docs/replay.md") from None
