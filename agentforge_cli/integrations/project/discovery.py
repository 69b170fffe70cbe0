"""The modules of a project that declare tools, found by reading the source (nothing is
imported): a class with ``@tool`` methods becomes ``module:Class``, a module with
``@tool`` functions becomes ``module``.

A module is named by its dotted name when it imports as that file now (the project is
installed, or on the path); otherwise by its file (``src/helpdesk/tools.py:Tools``),
which the loader imports as its package from the project's directory.
"""

from __future__ import annotations

import ast
import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["MAX_FILES", "find_tool_targets"]

MAX_FILES = 2_000
"""Python files read at most (shell completion runs this on every <TAB>)."""
_MAX_BYTES = 1_000_000

_SKIPPED = {"tests", "test", "docs", "build", "dist", "node_modules", "site-packages",
            "venv", "env", "__pycache__"}
"""Folders never searched (and every hidden one: ``.venv``, ``.git``...)."""


def find_tool_targets(root: Path) -> list[str]:
    """The targets of the modules under ``root`` that declare agentforge tools, in path
    order."""
    targets: list[str] = []
    for path in _python_files(root):
        try:
            source = path.read_bytes() if path.stat().st_size <= _MAX_BYTES else b""
            # parsed only when it may import agentforge: most files of a project do not
            tree = ast.parse(source, filename=str(path)) if b"agentforge_cli" in source else None
        except (SyntaxError, ValueError, OSError):
            continue
        if tree is None:
            continue
        if not _imports_agentforge(tree):
            continue
        classes, functions = _declared(tree)
        module = _module_name(path, root)
        shown = module if module is not None and _imports_as(module, path) else None
        base = shown or path.relative_to(root).as_posix()
        targets += [f"{base}:{name}" for name in classes]
        if functions:
            targets.append(shown or base)
    return targets


def _python_files(root: Path) -> Iterator[Path]:
    count = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py") and not name.startswith(("test_", "conftest")):
                count += 1
                if count > MAX_FILES:
                    return
                yield Path(folder, name)


def _imports_agentforge(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "agentforge_cli"):
            return True
        if isinstance(node, ast.Import) and any(
                alias.name.startswith("agentforge_cli") for alias in node.names):
            return True
    return False


def _is_tool(decorator: ast.expr) -> bool:
    """``@tool``, ``@tool(...)``, ``@agentforge_cli.tool``."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Name) and target.id == "tool") or (
        isinstance(target, ast.Attribute) and target.attr == "tool")


def _declared(tree: ast.Module) -> tuple[list[str], bool]:
    """The module-level classes with ``@tool`` methods whose constructor takes no
    argument, and whether a module-level function is a tool."""
    classes = []
    functions = False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions = functions or any(_is_tool(d) for d in node.decorator_list)
        elif isinstance(node, ast.ClassDef):
            methods = [n for n in node.body if isinstance(n, ast.FunctionDef
                                                          | ast.AsyncFunctionDef)]
            if any(_is_tool(d) for m in methods for d in m.decorator_list) and all(
                    _no_arguments(m) for m in methods if m.name == "__init__"):
                classes.append(node.name)
    return classes, functions


def _no_arguments(init: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``__init__(self)``, or every other parameter has a default."""
    arguments = init.args
    positional = [*arguments.posonlyargs, *arguments.args][1:]
    required = len(positional) - len(arguments.defaults)
    keyword_only = [d for d in arguments.kw_defaults if d is None]
    return required <= 0 and not keyword_only


def _module_name(path: Path, root: Path) -> str | None:
    """The dotted name of ``path``: its packages (folders with ``__init__.py``) up from
    it; ``None`` for a file of a folder that is not a package, below the root or ``src``."""
    parts = [path.stem] if path.name != "__init__.py" else []
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    if folder not in (root, root / "src") or not parts:
        return None
    return ".".join(parts)


def _imports_as(module: str, path: Path) -> bool:
    """``module`` is found, now, at ``path``: its top package is found (nothing is
    imported) in the folder that holds it here."""
    top, *inner = module.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    if not inner:
        return spec.origin is not None and Path(spec.origin).resolve() == path.resolve()
    package = path.resolve().parents[len(inner) - 1]
    return any(Path(location).resolve() == package
               for location in spec.submodule_search_locations or ())
