"""An OAuth 2.1 authorization server of our own and an MCP server behind it, for the OAuth
tests: ``python oauth_servers.py``, both on free loopback ports, in one process.

It prints ``ready AS_URL MCP_URL`` on standard output once both accept connections, and
runs until it is terminated.

* The authorization server (written here, with starlette): its metadata (RFC 8414),
  ``/register`` (dynamic client registration, RFC 7591: a client id and secret,
  ``client_secret_post``), ``/authorize`` (approves at once and redirects to the loopback
  redirect URI with a code, any port of a registered loopback URI as RFC 8252 asks; or
  refuses with ``access_denied`` once ``POST /control {"refuse": true}`` said so), and
  ``/token`` (the code against the PKCE verifier, S256, the client's secret and the
  redirect URI; a refresh token for new tokens, the old access token revoked). ``GET
  /stats`` counts the requests; ``POST /control {"revoke": true}`` revokes every access
  token, ``{"revoke_refresh": true}`` every refresh token.
* The MCP server: the official SDK's ``MCPServer`` with the SDK's auth settings and a
  token verifier asking the authorization server's token table, so a request without a
  valid bearer token is refused ``401`` with the SDK's ``WWW-Authenticate`` (naming its
  protected-resource metadata, which the SDK serves). Tools: ``whoami`` (the client id of
  the token) and ``add``.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import secrets
import socket
import sys
import time
from typing import Any
from urllib.parse import urlencode, urlsplit

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

ACCESS_TTL = 3600


class Authority:
    """The authorization server's state: clients, codes, tokens, counters."""

    def __init__(self) -> None:
        self.base = ""
        self.clients: dict[str, dict[str, Any]] = {}
        self.codes: dict[str, dict[str, Any]] = {}
        self.access: dict[str, dict[str, Any]] = {}
        self.refresh: dict[str, dict[str, Any]] = {}
        self.refuse = False
        self.stats = {"metadata": 0, "register": 0, "authorize": 0, "token_code": 0,
                      "token_refresh": 0, "refused_tokens": 0}

    def issue(self, client_id: str, resource: str | None) -> dict[str, Any]:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        grant = {"client_id": client_id, "resource": resource,
                 "expires_at": int(time.time()) + ACCESS_TTL}
        self.access[access] = grant
        self.refresh[refresh] = grant
        return {"access_token": access, "token_type": "Bearer", "expires_in": ACCESS_TTL,
                "refresh_token": refresh, "scope": "tools"}


AUTHORITY = Authority()


def _error(code: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": code}, status_code=status)


async def metadata(request: Request) -> Response:
    AUTHORITY.stats["metadata"] += 1
    base = AUTHORITY.base
    return JSONResponse({
        "issuer": base, "authorization_endpoint": f"{base}/authorize",
        "token_endpoint": f"{base}/token", "registration_endpoint": f"{base}/register",
        "response_types_supported": ["code"], "scopes_supported": ["tools"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post"]})


async def register(request: Request) -> Response:
    AUTHORITY.stats["register"] += 1
    body = await request.json()
    uris = body.get("redirect_uris") or []
    if not uris or not all(urlsplit(uri).hostname == "127.0.0.1" for uri in uris):
        return _error("invalid_redirect_uri")
    client = {**body, "client_id": "client-" + secrets.token_hex(6),
              "client_secret": secrets.token_urlsafe(24),
              "client_id_issued_at": int(time.time()),
              "token_endpoint_auth_method": "client_secret_post"}
    AUTHORITY.clients[client["client_id"]] = client
    return JSONResponse(client, status_code=201)


def _loopback_match(given: str, registered: list[str]) -> bool:
    """RFC 8252 §7.3: a loopback redirect URI matches whatever its port."""
    parts = urlsplit(given)
    return any(parts.hostname == urlsplit(uri).hostname and parts.path == urlsplit(uri).path
               for uri in registered)


async def authorize(request: Request) -> Response:
    AUTHORITY.stats["authorize"] += 1
    query = request.query_params
    client = AUTHORITY.clients.get(query.get("client_id", ""))
    redirect_uri = query.get("redirect_uri", "")
    if client is None or not _loopback_match(redirect_uri, client["redirect_uris"]):
        return _error("invalid_client")
    if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
        return _error("invalid_request")
    state = query.get("state", "")
    if AUTHORITY.refuse:
        answer = {"error": "access_denied", "error_description": "the user said no",
                  "state": state}
        return RedirectResponse(f"{redirect_uri}?{urlencode(answer)}", status_code=302)
    code = secrets.token_urlsafe(16)
    AUTHORITY.codes[code] = {"client_id": client["client_id"], "redirect_uri": redirect_uri,
                             "challenge": query["code_challenge"],
                             "resource": query.get("resource")}
    return RedirectResponse(f"{redirect_uri}?{urlencode({'code': code, 'state': state})}",
                            status_code=302)


def _challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


async def token(request: Request) -> Response:
    form = await request.form()
    client = AUTHORITY.clients.get(str(form.get("client_id", "")))
    if client is None or form.get("client_secret") != client["client_secret"]:
        AUTHORITY.stats["refused_tokens"] += 1
        return _error("invalid_client", 401)
    grant_type = form.get("grant_type")
    if grant_type == "authorization_code":
        AUTHORITY.stats["token_code"] += 1
        grant = AUTHORITY.codes.pop(str(form.get("code", "")), None)
        if (grant is None or grant["client_id"] != client["client_id"]
                or grant["redirect_uri"] != form.get("redirect_uri")
                or _challenge(str(form.get("code_verifier", ""))) != grant["challenge"]):
            AUTHORITY.stats["refused_tokens"] += 1
            return _error("invalid_grant")
        return JSONResponse(AUTHORITY.issue(client["client_id"], grant["resource"]))
    if grant_type == "refresh_token":
        AUTHORITY.stats["token_refresh"] += 1
        grant = AUTHORITY.refresh.pop(str(form.get("refresh_token", "")), None)
        if grant is None or grant["client_id"] != client["client_id"]:
            AUTHORITY.stats["refused_tokens"] += 1
            return _error("invalid_grant")
        for access in [key for key, value in AUTHORITY.access.items() if value is grant]:
            del AUTHORITY.access[access]
        return JSONResponse(AUTHORITY.issue(client["client_id"], grant["resource"]))
    return _error("unsupported_grant_type")


async def stats(request: Request) -> Response:
    return JSONResponse(AUTHORITY.stats)


async def control(request: Request) -> Response:
    body = await request.json()
    if "refuse" in body:
        AUTHORITY.refuse = bool(body["refuse"])
    if body.get("revoke"):
        AUTHORITY.access.clear()
    if body.get("revoke_refresh"):
        AUTHORITY.refresh.clear()
    return JSONResponse({"ok": True})


authority_app = Starlette(routes=[
    Route("/.well-known/oauth-authorization-server", metadata),
    Route("/register", register, methods=["POST"]),
    Route("/authorize", authorize),
    Route("/token", token, methods=["POST"]),
    Route("/stats", stats),
    Route("/control", control, methods=["POST"]),
])


class Verifier:
    """The MCP server's token verifier: the authorization server's table, in-process."""

    async def verify_token(self, token: str) -> AccessToken | None:
        grant = AUTHORITY.access.get(token)
        if grant is None or grant["expires_at"] < time.time():
            return None
        return AccessToken(token=token, client_id=grant["client_id"], scopes=["tools"],
                           expires_at=grant["expires_at"], resource=grant["resource"])


def _listener() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


def _mcp_server(authority: str, resource: str) -> MCPServer:
    server = MCPServer("guarded", token_verifier=Verifier(), auth=AuthSettings(
        issuer_url=authority, resource_server_url=resource, validate_token_resource=True))

    @server.tool(description="The client id the bearer token was issued to")
    def whoami() -> str:
        access = get_access_token()
        return access.client_id if access else "nobody"

    @server.tool(description="Add two integers")
    def add(a: int, b: int) -> int:
        return a + b

    return server


async def main() -> None:
    auth_sock, mcp_sock = _listener(), _listener()
    AUTHORITY.base = f"http://127.0.0.1:{auth_sock.getsockname()[1]}"
    resource = f"http://127.0.0.1:{mcp_sock.getsockname()[1]}/mcp"
    mcp_app = _mcp_server(AUTHORITY.base, resource).streamable_http_app()
    servers = [uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
               for app in (authority_app, mcp_app)]

    async def announce() -> None:
        while not all(server.started for server in servers):
            await asyncio.sleep(0.01)
        print(f"ready {AUTHORITY.base} {resource}", flush=True)

    await asyncio.gather(servers[0].serve(sockets=[auth_sock]),
                         servers[1].serve(sockets=[mcp_sock]), announce())


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
