"""Secrets masked in one place (``core.masking``) with the tool's sensitive keys, in every
output: logs, ``--explain``, ``tools call --json``, and ``agentforge replay``'s trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated

import pytest

from agentforge_cli import P, ToolService, build_local_tools, tool
from agentforge_cli.core.observe.declared_secrets import sensitive_keys, tool_sensitive_keys
from agentforge_cli.core.observe.masking import (
    MASK,
    mask_arguments,
    mask_text,
    mask_value,
    may_hold_secret,
)
from agentforge_cli.core.run.executor import LocalToolExecutor

PIN = "40417731"  # the value of a sensitive parameter whose name looks harmless

VAULT = textwrap.dedent('''
    from typing import Annotated

    from agentforge_cli import P, tool


    @tool
    def unlock(door: str, pin: Annotated[str, P("The door's PIN", sensitive=True)]) -> str:
        """Open a door."""
        return f"opened {door}"
''')

AGENTFORGE = str(Path(sys.executable).parent / "agentforge")


def run_agentforge(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "TERM": "dumb"}
    env.pop("AGENTFORGE_TOOLS", None)
    return subprocess.run([AGENTFORGE, *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120, check=False)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    (tmp_path / "vault.py").write_text(VAULT, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("options", [(), ("--log",)])
def test_replay_trace_masks_a_sensitive_parameter_not_named_like_a_secret(vault, options):
    arguments = json.dumps({"door": "front", "pin": PIN})
    lines = [{"type": "user", "content": "open the front door"},
             {"type": "tool_call", "id": "call_1", "name": "unlock", "arguments": arguments},
             {"type": "tool_result", "id": "call_1", "content": "opened front",
              "is_error": False}]
    transcript = vault / "unlock.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    result = run_agentforge("replay", str(transcript), "-t", "vault.py", *options, cwd=vault)

    assert result.returncode == 0, result.stdout + result.stderr
    act = next(line for line in result.stdout.splitlines() if "[act]" in line)
    assert '"door":"front"' in act and f'"pin":"{MASK}"' in act
    reflect = next(line for line in result.stdout.splitlines() if "[reflect]" in line)
    assert f'unlock("front", {MASK})' in reflect
    assert PIN not in result.stdout and PIN not in result.stderr


def test_tools_call_outputs_mask_a_sensitive_parameter(vault):
    arguments = json.dumps({"door": "front", "pin": PIN})
    result = run_agentforge("tools", "call", "unlock", arguments, "-t", "vault.py", "--json",
                            "--explain", "--log", cwd=vault)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["arguments"] == {"door": "front", "pin": MASK}
    pin_row = next(row for row in data["explain"] if row["parameter"] == "pin")
    assert (pin_row["raw"], pin_row["value"], pin_row["python"]) == (MASK, MASK, MASK)
    assert PIN not in result.stdout and PIN not in result.stderr


# -- the functions every output goes through -------------------------------------------


def test_the_tools_sensitive_keys_apply_at_the_top_level_only():
    value = {"pin": "1", "door": {"pin": "2", "password": "3"}, "items": [{"token": "4"}]}
    assert mask_value(value, frozenset({"pin"})) == {
        "pin": MASK, "door": {"pin": "2", "password": MASK}, "items": [{"token": MASK}]}
    assert mask_value(value) == {
        "pin": "1", "door": {"pin": "2", "password": MASK}, "items": [{"token": MASK}]}


@pytest.mark.parametrize("arguments", [
    '{"door":"front","pin":"40417731"}',
    '"{\\"door\\":\\"front\\",\\"pin\\":\\"40417731\\"}"',  # encoded twice: repaired
    '{"door":"front","pin":"40417731",}',  # a trailing comma: repaired
])
def test_mask_arguments_parses_as_the_executor_does(arguments):
    assert mask_arguments(arguments, frozenset({"pin"})) == '{"door":"front","pin":"***"}'


def test_text_that_does_not_parse_is_masked_pair_by_pair():
    broken = '{"door":"front","pin":"40417731", "api_key": sk-1'
    shown = mask_arguments(broken, frozenset({"pin"}))
    assert PIN not in shown and "sk-1" not in shown and '"door":"front"' in shown
    assert shown == mask_text(broken, frozenset({"pin"}))


@tool
def unlock(door: str, pin: str, api_token: str = "") -> str:
    return "opened"


@tool
def keyed(code: Annotated[str, P(name="pin", sensitive=True)], db_password: str,
          door: str) -> str:
    return "ok"


def test_sensitive_keys_of_an_executor_through_the_logging_wrapper():
    (logged,) = build_local_tools([keyed], logging=True).values()
    # JSON keys and Python names, each also folded (case, _ and - dropped)
    assert sensitive_keys(logged) == frozenset({"pin", "code", "db_password", "dbpassword"})
    assert sensitive_keys(LocalToolExecutor(unlock)) == frozenset({"api_token", "apitoken"})
    assert sensitive_keys(object()) == frozenset()


def test_json_text_held_in_a_string_is_masked_too():
    # a lenient str parameter takes an object as its JSON text: the text still hides secrets
    shown = mask_value({"door": '{"password":"tok-SECRET-9","floor":2}'})
    assert shown == {"door": '{"password":"***","floor":2}'}
    assert mask_value("plain text") == "plain text"


def test_a_tool_the_service_does_not_know_gets_every_tools_sensitive_keys():
    service = ToolService().tools(build_local_tools([keyed, unlock]))
    keyed_keys = frozenset({"pin", "code", "db_password", "dbpassword"})
    assert tool_sensitive_keys(service, "keyed") == keyed_keys
    assert tool_sensitive_keys(service, "renamed") == keyed_keys | {"api_token", "apitoken"}


@pytest.mark.parametrize(("text", "keys", "may"), [
    ('{"door":"front"}', frozenset(), False),
    ('{"door":"front"}', frozenset({"pin"}), False),
    ('{"door":"front","pin":"1"}', frozenset({"pin"}), True),
    ('{"Api-Key":"k"}', frozenset(), True),
    ('{"\\u0070assword":"p"}', frozenset(), True),  # an escape can spell a secret's name
    ('"{\\"db_password\\":\\"p\\"}"', frozenset(), True),  # encoded twice
])
def test_may_hold_secret_is_never_false_for_a_secret(text, keys, may):
    assert may_hold_secret(text, keys) is may
    if not may:  # recorded text without secrets is shown exactly as recorded
        assert mask_arguments(text, keys, as_recorded=True) == text
    else:
        assert mask_arguments(text, keys, as_recorded=True) == mask_arguments(text, keys)
