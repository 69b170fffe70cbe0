"""The options more than one command takes are declared once, in ``cli/options.py``; a
command declares only its own (or one whose help says something else for it)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "agentforge_cli" / "cli"

OWN_HELP = {"--timeout", "--json", "--log", "--examples", "--junit", "--format", "--port",
            "--strict", "--env", "--cwd", "--output", "--model", "--record", "--scrub"}
"""Options several commands declare each with help of their own, because what the value
means differs per command: ``tools list --strict`` exports the strict form; ``record``'s
``--env``, ``--cwd`` and ``--port`` are those of the recorded server and of its proxy;
``record``'s ``--output`` is the session log, ``report``'s the HTML page; ``chat --model``
also takes a script, and ``chat --record`` writes the conversation, ``serve``'s the calls;
``replay --scrub`` scrubs results, ``eval --scrub`` arguments."""


def declared() -> dict[str, set[str]]:
    """Option name -> the modules of ``cli/`` that declare it (``typer.Option("--x", ...)``)."""
    where: dict[str, set[str]] = defaultdict(set)
    for path in sorted(CLI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("Option", "Argument") and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                name = node.args[0].value.split("/")[0]
                where[name].add(path.relative_to(CLI).as_posix())
    return where


def test_the_shared_options_are_declared_only_in_the_options_module():
    where = declared()
    shared = {name for name, modules in where.items() if "options.py" in modules}
    assert {"--tools", "--strict", "--binding", "--seed", "--tool", "--fail-on", "--header",
            "--env", "--cwd", "--schema-form", "TARGET"} - shared <= {"TARGET"}
    elsewhere = {name: sorted(modules - {"options.py"}) for name, modules in where.items()
                 if name in shared and name not in OWN_HELP and modules != {"options.py"}}
    assert elsewhere == {}


def test_an_option_of_several_commands_is_shared_or_has_help_of_its_own():
    repeated = {name for name, modules in declared().items()
                if len(modules - {"options.py"}) > 1}
    assert repeated - OWN_HELP == set()
