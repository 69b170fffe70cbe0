"""``structuredContent`` for tools returning a scalar, a string or a list: in sessions of
revision 2026-07-28, which allow any JSON value there, the value itself; in sessions of
2025-11-25 and older, which require an object, none (as before). Read through the
official SDK's client in both eras, over stdio and streamable HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_client_support import AGENTFORGE, TIMEOUT, client_env, serving_http

TOOLS = '''
from agentforge_cli import tool

@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b

@tool
def names(n: int) -> list[str]:
    """The first n names."""
    return ["ann", "bob", "cy"][:n]

@tool
def greet(name: str) -> str:
    """Greet someone."""
    return f"hello {name}"

@tool
def ratio(a: float, b: float) -> float | None:
    """a / b, or nothing for b = 0."""
    return a / b if b else None

@tool
def fib() -> tuple[int, int, int]:
    """Three numbers."""
    return (1, 1, 2)

@tool
def counts() -> dict[str, int]:
    """An object, structured in every era."""
    return {"a": 1}

@tool
def liar() -> int:
    """Declares an int, returns text."""
    return "many"  # type: ignore[return-value]

@tool
def nothing() -> None:
    """Returns nothing."""

def untyped():
    """No return annotation."""
    return 5
'''
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("add", {"a": 2, "b": 3}), ("names", {"n": 2}), ("greet", {"name": "x"}),
    ("ratio", {"a": 1, "b": 4}), ("ratio", {"a": 1, "b": 0}), ("fib", {}), ("counts", {}),
    ("liar", {}), ("nothing", {}),
]
MODERN = [5, ["ann", "bob"], "hello x", 0.25, None, [1, 1, 2], {"a": 1}, None, None]
LEGACY = [None] * 6 + [{"a": 1}, None, None]


async def _structured(client: Client) -> tuple[str, list[Any], list[str]]:
    results = [await client.call_tool(name, arguments) for name, arguments in CALLS]
    assert not any(result.is_error for result in results)
    return (client.protocol_version, [result.structured_content for result in results],
            [result.content[0].text for result in results])  # type: ignore[union-attr]


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("mode", "version", "expected"), [
    ("auto", "2026-07-28", MODERN), ("legacy", "2025-11-25", LEGACY)])
def test_over_stdio(tmp_path: Path, mode: str, version: str, expected: list[Any]) -> None:
    params = StdioServerParameters(command=str(AGENTFORGE), args=["serve", "tools.py"],
                                   cwd=str(_folder(tmp_path)), env=client_env())

    async def main() -> tuple[str, list[Any], list[str]]:
        with anyio.fail_after(TIMEOUT):
            async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
                return await _structured(client)

    agreed, structured, texts = anyio.run(main)
    assert (agreed, structured) == (version, expected)
    # the text blocks are the same in both eras
    assert texts == ["5", '["ann","bob"]', "hello x", "0.25", "Success", "[1,1,2]",
                     '{"a":1}', "many", "Success"]


@pytest.mark.parametrize(("mode", "version", "expected"), [
    ("auto", "2026-07-28", MODERN), ("legacy", "2025-11-25", LEGACY)])
def test_over_http(tmp_path: Path, mode: str, version: str, expected: list[Any]) -> None:
    with serving_http(_folder(tmp_path) / "tools.py") as url:
        async def main() -> tuple[str, list[Any], list[str]]:
            with anyio.fail_after(TIMEOUT):
                async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
                    return await _structured(client)

        agreed, structured, _ = anyio.run(main)
    assert (agreed, structured) == (version, expected)


def test_the_tools_list_is_the_same_in_both_eras(tmp_path: Path) -> None:
    """No ``outputSchema`` is declared for a scalar or a list: older sessions list the
    same tools, and a client of theirs would want an object under it."""
    params = StdioServerParameters(command=str(AGENTFORGE), args=["serve", "tools.py"],
                                   cwd=str(_folder(tmp_path)), env=client_env())

    async def main(mode: str) -> dict[str, Any]:
        with anyio.fail_after(TIMEOUT):
            async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
                return {tool.name: tool.output_schema
                        for tool in (await client.list_tools()).tools}

    assert anyio.run(main, "auto") == anyio.run(main, "legacy")
    assert anyio.run(main, "auto")["add"] is None


@pytest.mark.parametrize(("mode", "version", "expected"), [
    ("auto", "2026-07-28", MODERN), ("legacy", "2025-11-25", LEGACY)])
def test_served_again_each_session_gets_what_its_revision_allows(
        tmp_path: Path, mode: str, version: str, expected: list[Any]) -> None:
    """``serve 'mcp:agentforge serve tools.py'``: the upstream session is of 2026-07-28
    and sends scalars as ``structuredContent``; a client of 2025-11-25 gets the content
    alone (its SDK refused the whole result before), one of 2026-07-28 the value."""
    upstream = f"mcp:{AGENTFORGE} serve tools.py"
    params = StdioServerParameters(command=str(AGENTFORGE), args=["serve", upstream],
                                   cwd=str(_folder(tmp_path)), env=client_env())

    async def main() -> tuple[str, list[Any], list[str]]:
        with anyio.fail_after(TIMEOUT * 2):
            async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
                return await _structured(client)

    agreed, structured, texts = anyio.run(main)
    assert (agreed, structured) == (version, expected)
    assert texts[:3] == ["5", '["ann","bob"]', "hello x"]
