"""Scaling a service, on a FastMCP server whose arguments are constrained with pydantic's
``Field`` (see docs/frameworks.md)."""

from __future__ import annotations

from typing import Annotated

from fastmcp import FastMCP
from pydantic import Field

server = FastMCP("ops")


@server.tool
def scale_service(name: Annotated[str, Field(max_length=12, pattern=r"^[a-z-]+$")],
                  replicas: Annotated[int, Field(ge=1, le=50)]) -> str:
    """Scale a service.

    Args:
        name: The service.
        replicas: How many copies to run.
    """
    return f"{name} scaled to {replicas}"
