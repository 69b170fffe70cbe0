"""What keeps the package loadable on Windows, checked here on Linux (docs/development.md,
"Windows"): no module imports a Unix-only module at import time unless it catches the
ImportError, and a Unix-only signal is used only where its presence was asked first."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "agentforge_cli"
UNIX_MODULES = {"resource", "fcntl", "termios", "tty", "pwd", "grp", "posix"}
UNIX_SIGNALS = {"SIGXFSZ", "SIGHUP", "SIGKILL", "SIGALRM", "SIGCHLD", "SIGPIPE", "SIGUSR1",
                "SIGUSR2", "SIGQUIT", "SIGTSTP", "SIGCONT", "SIGWINCH"}


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _ancestors(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[ast.AST]:
    chain = []
    while node in parents:
        node = parents[node]
        chain.append(node)
    return chain


def _catches_import_error(node: ast.AST) -> bool:
    return isinstance(node, ast.Try) and any(
        handler.type is not None and "ImportError" in ast.unparse(handler.type)
        for handler in node.handlers)


def unguarded_uses(source: str) -> list[str]:
    """The Unix-only imports at import time and the unguarded Unix-only signals."""
    tree = ast.parse(source)
    parents = _parents(tree)
    found = []
    for node in ast.walk(tree):
        chain = _ancestors(node, parents)
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""])
            at_import_time = not any(isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef)
                                     for up in chain)
            unix = [name for name in names if name.split(".")[0] in UNIX_MODULES]
            if unix and at_import_time and not any(map(_catches_import_error, chain)):
                found.append(f"line {node.lineno}: import {unix[0]}")
        elif isinstance(node, ast.Attribute) and node.attr in UNIX_SIGNALS:
            guarded = any(isinstance(up, ast.If) and (node.attr in ast.unparse(up.test)
                                                      or "platform" in ast.unparse(up.test))
                          for up in chain)
            if not guarded:
                found.append(f"line {node.lineno}: signal.{node.attr}")
    return found


def test_the_checker_finds_what_breaks_on_windows():
    assert unguarded_uses("import resource\n") == ["line 1: import resource"]
    assert unguarded_uses("import signal\nsignal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n") == [
        "line 2: signal.SIGXFSZ"]
    assert unguarded_uses("try:\n    import fcntl\nexcept ImportError:\n    fcntl = None\n") == []
    assert unguarded_uses("def f():\n    import resource\n") == []
    assert unguarded_uses("import signal\nif hasattr(signal, 'SIGXFSZ'):\n"
                          "    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n") == []


def test_no_module_needs_unix_to_load():
    problems = {str(path.relative_to(PACKAGE)): found for path in sorted(PACKAGE.rglob("*.py"))
                if (found := unguarded_uses(path.read_text(encoding="utf-8")))}
    assert problems == {}


def test_the_http_server_reads_without_a_descriptor_limit(monkeypatch):
    from agentforge_cli.integrations.mcp.server.http_connections import (
        READING_LIMIT,
        reading_limit,
    )

    monkeypatch.setitem(sys.modules, "resource", None)  # as on Windows: ImportError
    assert reading_limit() == READING_LIMIT
