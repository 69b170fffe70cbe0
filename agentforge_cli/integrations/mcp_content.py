"""An MCP result's content blocks as text, one block after another (what ``tools call``
prints and what a model of an MCP target receives).

* text: as is;
* image, audio: ``[image/png, 4 035 bytes]`` (the decoded size);
* an embedded resource: ``[resource file:///x.txt, text/plain]``, then its text when it
  is a text resource (a binary one gets its size instead);
* a resource link: ``[link file:///x, name]``.

Blocks are plain JSON (``type``, ``mimeType``, ...), as the server sent them; a block of
an unknown type shows as ``[TYPE]``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["content_text"]


def content_text(blocks: Iterable[Mapping[str, Any]]) -> str:
    """The blocks rendered one per line (an embedded text resource: its header line, then
    its text)."""
    return "\n".join(_block(block) for block in blocks)


def _block(block: Mapping[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("image", "audio"):
        return _label(block.get("mimeType") or kind, _size(block.get("data")))
    if kind == "resource":
        resource = block.get("resource") or {}
        head = ["resource " + str(resource.get("uri", "")), resource.get("mimeType")]
        if "text" in resource:
            return _label(*head) + "\n" + str(resource["text"])
        return _label(*head, _size(resource.get("blob")))
    if kind == "resource_link":
        return _label("link " + str(block.get("uri", "")), block.get("name"))
    return _label(str(kind))


def _label(*parts: str | None) -> str:
    return "[" + ", ".join(part for part in parts if part) + "]"


def _size(data: object) -> str | None:
    """``4 035 bytes``: the decoded size of base64 ``data`` (``None`` if it is not)."""
    if not isinstance(data, str):
        return None
    try:
        size = len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None
    return f"{size:,} bytes".replace(",", " ")
