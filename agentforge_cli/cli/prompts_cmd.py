"""``agentforge prompts list`` and ``agentforge prompts get``: an MCP server's prompts, and
one prompt's messages."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from agentforge_cli.cli.errors import CliError, UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import (
    McpReach,
    TargetsArgument,
    ToolsOption,
    mcp_reach_options,
)
from agentforge_cli.cli.resources_cmd import FormatOption, check_format
from agentforge_cli.cli.usage import TEXT, Command, Group

__all__ = ["app"]

app = typer.Typer(help="List and get the prompts of MCP servers.", no_args_is_help=True,
                  add_completion=False, cls=Group)


@app.command("list", cls=Command)
@mcp_reach_options
def list_prompts(
    targets: TargetsArgument = None, tools: ToolsOption = None,
    output_format: FormatOption = "table",
    *, reach: McpReach,
) -> None:
    """Print the prompts of MCP servers and their arguments."""
    with guarded():
        as_json = check_format(output_format)
        options = reach.options()
        from agentforge_cli.cli.output import write
        from agentforge_cli.cli.server_surfaces import opened_servers

        with opened_servers([*(targets or ()), *(tools or ())], options) as servers:
            prompts = [item for server in servers for item in server.prompts()]
        if as_json:
            write(json.dumps(prompts, ensure_ascii=False, indent=2))
            return
        write(_listing(prompts))


def _listing(prompts: list[dict[str, Any]]) -> str:
    from agentforge_cli.core.observe.terminal_text import safe_text

    lines = []
    for prompt in prompts:
        lines.append(f"[{prompt.get('name')}] {prompt.get('description') or ''}".rstrip())
        arguments = [f"{argument.get('name')} "
                     + ("(required)" if argument.get("required") else "(optional)")
                     for argument in prompt.get("arguments") or []]
        if arguments:
            lines.append("  arguments: " + ", ".join(arguments))
    return safe_text("\n".join(lines) or "(no prompts)")


def _arguments(text: str) -> dict[str, str]:
    """The ``ARGUMENTS`` of ``prompts get``: a JSON object of strings."""
    try:
        arguments = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"ARGUMENTS is not JSON: {exc}",
                         hint="""e.g. '{"topic": "tea"}'""") from None
    if not isinstance(arguments, dict) or not all(isinstance(value, str)
                                                  for value in arguments.values()):
        raise UsageError("ARGUMENTS must be a JSON object of strings: a prompt's arguments "
                         "are text", hint="""e.g. '{"topic": "tea", "count": "3"}'""")
    return arguments


def _check_call(name: str, arguments: dict[str, str], prompts: list[dict[str, Any]]) -> None:
    """An unknown prompt, or required arguments left out, are usage errors (exit 2)."""
    import difflib

    known = {str(prompt.get("name")): prompt for prompt in prompts}
    prompt = known.get(name)
    if prompt is None:
        close = difflib.get_close_matches(name, list(known), n=3)
        raise UsageError(f'Unknown prompt "{name}".'
                         + (f" Did you mean: {', '.join(close)}?" if close else ""),
                         hint="the server's prompts: " + (", ".join(known) or "none"))
    missing = [str(argument.get("name")) for argument in prompt.get("arguments") or []
               if argument.get("required") and argument.get("name") not in arguments]
    if missing:
        raise UsageError(f'prompt "{name}" needs the argument{"s" if len(missing) > 1 else ""} '
                         + ", ".join(missing))


def _messages(result: dict[str, Any]) -> str:
    from agentforge_cli.core.run.content_blocks import blocks_text

    lines = []
    for message in result.get("messages") or []:
        lines.append(f"[{message.get('role')}] " + blocks_text([message.get("content") or {}]))
    return "\n".join(lines)


@app.command("get", cls=Command)
@mcp_reach_options
def get_prompt(
    name: Annotated[str, typer.Argument(metavar="NAME", click_type=TEXT, show_default=False,
                                        help="The prompt to get.")],
    arguments: Annotated[str, typer.Argument(
        metavar="ARGUMENTS", click_type=TEXT, show_default=False,
        help="The prompt's arguments, a JSON object of strings.")] = "{}",
    tools: ToolsOption = None,
    output_format: FormatOption = "table",
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="SECONDS", help="Fail when the server has not answered after "
                                             "this long.")] = None,
    *, reach: McpReach,
) -> None:
    """Print the messages of one prompt of an MCP server (exit 1 when it refuses)."""
    with guarded():
        as_json = check_format(output_format)
        given = _arguments(arguments)
        options = reach.options()
        from mcp.shared.exceptions import MCPError

        from agentforge_cli.cli.output import write
        from agentforge_cli.cli.server_surfaces import opened_servers

        with opened_servers(tools or (), options, timeout=timeout, one=True) as servers:
            _check_call(name, given, servers[0].prompts())
            try:
                result = servers[0].get(name, given)
            except MCPError as exc:
                raise CliError(f"MCP server {servers[0].shown} refused prompts/get {name}: "
                               f"{exc.message}") from None
        write(json.dumps(result, ensure_ascii=False, indent=2) if as_json
              else _messages(result))
