"""What a transport is: a name and the opening of a connection's streams, given what the
connection knows of its server (an :class:`Endpoint`, a protocol for the type checker
only: nothing is built for it at import)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

__all__ = ["Streams", "Transport"]

Streams = tuple[Any, Any]
"""The SDK's read and write streams of a session's messages."""

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Protocol, TextIO

    class Endpoint(Protocol):
        """What a transport reads of the connection that opens it."""

        @property
        def spec(self) -> str:
            """The target: ``mcp:COMMAND ...`` or the URL."""

        @property
        def argv(self) -> list[str]:
            """The command of an ``mcp:`` server, split."""

        @property
        def env(self) -> Mapping[str, str]:
            """Variables added to the environment of an ``mcp:`` server."""

        @property
        def cwd(self) -> Path:
            """The working directory of an ``mcp:`` server."""

        @property
        def headers(self) -> Mapping[str, str]:
            """The HTTP headers of every request to a URL."""

        @property
        def timeout(self) -> float:
            """Seconds the server may take to start and to answer ``initialize``."""

        @property
        def call_timeout(self) -> float | None:
            """Seconds a ``tools/call`` may take (``None``: no limit)."""

        @property
        def errlog(self) -> TextIO:
            """Where an ``mcp:`` server's standard error goes."""

        def http_auth(self) -> Any:
            """The ``httpx2.Auth`` of a new HTTP session (OAuth), or ``None``."""

        def keep_process(self, process: Any) -> None:
            """Receives the process of an ``mcp:`` server once started."""

        async def note_status(self, response: Any) -> None:
            """Receives each HTTP response (an ``httpx`` response hook)."""


class Transport:
    """One transport of the MCP protocol (a plain class: it is made at import)."""

    __slots__ = ("name", "open_streams")

    def __init__(self, name: str,
                 open_streams: Callable[[Endpoint], AbstractAsyncContextManager[Streams]]
                 ) -> None:
        self.name = name
        """As the protocol names it: ``stdio``, ``streamable HTTP``, ``HTTP+SSE``."""
        self.open_streams = open_streams
        """Opens the streams of a session to the endpoint's server (in the connection's
        event loop), and closes them and ends the server on exit."""

    def __repr__(self) -> str:
        return f"<MCP transport {self.name}>"
