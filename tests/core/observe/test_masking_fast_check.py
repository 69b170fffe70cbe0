"""``may_hold_secret``'s fast check (one scan for the letters every secret name holds, then
one substring search per name) says exactly what its definition says, and the recorder
writes exactly what full masking gives: on random argument texts with secret-looking
names in any case and spelling, Python-dict style, escapes and lone surrogates."""

from __future__ import annotations

import json
import random
import re
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentforge_cli import ToolExecutionRequest, ToolExecutionResult
from agentforge_cli.core.bind.arguments import parse_arguments
from agentforge_cli.core.observe import masking
from agentforge_cli.core.observe.masking import (
    mask_arguments,
    mask_text,
    mask_value,
    may_hold_secret,
)
from agentforge_cli.core.observe.recording import CallRecorder
from agentforge_cli.errors import ArgumentError

NAMES = (*masking._SENSITIVE_ENDINGS, *sorted(masking._SENSITIVE_NAMES))
_ANY_NAME = re.compile("|".join(NAMES)).search


def defined_may_hold_secret(text: str, keys: frozenset[str]) -> bool:
    """The definition, spelled out: an escape, one of the tool's sensitive keys (as it is,
    or as the folded text holds it), or a secret name anywhere once case is folded and
    ``_``/``-`` dropped."""
    folded = text.lower().replace("_", "").replace("-", "")
    return ("\\u" in text or any(key in text or key in folded for key in keys)
            or _ANY_NAME(folded) is not None)


def spelled(name: str, rng: random.Random) -> str:
    """``name`` in a random case, with ``_`` or ``-`` between some letters."""
    out = []
    for letter in name:
        out.append(letter.upper() if rng.random() < 0.5 else letter)
        if rng.random() < 0.15:
            out.append(rng.choice("_-"))
    return "".join(out)


NEAR_MISSES = ["max_tokens", "author", "monkey", "keyboard", "pas", "otter", "bear", "cook",
               "secre", "tok", "jw", "pw", "api", "session_id", "pin", "name", "limit", "长路"]
KEYS = st.frozensets(st.sampled_from(["pin", "door", "db_password", "x"]), max_size=2)
ODD = st.sampled_from(["\\u0070", "\\\\", "\\", "\\n", "\u212a", "\u0130", "\udcff", "\ud800",
                       "'", '"', "{", "}", ":", ",", " ", "_", "-", "长", "é", "\x00"])


@st.composite
def key_names(draw: st.DrawFn) -> str:
    base = draw(st.sampled_from([*NAMES, *NEAR_MISSES]))
    prefix = draw(st.sampled_from(["", "db_", "x-", "client", "my "]))
    return prefix + spelled(base, draw(st.randoms(use_true_random=False)))


VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=12),
              key_names()),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(key_names(), inner, max_size=3)),
    max_leaves=8)


@st.composite
def argument_texts(draw: st.DrawFn) -> str:
    arguments = draw(st.dictionaries(st.one_of(key_names(), st.text(max_size=8)), VALUES,
                                     max_size=4))
    style = draw(st.sampled_from(["json", "ascii", "python", "twice", "broken", "pieces"]))
    if style == "json":
        return json.dumps(arguments, ensure_ascii=False)
    if style == "ascii":  # every non-ASCII letter an escape
        return json.dumps(arguments)
    if style == "python":  # a model writing Python's dict syntax
        return repr(arguments)
    if style == "twice":  # a double-encoded argument string
        return json.dumps(json.dumps(arguments))
    if style == "broken":  # cut short: does not parse
        text = json.dumps(arguments, ensure_ascii=False)
        return text[:draw(st.integers(0, len(text)))]
    return "".join(draw(st.lists(st.one_of(key_names(), ODD, st.text(max_size=4)),
                                 max_size=12)))


@settings(max_examples=300, deadline=None)
@given(argument_texts(), KEYS)
def test_the_fast_check_says_what_the_definition_says(text, keys):
    assert may_hold_secret(text, keys) is defined_may_hold_secret(text, keys)


@settings(max_examples=150, deadline=None)
@given(argument_texts(), KEYS)
def test_text_the_check_passes_over_has_nothing_to_mask(text, keys):
    """What the fast path leaves as it is, full masking would not have changed."""
    if may_hold_secret(text, keys):
        return
    try:
        parsed = parse_arguments(text)
    except ArgumentError:
        assert mask_text(text, keys) == text
    else:
        assert mask_value(parsed, keys) == parsed


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(argument_texts(), KEYS, st.text(max_size=10))
def test_the_recorder_writes_what_full_masking_gives(text, keys, content):
    with tempfile.TemporaryDirectory() as folder:
        recorder = CallRecorder(Path(folder) / "calls.jsonl")
        recorder.record(ToolExecutionRequest(id="c1", name="tool", arguments=text),
                        ToolExecutionResult(content, False), keys)
        recorder.close()
        written = recorder.path.read_bytes().decode("utf-8")
        assert written.endswith("\n")
        call, result = (json.loads(line) for line in written[:-1].split("\n"))
    expected = mask_arguments(text, keys) if defined_may_hold_secret(text, keys) else text
    assert _code_units(call["arguments"]) == _code_units(expected)
    assert _code_units(result["content"]) == _code_units(content)


def _code_units(text: str) -> bytes:
    """``text`` as UTF-16 code units: a high and a low surrogate held as two characters
    are written as the two escapes of one character, and JSON reads them back as that
    character, the same code units (``"\ud800\udcff"`` is ``"\U000100ff"``)."""
    return text.encode("utf-16-le", "surrogatepass")


def test_a_surrogate_pair_held_as_two_characters_reads_back_as_its_character():
    with tempfile.TemporaryDirectory() as folder:
        recorder = CallRecorder(Path(folder) / "calls.jsonl")
        recorder.record(ToolExecutionRequest(id="c1", name="tool", arguments="{}"),
                        ToolExecutionResult("a\ud800\udcff", False), frozenset())
        recorder.close()
        result = json.loads(recorder.path.read_text(encoding="utf-8").splitlines()[1])
    assert result["content"] == "a\U000100ff"


def test_every_secret_name_holds_one_of_the_scanned_letters():
    for name in NAMES:
        assert set(name) & set(masking._NAME_LETTERS), name
        assert masking._may_name_a_secret(name.upper()), name
    # every character that lower-cases to text holding one of them is scanned for
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if set(char.lower()) & set(masking._NAME_LETTERS):
            assert masking._may_name_a_secret(char), hex(code)


@pytest.mark.parametrize("text", [
    '{"auth": "s3-99"}', '{"OTP": 123}', '{"x-bearer": "t"}', '{"passphrase": "o s"}',
    '{"API_KEY": 1}', '{"Jwt": "e"}', '{"pwd": 1}', '{"\u212aey": 1, "api_\u212aey": 2}',
    '{"\\u0061uth": "x"}',
])
def test_secret_names_without_the_common_letters_are_found(text):
    assert may_hold_secret(text)
    assert "***" in mask_arguments(text)
