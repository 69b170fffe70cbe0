"""The HTTP headers sent to ``http(s)://`` MCP servers: those of ``AGENTFORGE_MCP_HEADERS``
(a JSON object of strings), then the command's own, which win name by name. The values
may be secrets: no message quotes them."""

from __future__ import annotations

import os
from collections.abc import Mapping

from agentforge_cli.errors import TargetConfigError
from agentforge_cli.integrations.mcp.client.options import HEADERS_VAR

__all__ = ["env_headers", "merged_headers"]


def merged_headers(given: Mapping[str, str] | None = None) -> dict[str, str]:
    """The headers of ``AGENTFORGE_MCP_HEADERS``, then ``given`` (which wins per name,
    compared case-insensitively)."""
    merged = env_headers()
    for name, value in (given or {}).items():
        for known in [key for key in merged if key.lower() == name.lower()]:
            del merged[known]
        merged[name] = value
    return merged


def env_headers() -> dict[str, str]:
    """The HTTP headers of ``AGENTFORGE_MCP_HEADERS`` (a JSON object of strings)."""
    import json

    text = os.environ.get(HEADERS_VAR, "").strip()
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        # the value may hold a secret: never quote it
        raise TargetConfigError(f"{HEADERS_VAR} must be a JSON object of strings",
                                hint=f"""e.g. {HEADERS_VAR}='{{"Authorization": "Bearer ..."}}'""")
    return dict(value)
