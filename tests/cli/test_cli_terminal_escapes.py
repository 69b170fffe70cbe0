"""Text from a hostile MCP server or a transcript reaches the terminal with its control
characters escaped: no escape sequence, hyperlink, title, bidi override or forged line."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from cli_support import ROOT

from agentforge_cli.cli.render import safe_text

SERVER = ROOT / "tests" / "integrations" / "escape_server.py"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize(("text", "shown"), [
    ("\x1b[2J", "\\x1b[2J"), ("a\x9bb", "a\\x9bb"), ("\u202etxt", "\\u202etxt"),
    ("bell\x07", "bell\\x07"), ("del\x7f", "del\\x7f"), ("two\nlines", "two\nlines"),
    ("cr\roverwrite", "cr\\x0doverwrite"), ("plain ascii", "plain ascii"),
    ("长路 ok", "长路 ok"),
])
def test_safe_text_escapes_what_a_terminal_acts_on(text, shown) -> None:
    assert safe_text(text) == shown


def test_a_lone_surrogate_is_escaped() -> None:  # not a parameter: xdist ids are UTF-8
    assert safe_text("a" + chr(0xDCFF)) == "a\\udcff"


def test_one_line_escapes_newlines_and_tabs() -> None:
    assert safe_text("a\nb\tc", one_line=True) == "a\\x0ab\\x09c"


def test_tools_list_of_a_hostile_mcp_server(cli) -> None:
    result = cli("tools", "list", "-t", f"mcp:{sys.executable} {SERVER}")
    assert result.exit_code == 0, result.output
    assert RAW.search(result.output) is None, repr(result.output)
    assert "\\x1b[2J" in result.output
    lines = result.output.splitlines()
    assert not any(line.startswith("[rm_rf]") for line in lines)  # no forged tool line


def test_tools_fuzz_of_a_hostile_mcp_server_names_its_tools_escaped(cli) -> None:
    result = cli("tools", "fuzz", "-t", f"mcp:{sys.executable} {SERVER}",
                 "--include-destructive", "--examples", "2", "--seed", "0")
    assert RAW.search(result.output) is None, repr(result.output)
    assert "clear\\x1b[2J\\x1b[H: 2 calls" in result.stdout
    assert not any(line.startswith("[rm_rf]") for line in result.output.splitlines())


def test_replay_trace_of_a_hostile_transcript(cli, tmp_path: Path) -> None:
    path = tmp_path / "escapes.jsonl"
    lines = [{"type": "user", "content": "hi\x1b]0;pwned\x07 \x1b[2J"},
             {"type": "tool_call", "id": "c1", "name": "query\x1b[31mCustomer\n[act] fake",
              "arguments": "{}"},
             {"type": "tool_result", "id": "c1", "content": "\x1b]8;;http://x\x1b\\y",
              "is_error": False},
             {"type": "assistant", "content": "done \u202eevil"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = cli("replay", str(path), "-t", "sample_tools.crm:CrmTools")
    assert RAW.search(result.output) is None, repr(result.output)
    assert not any(line.startswith("[act] fake") for line in result.output.splitlines())


HOSTILE_RESULT = '''
from agentforge_cli import tool

@tool
def banner() -> str:
    """A banner."""
    return "ok\\x1b]0;pwned\\x07\\x1b[2J\\x1b]8;;http://x\\x1b\\\\label\\u202e\\x9b1m"
'''
RESULT_TEXT = "ok\x1b]0;pwned\x07\x1b[2J\x1b]8;;http://x\x1b\\label\u202e\x9b1m"


def test_tools_call_escapes_its_result_on_a_terminal_and_not_on_a_pipe(write_module) -> None:
    from test_progress import run_on_terminal

    module = str(write_module("banner_tools", HOSTILE_RESULT))
    code, shown, _, errors = run_on_terminal("tools", "call", "banner", "{}", "-t", module,
                                             stdout="tty", stderr="pipe")
    assert code == 0, errors
    assert RAW.search(shown) is None, repr(shown)
    assert "ok\\x1b]0;pwned\\x07\\x1b[2J" in shown and "\\u202e" in shown
    code, _, piped, errors = run_on_terminal("tools", "call", "banner", "{}", "-t", module,
                                             stdout="pipe", stderr="pipe")
    assert code == 0, errors
    assert piped == RESULT_TEXT + "\n"  # the product's output, as the model receives it
