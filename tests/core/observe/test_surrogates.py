"""json_text: JSON that keeps UTF-8 and stays valid UTF-8 when a lone surrogate is in it."""

from __future__ import annotations

import json

import pytest

from agentforge_cli.core.observe.surrogates import json_text


@pytest.mark.parametrize(("indent", "separators", "plain"), [
    (None, (",", ":"), '{"name":"café","n":[1,2]}'),
    (None, (", ", ": "), '{"name": "café", "n": [1, 2]}'),
    (2, None, '{\n  "name": "café",\n  "n": [\n    1,\n    2\n  ]\n}'),
])
def test_utf8_is_kept_in_every_layout(indent, separators, plain) -> None:
    assert json_text({"name": "café", "n": [1, 2]}, indent=indent,
                     separators=separators) == plain


def test_a_lone_surrogate_escapes_the_text_and_round_trips() -> None:
    value = {"file": "caf\udce9", "name": "café"}
    text = json_text(value)
    text.encode("utf-8")  # valid UTF-8: raises if not
    assert text == '{"file":"caf\\udce9","name":"caf\\u00e9"}'
    assert json.loads(text) == value
