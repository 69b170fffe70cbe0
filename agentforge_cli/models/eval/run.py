"""Asking the model at every decision: ``repeat`` times each, at most ``concurrency``
requests at a time, in a thread pool (the SDKs' clients are thread-safe). Results keep
the transcripts' order whatever order the answers come in. A failed request, or an
interrupt (Ctrl-C), cancels the requests not yet sent; those under way finish (and are
kept in the cassette)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentforge_cli.models.eval.decisions import Decision, find_decisions
from agentforge_cli.models.eval.judge import Judge, Judgement
from agentforge_cli.models.eval.scores import DecisionScore, TranscriptScore
from agentforge_cli.models.model import Model
from agentforge_cli.models.prompt import Prompt

__all__ = ["EvalOptions", "evaluate"]


@dataclass(frozen=True, kw_only=True, slots=True)
class EvalOptions:
    repeat: int = 1
    concurrency: int = 4
    system: str | None = None
    """A system prompt for every request, in place of the one each transcript recorded."""
    format: str = "auto"
    scrub: Any = None
    """The scrubbers given outside the tools' code (``--scrub``, the project's): a
    :class:`~agentforge_cli.replay.scrubbing.ScrubSettings`, or ``None``."""


def read_decisions(path: str, transcript_format: str) -> tuple[str, list[Decision]]:
    """The format read and the decisions of one transcript."""
    from agentforge_cli.replay.transcripts import open_transcript

    transcript = open_transcript(Path(path), transcript_format)
    decisions = list(find_decisions(transcript.events()))
    return transcript.format, decisions


def evaluate(paths: Sequence[str], service: Any, model: Model, options: EvalOptions,
             progress: Callable[[int, int], None] | None = None) -> list[TranscriptScore]:
    """Every decision of every transcript, asked and judged.

    Raises:
        TranscriptError: A transcript cannot be read (before any request is sent).
        TargetConfigError: A tool declares a scrubber that is not one.
        ModelError: A request failed (the requests not yet sent are cancelled).
    """
    read = [(path, *read_decisions(path, options.format)) for path in paths]
    tools = model.export(service.specifications)
    from agentforge_cli.replay.scrub_plan import scrubbing_for

    judge = Judge(service, scrubbing_for(service, options.scrub))
    jobs = [(t, d, r) for t, (_, _, decisions) in enumerate(read)
            for d, _ in enumerate(decisions) for r in range(options.repeat)]
    answers: dict[tuple[int, int, int], Judgement] = {}

    def ask(decision: Decision) -> Judgement:
        system = options.system if options.system is not None else decision.system
        reply = model.ask(Prompt(system, decision.context, tools))
        return judge.judge(decision.recorded, reply)

    with ThreadPoolExecutor(max_workers=max(1, options.concurrency)) as pool:
        futures: dict[Future[Judgement], tuple[int, int, int]] = {
            pool.submit(ask, read[t][2][d]): (t, d, r) for t, d, r in jobs}
        try:  # as_completed waits on all of them at once (``wait`` again per answer: n²)
            for future in as_completed(futures):
                answers[futures[future]] = future.result()  # a failed request raises
                if progress is not None:
                    progress(len(answers), len(jobs))
        except BaseException:  # a failure, or Ctrl-C: only the requests under way finish
            for other in futures:
                other.cancel()
            raise
    return [TranscriptScore(path, transcript_format, [
        DecisionScore(decision, tuple(answers[t, d, r] for r in range(options.repeat)))
        for d, decision in enumerate(decisions)])
        for t, (path, transcript_format, decisions) in enumerate(read)]
