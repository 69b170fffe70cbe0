"""A deployment tool whose parameter was renamed from ``replicas`` to ``count``
(docs/coercion.md): what each binding mode does with an old or incomplete call."""

from typing import Annotated, Literal

from agentforge_cli import P, tool


@tool
def scale_service(name: str, count: Annotated[int, P("replicas wanted", minimum=1, maximum=50)],
                  env: Literal["prod", "staging"] = "staging") -> str:
    """Scale a service to a number of replicas."""
    return f"{name}@{env}: {count} replicas"
