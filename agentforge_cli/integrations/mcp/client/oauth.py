"""OAuth 2.1 for MCP servers over HTTP, through the official SDK's client
(``mcp.client.auth.OAuthClientProvider``, an ``httpx2.Auth`` given to the transport's HTTP
client). The SDK does the protocol: protected-resource metadata (RFC 9728),
authorization-server metadata (RFC 8414), dynamic client registration (RFC 7591), the
authorization code with PKCE, refresh. This module gives it what is agentforge's own:

* a token cache (:class:`~agentforge_cli.integrations.mcp.client.token_cache.TokenCache`):
  tokens, the registered client and the metadata found, kept between commands;
* a loopback redirect
  (:class:`~agentforge_cli.integrations.mcp.client.oauth_callback.LoopbackCallback`): the
  authorization URL goes to ``on_authorize`` (the command line prints it on standard
  error), a browser is opened when there is one, and the redirect is waited for at most
  ``wait`` seconds (the start-up timeout's clock stops meanwhile);
* the rule for a command without ``--oauth`` (``interactive=False``): cached tokens are
  sent and refreshed, but a server that wants a new authorization is an error saying to
  add ``--oauth``;
* a refresh on rejection: an access token the server refuses (``401``) before its
  recorded expiry (revoked, say) is refreshed with the cached refresh token and the
  request sent once more, with or without ``--oauth``; only a refused refresh leads to a
  new authorization (or, without ``--oauth``, to the error).

Failures are :class:`~agentforge_cli.errors.TargetError` (exit 3). No message holds a
token, a code or a client secret.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from agentforge_cli.core.observe.masking import mask_target
from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.mcp.client.token_cache import TokenCache, valid_model

__all__ = ["DEFAULT_WAIT", "WAIT_VAR", "Authorizer", "asks_for_oauth", "authorizer_for"]

WAIT_VAR = "AGENTFORGE_OAUTH_TIMEOUT"
DEFAULT_WAIT = 300.0
"""Seconds the browser's redirect is waited for."""
_PLACEHOLDER_REDIRECT = "http://127.0.0.1/callback"  # registered by no one: never sent
_DETAIL = 200  # characters of an authorization server's error description shown


def asks_for_oauth(response: Any) -> bool:
    """Whether an HTTP ``401`` answer asks for OAuth: its ``WWW-Authenticate`` names the
    ``Bearer`` scheme or a ``resource_metadata`` URL (RFC 9728)."""
    challenge = response.headers.get("www-authenticate", "").lower()
    return "bearer" in challenge or "resource_metadata" in challenge


def oauth_wait() -> float:
    """The seconds of ``AGENTFORGE_OAUTH_TIMEOUT``, else :data:`DEFAULT_WAIT`."""
    from agentforge_cli.errors import TargetConfigError

    text = os.environ.get(WAIT_VAR, "").strip()
    if not text:
        return DEFAULT_WAIT
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise TargetConfigError(f"{WAIT_VAR} must be a positive number of seconds, "
                                f"got {text!r}")
    return value


def authorizer_for(url: str, *, interactive: bool,
                   on_authorize: Callable[[str], None] | None = None) -> Authorizer | None:
    """The :class:`Authorizer` of the server at ``url``: always with ``interactive``
    (``--oauth``), else only when tokens are cached for it (``None`` otherwise)."""
    cache = TokenCache(url)
    if not interactive and not cache.holds_tokens():
        return None
    return Authorizer(url, cache, interactive=interactive, on_authorize=on_authorize,
                      wait=oauth_wait() if interactive else 0.0)


class Authorizer:
    """The OAuth state of one server for one command: its cache, and the loopback
    listener while an authorization may be needed."""

    def __init__(self, url: str, cache: TokenCache, *, interactive: bool,
                 on_authorize: Callable[[str], None] | None, wait: float) -> None:
        self.url = url
        self.cache = cache
        self.interactive = interactive
        self.on_authorize = on_authorize
        self.wait = wait
        self._listener: Any = None
        self.authorizations = 0
        """How many times the user was sent to authorize (for messages and tests)."""

    @property
    def label(self) -> str:
        return mask_target(self.url)

    def provider(self) -> Any:
        """A new SDK provider for one session (each session has its own event loop; the
        cache is what they share)."""
        from mcp.shared.auth import OAuthClientMetadata

        from agentforge_cli import __version__

        metadata = OAuthClientMetadata(
            client_name="agentforge", software_id="agentforge", software_version=__version__,
            redirect_uris=[self._redirect_uri()],  # type: ignore[list-item]  # pydantic parses it
            grant_types=["authorization_code", "refresh_token"], response_types=["code"])
        return _provider_class()(self.url, metadata, self.cache,
                                 redirect_handler=self._send_user,
                                 callback_handler=self._receive_code)

    def close(self) -> None:
        """Stop listening (a later :meth:`provider` listens again)."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()

    def _redirect_uri(self) -> str:
        """The loopback redirect URI: the port the cached client was registered with when
        it is free (some servers compare ports), else a free one."""
        if not self.interactive:
            return self._registered_redirect() or _PLACEHOLDER_REDIRECT
        if self._listener is None:
            from urllib.parse import urlsplit

            from agentforge_cli.integrations.mcp.client.oauth_callback import LoopbackCallback

            registered = self._registered_redirect()
            port = urlsplit(registered).port if registered else None
            self._listener = LoopbackCallback(port or 0)
        redirect: str = self._listener.redirect_uri
        return redirect

    def _registered_redirect(self) -> str | None:
        client = self.cache.read().get("client")
        uris = client.get("redirect_uris") if isinstance(client, dict) else None
        if isinstance(uris, list) and uris and isinstance(uris[0], str):
            return uris[0]
        return None

    async def _send_user(self, authorization_url: str) -> None:
        """The SDK's redirect handler: print the URL, open a browser when there is one."""
        if not self.interactive:
            raise TargetError(f"MCP server {self.label} needs a new authorization: its "
                              "cached tokens were refused or cannot be refreshed",
                              hint="run the command again with --oauth to authorize "
                                   "agentforge in a browser")
        self.authorizations += 1
        if self.on_authorize is not None:
            self.on_authorize(authorization_url)
        _open_browser(authorization_url)

    async def _receive_code(self) -> Any:
        """The SDK's callback handler: the redirect's code and state, waited for at most
        :attr:`wait` seconds, the start-up timeout's clock stopped meanwhile."""
        import threading

        import anyio
        from mcp.shared.auth import AuthorizationCodeResult

        from agentforge_cli.integrations.mcp.client.deadlines import person_waited_for

        stop = threading.Event()
        try:
            with person_waited_for():
                got = await anyio.to_thread.run_sync(self._listener.wait, self.wait, stop,
                                                     abandon_on_cancel=True)
        finally:
            stop.set()
        self.close()
        if got is None:
            raise TargetError(f"MCP server {self.label} needs authorization: no answer from "
                              f"the browser within {self.wait:g} s",
                              hint="open the address printed above in a browser that can "
                                   f"reach this machine's 127.0.0.1; {WAIT_VAR} sets the wait")
        if got.error is not None:
            detail = f" ({got.error_description[:_DETAIL]})" if got.error_description else ""
            raise TargetError(f"MCP server {self.label}: the authorization was refused: "
                              f"{got.error[:_DETAIL]}{detail}",
                              hint="run the command again with --oauth and approve the "
                                   "access")
        return AuthorizationCodeResult(code=got.code, state=got.state, iss=got.iss)


def _open_browser(url: str) -> None:
    """Open ``url`` in a graphical browser, when this machine has one; a text browser
    (``lynx``, ``w3m``) would take over the terminal, so none is run."""
    import contextlib
    import sys
    import webbrowser

    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY")
                                                 or os.environ.get("WAYLAND_DISPLAY")):
        return
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return
    if type(browser) is webbrowser.GenericBrowser:  # a text browser, in the foreground
        return
    with contextlib.suppress(OSError):
        browser.open(url)


_PROVIDER: Any = None


def _provider_class() -> Any:
    """The SDK's provider, made to keep what a later command needs (built once, when
    first needed: importing the SDK takes a while)."""
    global _PROVIDER
    if _PROVIDER is not None:
        return _PROVIDER
    import logging

    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata

    # the SDK logs a failed flow with its traceback; agentforge says why in one message
    logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())

    class CachedOAuthProvider(OAuthClientProvider):
        """The SDK's provider, which keeps only tokens and the client in its storage,
        restoring from agentforge's cache what it otherwise learns again in each process:
        when the access token expires (so that an expired one is refreshed before it is
        sent) and the metadata found (so that the refresh goes to the authorization
        server's token endpoint, with the resource it is for)."""

        async def _initialize(self) -> None:
            await super()._initialize()
            cache: TokenCache = self.context.storage  # type: ignore[assignment]  # ours
            self.context.token_expiry_time = cache.expiry()
            found = cache.discovery()
            if self.context.protected_resource_metadata is None:
                self.context.protected_resource_metadata = valid_model(
                    ProtectedResourceMetadata, found.get("resource"))
            if self.context.oauth_metadata is None:
                self.context.oauth_metadata = valid_model(OAuthMetadata,
                                                     found.get("authorization_server"))
            if self.context.auth_server_url is None and isinstance(
                    found.get("authorization_server_url"), str):
                self.context.auth_server_url = found["authorization_server_url"]

        async def _auth_flow(self, request: Any) -> Any:
            """The SDK's flow, but a ``401`` to a token sent before its recorded expiry
            (revoked, or the server restarted) is first answered by a refresh with the
            cached refresh token and the request sent once more; only when that fails
            does the SDK's flow go on, to a new authorization (``--oauth``) or to the
            error saying to run with ``--oauth``."""
            flow = super()._auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                refreshed = False  # at most one refresh of ours per request
                while True:
                    response = yield outgoing
                    if outgoing is request and not refreshed and self._may_refresh(
                            request, response):
                        refreshed = True
                        answer = yield await self._refresh_token()
                        if await self._handle_refresh_response(answer):
                            self._add_auth_header(request)
                            response = yield request
                    elif outgoing is not request:
                        refreshed = True  # the SDK refreshed an expired token: not again
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

        def _may_refresh(self, request: Any, response: Any) -> bool:
            """A ``401`` to the bearer token held, which a refresh token can renew."""
            tokens = self.context.current_tokens
            sent = request.headers.get("authorization", "")
            return (response.status_code == 401 and tokens is not None
                    and sent == f"Bearer {tokens.access_token}"
                    and self.context.can_refresh_token())

        async def _handle_refresh_response(self, response: Any) -> bool:
            """The SDK's, and a refused refresh forgets the cached tokens (the client
            registered stays): no later session or command sends them again."""
            renewed: bool = await super()._handle_refresh_response(response)
            if not renewed:
                cache: TokenCache = self.context.storage  # type: ignore[assignment]  # ours
                cache.forget_tokens()
            return renewed

        async def _handle_token_response(self, response: Any) -> None:
            await super()._handle_token_response(response)
            cache: TokenCache = self.context.storage  # type: ignore[assignment]  # ours
            cache.keep_discovery(self.context.protected_resource_metadata,
                                 self.context.oauth_metadata, self.context.auth_server_url)

    _PROVIDER = CachedOAuthProvider
    return _PROVIDER
