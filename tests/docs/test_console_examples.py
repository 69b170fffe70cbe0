"""Every ```console block in README.md and docs/*.md runs, and prints what the page shows.

The conventions are described for writers in docs/development.md ("Console examples"):

* ``$ agentforge ...`` runs the virtualenv's ``agentforge``; ``$ cp A B`` and ``$ cat FILE``
  set up and show files. A line with a pipe or redirect runs through ``bash -c``.
* The lines after a command, up to the next ``$ `` line or the end of the block, are what
  it prints: standard output and standard error together, in the order written.
* ``$ echo $?`` right after a command states its exit code; without it the code must be 0.
* ``...`` alone on a line stands for any number of lines; ``<ms>`` for a number (a timing)
  and ``<id>`` for a generated call id. Nothing else is a wildcard.
* Each block is one shell session in a fresh scratch directory holding copies of
  ``sample_tools/``, ``docs/`` and ``pyproject.toml``, so commands may write files there.

One pytest item per command, named ``page:line``. Blocks run in parallel threads, each
block's commands in order, once per test session.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
SCRATCH_COPIES = ("sample_tools", "docs", "pyproject.toml")
TIMEOUT_SECONDS = 60
# A floor on what is collected, so a parsing slip can never pass vacuously.
MIN_EXAMPLES = 55

OPEN_FENCE = re.compile(r"^```console\s*$")
CLOSE_FENCE = re.compile(r"^```\s*$")
EXIT_CODE_COMMAND = "echo $?"
ANY_LINES = "..."
PLACEHOLDERS = {"<ms>": r"\d+(?:\.\d+)?", "<id>": r"cli-[0-9a-f]{12}"}
COMMANDS = ("agentforge", "cp", "cat")
SHELL_CHARACTERS = set("|&;<>()")


@dataclass(frozen=True, kw_only=True, slots=True)
class Example:
    """One ``$ command`` of a console block and what the page says it does."""

    page: str
    """The page, relative to the repository root."""
    line: int
    """The 1-based line of the ``$ `` command."""
    command: str
    """The command as written after ``$ ``."""
    expected: tuple[str, ...]
    """The lines the page shows as its output."""
    exit_code: int
    """The exit code the page states with ``$ echo $?`` (0 when it states none)."""

    @property
    def name(self) -> str:
        """The pytest id: ``page:line``."""
        return f"{self.page}:{self.line}"


@dataclass(frozen=True, kw_only=True, slots=True)
class Block:
    """One ```console block: a shell session of examples run in order."""

    page: str
    """The page, relative to the repository root."""
    line: int
    """The 1-based line of the opening fence."""
    examples: tuple[Example, ...]
    """The block's commands, in order."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Outcome:
    """What running one example did."""

    output: str
    """Standard output and standard error, interleaved as written."""
    exit_code: int | None
    """The exit code, or None when the command timed out."""


def parse_page(path: Path) -> list[Block]:
    """The console blocks of a Markdown page of this repository."""
    return parse_page_at(path, path.relative_to(ROOT).as_posix())


def parse_page_at(path: Path, page: str = "page.md") -> list[Block]:
    """The console blocks of a Markdown file, named ``page`` in test ids."""
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        if OPEN_FENCE.match(lines[index]):
            start = index
            index += 1
            body: list[tuple[int, str]] = []
            while index < len(lines) and not CLOSE_FENCE.match(lines[index]):
                body.append((index + 1, lines[index]))
                index += 1
            blocks.append(Block(page=page, line=start + 1, examples=_examples(page, body)))
        index += 1
    return blocks


def _examples(page: str, body: list[tuple[int, str]]) -> tuple[Example, ...]:
    """Split a block's lines into commands with their output and exit code."""
    steps: list[tuple[int, str, list[str]]] = []
    for number, text in body:
        if text.startswith("$ "):
            steps.append((number, text[2:].strip(), []))
        elif steps:
            steps[-1][2].append(text.rstrip())
        elif text.strip():
            raise ValueError(f"{page}:{number}: console block output before any `$ ` command")
    examples: list[Example] = []
    for number, command, output in steps:
        if command == EXIT_CODE_COMMAND:
            if not examples or len(_trimmed(output)) != 1 or not output[0].isdigit():
                raise ValueError(f"{page}:{number}: `$ echo $?` must follow a command "
                                 "and be followed by one exit code")
            last = examples.pop()
            examples.append(Example(page=last.page, line=last.line, command=last.command,
                                    expected=last.expected, exit_code=int(output[0])))
            continue
        examples.append(Example(page=page, line=number, command=command,
                                expected=tuple(_trimmed(output)), exit_code=0))
    return tuple(examples)


def _trimmed(lines: list[str]) -> list[str]:
    """Lines without trailing blank ones."""
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def run_block(block: Block) -> list[Outcome]:
    """Run a block's commands in order, in a fresh scratch directory."""
    with tempfile.TemporaryDirectory(prefix="agentforge-docs-") as scratch:
        cwd = Path(scratch)
        for name in SCRATCH_COPIES:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, cwd / name,
                                ignore=shutil.ignore_patterns("__pycache__"))
            elif source.exists():
                shutil.copy2(source, cwd / name)
        return [_run(example.command, cwd) for example in block.examples]


def _environment() -> dict[str, str]:
    """The terminal the pages describe: no colour, 80 columns, UTF-8, unbuffered."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("AGENTFORGE_", "FORCE_COLOR", "PYTEST_"))}
    env.update(NO_COLOR="1", COLUMNS="80", TERM="dumb", PYTHONUTF8="1",
               PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
               PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}")
    return env


def _run(command: str, cwd: Path) -> Outcome:
    """Run one command; the shell only when it pipes or redirects."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words = list(lexer)
    if not words or words[0] not in COMMANDS:
        return Outcome(output=f"unsupported command (allowed: {', '.join(COMMANDS)})",
                       exit_code=None)
    if words[0] == "agentforge" and words[1:2] == ["serve"]:
        return Outcome(output="`agentforge serve` runs until stdin closes: show it in a "
                              "```text block, not a console example", exit_code=None)
    if any(set(word) <= SHELL_CHARACTERS for word in words):  # a pipe or a redirect
        argv: list[str] = ["bash", "-c", command]
    else:
        argv = shlex.split(command)
        if argv[0] == "agentforge":
            argv[0] = str(BIN / "agentforge")
    try:
        done = subprocess.run(argv, cwd=cwd, env=_environment(), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        return Outcome(output=f"timed out after {TIMEOUT_SECONDS} s", exit_code=None)
    return Outcome(output=done.stdout.decode("utf-8", "backslashreplace"),
                   exit_code=done.returncode)


def matches(expected: tuple[str, ...], output: str) -> bool:
    """Whether the output is the expected lines, wildcards allowed."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?" if line == ANY_LINES else _line_pattern(line) + r"\n"
        for line in expected
    )
    actual = "".join(line + "\n" for line in output_lines(output))
    return re.fullmatch(pattern, actual) is not None


def output_lines(output: str) -> list[str]:
    """The printed lines as compared: trailing spaces and trailing blank lines dropped."""
    return _trimmed([line.rstrip() for line in output.splitlines()])


def _line_pattern(line: str) -> str:
    """A regular expression for one expected line: literal, but for the placeholders."""
    parts = re.split("(" + "|".join(map(re.escape, PLACEHOLDERS)) + ")", line)
    return "".join(PLACEHOLDERS.get(part) or re.escape(part) for part in parts)


BLOCKS = [block for page in PAGES for block in parse_page(page)]
EXAMPLES = [(block, position) for block in BLOCKS for position in range(len(block.examples))]


@pytest.fixture(scope="session")
def block_runs(request: pytest.FixtureRequest):
    """The selected tests' blocks, all started at once in a thread pool."""
    selected = {item.callspec.params["block"] for item in request.session.items
                if "block" in getattr(getattr(item, "callspec", None), "params", {})}
    with ThreadPoolExecutor(max_workers=max(4, os.cpu_count() or 1)) as pool:
        futures: dict[Block, Future[list[Outcome]]] = {
            block: pool.submit(run_block, block) for block in BLOCKS if block in selected
        }
        yield futures


def test_wildcards_stand_only_for_what_they_say():
    assert matches(("a", "...", "z"), "a\nb\nc\nz\n")
    assert matches(("a", "...", "z"), "a\nz")
    assert not matches(("a", "...", "z"), "a\nb")
    assert matches(("duration: <ms> ms", "call id: <id>"),
                   "duration: 0.35 ms\ncall id: cli-0123456789ab\n")
    assert not matches(("duration: <ms> ms",), "duration: fast ms")
    assert not matches(("call id: <id>",), "call id: cli-xyz")
    assert not matches(("a.b",), "axb")  # everything else is literal
    assert matches(("text",), "text   \n\n")  # trailing spaces and blank lines ignored
    assert not matches(("text",), "text\nmore")


def test_echo_status_states_the_exit_code(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```console\n$ agentforge a\nout\n$ echo $?\n2\n$ agentforge b\n```\n",
                    encoding="utf-8")
    first, second = parse_page_at(page)[0].examples
    assert (first.line, first.command, first.expected, first.exit_code) == (
        2, "agentforge a", ("out",), 2)
    assert (second.line, second.expected, second.exit_code) == (6, (), 0)


def test_output_before_any_command_is_refused(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```console\nstray output\n$ agentforge a\n```\n", encoding="utf-8")
    with pytest.raises(ValueError, match="before any"):
        parse_page_at(page)


def test_only_the_documented_commands_run(tmp_path):
    refused = _run("rm -rf sample_tools", tmp_path)
    assert refused.exit_code is None and "unsupported command" in refused.output
    serve = _run("agentforge serve sample_tools.crm:CrmTools", tmp_path)
    assert serve.exit_code is None and "```text block" in serve.output


def test_every_console_block_has_examples():
    empty = [f"{block.page}:{block.line}" for block in BLOCKS if not block.examples]
    assert not empty, f"console blocks without a `$ ` command: {empty}"
    assert len(EXAMPLES) >= MIN_EXAMPLES, f"only {len(EXAMPLES)} console examples collected"


@pytest.mark.parametrize(
    ("block", "position"), EXAMPLES,
    ids=[block.examples[position].name for block, position in EXAMPLES],
)
def test_console_example(block: Block, position: int, block_runs):
    example = block.examples[position]
    outcome = block_runs[block].result()[position]
    shown = "\n".join(difflib.unified_diff(
        list(example.expected), output_lines(outcome.output),
        "the page", "the program", lineterm=""))
    if not matches(example.expected, outcome.output):
        pytest.fail(f"{example.name}: $ {example.command}\n{shown}", pytrace=False)
    if outcome.exit_code != example.exit_code:
        pytest.fail(f"{example.name}: $ {example.command}\nexited {outcome.exit_code}, "
                    f"the page says {example.exit_code}\n{outcome.output}", pytrace=False)
