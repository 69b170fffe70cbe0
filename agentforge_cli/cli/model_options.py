"""The options of the commands that ask a model (``eval``, ``chat``), declared once, and
what both do with them: load the tools, find the model's price, hint at a model's
failure."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["BaseUrlOption", "CacheOption", "OfflineOption", "PricesOption", "RetriesOption",
           "SystemOption", "load_tools", "model_error_hint", "model_price"]

BaseUrlOption = Annotated[str | None, typer.Option(
    "--base-url", metavar="URL", show_default=False,
    help="Another server speaking the connection's API (Ollama, vLLM, Azure...).")]
CacheOption = Annotated[Path | None, typer.Option(
    "--cache", metavar="FILE", dir_okay=False, show_default=False,
    help="The VCR cassette model responses are kept in (default: "
         ".agentforge/models/CONNECTION-MODEL.yaml).")]
OfflineOption = Annotated[bool, typer.Option(
    "--offline", help="Send nothing: a response not in the cassette fails (exit 3).")]
RetriesOption = Annotated[int, typer.Option(
    "--retries", min=0, max=10, help="Retries of a request answered 429 or 5xx, with backoff.")]
SystemOption = Annotated[str | None, typer.Option(
    "--system", metavar="TEXT", show_default=False,
    help="A system prompt sent with every request (eval: in place of the recorded one).")]
PricesOption = Annotated[Path | None, typer.Option(
    "--prices", metavar="FILE", dir_okay=False, show_default=False,
    help="A price table (TOML, or JSON when it ends in .json): model name -> "
         "{input, output} in US dollars per million tokens, to count the cost of "
         "responses that report none. Replaces \\[tool.agentforge.models.prices].")]


def load_tools(target: str, strict: bool | None, binding: str, servers: Any) -> Any:
    """The ``ToolService`` of ``target`` (a tool that cannot be loaded is skipped, said)."""
    from agentforge_cli.cli.options import project_choices
    from agentforge_cli.cli.render import skipped_tool
    from agentforge_cli.integrations.targets.loading import load_service

    strict, _ = project_choices(strict, None)
    return load_service([target], strict=strict, binding=binding, mcp_options=servers,
                        skip_problems=skipped_tool)


def model_price(path: Path | None, connection: str, model: str) -> Any:
    """The price of the model, from ``--prices`` or the project's table (``None``: none).

    Raises:
        CommandInputError: ``--prices`` is not a price table.
    """
    from agentforge_cli.models.prices import PRICE_EXAMPLE, load_prices, price_for

    if path is None:
        from agentforge_cli.integrations.targets.loading import find_settings

        return price_for(find_settings().prices, connection, model)
    try:
        return price_for(load_prices(path), connection, model)
    except ValueError as exc:
        from agentforge_cli.errors import CommandInputError

        said = str(exc)  # a malformed table's message shows the example already
        raise CommandInputError(said, hint=None if PRICE_EXAMPLE in said else PRICE_EXAMPLE
                                ) from None


def model_error_hint(exc: Exception) -> str | None:
    """What to do about a model that could not be asked, where there is something."""
    from agentforge_cli.models.errors import CacheMiss, ModelUnavailableError

    if isinstance(exc, CacheMiss):
        return "run once without --offline to fill the cassette"
    if isinstance(exc, ModelUnavailableError) and "API key" in str(exc):
        return "or name a local server with --base-url (Ollama, vLLM)"
    return None
