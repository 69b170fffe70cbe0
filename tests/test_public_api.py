"""The fixed public names, importable from ``agentforge_cli``; ``__all__``."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import agentforge_cli

FIXED = ["tool", "P", "Int8", "Int16", "Int32", "Int64", "Float32", "ToolSpecification",
         "ToolExecutionRequest", "ToolService", "build_local_tools", "tool_specification_from"]

ROOT = Path(__file__).resolve().parents[1]


def test_fixed_import_line_works():
    namespace: dict = {}
    exec(  # the import line the README promises
        "from agentforge_cli import (tool, P, Int8, Int16, Int32, Int64, Float32,\n"
        "                            ToolSpecification, ToolExecutionRequest, ToolService,\n"
        "                            build_local_tools, tool_specification_from)",
        namespace)
    for name in FIXED:
        assert namespace[name] is not None


@pytest.mark.parametrize("name", FIXED)
def test_fixed_name_is_public(name):
    assert name in agentforge_cli.__all__
    assert getattr(agentforge_cli, name) is not None
    assert name in dir(agentforge_cli)


def test_every_name_in_all_resolves():
    for name in agentforge_cli.__all__:
        assert getattr(agentforge_cli, name) is not None, name
    assert len(set(agentforge_cli.__all__)) == len(agentforge_cli.__all__)


def test_star_import_gives_all():
    namespace: dict = {}
    exec("from agentforge_cli import *", namespace)
    assert set(agentforge_cli.__all__) <= set(namespace)


def _natural(name: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def _isort_style(name: str) -> tuple:
    if len(name) > 1 and name.isupper():
        group = 0  # SCREAMING_CASE
    elif name[:1].isupper():
        group = 1  # CamelCase
    else:
        group = 2
    return (group, _natural(name))


def test_all_is_sorted():
    names = list(agentforge_cli.__all__)
    assert names == sorted(names, key=_isort_style)


def test_all_is_sorted_by_ruff():
    source = (ROOT / "agentforge_cli" / "__init__.py").read_text(encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "RUF022",
         "--stdin-filename", "agentforge_cli/__init__.py", "-"],
        input=source, capture_output=True, text=True, cwd=ROOT, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_all_is_complete():
    for name in agentforge_cli.__all__:  # load every lazy name
        getattr(agentforge_cli, name)
    public = {
        name for name in dir(agentforge_cli)
        if not name.startswith("_")
        and not isinstance(getattr(agentforge_cli, name), types.ModuleType)
        and type(getattr(agentforge_cli, name)).__module__ != "__future__"
    }
    assert public <= set(agentforge_cli.__all__)


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError):
        agentforge_cli.no_such_name  # noqa: B018


def test_names_are_the_real_objects():
    from agentforge_cli.core.define.definition import tool_specification_from
    from agentforge_cli.core.define.spec import ToolExecutionRequest, ToolSpecification
    from agentforge_cli.core.run.discovery import build_local_tools
    from agentforge_cli.core.run.service import ToolService

    assert agentforge_cli.tool_specification_from is tool_specification_from
    assert agentforge_cli.build_local_tools is build_local_tools
    assert agentforge_cli.ToolService is ToolService
    assert agentforge_cli.ToolSpecification is ToolSpecification
    assert agentforge_cli.ToolExecutionRequest is ToolExecutionRequest


def test_error_names_share_one_root():
    errors = importlib.import_module("agentforge_cli.errors")
    root = errors.AgentForgeError
    for name in ("ArgumentError", "ToolArgumentsError", "ToolExecutionError",
                 "ToolDefinitionError"):
        cls = getattr(errors, name)
        assert issubclass(cls, root)
        assert name.endswith("Error")
    assert issubclass(errors.ArgumentError, ValueError)
