"""``agentforge tools list`` and ``agentforge tools call``.

``tools list --format`` prints a readable table, the JSON array of specifications, or the
tool definitions of a provider format of the registry in
:mod:`agentforge_cli.schema.providers` (see :func:`list_formats`). ``tools check`` and
``tools diff`` live in ``check_cmd``.

``tools call`` sends the request through a ``ToolService`` exactly as a model's call
goes: its standard output is the text the model would receive and nothing else (followed
by one newline); logs, explanations and errors go to standard error.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentforge_cli.cli.completion import complete_formats, complete_tool_names
from agentforge_cli.cli.errors import EXIT_FAILED, EXIT_OK, CliError, UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import (
    BindingOption,
    McpReach,
    SchemaFormOption,
    StrictOption,
    TargetsArgument,
    ToolsOption,
    mcp_reach_options,
    project_choices,
)
from agentforge_cli.cli.schema_form import apply_schema_form
from agentforge_cli.cli.usage import TEXT, Command, Group, later
from agentforge_cli.core.observe.masking import mask_target

if TYPE_CHECKING:
    from agentforge_cli.core.bind.argument_explanation import ArgumentExplanation
    from agentforge_cli.core.run.call_choices import CallChoices

app = typer.Typer(help="List, call, check, diff and fuzz the tools of a target.",
                  no_args_is_help=True, add_completion=False, cls=Group)

# -- tools list ---------------------------------------------------------------------------------


Renderer = Callable[[list[Any], bool, Mapping[str, Any]], None]
"""A ``--format``'s renderer: (specifications, ``--strict``, each tool's origin by name)."""


def _list_table(specs: list[Any], strict: bool, origins: Mapping[str, Any]) -> None:
    from agentforge_cli.cli import render

    render.tool_list(specs)


def _list_json(specs: list[Any], strict: bool, origins: Mapping[str, Any]) -> None:
    from agentforge_cli.cli.output import write

    write(json.dumps([spec.to_dict() for spec in specs], ensure_ascii=False, indent=2))


def _provider_export(provider: str) -> Renderer:
    """The renderer of a provider format: the export's JSON on stdout, each part exported
    in the closest accepted form as a warning on stderr; exit 1 when some part has no
    form the provider accepts."""

    def render_export(specs: list[Any], strict: bool, origins: Mapping[str, Any]) -> None:
        from agentforge_cli.cli.output import write
        from agentforge_cli.schema.providers import ProviderExportError, export_tools

        try:
            export = export_tools(specs, provider, strict=strict, origins=origins)
        except ProviderExportError as exc:
            raise CliError(str(exc), hint="lint the tools for this provider with: "
                                          f"agentforge tools check --provider {exc.provider}"
                           ) from None
        if export.warnings:
            from agentforge_cli.cli import render

            for issue in export.warnings:
                render.warning(str(issue))
        write(json.dumps(export.data, ensure_ascii=False, indent=2))

    return render_export


_OWN_FORMATS: dict[str, Renderer] = {"table": _list_table, "json": _list_json}
"""The formats that need no provider (the registry is not imported for them)."""


def list_formats() -> dict[str, Renderer]:
    """``--format`` name -> renderer(specifications, strict): ``table``, ``json``, then each
    provider format of the registry, read when the command runs (``--strict`` is refused
    before loading for a provider format that has no strict form)."""
    from agentforge_cli.schema.providers import LIST_FORMATS

    return {**_OWN_FORMATS, **{name: _provider_export(name) for name in LIST_FORMATS}}


def _format_help() -> str:
    """The ``--format`` help, naming the provider formats of the registry."""
    from agentforge_cli.schema.providers import LIST_FORMATS

    return ("table (a readable summary), json (an array of {name, description, "
            f"parameters}}), or a provider's tool definitions: {', '.join(LIST_FORMATS)}.")


def _strict_formats() -> list[str]:
    """The provider formats that have a strict form (``openai``)."""
    from agentforge_cli.schema.providers import REGISTRY

    return [p.name for p in REGISTRY if p.list_format and p.strict]


def _strict_help() -> str:
    """The ``--strict`` help, naming the provider formats that have a strict form."""
    return ("Build the tools in strict mode; with --format "
            f"{' or '.join(_strict_formats())}, export the provider's strict-mode form.")


def _check_strict(output_format: str, strict: bool) -> None:
    """``--strict`` applies to a provider format with a strict form (and to table/json)."""
    if not strict or output_format in ("table", "json"):
        return
    from agentforge_cli.schema.providers import LIST_FORMATS, provider_name

    if output_format in LIST_FORMATS:
        try:
            provider_name(output_format, strict=True)
        except ValueError as exc:
            uses = " or ".join(f"--format {name} --strict" for name in _strict_formats())
            raise UsageError(f"--strict with --format {output_format}: {exc}",
                             hint=f"drop --strict, or use {uses}") from None


@app.command("list", cls=Command)
@mcp_reach_options
def list_tools(
    targets: TargetsArgument = None,
    tools: ToolsOption = None,
    output_format: Annotated[str, typer.Option(
        "--format", "-f", metavar="FORMAT",
        help=later(_format_help), autocompletion=complete_formats)] = "table",
    strict: Annotated[bool, typer.Option(
        "--strict", help=later(_strict_help))] = False,
    schema_form: SchemaFormOption = "standard",
    *, reach: McpReach,
) -> None:
    """Print the tools a model would see: name, description and parameters.

    Provider formats print the JSON that provider takes; a part it cannot express exactly
    is a warning on stderr, a part it cannot take at all fails (exit 1).
    """
    with guarded():
        chosen = output_format.strip().lower()  # --format OpenAI is openai
        renderer = _OWN_FORMATS.get(chosen) or list_formats().get(chosen)
        if renderer is None:
            raise UsageError(f"unknown --format {output_format!r}",
                             hint="choose one of: " + ", ".join(list_formats()))
        _check_strict(chosen, strict)
        if schema_form != "standard" and chosen != "mcp":
            raise UsageError(f"--schema-form {schema_form} needs --format mcp",
                             hint="e.g. agentforge tools list --format mcp --schema-form "
                                  f"{schema_form}")
        options = reach.options()
        from agentforge_cli.integrations.targets.loading import load_service

        service = load_service([*(targets or ()), *(tools or ())], strict=strict,
                               mcp_options=options, skip_problems=_skipped_tool)
        from agentforge_cli.integrations.targets.provenance import tool_origins

        apply_schema_form(service, schema_form)
        _warn_task_only(service.specifications)
        if not service.specifications:  # an MCP server of resources and prompts only
            from agentforge_cli.cli.render import warning

            warning("no tools to list: the targets have none (an MCP server's resources "
                    "and prompts: agentforge resources list, agentforge prompts list)")
        renderer(service.specifications, strict, tool_origins(service))


def _skipped_tool(problem: str) -> None:
    """A tool left out, as a warning (rich is imported only when one is)."""
    from agentforge_cli.cli.render import skipped_tool

    skipped_tool(problem)


def _warn_task_only(specs: Sequence[Any]) -> None:
    """A warning per MCP tool that must be called as a task (the server refuses its calls)."""
    if not any(spec.execution for spec in specs):
        return
    from agentforge_cli.cli.render import warning
    from agentforge_cli.integrations.mcp.client.tasks import TASK_REQUIRED_TEXT, task_required

    for spec in specs:
        if task_required(spec):
            warning(f'tool "{spec.name}": {TASK_REQUIRED_TEXT} (its calls are sent without '
                    "one: the server refuses them)")


# -- tools call ---------------------------------------------------------------------------------


def _explanation(executor: Any, text: str) -> ArgumentExplanation:
    """How the executor says the arguments bind (:meth:`explain_arguments`); no rows for
    an executor that cannot say."""
    from agentforge_cli.core.bind.argument_explanation import (
        ArgumentExplanation,
        ExplainingToolExecutor,
    )
    from agentforge_cli.core.run.wrapping import innermost

    base = innermost(executor)
    if not isinstance(base, ExplainingToolExecutor):
        return ArgumentExplanation(rows=(), error=None)
    return base.explain_arguments(text)


def _show_explanation(explained: ArgumentExplanation) -> None:
    from agentforge_cli.cli import render
    from agentforge_cli.cli.values import display

    if explained.note is not None:  # bound elsewhere: what is sent, and who binds it
        render.write(render.safe_text(explained.note), stderr=True)
        return
    shown = []
    for row in explained.rows:
        raw = display(row.raw) if row.present else "(missing)"
        coerced = row.python or ("✗" if row.status == "failed" else "—")
        shown.append({"parameter": row.parameter, "raw": raw, "coerced": coerced,
                      "rule": row.rule})
    render.explain(shown, error_text=explained.error)


@app.command("call", cls=Command)
@mcp_reach_options
def call_tool(
    name: Annotated[str, typer.Argument(metavar="NAME", click_type=TEXT,
                                        help="The tool to call.", show_default=False,
                                        autocompletion=complete_tool_names)],
    arguments: Annotated[str, typer.Argument(
        metavar="ARGUMENTS", click_type=TEXT, show_default=False,
        help="The JSON argument string, '-' to read it from standard input, or @file.json.")
    ] = "{}",
    tools: ToolsOption = None,
    strict: StrictOption = None,
    binding: BindingOption = "native",
    log: Annotated[bool, typer.Option(
        "--log", help="Show the logging decorator's request/response on stderr.")] = False,
    explain: Annotated[bool, typer.Option(
        "--explain", help="Show, per parameter, the raw value, the coerced value and the "
                          "rule used (stderr, or in the --json object).")] = False,
    memory_id: Annotated[str | None, typer.Option(
        "--memory-id", metavar="ID", help="The memory id passed with the call.")] = None,
    json_output: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object: name, result, is_error, arguments.")] = False,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="SECONDS", help="Fail a call still running after this long. "
                                             "Default: timeout in \\[tool.agentforge].")
    ] = None,
    wrap_argument_errors: Annotated[bool, typer.Option(
        "--wrap-argument-errors", help="Raise argument errors as ToolArgumentsError "
                                       "(the executor's switch).")] = False,
    propagate_errors: Annotated[bool, typer.Option(
        "--propagate-errors", help="Raise the tool's exception as ToolExecutionError "
                                   "instead of returning its message.")] = False,
    *, reach: McpReach,
) -> None:
    """Call one tool through the same pipeline a model's call takes.

    Standard output is exactly the text the model would receive.

    Exit 1 when the call fails (an argument or execution error).
    """
    with guarded():
        from agentforge_cli.core.run.call_choices import CallChoices, check_call_timeout

        check_call_timeout(timeout)
        strict, timeout = project_choices(strict, timeout)
        options = reach.options()
        from agentforge_cli.cli.guard import debug_enabled
        from agentforge_cli.cli.render import skipped_tool
        from agentforge_cli.core.run.argument_text import read_argument_text
        from agentforge_cli.integrations.targets.loading import load_service

        text = read_argument_text(arguments)
        choices = CallChoices(explain=explain, json_output=json_output, binding=binding,
                              propagate_errors=propagate_errors, debug=debug_enabled())
        service = load_service(tools, logging=log, strict=strict,
                               wrap_argument_errors=wrap_argument_errors,
                               propagate_execution_errors=choices.propagates,
                               timeout=timeout, mcp_options=options, binding=binding,
                               skip_problems=skipped_tool)
        executor = service.executor(name)
        if executor is None:
            raise _unknown_tool(name, service.names, tools or ())
        from agentforge_cli.core.define.capabilities import ForeignToolExecutor
        from agentforge_cli.core.run.wrapping import innermost

        base = innermost(executor)  # another library's tool: the path taken
        ran = base.binding if isinstance(base, ForeignToolExecutor) else None
        _call(service, executor, name, text, memory_id, choices, ran, log)


def _unknown_tool(name: str, known: list[str], targets: Sequence[str]) -> UsageError:
    import shlex

    from agentforge_cli.core.run.service import unknown_tool_message

    listed = " ".join(shlex.quote(mask_target(target)) for target in targets)
    return UsageError(unknown_tool_message(name, known),
                      hint=f"list them with: agentforge tools list {listed}".rstrip())


def _call(service: Any, executor: Any, name: str, text: str, memory_id: str | None,
          choices: CallChoices, ran: str | None, log: bool) -> None:
    """Show the notes ``choices`` ask for, call the tool, print its result and exit 1 when
    it is an error."""
    import uuid

    from agentforge_cli.cli.output import write
    from agentforge_cli.core.define.spec import ToolExecutionRequest
    from agentforge_cli.core.run import call_document
    from agentforge_cli.core.run.forks import claim_process
    from agentforge_cli.errors import ToolExecutionError

    repairs, explained = _argument_notes(executor, text, choices, ran)
    rows = [row.as_json() for row in explained.rows] if explained is not None else []
    explain_rows = rows if choices.explain else None
    request = ToolExecutionRequest(id=f"cli-{uuid.uuid4().hex[:12]}", name=name,
                                   arguments=text)
    document: dict[str, Any] = {}
    if choices.json_output:
        assert explained is not None  # made for --json
        document = call_document.call_document(request, memory_id, executor, explained, ran)
    claim_process()  # a child the tool forks ends with the tool, printing nothing
    with _tool_logging(log), _server_progress_bar():
        try:
            result = service.execute(request, memory_id)
        except ToolExecutionError as exc:
            if not choices.traced:
                _propagated(exc, document, explain_rows, choices.json_output)
                raise typer.Exit(EXIT_FAILED) from None
            result = _traced_failure(exc)
    if choices.json_output:
        document = call_document.answered(document, result, explain_rows, repairs)
        write(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        write(_as_shown(result.text))
    raise typer.Exit(EXIT_FAILED if result.is_error else EXIT_OK)


def _argument_notes(executor: Any, text: str, choices: CallChoices, ran: str | None
                    ) -> tuple[tuple[str, ...], ArgumentExplanation | None]:
    """What ``choices`` ask to know about the arguments before the call — what parsing
    repaired and how they bind — with the notes shown on stderr (the binding note too)."""
    from agentforge_cli.cli.output import write
    from agentforge_cli.core.bind.arguments import argument_repairs
    from agentforge_cli.core.run.wrapping import innermost

    if choices.shows_binding_note(ran):  # ran is set: another library's tool
        write(innermost(executor).binding_note, stderr=True)
    repairs = argument_repairs(text) if choices.looks_for_repairs(ran) else ()
    if repairs and not choices.json_output:
        write("the argument string was repaired: " + "; ".join(repairs), stderr=True)
    explained = _explanation(executor, text) if choices.explains else None
    if explained is not None and choices.notes:
        _show_explanation(explained)
    return repairs, explained


def _as_shown(text: str) -> str:
    """A result as ``tools call`` prints it: exactly the text the model receives, but on a
    terminal with its control characters escaped (a tool's text must not clear the screen,
    set the title or draw a hyperlink with a fake label); a pipe or a file gets it as is."""
    from agentforge_cli.cli.output import product_stream

    try:
        terminal = product_stream().isatty()
    except (AttributeError, ValueError, OSError):
        terminal = False
    if not terminal:
        return text
    from agentforge_cli.cli.render import safe_text

    return safe_text(text)


def _traced_failure(exc: BaseException) -> Any:
    """Under ``--debug``: the traceback of the tool's exception on stderr, and the error
    result the model would have received (the propagated error carries its text)."""
    from agentforge_cli.cli import render
    from agentforge_cli.core.define.spec import ToolExecutionResult

    render.debug_traceback(exc.__cause__ or exc)
    return ToolExecutionResult(str(exc), True)


@contextlib.contextmanager
def _server_progress_bar() -> Iterator[None]:
    """While a call runs: an MCP server's progress bar, taken away when the call ends."""
    try:
        yield
    finally:
        import sys

        if "agentforge_cli.cli.render.server_notices" in sys.modules:  # a bar was drawn
            from agentforge_cli.cli.render.server_notices import finish_progress

            finish_progress()


def _tool_logging(log: bool) -> contextlib.AbstractContextManager[None]:
    """The rich log handler while a call runs with ``--log``; nothing (no rich) otherwise."""
    if not log:
        return contextlib.nullcontext()
    from agentforge_cli.cli import render

    return render.tool_logging(log)


def _propagated(exc: BaseException, document: dict[str, Any], explain: list[Any] | None,
                json_output: bool) -> None:
    """Report a tool failure raised under --propagate-errors (nothing reaches the model)."""
    from agentforge_cli.cli import render
    from agentforge_cli.cli.guard import debug_enabled
    from agentforge_cli.core.run.call_document import cause_text, failed

    cause = cause_text(exc)
    if debug_enabled():
        render.debug_traceback(exc)
    render.error(f"{type(exc).__name__}: {exc}", f"caused by {cause}" if cause else None)
    if json_output:
        render.write(json.dumps(failed(document, exc, explain), ensure_ascii=False, indent=2))
