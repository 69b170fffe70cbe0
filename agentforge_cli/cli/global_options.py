"""Global options anywhere on the command line: ``agentforge tools list X --debug``.

The top-level callback defines the global options once (``--debug``, ``--version``).
Click reads a group's options only before its sub-command, so :class:`RootGroup` moves
each global option found after the sub-command (with its value, for one that takes a
value) in front of it before parsing. Nothing is copied onto the commands: a global
option added to the callback works everywhere at once.

The search follows the command line as click will read it: an option of the command
being read that takes a value keeps that value (``-t --debug`` passes ``--debug`` to
``-t``), a command's own option of the same name wins over the global one, and ``--``
ends the search (what follows is passed as it is).

The command line as given is kept in the context's ``meta`` (:data:`COMMAND_LINE`), for
a command whose advice repeats it (``replay``'s next step).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from agentforge_cli.cli.usage import Group

__all__ = ["COMMAND_LINE", "RootGroup", "hoist_global_options"]

COMMAND_LINE = "agentforge.command_line"
"""The key of ``ctx.meta`` holding the arguments after ``agentforge``, as given."""


class RootGroup(Group):
    """The ``agentforge`` group: its callback's options are also read after any
    sub-command."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[COMMAND_LINE] = tuple(args)
        return super().parse_args(ctx, hoist_global_options(self, args))


def _global_options(root: Any) -> dict[str, Any]:
    """Each spelling (``--debug``) of the options the root's callback declares."""
    names = set(inspect.signature(root.callback).parameters) if root.callback else set()
    return {spelling: param for param in root.params
            if param.name in names and not getattr(param, "is_argument", False)
            for spelling in (*param.opts, *param.secondary_opts)}


def _takes_value(param: Any) -> int:
    """How many tokens follow the option (0 for a flag)."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return 0
    return max(int(getattr(param, "nargs", 1) or 1), 1)


def _options_of(command: Any) -> dict[str, Any]:
    return {spelling: param for param in command.params
            for spelling in (*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ()))
            if spelling.startswith("-")}


def _spelling(token: str, known: dict[str, Any]) -> tuple[str | None, bool]:
    """The option ``token`` names among ``known`` and whether it carries its value
    (``--tools=x``, ``-tx``); ``(None, False)`` when it names none."""
    if token in known:
        return token, False
    if token.startswith("--") and "=" in token:
        name = token.split("=", 1)[0]
        return (name, True) if name in known else (None, False)
    if not token.startswith("--") and len(token) > 2 and token[:2] in known:
        return token[:2], True
    return None, False


def _entered(command: Any, token: str) -> Any:
    """The sub-command of ``command`` that ``token`` names, else ``command`` itself (an
    argument, or a command without sub-commands)."""
    commands = getattr(command, "commands", None)
    if isinstance(commands, dict) and token in commands and not token.startswith("-"):
        return commands[token]
    return command


def hoist_global_options(root: Any, args: list[str]) -> list[str]:
    """``args`` with every global option after the first sub-command moved in front."""
    globals_ = _global_options(root)
    if not globals_:
        return args
    moved: list[str] = []
    kept: list[str] = []
    command = root
    tokens: Iterator[str] = iter(args)
    for token in tokens:
        if token == "--":
            kept.append(token)
            kept.extend(tokens)
            break
        own = _options_of(command)  # before the sub-command, the root's own: kept
        name, attached = _spelling(token, own)
        target = kept
        if name is None:
            name, attached = _spelling(token, globals_)
            if name is not None:
                target = moved
        if name is None:
            kept.append(token)
            command = _entered(command, token)
            continue
        param = own.get(name) if target is kept else globals_[name]
        target.append(token)
        for _ in range(0 if attached else _takes_value(param)):
            value = next(tokens, None)
            if value is not None:
                target.append(value)
    return [*moved, *kept]
