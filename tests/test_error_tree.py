"""The exception tree drawn in ``errors.py``'s docstring is the real one: every subclass of
``AgentForgeError`` defined anywhere in the package is drawn once, under its own parent,
with the module it lives in, and nothing else is drawn."""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import agentforge_cli.errors

ROOT = Path(__file__).resolve().parents[1]
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
DOC = agentforge_cli.errors.__doc__ or ""


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
    assert defined | {"AgentForgeError"} == set(agentforge_cli.errors.__all__)


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
