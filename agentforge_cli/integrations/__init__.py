"""What connects the tools to the outside: target loading, the MCP server, the pytest plugin,
and the tools of other libraries (:mod:`~agentforge_cli.integrations.frameworks`).

``to_langchain``, ``to_pydantic_ai``, ``to_openai_agents`` and ``to_fastmcp`` hand agentforge
tools to those libraries; each imports its library only when called.
"""

from __future__ import annotations

from typing import Any

__all__ = ["to_fastmcp", "to_langchain", "to_openai_agents", "to_pydantic_ai"]

_EXPORTS = {"to_langchain": "langchain", "to_pydantic_ai": "pydantic_ai",
            "to_openai_agents": "openai_agents", "to_fastmcp": "fastmcp"}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.frameworks.{module}"), name)
