"""How ``tools call`` reads an argument string: as given, from standard input (``-``) or
from a file (``@FILE``), never past the argument limit."""

from __future__ import annotations

import io

import pytest

from agentforge_cli.core.bind.arguments import DEFAULT_MAX_ARGUMENT_CHARS
from agentforge_cli.core.run.argument_text import read_argument_text
from agentforge_cli.errors import CommandInputError


def test_text_is_taken_as_given():
    assert read_argument_text('{"a": 1}') == '{"a": 1}'


def test_a_dash_reads_standard_input():
    assert read_argument_text("-", io.StringIO('{"b": 2}')) == '{"b": 2}'


def test_an_at_sign_reads_the_file(tmp_path):
    (tmp_path / "args.json").write_text('{"c": "é"}', encoding="utf-8")
    assert read_argument_text(f"@{tmp_path / 'args.json'}") == '{"c": "é"}'


def test_a_missing_file_is_refused_naming_it(tmp_path):
    missing = tmp_path / "none.json"
    with pytest.raises(CommandInputError, match=r"cannot read the arguments file .*none\.json"):
        read_argument_text(f"@{missing}")


def test_a_file_that_is_not_utf8_is_refused(tmp_path):
    (tmp_path / "latin.json").write_bytes(b'{"d": "\xe9"}')
    with pytest.raises(CommandInputError, match="is not UTF-8 text"):
        read_argument_text(f"@{tmp_path / 'latin.json'}")


def test_standard_input_past_the_limit_is_refused():
    stream = io.StringIO("x" * (DEFAULT_MAX_ARGUMENT_CHARS + 5))
    with pytest.raises(CommandInputError) as refused:
        read_argument_text("-", stream)
    assert refused.value.message == ("the arguments on standard input are more than the "
                                     f"limit of {DEFAULT_MAX_ARGUMENT_CHARS} characters")
    assert stream.tell() == DEFAULT_MAX_ARGUMENT_CHARS + 1  # read no further than needed
