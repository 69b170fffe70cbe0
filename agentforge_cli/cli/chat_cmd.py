"""``agentforge chat``: the agent loop, live, over a target's tools.

The user's message goes to the model with the tools; its calls run through the
``ToolService`` with the same binding as every other command, their results (argument
errors included) go back, until the model answers or ``--max-steps`` requests were made.
The trace is printed as ``replay`` prints it; ``--record FILE`` writes the conversation
as an agentforge JSONL transcript (atomically, after every turn). One message with
``--message``; otherwise a prompt on stderr reads a message a line until end of input.

Exit codes: ``0`` answered, ``1`` a turn reached ``--max-steps`` with the model still
calling tools, ``2`` usage, ``3`` the target, the model or the script cannot be loaded or
asked.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from agentforge_cli.cli.errors import EXIT_FAILED, EXIT_OK, LoadError, UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.model_options import (
    BaseUrlOption,
    CacheOption,
    OfflineOption,
    PricesOption,
    RetriesOption,
    SystemOption,
    load_tools,
    model_error_hint,
    model_price,
)
from agentforge_cli.cli.options import (
    BindingOption,
    McpReach,
    StrictOption,
    mcp_reach_options,
)
from agentforge_cli.cli.usage import TEXT

SCRIPTED = "scripted:"


@mcp_reach_options
def chat_command(
    target: Annotated[str, typer.Argument(
        metavar="TARGET", click_type=TEXT, show_default=False,
        help="The tools (module[:Name], file.py, mcp:COMMAND, URL).")],
    model: Annotated[str, typer.Option(
        "--model", "-m", metavar="CONNECTION:MODEL", show_default=False,
        help="The model: openai:gpt-4o, openai-responses:..., anthropic:..., gemini:..., "
             "or scripted:FILE (a JSON script of replies).")],
    message: Annotated[str | None, typer.Option(
        "--message", metavar="TEXT", show_default=False,
        help="Send this one message and stop (else: a prompt, a message a line).")] = None,
    max_steps: Annotated[int, typer.Option(
        "--max-steps", min=1, max=1000,
        help="Requests to the model per message at most (exit 1 when reached).")] = 10,
    record: Annotated[Path | None, typer.Option(
        "--record", metavar="FILE", dir_okay=False, show_default=False,
        help="Write the conversation as an agentforge JSONL transcript.")] = None,
    system: SystemOption = None,
    base_url: BaseUrlOption = None,
    cache: CacheOption = None,
    offline: OfflineOption = False,
    timeout: Annotated[float, typer.Option(
        "--timeout", metavar="SECONDS", help="Seconds one request may take.")] = 60.0,
    retries: RetriesOption = 2,
    prices: PricesOption = None,
    strict: StrictOption = None,
    binding: BindingOption = "native",
    *, reach: McpReach,
) -> None:
    """Run the agent loop live: a model calling the tools, the trace as replay prints it."""
    with guarded():
        from agentforge_cli.models.errors import ModelError

        if not 0 < timeout < math.inf:
            raise UsageError(f"--timeout must be a positive number of seconds, got {timeout:g}")
        servers = reach.options()
        opening = _opening(model, prices)
        service = load_tools(target, strict, binding, servers)
        try:
            opened = _open(model, opening, service, base_url=base_url, cache=cache,
                           offline=offline, timeout=timeout, retries=retries)
            try:
                reached = _converse(opened, service, message, system, max_steps, record)
            finally:
                opened.close()
        except ModelError as exc:
            raise LoadError(str(exc), hint=model_error_hint(exc)) from None
        if opening is not None:  # what it cost, beside the conversation
            from agentforge_cli.cli.eval_costs import usage_line
            from agentforge_cli.cli.output import write

            write(usage_line(opened), stderr=True)
        raise typer.Exit(EXIT_FAILED if reached else EXIT_OK)


def _opening(spec: str, prices: Path | None) -> tuple[Any, str, Any] | None:
    """The connection, the model's name and its price; ``None`` for a scripted model.

    Raises:
        CommandInputError: No such connection, or ``--prices`` is not a price table.
    """
    if spec.startswith(SCRIPTED):
        return None
    from agentforge_cli.models.registry import parse_model

    connection, name = parse_model(spec)
    return connection, name, model_price(prices, connection.name, name)


def _open(spec: str, opening: tuple[Any, str, Any] | None, service: Any, *,
          base_url: str | None, cache: Path | None, offline: bool, timeout: float,
          retries: int) -> Any:
    """A scripted model (``scripted:FILE``, checked against the tools now) or a
    connection through its SDK and the cassette."""
    if opening is None:
        from agentforge_cli.models.scripted import ScriptedModel, read_script

        path = spec.removeprefix(SCRIPTED)
        return ScriptedModel(read_script(path), service, name=f"scripted:{path}")
    from agentforge_cli.models.model import default_cassette, open_model

    connection, name, price = opening
    return open_model(connection, name, offline=offline, base_url=base_url,
                      cassette=cache or default_cassette(connection, name),
                      timeout=timeout, max_retries=retries, price=price)


def _messages(message: str | None) -> Any:
    """The one ``--message``, or a message a line from the prompt until end of input."""
    if message is not None:
        yield message
        return
    while True:
        sys.stderr.write("you> ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stderr.write("\n")
            return
        if line.strip():
            yield line.rstrip("\n")


def _converse(model: Any, service: Any, message: str | None, system: str | None,
              max_steps: int, record: Path | None) -> bool:
    """Every turn, printed and recorded; whether one reached ``--max-steps``."""
    from agentforge_cli.cli.render import warning
    from agentforge_cli.cli.render.replay_trace import TracePrinter
    from agentforge_cli.models.chat import Chat

    printer = TracePrinter(badges=False)
    chat = Chat(model, service, system=system, max_steps=max_steps, on_event=printer.add)
    reached = False
    for text in _messages(message):
        try:
            end = chat.turn(text)
        finally:
            printer.finish()
            if record is not None:
                _write(record, chat)
        if not end.answered:
            reached = True
            warning(f"stopped after {end.steps} requests (--max-steps): the model was still "
                    "calling tools")
    return reached


def _write(path: Path, chat: Any) -> None:
    from agentforge_cli.core.observe.fileio import atomic_writer
    from agentforge_cli.models.chat import transcript_lines

    try:
        with atomic_writer(path) as stream:
            stream.writelines(transcript_lines(chat.items))
    except OSError as exc:
        raise LoadError(f"cannot write the transcript {path}: {exc.strerror or exc}") from None
