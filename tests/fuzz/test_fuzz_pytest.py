"""``pytest --agentforge-fuzz``: one item per tool, inside a throw-away session."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

import pytest

pytest_plugins = ["pytester"]

TOOLS = '''
from agentforge_cli import tool

@tool
def echo(n: int) -> int:
    """Answers."""
    return n

@tool
def first(items: list[int]) -> int:
    """Crashes on an empty list."""
    return items[0]
'''


def _plugin_args() -> list[str]:
    installed = any(ep.value == "agentforge_cli.integrations.pytest.plugin"
                    for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "agentforge_cli.integrations.pytest.plugin"]


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("AGENTFORGE_TOOLS", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    pytester.syspathinsert()
    pytester.makepyfile(af_fuzz_tools=TOOLS, test_plain="def test_plain():\n    pass\n")
    pytester.makeini("[pytest]\nagentforge_tools = af_fuzz_tools\n"
                     "agentforge_fuzz_examples = 20\nagentforge_fuzz_seed = 1\n")

    def run_pytest(*args: str) -> pytest.RunResult:
        return pytester.runpytest(*_plugin_args(), "-p", "no:cacheprovider", *args)

    return run_pytest


def test_one_item_per_tool_fails_on_the_crash_with_the_command(run):
    result = run("--agentforge-fuzz", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*agentforge_fuzz*echo* PASSED*",
        "*agentforge_fuzz*first* FAILED*",
        "*crash: IndexError: list index out of range*",
        "*reproduce: agentforge tools call first '{\"items\":[[][]]}' -t af_fuzz_tools",
    ])


def test_without_the_option_nothing_is_added(run):
    run().assert_outcomes(passed=1)


WRITER = '''
from agentforge_cli import tool

@tool
def save_note(text: str) -> str:
    """Writes note.txt into the working directory."""
    with open("note.txt", "w", encoding="utf-8") as note:
        note.write(text)
    return "saved"

@tool
def label(text: str) -> str:
    """Answers; its string constant is what hypothesis caches from source files."""
    return "special" if text == "a constant hypothesis collects" else text
'''


@pytest.fixture
def run_apart(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """pytest in a subprocess whose temporary directory (TMPDIR) is not its working
    directory, with no hypothesis storage directory set."""
    temp = pytester.path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    for name in ("HYPOTHESIS_STORAGE_DIRECTORY", "AGENTFORGE_TOOLS", "PYTHONDONTWRITEBYTECODE"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(af_writer_tools=WRITER)
    pytester.makeini("[pytest]\nagentforge_tools = af_writer_tools\n"
                     "agentforge_fuzz_examples = 20\nagentforge_fuzz_seed = 1\n")

    def run_pytest(*args: str) -> pytest.RunResult:
        return pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider",
                                             "--agentforge-fuzz", *args)

    return run_pytest


def test_the_guard_blocks_an_effect_and_lists_it_without_failing(run_apart, pytester):
    result = run_apart("-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "*agentforge_fuzz*save_note* PASSED*",
        "*agentforge fuzz: blocked effects*",
        "save_note: 20 calls stopped by the effect guard",
        f"  blocked effect: open('{pytester.path.resolve() / 'note.txt'}', 'w')",
    ])
    assert not (pytester.path / "note.txt").exists()


def test_allow_effects_lets_the_calls_run(run_apart, pytester):
    result = run_apart("--agentforge-fuzz-allow-effects")
    result.assert_outcomes(passed=2)
    assert "blocked effects" not in result.stdout.str()
    assert (pytester.path / "note.txt").exists()


def test_hypothesis_writes_nothing_into_the_working_directory(run_apart, pytester):
    run_apart().assert_outcomes(passed=2)
    assert not (pytester.path / ".hypothesis").exists()
