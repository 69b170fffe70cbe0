"""``agentforge auth logout URL``: forget the OAuth tokens cached for an MCP server.

``--oauth`` (on every command that takes a target) authorizes and fills the cache; this
group empties it, one server at a time. What the cache holds is never printed.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from agentforge_cli.cli.errors import UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.usage import TEXT, Group

app = typer.Typer(help="Manage the OAuth tokens cached for MCP servers.",
                  no_args_is_help=True, add_completion=False, cls=Group)


@app.command("logout")
def logout(
    url: Annotated[str, typer.Argument(metavar="URL", click_type=TEXT, show_default=False,
                                       help="The http(s):// URL of the MCP server, as "
                                            "given to --oauth.")],
) -> None:
    """Forget the OAuth tokens and the registered client cached for an MCP server: the
    next command sends none, and --oauth authorizes anew."""
    with guarded():
        from agentforge_cli.core.observe.masking import mask_target
        from agentforge_cli.integrations.mcp.client.token_cache import TokenCache
        from agentforge_cli.integrations.mcp.client.urls import check_url, is_url

        if not is_url(url):
            raise UsageError(f"{mask_target(url)!r} is not an http(s):// URL",
                             hint="e.g. agentforge auth logout https://tools.example.com/mcp")
        check_url(url)
        shown = mask_target(url)
        try:
            forgotten = TokenCache(url).forget()
        except OSError as exc:
            raise UsageError(f"cannot delete the tokens cached for {shown}: "
                             f"{exc.strerror or exc}") from None
        print(f"forgot the OAuth tokens of {shown}" if forgotten
              else f"no OAuth tokens are cached for {shown}", file=sys.stderr)
