"""``agentforge tools fuzz``: call every tool with the inputs its schema allows and report
the ones that crash it, hang it, or that the binder refuses although the schema allows them.

The engine is :mod:`agentforge_cli.fuzz` (hypothesis, from the optional ``fuzz`` extra,
imported only here). Standard output is the report (``--json``: one JSON document); the
header goes to standard error.

Exit codes: ``0`` nothing found · ``1`` a crash, hang, bad result or schema-binding
mismatch, or every tool skipped · ``2`` usage error · ``3`` a target cannot be loaded,
or the ``fuzz`` extra is not installed.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from agentforge_cli.cli.errors import EXIT_FAILED, EXIT_OK, LoadError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import (
    BindingOption,
    HtmlOption,
    McpReach,
    SeedOption,
    StrictOption,
    TargetsArgument,
    ToolsOption,
    mcp_reach_options,
    only_tool_option,
    project_choices,
    write_html,
)
from agentforge_cli.fuzz.plan import shown_name


@mcp_reach_options
def fuzz(
    targets: TargetsArgument = None,
    tools: ToolsOption = None,
    names: Annotated[list[str] | None, only_tool_option("Fuzz")] = None,
    examples: Annotated[int, typer.Option(
        "--examples", metavar="N", help="Calls per tool.")] = 200,
    seed: SeedOption = None,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="SECONDS", show_default=False,
        help="A call running longer is a hang. Default: timeout in \\[tool.agentforge], "
             "else 5.")] = None,
    strict: StrictOption = None,
    binding: BindingOption = "native",
    json_output: Annotated[bool, typer.Option(
        "--json", help="Print per-tool counts and failures as one JSON document.")] = False,
    junit: Annotated[str | None, typer.Option(
        "--junit", metavar="FILE", show_default=False,
        help="Also write a JUnit XML report: one testcase per tool.")] = None,
    html: HtmlOption = None,
    crash: Annotated[list[str] | None, typer.Option(
        "--crash", metavar="EXC", show_default=False,
        help="Also count this exception class (and its subclasses) as a crash; "
             "repeatable.")] = None,
    allow: Annotated[list[str] | None, typer.Option(
        "--allow", metavar="EXC", show_default=False,
        help="Do not count this exception class (and its subclasses) as a crash; "
             "repeatable.")] = None,
    include_destructive: Annotated[bool, typer.Option(
        "--include-destructive", help="Also call the tools annotated destructiveHint, and "
                                      "MCP tools not marked readOnlyHint; Python tools "
                                      "annotated readOnlyHint false or destructiveHint run "
                                      "without the effect guard (fuzzing calls the real "
                                      "tools).")] = False,
    allow_effects: Annotated[bool, typer.Option(
        "--allow-effects", help="Let Python tools write files outside the temporary "
                                "directory, reach other hosts than loopback and start "
                                "processes (the effect guard blocks them by default).")
    ] = False,
    *, reach: McpReach,
) -> None:
    """Call each tool with generated inputs its schema allows, and report crashes.

    Fuzzing calls the real tools. Python tools run under an effect guard: a call that
    writes a file outside the temporary directory, connects to another host than loopback
    or starts a process is stopped and reported as a blocked effect (--allow-effects lets
    it). Tools annotated destructiveHint are skipped unless --include-destructive, and so
    are MCP tools not marked readOnlyHint (or marked openWorldHint) unless named with
    --tool.

    Exit 1 when a crash, hang, bad result or schema-binding mismatch is found, or when
    every tool was skipped (a blocked effect is not a failure).
    """
    with guarded():
        from agentforge_cli.fuzz.plan import HANG_SECONDS, check_options

        strict, limit = project_choices(strict, timeout, timeout_default=HANG_SECONDS)
        timeout = HANG_SECONDS if limit is None else limit
        check_options(examples, timeout, crash or [], allow or [])
        servers = reach.options()
        from agentforge_cli.fuzz.requirements import INSTALL_HINT, missing_modules

        missing = missing_modules()
        if missing:
            raise LoadError(f"tools fuzz needs {', '.join(missing)}, which is not installed",
                            hint=INSTALL_HINT)
        from agentforge_cli.cli.render import skipped_tool
        from agentforge_cli.fuzz.plan import check_names, plan_fuzz
        from agentforge_cli.integrations.mcp.server.served import served_tool_names
        from agentforge_cli.integrations.targets.loading import find_targets, load_service

        source = find_targets([*(targets or ()), *(tools or ())])
        service = load_service(list(source.specs), skip_problems=skipped_tool,
                               propagate_execution_errors=True,
                               strict=strict, timeout=timeout, mcp_options=servers,
                               binding=binding)
        check_names(names or (), service.names)
        plan = plan_fuzz(service.specifications, names=names or (), examples=examples,
                         seed=seed, crash=crash or (), allow=allow or (),
                         include_destructive=include_destructive, allow_effects=allow_effects,
                         served=served_tool_names(service))
        _run(service, source.specs, plan, timeout, json_output, (junit, html))


def _run(service: Any, sources: Any, plan: Any, timeout: float, json_output: bool,
         files: tuple[str | None, str | None]) -> None:
    """Fuzz the selected tools, show the reports and exit 1 when the run fails."""
    from agentforge_cli.cli import annotations, step_summary
    from agentforge_cli.cli.output import write
    from agentforge_cli.fuzz.engine import fuzz_service
    from agentforge_cli.fuzz.fuzz_report import junit_xml, to_json
    from agentforge_cli.fuzz.plan import run_failed, skip_notes

    options, selected = plan.options, plan.selected
    count = len(selected)
    write(f"fuzzing {count} tool{'' if count == 1 else 's'}: {options.examples} "
          f"examples each, seed {options.seed}, timeout {timeout:g} s"
          f"{', effects allowed' if options.allow_effects else ''}", stderr=True)
    for note in skip_notes(service.specifications, plan):
        write(note, stderr=True)
    reports = fuzz_service(service, options, sources, names=selected,
                           on_report=None if json_output else _show)
    _warn_low_coverage(reports)
    _warn_blocked(reports)
    junit, html = files
    if junit is not None:
        from agentforge_cli.cli.replay_outputs import write_junit_text

        write_junit_text(junit, junit_xml(reports))
    document = to_json(reports, seed=options.seed, examples=options.examples,
                       timeout=timeout)
    if html is not None:
        write_html(html, "agentforge tools fuzz", document)
    if json_output:
        write(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        _verdict(reports, options.seed)
    failed = run_failed(reports)
    step_summary.fuzz(reports, failed=failed)
    if annotations.wanted():
        annotations.emit(annotations.for_fuzz(reports, annotations.sources(service)))
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def _show(report: Any) -> None:
    """One tool's lines: the counts, then each finding and the command reproducing it."""
    from agentforge_cli.cli.output import write
    from agentforge_cli.fuzz.classify import KINDS
    from agentforge_cli.fuzz.fuzz_report import LABELS, describe

    if report.skipped:
        write(f"- {shown_name(report.name)}: skipped, {report.skipped}")
        return
    counts = ", ".join(f"{report.counts[k]} {LABELS.get(k, k)}" for k in KINDS
                       if report.counts.get(k))
    mark = "✗" if report.failed else "✓"
    calls = f"{report.examples} call{'' if report.examples == 1 else 's'}"
    write(f"{mark} {shown_name(report.name)}: {calls} ({counts or 'none'})")
    if report.error:
        write(f"  {report.error}")
    for finding in report.findings:
        write(f"  {describe(finding)}")
        write(f"    arguments ({finding.form}"
              f"{', shrunk' if finding.shrunk else ''}): {finding.arguments}")
        write(f"    reproduce: {finding.command}")
    for call in report.blocked:
        write(f"  {call.describe()}")
        write(f"    arguments ({call.form}): {call.arguments}")


def _warn_low_coverage(reports: list[Any]) -> None:
    """One warning per tool whose every call ended in the same tool error (a pass that
    may never have reached the tool's code)."""
    from agentforge_cli.cli import render

    for report in reports:
        if report.low_coverage:
            render.warning(f"every call of {shown_name(report.name)} ended in a tool error: "
                           "the inputs may never reach its code (what the error says: "
                           f"{report.uniform_error})")


def _warn_blocked(reports: list[Any]) -> None:
    """One warning per tool some of whose calls the effect guard stopped: what those calls
    would have done next was not tested."""
    from agentforge_cli.cli import render
    from agentforge_cli.fuzz.classify import OutcomeKind

    for report in reports:
        count = report.counts.get(OutcomeKind.BLOCKED, 0)
        if count:
            render.warning(f"the effect guard stopped {count} of the {report.examples} calls "
                           f"of {shown_name(report.name)}: what they would have done next is "
                           "untested (give the tool test doubles, then run with --allow-effects)")


def _verdict(reports: list[Any], seed: int) -> None:
    from agentforge_cli.cli.output import write

    failed = [r for r in reports if r.failed]
    run = [r for r in reports if not r.skipped]
    if reports and not run:
        write(f"✗ fuzz called no tool: {_counted(len(reports), 'tool')} skipped (see above)")
    elif failed:
        found = sum(len(r.findings) + (r.error is not None) for r in failed)
        write(f"✗ fuzz found {_counted(found, 'problem')} in {len(failed)} of "
              f"{_counted(len(run), 'tool')} (seed {seed})")
    else:
        write(f"✓ fuzz found no problem in {_counted(len(run), 'tool')} (seed {seed})")


def _counted(count: int, noun: str) -> str:
    """``1 tool``, ``2 tools``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
