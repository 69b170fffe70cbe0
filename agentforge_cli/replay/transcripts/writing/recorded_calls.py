"""Recorded calls rewritten by a migration, for the formats whose calls are objects at
known keys: a format declares where a call keeps its tool's name and its arguments
(:class:`CallFields`, inside the object its reader keeps as ``ToolCall.raw``) and where
a result repeats the tool's name, and :func:`call_migration` makes its ``migrate``.

A call is found in its record by identity (the reader's ``raw`` is the very object the
record holds), a result by its place; only the containers on the way to what changes are
copied, so every other part of the record stays as it was read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.model import ToolCall, ToolResult
from agentforge_cli.replay.transcripts.place import Step
from agentforge_cli.replay.transcripts.reading.calls import CallBook, ReadEvents
from agentforge_cli.replay.transcripts.writing.migration import Migration

__all__ = ["CallFields", "MigrateCalls", "call_migration"]

B = TypeVar("B", bound=CallBook)
Path = tuple[Step, ...]
_MISSING: Any = object()


@dataclass(frozen=True, slots=True)
class CallFields:
    """Where a recorded call keeps its tool's name and its arguments: paths of keys
    inside the call's ``raw`` object (``("function", "name")`` in an OpenAI
    ``tool_calls`` entry). The arguments may be a JSON string or an object."""

    name: Path
    arguments: Path


class MigrateCalls:
    """A format's ``migrate`` (see
    :data:`~agentforge_cli.replay.transcripts.format.Migrate`), made by
    :func:`call_migration`."""

    __slots__ = ("_calls", "_read", "_results")

    def __init__(self, read: ReadEvents[Any], calls: tuple[CallFields, ...],
                 results: tuple[Path, ...]) -> None:
        self._read, self._calls, self._results = read, calls, results

    def __call__(self, records: Iterable[Record], migration: Migration, book: B
                 ) -> Iterator[Record]:
        renamed: dict[int, tuple[str, str]] = {}  # a renamed call whose result is to come
        for record in records:
            if record.blank:
                yield record
                continue
            data = record.data
            for event in self._read(record, book):
                if type(event) is ToolCall:
                    data = self._call(data, record.data, event, migration, renamed)
                elif type(event) is ToolResult and event.call_index in renamed:
                    data = self._result(data, record, event, renamed.pop(event.call_index))
            yield record if data is record.data else Record(data, record.where,
                                                            record.position)

    def _call(self, data: Any, original: Any, call: ToolCall, migration: Migration,
              renamed: dict[int, tuple[str, str]]) -> Any:
        """``data`` with ``call`` migrated, where the record read as ``original`` holds it."""
        fields = next((f for f in self._calls if _get(call.raw, f.name) == call.name), None)
        at = _path_to(original, call.raw) if fields is not None else None
        if fields is None or at is None:
            return data
        today = migration.name(call.name)
        recorded = _get(call.raw, fields.arguments)
        arguments: Any = None
        if isinstance(recorded, dict):
            arguments = migration.arguments_object(today, recorded)
        elif isinstance(recorded, str):
            arguments = migration.arguments_text(today, recorded)
        if arguments is not None:
            data = _set(data, at + fields.arguments, arguments)
        if today != call.name:
            data = _set(data, at + fields.name, today)
            renamed[call.index] = (call.name, today)
        return data

    def _result(self, data: Any, record: Record, result: ToolResult,
                names: tuple[str, str]) -> Any:
        """``data`` with the tool's name renamed where the result repeats it."""
        outer = record.where.path
        if result.where.path[:len(outer)] != outer:
            return data
        at: Path = tuple(step for part in result.where.path[len(outer):] for step in part)
        found = _get(data, at)
        old, new = names
        for field_path in self._results:
            if _get(found, field_path) == old:
                data = _set(data, at + field_path, new)
        return data


def call_migration(read: ReadEvents[B], calls: tuple[CallFields, ...],
                   results: tuple[Path, ...] = ()) -> MigrateCalls:
    """The ``migrate`` of a format whose calls sit at ``calls`` (the first whose name path
    holds the call's name) and whose results repeat the tool's name at ``results`` (paths
    inside the object a result's place names: a Gemini part's ``functionResponse.name``).
    ``read`` is the format's ``record_events``."""
    return MigrateCalls(read, calls, results)


def _get(value: Any, path: Path) -> Any:
    """What ``value`` holds at ``path``, or a marker no JSON value equals."""
    for step in path:
        holds = (step in value if isinstance(value, dict) and isinstance(step, str) else
                 isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value))
        if not holds:
            return _MISSING
        value = value[step]
    return value


def _set(value: Any, path: Path, new: Any) -> Any:
    """``value`` with ``new`` at ``path``, the containers on the way copied (the others
    shared)."""
    if not path:
        return new
    step, rest = path[0], path[1:]
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[step] = _set(value[step], rest, new)
    return copy


def _path_to(value: Any, target: Any) -> Path | None:
    """The path from ``value`` to the very object ``target`` inside it, or ``None``;
    searched level by level (a call sits near the top of its record, however deep the
    rest goes)."""
    level: list[tuple[Path, Any]] = [((), value)]
    while level:
        deeper: list[tuple[Path, Any]] = []
        for path, item in level:
            if item is target:
                return path
            if isinstance(item, dict):
                deeper.extend(((*path, key), child) for key, child in item.items()
                              if isinstance(child, dict | list))
            elif isinstance(item, list):
                deeper.extend(((*path, index), child) for index, child in enumerate(item)
                              if isinstance(child, dict | list))
        level = deeper
    return None
