"""What a remote client says reaches the operator's terminal with its control
characters escaped: ``serve --log``'s lines on stderr carry no escape sequence, title or
bidirectional override. (A result's newlines stay: the log is a transcript replay reads,
where a result may run over several lines.) ``record --url``'s are checked beside the
other recording tests."""

from __future__ import annotations

from mcp_client_support import HANDSHAKE, HERE, RAW_CONTROL, RawServer, call

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
    assert RAW_CONTROL.search(stderr) is None, repr(stderr)
