"""An MCP server over stdio (the SDK's low-level ``Server``) whose one tool carries every
field a ``tools/list`` entry may hold beyond the schema: ``title``, ``icons``, ``_meta``,
``annotations`` and ``execution`` (``taskSupport: optional``). A second tool, ``count``,
breaks its own ``outputSchema``: its ``n`` is declared an integer and sent as text.

    python tests/integrations/decorated_server.py
"""

import anyio
from mcp import types
from mcp.server import Server
from mcp.server.stdio import stdio_server

TOOL = {
    "name": "paint", "title": "Paint a wall", "description": "Paints a wall.",
    "inputSchema": {"type": "object", "properties": {"colour": {"type": "string"}},
                    "required": ["colour"]},
    "icons": [{"src": "https://example.com/brush.png", "mimeType": "image/png",
               "sizes": ["48x48"]}],
    "_meta": {"com.example/owner": "decorators", "com.example/cost": 3},
    "annotations": {"readOnlyHint": False, "idempotentHint": True},
    "execution": {"taskSupport": "optional"},
}

COUNT = {"name": "count", "description": "Counts, wrongly.",
         "inputSchema": {"type": "object", "properties": {}},
         "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}},
                          "required": ["n"]}}


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool.model_validate(TOOL),
                                        types.Tool.model_validate(COUNT)])


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name == "count":
        many = "many " * 200
        return types.CallToolResult(content=[types.TextContent(type="text", text=many)],
                                    structured_content={"n": many})
    colour = (params.arguments or {}).get("colour")
    return types.CallToolResult(content=[types.TextContent(type="text",
                                                           text=f"painted {colour}")])


server = Server("decorated", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
