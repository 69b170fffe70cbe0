"""The parts of OAuth that are agentforge's own, each alone: the token cache (where, which
file, what mode, what a damaged file gives), the loopback listener (what it answers, what
it keeps), the challenge that asks for OAuth, the wait's setting. The whole flow runs in
``test_mcp_oauth.py``."""

from __future__ import annotations

import asyncio
import stat
import threading
import time
from pathlib import Path

import httpx
import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from agentforge_cli.errors import TargetConfigError
from agentforge_cli.integrations.mcp.client.oauth import (
    WAIT_VAR,
    asks_for_oauth,
    authorizer_for,
    oauth_wait,
)
from agentforge_cli.integrations.mcp.client.oauth_callback import LoopbackCallback
from agentforge_cli.integrations.mcp.client.token_cache import TokenCache, cache_dir, server_key


def test_the_cache_lives_in_the_users_cache_directory(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "agentforge" / "oauth"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the spec wants absolute
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "agentforge" / "oauth"


@pytest.mark.parametrize("url", ["http://Tools.Example.com:80/mcp/", "HTTP://tools.example.com/mcp",
                                 "http://tools.example.com/mcp?x=1#y"])
def test_one_server_one_key(url: str) -> None:
    assert server_key(url) == "http://tools.example.com/mcp"
    assert TokenCache(url).path == TokenCache("http://tools.example.com/mcp").path


def test_other_servers_other_files() -> None:
    paths = {TokenCache(url).path for url in ("http://127.0.0.1:8000/mcp",
                                               "http://127.0.0.1:8001/mcp",
                                               "https://127.0.0.1:8000/mcp",
                                               "http://127.0.0.1:8000/other")}
    assert len(paths) == 4
    assert all("127" not in path.name for path in paths)  # the name tells no server


def test_tokens_and_client_round_trip_in_a_private_file(tmp_path: Path) -> None:
    cache = TokenCache("http://127.0.0.1:9/mcp", tmp_path / "oauth")
    assert not cache.holds_tokens()
    token = OAuthToken(access_token="A" * 20, refresh_token="R" * 20, expires_in=600)
    client = OAuthClientInformationFull(client_id="c1", client_secret="S" * 20,
                                        redirect_uris=["http://127.0.0.1:5000/callback"])
    asyncio.run(cache.set_tokens(token))
    asyncio.run(cache.set_client_info(client))
    assert cache.holds_tokens()
    assert asyncio.run(cache.get_tokens()) == token
    assert asyncio.run(cache.get_client_info()).client_secret == "S" * 20
    expiry = cache.expiry()
    assert expiry is not None and 500 < expiry - time.time() < 600
    assert stat.S_IMODE(cache.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.path.parent.stat().st_mode) == 0o700
    assert [path.name for path in cache.path.parent.iterdir()] == [cache.path.name]
    assert cache.forget() and not cache.forget()


@pytest.mark.parametrize("content", ["not json", "[]", '{"server": "http://other/mcp"}',
                                     '{"server": "http://127.0.0.1:9/mcp", "tokens": {"x": 1},'
                                     ' "client": {"client_id": 5}}'])
def test_a_damaged_file_is_no_cache(tmp_path: Path, content: str) -> None:
    cache = TokenCache("http://127.0.0.1:9/mcp", tmp_path)
    cache.path.write_text(content, encoding="utf-8")
    assert asyncio.run(cache.get_tokens()) is None
    assert asyncio.run(cache.get_client_info()) is None
    assert cache.discovery() == {}


def test_without_oauth_or_tokens_there_is_no_authorizer(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert authorizer_for("http://127.0.0.1:9/mcp", interactive=False) is None
    interactive = authorizer_for("http://127.0.0.1:9/mcp", interactive=True)
    assert interactive is not None and interactive.wait == 300
    asyncio.run(TokenCache("http://127.0.0.1:9/mcp").set_tokens(OAuthToken(access_token="A")))
    assert authorizer_for("http://127.0.0.1:9/mcp", interactive=False) is not None


@pytest.mark.parametrize(("challenge", "asks"), [
    ('Bearer error="invalid_token", resource_metadata="http://x/.well-known/o"', True),
    ("Bearer", True), ('Basic realm="x"', False), (None, False)])
def test_which_401_asks_for_oauth(challenge: str | None, asks: bool) -> None:
    headers = {"WWW-Authenticate": challenge} if challenge else {}
    assert asks_for_oauth(httpx.Response(401, headers=headers)) is asks


def test_the_wait_is_a_positive_number(monkeypatch) -> None:
    monkeypatch.setenv(WAIT_VAR, "2.5")
    assert oauth_wait() == 2.5
    for bad in ("0", "-1", "soon"):
        monkeypatch.setenv(WAIT_VAR, bad)
        with pytest.raises(TargetConfigError, match=WAIT_VAR):
            oauth_wait()


def _waiting(listener: LoopbackCallback, timeout: float = 20.0) -> tuple[threading.Thread, list]:
    got: list = []
    thread = threading.Thread(target=lambda: got.append(listener.wait(timeout)))
    thread.start()
    return thread, got


def test_the_listener_takes_the_redirect_and_stops() -> None:
    listener = LoopbackCallback()
    try:
        assert listener.redirect_uri == f"http://127.0.0.1:{listener.port}/callback"
        thread, got = _waiting(listener)
        base = f"http://127.0.0.1:{listener.port}"
        assert httpx.get(f"{base}/favicon.ico").status_code == 404
        assert httpx.get(f"{base}/callback?state=s").status_code == 400
        page = httpx.get(f"{base}/callback?code=C0DE&state=s&iss=http://as")
        thread.join(timeout=30)
        assert page.status_code == 200 and "authorized" in page.text
        assert "C0DE" not in page.text
        [callback] = got
        assert (callback.code, callback.state, callback.iss) == ("C0DE", "s", "http://as")
    finally:
        listener.close()


def test_the_listener_keeps_a_refusal() -> None:
    listener = LoopbackCallback()
    try:
        thread, got = _waiting(listener)
        page = httpx.get(f"http://127.0.0.1:{listener.port}/callback?error=access_denied"
                         "&error_description=<b>no</b>&state=s")
        thread.join(timeout=30)
        assert "refused (access_denied)" in page.text and "<b>" not in page.text
        assert (got[0].error, got[0].error_description, got[0].code) == (
            "access_denied", "<b>no</b>", None)
    finally:
        listener.close()


def test_the_listener_gives_up_after_its_wait_and_reuses_a_free_port() -> None:
    first = LoopbackCallback()
    try:
        assert first.wait(0.3) is None
        taken = LoopbackCallback(first.port)  # taken: another port instead
        assert taken.port != first.port
        taken.close()
    finally:
        first.close()
    again = LoopbackCallback(first.port)  # free again: the registered port is kept
    assert again.port == first.port
    again.close()
