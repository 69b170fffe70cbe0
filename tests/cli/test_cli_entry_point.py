"""The installed ``agentforge`` entry point, run the way a user and CI run it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cli_support import CRM, ROOT, TABLE_LIST, TRANSCRIPTS

AGENTFORGE = Path(sys.executable).parent / "agentforge"
if not AGENTFORGE.exists():  # pragma: no cover - a python outside the virtualenv
    AGENTFORGE = Path(shutil.which("agentforge") or AGENTFORGE)


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None,
        input: str | None = None) -> subprocess.CompletedProcess[bytes]:
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "FORCE_COLOR")}
    environment.update({"NO_COLOR": "1", "COLUMNS": "80", "PYTHONIOENCODING": "utf-8"})
    environment.update(env or {})
    return subprocess.run([str(AGENTFORGE), *args], cwd=cwd, env=environment,
                          input=None if input is None else input.encode(),
                          capture_output=True, timeout=60)


def text(stream: bytes) -> str:
    return stream.decode("utf-8")


def test_version():
    done = run("--version")
    assert done.returncode == 0
    assert text(done.stdout) == "agentforge 0.1.0\n"


def test_tools_list_table_view():
    done = run("tools", "list", CRM)
    assert done.returncode == 0
    assert text(done.stdout) == TABLE_LIST


def test_tools_call_exit_codes():
    ok = run("tools", "call", "queryCustomer", '{"name":"长路","limit":"5"}', "-t", CRM)
    assert (ok.returncode, text(ok.stdout)) == (0, "customer:长路,limit:5\n")
    failed = run("tools", "call", "queryCustomer", '{"name":"长路","limit":5.5}', "-t", CRM)
    assert failed.returncode == 1
    assert text(failed.stdout).startswith('Argument "limit" has non-integer value')
    unknown = run("tools", "call", "queryCustomr", "-t", CRM)
    assert unknown.returncode == 2
    assert "Did you mean: queryCustomer?" in text(unknown.stderr)
    bad_option = run("tools", "call", "queryCustomer", "--nope", "-t", CRM)
    assert bad_option.returncode == 2
    missing = run("tools", "call", "queryCustomer", "-t", "sample_tools.missing")
    assert missing.returncode == 3
    for done in (failed, unknown, bad_option, missing):
        assert b"Traceback" not in done.stderr


def test_stdin_arguments_and_json():
    done = run("tools", "call", "queryCustomer", "-", "-t", CRM, "--json",
               input='{"name":"长路","limit":2}')
    assert done.returncode == 0
    data = json.loads(done.stdout)
    assert (data["result"], data["is_error"], data["arguments"]) == (
        "customer:长路,limit:2", False, {"name": "长路", "limit": 2})


def test_no_target_anywhere(tmp_path):
    done = run("tools", "list", cwd=tmp_path)
    assert done.returncode == 2
    assert b"AGENTFORGE_TOOLS" in done.stderr


def test_replay_exit_codes():
    assert run("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM).returncode == 0
    assert run("replay", str(TRANSCRIPTS / "crm_mismatch.jsonl"), "-t", CRM).returncode == 1
    malformed = run("replay", str(TRANSCRIPTS / "crm_malformed.jsonl"), "-t", CRM)
    assert malformed.returncode == 3
    assert b"crm_malformed.jsonl, line 3" in malformed.stderr
    assert b"Traceback" not in malformed.stderr


def test_debug_shows_a_traceback():
    done = run("--debug", "tools", "list", "sample_tools.missing")
    assert done.returncode == 3
    assert b"Traceback" in done.stderr


def test_lone_surrogates_and_a_narrow_encoding_do_not_crash(tmp_path):
    (tmp_path / "odd_tools.py").write_text(
        "from agentforge_cli import tool\n\n@tool\ndef odd() -> str:\n"
        "    '''Odd text.'''\n    return 'bad\\udcff 长路'\n", encoding="utf-8")
    done = run("tools", "call", "odd", "-t", "odd_tools.py", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout == "bad\\udcff 长路\n".encode()
    ascii_only = run("tools", "call", "odd", "-t", "odd_tools.py", cwd=tmp_path,
                     env={"PYTHONIOENCODING": "ascii"})
    assert ascii_only.returncode == 0
    assert ascii_only.stdout == b"bad\\udcff \\u957f\\u8def\n"
    listed = run("tools", "list", "odd_tools.py", cwd=tmp_path, env={"PYTHONIOENCODING": "ascii"})
    assert listed.returncode == 0


def test_core_modules_do_not_import_the_cli_stack():
    code = ("import sys\n"
            "import agentforge_cli.replay.transcripts, agentforge_cli.replay.runner\n"
            "import agentforge_cli.core.observe.fileio\n"
            "import agentforge_cli.integrations.targets.loading\n"
            "import agentforge_cli.cli.replay_outputs\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('rich', 'typer', 'click'))\n"
            "print(heavy)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == b"[]"
