"""How ``agentforge serve`` checks its options and chooses its transport before anything
starts (``integrations/mcp/server/serving.py``)."""

from __future__ import annotations

import math

import pytest

from agentforge_cli.errors import CommandInputError
from agentforge_cli.integrations.mcp.server.serving import (
    HttpAddress,
    choose_transport,
    open_recorder,
)

STDIO = {"timeout": None, "host": None, "port": None, "allow_origin": None, "allow_host": None}


def test_stdio_needs_no_address():
    assert choose_transport("stdio", **STDIO) is None


def test_http_listens_on_this_machine_by_default():
    assert choose_transport("http", **STDIO) == HttpAddress(host="127.0.0.1", port=8000)


def test_http_takes_the_address_and_what_else_it_accepts():
    chosen = choose_transport("http", timeout=2.0, host="0.0.0.0", port=0,
                              allow_origin=["http://localhost:6274"],
                              allow_host=["tools.example.com"])
    assert chosen == HttpAddress(host="0.0.0.0", port=0,
                                 allow_origins=("http://localhost:6274",),
                                 allow_hosts=("tools.example.com",))


@pytest.mark.parametrize(("transport", "given", "message"), [
    ("stdio", {"timeout": math.inf}, "--timeout must be a positive number of seconds, got inf"),
    ("stdio", {"timeout": 0.0}, "--timeout must be a positive number of seconds, got 0"),
    ("stdio", {"port": 8000}, "--host, --port, --allow-origin and --allow-host need "
                              "--transport http"),
    ("http", {"allow_host": ["a/b"]}, "--allow-host takes a host name, got 'a/b'"),
    ("http", {"port": 70000}, "--port must be between 0 and 65535, got 70000"),
])
def test_options_are_refused_naming_the_option(transport, given, message):
    with pytest.raises(CommandInputError) as refused:
        choose_transport(transport, **{**STDIO, **given})
    assert refused.value.message == message


def test_record_opens_the_file_now_or_is_refused(tmp_path):
    assert open_recorder(None) is None
    recorder = open_recorder(tmp_path / "calls.jsonl")
    assert recorder is not None and recorder.target == tmp_path / "calls.jsonl"
    recorder.close()
    with pytest.raises(CommandInputError, match="cannot be opened for appending"):
        open_recorder(tmp_path / "missing" / "calls.jsonl")
