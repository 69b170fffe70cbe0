"""A scenario's run held against its expectations: each unmet one is a failure, said in
words.

An argument matcher is met when one call of its tool matches every part given: *exact*
(the arguments, parsed, equal the value), *subset* (each key given has that value; a
mapping inside is a subset again), *regex* (the value at each key, as text, has a match
of the pattern anywhere) and *json_path* (some value the path selects equals the value).
Values are compared as the model sent them (JSON), before binding.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentforge_cli.models.scenarios.cases import ArgumentMatcher, Expectations

__all__ = ["unmet"]


def _subset(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and _subset(value, actual[key]) for key, value in expected.items())
    return bool(expected == actual)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _at(value: Any, where: tuple[str | int, ...]) -> Any:
    for step in where:
        value = value[step]
    return value


def _mismatch(matcher: ArgumentMatcher, arguments: Any) -> str | None:
    """Why ``arguments`` (parsed) do not match, or ``None``."""
    if matcher.exact is not None and arguments != matcher.exact:
        return f"not exactly {_text(matcher.exact)}"
    if matcher.subset is not None and not _subset(matcher.subset, arguments):
        return f"not a superset of {_text(matcher.subset)}"
    for key, pattern in matcher.regex.items():
        if not isinstance(arguments, dict) or key not in arguments:
            return f"no {key!r} to match /{pattern.pattern}/"
        if pattern.search(_text(arguments[key])) is None:
            return f"{key!r} {_text(arguments[key])} does not match /{pattern.pattern}/"
    for text, (path, expected) in matcher.json_path.items():
        found = [_at(arguments, where) for where in path.locations(arguments)]
        if expected not in found:
            shown = ", ".join(map(_text, found)) or "nothing"
            return f"{text} is {shown}, not {_text(expected)}"
    return None


def _parsed(arguments: str) -> Any:
    try:
        return json.loads(arguments or "{}")
    except ValueError:
        return None


def _arguments_unmet(matcher: ArgumentMatcher, calls: Sequence[tuple[str, str]]
                     ) -> str | None:
    sent = [arguments for name, arguments in calls if name == matcher.tool]
    if not sent:
        return f"no call of {matcher.tool} to hold its arguments against"
    problems = [_mismatch(matcher, _parsed(arguments)) for arguments in sent]
    if None in problems:
        return None
    return f"no call of {matcher.tool} matched: {problems[-1]} ({sent[-1]})"


def _order_unmet(order: tuple[str, ...], names: list[str]) -> str | None:
    position = 0
    for name in names:
        if position < len(order) and name == order[position]:
            position += 1
    if position == len(order):
        return None
    made = ", ".join(names) or "nothing"
    return f"expected the calls in the order {', '.join(order)}; called {made}"


def unmet(expect: Expectations, calls: Sequence[tuple[str, str]]) -> list[str]:
    """The expectations ``calls`` (``(tool, argument JSON)`` in order) do not meet."""
    names = [name for name, _ in calls]
    failures = [f"did not call {name}" for name in expect.must_call if name not in names]
    failures += [f"called {name}, which it must not" for name in expect.must_not_call
                 if name in names]
    if expect.order:
        failures.append(_order_unmet(expect.order, names) or "")
    failures += [_arguments_unmet(matcher, calls) or "" for matcher in expect.arguments]
    return [failure for failure in failures if failure]
