"""An MCP server (the SDK's ``MCPServer``) whose results are more than text: an image,
audio, embedded resources (text and binary), a resource link, mixed content, and a
structured result with its ``outputSchema``.

    python tests/integrations/rich_server.py

``PICTURE`` is 4035 bytes, so its size shows as ``4 035 bytes``.
"""

import sys
from typing import TypedDict

from mcp import types
from mcp.server.mcpserver import Audio, Image, MCPServer

# run with the argument "changed": a picture of the same size, other bytes
PICTURE = (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 15
           + (b"\x01" if sys.argv[1:] == ["changed"] else b"\x00") * 187)
SOUND = b"RIFF" + b"\x01" * 96
server = MCPServer("rich")


class Forecast(TypedDict):
    city: str
    celsius: int


@server.tool(description="A PNG picture")
def picture() -> Image:
    return Image(data=PICTURE, format="png")


@server.tool(description="A short sound")
def sound() -> Audio:
    return Audio(data=SOUND, format="wav")


@server.tool(description="A text file, embedded")
def document() -> types.EmbeddedResource:
    return types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
        uri="file:///x.txt", mime_type="text/plain", text="hello from x\nsecond line"))


@server.tool(description="A link to a file")
def link() -> types.ResourceLink:
    return types.ResourceLink(type="resource_link", uri="file:///x", name="x")


@server.tool(description="A caption, a picture, a binary file and a link",
             annotations=types.ToolAnnotations(read_only_hint=True), title="Everything")
def mixed() -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text="caption"),
            Image(data=PICTURE, format="png").to_image_content(),
            types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
                uri="file:///x.bin", mime_type="application/octet-stream", blob="AAEC")),
            types.ResourceLink(type="resource_link", uri="file:///x", name="x")]


@server.tool(description="Today's forecast for a city")
def forecast(city: str) -> Forecast:
    return {"city": city, "celsius": 21}


if __name__ == "__main__":
    server.run()
