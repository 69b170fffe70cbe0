"""The URLs of MCP servers (``http://...``, ``https://...``): telling one from a command,
and refusing one that cannot be parsed before anything tries to reach it."""

from __future__ import annotations

from agentforge_cli.core.observe.masking import mask_target
from agentforge_cli.errors import TargetConfigError

__all__ = ["URL_PREFIXES", "check_url", "is_url"]

URL_PREFIXES = ("http://", "https://")


def is_url(spec: str) -> bool:
    """Whether the target ``spec`` is the URL of a server (not an ``mcp:`` command)."""
    return spec.startswith(URL_PREFIXES)


def check_url(spec: str) -> None:
    """Refuse a URL that cannot be parsed (brackets, a port that is not a number or out
    of range) before anything tries to reach it."""
    from urllib.parse import urlsplit

    try:
        urlsplit(spec).port  # noqa: B018 (parsed for its errors)
    except ValueError as exc:
        raise TargetConfigError(f"target {mask_target(spec)!r} is not a valid URL: {exc}",
                                hint="write it as http(s)://HOST[:PORT]/PATH, an IPv6 "
                                     "host in brackets") from None
