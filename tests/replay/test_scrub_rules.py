"""``replay.scrub_rules``: what each built-in detector takes and leaves, regular
expressions checked when read, and a clear refusal of what is no scrubber."""

from __future__ import annotations

import re
import time
from decimal import Decimal

import pytest

from agentforge_cli.replay.scrub_rules import (
    DETECTORS,
    MAX_PATTERN_CHARS,
    PathRule,
    PatternRule,
    parse_rule,
)


def scrubbed(detector: str, text: str) -> str:
    return DETECTORS[detector].replace(text)[0]


@pytest.mark.parametrize(("detector", "text", "expected"), [
    ("timestamps", "at 2026-12-01T10:00:00Z", "at <timestamp>"),
    ("timestamps", "2026-12-01T10:00:00.123456+01:00 ok", "<timestamp> ok"),
    ("timestamps", "2026-12-01 10:00:00,123 INFO start", "<timestamp> INFO start"),
    ("timestamps", "2026-12-01T10:00+0100", "<timestamp>"),
    ("timestamps", "Date: Tue, 01 Dec 2026 10:00:00 GMT", "Date: <timestamp>"),
    ("timestamps", "born 2026-12-01", "born 2026-12-01"),  # a date alone is no clock value
    ("timestamps", "version 2026.12.01", "version 2026.12.01"),
    ("timestamps", "v12026-12-01T10:00:00Z", "v12026-12-01T10:00:00Z"),
    ("uuids", "id 5b0e8c1e-3f7a-4c55-9d0e-2f4b8a6c7d10.", "id <uuid>."),
    ("uuids", "req_5B0E8C1E-3F7A-4C55-9D0E-2F4B8A6C7D10", "req_<uuid>"),
    ("uuids", "5b0e8c1e-3f7a-4c55-9d0e-2f4b8a6c7d1", "5b0e8c1e-3f7a-4c55-9d0e-2f4b8a6c7d1"),
    ("hex-ids", "op-3f2a9c1b done", "op-<hex-id> done"),
    ("hex-ids", "commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3", "commit <hex-id>"),
    ("hex-ids", "op_0x1A2B3C4D", "op_<hex-id>"),
    ("hex-ids", "total 12345678", "total 12345678"),  # a number is not an id
    ("hex-ids", "deadbeefcafe", "deadbeefcafe"),  # nor a word of hex letters
    ("hex-ids", "3f2a9c1", "3f2a9c1"),  # shorter than 8
    ("hex-ids", "x3f2a9c1bz", "x3f2a9c1bz"),  # inside a word
    ("durations", "took 153ms", "took <duration>"),
    ("durations", "in 1.5 s, then 2m30s", "in <duration>, then <duration>"),
    ("durations", "3 minutes and 1h", "<duration> and <duration>"),
    ("durations", "250µs", "<duration>"),
    ("durations", "elapsed 0:00:01.250000", "elapsed <duration>"),
    ("durations", "PT1.5S or P1DT2H", "<duration> or <duration>"),
    ("durations", "5 m of cable, 5m", "5 m of cable, 5m"),  # metres, maybe
    ("durations", "3 sheep, 10:00:00", "3 sheep, 10:00:00"),
    ("durations", "v1.5s", "v1.5s"),
])
def test_each_detector_takes_its_values_and_leaves_the_rest(detector, text, expected):
    assert scrubbed(detector, text) == expected


@pytest.mark.parametrize(("detector", "key", "value", "claimed"), [
    ("timestamps", "created", 1_764_583_200, True),
    ("timestamps", "updated_at", Decimal("1764583200.123"), True),
    ("timestamps", "startTime", 1_764_583_200_000, True),
    ("timestamps", "ts", 1_764_583_200_000_000_000, True),
    ("timestamps", "created", 42, False),  # no Unix time
    ("timestamps", "count", 1_764_583_200, False),  # no time-like key
    ("timestamps", 0, 1_764_583_200, False),  # an array element has no key
    ("durations", "took", 12, True),
    ("durations", "elapsed_ms", Decimal("0.5"), True),
    ("durations", "latencyMs", 3, True),
    ("durations", "response-time", 3, True),
    ("durations", "total", 3, False),
    ("uuids", "id", 3, False),
])
def test_a_number_is_claimed_by_its_key(detector, key, value, claimed):
    assert DETECTORS[detector].number(key, value) is claimed


def test_the_detectors_run_in_linear_time_on_hostile_text():
    hostile = ["1" * 100_000 + "x", "a1" * 50_000 + "g", "2026-12-01T" * 10_000,
               "1:" * 50_000, "P" + "1" * 100_000]
    started = time.perf_counter()
    for text in hostile:
        for detector in DETECTORS.values():
            detector.replace(text)
    assert time.perf_counter() - started < 2.0


def test_a_rule_is_read_by_its_form():
    assert isinstance(parse_rule("$.created_at"), PathRule)
    assert parse_rule(" timestamps ") is DETECTORS["timestamps"]
    assert parse_rule("UUIDS") is DETECTORS["uuids"]
    rule = parse_rule("re:op-[0-9]+ ")
    assert isinstance(rule, PatternRule)
    assert rule.pattern.pattern == "op-[0-9]+ "  # the pattern as written, its space kept
    assert rule.replace("op-12 op-3") == ("<scrubbed>op-3", 1)


@pytest.mark.parametrize(("text", "problem"), [
    ("timestamp", "'timestamp' is not a scrubber: give a JSON path ($.created_at, $..id), "
                  "re:PATTERN, or a detector: timestamps, uuids, hex-ids, durations; did "
                  "you mean 'timestamps'?"),
    ("created_at", "'created_at' is not a scrubber"),
    ("re:", "re: needs a pattern after it"),
    ("re:(op", "'re:(op' is not a valid regular expression: missing ), unterminated "
               "subpattern at position 0"),
    ("re:a*", "'re:a*' matches the empty text"),
    ("re:x|", "matches the empty text"),
    ("re:" + "a" * (MAX_PATTERN_CHARS + 1), "longer than 1000 characters"),
    ("$created", "expected . or ["),
])
def test_what_is_no_scrubber_is_refused_saying_why(text, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        parse_rule(text)
