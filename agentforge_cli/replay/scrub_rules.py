"""What a scrubber can name, parsed from its text: a JSON path, a regular expression or a
built-in detector.

=================  ==============================================================
``$.created_at``   a JSON path (:mod:`~agentforge_cli.replay.json_paths`): the value
                   there, whatever it is, becomes ``"<scrubbed>"``
``re:PATTERN``     a regular expression: each match in a text result, or in each
                   string of a JSON result, becomes ``<scrubbed>``
``timestamps``     ISO 8601 / RFC 3339 date-times (``2026-12-01T10:00:00.123Z``,
                   ``2026-12-01 10:00:00,123``) and HTTP dates (``Tue, 01 Dec 2026
                   10:00:00 GMT``) in text; in JSON also a Unix time (seconds to
                   nanoseconds since 1970) held as a number by a time-like key
                   (``created``, ``updated_at``, ``startTime``, ``ts``...)
``uuids``          UUIDs in any version (``8-4-4-4-12`` hex digits)
``hex-ids``        8 or more hex digits with at least one digit and one letter a-f,
                   standing alone (``op-3f2a9c1b``, a git SHA); a plain number is not one
``durations``      a number with a unit of time (``153ms``, ``1.5 s``, ``2m30s``,
                   ``3 minutes``; never a bare ``m``, which may be metres), ``0:00:01.25``
                   and ISO 8601 durations (``PT1.5S``); in JSON also a number held by
                   a duration-like key (``duration``, ``elapsed_ms``, ``took``,
                   ``latencyMs``...)
=================  ==============================================================

Each rule is compiled once, when it is read. A regular expression must compile, be at
most :data:`MAX_PATTERN_CHARS` long and never match the empty text (it would match
between every two characters). Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from agentforge_cli.replay.json_paths import JsonPath, parse_path

__all__ = ["DETECTORS", "MAX_PATTERN_CHARS", "REGEX_PREFIX", "Detector", "PathRule",
           "PatternRule", "Rule", "is_number", "parse_rule"]

REGEX_PREFIX = "re:"
MAX_PATTERN_CHARS = 1000
"""A longer regular expression is refused."""
SCRUBBED = "<scrubbed>"
"""What a JSON path's value and a regular expression's match become."""


@dataclass(frozen=True, slots=True)
class PathRule:
    """A JSON path: the values it selects are replaced, whole."""

    path: JsonPath

    @property
    def label(self) -> str:
        return self.path.text


@dataclass(frozen=True, slots=True)
class PatternRule:
    """A regular expression over text (``re:PATTERN``)."""

    pattern: re.Pattern[str]
    label: str
    """As written, ``re:`` included."""
    placeholder: str = SCRUBBED

    def replace(self, text: str) -> tuple[str, int]:
        """``text`` with every match replaced, and how many there were."""
        return self.pattern.subn(self.placeholder, text)

    def number(self, key: str | int, value: Any) -> bool:
        """A regular expression never claims a JSON number (only text)."""
        return False


@dataclass(frozen=True, slots=True)
class Detector:
    """A built-in detector: patterns over text, and the JSON numbers it claims by key."""

    label: str
    """Its name (``timestamps``)."""
    pattern: re.Pattern[str]
    placeholder: str
    keys: re.Pattern[str] | None = None
    """A JSON member whose name (lower case, without ``_`` and ``-``) matches holds a
    number this detector claims..."""
    numbers: tuple[tuple[int, int], ...] = ()
    """... when it is in one of these ranges (``()``: any number)."""

    def replace(self, text: str) -> tuple[str, int]:
        """``text`` with every match replaced, and how many there were."""
        return self.pattern.subn(self.placeholder, text)

    def number(self, key: str | int, value: Any) -> bool:
        """A JSON number ``value`` held by the member ``key`` is this detector's."""
        if self.keys is None or not isinstance(key, str):
            return False
        if not self.keys.fullmatch(key.lower().replace("_", "").replace("-", "")):
            return False
        if not self.numbers:
            return True
        number = abs(value)  # an int or a Decimal, compared exactly
        return any(low <= number < high for low, high in self.numbers)


Rule = PathRule | PatternRule | Detector
"""One scrubber, parsed."""

_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
_TIMESTAMP = re.compile(
    r"(?<![\w.])\d{4}-[01]\d-[0-3]\d[T ][0-2]\d:[0-5]\d(?::[0-6]\d(?:[.,]\d{1,9})?)?"
    r"(?:Z|[+-][0-2]\d(?::?[0-5]\d)?)?(?![\w.])"
    rf"|\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-3]?\d (?:{_MONTHS}) \d{{4}} "
    r"[0-2]\d:[0-5]\d:[0-6]\d (?:GMT|UTC|[+-]\d{4})\b")
_UUID = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-"
                   r"[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(?![0-9A-Fa-f])")
_HEX_ID = re.compile(r"(?<![0-9A-Za-z])(?:0x)?(?=[0-9A-Fa-f]*[0-9])(?=[0-9A-Fa-f]*[A-Fa-f])"
                     r"[0-9A-Fa-f]{8,}(?![0-9A-Za-z])")
_UNITS = (r"ns|[µμu]s|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|milliseconds?|"
          r"microseconds?|nanoseconds?")
_DURATION = re.compile(
    rf"(?<![\w.])(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:ns|[µμu]s|ms|s)(?![\w])"
    rf"|(?<![\w.])\d+(?:\.\d+)? ?(?:{_UNITS})(?!\w)"
    r"|(?<![\d:.])\d+:[0-5]\d:[0-5]\d\.\d{1,6}(?![\d.])"
    r"|\bP(?=\d|T\d)(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?"
    r"(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?\b")
_TIME_KEYS = re.compile(
    r"(?:created|updated|modified|deleted|expires|expiry|exp|iat|nbf|ts|time|timestamp|date"
    r"|datetime)|.*(?:at|time|timestamp|ts|date)")
_DURATION_KEYS = re.compile(
    r"(?:duration|elapsed|took|latency|runtime|timetaken|uptime"
    r"|(?:execution|response|processing|wall|run|elapsed|cpu|query|request)time)"
    r"(?:ms|millis|milliseconds|s|sec|secs|seconds|us|micros|ns|nanos)?")
_UNIX_TIMES = ((10**9, 10**10), (10**12, 10**13), (10**15, 10**16), (10**18, 10**19))
"""Seconds, milliseconds, microseconds and nanoseconds since 1970, 2001 to 2286."""

DETECTORS: dict[str, Detector] = {
    "timestamps": Detector("timestamps", _TIMESTAMP, "<timestamp>", _TIME_KEYS, _UNIX_TIMES),
    "uuids": Detector("uuids", _UUID, "<uuid>"),
    "hex-ids": Detector("hex-ids", _HEX_ID, "<hex-id>"),
    "durations": Detector("durations", _DURATION, "<duration>", _DURATION_KEYS),
}
"""The built-in detectors, in the order they are applied (a timestamp before the
duration its time of day would look like, a UUID before the hex digits it holds)."""


def parse_rule(text: str) -> Rule:
    """One scrubber from its text: ``$...`` a JSON path, ``re:...`` a regular expression,
    else a detector's name.

    Raises:
        ValueError: None of these; the message says why, and what is accepted.
    """
    given = text.strip()
    if given.startswith("$"):
        return PathRule(parse_path(given))
    if given.startswith(REGEX_PREFIX):
        return _pattern_rule(text.lstrip())  # the pattern as written, spaces and all
    detector = DETECTORS.get(given.lower())
    if detector is not None:
        return detector
    import difflib

    close = difflib.get_close_matches(given.lower(), DETECTORS, n=1)
    maybe = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"{text!r} is not a scrubber: give a JSON path ($.created_at, $..id), "
                     f"re:PATTERN, or a detector: {', '.join(DETECTORS)}{maybe}")


def _pattern_rule(given: str) -> PatternRule:
    source = given[len(REGEX_PREFIX):]
    if not source:
        raise ValueError("re: needs a pattern after it, e.g. re:op-[0-9]+")
    if len(source) > MAX_PATTERN_CHARS:
        raise ValueError(f"the regular expression is longer than {MAX_PATTERN_CHARS} "
                         "characters")
    try:
        pattern = re.compile(source)
    except (re.error, RecursionError, OverflowError) as exc:
        raise ValueError(f"{given!r} is not a valid regular expression: {exc}") from None
    if pattern.search("") is not None:
        raise ValueError(f"{given!r} matches the empty text, so it would match between "
                         "every two characters; make it match at least one")
    return PatternRule(pattern, given)


def is_number(value: Any) -> bool:
    """A JSON number as :mod:`~agentforge_cli.replay.compare` parses it (never a bool)."""
    return isinstance(value, int | Decimal) and not isinstance(value, bool)
