"""The client capabilities agentforge declares to an MCP server (roots, elicitation,
sampling) and how it answers their requests, against real servers:

* the reference server-everything shows a capable client more tools; ``tools list`` sees
  what the official SDK's client, given the three callbacks, sees (stdio, and streamable
  HTTP where the listing is made without the SDK), and more than a client without them;
* a server of the test's own written with the official SDK (``asking_server.py``), whose
  tools ask for the roots, for input and for a model's answer, in both protocol eras (the
  2026-07-28 one asks through an ``input_required`` result): the roots are the working
  directory or each ``--root``, input is answered from ``--elicit FILE`` or declined,
  sampling is declined saying why; each request is told on standard error, never on
  standard output; progress and log messages are shown there too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from reference_servers import EVERYTHING, everything_over_http, node

from agentforge_cli.errors import TargetConfigError
from agentforge_cli.integrations.mcp.client.options import HEADERS_VAR, TIMEOUT_VAR
from agentforge_cli.integrations.mcp.client.server_requests import (
    CLIENT_CAPABILITIES,
    SAMPLING_DECLINED,
    elicit_answer,
    load_elicit_answers,
    roots_listing,
)

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).parent / "agentforge"
ASKING = f"mcp:{sys.executable} {HERE / 'asking_server.py'} stdio"
CAPABLE_ONLY = {"get-roots-list", "trigger-elicitation-request", "trigger-url-elicitation",
                "trigger-sampling-request"}


def agentforge(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", TIMEOUT_VAR,
                                  HEADERS_VAR)}
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=cwd,
                          env=environment, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def everything_http() -> Iterator[str]:
    with everything_over_http() as url:
        yield url


async def _sdk_tool_names(target: str, *, capable: bool) -> set[str]:
    """The tools the official SDK's client lists, with the three callbacks or without."""
    from contextlib import AsyncExitStack

    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client

    async def roots(context: Any) -> Any:
        return types.ListRootsResult(roots=[])

    async def elicit(context: Any, params: Any) -> Any:
        return types.ElicitResult(action="decline")

    async def sample(context: Any, params: Any) -> Any:
        return types.ErrorData(code=types.INVALID_REQUEST, message="no")

    callbacks: dict[str, Any] = ({"list_roots_callback": roots, "elicitation_callback": elicit,
                                  "sampling_callback": sample} if capable else {})
    async with AsyncExitStack() as stack:
        if target.startswith("http"):
            read, write = await stack.enter_async_context(streamable_http_client(target))
        else:
            server = StdioServerParameters(command=node(), args=[str(EVERYTHING), "stdio"])
            read, write = await stack.enter_async_context(stdio_client(server))
        session = await stack.enter_async_context(ClientSession(read, write, **callbacks))
        await session.initialize()
        return {tool.name for tool in (await session.list_tools()).tools}


def _listed_names(target: str) -> set[str]:
    done = agentforge("tools", "list", target, "--format", "json")
    assert done.returncode == 0, done.stderr
    return {tool["name"] for tool in json.loads(done.stdout)}


def test_the_capabilities_are_those_the_sdk_declares_with_its_three_callbacks() -> None:
    from mcp import ClientSession, types

    async def any_callback(*args: Any) -> Any:
        return None

    session = ClientSession(read_stream=object(), write_stream=object(),  # type: ignore[arg-type]  # never run
                            sampling_callback=any_callback, elicitation_callback=any_callback,
                            list_roots_callback=any_callback)
    built = session._build_capabilities("2025-11-25")
    assert built.model_dump(by_alias=True, mode="json", exclude_none=True) == CLIENT_CAPABILITIES
    assert types.ClientCapabilities.model_validate(CLIENT_CAPABILITIES).roots is not None


def test_server_everything_over_stdio_shows_agentforge_what_a_capable_sdk_client_sees() -> None:
    target = f"mcp:{node()} {EVERYTHING} stdio"
    capable = anyio.run(lambda: _sdk_tool_names(target, capable=True))
    bare = anyio.run(lambda: _sdk_tool_names(target, capable=False))
    assert capable - bare == CAPABLE_ONLY
    assert _listed_names(target) == capable


def test_server_everything_over_http_listed_plainly_shows_the_same(everything_http: str
                                                                   ) -> None:
    capable = anyio.run(lambda: _sdk_tool_names(everything_http, capable=True))
    assert capable >= CAPABLE_ONLY
    assert _listed_names(everything_http) == capable


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_the_roots_are_the_working_directory_or_each_root(era: str, tmp_path: Path) -> None:
    here = agentforge("tools", "call", "roots", "-t", ASKING, "--protocol-era", era,
                      cwd=tmp_path)
    assert (here.returncode, here.stdout) == (0, tmp_path.resolve().as_uri() + "\n"), here.stderr
    assert f"mcp: the server asked for the roots: {tmp_path.resolve().as_uri()}" in here.stderr
    (tmp_path / "a").mkdir()
    given = agentforge("tools", "call", "roots", "-t", ASKING, "--protocol-era", era,
                       "--root", str(tmp_path / "a"), "--root", str(ROOT))
    assert given.stdout.split() == [(tmp_path / "a").as_uri(), ROOT.as_uri()], given.stderr


def test_a_root_that_is_no_directory_is_a_usage_error(tmp_path: Path) -> None:
    done = agentforge("tools", "call", "roots", "-t", ASKING, "--root", str(tmp_path / "no"))
    assert done.returncode == 2
    assert "--root" in done.stderr and "no such directory" in done.stderr


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_input_is_answered_from_the_elicit_file_or_declined(era: str, tmp_path: Path) -> None:
    answers = tmp_path / "answers.yaml"
    answers.write_text("name: Ada\nsubscribe: true\nunasked: 1\n", encoding="utf-8")
    answered = agentforge("tools", "call", "greet", "-t", ASKING, "--protocol-era", era,
                          "--elicit", str(answers))
    assert (answered.returncode, answered.stdout) == (0, "hello Ada (subscribe: True)\n")
    assert ("mcp: the server asked for input (Who is this for?): answered name, subscribe "
            "from the answers file") in answered.stderr
    declined = agentforge("tools", "call", "greet", "-t", ASKING, "--protocol-era", era)
    assert declined.stdout == "no one to greet: decline\n"
    assert "declined (--elicit FILE answers it)" in declined.stderr
    (tmp_path / "partial.json").write_text('{"subscribe": true}', encoding="utf-8")
    missing = agentforge("tools", "call", "greet", "-t", ASKING, "--protocol-era", era,
                         "--elicit", str(tmp_path / "partial.json"))
    assert missing.stdout == "no one to greet: decline\n"
    assert "declined, the answers file has no name" in missing.stderr


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_sampling_is_declined_saying_there_is_no_model_connection(era: str) -> None:
    done = agentforge("tools", "call", "summarize", "-t", ASKING, "--protocol-era", era)
    assert done.returncode == 1
    assert done.stdout == f"Error executing tool summarize: {SAMPLING_DECLINED}\n"


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_progress_and_log_messages_go_to_stderr_as_lines(era: str) -> None:
    done = agentforge("tools", "call", "count", "-t", ASKING, "--protocol-era", era)
    assert (done.returncode, done.stdout) == (0, "3\n")
    lines = [line for line in done.stderr.splitlines() if line.startswith("mcp: ")]
    assert lines == ["mcp: progress 1/3: step 1", "mcp: progress 2/3: step 2",
                     "mcp: progress 3/3: step 3", "mcp: server log [info]: counted to three"]


def test_a_progress_bar_is_drawn_on_a_terminal_and_taken_away() -> None:
    """Under a pseudo-terminal the progress is a bar that leaves no line behind."""
    import pty

    leader, follower = pty.openpty()
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AGENTFORGE_TOOLS", TIMEOUT_VAR, HEADERS_VAR)}
    process = subprocess.Popen([str(AGENTFORGE), "tools", "call", "count", "-t", ASKING],
                               stdout=subprocess.PIPE, stderr=follower, text=True, cwd=ROOT,
                               env={**environment, "TERM": "xterm", "COLUMNS": "80"},
                               stdin=subprocess.DEVNULL)
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert process.communicate(timeout=60)[0] == "3\n"
    text = seen.decode("utf-8", "replace")
    assert "mcp: progress" not in text  # a bar, not lines
    assert "mcp: server log [info]: counted to three" in text


def test_elicit_answers_follow_the_requested_schema() -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"},
                                               "age": {"type": "integer"}},
              "required": ["name"]}
    params = {"message": "who?", "requestedSchema": schema}
    assert elicit_answer(params, {"name": "Ada", "other": 1})[0] == {
        "action": "accept", "content": {"name": "Ada"}}
    assert elicit_answer(params, {"age": 3})[0] == {"action": "decline"}
    assert elicit_answer(params, None)[0] == {"action": "decline"}
    url = {"mode": "url", "message": "log in", "url": "https://example.com/x",
           "elicitationId": "1"}
    result, said = elicit_answer(url, {"name": "Ada"})
    assert result == {"action": "decline"} and "https://example.com/x" in said


def test_roots_default_to_the_working_directory(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert roots_listing([]) == {"roots": [{"uri": tmp_path.resolve().as_uri(),
                                            "name": tmp_path.name}]}


@pytest.mark.parametrize("text", ["[1, 2]", "- a\n- b\n", "key: [unclosed\n", ""])
def test_an_elicit_file_without_an_object_of_answers_is_refused(text: str, tmp_path: Path
                                                                ) -> None:
    path = tmp_path / "answers.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TargetConfigError, match="--elicit"):
        load_elicit_answers(path)
    with pytest.raises(TargetConfigError, match="cannot read it"):
        load_elicit_answers(tmp_path / "missing.json")


def test_a_bad_elicit_file_exits_2_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    path.write_text("[1]", encoding="utf-8")
    done = agentforge("tools", "call", "greet", "-t", ASKING, "--elicit", str(path))
    assert done.returncode == 2, done.stderr
    assert "not an object of answers" in done.stderr
