"""The static HTML report: one self-contained page (``report.html`` with ``report.css``
and ``report.js`` inlined) drawn in the browser from the ``--json`` documents of
``replay``, ``tools check`` and ``tools fuzz``.

``--html FILE`` on those commands and ``agentforge report`` share one path
(:func:`write_report`): the documents go into the page as JSON, and the page's script
builds everything from them, inserting what a recording or a tool wrote as text only.
Standard library only; the templates are package data, read when a report is written.
"""

from agentforge_cli.cli.report.page import document_kind, render_page, write_report

__all__ = ["document_kind", "render_page", "write_report"]
