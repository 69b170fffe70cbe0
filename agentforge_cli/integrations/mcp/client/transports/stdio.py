"""The stdio transport: an ``mcp:COMMAND [ARGS...]`` target's command is split as a shell
would split it (``shlex``; no shell runs it) and started by the SDK's stdio client in the
endpoint's directory, with the caller's environment (minus ``AGENTFORGE_TOOLS``, so an
``agentforge serve`` without targets cannot start itself again) plus the endpoint's
variables; its standard error goes to the endpoint's ``errlog``, its process to
``keep_process`` and its output is read whole line by line
(:mod:`~agentforge_cli.integrations.mcp.client.transports.stdio_framing`)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.observe.masking import mask_target
from agentforge_cli.errors import TargetConfigError
from agentforge_cli.integrations.mcp.client.transports.transport import Streams, Transport

if TYPE_CHECKING:
    from agentforge_cli.integrations.mcp.client.transports.transport import Endpoint

__all__ = ["PREFIX", "STDIO", "command_argv"]

PREFIX = "mcp:"


def command_argv(spec: str) -> list[str]:
    """The command of the target ``mcp:COMMAND [ARGS...]``, split as a shell would.

    Raises:
        TargetConfigError: The command cannot be split, or there is none.
    """
    import shlex

    try:
        argv = shlex.split(spec[len(PREFIX):])
    except ValueError as exc:
        raise TargetConfigError(f"cannot read the command of target {mask_target(spec)!r}: "
                                f"{exc}") from exc
    if not argv:
        raise TargetConfigError(f"target {mask_target(spec)!r} names no command",
                                hint="write the server's command after mcp:, e.g. "
                                     "'mcp:python -m mcp_server_time'")
    return argv


class _QuietParseErrors:
    """Drops the SDK's traceback for a stdout line that is not JSON-RPC: the error
    agentforge raises quotes the line."""

    @staticmethod
    def filter(record: Any) -> bool:
        return not str(record.msg).startswith("Failed to parse JSONRPC message")


@asynccontextmanager
async def _open_streams(endpoint: Endpoint) -> AsyncIterator[Streams]:
    import logging

    from mcp.client.stdio import StdioServerParameters, stdio_client

    from agentforge_cli.integrations.mcp.client.transports.stdio_process import capturing

    env = {key: value for key, value in os.environ.items() if key != "AGENTFORGE_TOOLS"}
    env.update(endpoint.env)
    logging.getLogger("mcp.client.stdio").addFilter(_QuietParseErrors)
    params = StdioServerParameters(command=endpoint.argv[0], args=endpoint.argv[1:],
                                   env=env, cwd=str(endpoint.cwd))
    with capturing(endpoint.keep_process):
        async with stdio_client(params, errlog=endpoint.errlog) as streams:
            yield streams


STDIO = Transport("stdio", _open_streams)
