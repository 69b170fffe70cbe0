"""The fixed public names, importable from ``agentforge_cli``; ``__all__``; the exception
tree drawn in ``errors.py``."""

from __future__ import annotations

import functools
import importlib
import json
import os
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


# -- the exception tree drawn in errors.py's docstring is the real one: every subclass of
# AgentForgeError defined anywhere in the package is drawn once, under its own parent, with
# the module it lives in (when not errors.py), and nothing else is drawn.

PACKAGE = ROOT / "agentforge_cli"
BRANCH = re.compile(r"^(?P<indent>[ │]*)[├└]── (?P<name>\w+)(?P<text>.*)$")
CONTINUATION = re.compile(r"^[ │]+(?P<text>\S.*)$")

# Run in a child process so that importing every module (the CLI, the pytest plugin, the
# MCP server, every framework adapter) leaves this test process as it was.
REAL_TREE = """
import importlib, json, sys
from pathlib import Path

from agentforge_cli.errors import AgentForgeError

package = Path(sys.argv[1])
for path in sorted(package.rglob("*.py")):
    parts = path.relative_to(package.parent).with_suffix("").parts
    importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))

classes = {}
def walk(cls):
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("agentforge_cli."):
            entry = classes.setdefault(sub.__qualname__, {"modules": [], "parents": []})
            if sub.__module__ not in entry["modules"]:
                entry["modules"].append(sub.__module__)
            entry["parents"].append(cls.__qualname__)
            walk(sub)
walk(AgentForgeError)
print(json.dumps(classes))
"""


def drawn_tree(doc: str) -> dict[str, tuple[str, str]]:
    """Each class drawn under the root: its parent and the text beside it (its lines
    joined), read from the box-drawing tree that follows ``AgentForgeError`` in ``doc``."""
    lines = doc.splitlines()
    start = next(n for n, line in enumerate(lines) if line.strip() == "AgentForgeError")
    drawn: dict[str, tuple[str, str]] = {}
    parents = ["AgentForgeError"]  # parents[d] is the class now open at depth d
    depths: list[int] = []  # the column of the branch mark at each depth
    name = ""
    for line in lines[start + 1:]:
        branch = BRANCH.match(line)
        if branch is None:
            more = CONTINUATION.match(line)
            if more is None or not name:
                break  # the drawing ends at its first line that is not part of it
            parent, text = drawn[name]
            drawn[name] = (parent, f"{text} {more['text'].strip()}")
            continue
        column = len(branch["indent"])
        while depths and depths[-1] > column:
            depths.pop()
        if not depths or depths[-1] < column:
            depths.append(column)
        depth = len(depths)
        name = branch["name"]
        del parents[depth:]
        assert name not in drawn, f"{name} is drawn twice"
        drawn[name] = (parents[depth - 1], branch["text"].strip())
        parents.append(name)
    return drawn


@functools.cache
def real_tree() -> dict[str, dict[str, list[str]]]:
    """Each subclass of ``AgentForgeError`` the package defines: its modules and parents."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    completed = subprocess.run([sys.executable, "-c", REAL_TREE, str(PACKAGE)],
                               capture_output=True, text=True, cwd=ROOT, env=env, check=False)
    assert completed.returncode == 0, completed.stderr
    classes: dict[str, dict[str, list[str]]] = json.loads(completed.stdout)
    return classes


def differences(drawn: dict[str, tuple[str, str]],
                real: dict[str, dict[str, list[str]]]) -> dict[str, list[str]]:
    """What the drawing lacks, has too much of, or puts under the wrong parent."""
    return {
        "missing": sorted(set(real) - set(drawn)),
        "extra": sorted(set(drawn) - set(real)),
        "misplaced": sorted(f"{name} is drawn under {drawn[name][0]}, derives from "
                            f"{' and '.join(real[name]['parents'])}"
                            for name in set(drawn) & set(real)
                            if drawn[name][0] not in real[name]["parents"]),
        "ambiguous": sorted(f"{name} is defined in {' and '.join(entry['modules'])}"
                            for name, entry in real.items() if len(entry["modules"]) > 1),
    }


def module_path(module: str) -> str:
    """``agentforge_cli.cli.errors`` -> ``cli/errors.py``."""
    return "/".join(module.split(".")[1:]) + ".py"


NONE = {"missing": [], "extra": [], "misplaced": [], "ambiguous": []}
ERRORS = importlib.import_module("agentforge_cli.errors")
DOC = ERRORS.__doc__ or ""


def test_the_drawing_is_the_real_tree():
    found = differences(drawn_tree(DOC), real_tree())
    assert found == NONE, "errors.py's drawing is stale: " + "; ".join(
        f"{kind}: {', '.join(names)}" for kind, names in found.items() if names)


def test_a_class_drawn_outside_errors_py_names_its_module():
    real = real_tree()
    drawn = drawn_tree(DOC)
    unnamed = [f"{name}: {module_path(real[name]['modules'][0])}" for name in drawn
               if name in real and real[name]["modules"] != ["agentforge_cli.errors"]
               and module_path(real[name]["modules"][0]) not in drawn[name][1]]
    assert unnamed == []


def test_every_error_of_errors_py_is_exported():
    real = real_tree()
    defined = {name for name, entry in real.items()
               if entry["modules"] == ["agentforge_cli.errors"]}
    assert defined | {"AgentForgeError"} == set(ERRORS.__all__)


def test_the_parser_reads_names_nesting_and_wrapped_text():
    doc = """Tree::

        AgentForgeError
         ├── Outer        first line
         │                second line
         │    ├── Inner   a child
         │    │    └── Deepest
         │    └── Sibling
         └── Last         (cli/x.py)

    Prose after the drawing.
    """
    assert drawn_tree(doc) == {
        "Outer": ("AgentForgeError", "first line second line"),
        "Inner": ("Outer", "a child"),
        "Deepest": ("Inner", ""),
        "Sibling": ("Outer", ""),
        "Last": ("AgentForgeError", "(cli/x.py)"),
    }


def test_a_stale_drawing_is_named_class_by_class():
    real = {"TargetError": {"modules": ["agentforge_cli.errors"],
                            "parents": ["AgentForgeError"]},
            "ListenError": {"modules": ["agentforge_cli.errors"],
                            "parents": ["AgentForgeError"]},
            "ServerCallError": {"modules": ["agentforge_cli.errors"],
                                "parents": ["TargetError"]},
            "Twice": {"modules": ["agentforge_cli.a", "agentforge_cli.b"],
                      "parents": ["AgentForgeError", "AgentForgeError"]}}
    drawn = {"TargetError": ("AgentForgeError", ""), "ServerCallError": ("AgentForgeError", ""),
             "GoneError": ("TargetError", ""), "Twice": ("AgentForgeError", "")}
    assert differences(drawn, real) == {
        "missing": ["ListenError"],
        "extra": ["GoneError"],
        "misplaced": ["ServerCallError is drawn under AgentForgeError, derives from "
                      "TargetError"],
        "ambiguous": ["Twice is defined in agentforge_cli.a and agentforge_cli.b"],
    }
