"""An MCP server written with the official SDK (``MCPServer``) whose tools ask the client
things during a call, through the SDK's resolvers (``Resolve``): the client's roots
(``roots/list``), input from the user (``elicitation/create``), a model's answer
(``sampling/createMessage``); one that reports progress and logs; and, for calls under
way at once, ``later_greet`` (asks who to greet half a second into the call) and
``wait`` (answers after a second and a half). The SDK sends the
requests mid-call to a client of the initialize handshake and returns them as an
``input_required`` result to a 2026-07-28 client; either way it refuses a client that did
not declare the capability a tool needs.

``python asking_server.py stdio``, or ``python asking_server.py http PORT`` (streamable
HTTP on 127.0.0.1:PORT at ``/mcp``).
"""

import sys
from typing import Annotated

import anyio
from mcp.server.mcpserver import (
    Context,
    Elicit,
    ElicitationResult,
    ListRoots,
    MCPServer,
    Resolve,
    Sample,
)
from mcp.types import ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel

server = MCPServer("asking")


class Contact(BaseModel):
    name: str
    subscribe: bool = False


def ask_contact() -> Elicit[Contact]:
    return Elicit("Who is this for?", Contact)


def ask_roots() -> ListRoots:
    return ListRoots()


def ask_model() -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text="hi"))],
                  max_tokens=10)


@server.tool(description="Lists the client's roots")
def roots(listed: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    return "\n".join(str(root.uri) for root in listed.roots)


@server.tool(description="Greets the person the user names")
def greet(contact: Annotated[ElicitationResult[Contact], Resolve(ask_contact)]) -> str:
    if contact.action != "accept":
        return f"no one to greet: {contact.action}"
    return f"hello {contact.data.name} (subscribe: {contact.data.subscribe})"


@server.tool(description="Asks the client's model")
def summarize(answer: Annotated[object, Resolve(ask_model)]) -> str:
    return str(answer)


@server.tool(description="Counts to three, reporting progress and logging")
async def count(ctx: Context) -> str:
    for step in (1, 2, 3):
        await ctx.report_progress(step, 3, f"step {step}")
    await ctx.info("counted to three")
    return "3"


async def ask_contact_later() -> Elicit[Contact]:
    await anyio.sleep(0.5)
    return Elicit("Who is this for?", Contact)


@server.tool(description="Greets the person the user names, asking half a second in")
def later_greet(contact: Annotated[ElicitationResult[Contact], Resolve(ask_contact_later)]
                ) -> str:
    if contact.action != "accept":
        return f"no one to greet: {contact.action}"
    return f"hello {contact.data.name} (later)"


@server.tool(description="Answers after a second and a half")
async def wait() -> str:
    await anyio.sleep(1.5)
    return "waited"


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run()
    else:
        import uvicorn

        app = server.streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
