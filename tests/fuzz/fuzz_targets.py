"""Small tools, one for each outcome of ``agentforge tools fuzz`` (used by tests/fuzz)."""

from __future__ import annotations

import time

from pydantic import BaseModel, field_validator

from agentforge_cli import tool

CALLS: list[str] = []
"""Names of the tools called, in order (the destructive tool's test reads it)."""


@tool
def echo(n: int) -> int:
    """Always answers."""
    return n


@tool
def refuse(n: int) -> str:
    """Tells the model no, every time."""
    raise ValueError("no, never")


@tool
def first(items: list[int]) -> int:
    """Crashes on an empty list (IndexError)."""
    return items[0]


@tool
def lookup(name: str) -> str:
    """Crashes on a name it does not know: a subscript KeyError."""
    return {"a": "1"}[name]


@tool
def explain_missing(name: str) -> str:
    """Raises KeyError on purpose, as a message for the model."""
    raise KeyError(f"no entry named {name!r}")


@tool
def sleepy(n: int) -> str:
    """Takes longer than the test's --timeout."""
    time.sleep(1.0)
    return "late"


@tool
def opaque(n: int) -> object:
    """Returns something with no JSON form."""
    return object()


@tool
def flood(n: int) -> str:
    """Returns one character more than the default result limit."""
    from agentforge_cli.core.run.call_policy import DEFAULT_MAX_RESULT_CHARS

    return "x" * (DEFAULT_MAX_RESULT_CHARS + 1)


class Code(BaseModel):
    """A code whose schema says "any string" but whose validator wants a prefix."""

    code: str

    @field_validator("code")
    @classmethod
    def _prefixed(cls, value: str) -> str:
        if not value.startswith("A"):
            raise ValueError("a code starts with A")
        return value


@tool
def use_code(item: Code) -> str:
    """The binder refuses strings the schema allows: a schema-binding mismatch."""
    return item.code


@tool(annotations={"destructiveHint": True})
def wipe(n: int) -> str:
    """Declares side effects: skipped unless --include-destructive."""
    CALLS.append("wipe")
    return "wiped"
