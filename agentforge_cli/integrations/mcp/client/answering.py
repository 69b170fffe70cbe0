"""The SDK's side of :mod:`~agentforge_cli.integrations.mcp.client.server_requests`: the
callbacks a ``ClientSession`` is given (:func:`session_callbacks`), so that it declares
roots, elicitation and sampling and answers them, and hears the server's log messages;
during a replayed call, they answer with what the recording holds instead
(:mod:`~agentforge_cli.replay.recorded_requests`); and
:func:`call_answering`, a call (``tools/call``, ``prompts/get``, ``resources/read``) that
answers a 2026-07-28 ``input_required`` result through the same callbacks and retries.

The SDK is imported when a function is called, not with this module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from agentforge_cli.integrations.mcp.client.server_requests import (
    SAMPLING_DECLINED,
    ClientAnswers,
    elicit_answer,
    roots_listing,
)
from agentforge_cli.replay.recorded_requests import RequestScript

__all__ = ["CALL_PROGRESS", "LOG_LEVEL", "ProgressListener", "call_answering", "log_line",
           "progress_callback", "replayed", "session_callbacks"]

ProgressListener = Callable[[float, float | None, str | None], None]
"""Hears a call's progress: progress, total (``None``: unknown) and message."""
CALL_PROGRESS: ContextVar[ProgressListener | None] = ContextVar(
    "agentforge_call_progress", default=None)
"""Who hears the progress of the calls made in this context instead of
:attr:`ClientAnswers.on_progress`: ``serve`` sets it, for a call of a re-served server's
tool, to pass that server's progress on to its own client. Read where the call is sent
(:meth:`~agentforge_cli.integrations.mcp.client.connection.McpConnection.call`), in the
caller's thread."""

LOG_LEVEL = "info"
"""The lowest level of the log messages a 2026-07-28 server is asked for (``debug`` is
left out: it is for the server's developers)."""


def log_line(level: str, logger: str | None, data: Any) -> str:
    """A server's log message as one line: ``server log [info] name: text``."""
    import json

    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    named = f" {logger}:" if logger else ":"
    return f"server log [{level}]{named} {text}"


def session_callbacks(answers: ClientAnswers,
                      replaying: Callable[[], RequestScript | None] = lambda: None
                      ) -> dict[str, Any]:
    """The keyword arguments of ``ClientSession`` that declare and answer roots,
    elicitation and sampling, and pass the server's log messages on; ``replaying`` gives
    the script of the replayed call in progress, if any, which answers instead."""
    from mcp import types

    async def list_roots(context: Any) -> Any:
        script = replaying()
        if script is not None:
            return replayed(answers, script, "roots/list", None, types.ListRootsResult)
        listing = roots_listing(answers.roots)
        answers.notice("the server asked for the roots: "
                       + ", ".join(root["uri"] for root in listing["roots"]))
        return types.ListRootsResult.model_validate(listing)

    async def elicit(context: Any, params: Any) -> Any:
        request = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        script = replaying()
        if script is not None:
            return replayed(answers, script, "elicitation/create", request,
                            types.ElicitResult)
        result, said = elicit_answer(request, answers.elicit)
        answers.notice(said)
        return types.ElicitResult.model_validate(result)

    async def sample(context: Any, params: Any) -> Any:
        script = replaying()
        if script is not None:
            request = params.model_dump(mode="json", by_alias=True, exclude_none=True)
            return replayed(answers, script, "sampling/createMessage", request,
                            types.CreateMessageResult)
        answers.notice(f"the server asked to sample a model: declined ({SAMPLING_DECLINED})")
        return types.ErrorData(code=types.INVALID_REQUEST, message=SAMPLING_DECLINED)

    async def log(params: Any) -> None:
        answers.notice(log_line(params.level, params.logger, params.data))

    return {"list_roots_callback": list_roots, "elicitation_callback": elicit,
            "sampling_callback": sample, "logging_callback": log, "log_level": LOG_LEVEL}


def replayed(answers: ClientAnswers, script: RequestScript, method: str,
             params: dict[str, Any] | None, result_type: Any) -> Any:
    """The answer of a replayed call's server request: the recorded one (a result of
    ``result_type``, or the recorded error), else a refusal (an elicitation declined, an
    error otherwise); told to :attr:`ClientAnswers.on_notice`."""
    from mcp import types

    recorded = script.answer(method, params)
    answer: Any = None
    if recorded is not None and recorded.result is not None:
        try:
            answer = result_type.model_validate(recorded.result)
        except ValueError:  # pydantic's ValidationError: a recorded answer that does not read
            answer = None
    elif recorded is not None and isinstance(recorded.error, dict):
        error = recorded.error
        code = error.get("code")
        answer = types.ErrorData(code=code if isinstance(code, int) else types.INTERNAL_ERROR,
                                 message=str(error.get("message", "")), data=error.get("data"))
    if answer is not None and recorded is not None:
        answers.notice(f"the server asked {method}: answered as recorded ({recorded.where})")
        return answer
    answers.notice(f"the server asked {method}: the recording holds no answer to it, "
                   "declined")
    if method == "elicitation/create":
        return types.ElicitResult(action="decline")
    return types.ErrorData(code=types.INVALID_REQUEST,
                           message=f"{method} declined: the replayed recording holds no "
                                   "answer to it")


def progress_callback(answers: ClientAnswers, forward: ProgressListener | None = None) -> Any:
    """The SDK's progress callback passing each report to ``forward`` (a
    :data:`CALL_PROGRESS`), else to :attr:`ClientAnswers.on_progress` (``None`` when
    nothing listens: no progress is asked for)."""
    listener = forward or answers.on_progress
    if listener is None:
        return None

    async def report(progress: float, total: float | None, message: str | None) -> None:
        listener(progress, total, message)

    return report


async def call_answering(session: Any, send: Callable[..., Awaitable[Any]]) -> Any:
    """``await send(input_responses=..., request_state=..., allow_input_required=True)``
    (one of the session's ``call_tool``, ``get_prompt``, ``read_resource`` with its
    arguments bound), answering each ``input_required`` result with the session's
    callbacks and sending again, as the SDK's own ``Client`` does.

    Raises:
        mcp.shared.exceptions.MCPError: A callback declined with an error (sampling), or
            the server answered with one.
    """
    from mcp import types
    from mcp.client._input_required import run_input_required_driver
    from mcp.client.session import ClientRequestContext

    async def again(responses: Any, state: str | None) -> Any:
        return await send(input_responses=responses, request_state=state,
                          allow_input_required=True)

    first = await again(None, None)
    if not isinstance(first, types.InputRequiredResult):
        return first

    async def dispatch(key: str, request: Any) -> Any:
        meta = request.params.meta if request.params else None
        context = ClientRequestContext(session=session, request_id=key, meta=meta)
        return await session.dispatch_input_request(context, request)

    return await run_input_required_driver(first, dispatch=dispatch, retry=again)
