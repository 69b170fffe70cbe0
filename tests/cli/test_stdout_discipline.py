"""Standard output is the product's output: what a user's tool module prints (at import,
inside a tool, from an async tool, by ``sys.stdout.write``) goes to standard error, for
every command but ``serve`` (which has tests of its own). Run as a user runs it: the
installed ``agentforge`` command in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_support import ROOT

from agentforge_cli.schema.providers import LIST_FORMATS

AGENTFORGE = Path(sys.executable).parent / "agentforge"  # installed by `make`

NOISY = '''
    import asyncio
    import sys

    from agentforge_cli import tool

    print("NOISE at import")
    sys.stdout.write("NOISE written at import\\n")


    @tool
    def echo(text: str) -> str:
        """Return the text as given.

        Args:
            text: The text.
        """
        print("NOISE in echo")
        sys.stdout.write("NOISE written in echo\\n")
        return text


    @tool
    async def shout(text: str) -> str:
        """Return the text in capitals.

        Args:
            text: The text.
        """
        print("NOISE in shout")
        await asyncio.sleep(0)
        sys.stdout.write("NOISE written in shout\\n")
        return text.upper()
'''

TRANSCRIPT = [
    {"type": "user", "content": "say hi twice"},
    {"type": "tool_call", "id": "c1", "name": "echo", "arguments": '{"text": "hi"}'},
    {"type": "tool_result", "id": "c1", "content": "hi"},
    {"type": "tool_call", "id": "c2", "name": "shout", "arguments": '{"text": "hi"}'},
    {"type": "tool_result", "id": "c2", "content": "HI"},
    {"type": "assistant", "content": "hi HI"},
]


@pytest.fixture
def noisy(tmp_path: Path) -> str:
    path = tmp_path / "noisy_tools.py"
    path.write_text(textwrap.dedent(NOISY), encoding="utf-8")
    return str(path)


def run(*args: str) -> tuple[int, str, str]:
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "FORCE_COLOR")}
    environment.update({"NO_COLOR": "1", "COLUMNS": "80", "PYTHONIOENCODING": "utf-8"})
    done = subprocess.run([str(AGENTFORGE), *args], cwd=ROOT, env=environment,
                          capture_output=True, timeout=60)
    return done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8")


def assert_noise_on_stderr(stdout: str, stderr: str, *tools: str) -> None:
    assert "NOISE" not in stdout
    expected = ["NOISE at import", "NOISE written at import"]
    for name in tools:
        expected += [f"NOISE in {name}", f"NOISE written in {name}"]
    assert [line for line in stderr.splitlines() if line.startswith("NOISE")] == expected


@pytest.mark.parametrize(("name", "result"), [("echo", "hi"), ("shout", "HI")])
def test_tools_call_prints_only_the_result(noisy, name, result):
    code, stdout, stderr = run("tools", "call", name, '{"text": "hi"}', "-t", noisy)
    assert (code, stdout) == (0, result + "\n")
    assert_noise_on_stderr(stdout, stderr, name)


@pytest.mark.parametrize(("name", "result"), [("echo", "hi"), ("shout", "HI")])
def test_tools_call_json_is_json(noisy, name, result):
    code, stdout, stderr = run("tools", "call", name, '{"text": "hi"}', "-t", noisy,
                               "--json")
    assert code == 0
    document = json.loads(stdout)
    assert (document["name"], document["result"], document["is_error"]) == (name, result,
                                                                             False)
    assert_noise_on_stderr(stdout, stderr, name)


@pytest.mark.parametrize("output_format", ["json", *LIST_FORMATS])
def test_tools_list_formats_are_json(noisy, output_format):
    code, stdout, stderr = run("tools", "list", noisy, "--format", output_format)
    assert code == 0
    document = json.loads(stdout)
    assert len(document["tools"] if output_format == "mcp" else document) == 2
    assert_noise_on_stderr(stdout, stderr)


def test_tools_list_table_is_the_table(noisy):
    code, stdout, stderr = run("tools", "list", noisy)
    assert code == 0
    assert stdout == ("[echo] Return the text as given.\n"
                      "  parameters: { text: string (required) }\n"
                      "    text: The text.\n"
                      "[shout] Return the text in capitals.\n"
                      "  parameters: { text: string (required) }\n"
                      "    text: The text.\n")
    assert_noise_on_stderr(stdout, stderr)


def test_tools_check_json_is_json(noisy):
    code, stdout, stderr = run("tools", "check", noisy, "--json")
    assert code == 0
    assert json.loads(stdout)["tools"] == 2
    assert_noise_on_stderr(stdout, stderr)


def test_tools_diff_json_is_json(noisy, tmp_path):
    """``tools diff`` reads snapshot files only; the snapshots here come from the noisy
    module through ``tools list --format json``, whose stdout must be the snapshot."""
    code, snapshot, _ = run("tools", "list", noisy, "--format", "json")
    assert code == 0
    old = tmp_path / "old.json"
    old.write_text(snapshot, encoding="utf-8")
    code, stdout, stderr = run("tools", "diff", str(old), str(old), "--json")
    assert (code, stderr) == (0, "")
    assert json.loads(stdout)["ok"] is True


@pytest.fixture
def transcript(tmp_path: Path) -> str:
    path = tmp_path / "noisy.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in TRANSCRIPT), encoding="utf-8")
    return str(path)


def test_replay_json_is_json(noisy, transcript):
    code, stdout, stderr = run("replay", transcript, "-t", noisy, "--json")
    assert code == 0
    document = json.loads(stdout)
    assert document["summary"] == {"matched": 2, "mismatched": 0, "unrecorded": 0}
    assert [call["actual"] for call in document["calls"]] == ["hi", "HI"]
    assert_noise_on_stderr(stdout, stderr, "echo", "shout")


def test_replay_trace_has_only_the_trace(noisy, transcript):
    code, stdout, stderr = run("replay", transcript, "-t", noisy)
    assert code == 0
    assert stdout.splitlines()[:2] == ["[user]    say hi twice", "[think]   call echo"]
    assert "✓ 2 calls replayed, no result differs" in stdout
    assert_noise_on_stderr(stdout, stderr, "echo", "shout")


def test_in_process_each_invocation_gets_its_own_streams(cli, noisy):
    """Under typer's CliRunner (which swaps the streams per invocation) the product goes
    to that invocation's stdout, the noise to its stderr, and ``sys.stdout`` is given
    back afterwards, after an error exit too."""
    before = sys.stdout
    first = cli("tools", "call", "echo", '{"text": "one"}', "-t", noisy)
    second = cli("tools", "call", "shout", '{"text": "two"}', "-t", noisy)
    listed = cli("tools", "list", noisy)
    failed = cli("tools", "call", "echo", "{", "-t", noisy)
    assert (first.exit_code, first.stdout) == (0, "one\n")
    assert (second.exit_code, second.stdout) == (0, "TWO\n")
    assert listed.stdout.startswith("[echo] Return the text as given.\n")
    assert "NOISE in echo" in first.stderr and "NOISE in shout" in second.stderr
    assert "NOISE" not in first.stdout + second.stdout + listed.stdout + failed.stdout
    assert failed.exit_code == 1
    assert sys.stdout is before
