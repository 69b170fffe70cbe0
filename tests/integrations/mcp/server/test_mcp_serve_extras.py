"""``agentforge serve`` lists, reads and gets the resources, resource templates and prompts
a module declares (``@resource``, ``@prompt``), seen through the official Python SDK's
client over stdio; refusals have the protocol's error codes, in both eras."""

from __future__ import annotations

import base64
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_client_support import AGENTFORGE, client_env

from agentforge_cli import prompt, resource
from agentforge_cli.core.run.served_extras import DeclaredExtras, Refusal

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
MODULE = str(HERE / "extras_tools.py")


@asynccontextmanager
async def _session(*targets: str, modern: bool = False) -> AsyncIterator[Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = StdioServerParameters(command=str(AGENTFORGE), args=["serve", *targets],
                                   env=client_env(), cwd=str(ROOT))
    with anyio.fail_after(60), open(os.devnull, "w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await (session.discover() if modern else session.initialize())
            yield session


def _dump(items: list[Any]) -> list[dict[str, Any]]:
    return [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in items]


def test_the_sdk_client_lists_reads_and_gets_them() -> None:
    async def main() -> dict[str, Any]:
        async with _session(MODULE) as session:
            return {
                "resources": _dump((await session.list_resources()).resources),
                "templates": _dump(
                    (await session.list_resource_templates()).resource_templates),
                "prompts": _dump((await session.list_prompts()).prompts),
                "greeting": _dump((await session.read_resource("memo://greeting")).contents),
                "logo": _dump((await session.read_resource("memo://logo")).contents),
                "note": _dump((await session.read_resource("memo://notes/tea")).contents),
                "review": (await session.get_prompt("review", {"code": "x = 1"})
                           ).model_dump(mode="json", exclude_none=True,
                                        include={"description", "messages"}),
                "dialogue": _dump((await session.get_prompt("dialogue", {"topic": "tea"})
                                   ).messages),
                "summary": _dump((await session.get_prompt("summarize", {"text": "t"})
                                  ).messages),
                "tools": [tool.name for tool in (await session.list_tools()).tools],
            }

    got = anyio.run(main)
    assert got["resources"] == [
        {"uri": "memo://greeting", "name": "greeting", "description": "A greeting.",
         "mimeType": "text/plain"},
        {"uri": "memo://logo", "name": "logo", "mimeType": "image/png"},
        {"uri": "memo://broken", "name": "broken"}]
    assert got["templates"] == [{"uriTemplate": "memo://notes/{topic}", "name": "note",
                                 "description": "A note on a topic"}]
    assert got["prompts"] == [
        {"name": "review", "description": "Reviews code.",
         "arguments": [{"name": "code", "description": "The code to review", "required": True},
                       {"name": "language", "required": False}]},
        {"name": "dialogue", "title": "A dialogue",
         "arguments": [{"name": "topic", "required": True}]},
        {"name": "summarize", "description": "Summarizes a text.",
         "arguments": [{"name": "text", "required": True}]}]
    assert got["greeting"] == [{"uri": "memo://greeting", "mimeType": "text/plain",
                                "text": "hello from agentforge"}]
    assert base64.b64decode(got["logo"][0]["blob"]) == b"\x89PNG"
    assert got["note"] == [{"uri": "memo://notes/tea", "text": "a note on tea"}]
    assert got["review"] == {"description": "Reviews code.", "messages": [
        {"role": "user", "content": {"type": "text",
                                     "text": "Review this python code:\nx = 1"}}]}
    assert [m["role"] for m in got["dialogue"]] == ["user", "assistant"]
    assert got["dialogue"][0]["content"]["text"] == "Tell me about tea"
    assert got["summary"][0]["content"]["text"] == "Summarize: t"
    assert got["tools"] == ["echo"]


@pytest.mark.parametrize(("modern", "not_found"), [(False, -32002), (True, -32602)])
def test_refusals_have_the_protocols_codes(modern: bool, not_found: int) -> None:
    from mcp.shared.exceptions import MCPError

    async def main() -> list[tuple[int, str]]:
        errors = []
        async with _session(MODULE, modern=modern) as session:
            for ask in (lambda: session.read_resource("memo://nope"),
                        lambda: session.read_resource("memo://broken"),
                        lambda: session.get_prompt("reveiw", {}),
                        lambda: session.get_prompt("review", {}),
                        lambda: session.get_prompt("review", {"code": "x", "tone": "dry"})):
                try:
                    await ask()
                except MCPError as exc:
                    errors.append((exc.code, exc.message))
        return errors

    assert anyio.run(main) == [
        (not_found, "Unknown resource: memo://nope"),
        (-32603, "resource memo://broken failed: RuntimeError: the disk is gone"),
        (-32602, "Unknown prompt 'reveiw' (prompts: review, dialogue, summarize)"),
        (-32602, "prompt 'review': missing the argument code"),
        (-32602, "prompt 'review': no argument tone"),
    ]


def test_a_module_without_declarations_still_answers_empty_lists() -> None:
    async def main() -> tuple[int, int, int]:
        async with _session("sample_tools.crm:CrmTools") as session:
            return (len((await session.list_resources()).resources),
                    len((await session.list_resource_templates()).resource_templates),
                    len((await session.list_prompts()).prompts))

    assert anyio.run(main) == (0, 0, 0)


def test_declarations_are_checked_where_they_are_made() -> None:
    with pytest.raises(TypeError, match=r"the URI's parts \['topic'\] must be the "
                                        r"function's parameters \['subject'\]"):
        @resource("memo://notes/{topic}")
        def wrong(subject: str) -> str:
            return subject
    with pytest.raises(TypeError, match="needs a URI string"):
        resource("")


def test_two_prompts_of_one_name_are_refused() -> None:
    @prompt(name="same")
    def one() -> str:
        return "1"

    @prompt(name="same")
    def two() -> str:
        return "2"

    from agentforge_cli.errors import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match="two prompts are named 'same'"):
        DeclaredExtras.find([one, two])


def test_a_prompt_that_returns_something_else_is_refused() -> None:
    @prompt
    def numbers() -> int:
        return 3

    answer = DeclaredExtras.find([numbers]).get("numbers", {})
    assert isinstance(answer, Refusal) and answer.kind == "failed"
    assert "returned int" in answer.message


def test_a_module_of_prompts_alone_is_served(tmp_path: Path) -> None:
    module = tmp_path / "only_prompts.py"
    module.write_text("from agentforge_cli import prompt\n\n\n@prompt\n"
                      "def hi(name: str) -> str:\n    return f'hi {name}'\n", encoding="utf-8")

    async def main() -> tuple[list[str], str]:
        async with _session(str(module)) as session:
            names = [p.name for p in (await session.list_prompts()).prompts]
            got = await session.get_prompt("hi", {"name": "Ann"})
            return names, got.messages[0].content.text

    assert anyio.run(main) == (["hi"], "hi Ann")


def test_two_prompts_of_one_name_in_targets_exit_3(tmp_path: Path) -> None:
    import subprocess

    module = tmp_path / "twice.py"
    module.write_text("from agentforge_cli import prompt\n\n\n@prompt(name='hi')\n"
                      "def one() -> str:\n    return '1'\n\n\n@prompt(name='hi')\n"
                      "def two() -> str:\n    return '2'\n", encoding="utf-8")
    done = subprocess.run([str(AGENTFORGE), "serve", str(module)], capture_output=True,
                          text=True, cwd=ROOT, env=client_env(), timeout=60,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 3
    assert "cannot load the resources and prompts of" in done.stderr
    assert "two prompts are named 'hi'" in done.stderr


def test_served_over_streamable_http_too() -> None:
    import socket
    import subprocess
    import time

    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([str(AGENTFORGE), "serve", MODULE, "--transport", "http",
                                "--port", str(port)], cwd=ROOT, env=client_env(),
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)

    async def main() -> tuple[list[str], str]:
        from mcp import ClientSession

        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_), \
                ClientSession(read, write) as session:
            await session.initialize()
            names = [p.name for p in (await session.list_prompts()).prompts]
            return names, (await session.read_resource("memo://notes/tea")).contents[0].text

    try:
        for _ in range(400):
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None
            time.sleep(0.05)
        assert anyio.run(main) == (["review", "dialogue", "summarize"], "a note on tea")
    finally:
        process.terminate()
        process.wait(timeout=10)
