"""Which tools a fuzz run calls, and which of their calls run under the effect guard.

* :func:`skip_reason` — a tool annotated ``destructiveHint: true`` is called only with
  ``--include-destructive``; a tool of an MCP server only when it is marked
  ``readOnlyHint: true`` and not ``openWorldHint: true`` (``destructiveHint: false`` says
  a tool's changes are additive, not that it makes none), or when it is named with
  ``--tool``, or with ``--include-destructive``. Python tools are otherwise called.
* :func:`unguarded_reason` — a Python tool's calls run under the effect guard
  (:mod:`~agentforge_cli.fuzz.effects`) unless ``--allow-effects`` is given, or the tool
  declares effects (:func:`declares_effects`) and ``--include-destructive`` is given. An
  MCP tool runs in its server's process, out of the guard's sight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentforge_cli.fuzz.options import FuzzOptions

__all__ = ["declares_effects", "is_destructive", "skip_reason", "unguarded_reason"]


def is_destructive(spec: Any) -> bool:
    """The tool declares side effects: ``@tool(annotations={"destructiveHint": True})``."""
    return bool((getattr(spec, "annotations", None) or {}).get("destructiveHint"))


def declares_effects(spec: Any) -> bool:
    """The tool says it changes things: ``readOnlyHint: false`` or ``destructiveHint:
    true``."""
    annotations = getattr(spec, "annotations", None) or {}
    return annotations.get("readOnlyHint") is False or annotations.get(
        "destructiveHint") is True


def _not_read_only(annotations: dict[str, Any]) -> str | None:
    """Why an MCP tool with these annotations is not called by default, or ``None``: it is
    marked ``readOnlyHint: true`` and not ``openWorldHint: true``."""
    if not annotations:
        return "no annotations, which MCP reads as destructive and open-world"
    reasons = []
    if annotations.get("readOnlyHint") is not True:
        if annotations.get("destructiveHint") is False:
            reasons.append("destructiveHint: false means additive (it may create or "
                           "write), not harmless")
        elif annotations.get("readOnlyHint") is False:
            reasons.append("readOnlyHint: false (it changes things)")
        else:
            reasons.append("not marked readOnlyHint: true")
    if annotations.get("openWorldHint") is True:
        reasons.append("open-world (openWorldHint: true): it reaches outside systems")
    return "; ".join(reasons) or None


def skip_reason(spec: Any, options: FuzzOptions) -> str | None:
    """Why fuzzing does not call the tool, or ``None`` when it does.

    A tool annotated ``destructiveHint: true`` is called only with
    :attr:`~FuzzOptions.include_destructive`; an MCP tool only when it is marked
    ``readOnlyHint: true`` (and not ``openWorldHint: true``), named in
    :attr:`~FuzzOptions.chosen`, or with :attr:`~FuzzOptions.include_destructive`.
    """
    if (getattr(spec, "execution", None) or {}).get("taskSupport") == "required":
        return ('it must be called as an MCP task (execution.taskSupport: "required"), '
                "which agentforge cannot do yet")
    if options.include_destructive:
        return None
    if is_destructive(spec):
        return "destructive (destructiveHint): run with --include-destructive to call it"
    if spec.name not in options.served or spec.name in options.chosen:
        return None
    why = _not_read_only(getattr(spec, "annotations", None) or {})
    if why is None:
        return None
    return f"{why}: name it with --tool or run with --include-destructive to call it"


def unguarded_reason(spec: Any, options: FuzzOptions) -> str | None:
    """Why the tool's calls do not run under the effect guard, or ``None`` when they do."""
    if spec.name in options.served:
        return "an MCP tool runs in its server's process, which the guard cannot see"
    if options.allow_effects:
        return "--allow-effects"
    if options.include_destructive and declares_effects(spec):
        return ("it declares effects (readOnlyHint: false or destructiveHint: true) and "
                "--include-destructive is given")
    return None
