"""An MCP server written with the official SDK (``MCPServer``) whose lists change when a
tool is called: ``add_prompt NAME`` adds a prompt and sends
``notifications/prompts/list_changed``, ``add_resource NAME`` adds a resource and sends
``notifications/resources/list_changed``, ``add_tool NAME`` adds a tool ``NAME(text)``
answering ``NAME: TEXT`` and ``remove_tool NAME`` removes one, each sending
``notifications/tools/list_changed``. ``python changing_server.py stdio``."""

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.resources import TextResource

server = MCPServer("changing")


@server.prompt(description="The first prompt")
def first() -> str:
    return "first"


@server.tool(description="Adds a prompt")
async def add_prompt(name: str, ctx: Context) -> str:
    server.add_prompt(Prompt.from_function(lambda: f"I am {name}", name=name))
    await ctx.session.send_prompt_list_changed()
    return f"added {name}"


@server.tool(description="Adds a resource")
async def add_resource(name: str, ctx: Context) -> str:
    server.add_resource(TextResource(uri=f"memo://{name}", name=name, text=name))
    await ctx.session.send_resource_list_changed()
    return f"added {name}"


@server.tool(description="Adds a tool NAME(text) that answers 'NAME: TEXT'")
async def add_tool(name: str, ctx: Context) -> str:
    def echo(text: str) -> str:
        return f"{name}: {text}"

    server.add_tool(echo, name=name, description=f"Answers {name}: TEXT")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


@server.tool(description="Removes a tool")
async def remove_tool(name: str, ctx: Context) -> str:
    server.remove_tool(name)
    await ctx.session.send_tool_list_changed()
    return f"removed {name}"


if __name__ == "__main__":
    server.run()
