"""``agentforge report``: one HTML page from the ``--json`` outputs of several runs.

Each file is the ``--json`` document of ``replay``, ``tools check`` or ``tools fuzz``
(told apart by its members); the page is the one ``--html`` writes
(:mod:`agentforge_cli.cli.report`). Exit codes: ``0`` written · ``2`` the page cannot be
written · ``3`` a file cannot be read, is not JSON, or is no such document.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from agentforge_cli.cli.errors import EXIT_OK, LoadError, os_reason
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.usage import TEXT

_HINT = "give the output of replay --json, tools check --json or tools fuzz --json"


def report(
    results: Annotated[list[str], typer.Argument(
        metavar="RESULTS.json", click_type=TEXT, show_default=False,
        help="The --json output of replay, tools check or tools fuzz; several are merged "
             "into one page.")],
    output: Annotated[Path, typer.Option(
        "--output", "-o", metavar="FILE", dir_okay=False, show_default=False,
        help="The HTML file to write (atomically): one self-contained page.")],
    title: Annotated[str, typer.Option(
        "--title", metavar="TEXT", help="The page's title.")] = "agentforge report",
) -> None:
    """Write one HTML report from the --json outputs of replay, tools check and fuzz."""
    with guarded():
        from agentforge_cli.cli.output import write
        from agentforge_cli.cli.report import write_report

        runs = [(path, _document(path)) for path in results]
        write_report(output, runs, title=title)
        write(f"wrote {output} ({len(runs)} result{'' if len(runs) == 1 else 's'})",
              stderr=True)
        raise typer.Exit(EXIT_OK)


def _document(path: str) -> Any:
    """The JSON document in ``path``, when it is a report's.

    Raises:
        LoadError: It cannot be read, is not JSON, or is no ``--json`` result (exit 3).
    """
    from agentforge_cli.cli.report import document_kind

    try:
        text = Path(path).read_text(encoding="utf-8", errors="surrogatepass")
    except OSError as exc:
        raise LoadError(f"cannot read {path!r}: {os_reason(exc)}") from None
    except UnicodeDecodeError:
        raise LoadError(f"{path} is not UTF-8 text", hint=_HINT) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(f"{path} is not JSON: {exc.msg} (line {exc.lineno})",
                        hint=_HINT) from None
    if document_kind(document) is None:
        raise LoadError(f"{path} is not the --json output of replay, tools check or "
                        "tools fuzz", hint=_HINT)
    return document
