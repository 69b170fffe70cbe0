"""What ``agentforge init`` does in a project, as steps: each file it would write, and
whether it writes it or leaves what is there alone. Nothing existing is overwritten;
every file is written atomically; running it again changes nothing."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentforge_cli.integrations.project import templates
from agentforge_cli.integrations.project.pyproject_table import (
    configured_tools,
    read_text,
    with_tools_table,
)

__all__ = ["PLACEHOLDER", "Step", "installed_requirement", "set_up"]

PLACEHOLDER = "agentforge-tools[mcp,fuzz] @ git+https://github.com/OWNER/agentforge"
"""The workflow's requirement when agentforge was not installed from a repository CI can
reach."""


@dataclass(frozen=True, slots=True)
class Step:
    """One file: ``written``, or left alone and why."""

    path: str
    written: bool
    note: str


def installed_requirement() -> str | None:
    """How this agentforge was installed, as a requirement CI can install too: its VCS
    URL and commit (``pip install git+...``), else ``None`` (a local folder or a wheel
    CI cannot reach)."""
    from importlib import metadata

    try:
        text = metadata.distribution("agentforge-tools").read_text("direct_url.json")
        found = json.loads(text or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return None
    vcs = found.get("vcs_info") if isinstance(found, dict) else None
    if not isinstance(vcs, dict) or vcs.get("vcs") != "git":
        return None
    commit = vcs.get("commit_id")
    return f"agentforge-tools[mcp,fuzz] @ git+{found['url']}" + (f"@{commit}" if commit
                                                                else "")


def set_up(root: Path, targets: Sequence[str], write_snapshot: Callable[[Path], None],
           requirement: str | None) -> list[Step]:
    """Write what is missing under ``root``: the table in ``pyproject.toml``, the
    snapshot (by ``write_snapshot``), the pytest files and the workflow."""
    from agentforge_cli.core.observe.fileio import write_text_atomic

    steps = [_pyproject(root, targets)]

    def new_file(relative: str, make: Callable[[Path], None], what: str) -> None:
        path = root / relative
        if path.exists():
            steps.append(Step(relative, False, "exists, left as it is"))
            return
        make(path)
        steps.append(Step(relative, True, what))

    def text(content: str) -> Callable[[Path], None]:
        return lambda path: write_text_atomic(path, content)

    new_file(templates.SNAPSHOT, write_snapshot, "the tools' first snapshot")
    new_file(f"{templates.FOLDER}/conftest.py", text(templates.CONFTEST),
             "pytest items: fuzz each tool, replay each recorded call")
    new_file(f"{templates.FOLDER}/test_agentforge_tools.py", text(templates.TESTS),
             "a test comparing the tools with the snapshot")
    new_file(f"{templates.TRANSCRIPTS}/.gitkeep", text(""),
             "the folder of recorded conversations to replay")
    new_file(templates.WORKFLOW_PATH, text(templates.workflow(requirement or PLACEHOLDER)),
             "the GitHub Actions workflow" + ("" if requirement else
                                             ": set AGENTFORGE in it to where CI installs "
                                             "agentforge from"))
    return steps


def _pyproject(root: Path, targets: Sequence[str]) -> Step:
    from agentforge_cli.core.observe.fileio import file_stamp, write_text_atomic

    path = root / "pyproject.toml"
    stamp = file_stamp(path)
    text = read_text(path)
    if configured_tools(text) is not None:
        return Step("pyproject.toml", False, "[tool.agentforge] names its tools already, "
                                             "left as it is")
    edited = with_tools_table(text, targets)
    if edited is None:
        listed = ", ".join(json.dumps(t) for t in targets)
        return Step("pyproject.toml", False, "has a [tool.agentforge] table this cannot "
                                             f"add to: add tools = [{listed}] to it")
    write_text_atomic(path, edited, unchanged=stamp)
    return Step("pyproject.toml", True, "[tool.agentforge] tools = "
                                        f"[{', '.join(json.dumps(t) for t in targets)}]")
