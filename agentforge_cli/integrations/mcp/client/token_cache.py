"""The OAuth tokens of MCP servers, kept between commands: one file per server URL in
``$XDG_CACHE_HOME/agentforge/oauth/`` (``~/.cache/agentforge/oauth/`` without it).

A file holds what a later command needs to go on without asking the user again: the
tokens (and when the access token expires, as a time, since ``expires_in`` counts from
the answer), the client the authorization server registered, and the metadata found for
the server (its protected-resource and authorization-server metadata, so that a refresh
goes to the right token endpoint). Files are written whole to a temporary name, then
renamed (a reader never sees half a file), with mode 0600 in a directory of mode 0700.

Nothing here prints a file's content: tokens, codes and client secrets stay in it. The
file names are the SHA-256 of the normalized URL, so a directory listing names no server.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

__all__ = ["CACHE_VAR", "TokenCache", "cache_dir", "server_key", "valid_model"]

CACHE_VAR = "XDG_CACHE_HOME"
_EXPIRY_MARGIN = 30.0  # seconds before its expiry an access token counts as expired


def cache_dir() -> Path:
    """The folder of the token files (not created here)."""
    base = os.environ.get(CACHE_VAR, "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "agentforge" / "oauth"


def server_key(url: str) -> str:
    """The URL a cache file belongs to: scheme and host lower-cased, default port, query
    and fragment dropped, no trailing slash (``HTTP://Host:80/mcp/`` and
    ``http://host/mcp`` share their tokens)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or (scheme, port) in (("http", 80), ("https", 443)) \
        else f"{host}:{port}"
    return f"{scheme}://{netloc}{parts.path.rstrip('/')}"


class TokenCache:
    """The cache file of one server, as the SDK's ``TokenStorage`` reads and writes it
    (``get_tokens``, ``set_tokens``, ``get_client_info``, ``set_client_info``), plus the
    metadata found for the server (:meth:`discovery`, :meth:`keep_discovery`)."""

    def __init__(self, url: str, folder: Path | None = None) -> None:
        import hashlib

        self.server = server_key(url)
        name = hashlib.sha256(self.server.encode("utf-8")).hexdigest()[:32]
        self.path = (folder or cache_dir()) / f"{name}.json"

    # -- the file -------------------------------------------------------------------------

    def read(self) -> dict[str, Any]:
        """The file's content (``{}`` when there is none, or it is not this server's or
        not JSON: it is then written anew)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("server") != self.server:
            return {}
        return data

    def _write(self, data: dict[str, Any]) -> None:
        import tempfile

        folder = self.path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = {**data, "server": self.server}
        # mkstemp makes the file with mode 0600, readable by its owner alone
        handle, temporary = tempfile.mkstemp(prefix=".tokens-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(data, file, indent=1, sort_keys=True)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def _update(self, **fields: Any) -> None:
        data = self.read()
        data.update(fields)
        self._write(data)

    def holds_tokens(self) -> bool:
        """Whether tokens are cached for the server."""
        return isinstance(self.read().get("tokens"), dict)

    def forget_tokens(self) -> None:
        """Drop the tokens (a refresh was refused), keeping the client registered and the
        metadata found, so that the next authorization needs no new registration."""
        data = self.read()
        if "tokens" in data or "expires_at" in data:
            data.pop("tokens", None)
            data.pop("expires_at", None)
            self._write(data)

    def forget(self) -> bool:
        """Delete the server's file; whether there was one."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        return True

    # -- what the SDK's provider reads and writes -------------------------------------------

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        return valid_model(OAuthToken, self.read().get("tokens"))

    async def set_tokens(self, tokens: Any) -> None:
        expires_in = tokens.expires_in
        self._update(tokens=tokens.model_dump(mode="json", exclude_none=True),
                     expires_at=None if expires_in is None else time.time() + expires_in)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        return valid_model(OAuthClientInformationFull, self.read().get("client"))

    async def set_client_info(self, client_info: Any) -> None:
        self._update(client=client_info.model_dump(mode="json", exclude_none=True))

    # -- what the provider found --------------------------------------------------------------

    def expiry(self) -> float | None:
        """When the cached access token expires (a time; ``None``: not said), a little
        early so that a token is not sent in its last seconds."""
        expires_at = self.read().get("expires_at")
        if isinstance(expires_at, int | float):
            return float(expires_at) - _EXPIRY_MARGIN
        return None

    def discovery(self) -> dict[str, Any]:
        """The metadata kept by :meth:`keep_discovery` (``resource``, ``authorization_server``,
        ``authorization_server_url``), each present when it was found."""
        found = self.read().get("discovery")
        return found if isinstance(found, dict) else {}

    def keep_discovery(self, resource: Any, authorization_server: Any,
                       authorization_server_url: str | None) -> None:
        """Keep the protected-resource and authorization-server metadata (the SDK's models,
        or ``None``) for the commands after this one."""
        found: dict[str, Any] = {}
        if resource is not None:
            found["resource"] = resource.model_dump(mode="json", exclude_none=True)
        if authorization_server is not None:
            found["authorization_server"] = authorization_server.model_dump(
                mode="json", exclude_none=True)
        if authorization_server_url:
            found["authorization_server_url"] = authorization_server_url
        if found and found != self.discovery():
            self._update(discovery=found)


def valid_model(model: Any, data: object) -> Any:
    """``data`` as the SDK's ``model``, or ``None`` when it is not one (a file edited by
    hand, or written by another version: the server is then authorized anew)."""
    if not isinstance(data, dict):
        return None
    try:
        return model.model_validate(data)
    except ValueError:  # pydantic's ValidationError is one
        return None
