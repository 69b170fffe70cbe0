"""Where each loaded tool comes from, as :class:`~agentforge_cli.schema.tool_origins.ToolOrigin`
data for lint and the exports: agentforge's ``@tool``, an MCP server, or another library
(read by an adapter of ``frameworks``). Each origin's advice is what changes the tool
*there*: an MCP server's schema is the server's (agentforge cannot change it), and each
library describes a parameter its own way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from agentforge_cli.core.define.capabilities import ForeignToolExecutor
from agentforge_cli.core.run.wrapping import innermost
from agentforge_cli.schema.tool_origins import AGENTFORGE, ToolOrigin

__all__ = ["LIBRARY_ORIGINS", "MCP_SERVER", "tool_origin", "tool_origins", "tool_source"]

MCP_SERVER = ToolOrigin(
    name="MCP server",
    describe_tool="agentforge cannot change an MCP server's tools: give the tool a "
                  "description in the server's code",
    describe_parameter="describe it in the server's own input schema, e.g. zod's "
                       ".describe(...) or a description in its inputSchema: agentforge "
                       "cannot change an MCP server's schema",
    describe_field="describe it in the server's own input schema, e.g. zod's "
                   ".describe(...): agentforge cannot change an MCP server's schema",
    rename="rename it in the server",
    unbound="agentforge does not bind an MCP server's calls: only the server's own "
            "validation can still check it")
"""A tool of an MCP server (``mcp:COMMAND``, ``http(s)://``), whatever its language."""

def _library(name: str, *, tool: str, parameter: str, rename: str,
             field: str = "describe the model's field, Field(description=...)",
             checker: str = "") -> ToolOrigin:
    """The origin of a library's tools: its calls are checked by the library itself."""
    checker = checker or f"{name}'s own validation"
    return ToolOrigin(name=name, describe_tool=tool, describe_parameter=parameter,
                      describe_field=field, rename=rename,
                      unbound=f"only {checker} can still check it")


LIBRARY_ORIGINS: dict[str, ToolOrigin] = {origin.name: origin for origin in (
    _library("LangChain",
             tool="give the function a docstring, or description= to @tool or StructuredTool",
             parameter="LangChain reads a docstring's Args: only with "
                       "@tool(parse_docstring=True); or give its args_schema "
                       "Field(description=...)",
             rename='rename it with @tool("name") or StructuredTool(name=...)'),
    _library("pydantic-ai",
             tool="give the function a docstring, or Tool(..., description=...)",
             parameter="add an Args: entry to the function's docstring (pydantic-ai reads "
                       "it), or Annotated[..., Field(description=...)]",
             rename="rename it with Tool(..., name=...)"),
    _library("OpenAI Agents SDK",
             tool="give the function a docstring, or "
                  "@function_tool(description_override=...)",
             parameter="add an Args: entry to the function's docstring (@function_tool "
                       "reads it), or Annotated[..., Field(description=...)]",
             rename="rename it with @function_tool(name_override=...)",
             checker="the Agents SDK's own validation"),
    _library("FastMCP",
             tool="give the function a docstring, or @mcp.tool(description=...)",
             parameter="annotate it Annotated[..., Field(description=...)]",
             rename="rename it with @mcp.tool(name=...)"),
    _library("smolagents",
             tool="give the function a docstring (@tool), or the Tool class a description",
             parameter="add an Args: entry to the function's docstring (@tool), or a "
                       "description to the Tool class's inputs",
             rename="rename the function, or set name on the Tool class",
             field="describe it in the Tool class's inputs",
             checker="smolagents itself"),
)}
"""The origin of a tool of each library an adapter reads, by the adapter's library name."""


def tool_origin(executor: Any) -> ToolOrigin:
    """Where the tool ``executor`` runs comes from (a logging wrapper is looked through)."""
    from agentforge_cli.integrations.mcp.client.executor import McpToolExecutor

    executor = innermost(executor)
    if isinstance(executor, McpToolExecutor):
        return MCP_SERVER
    if isinstance(executor, ForeignToolExecutor):
        return LIBRARY_ORIGINS.get(executor.foreign.library, AGENTFORGE)
    return AGENTFORGE


def tool_origins(service: Any, specs: Iterable[Any] | None = None) -> dict[str, ToolOrigin]:
    """Tool name -> origin, for the tools of ``service`` (or those of ``specs`` among
    them) that are not agentforge's own."""
    origins = {}
    for spec in service.specifications if specs is None else specs:
        origin = tool_origin(service.executor(spec.name))
        if origin is not AGENTFORGE:
            origins[spec.name] = origin
    return origins


def tool_source(executor: Any) -> tuple[str, int] | None:
    """The file and first line (its decorator's) of the Python function behind the tool
    ``executor``, or ``None`` (an MCP server's tool, an object without code)."""
    import inspect

    definition = getattr(innermost(executor), "definition", None)
    for candidate in (getattr(definition, "original", None), getattr(definition, "call", None)):
        if candidate is None:
            continue
        with contextlib.suppress(ValueError):  # a wrapper chain that loops
            candidate = inspect.unwrap(candidate)
        code = getattr(getattr(candidate, "__func__", candidate), "__code__", None)
        if code is not None:
            return code.co_filename, code.co_firstlineno
    return None
