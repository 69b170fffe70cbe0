"""The package's layout: imports point down the stages and never in a circle.

cli -> integrations | fuzz | models -> replay | schema -> core. ``errors`` (the one exception
tree) and the package's public door sit with the core. Every import statement counts, also
those inside functions (a lazy import still ties two modules together).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "agentforge_cli"
NAME = "agentforge_cli"

RANK = {"core": 0, "errors": 0, "schema": 1, "replay": 1, "integrations": 2, "fuzz": 2,
        "models": 2, "cli": 3}
"""A module may import modules of its own stage or of a lower rank; schema and replay,
both rank 1, may not import each other."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


MODULES = modules()


def imported(path: Path) -> set[str]:
    """The package's modules that ``path`` imports, anywhere in the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # ``from a.b import c`` imports a.b, and a.b.c when c is a module
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(name for name in names if name in MODULES)
    return found


def stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "core"  # the public door sits with the core


GRAPH = {module: imported(path) - {module} for module, path in MODULES.items()}


def test_the_stages_exist_as_subpackages():
    for name in ("core", "schema", "replay", "integrations", "cli"):
        assert (PACKAGE / name / "__init__.py").is_file(), name
    loose = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "errors.py"]


TESTS = PACKAGE.parent / "tests"
PACKAGE_WIDE = {"test_corpus_checker.py", "test_demo.py", "test_import_light.py",
                "test_install.py", "test_layout.py", "test_portability.py",
                "test_public_api.py", "test_sample_tools.py", "test_secret_sweep.py",
                "test_typing.py"}
"""The tests at the top of ``tests/``: about the package as a whole, no stage's."""


MIRRORED = ("core/declare", "core/define", "core/bind", "core/run", "core/observe",
            "replay/transcripts", "integrations/mcp/client", "integrations/mcp/server",
            "integrations/mcp/record", "integrations/pytest", "integrations/targets",
            "integrations/frameworks")
"""The package's folders whose tests sit in a folder of the same path under ``tests/``."""


def test_the_tests_mirror_the_stages():
    """A folder of tests a stage (``tests/core`` for ``agentforge_cli/core``...), plus the
    docs' tests and the corpus run; only package-wide tests sit at the top."""
    stages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    folders = {path.name for path in TESTS.iterdir()
               if path.is_dir() and not path.name.startswith((".", "__"))}
    assert folders == stages | {"docs", "corpus"}
    for folder in folders - {"corpus"}:
        assert list((TESTS / folder).rglob("test_*.py")), f"tests/{folder} holds no tests"
    assert {path.name for path in TESTS.glob("test_*.py")} == PACKAGE_WIDE


@pytest.mark.parametrize("folder", MIRRORED)
def test_the_tests_mirror_the_folders_inside_a_stage(folder):
    """The stages' own folders are mirrored too: the tests of ``core/bind`` are in
    ``tests/core/bind``, those of the MCP client in ``tests/integrations/mcp/client``."""
    assert (PACKAGE / folder / "__init__.py").is_file(), folder
    assert list((TESTS / folder).glob("test_*.py")), f"tests/{folder} holds no tests"


def test_every_test_folder_names_a_package_folder():
    """No test folder without its package folder: a move of the package moves its tests."""
    for path in TESTS.rglob("test_*.py"):
        folder = path.parent.relative_to(TESTS)
        if folder.parts and folder.parts[0] not in ("docs", "corpus"):
            assert (PACKAGE / folder / "__init__.py").is_file(), f"tests/{folder}"


def test_no_two_test_files_share_a_name():
    """The test folders are not packages, so pytest imports each file under its basename:
    two files of one name in two folders stop the run at collection."""
    seen: dict[str, Path] = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        assert path.name not in seen, f"{path} and {seen[path.name]} share a name"
        seen[path.name] = path


def test_every_module_belongs_to_a_known_stage():
    assert {stage(module) for module in MODULES} <= set(RANK)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down_the_stages(module):
    here = stage(module)
    wrong = []
    for target in sorted(GRAPH[module]):
        there = stage(target)
        if target == NAME:
            continue  # the public door (``__version__``) is open to every stage
        if RANK[there] > RANK[here] or (RANK[there] == RANK[here] == 1 and there != here):
            wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_there_is_no_import_cycle():
    cycles = []
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(GRAPH[module]):
            # a package's own __init__ importing its children is not a cycle by itself
            if target == NAME or module.startswith(target + "."):
                continue
            if state.get(target) == 1:
                cycles.append(" -> ".join([*stack[stack.index(target):], target]))
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)
    assert cycles == []


def test_the_checker_sees_a_cycle_and_an_upward_import():
    # the graph above is read from the real files; make sure the reading is not empty
    assert "agentforge_cli.core.define.spec" in GRAPH["agentforge_cli.core.run.service"]
    assert any(stage(t) == "core" for t in GRAPH["agentforge_cli.cli.tools_cmd"])


@pytest.mark.parametrize("stdlib", ["logging", "types", "json", "inspect", "typing", "ast"])
def test_no_module_is_named_after_the_standard_library(stdlib):
    assert not any(module.rsplit(".", 1)[-1] == stdlib for module in MODULES)


def top_level_imports(path: Path) -> set[str]:
    """First components of what a module imports when it is imported (not in functions)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("module", sorted(m for m in MODULES if stage(m) in ("core", "errors")))
def test_the_core_imports_only_the_standard_library(module):
    import sys

    outside = top_level_imports(MODULES[module]) - set(sys.stdlib_module_names) - {NAME}
    assert outside == set(), f"{module} imports {sorted(outside)} at import time"


DANGLING = re.compile(r"\bSPEC\b|(?i:\bthe seed\b|\bseed's\b|\bseed (?:test|view|default))")
"""Words that pointed at design documents outside the repository."""


@pytest.mark.parametrize("module", sorted(MODULES))
def test_words_refer_to_nothing_outside_the_repository(module):
    lines = MODULES[module].read_text(encoding="utf-8").splitlines()
    found = [f"{n}: {line.strip()}" for n, line in enumerate(lines, 1) if DANGLING.search(line)]
    assert found == []


INTERNAL_SIGNALS = {
    "ResultTooLarge": "turned into the call's error result by the executor",
    "UnserializableResult": "turned into the call's error result by the executor",
    "ReplayFailure": "pytest's failure of a replay item, shown by its repr_failure",
    "FuzzFailure": "pytest's failure of a fuzz item, shown by its repr_failure",
}
"""Exception classes that never reach a caller: each says where it ends."""


def test_every_error_raised_on_purpose_derives_from_the_one_root():
    """Every public exception class of the package is an ``AgentForgeError`` (so one
    ``except`` catches them all), but the internal signals listed above."""
    outside = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            bases = {getattr(base, "id", getattr(base, "attr", "")) for base in node.bases}
            builtin = bases & {"Exception", "ImportError", "OSError", "ValueError",
                               "TypeError", "RuntimeError", "BaseException"}
            rooted = bases & {"AgentForgeError", "TargetError", "TranscriptError",
                              "ToolDefinitionError", "ToolExecutionError", "ArgumentError",
                              "SnapshotError", "CliError"}
            if (builtin and not rooted and node.name != "AgentForgeError"
                    and node.name not in INTERNAL_SIGNALS):
                outside.append(f"{module}.{node.name}")
    assert outside == []
