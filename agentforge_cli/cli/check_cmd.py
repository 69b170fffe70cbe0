"""``agentforge tools check`` and ``agentforge tools diff``: lint rules and schema drift.

The rules live in :mod:`agentforge_cli.schema.lint` and :mod:`agentforge_cli.schema.schema_drift`;
this module only chooses what to run and shows the findings (a table and a verdict on stdout,
or ``--json``). A rule silenced for a tool (``@tool(lint_ignore=...)``, ``[tool.agentforge.lint]
ignore``) is listed apart, with who silenced it, and counts for nothing.

Exit codes: ``0`` nothing at the failing level · ``1`` a rule at level error failed, a
change is breaking (or, with ``--fail-on warning``, a warning) · ``2`` usage error (an
unknown provider, ``--update-snapshot`` without ``--snapshot``, a snapshot that cannot be
written, a silencing naming an unknown rule) · ``3`` a target or a snapshot file cannot be
loaded (missing, not JSON, not a snapshot).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from agentforge_cli.cli.completion import complete_clients, complete_providers
from agentforge_cli.cli.errors import LoadError, UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import (
    FailOn,
    HtmlOption,
    McpReach,
    TargetsArgument,
    ToolsOption,
    fail_on_option,
    mcp_reach_options,
    write_html,
)
from agentforge_cli.cli.usage import TEXT


def _provider_help() -> str:
    """The ``--provider`` help, naming every provider of the registry."""
    from agentforge_cli.schema.providers import PROVIDERS

    return (f"Also check a provider's rules: {', '.join(PROVIDERS)}; repeatable. Default: "
            "\\[tool.agentforge] providers in pyproject.toml.")


def _client_help() -> str:
    """The ``--client`` help, naming every client of the registry."""
    from agentforge_cli.schema.clients import client_names

    return (f"Also check what an MCP client does to the tool set: "
            f"{', '.join(client_names())}; repeatable. Default: \\[tool.agentforge] clients "
            "in pyproject.toml.")


@mcp_reach_options
def check(
    targets: TargetsArgument = None,
    tools: ToolsOption = None,
    snapshot: Annotated[str | None, typer.Option(
        "--snapshot", metavar="FILE", show_default=False,
        help="Compare the tools with this snapshot file: breaking changes fail.")] = None,
    update_snapshot: Annotated[bool, typer.Option(
        "--update-snapshot", help="Write the current tools to the --snapshot file instead "
                                  "of comparing.")] = False,
    providers: Annotated[list[str] | None, typer.Option(
        "--provider", metavar="NAME", show_default=False,
        help=_provider_help(), autocompletion=complete_providers)] = None,
    clients: Annotated[list[str] | None, typer.Option(
        "--client", metavar="NAME", show_default=False,
        help=_client_help(), autocompletion=complete_clients)] = None,
    fail_on: Annotated[FailOn, fail_on_option("the check")] = FailOn.error,
    json_output: Annotated[bool, typer.Option(
        "--json", help='Print {"ok", "summary", "findings"} as JSON instead of the table.')
    ] = False,
    junit: Annotated[str | None, typer.Option(
        "--junit", metavar="FILE", show_default=False,
        help="Also write a JUnit XML report: a testcase per tool, and one for the tool "
             "set.")] = None,
    html: HtmlOption = None,
    budget: Annotated[bool, typer.Option(
        "--budget", help="Also report each provider's tokens per tool definition and for "
                         "the set; \\[tool.agentforge.budget] sets gates.")] = False,
    results: Annotated[list[str] | None, typer.Option(
        "--results", metavar="TRANSCRIPT", show_default=False,
        help="Also report the sizes of each tool's recorded results in these transcripts "
             "(or folders); repeatable.")] = None,
    *, reach: McpReach,
) -> None:
    """Lint the tools' schemas, and compare them with a snapshot.

    Exit 1 when a rule at level error fails or a change is breaking.

    Exit 3 when a target or the snapshot cannot be loaded (create it with --update-snapshot).
    """
    with guarded():
        _check_snapshot_options(snapshot, update_snapshot)
        selected = _providers(providers)
        chosen = _clients(clients)
        configured = _configured_silencings()
        skipped: list[Any] = []  # MCP tools a server lists that cannot be used
        servers = reach.options(on_skipped=skipped.append)

        from agentforge_cli.integrations.targets.loading import load_service
        from agentforge_cli.integrations.targets.provenance import tool_origins
        from agentforge_cli.schema.findings import exit_code
        from agentforge_cli.schema.lint import run_checks
        from agentforge_cli.schema.silencing import silence

        service = load_service([*(targets or ()), *(tools or ())], mcp_options=servers)
        specs = service.specifications
        table = {spec: service.executor(spec.name) for spec in specs}  # Python defaults too
        silencings = [*configured, *_declared_silencings(table)]
        with _snapshot_errors(snapshot):
            findings = run_checks(table, providers=selected, snapshot=snapshot,
                                  update_snapshot=update_snapshot,
                                  origins=tool_origins(service), silencings=configured,
                                  clients=chosen, surface=_surface(snapshot, table))
        findings[:0] = silence(_mcp_findings(skipped, specs), silencings)
        measured = _measured(specs, selected, budget, results)
        if measured is not None:
            findings.extend(silence(measured.findings, silencings))
        code = exit_code(findings, fail_on.value)
        counted = [f for f in findings if not f.silenced]
        if junit is not None:
            _write_junit(junit, findings, specs, fail_on, tool_set=bool(chosen))
        document = _check_document(findings, len(specs), selected, chosen, snapshot,
                                   fail_on, measured)
        if html is not None:
            write_html(html, "agentforge tools check", document)
        if json_output:
            _write_json(document)
        else:
            if measured is not None:
                measured.show()
            scope = _scope(len(specs), selected, chosen, snapshot, update_snapshot, findings,
                           fail_on)
            failed = code != 0
            show_findings(counted, _verdict(counted, failed), failed, scope,
                          silenced=_silenced_lines(findings))
        from agentforge_cli.cli import annotations, step_summary

        step_summary.check(counted, failed=code != 0)
        if annotations.wanted():
            annotations.emit(annotations.for_findings(findings, annotations.sources(service),
                                                      fail_on.value))
        raise typer.Exit(code)


def _surface(snapshot: str | None, table: dict[Any, Any]) -> Any:
    """With ``--snapshot``, the MCP servers' resources, templates and prompts (``None``
    without an MCP target: the snapshot keeps the tools only)."""
    if snapshot is None:
        return None
    from agentforge_cli.integrations.mcp.client.surface import served_surface

    return served_surface(table.values())


def _check_snapshot_options(snapshot: str | None, update_snapshot: bool) -> None:
    """``--update-snapshot`` needs the ``--snapshot`` file to write."""
    if update_snapshot and snapshot is None:
        raise UsageError("--update-snapshot needs --snapshot FILE",
                         hint="e.g. agentforge tools check --snapshot tools.lock.json "
                              "--update-snapshot")


def _check_document(findings: Sequence[Any], tools: int, selected: Sequence[str],
                    chosen: Sequence[str], snapshot: str | None, fail_on: FailOn,
                    measured: Any) -> dict[str, Any]:
    """``tools check --json``: the findings, what was checked, and what ``--budget`` and
    ``--results`` measured."""
    from agentforge_cli.schema.findings import findings_to_json

    document = findings_to_json(findings, fail_on.value)
    document.setdefault("silenced", [])
    document.update(tools=tools, providers=list(selected), clients=list(chosen),
                    snapshot=snapshot, fail_on=fail_on.value)
    if measured is not None:
        document["budget"] = measured.document
    return document


def _mcp_findings(skipped: Sequence[Any], specs: Sequence[Any]) -> list[Any]:
    """The findings about MCP tools: those a server lists that cannot be used
    (``skipped``), and those that must be called as a task; none without MCP tools."""
    if not skipped and not any(spec.execution for spec in specs):
        return []
    from agentforge_cli.integrations.mcp.client.findings import mcp_findings

    return mcp_findings(skipped, specs)


def _measured(specs: Sequence[Any], selected: Sequence[str], budget: bool,
              results: Sequence[str] | None) -> Any:
    """What ``--budget`` and ``--results`` measured, or ``None`` when neither is given."""
    if not budget and not results:
        return None
    from agentforge_cli.cli.budget_cmd import run_budget

    return run_budget(specs, selected, results or (), definitions=budget)


def _write_junit(path: str, findings: Sequence[Any], specs: Sequence[Any], fail_on: FailOn,
                 *, tool_set: bool) -> None:
    """``--junit FILE``: the findings as a JUnit XML report, a testcase per tool."""
    from agentforge_cli.cli.check_junit import check_junit
    from agentforge_cli.cli.replay_outputs import write_junit_text

    write_junit_text(path, check_junit(findings, [spec.name for spec in specs],
                                       fail_on=fail_on.value, tool_set=tool_set))


def _verdict(counted: Sequence[Any], failed: bool) -> str:
    """``✗ check failed: 1 error`` or ``✓ check passed: no findings``."""
    return (f"{'✗ check failed' if failed else '✓ check passed'}: "
            f"{level_counts(counted) or 'no findings'}")


def _scope(tools: int, selected: Sequence[str], chosen: Sequence[str], snapshot: str | None,
           update_snapshot: bool, findings: Sequence[Any], fail_on: FailOn) -> str:
    """What the check covered, under its verdict: the tools, the providers and clients,
    the snapshot, ``--fail-on warning`` and how many findings were silenced."""
    scope = [f"{tools} tool{'' if tools == 1 else 's'}", *_selection_scope(selected, chosen)]
    if snapshot is not None:
        scope.append(_snapshot_scope(snapshot, update_snapshot, findings))
    if fail_on is FailOn.warning:
        scope.append("--fail-on warning")
    silenced = sum(1 for f in findings if f.silenced)
    if silenced:
        scope.append(f"{silenced} silenced (not counted)")
    return " · ".join(scope)


def _selection_scope(selected: Sequence[str], chosen: Sequence[str]) -> list[str]:
    """``providers: openai`` and ``clients: ...`` for what was selected; ``no provider
    selected`` when neither a provider nor a client was."""
    if not selected and not chosen:
        return ["no provider selected"]
    scope = ["providers: " + ", ".join(selected)] if selected else []
    if chosen:
        scope.append(_client_scope(chosen))
    return scope


def _snapshot_scope(snapshot: str, update_snapshot: bool, findings: Sequence[Any]) -> str:
    """``snapshot FILE``, ``(already up to date)`` when ``--update-snapshot`` wrote
    nothing."""
    written = any(f.rule == "snapshot-updated" for f in findings)
    unchanged = update_snapshot and not written
    return f"snapshot {snapshot}" + (" (already up to date)" if unchanged else "")


def diff(
    old: Annotated[str, typer.Argument(metavar="OLD.json", click_type=TEXT,
                                       show_default=False,
                                       help="The snapshot before the change.")],
    new: Annotated[str, typer.Argument(metavar="NEW.json", click_type=TEXT,
                                       show_default=False,
                                       help="The snapshot after the change.")],
    json_output: Annotated[bool, typer.Option(
        "--json", help='Print {"ok", "summary", "findings"} as JSON instead of the table.')
    ] = False,
) -> None:
    """Classify every difference between two snapshot files.

    A snapshot is what `tools check --update-snapshot` writes (or `tools list --format json`).

    Exit 1 when a change is breaking, 3 when a file cannot be loaded.
    """
    with guarded():
        from agentforge_cli.schema.findings import exit_code, findings_to_json
        from agentforge_cli.schema.snapshots import diff_snapshots

        with _snapshot_errors(None, compared=(old, new)):
            findings = diff_snapshots(old, new)
            from agentforge_cli.cli.budget_cmd import grown_budgets

            findings.extend(grown_budgets(old, new))  # [tool.agentforge.budget]
        code = exit_code(findings)
        if json_output:
            document = findings_to_json(findings)
            document.update(old=old, new=new)
            _write_json(document)
        else:
            if not findings:
                verdict = "✓ no differences"
            elif code:
                verdict = f"✗ breaking changes: {level_counts(findings)}"
            else:
                verdict = f"✓ no breaking change: {level_counts(findings)}"
            show_findings(findings, verdict, bool(code), f"{old} -> {new}")
        raise typer.Exit(code)


# -- helpers ------------------------------------------------------------------------------------


def _providers(given: Sequence[str] | None) -> tuple[str, ...]:
    """The providers to check: ``--provider`` (repeatable, or comma-separated), else
    ``providers`` in pyproject.toml; each name validated by the core."""
    from agentforge_cli.schema.providers import provider_name

    return _names(given, "--provider", "providers", provider_name)


def _clients(given: Sequence[str] | None) -> tuple[str, ...]:
    """The clients to check: ``--client`` (repeatable, or comma-separated), else
    ``clients`` in pyproject.toml; each name validated by the core."""
    from agentforge_cli.schema.clients import get_client

    return _names(given, "--client", "clients", lambda name: get_client(name).name)


def _client_scope(clients: Sequence[str]) -> str:
    """``clients: codex (openai-responses), cursor (anthropic, openai)``: each client and
    the providers whose lint it brings."""
    from agentforge_cli.schema.clients import get_client

    shown = [f"{name} ({', '.join(get_client(name).providers)})"
             if get_client(name).providers else name for name in clients]
    return "clients: " + ", ".join(shown)


def _names(given: Sequence[str] | None, option: str, key: str,
           normalise: Callable[[str], str]) -> tuple[str, ...]:
    """The names ``option`` gives, else the list ``key`` under ``[tool.agentforge]``,
    each normalised (an unknown one is a usage error naming where it was written)."""
    from agentforge_cli.integrations.targets.loading import find_providers

    names = tuple(name.strip() for item in given or () for name in item.split(",")
                  if name.strip())
    origin = option
    if not names:
        names, source = find_providers(key=key)
        origin = f"{source}: [tool.agentforge] {key}"
    selected = []
    for name in names:
        try:
            selected.append(normalise(name))
        except ValueError as exc:
            raise UsageError(f"{origin}: {exc}") from None
    return tuple(dict.fromkeys(selected))


def _configured_silencings() -> list[Any]:
    """The rules ``[tool.agentforge.lint] ignore`` in pyproject.toml silences per tool
    (checked when read: a malformed setting exits 2)."""
    from agentforge_cli.integrations.targets.loading import find_lint_ignores
    from agentforge_cli.schema.silencing import Silencing, shown_path

    ignores, source = find_lint_ignores()
    return [Silencing(tool=tool, rules=rules,
                      source=f"{shown_path(source or '')}: [tool.agentforge.lint] ignore")
            for tool, rules in ignores.items()]


def _declared_silencings(table: dict[Any, Any]) -> list[Any]:
    """The rules each tool's ``@tool(lint_ignore=...)`` silences; one naming an unknown
    rule is a usage error (exit 2)."""
    from agentforge_cli.schema.silencing import check_silencings, declared_silencings

    declared = declared_silencings(table)
    try:
        check_silencings(declared)
    except ValueError as exc:
        raise UsageError(str(exc), hint="see the rules in docs/checks.md, or the rule in "
                                        "brackets after each finding") from None
    return declared


def _silenced_lines(findings: Sequence[Any]) -> list[str]:
    """``silenced: lookup [no-description], 2 warnings, by @tool(lint_ignore=...) on
    mod.lookup``: one line per tool, rule and source that silenced something."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for finding in findings:
        if finding.silenced:
            key = (finding.tool, finding.rule, finding.silenced)
            groups.setdefault(key, []).append(finding.level)
    lines = []
    for (tool, rule, source), levels in groups.items():
        counts = ", ".join(f"{levels.count(level)} "
                           f"{level if levels.count(level) == 1 else _PLURAL[level]}"
                           for level in dict.fromkeys(levels))
        lines.append(f"silenced: {tool} [{rule}], {counts}, by {source}")
    return lines


@contextlib.contextmanager
def _snapshot_errors(path: str | None, compared: tuple[str, str] | None = None
                     ) -> Iterator[None]:
    """Snapshot failures as CLI errors: unreadable -> exit 3, unwritable -> exit 2. For
    ``tools diff`` (the files ``compared``), a missing file says how to write one: diff
    has no ``--update-snapshot``."""
    from agentforge_cli.schema.snapshots import SnapshotError, SnapshotMissingError

    try:
        yield
    except SnapshotMissingError as exc:
        if compared is None:
            raise LoadError(str(exc)) from None
        missing = next((name for name in compared if not Path(name).exists()), compared[-1])
        raise LoadError(f"snapshot file not found: {missing}",
                        hint=f"write one with: agentforge tools list TARGET --format json > "
                             f"{missing}") from None
    except SnapshotError as exc:
        raise LoadError(str(exc)) from None
    except OSError as exc:  # only writing raises it: reading reports a SnapshotError
        if path is None:
            raise
        raise UsageError(f"cannot write the snapshot {path!r}: {exc.strerror or exc}"
                         ) from None


_PLURAL = {"breaking": "breaking", "error": "errors", "warning": "warnings", "info": "info"}


def level_counts(findings: Sequence[Any]) -> str:
    """``2 breaking, 1 error, 3 warnings`` (levels with no finding left out)."""
    from agentforge_cli.schema.findings import summarize

    return ", ".join(f"{count} {level if count == 1 else _PLURAL.get(level, level)}"
                     for level, count in summarize(findings).items() if count)


def show_findings(findings: Sequence[Any], verdict: str, failed: bool, details: str,
          silenced: Sequence[str] = ()) -> None:
    """The findings table, most severe first, each row opening with level, tool and
    parameter (the message without the subject it repeats); then what was silenced."""
    from agentforge_cli.cli import render
    from agentforge_cli.schema.findings import severity, subject

    rows = []
    for finding in sorted(findings, key=lambda f: -severity(f.level)):
        prefix = f"{subject(finding.tool, finding.path)}: " if finding.tool else ""
        message = finding.message
        if prefix and message.startswith(prefix):
            message = message[len(prefix):]
        rows.append({"level": finding.level, "tool": finding.tool,
                     "parameter": finding.parameter, "rule": finding.rule,
                     "message": message})
    render.findings(rows, verdict, failed=failed, details=details, silenced=silenced)


def _write_json(document: dict[str, Any]) -> None:
    from agentforge_cli.cli import render

    render.write(json.dumps(document, ensure_ascii=False, indent=2))
