"""A migration of recorded calls after a rename: the tools and arguments ``replay
--update`` renames or drops (``--rename-tool OLD=NEW``, ``--rename-arg TOOL.OLD=NEW``,
``--drop-arg TOOL.NAME``), applied to one call's name and arguments.

An argument rule names the tool as it is called today (after ``--rename-tool``) and a
top-level argument; the tool's name ends at the last dot (MCP names may hold dots). A
renamed argument keeps its place and its value; a rename whose new name the call already
has is left undone (the call still drifts, and says why). Arguments recorded as a JSON
string are edited where they change (:mod:`~agentforge_cli.replay.transcripts.files.json_edits`),
so their spacing and escapes stay; arguments that are not a JSON object are left as
recorded. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.replay.transcripts.files.json_edits import edit_json
from agentforge_cli.replay.transcripts.files.json_text import loads

__all__ = ["Migration"]


@dataclass(frozen=True, slots=True)
class Migration:
    """Renamed tools, and renamed or dropped arguments of today's tools."""

    tools: Mapping[str, str] = field(default_factory=dict)
    """A recorded tool name -> today's."""
    arguments: Mapping[str, Mapping[str, str | None]] = field(default_factory=dict)
    """Today's tool name -> a recorded argument -> today's name (``None``: dropped)."""

    def __bool__(self) -> bool:
        return bool(self.tools or self.arguments)

    @classmethod
    def parse(cls, rename_tool: Iterable[str] = (), rename_arg: Iterable[str] = (),
              drop_arg: Iterable[str] = ()) -> Migration:
        """The migration the command line's rules spell: ``OLD=NEW``, ``TOOL.OLD=NEW`` and
        ``TOOL.NAME``.

        Raises:
            ValueError: A rule that does not read, or two rules for one name.
        """
        tools: dict[str, str] = {}
        for rule in rename_tool:
            old, new = _pair(rule, "--rename-tool", "OLD=NEW")
            _once(tools, old, new, f"--rename-tool {rule}: {old} is renamed twice")
            tools[old] = new
        arguments: dict[str, dict[str, str | None]] = {}
        for rule in rename_arg:
            target, new = _pair(rule, "--rename-arg", "TOOL.OLD=NEW")
            tool, old = _argument(target, "--rename-arg", "TOOL.OLD=NEW")
            _once(arguments.setdefault(tool, {}), old, new,
                  f"--rename-arg {rule}: {tool}.{old} has two rules")
            arguments[tool][old] = new
        for rule in drop_arg:
            tool, old = _argument(rule, "--drop-arg", "TOOL.NAME")
            _once(arguments.setdefault(tool, {}), old, None,
                  f"--drop-arg {rule}: {tool}.{old} has two rules")
            arguments[tool][old] = None
        return cls(tools, arguments)

    def name(self, recorded: str) -> str:
        """Today's name of a tool recorded as ``recorded``."""
        return self.tools.get(recorded, recorded)

    def call(self, name: str, arguments: str) -> tuple[str, str] | None:
        """A recorded call's name and argument string as today's tools take them, or
        ``None`` when the migration changes neither."""
        today = self.name(name)
        edited = self.arguments_text(today, arguments)
        if today == name and edited is None:
            return None
        return today, arguments if edited is None else edited

    def arguments_text(self, tool: str, arguments: str) -> str | None:
        """A JSON argument string with ``tool``'s rules applied, edited where it changes;
        ``None`` when nothing changes (or it is not a JSON object)."""
        if tool not in self.arguments:
            return None
        try:
            value = loads(arguments)
        except (ValueError, RecursionError):
            return None
        changed = self.arguments_object(tool, value) if isinstance(value, dict) else None
        return None if changed is None else edit_json(arguments, changed, value)

    def arguments_object(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """An argument object with ``tool``'s rules applied (a renamed key in its place),
        or ``None`` when nothing changes."""
        rules = self.arguments.get(tool)
        if not rules or not rules.keys() & arguments.keys():
            return None
        changed: dict[str, Any] = {}
        for key, value in arguments.items():
            if key not in rules:
                changed[key] = value
                continue
            new = rules[key]
            if new is None:
                continue
            if new in arguments and new != key:  # both recorded: which one was meant?
                changed[key] = value
                continue
            changed[new] = value
        return None if changed == arguments and list(changed) == list(arguments) else changed

    def options(self) -> list[str]:
        """The rules as the command line spells them."""
        spelled = [f"--rename-tool {old}={new}" for old, new in self.tools.items()]
        for tool, rules in self.arguments.items():
            spelled.extend(f"--drop-arg {tool}.{old}" if new is None
                           else f"--rename-arg {tool}.{old}={new}"
                           for old, new in rules.items())
        return spelled


def _pair(rule: str, option: str, form: str) -> tuple[str, str]:
    old, sep, new = rule.partition("=")
    old, new = old.strip(), new.strip()
    if not sep or not old or not new or "=" in new:
        raise ValueError(f"{option} takes {form}, got {rule!r}")
    return old, new


def _argument(target: str, option: str, form: str) -> tuple[str, str]:
    tool, sep, name = target.rpartition(".")
    if not sep or not tool or not name:
        raise ValueError(f"{option} takes {form} (the tool, a dot, the argument), got "
                         f"{target!r}")
    return tool, name


def _once(rules: Mapping[str, Any], key: str, value: Any, message: str) -> None:
    if key in rules and rules[key] != value:
        raise ValueError(message)
