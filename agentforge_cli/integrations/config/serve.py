"""``[tool.agentforge.serve]``: how ``agentforge serve`` introduces itself to MCP clients.

::

    [tool.agentforge.serve]
    name = "weather-tools"                    # serverInfo.name (default "agentforge")
    title = "Weather tools"                   # shown by clients instead of the name
    version = "1.4.0"                         # default: agentforge's version
    description = "Forecasts and alerts."
    website = "https://example.com/weather"   # serverInfo.websiteUrl
    icons = [{src = "https://example.com/w.png", mimeType = "image/png", sizes = ["48x48"]}]
    instructions = "Call forecast before alerts."

Every key is optional; an unknown key, or a value of the wrong type, is a configuration
error naming the key and the file (exit 2). Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentforge_cli.errors import TargetConfigError
from agentforge_cli.integrations.config.keys import refuse_unknown_keys

__all__ = ["SERVE_KEYS", "ServerIdentity", "server_identity"]

_TEXT_KEYS = ("name", "title", "version", "description", "website", "instructions")
SERVE_KEYS = (*_TEXT_KEYS, "icons")
"""The keys ``[tool.agentforge.serve]`` may hold."""
_ICON_KEYS = ("src", "mimeType", "sizes", "theme")
_TABLE = "[tool.agentforge.serve]"


@dataclass(frozen=True, kw_only=True, slots=True)
class ServerIdentity:
    """What ``serve`` says of itself in ``initialize`` and ``server/discover``
    (``serverInfo``) and the instructions it gives; ``None``: not set."""

    name: str | None = None
    title: str | None = None
    version: str | None = None
    description: str | None = None
    website: str | None = None
    icons: tuple[dict[str, Any], ...] = ()
    instructions: str | None = None


def server_identity(path: Path | None, table: dict[str, Any]) -> ServerIdentity:
    """The ``serve`` table of ``[tool.agentforge]`` (read from ``path``), checked.

    Raises:
        TargetConfigError: ``serve`` is not a table, holds an unknown key, a text that is
            not a non-empty string, or icons that are not a list of tables with a ``src``.
    """
    serve = table.get("serve")
    if serve is None or path is None:
        return ServerIdentity()
    if not isinstance(serve, dict):
        raise TargetConfigError(f"{path}: [tool.agentforge] serve must be a table ({_TABLE}), "
                                f"got {serve!r}")
    refuse_unknown_keys(path, serve, SERVE_KEYS, _TABLE)
    for key in _TEXT_KEYS:
        value = serve.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise TargetConfigError(f"{path}: {_TABLE} {key} must be a non-empty string, "
                                    f"got {value!r}")
    website = serve.get("website")
    if website is not None and not website.startswith(("https://", "http://")):
        raise TargetConfigError(f"{path}: {_TABLE} website must be an http(s) URL, "
                                f"got {website!r}")
    return ServerIdentity(**{key: serve.get(key) for key in _TEXT_KEYS},
                          icons=_icons(path, serve.get("icons", [])))


def _icons(path: Path, icons: Any) -> tuple[dict[str, Any], ...]:
    example = 'e.g. icons = [{src = "https://example.com/icon.png", mimeType = "image/png"}]'
    if not isinstance(icons, list):
        raise TargetConfigError(f"{path}: {_TABLE} icons must be a list of tables, got "
                                f"{icons!r}", hint=example)
    for icon in icons:
        if not isinstance(icon, dict) or not isinstance(icon.get("src"), str) or not icon["src"]:
            raise TargetConfigError(f"{path}: {_TABLE} icons: each icon needs a src, got "
                                    f"{icon!r}", hint=example)
        refuse_unknown_keys(path, icon, _ICON_KEYS, f"{_TABLE} icons")
    return tuple(dict(icon) for icon in icons)
