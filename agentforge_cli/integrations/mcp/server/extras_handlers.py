"""``resources/list``, ``resources/templates/list``, ``resources/read``, ``prompts/list``
and ``prompts/get`` for ``agentforge serve``: what the targets declare with ``@resource``
and ``@prompt`` (:class:`~agentforge_cli.core.run.served_extras.DeclaredExtras`, kept on
the service), merged with what the MCP servers served again offer
(:class:`~agentforge_cli.integrations.mcp.server.upstreams.Upstreams`), or empty lists when
there is none.

Each list has one page, as ``tools/list`` has (a ``cursor`` is ``-32602``). A read or a
get runs on a worker thread, so a slow one holds up no other request. An unknown
resource is ``-32602`` in a 2026-07-28 session and ``-32002`` before (an upstream's
``-32002`` too); an unknown prompt, a missing or unknown argument ``-32602``; a function
that raises (or returns what has no protocol form) ``-32603`` with its message; an
upstream's error goes on with its code and message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentforge_cli.core.run.served_extras import DeclaredExtras, Refusal

if TYPE_CHECKING:
    from agentforge_cli.integrations.mcp.server.upstreams import Upstreams

__all__ = ["extras_handlers"]

_INTERNAL_ERROR = -32603
_INVALID_PARAMS = -32602
_RESOURCE_NOT_FOUND = -32002


def extras_handlers(extras: DeclaredExtras | None, not_found_code: Any,
                    upstreams: Upstreams | None = None) -> dict[str, Any]:
    """The low-level ``Server``'s ``on_...`` handlers for resources and prompts.

    ``not_found_code(protocol_version)`` is the error code of an unknown resource;
    ``upstreams``, the MCP servers served again (their lists, reads and gets forwarded).
    """
    import anyio
    from mcp import types
    from mcp.server import ServerRequestContext
    from mcp.shared.exceptions import MCPError

    declared = extras or DeclaredExtras()

    def one_page(params: types.PaginatedRequestParams | None, method: str) -> None:
        if params is not None and params.cursor is not None:
            raise MCPError(code=_INVALID_PARAMS, message=f"Invalid cursor {params.cursor!r}: "
                                                         f"{method} has one page")

    def answered(answer: dict[str, Any] | Refusal, ctx: ServerRequestContext) -> Any:
        if isinstance(answer, Refusal):
            code = {"not-found": not_found_code(ctx.protocol_version),
                    "invalid": _INVALID_PARAMS}.get(answer.kind, _INTERNAL_ERROR)
            raise MCPError(code=code, message=answer.message)
        return answer

    async def forwarded(ctx: ServerRequestContext, ask: Any, *args: Any) -> Any:
        """``ask(*args)`` on a worker thread; an upstream's error as its JSON-RPC error
        (its unknown resource as this session's)."""
        try:
            return await anyio.to_thread.run_sync(ask, *args)
        except MCPError as refused:
            if refused.code != _RESOURCE_NOT_FOUND:
                raise
            raise MCPError(code=not_found_code(ctx.protocol_version), message=refused.message,
                           data=refused.data) from None

    async def listed(ctx: ServerRequestContext, kind: str) -> list[dict[str, Any]]:
        if not upstreams:
            return {"resources": declared.list_resources,
                    "resourceTemplates": declared.list_templates,
                    "prompts": declared.list_prompts}[kind]()
        lists: dict[str, list[dict[str, Any]]] = await forwarded(ctx, upstreams.lists)
        return lists[kind]

    async def on_list_resources(ctx: ServerRequestContext,
                                params: types.PaginatedRequestParams | None) -> Any:
        one_page(params, "resources/list")
        return types.ListResourcesResult.model_validate(
            {"resources": await listed(ctx, "resources")})

    async def on_list_resource_templates(ctx: ServerRequestContext,
                                         params: types.PaginatedRequestParams | None) -> Any:
        one_page(params, "resources/templates/list")
        return types.ListResourceTemplatesResult.model_validate(
            {"resourceTemplates": await listed(ctx, "resourceTemplates")})

    async def on_read_resource(ctx: ServerRequestContext,
                               params: types.ReadResourceRequestParams) -> Any:
        uri = str(params.uri)
        answer: dict[str, Any] | Refusal = await anyio.to_thread.run_sync(declared.read, uri)
        if upstreams and isinstance(answer, Refusal) and answer.kind == "not-found":
            answer = await forwarded(ctx, upstreams.read, uri) or answer
        return types.ReadResourceResult.model_validate(answered(answer, ctx))

    async def on_list_prompts(ctx: ServerRequestContext,
                              params: types.PaginatedRequestParams | None) -> Any:
        one_page(params, "prompts/list")
        return types.ListPromptsResult.model_validate({"prompts": await listed(ctx, "prompts")})

    async def on_get_prompt(ctx: ServerRequestContext,
                            params: types.GetPromptRequestParams) -> Any:
        answer: dict[str, Any] | Refusal | None = None
        if upstreams and params.name not in declared.prompts:
            answer = await forwarded(ctx, upstreams.get, params.name, params.arguments)
        if answer is None:
            answer = await anyio.to_thread.run_sync(declared.get, params.name,
                                                    params.arguments)
        return types.GetPromptResult.model_validate(answered(answer, ctx))

    return {"on_list_resources": on_list_resources,
            "on_list_resource_templates": on_list_resource_templates,
            "on_read_resource": on_read_resource, "on_list_prompts": on_list_prompts,
            "on_get_prompt": on_get_prompt}
