"""What a remote client or an upstream URL says reaches the operator's terminal with its
control characters escaped: ``serve --log`` and ``record --url``'s lines on stderr carry
no escape sequence, title or bidirectional override. (A result's newlines stay: the log
is a transcript replay reads, where a result may run over several lines.)"""

from __future__ import annotations

import re
import socket
from pathlib import Path

from mcp_client_support import HANDSHAKE, HERE, RawServer, call
from test_mcp_record_http import LOGIN, post, record

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
HOSTILE = "\x1b]0;pwned\x07\x9b2J\u202eevil\n2026-01-01 INFO forged: line"


def test_serve_log_escapes_a_clients_arguments_and_the_results_they_make() -> None:
    server = RawServer(str(HERE / "mcp_sample_tools.py"), "--log")
    server.send(*HANDSHAKE)
    server.reply(0)
    server.send(call(1, "explode", {"reason": HOSTILE}))  # the error result repeats it
    reply = server.reply(1)
    assert reply["result"]["isError"] is True
    stderr, code = server.close()
    assert code == 0, stderr
    assert "boom" in stderr and "\\x9b2J" in stderr and "\\x1b]0;pwned\\x07" in stderr
    assert RAW.search(stderr) is None, repr(stderr)


def test_record_url_escapes_the_url_it_names(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]  # nothing listens once it is closed
    proxy = record(f"http://127.0.0.1:{closed}/m\x1b]0;pwned\x07cp", tmp_path / "s.jsonl")
    try:
        with post(proxy.url, LOGIN) as response:  # "cannot reach" names the URL again
            assert response.status == 502
    finally:
        code, _, err = proxy.stop()
    assert code == 0, err
    assert "recording" in err and "cannot reach" in err
    assert proxy.url.endswith("/m%1B%5D0;pwned%07cp")  # percent-encoded, and it works
    assert err.count("/m\\x1b]0;pwned\\x07cp") == 2, err
    assert RAW.search(err) is None, repr(err)
