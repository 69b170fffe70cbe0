"""Another version of the tools, to compare with (``eval --compare-to REF``).

``REF`` is a snapshot file (``tools check --snapshot``, ``tools list --format json``),
whose tools have schemas but no code, or ``GITREF:path/to/module.py[:Name]``: the module
as it is at that git revision, read with ``git show`` into a temporary folder and loaded
from there; the working tree is never touched. The path is relative to the current
folder (``./`` for git), as for a target.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

from agentforge_cli.core.define.spec import (
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolSpecification,
)
from agentforge_cli.errors import SnapshotError, TargetError

__all__ = ["SnapshotToolExecutor", "load_reference", "snapshot_service"]

_GIT_TIMEOUT = 30.0


class SnapshotToolExecutor:
    """A tool known from a snapshot only: its schema, and no code to run."""

    def __init__(self, specification: ToolSpecification) -> None:
        self._specification = specification

    @property
    def specification(self) -> ToolSpecification:
        return self._specification

    def execute(self, request: ToolExecutionRequest, memory_id: object = None
                ) -> ToolExecutionResult:
        return ToolExecutionResult(f'"{request.name}" is known from a snapshot only and '
                                   "cannot run", True)


def snapshot_service(specs: list[ToolSpecification]) -> Any:
    """A ``ToolService`` holding the snapshot's tools."""
    from agentforge_cli.core.run.service import ToolService

    return ToolService().tools({spec: SnapshotToolExecutor(spec) for spec in specs})


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], capture_output=True, timeout=_GIT_TIMEOUT,
                              check=False)
    except FileNotFoundError:
        raise TargetError("git is not installed: --compare-to REF:path needs it") from None
    except subprocess.TimeoutExpired:
        raise TargetError(f"git {args[0]} took longer than {_GIT_TIMEOUT:g} s") from None


def _git_file(reference: str) -> tuple[str, str, str | None]:
    """``REF:path.py[:Name]`` -> (REF, path.py, Name)."""
    revision, sep, rest = reference.partition(":")
    path, _, name = rest.partition(":")
    if not sep or not revision or not path.endswith(".py"):
        raise TargetError(f"--compare-to {reference!r} is neither a snapshot file nor "
                          "GITREF:path/to/module.py[:Name]")
    return revision, path, name or None


def _load_from_git(reference: str, load: Any) -> Any:
    revision, path, name = _git_file(reference)
    if _git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").returncode:
        raise TargetError(f"--compare-to {reference!r}: {revision!r} is not a git revision "
                          "here")
    relative = path if path.startswith(("./", "../", "/")) else f"./{path}"
    shown = _git("show", f"{revision}:{relative}")
    if shown.returncode:
        message = shown.stderr.decode(errors="replace").strip().splitlines()
        raise TargetError(f"--compare-to {reference!r}: git show failed: "
                          f"{message[-1] if message else 'no such file'}")
    with tempfile.TemporaryDirectory(prefix="agentforge-ref-") as folder:
        copy = Path(folder) / Path(path).name
        copy.write_bytes(shown.stdout)
        return load(str(copy) + (f":{name}" if name else ""))


def load_reference(reference: str, load: Any) -> Any:
    """The ``ToolService`` of ``reference``; ``load(target)`` loads a target's service.

    Raises:
        TargetError: The snapshot cannot be read, the revision or file is not in git, or
            the module at that revision cannot be loaded.
    """
    if Path(reference).is_file() and not reference.endswith(".py"):
        from agentforge_cli.schema.snapshots import load_snapshot

        try:
            return snapshot_service(load_snapshot(reference))
        except SnapshotError as exc:
            raise TargetError(f"--compare-to: {exc}") from None
    return _load_from_git(reference, load)
