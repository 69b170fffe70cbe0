"""Scrubbing: the volatile parts of results (times, ids, durations) normalised, in the
recorded and today's result alike, before they are compared.

A :class:`Scrubber` holds the rules one tool's results get
(:mod:`~agentforge_cli.replay.scrub_rules`) and compares two results through them
(:meth:`Scrubber.compare`). When both results are JSON (in the ``--match`` mode's sense),
each JSON path's values are replaced whole by ``"<scrubbed>"``, then the regular
expressions and detectors replace what they find in every string (and the detectors the
numbers of time-like or duration-like members), and the two values are compared as
:func:`~agentforge_cli.replay.compare.same_value` compares them: everything else still
counts, member names, structure and the presence of the volatile member included. When
either is not JSON, the regular expressions and detectors run over the two texts. Rules
run in one order whatever order they were given in: JSON paths, then regular expressions,
then the detectors in :data:`~agentforge_cli.replay.scrub_rules.DETECTORS`' order.

:class:`Scrubbing` says which scrubber each tool gets: the rules for every tool (the
command line's ``--scrub``, the project's ``scrub``) plus the tool's own
(``@tool(volatile=...)``, the project's ``volatile`` table); made for a service by
:func:`~agentforge_cli.replay.scrub_plan.scrubbing_for`, which does not import this module
when no rule applies anywhere. The replayer asks only when the texts differ: a result
that is the recorded one as it is needs no scrubbing. Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from agentforge_cli.replay.compare import MatchMode, parse_result, same_result, same_value
from agentforge_cli.replay.json_paths import Location, shown
from agentforge_cli.replay.scrub_rules import (
    DETECTORS,
    SCRUBBED,
    Detector,
    PathRule,
    PatternRule,
    Rule,
    is_number,
    parse_rule,
)

__all__ = ["MAX_NOTED", "ScrubSettings", "Scrubbed", "Scrubber", "Scrubbing", "parse_rules",
           "with_given"]

MAX_NOTED = 20
"""What was scrubbed is listed up to this many places, then counted."""

_TextRule = PatternRule | Detector


@dataclass(frozen=True, slots=True)
class Scrubbed:
    """Two results compared through a scrubber."""

    same: bool
    """The scrubbed results are the same result."""
    scrubbed: tuple[str, ...]
    """What was scrubbed, in either: ``$.created_at`` (a JSON path's place),
    ``$.logs[0].message (timestamps)`` (a detector's, in a JSON result), ``uuids`` (in a
    text result); empty when no rule found anything."""
    old: Any
    """The recorded result, scrubbed: a parsed JSON value, or text (see :attr:`parsed`)."""
    new: Any
    """Today's result, scrubbed, the same way."""
    parsed: bool
    """Both were compared as JSON values."""

    @property
    def expected(self) -> str:
        """The recorded result, scrubbed, as text (what a diff shows; made when asked)."""
        return _as_text(self.old) if self.parsed else self.old

    @property
    def actual(self) -> str:
        """Today's result, scrubbed, as text."""
        return _as_text(self.new) if self.parsed else self.new


class _Notes:
    """The places scrubbed, each once, in the order found."""

    __slots__ = ("places",)

    def __init__(self) -> None:
        self.places: dict[str, None] = {}

    def add(self, where: Location, label: str | None) -> None:
        place = shown(where) if label is None else (
            label if not where else f"{shown(where)} ({label})")
        self.places[place] = None

    def listed(self) -> tuple[str, ...]:
        places = list(self.places)
        if len(places) <= MAX_NOTED:
            return tuple(places)
        return (*places[:MAX_NOTED], f"... {len(places) - MAX_NOTED} more")


class Scrubber:
    """The rules one tool's results are scrubbed with (duplicates dropped, in the order
    the module docstring gives)."""

    __slots__ = ("labels", "paths", "texts")

    def __init__(self, rules: Iterable[Rule]) -> None:
        unique = list(dict.fromkeys(rules))
        self.paths = tuple(rule for rule in unique if isinstance(rule, PathRule))
        patterns = [rule for rule in unique if isinstance(rule, PatternRule)]
        detectors = [d for d in DETECTORS.values() if d in unique]
        self.texts: tuple[_TextRule, ...] = (*patterns, *detectors)
        self.labels = tuple(rule.label for rule in (*self.paths, *self.texts))
        """Every rule, as written."""

    def compare(self, expected: str, actual: str,
                match: MatchMode = MatchMode.EXACT) -> Scrubbed:
        """Compare two result texts with their volatile parts scrubbed (``match``:
        ``exact`` or ``json``, which says what is JSON)."""
        notes = _Notes()
        ok_expected, old = parse_result(expected, match)
        ok_actual, new = parse_result(actual, match)
        if ok_expected and ok_actual:
            old, new = self._scrub_value(old, notes), self._scrub_value(new, notes)
            return Scrubbed(same_value(old, new), notes.listed(), old, new, True)
        old_text = self._scrub_text(expected, notes)
        new_text = self._scrub_text(actual, notes)
        return Scrubbed(same_result(old_text, new_text, match), notes.listed(), old_text,
                        new_text, False)

    def _scrub_text(self, text: str, notes: _Notes) -> str:
        for rule in self.texts:
            text, found = rule.replace(text)
            if found:
                notes.add((), rule.label)
        return text

    def _scrub_value(self, value: Any, notes: _Notes) -> Any:
        """``value`` (parsed, owned: changed in place) with its volatile parts replaced."""
        for rule in self.paths:
            for where in sorted(rule.path.locations(value), key=len):  # outermost first
                if not where:
                    notes.add(where, None)
                    return SCRUBBED  # the whole result
                holder = _holder(value, where)
                if holder is not None:
                    holder[where[-1]] = SCRUBBED
                    notes.add(where, None)
        if not self.texts:
            return value
        if isinstance(value, str):
            return self._scrub_text(value, notes)
        # iterative, in document order: a deep value needs no deep stack
        stack: list[tuple[Any, Any, Location]] = _members(value, ())
        while stack:
            holder, key, where = stack.pop()
            child = holder[key]
            if isinstance(child, str):
                holder[key] = self._scrub_string(child, where, notes)
            elif is_number(child):
                holder[key] = self._scrub_number(key, child, where, notes)
            elif isinstance(child, dict | list):
                stack.extend(_members(child, where))
        return value

    def _scrub_string(self, text: str, where: Location, notes: _Notes) -> str:
        for rule in self.texts:
            text, found = rule.replace(text)
            if found:
                notes.add(where, rule.label)
        return text

    def _scrub_number(self, key: str | int, number: Any, where: Location,
                      notes: _Notes) -> Any:
        for rule in self.texts:
            if rule.number(key, number):
                notes.add(where, rule.label)
                return rule.placeholder
        return number


def _members(node: Any, where: Location) -> list[tuple[Any, Any, Location]]:
    """``(node, key, location)`` of each member or element of ``node``, last first (the
    order a stack pops them in document order)."""
    keys = list(node) if isinstance(node, dict) else range(len(node))
    return [(node, key, (*where, key)) for key in reversed(keys)]


def _holder(value: Any, where: Location) -> Any:
    """The object or array holding the value at ``where``, or ``None`` when the way there
    is gone (an outer value was scrubbed first)."""
    node = value
    for step in where[:-1]:
        present = (step in node if isinstance(node, dict) and isinstance(step, str) else
                   isinstance(node, list) and isinstance(step, int) and step < len(node))
        if not present:
            return None
        node = node[step]
    return node if isinstance(node, dict | list) else None


def _as_text(value: Any) -> str:
    """A scrubbed JSON value as text for a diff (numbers as numbers)."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=_number)
    except (ValueError, RecursionError):
        return str(value)


def _number(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() and abs(value) < 10**30 \
            else float(value)
    raise TypeError(type(value).__name__)


class Scrubbing:
    """Which :class:`Scrubber` each tool's results get: the rules for every tool, plus
    those of the tool by name."""

    __slots__ = ("_every", "_tools")

    def __init__(self, every: Sequence[Rule] = (),
                 tools: Mapping[str, Sequence[Rule]] | None = None) -> None:
        self._every = Scrubber(every) if every else None
        self._tools = {name: Scrubber([*every, *rules])
                       for name, rules in (tools or {}).items() if rules}

    def for_tool(self, name: str) -> Scrubber | None:
        """The scrubber of the tool called ``name`` (``None``: its results are compared
        as they are)."""
        return self._tools.get(name, self._every)


@dataclass(frozen=True, kw_only=True, slots=True)
class ScrubSettings:
    """The scrubbers asked for outside the tools' code, parsed."""

    every: tuple[Rule, ...] = ()
    """For every tool's results (``--scrub``, the project's ``scrub``)."""
    tools: Mapping[str, tuple[Rule, ...]] = field(default_factory=dict)
    """Per tool name (the project's ``volatile`` table: MCP and other libraries' tools)."""


def with_given(project: ScrubSettings | None, given: Sequence[str],
               option: str = "--scrub") -> ScrubSettings | None:
    """The project's scrubbers (``None``: none) and those a command line gives for every
    tool, parsed; ``None`` when there are none.

    Raises:
        CommandInputError: A given scrubber is not one (the message names ``option``).
    """
    try:
        rules = parse_rules(given, option)
    except ValueError as exc:
        from agentforge_cli.errors import CommandInputError

        raise CommandInputError(str(exc), hint="a scrubber is a JSON path ($.created_at), "
                                "re:PATTERN or a detector; see docs/replay.md") from None
    if not rules:
        return project
    if project is None:
        return ScrubSettings(every=rules)
    return ScrubSettings(every=(*project.every, *rules), tools=project.tools)


def parse_rules(texts: Iterable[str], origin: str) -> tuple[Rule, ...]:
    """Each scrubber of ``texts`` parsed, in order.

    Raises:
        ValueError: One is not a scrubber; the message starts with ``origin`` (the option
            or setting it came from).
    """
    rules = []
    for text in texts:
        try:
            rules.append(parse_rule(text))
        except ValueError as exc:
            raise ValueError(f"{origin}: {exc}") from None
    return tuple(rules)
