"""The options of the commands that ask a model (``eval``, ``chat``), declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["BaseUrlOption", "CacheOption", "OfflineOption", "RetriesOption", "SystemOption"]

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
