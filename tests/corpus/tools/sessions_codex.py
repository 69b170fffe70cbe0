"""Codex CLI's ``shell`` tool for the ``codex-escalation`` rollout, over an in-memory
folder (``sessions_workspace.Workspace``).

The commands of that session are small file commands, so this shell carries them out
itself rather than on this machine: ``echo`` and ``printf`` (with ``>`` or ``>>``),
``cat`` and ``rm``. Its output is the command's standard output without its last line
break, as the rollout shows it (``cat`` of a one-line file is the line); a command that
writes nothing answers the empty string. Any other command is refused, not run.

The session ran under ``approval_policy: on-request``: a command asking for escalated
permissions (``sandbox_permissions: "require_escalated"``) waits for the user's approval,
and in a replay nobody gives it, so it is not run and the folder stays as it was. In the
recording the user never approved either (the file still says what it said before).
"""

from __future__ import annotations

import re
import shlex

from execution_log import counted_tool
from sessions_workspace import Workspace

ESCALATED = "require_escalated"
ESCAPES = {"\\n": "\n", "\\t": "\t", "\\\\": "\\", "%%": "%"}


def printf_text(template: str, values: list[str]) -> str:
    """``printf``'s output for the escapes (``\\n``, ``\\t``, ``\\\\``) and conversions
    (``%s``, ``%%``) sessions use; a missing value is empty."""
    pending = iter(values)
    return re.sub(r"\\[nt\\]|%[s%]",
                  lambda m: ESCAPES.get(m[0]) or next(pending, ""), template)


class CodexShell:
    """Codex's shell over a fresh, empty folder."""

    def __init__(self) -> None:
        self.workspace = Workspace(cwd="/home/testuser/codex-rejection-project")

    @counted_tool(name="shell")
    def shell(self, command: str, sandbox_permissions: str | None = None,
              justification: str | None = None) -> str:
        """Run a shell command in the session's folder."""
        if sandbox_permissions == ESCALATED:
            raise PermissionError("not run: escalated permissions need the user's "
                                  f"approval, and a replay gives none ({justification})")
        words = shlex.split(command)
        target, append = None, False
        for operator in (">>", ">"):
            if operator in words:
                at = words.index(operator)
                if at != len(words) - 2:
                    raise ValueError(f"not a command this shell runs: {command}")
                target, append = words[at + 1], operator == ">>"
                words = words[:at]
                break
        output = self.run(words, command)
        if target is None:
            return output.removesuffix("\n")
        if append:
            self.workspace.append(target, output)
        else:
            self.workspace.write(target, output)
        return ""

    def run(self, words: list[str], command: str) -> str:
        """A command's standard output."""
        match words:
            case ["echo", *rest]:
                return " ".join(rest) + "\n"
            case ["printf", template, *rest]:
                return printf_text(template, rest)
            case ["cat", *names] if names:
                try:
                    return "".join(self.workspace.read(name) for name in names)
                except FileNotFoundError as exc:
                    raise FileNotFoundError(
                        f"cat: {exc.args[0]}: No such file or directory") from None
            case ["rm", *names] if names:
                for name in names:
                    try:
                        self.workspace.remove(name)
                    except FileNotFoundError:
                        raise FileNotFoundError(f"rm: cannot remove '{name}': No such "
                                                "file or directory") from None
                return ""
        raise ValueError(f"not a command this shell runs: {command}")
