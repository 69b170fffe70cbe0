"""What an upstream URL says reaches the operator's terminal with its control
characters escaped: ``record --url``'s lines on stderr carry no escape sequence, title or
bidirectional override."""

from __future__ import annotations

from pathlib import Path

from mcp_client_support import RAW_CONTROL, free_port
from test_mcp_record_http import LOGIN, post, record


def test_record_url_escapes_the_url_it_names(tmp_path: Path) -> None:
    closed = free_port()  # nothing listens on it
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
    assert RAW_CONTROL.search(err) is None, repr(err)
