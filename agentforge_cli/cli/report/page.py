"""The report page assembled: the templates read from the package, the documents embedded.

The data sits in a ``<script type="application/json">`` element with every ``<``, ``>``
and ``&`` written as a JSON ``\\u`` escape, so no text inside a result (``</script>``,
``<!--``) can end the element or open markup; the page reads it with ``JSON.parse``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["KINDS", "document_kind", "render_page", "write_report"]

KINDS = ("replay", "check", "fuzz")
"""What a report shows, by the command whose ``--json`` document it is."""

_DATA = "/*AGENTFORGE-REPORT-DATA*/"
_STYLE = "/*AGENTFORGE-REPORT-STYLE*/"
_SCRIPT = "/*AGENTFORGE-REPORT-SCRIPT*/"
_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                          "\u2028": "\\u2028", "\u2029": "\\u2029"})


def document_kind(document: Any) -> str | None:
    """``replay``, ``check`` or ``fuzz``: whose ``--json`` output ``document`` is, told by
    its members; ``None`` for anything else."""
    if not isinstance(document, dict):
        return None
    if isinstance(document.get("files"), list) or (
            isinstance(document.get("calls"), list) and "summary" in document):
        return "replay"
    if isinstance(document.get("findings"), list) and isinstance(document.get("summary"), dict):
        return "check"
    if isinstance(document.get("tools"), list) and "seed" in document:
        return "fuzz"
    return None


def _template(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def embedded_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, as JSON allows
        text = json.dumps(value, separators=(",", ":"))
    return text.translate(_ESCAPES)


def render_page(runs: Sequence[tuple[str, Any]], *, title: str = "agentforge report") -> str:
    """The page for ``runs``: ``(source, document)`` pairs, each document a ``--json``
    output (see :func:`document_kind`).

    Raises:
        ValueError: A document is none of replay's, check's or fuzz's.
    """
    shown: list[dict[str, Any]] = []
    for source, document in runs:
        kind = document_kind(document)
        if kind is None:
            raise ValueError(f"{source}: not the --json output of replay, tools check or "
                             "tools fuzz")
        shown.append({"kind": kind, "source": source, "document": document})
    data = {"title": title, "runs": shown}
    page = _template("report.html")
    page = page.replace(_STYLE, _template("report.css"))
    page = page.replace(_SCRIPT, _template("report.js").replace("</", "<\\/"))
    return page.replace(_DATA, embedded_json(data))  # last: nothing replaces in the data


def write_report(path: str | Path, runs: Sequence[tuple[str, Any]], *,
                 title: str = "agentforge report") -> None:
    """Write the page for ``runs`` to ``path`` atomically (missing folders are created).

    Raises:
        UsageError: The file cannot be written (exit 2).
        ValueError: A document is none of replay's, check's or fuzz's.
    """
    from agentforge_cli.cli.errors import UsageError, os_reason
    from agentforge_cli.core.observe.fileio import write_text_atomic

    page = render_page(runs, title=title)
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, page)
    except OSError as exc:
        raise UsageError(f"cannot write the HTML report {str(path)!r}: {os_reason(exc)}"
                         ) from None
