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
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentforge_cli.cli.completion import complete_formats, complete_tool_names
from agentforge_cli.cli.errors import EXIT_FAILED, EXIT_OK, CliError, UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.schema_form import SchemaFormOption, apply_schema_form
from agentforge_cli.cli.settings import BindingOption, StrictOption, project_choices
from agentforge_cli.cli.target_options import CwdOption, EnvOption, HeaderOption, mcp_options
from agentforge_cli.cli.usage import TEXT, Command, Group
from agentforge_cli.core.observe.masking import mask_target

if TYPE_CHECKING:
    from agentforge_cli.core.bind.argument_explanation import ArgumentExplanation

app = typer.Typer(help="List, call, check, diff and fuzz the tools of a target.",
                  no_args_is_help=True, add_completion=False, cls=Group)

TargetsArgument = Annotated[
    list[str] | None,
    typer.Argument(metavar="TARGET", click_type=TEXT, show_default=False,
                   help="Where the tools are: package.module, package.module:Name, "
                        "path/to/file.py[:Name], a factory called without arguments, "
                        "module:make_tools() (quote it in the shell), or an MCP server: "
                        "'mcp:COMMAND ARGS...' or an http(s):// URL; several may be given."),
]

ToolsOption = Annotated[
    list[str] | None,
    typer.Option("--tools", "-t", metavar="TARGET",
                 help="package.module, package.module:Name, path/to/file.py[:Name] or "
                      "a factory, module:make_tools() (replay calls it per conversation); "
                      "repeatable. Default: $AGENTFORGE_TOOLS, then \\[tool.agentforge] tools "
                      "in pyproject.toml.", show_default=False),
]


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


def list_formats() -> dict[str, Renderer]:
    """``--format`` name -> renderer(specifications, strict): ``table``, ``json``, then each
    provider format of the registry, read when the command runs (``--strict`` is refused
    before loading for a provider format that has no strict form)."""
    from agentforge_cli.schema.providers import FORMATS

    return {"table": _list_table, "json": _list_json,
            **{name: _provider_export(name) for name in FORMATS}}


def _format_help() -> str:
    """The ``--format`` help, naming the provider formats of the registry."""
    from agentforge_cli.schema.providers import FORMATS

    return ("table (a readable summary), json (an array of {name, description, "
            f"parameters}}), or a provider's tool definitions: {', '.join(FORMATS)}.")


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
    from agentforge_cli.schema.providers import FORMATS, provider_name

    if output_format in FORMATS:
        try:
            provider_name(output_format, strict=True)
        except ValueError as exc:
            uses = " or ".join(f"--format {name} --strict" for name in _strict_formats())
            raise UsageError(f"--strict with --format {output_format}: {exc}",
                             hint=f"drop --strict, or use {uses}") from None


@app.command("list", cls=Command)
def list_tools(
    targets: TargetsArgument = None,
    tools: ToolsOption = None,
    output_format: Annotated[str, typer.Option(
        "--format", "-f", metavar="FORMAT",
        help=_format_help(), autocompletion=complete_formats)] = "table",
    strict: Annotated[bool, typer.Option(
        "--strict", help=_strict_help())] = False,
    schema_form: SchemaFormOption = "standard",
    header: HeaderOption = None, env: EnvOption = None, cwd: CwdOption = None,
) -> None:
    """Print the tools a model would see: name, description and parameters.

    Provider formats print the JSON that provider takes; a part it cannot express exactly
    is a warning on stderr, a part it cannot take at all fails (exit 1).
    """
    with guarded():
        formats = list_formats()
        chosen = output_format.strip().lower()  # --format OpenAI is openai
        renderer = formats.get(chosen)
        if renderer is None:
            raise UsageError(f"unknown --format {output_format!r}",
                             hint="choose one of: " + ", ".join(formats))
        _check_strict(chosen, strict)
        if schema_form != "standard" and chosen != "mcp":
            raise UsageError(f"--schema-form {schema_form} needs --format mcp",
                             hint="e.g. agentforge tools list --format mcp --schema-form "
                                  f"{schema_form}")
        reach = mcp_options(header, env, cwd)
        from agentforge_cli.cli.render import skipped_tool
        from agentforge_cli.integrations.targets.loading import load_service

        service = load_service([*(targets or ()), *(tools or ())], strict=strict,
                               mcp_options=reach, skip_problems=skipped_tool)
        from agentforge_cli.integrations.targets.provenance import tool_origins

        apply_schema_form(service, schema_form)
        _warn_task_only(service.specifications)
        renderer(service.specifications, strict, tool_origins(service))


def _warn_task_only(specs: Sequence[Any]) -> None:
    """A warning per MCP tool that must be called as a task (its calls are refused)."""
    if not any(spec.execution for spec in specs):
        return
    from agentforge_cli.cli.render import warning
    from agentforge_cli.integrations.mcp.client.target import TASK_REQUIRED_TEXT, task_required

    for spec in specs:
        if task_required(spec):
            warning(f'tool "{spec.name}": {TASK_REQUIRED_TEXT} (its calls are refused)')


# -- tools call ---------------------------------------------------------------------------------


def _read_arguments(value: str) -> str:
    """The argument text: ``value``, standard input for ``-``, a file's for ``@FILE``;
    input is read only up to the argument limit (and refused past it)."""
    if value == "-":
        return _within_limit(_read_limited(sys.stdin), "the arguments on standard input")
    if value.startswith("@"):
        path = Path(value[1:])
        try:
            with path.open(encoding="utf-8") as stream:
                text = _read_limited(stream)
        except OSError as exc:
            raise UsageError(f"cannot read the arguments file {str(path)!r}: "
                             f"{exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise UsageError(f"the arguments file {str(path)!r} is not UTF-8 text") from exc
        return _within_limit(text, f"the arguments file {str(path)!r}")
    return value


def _read_limited(stream: Any) -> str:
    """At most one character more than the argument limit."""
    from agentforge_cli.core.bind.arguments import DEFAULT_MAX_ARGUMENT_CHARS

    text: str = stream.read(DEFAULT_MAX_ARGUMENT_CHARS + 1)
    return text


def _within_limit(text: str, what: str) -> str:
    from agentforge_cli.core.bind.arguments import DEFAULT_MAX_ARGUMENT_CHARS

    if len(text) > DEFAULT_MAX_ARGUMENT_CHARS:
        raise UsageError(f"{what} are more than the limit of {DEFAULT_MAX_ARGUMENT_CHARS} "
                         "characters")
    return text


def _bound_arguments(executor: Any, text: str) -> dict[str, Any] | None:
    """Bound values keyed by JSON key, JSON-safe, secrets masked; ``None`` if they fail."""
    from agentforge_cli.cli.values import json_safe
    from agentforge_cli.core.bind.diagnostics import try_bind
    from agentforge_cli.core.observe.masking import mask_value

    bound = try_bind(executor, text)
    if bound is None:
        return None
    definition, values = bound
    masked: dict[str, Any] = mask_value(
        {p.key: json_safe(values[p.name]) for p in definition.params}, definition.sensitive_keys)
    return masked


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


def _repairs(text: str) -> tuple[str, ...]:
    """What agentforge's parsing repaired in the argument string (``--explain``)."""
    from agentforge_cli.core.bind.arguments import argument_repairs

    return argument_repairs(text)


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
    header: HeaderOption = None, env: EnvOption = None, cwd: CwdOption = None,
) -> None:
    """Call one tool through the same pipeline a model's call takes.

    Standard output is exactly the text the model would receive.

    Exit 1 when the call fails (an argument or execution error).
    """
    with guarded():
        if timeout is not None and not timeout > 0:
            raise UsageError(f"--timeout must be a positive number of seconds, got {timeout:g}")
        strict, timeout = project_choices(strict, timeout)
        reach = mcp_options(header, env, cwd)
        text = _read_arguments(arguments)

        import uuid

        from agentforge_cli.cli.guard import debug_enabled
        from agentforge_cli.cli.output import write
        from agentforge_cli.core.define.capabilities import ForeignToolExecutor
        from agentforge_cli.core.define.spec import ToolExecutionRequest
        from agentforge_cli.core.run.service import unknown_tool_message
        from agentforge_cli.core.run.wrapping import innermost
        from agentforge_cli.errors import ToolExecutionError
        from agentforge_cli.integrations.targets.loading import load_service

        # --debug: the tool's exception is raised, to show its traceback, then answered
        traced = debug_enabled() and not propagate_errors
        from agentforge_cli.cli.render import skipped_tool

        service = load_service(tools, logging=log, strict=strict,
                               wrap_argument_errors=wrap_argument_errors,
                               propagate_execution_errors=propagate_errors or traced,
                               timeout=timeout, mcp_options=reach, binding=binding,
                               skip_problems=skipped_tool)
        executor = service.executor(name)
        if executor is None:
            import shlex

            listed = " ".join(shlex.quote(mask_target(target)) for target in tools or ())
            raise UsageError(unknown_tool_message(name, service.names),
                             hint=f"list them with: agentforge tools list {listed}".rstrip())
        base = innermost(executor)  # another library's tool: the path taken
        ran = base.binding if isinstance(base, ForeignToolExecutor) else None
        native = ran == "native"
        fell_back = binding == "agentforge" and ran == "native"
        if (explain or fell_back) and isinstance(base, ForeignToolExecutor) and not json_output:
            write(base.binding_note, stderr=True)
        repairs = _repairs(text) if explain and not native else ()
        if repairs and not json_output:
            write("the argument string was repaired: " + "; ".join(repairs), stderr=True)
        explained = _explanation(executor, text) if explain or json_output else None
        if explain and explained is not None and not json_output:
            _show_explanation(explained)
        rows = [row.as_json() for row in explained.rows] if explained is not None else []
        request = ToolExecutionRequest(id=f"cli-{uuid.uuid4().hex[:12]}", name=name,
                                       arguments=text)
        payload: dict[str, Any] = {"name": name, "id": request.id, "memory_id": memory_id}
        if json_output:
            assert explained is not None  # made for --json
            payload["arguments"] = (explained.sent if explained.bound_elsewhere
                                    else _bound_arguments(executor, text))
            if ran is not None:
                payload["binding"] = ran
        from agentforge_cli.core.run.forks import claim_process

        claim_process()  # a child the tool forks ends with the tool, printing nothing
        with _tool_logging(log):
            try:
                result = service.execute(request, memory_id)
            except ToolExecutionError as exc:
                if not traced:
                    _propagated(exc, payload, rows if explain else None, json_output)
                    raise typer.Exit(EXIT_FAILED) from None
                result = _traced_failure(exc)
        if json_output:
            payload.update(result=result.text, is_error=bool(result.is_error))
            payload.update(_mcp_content(result))
            if explain:
                payload["explain"] = rows
                payload["repairs"] = list(repairs)
            write(json.dumps(_ordered(payload), ensure_ascii=False, indent=2))
        else:
            write(_as_shown(result.text))
        raise typer.Exit(EXIT_FAILED if result.is_error else EXIT_OK)


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


def _tool_logging(log: bool) -> contextlib.AbstractContextManager[None]:
    """The rich log handler while a call runs with ``--log``; nothing (no rich) otherwise."""
    if not log:
        return contextlib.nullcontext()
    from agentforge_cli.cli import render

    return render.tool_logging(log)


def _mcp_content(result: Any) -> dict[str, Any]:
    """An MCP tool's ``content`` blocks and ``structuredContent`` (when it sent one), as
    the server sent them; nothing for a Python tool."""
    content = getattr(result, "content", None)
    if content is None:
        return {}
    extra: dict[str, Any] = {"content": content}
    if result.structured_content is not None:
        extra["structuredContent"] = result.structured_content
    return extra


def _ordered(payload: dict[str, Any]) -> dict[str, Any]:
    keys = ("name", "result", "is_error", "content", "structuredContent", "arguments", "id",
            "memory_id", "binding", "error", "repairs", "explain")
    return {key: payload[key] for key in keys if key in payload}


def _propagated(exc: BaseException, payload: dict[str, Any], rows: list[Any] | None,
                json_output: bool) -> None:
    """Report a tool failure raised under --propagate-errors (nothing reaches the model)."""
    from agentforge_cli.cli import render
    from agentforge_cli.cli.guard import debug_enabled

    cause = exc.__cause__
    cause_text = f"{type(cause).__name__}: {cause}" if cause is not None else None
    if debug_enabled():
        render.debug_traceback(exc)
    render.error(f"{type(exc).__name__}: {exc}",
                 f"caused by {cause_text}" if cause_text else None)
    if json_output:
        payload.update(result=None, is_error=True,
                       error={"type": type(exc).__name__, "message": str(exc),
                              "cause": cause_text})
        if rows is not None:
            payload["explain"] = rows
        render.write(json.dumps(_ordered(payload), ensure_ascii=False, indent=2))
