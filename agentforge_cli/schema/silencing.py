"""Silencing a lint rule for one tool: ``@tool(lint_ignore=[...])`` on the function, or
``[tool.agentforge.lint] ignore`` in the project configuration.

A silenced finding is not dropped: it is marked with where the silencing comes from
(:attr:`~agentforge_cli.schema.findings.Finding.silenced`), reported apart, and counts for
nothing (the verdict, the exit code, the summary). A silencing must name rules that exist
(:func:`~agentforge_cli.schema.rule_ids.rule_problem`): a typo would silence nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from agentforge_cli.core.declare.decorator import tool_meta
from agentforge_cli.core.define.capabilities import DefinedToolExecutor
from agentforge_cli.core.run.wrapping import innermost
from agentforge_cli.schema.findings import Finding
from agentforge_cli.schema.rule_ids import rule_problem

__all__ = ["EVERY_TOOL", "Silencing", "check_silencings", "declared_silencings", "shown_path",
           "silence"]


EVERY_TOOL = "*"
"""The tool name of a silencing that covers every tool, and the findings about the whole
tool set (a client's ``tool-count``, whose tool is ``""``)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Silencing:
    """Rules silenced for one tool, and who asked."""

    tool: str
    """The tool's name, as the model sees it."""
    rules: tuple[str, ...]
    """The rule ids silenced (``no-description``, ``gemini:free-form-object``)."""
    source: str
    """Where it was asked: ``@tool(lint_ignore=...) on pkg.mod.func``, or the
    configuration file and its setting."""


def declared_silencings(table: Mapping[Any, Any]) -> list[Silencing]:
    """The ``@tool(lint_ignore=...)`` of each tool of a ``build_local_tools`` table
    (specification -> executor; a logging wrapper is looked through)."""
    found = []
    for spec, executor in table.items():
        base = innermost(executor)
        if not isinstance(base, DefinedToolExecutor):
            continue
        definition = base.definition
        meta = tool_meta(getattr(definition, "original", None)) or tool_meta(
            getattr(definition, "call", None))
        if meta is not None and meta.lint_ignore:
            found.append(Silencing(tool=spec.name, rules=meta.lint_ignore,
                                   source=f"@tool(lint_ignore=...) {_place(definition)}"))
    return found


def _place(definition: Any) -> str:
    """``at tools/stock.py:12`` (the decorator's line), else ``on module.function``."""
    code = getattr(getattr(definition, "original", None), "__code__", None)
    if code is None:
        return f"on {getattr(definition, 'qualname', '?')}"
    return f"at {shown_path(code.co_filename)}:{code.co_firstlineno}"


def shown_path(path: str) -> str:
    """A file under the working directory relative to it, any other as it is."""
    import os

    with contextlib.suppress(ValueError):  # another drive (Windows)
        relative = os.path.relpath(path)
        if not relative.startswith(os.pardir):
            return relative
    return path


def check_silencings(silencings: Iterable[Silencing]) -> None:
    """Refuse a silencing that names a rule no finding about a tool can carry.

    Raises:
        ValueError: Naming the source, the tool and the rule (with the closest rule id).
    """
    for silencing in silencings:
        for rule in silencing.rules:
            problem = rule_problem(rule)
            if problem is not None:
                raise ValueError(f'{silencing.source}, tool "{silencing.tool}": {problem}')


def silence(findings: Iterable[Finding], silencings: Iterable[Silencing]) -> list[Finding]:
    """``findings``, each one a silencing covers (same tool, or :data:`EVERY_TOOL`, and
    same rule) marked with its source; a finding already silenced is kept as it is."""
    sources: dict[tuple[str, str], str] = {}
    for silencing in silencings:
        for rule in silencing.rules:
            sources.setdefault((silencing.tool, rule), silencing.source)
    if not sources:
        return list(findings)
    marked = []
    for item in findings:
        source = sources.get((item.tool, item.rule)) or sources.get((EVERY_TOOL, item.rule))
        marked.append(replace(item, silenced=source) if source and not item.silenced else item)
    return marked
