"""MCP tasks (protocol 2025-11-25) through ``serve 'mcp:...'``: a ``tools/call`` made a task
(its ``task`` parameter) to a tool of a server served again that runs tools as tasks
(capability ``tasks.requests.tools.call``) is sent to that server as it came, and its
``CreateTaskResult`` goes back; ``tasks/get``, ``tasks/result``, ``tasks/cancel`` and
``tasks/list`` go to the server that made the task, and the answers come back unchanged.

Tasks are a feature of the handshake revisions: a 2026-07-28 session has no ``task``
parameter and no ``tasks/*`` method (the revision moved tasks to an extension of another
shape), so there the parameter is ignored, as a field its revision does not define (the
call runs as a plain one, and a tool that must run as a task answers with its server's
refusal), and ``tasks/*`` are ``-32601`` saying so.

Each task belongs to the client session that made it: ``tasks/list`` shows a session
its own tasks only, and another session's task id is unknown to it (``-32602``), so that
clients of one HTTP server never see each other's work.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentforge_cli.errors import AgentForgeError

if TYPE_CHECKING:
    from agentforge_cli.integrations.mcp.client.surface import ServerSurface

__all__ = ["TASK_METHODS", "TaskForwarding"]

TASK_METHODS = ("tasks/get", "tasks/result", "tasks/cancel", "tasks/list")
_MAX_TASKS = 10_000
"""Tasks remembered at most (the oldest are forgotten first)."""
_MAX_PAGES = 100
_METHOD_NOT_FOUND = -32601
_INVALID_PARAMS = -32602
_INTERNAL_ERROR = -32603
_MODERN = "2026-07-28"


@dataclass(frozen=True, slots=True)
class _Task:
    surface: ServerSurface
    owner: object
    """The client session that made it (its ``initialize`` parameters: one object per
    session, kept alive here so that it is never mistaken for another)."""


def _runs_tasks(surface: ServerSurface) -> bool:
    tasks = surface.capabilities().get("tasks") or {}
    return bool(((tasks.get("requests") or {}).get("tools") or {}).get("call") is not None)


class TaskForwarding:
    """The tasks of the servers served again, for one ``serve``."""

    def __init__(self, tools: Mapping[str, ServerSurface]) -> None:
        """``tools``: each tool of a server that runs tools as tasks, and its server."""
        self.tools = dict(tools)
        self.surfaces = list({id(s): s for s in self.tools.values()}.values())
        self._tasks: OrderedDict[str, _Task] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def of(cls, service: Any, surfaces: Iterable[ServerSurface]) -> TaskForwarding:
        """The tools of ``service`` whose server (among ``surfaces``) runs tools as
        tasks."""
        from agentforge_cli.core.run.wrapping import innermost
        from agentforge_cli.integrations.mcp.client.executor import McpToolExecutor

        able = {id(s.connection): s for s in surfaces if _runs_tasks(s)}
        tools = {}
        for name in service.names:
            base = innermost(service.executor(name))
            if isinstance(base, McpToolExecutor) and id(base.connection) in able:
                tools[name] = able[id(base.connection)]
        return cls(tools)

    def __bool__(self) -> bool:
        return bool(self.tools)

    def capability(self) -> dict[str, Any]:
        """The ``tasks`` capability to declare: what the servers declare, together."""
        declared: dict[str, Any] = {"requests": {"tools": {"call": {}}}}
        for surface in self.surfaces:
            theirs = surface.capabilities().get("tasks") or {}
            for key in ("list", "cancel"):
                if key in theirs:
                    declared[key] = {}
        return declared

    # -- the middleware and the handlers --------------------------------------------------

    async def middleware(self, ctx: Any, call_next: Any) -> Any:
        """A ``tools/call`` made a task, to a tool whose server runs tasks, in a session
        of the handshake: sent to that server as it came; anything else goes on."""
        params = ctx.params
        if (ctx.method != "tools/call" or not isinstance(params, Mapping)
                or "task" not in params or self._modern(ctx)
                or params.get("name") not in self.tools):
            return await call_next(ctx)
        import anyio

        surface = self.tools[params["name"]]
        answer = await anyio.to_thread.run_sync(self._send, surface, "tools/call",
                                                dict(params))
        task_id = (answer.get("task") or {}).get("taskId")
        if isinstance(task_id, str):
            self._remember(task_id, _Task(surface, self._owner(ctx)))
        return answer

    def handlers(self) -> dict[str, Any]:
        """``tasks/get``, ``tasks/result``, ``tasks/cancel`` and ``tasks/list``, each with
        its parameters' model, for ``Server.add_request_handler``."""
        from mcp import types

        return {"tasks/get": (types.GetTaskRequestParams, self._on_task),
                "tasks/result": (types.GetTaskPayloadRequestParams, self._on_task),
                "tasks/cancel": (types.CancelTaskRequestParams, self._on_task),
                "tasks/list": (types.PaginatedRequestParams, self._on_list)}

    async def _on_task(self, ctx: Any, params: Any) -> dict[str, Any]:
        import anyio

        self._refuse_modern(ctx)
        with self._lock:
            task = self._tasks.get(params.task_id)
        if task is None or task.owner is not self._owner(ctx):
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=_INVALID_PARAMS, message=f"Unknown task {params.task_id!r}")
        sent = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        return await anyio.to_thread.run_sync(self._send, task.surface, ctx.method, sent)

    async def _on_list(self, ctx: Any, params: Any) -> dict[str, Any]:
        import anyio

        self._refuse_modern(ctx)
        if params.cursor is not None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=_INVALID_PARAMS, message=f"Invalid cursor {params.cursor!r}: "
                                                         "tasks/list has one page")
        owner = self._owner(ctx)
        with self._lock:
            mine = {task_id for task_id, task in self._tasks.items() if task.owner is owner}
        listed = await anyio.to_thread.run_sync(self._list_all)
        return {"tasks": [task for task in listed if task.get("taskId") in mine]}

    # -- what the handlers share ----------------------------------------------------------

    @staticmethod
    def _modern(ctx: Any) -> bool:
        return ctx.protocol_version is not None and ctx.protocol_version >= _MODERN

    def _refuse_modern(self, ctx: Any) -> None:
        if self._modern(ctx):
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=_METHOD_NOT_FOUND, message=(
                f"{ctx.method} is not a method of protocol {ctx.protocol_version}: tasks "
                "are served again in sessions of the initialize handshake (2025-11-25)"))

    @staticmethod
    def _owner(ctx: Any) -> object:
        return ctx.session.client_params

    def _remember(self, task_id: str, task: _Task) -> None:
        with self._lock:
            self._tasks[task_id] = task
            while len(self._tasks) > _MAX_TASKS:
                self._tasks.popitem(last=False)

    def _list_all(self) -> list[dict[str, Any]]:
        tasks: list[dict[str, Any]] = []
        for surface in self.surfaces:
            if "list" not in (surface.capabilities().get("tasks") or {}):
                continue
            cursor = None
            for _ in range(_MAX_PAGES):
                page = self._send(surface, "tasks/list", {"cursor": cursor} if cursor else {})
                tasks.extend(page.get("tasks") or [])
                cursor = page.get("nextCursor")
                if not cursor:
                    break
        return tasks

    @staticmethod
    def _send(surface: ServerSurface, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """``method`` to ``surface``'s server; its refusal goes on as it is, its failure
        (it died, did not answer in time) as an internal error."""
        from mcp.shared.exceptions import MCPError

        try:
            return surface.send(method, params)
        except AgentForgeError as exc:
            raise MCPError(code=_INTERNAL_ERROR, message=str(exc)) from None
