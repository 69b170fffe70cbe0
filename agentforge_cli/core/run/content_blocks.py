"""An MCP result's content blocks as text, one block after another: what ``tools call``
prints for an MCP target's result, and what ``replay`` compares, for the result of an MCP
target and for a result recorded in an MCP session alike.

* text: as is;
* image, audio: ``[image/png, 4 035 bytes, sha256 1a2b3c4d]`` (the decoded size and the
  start of the data's SHA-256, so that two pictures of one size differ);
* an embedded resource: ``[resource file:///x.txt, text/plain]``, then its text when it
  is a text resource (a binary one gets its size and digest instead);
* a resource link: ``[link file:///x, name]``.

Blocks are plain JSON (``type``, ``mimeType``, ...), as the server sent them; a block of
an unknown type shows as ``[TYPE]``. Standard library only.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["blocks_text"]


def blocks_text(blocks: Iterable[Mapping[str, Any]]) -> str:
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
    """``4 035 bytes, sha256 1a2b3c4d``: the decoded size of base64 ``data`` and the start
    of its digest (``None`` if it is not base64)."""
    if not isinstance(data, str):
        return None
    try:
        decoded = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    digest = hashlib.sha256(decoded).hexdigest()[:8]
    size = f"{len(decoded):,}".replace(",", " ")
    return f"{size} bytes, sha256 {digest}"
