"""``agentforge resources list`` and ``agentforge resources read``: an MCP server's
resources and resource templates, and one resource's contents."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from agentforge_cli.cli.errors import CliError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import (
    McpReach,
    TargetsArgument,
    ToolsOption,
    mcp_reach_options,
)
from agentforge_cli.cli.usage import TEXT, Command, Group

__all__ = ["FormatOption", "app", "check_format"]

app = typer.Typer(help="List and read the resources of MCP servers.", no_args_is_help=True,
                  add_completion=False, cls=Group)

FormatOption = Annotated[str, typer.Option(
    "--format", "-f", metavar="FORMAT",
    help="table (a readable summary) or json (the protocol's objects).")]


def check_format(output_format: str) -> bool:
    """Whether ``--format`` is json (else table)."""
    from agentforge_cli.cli.errors import UsageError

    chosen = output_format.strip().lower()
    if chosen not in ("table", "json"):
        raise UsageError(f"unknown --format {output_format!r}", hint="choose table or json")
    return chosen == "json"


@app.command("list", cls=Command)
@mcp_reach_options
def list_resources(
    targets: TargetsArgument = None, tools: ToolsOption = None,
    output_format: FormatOption = "table",
    *, reach: McpReach,
) -> None:
    """Print the resources and resource templates of MCP servers."""
    with guarded():
        as_json = check_format(output_format)
        options = reach.options()
        from agentforge_cli.cli.output import write
        from agentforge_cli.cli.server_surfaces import opened_servers

        with opened_servers([*(targets or ()), *(tools or ())], options) as servers:
            resources = [item for server in servers for item in server.resources()]
            templates = [item for server in servers for item in server.templates()]
        if as_json:
            write(json.dumps({"resources": resources, "resourceTemplates": templates},
                             ensure_ascii=False, indent=2))
            return
        write(_listing(resources, templates))


def _entry(address: str, item: dict[str, Any]) -> list[str]:
    title = item.get("title") or item.get("name") or ""
    kind = f" ({item['mimeType']})" if item.get("mimeType") else ""
    lines = [f"[{address}] {title}{kind}".rstrip()]
    if item.get("description"):
        lines.append(f"  {item['description']}")
    return lines


def _listing(resources: list[dict[str, Any]], templates: list[dict[str, Any]]) -> str:
    from agentforge_cli.core.observe.terminal_text import safe_text

    lines = [line for item in resources for line in _entry(str(item.get("uri")), item)]
    if templates:
        lines.append("templates:")
        lines += [line for item in templates
                  for line in _entry(str(item.get("uriTemplate")), item)]
    return safe_text("\n".join(lines) or "(no resources)")


@app.command("read", cls=Command)
@mcp_reach_options
def read_resource(
    uri: Annotated[str, typer.Argument(metavar="URI", click_type=TEXT, show_default=False,
                                       help="The resource to read.")],
    tools: ToolsOption = None,
    output_format: FormatOption = "table",
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="SECONDS", help="Fail when the server has not answered after "
                                             "this long.")] = None,
    *, reach: McpReach,
) -> None:
    """Print the contents of one resource of an MCP server (exit 1 when it refuses)."""
    with guarded():
        as_json = check_format(output_format)
        options = reach.options()
        from mcp.shared.exceptions import MCPError

        from agentforge_cli.cli.output import write
        from agentforge_cli.cli.server_surfaces import opened_servers

        with opened_servers(tools or (), options, timeout=timeout, one=True) as servers:
            try:
                result = servers[0].read(uri)
            except MCPError as exc:
                raise CliError(f"MCP server {servers[0].shown} refused resources/read "
                               f"{uri}: {exc.message}") from None
        if as_json:
            write(json.dumps(result, ensure_ascii=False, indent=2))
            return
        from agentforge_cli.core.run.content_blocks import blocks_text

        write(blocks_text({"type": "resource", "resource": contents}
                          for contents in result.get("contents") or []))

