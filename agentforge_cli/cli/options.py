"""The command-line options more than one command takes, declared once, and how their
values are read.

A command declares them by type: ``tools: ToolsOption = None``. The options of how MCP
servers are reached (``--header``, ``--env``, ``--cwd``, ``--protocol-era``, ``--oauth``,
``--root``, ``--elicit``) are one block: a command that takes MCP targets is decorated with
:func:`mcp_reach_options` and takes them as one parameter, ``reach: McpReach``, whose
:meth:`McpReach.options` (called inside ``guarded()``) checks them and gives the
``McpOptions`` for ``load_service``. Header and environment values may be secrets: no
message, help screen, ``repr`` or default ever shows one.

``--strict`` and ``--timeout`` fall back on the project's settings: a flag given on the
command line wins; then ``strict`` / ``timeout`` under ``[tool.agentforge]`` in the nearest
``pyproject.toml``; then the default (every command binds strictly). They are read inside
``guarded()``: a malformed table is a usage error (exit 2) naming the key and the file.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import typer

from agentforge_cli.cli.completion import complete_targets
from agentforge_cli.cli.errors import UsageError
from agentforge_cli.cli.usage import TEXT
from agentforge_cli.integrations.mcp.client.eras import ProtocolEra

__all__ = ["BindingOption", "CwdOption", "ElicitOption", "EnvOption", "FailOn", "HeaderOption",
           "HtmlOption", "McpReach", "OAuthOption", "ProtocolEraOption", "RootOption",
           "SchemaForm", "SchemaFormOption", "SeedOption", "StrictOption", "TargetsArgument",
           "ToolsOption", "fail_on_option", "mcp_options", "mcp_reach_options",
           "only_tool_option", "project_choices", "write_html"]

# -- where the tools are ------------------------------------------------------------------------

TargetsArgument = Annotated[
    list[str] | None,
    typer.Argument(metavar="TARGET", click_type=TEXT, show_default=False,
                   autocompletion=complete_targets,
                   help="Where the tools are: package.module, package.module:Name, "
                        "path/to/file.py[:Name], a factory called without arguments, "
                        "module:make_tools() (quote it in the shell), or an MCP server: "
                        "'mcp:COMMAND ARGS...' or an http(s):// URL; several may be given."),
]

ToolsOption = Annotated[
    list[str] | None,
    typer.Option("--tools", "-t", metavar="TARGET", autocompletion=complete_targets,
                 help="package.module, package.module:Name, path/to/file.py[:Name] or "
                      "a factory, module:make_tools() (replay calls it per conversation); "
                      "repeatable. Default: $AGENTFORGE_TOOLS, then \\[tool.agentforge] tools "
                      "in pyproject.toml.", show_default=False),
]


def only_tool_option(verb: str) -> Any:
    """``--tool NAME`` of a command that runs every tool unless told (``verb``: Fuzz,
    Audit)."""
    return typer.Option("--tool", metavar="NAME", show_default=False,
                        help=f"{verb} only this tool; repeatable. Default: every tool.")


# -- how the tools are called -------------------------------------------------------------------

StrictOption = Annotated[
    bool | None,
    typer.Option("--strict/--lenient", show_default=False,
                 help="Strict (the default): a missing required parameter or an unknown "
                      "key is an argument error; lenient: a missing value gets a default "
                      "for its type if it keeps the parameter's constraints, unknown keys "
                      "are ignored. strict = false in \\[tool.agentforge] makes lenient the "
                      "default."),
]

BindingOption = Annotated[
    Literal["native", "agentforge"],
    typer.Option("--binding", metavar="native|agentforge", show_default=False,
                 help="How tools of other libraries (LangChain, pydantic-ai, OpenAI Agents, "
                      "FastMCP, smolagents) are called: native, through the library's own "
                      "validation (the default); agentforge, through agentforge's coercion "
                      "table in front of the tool's function."),
]

SeedOption = Annotated[
    int | None,
    typer.Option("--seed", metavar="S", show_default=False,
                 help="Generate the same inputs as a run with this seed. Default: a random "
                      "seed, printed so the run can be repeated."),
]
"""The option that makes ``tools fuzz`` and ``tools audit`` repeat a run's generated inputs."""


def project_choices(strict: bool | None, timeout: float | None, *,
                    strict_default: bool = True, timeout_default: float | None = None
                    ) -> tuple[bool, float | None]:
    """``(strict, timeout)``: each flag given, else the project's setting, else the default.

    Raises:
        TargetConfigError: The ``pyproject.toml`` is malformed.
    """
    from agentforge_cli.integrations.targets.loading import find_settings

    settings = find_settings()
    if strict is None:
        strict = settings.strict if settings.strict is not None else strict_default
    if timeout is None:
        timeout = settings.timeout if settings.timeout is not None else timeout_default
    return strict, timeout


SchemaForm = Literal["standard", "gemini-mcp"]

SchemaFormOption = Annotated[SchemaForm, typer.Option(
    "--schema-form", metavar="standard|gemini-mcp", show_default=False,
    help="The input schemas as written (standard, the default), or gemini-mcp: the form "
         "google-genai's MCP bridge takes whole (no boolean schemas, nothing it drops; "
         "tools check --provider gemini-mcp is clean on it).")]
"""``--schema-form`` of ``serve`` and ``tools list`` (applied by
:func:`~agentforge_cli.cli.schema_form.apply_schema_form`)."""


# -- what fails a check -------------------------------------------------------------------------


class FailOn(StrEnum):
    """``--fail-on`` of ``tools check`` and ``tools audit``."""

    error = "error"
    warning = "warning"


def fail_on_option(what: str) -> Any:
    """``--fail-on LEVEL`` of a command whose findings fail ``what`` (the check, the
    audit)."""
    return typer.Option("--fail-on", metavar="LEVEL", case_sensitive=False,
                        help=f"The lowest level that fails {what} (exit 1): error or warning.")


# -- how MCP servers are reached ----------------------------------------------------------------

MCP_PANEL = "MCP servers"
"""The help panel of the options of how MCP servers are reached, apart from the command's
own."""

HeaderOption = Annotated[
    list[str] | None,
    typer.Option("--header", "-H", metavar="KEY:VALUE", show_default=False,
                 rich_help_panel=MCP_PANEL,
                 help="An HTTP header for http(s):// MCP targets, e.g. 'Authorization: "
                      "Bearer ...'; repeatable. Wins over $AGENTFORGE_MCP_HEADERS per "
                      "header. Never printed."),
]

EnvOption = Annotated[
    list[str] | None,
    typer.Option("--env", metavar="KEY=VALUE", show_default=False, rich_help_panel=MCP_PANEL,
                 help="An environment variable for mcp: targets, added to yours; "
                      "repeatable. Never printed."),
]

CwdOption = Annotated[
    str | None,
    typer.Option("--cwd", metavar="DIR", show_default=False, rich_help_panel=MCP_PANEL,
                 help="The directory mcp: targets run in (default: the current directory, "
                      "or that of the pyproject.toml naming them)."),
]

ProtocolEraOption = Annotated[
    ProtocolEra,
    typer.Option("--protocol-era", metavar="auto|legacy|modern", show_default=False,
                 rich_help_panel=MCP_PANEL,
                 help="How MCP targets' sessions open: auto (the default) asks "
                      "server/discover first and falls back to initialize; legacy sends "
                      "initialize only (revisions up to 2025-11-25); modern speaks the "
                      "stateless 2026-07-28 revision only."),
]

OAuthOption = Annotated[
    bool,
    typer.Option("--oauth", show_default=False, rich_help_panel=MCP_PANEL,
                 help="Authorize with OAuth an http(s):// MCP target that asks for it: "
                      "the authorization address is printed on stderr (and opened in a "
                      "browser when there is one); the tokens are cached for the next "
                      "commands, which use them without --oauth. Forget them with "
                      "agentforge auth logout URL."),
]

RootOption = Annotated[
    list[str] | None,
    typer.Option("--root", metavar="DIR", show_default=False, rich_help_panel=MCP_PANEL,
                 help="A directory MCP servers are told the user works in, when they ask "
                      "for the client's roots; repeatable. Default: the current directory."),
]

ElicitOption = Annotated[
    str | None,
    typer.Option("--elicit", metavar="FILE", show_default=False, rich_help_panel=MCP_PANEL,
                 help="A JSON or YAML object of answers by field name, given to MCP "
                      "servers that ask for input (elicitation). Default: every request "
                      "for input is declined."),
]

@dataclass(frozen=True)
class McpReach:
    """The MCP options of one command line as given (:func:`mcp_reach_options`), checked
    only when :meth:`options` reads them, inside the command's ``guarded()``."""

    header: list[str] | None = field(default=None, repr=False)
    env: list[str] | None = field(default=None, repr=False)
    cwd: str | None = None
    protocol_era: ProtocolEra = "auto"
    oauth: bool = False
    root: list[str] | None = None
    elicit: str | None = None

    def options(self, *, on_skipped: Any = None) -> Any:
        """The ``McpOptions`` of these values (see :func:`mcp_options`, which raises)."""
        return mcp_options(self.header, self.env, self.cwd, era=self.protocol_era,
                           on_skipped=on_skipped, oauth=self.oauth, root=self.root,
                           elicit=self.elicit)


_REACH_ANNOTATIONS: dict[str, Any] = {
    "header": HeaderOption, "env": EnvOption, "cwd": CwdOption,
    "protocol_era": ProtocolEraOption, "oauth": OAuthOption, "root": RootOption,
    "elicit": ElicitOption}
"""Each field of :class:`McpReach` and the option it is given by."""

_Command = TypeVar("_Command", bound=Callable[..., Any])


def mcp_reach_options(command: _Command) -> _Command:
    """Declare the MCP options on ``command``, after its own: typer sees ``--header``,
    ``--env``, ``--cwd``, ``--protocol-era``, ``--oauth``, ``--root`` and ``--elicit``, and
    ``command`` receives them as one keyword argument, ``reach`` (a :class:`McpReach`)."""
    signature = inspect.signature(command, eval_str=True)
    own = [parameter for name, parameter in signature.parameters.items() if name != "reach"]
    added = [inspect.Parameter(item.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                               default=item.default, annotation=_REACH_ANNOTATIONS[item.name])
             for item in fields(McpReach)]

    @functools.wraps(command)
    def with_reach(*args: Any, **kwargs: Any) -> Any:
        given = {name: kwargs.pop(name) for name in _REACH_ANNOTATIONS if name in kwargs}
        return command(*args, reach=McpReach(**given), **kwargs)

    parameters = [*own, *added]
    with_reach.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]  # read by inspect.signature
    with_reach.__annotations__ = {p.name: p.annotation for p in parameters}
    return with_reach  # type: ignore[return-value]  # the same call, other parameters


_BREAKS = ("\r", "\n", "\0")


def _pairs(values: list[str] | None, separator: str, option: str, form: str
           ) -> dict[str, str]:
    """``KEY<separator>VALUE`` strings as a dict; a malformed one is a usage error that
    names its key at most, never its value."""
    pairs: dict[str, str] = {}
    for index, text in enumerate(values or (), start=1):
        key, found, value = text.partition(separator)
        key = key.strip()
        if not found or not key:
            problem = f"has no '{separator}'" if not found else f"has no name before '{separator}'"
            raise UsageError(f"{option} takes {form}; value {index} of {option} {problem} "
                             "(the value is not shown: it may be a secret)",
                             hint=f"write {option} {form}")
        if any(char in key for char in (*_BREAKS, " ", "\t")):
            raise UsageError(f"{option}: the name {key!r} holds a space or a control "
                             "character")
        if any(char in value for char in _BREAKS):
            raise UsageError(f"{option} {key}: the value holds a line break or a NUL "
                             "character (the value is not shown)")
        pairs[key] = value.strip() if separator == ":" else value
    return pairs


def mcp_options(header: list[str] | None, env: list[str] | None, cwd: str | None, *,
                era: ProtocolEra = "auto", on_skipped: Any = None, oauth: bool = False,
                root: list[str] | None = None, elicit: str | None = None) -> Any:
    """The ``McpOptions`` of the options given (``era``: ``--protocol-era``; ``oauth``:
    ``--oauth``; ``on_skipped``, which receives each unusable tool of a server; ``root``
    and ``elicit``: ``--root`` and ``--elicit``). What the servers say or ask during the
    command (requests answered, log messages, progress) is shown on standard error.

    Raises:
        UsageError: A malformed ``--header``/``--env``, a ``--cwd`` or ``--root`` that is
            not a directory (exit 2).
        TargetConfigError: The ``--elicit`` file cannot be read or holds no answers.
    """
    headers = _pairs(header, ":", "--header", "KEY:VALUE")
    variables = _pairs(env, "=", "--env", "KEY=VALUE")
    directory = None
    if cwd is not None:
        directory = Path(cwd).expanduser().resolve()
        if not directory.is_dir():
            raise UsageError(f"--cwd {cwd}: no such directory",
                             hint="give the directory mcp: servers should run in")
    from agentforge_cli.integrations.mcp.client.options import McpOptions

    return McpOptions(headers=headers, env=variables, cwd=directory, on_skipped=on_skipped,
                      protocol_era=era, oauth=oauth,
                      on_authorize=show_authorization if oauth else None,
                      answers=_client_answers(root, elicit))


def show_authorization(url: str) -> None:
    """Print the address the user opens to authorize agentforge (standard error: a
    machine without a browser opens it elsewhere)."""
    import sys

    print("To authorize agentforge, open this address in a browser (it redirects to "
          "127.0.0.1 on this machine):\n  " + url, file=sys.stderr, flush=True)


HtmlOption = Annotated[str | None, typer.Option(
    "--html", metavar="FILE", show_default=False,
    help="Also write an HTML report: one self-contained page, drawn from the --json "
         "document.")]


def write_html(path: str, command: str, document: Any) -> None:
    """``--html FILE``: the command's ``--json`` document drawn as the HTML report.

    Raises:
        UsageError: The file cannot be written (exit 2).
    """
    from agentforge_cli.cli.report import write_report

    write_report(path, [(command, document)])


def _client_answers(root: list[str] | None, elicit: str | None) -> Any:
    """The ``ClientAnswers`` of ``--root`` and ``--elicit``, telling the user on standard
    error."""
    from agentforge_cli.integrations.mcp.client.server_requests import (
        ClientAnswers,
        load_elicit_answers,
    )

    roots = []
    for text in root or ():
        directory = Path(text).expanduser().resolve()
        if not directory.is_dir():
            raise UsageError(f"--root {text}: no such directory",
                             hint="give a directory the servers may work in")
        roots.append(directory)
    answers = None if elicit is None else load_elicit_answers(Path(elicit).expanduser())
    return ClientAnswers(roots=tuple(roots), elicit=answers, on_notice=_server_line,
                         on_progress=_server_progress)


def _server_line(text: str) -> None:
    from agentforge_cli.cli.render.server_notices import server_line  # rich, when needed

    server_line(text)


def _server_progress(progress: float, total: float | None, message: str | None) -> None:
    from agentforge_cli.cli.render.server_notices import server_progress

    server_progress(progress, total, message)
