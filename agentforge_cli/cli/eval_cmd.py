"""``agentforge eval``: ask a model again at every recorded decision, with today's tools.

For each model turn of the transcripts that made tool calls, the conversation before it
is sent with today's tools (``--repeat`` times) and the model's answer compared with the
recorded calls. Exit codes: ``0`` done (and agreement at least ``--min-agreement``),
``1`` agreement below ``--min-agreement``, ``2`` usage, ``3`` a target, transcript or
model cannot be loaded or asked (no SDK, no key, a refused request, ``--offline`` and a
response not in the cassette), or the ``--compare-to`` tools cannot be loaded.
"""

from __future__ import annotations

import dataclasses
import math
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


def _fraction(value: str | None) -> float | None:
    """``0.9``, ``90%`` -> 0.9."""
    if value is None:
        return None
    text = value.strip()
    try:
        number = float(text.removesuffix("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        number = math.nan
    if not 0 <= number <= 1:
        raise UsageError(f"--min-agreement must be a fraction from 0 to 1 or a percentage, "
                         f"got {value!r}")
    return number


@mcp_reach_options
def eval_command(
    target: Annotated[str, typer.Argument(
        metavar="TARGET", click_type=TEXT, show_default=False,
        help="The tools as they are today (module[:Name], file.py, mcp:COMMAND, URL).")],
    model: Annotated[str, typer.Option(
        "--model", "-m", metavar="CONNECTION:MODEL", show_default=False,
        help="The model to ask: openai:gpt-4o, openai-responses:..., anthropic:..., "
             "gemini:...")],
    transcripts: Annotated[list[str] | None, typer.Argument(
        metavar="[TRANSCRIPT]...", click_type=TEXT, show_default=False,
        help="Recorded conversations, in any format replay reads.")] = None,
    repeat: Annotated[int, typer.Option(
        "--repeat", "-k", min=1, max=100, help="Ask each decision this many times.")] = 1,
    base_url: BaseUrlOption = None,
    cache: CacheOption = None,
    offline: OfflineOption = False,
    concurrency: Annotated[int, typer.Option(
        "--concurrency", min=1, max=64, help="Requests in flight at most.")] = 4,
    timeout: Annotated[float, typer.Option(
        "--timeout", metavar="SECONDS", help="Seconds one request may take.")] = 60.0,
    retries: RetriesOption = 2,
    system: SystemOption = None,
    scrub: Annotated[list[str] | None, typer.Option(
        "--scrub", metavar="SCRUBBER", click_type=TEXT, show_default=False,
        help="A volatile part of every tool's arguments, scrubbed from the recorded and "
             "the new ones before they are compared: a JSON path ($.since), re:PATTERN, "
             "or timestamps, uuids, hex-ids, durations; repeatable. Adds to "
             "\\[tool.agentforge.replay] and @tool(volatile=...), as in replay.")] = None,
    transcript_format: Annotated[str, typer.Option(
        "--format", "-f", metavar="FORMAT", help="The transcripts' format (auto detects).")
    ] = "auto",
    min_agreement: Annotated[str | None, typer.Option(
        "--min-agreement", metavar="FRACTION", show_default=False,
        help="Fail (exit 1) when the share of agreeing replies is lower (0.9 or 90%).")
    ] = None,
    json_output: Annotated[bool, typer.Option(
        "--json", help="Print the report as JSON instead of the trace.")] = False,
    junit: Annotated[Path | None, typer.Option(
        "--junit", metavar="FILE", dir_okay=False, show_default=False,
        help="Also write a JUnit XML report (a testcase per decision).")] = None,
    scenarios: Annotated[Path | None, typer.Option(
        "--scenarios", metavar="FILE", dir_okay=False, show_default=False,
        help="Run the prompts of this scenario file (YAML or JSON) live instead of "
             "transcripts; --min-agreement is then the share of runs passed.")] = None,
    compare_to: Annotated[str | None, typer.Option(
        "--compare-to", metavar="REF", show_default=False,
        help="Also ask with the tools of REF (a snapshot file, or "
             "GITREF:path/to/module.py[:Name]) and report the decisions that moved.")
    ] = None,
    prices: PricesOption = None,
    strict: StrictOption = None,
    binding: BindingOption = "native",
    *, reach: McpReach,
) -> None:
    """Ask a model again at every recorded decision and compare its calls."""
    with guarded():
        from agentforge_cli.cli import eval_outputs
        from agentforge_cli.models.errors import ModelError
        from agentforge_cli.models.eval.run import EvalOptions
        from agentforge_cli.models.model import default_cassette, open_model
        from agentforge_cli.models.registry import parse_model

        threshold = _fraction(min_agreement)
        if not 0 < timeout < math.inf:
            raise UsageError(f"--timeout must be a positive number of seconds, got {timeout:g}")
        cases = _cases(scenarios, transcripts or [], compare_to, system)
        scrubbers = _scrubbers(scrub)
        connection, name = parse_model(model)
        price = model_price(prices, connection.name, name)
        servers = reach.options()
        service = load_tools(target, strict, binding, servers)
        reference = _reference(compare_to, strict, binding, servers)
        try:
            opened = open_model(connection, name, offline=offline, base_url=base_url,
                                cassette=cache or default_cassette(connection, name),
                                timeout=timeout, max_retries=retries, price=price)
            try:
                if cases is not None:
                    from agentforge_cli.models.scenarios.run import run_scenarios

                    results = run_scenarios(cases, service, opened, repeat=repeat,
                                            concurrency=concurrency)
                else:
                    scores, compared = _evaluated(transcripts or [], service, reference,
                                                  opened, EvalOptions(
                        repeat=repeat, concurrency=concurrency, system=system,
                        format=transcript_format, scrub=scrubbers))
            finally:
                opened.close()
        except ModelError as exc:
            raise LoadError(str(exc), hint=model_error_hint(exc)) from None
        if cases is not None:
            from agentforge_cli.cli import eval_scenario_outputs as outputs

            raise typer.Exit(outputs.report(outputs.ScenarioReport(
                opened, results, repeat, threshold, str(scenarios)), json_output, junit))
        report = eval_outputs.Report(opened, scores, repeat, threshold, compare_to,
                                     *(compared or (None, None)))
        if junit is not None:
            eval_outputs.write_junit(junit, report)
        if json_output:
            eval_outputs.print_json(report)
        else:
            eval_outputs.print_trace(report)
        raise typer.Exit(EXIT_FAILED if report.below_threshold() else EXIT_OK)


def _scrubbers(given: list[str] | None) -> Any:
    """``--scrub``'s scrubbers added to the project's (``[tool.agentforge.replay]``).

    Raises:
        CommandInputError: A ``--scrub`` that is not a scrubber.
    """
    from agentforge_cli.integrations.targets.loading import find_settings

    project = find_settings().scrub
    if not given:
        return project
    from agentforge_cli.replay.scrubbing import with_given

    return with_given(project, given)


def _cases(path: Path | None, transcripts: list[str], compare_to: str | None,
           system: str | None) -> list[Any] | None:
    """The scenarios of ``--scenarios`` (``--system`` for those giving none), or
    ``None`` when transcripts are asked; exactly one of the two is given."""
    if path is None:
        if not transcripts:
            raise UsageError("name transcripts to ask again, or a --scenarios file")
        return None
    if transcripts or compare_to is not None:
        raise UsageError("--scenarios runs its own prompts: give no transcripts and no "
                         "--compare-to with it")
    from agentforge_cli.models.scenarios.cases import ScenarioFileError, load_scenarios

    try:
        cases = load_scenarios(path)
    except ScenarioFileError as exc:
        raise UsageError(str(exc)) from None
    return [case if case.system is not None else dataclasses.replace(case, system=system)
            for case in cases]


def _evaluated(transcripts: list[str], service: Any, reference: Any, model: Any,
               options: Any) -> tuple[Any, Any]:
    """The decisions asked with the target's tools, and with the reference's (with what
    asking them took: ``(scores, use)``, or ``None``)."""
    from agentforge_cli.models.eval.run import evaluate

    scores = evaluate(transcripts, service, model, options)
    if reference is None:
        return scores, None
    before = model.use()
    compared = evaluate(transcripts, reference, model, options)
    return scores, (compared, model.use() - before)


def _reference(reference: str | None, strict: bool | None, binding: str,
               servers: Any) -> object:
    """The tools of ``--compare-to``, or ``None``."""
    if reference is None:
        return None
    from agentforge_cli.integrations.targets.reference import load_reference

    return load_reference(reference, lambda target: load_tools(target, strict, binding, servers))
