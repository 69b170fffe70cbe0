"""``agentforge tools audit``: tool annotations checked against what the tools do.

Python tools run on examples in a sandbox (:mod:`agentforge_cli.fuzz.audit`); what they
did is compared with their annotations (:mod:`agentforge_cli.fuzz.audit_findings`). MCP
tools run in their server's process, out of sight: only their annotations are checked.
Standard output is the findings table (``--json``: one JSON document); the header and the
per-tool lines go to standard error.

Exit codes, as ``tools check``: ``0`` nothing at the failing level · ``1`` a finding at
level error (or, with ``--fail-on warning``, a warning) · ``2`` usage error · ``3`` a
target or a transcript cannot be loaded, or the ``fuzz`` extra is not installed.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from agentforge_cli.cli.errors import LoadError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import (
    BindingOption,
    FailOn,
    McpReach,
    SeedOption,
    StrictOption,
    TargetsArgument,
    ToolsOption,
    fail_on_option,
    mcp_reach_options,
    only_tool_option,
    project_choices,
)

CALL_SECONDS = 5.0
"""How long an audited call may run, unless --timeout or the project says."""


@mcp_reach_options
def audit(
    targets: TargetsArgument = None,
    tools: ToolsOption = None,
    names: Annotated[list[str] | None, only_tool_option("Audit")] = None,
    calls: Annotated[list[str] | None, typer.Option(
        "--calls", metavar="TRANSCRIPT", show_default=False,
        help="Also run the calls recorded in this transcript (any format replay reads); "
             "repeatable.")] = None,
    examples: Annotated[int, typer.Option(
        "--examples", metavar="N", help="Generated examples per tool (0: only the "
                                        "--calls), each called twice.")] = 20,
    seed: SeedOption = None,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="SECONDS", show_default=False,
        help="How long a call may run. Default: timeout in \\[tool.agentforge], else 5."
    )] = None,
    strict: StrictOption = None,
    binding: BindingOption = "native",
    fail_on: Annotated[FailOn, fail_on_option("the audit")] = FailOn.error,
    json_output: Annotated[bool, typer.Option(
        "--json", help='Print {"ok", "summary", "findings", "tools"} as JSON instead of '
                       "the table.")] = False,
    *, reach: McpReach,
) -> None:
    """Check the tools' annotations (readOnlyHint, destructiveHint, idempotentHint,
    openWorldHint) against what the tools do.

    Each Python tool runs on generated examples (and the --calls of transcripts), each
    twice, in a fresh directory that is its working directory, HOME and TMPDIR: what it
    changes there is recorded; writes elsewhere, connections to other hosts than
    loopback and process starts are blocked and recorded as attempts. MCP tools are not
    run: their annotations are checked for presence and consistency.

    Exit 1 when a finding at level error is found.
    """
    with guarded():
        from agentforge_cli.fuzz.plan import check_audit_options, check_names

        strict, limit = project_choices(strict, timeout, timeout_default=CALL_SECONDS)
        timeout = CALL_SECONDS if limit is None else limit
        check_audit_options(examples, timeout)
        servers = reach.options()
        from agentforge_cli.fuzz.requirements import INSTALL_HINT, missing_modules

        missing = missing_modules()
        if missing:
            raise LoadError(f"tools audit needs {', '.join(missing)}, which is not "
                            "installed", hint=INSTALL_HINT)
        from agentforge_cli.cli.render import skipped_tool
        from agentforge_cli.integrations.mcp.server.served import served_tool_names
        from agentforge_cli.integrations.targets.loading import load_service

        service = load_service([*(targets or ()), *(tools or ())],
                               skip_problems=skipped_tool, propagate_execution_errors=True,
                               strict=strict, timeout=timeout, mcp_options=servers,
                               binding=binding)
        check_names(names or (), service.names)
        recorded = _recorded_calls(calls or ())
        seed = random.randrange(2**32) if seed is None else seed
        specs = [s for s in service.specifications if not names or s.name in names]
        from agentforge_cli.cli.output import write

        write(f"auditing {len(specs)} tool{'' if len(specs) == 1 else 's'}: {examples} "
              f"examples each, seed {seed}, timeout {timeout:g} s", stderr=True)
        findings, rows = _audit(service, specs, served_tool_names(service), recorded,
                                examples, seed)
        _report(findings, rows, fail_on, len(specs), json_output)


def _audit(service: Any, specs: Sequence[Any], served: frozenset[str],
           recorded: dict[str, list[str]], examples: int, seed: int
           ) -> tuple[list[Any], list[dict[str, Any]]]:
    """The findings of every tool, and the ``--json`` row of each Python tool."""
    from agentforge_cli.cli.output import write
    from agentforge_cli.fuzz.audit import audit_tool, generated_calls
    from agentforge_cli.fuzz.audit_findings import behaviour_findings, declared_findings

    findings: list[Any] = []
    rows = []
    for spec in specs:
        annotations = getattr(spec, "annotations", None)
        findings += declared_findings(spec.name, annotations, served=spec.name in served)
        if spec.name in served:
            write(f"- {spec.name}: not run (an MCP tool runs in its server's process); "
                  "annotations checked", stderr=True)
            continue
        problem = None
        try:
            generated = generated_calls(spec, examples, seed) if examples else []
        except Exception as exc:  # hypothesis cannot generate from the schema
            generated, problem = [], f"cannot generate arguments: {type(exc).__name__}: {exc}"
        behaviour = audit_tool(service, spec.name, [*recorded.get(spec.name, ()),
                                                    *generated])
        if problem is not None and behaviour.stopped is None:
            behaviour = dataclasses.replace(behaviour, stopped=problem)
        findings += behaviour_findings(behaviour, annotations)
        rows.append(behaviour.to_dict())
        write(_line(behaviour), stderr=True)
    return findings, rows


def _line(behaviour: Any) -> str:
    """``- save_note: 20 examples, not read-only, destructive, idempotent,
    closed-world``."""
    traits = ["read-only" if behaviour.read_only else "not read-only",
              "destructive" if behaviour.destructive else "not destructive",
              "idempotent" if behaviour.idempotent else "not idempotent",
              "open-world" if behaviour.open_world else "closed-world"]
    stopped = f" ({behaviour.stopped})" if behaviour.stopped else ""
    return (f"- {behaviour.name}: {behaviour.examples} example"
            f"{'' if behaviour.examples == 1 else 's'}, {', '.join(traits)}{stopped}")


def _recorded_calls(paths: Sequence[str]) -> dict[str, list[str]]:
    """Tool name -> the argument strings of its calls in the transcripts ``paths``."""
    from agentforge_cli.replay.transcripts.model import ToolCall, TranscriptError
    from agentforge_cli.replay.transcripts.transcript import open_transcript

    found: dict[str, list[str]] = {}
    for path in paths:
        try:
            for event in open_transcript(path).events():
                if isinstance(event, ToolCall):
                    found.setdefault(event.name, []).append(event.arguments)
        except TranscriptError as exc:
            raise LoadError(f"cannot read the calls of {path}: {exc}") from None
    return {name: list(dict.fromkeys(texts)) for name, texts in found.items()}


def _report(findings: list[Any], rows: list[dict[str, Any]], fail_on: FailOn, tools: int,
            json_output: bool) -> None:
    from agentforge_cli.cli.check_cmd import level_counts, show_findings
    from agentforge_cli.schema.findings import exit_code, findings_to_json

    code = exit_code(findings, fail_on.value)
    if json_output:
        from agentforge_cli.cli import render

        document = findings_to_json(findings, fail_on.value)
        document.update(tools=rows, fail_on=fail_on.value)
        render.write(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        verdict = (f"{'✗ audit failed' if code else '✓ audit passed'}: "
                   f"{level_counts(findings) or 'no findings'}")
        details = f"{tools} tool{'' if tools == 1 else 's'}" + (
            " · --fail-on warning" if fail_on is FailOn.warning else "")
        show_findings(findings, verdict, bool(code), details)
    from agentforge_cli.cli import step_summary

    step_summary.check(findings, failed=code != 0, command="agentforge tools audit")
    raise typer.Exit(code)
