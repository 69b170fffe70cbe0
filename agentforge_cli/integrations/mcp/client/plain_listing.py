"""Listing a streamable-HTTP MCP server's tools without the SDK, when the server answers
plainly.

Importing the official SDK takes longer than other clients take for the whole listing (its
protocol types are built for every protocol version at import). A listing is a few
requests, which the standard library's ``http.client`` makes in milliseconds
(:mod:`~agentforge_cli.integrations.mcp.client.plain_session`). In the protocol era asked
for (:mod:`~agentforge_cli.integrations.mcp.client.eras`):

* ``auto`` and ``modern`` send ``server/discover`` first. A server that answers it with a
  result naming 2026-07-28 is modern: ``tools/list`` follows (each page), every request
  stamped as that revision asks, and nothing else. Under ``auto``, a server that refuses
  the probe with anything but a modern error (or answers without ``supportedVersions``,
  or without a modern version) is a legacy one, as the SDK's ``Client(mode="auto")``
  decides;
* ``legacy`` (and ``auto`` after a refused probe): ``initialize``,
  ``notifications/initialized`` and ``tools/list`` (each page). The session stays open
  (:attr:`PlainListing.session`): the SDK's session goes on with it at a call, so that a
  command opens one session, and its owner ends it (the ``DELETE``).

:func:`list_tools_plainly` returns the tools as the server sent them, and the protocol
agreed, when everything is plain:

* each answer is a 2xx status with JSON, or an event stream holding the answer (with
  nothing but notifications before it);
* the server agrees on a version agentforge speaks, in results the SDK surely accepts;
* no JSON-RPC error but a refused probe, and every tool passes :func:`surely_valid`, a
  check narrower than the SDK's types: a tool it accepts, the SDK accepts, with the same
  fields (from a modern server, also without ``execution`` and ``x-mcp-header``, which the
  SDK reads in its own way on that revision);
* the URL names no credentials and no proxy of the environment applies to it.

Anything else gives ``None``, and the caller lists through the SDK, whose answers and
messages stand. A server that does not answer in time is the exception
(:class:`Unanswered`), so that the wait is not spent twice.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.mcp.client.eras import (
    DEFAULT_ERA,
    MODERN_VERSIONS,
    Agreement,
    ProtocolEra,
)
from agentforge_cli.integrations.mcp.client.plain_session import PlainSession
from agentforge_cli.integrations.mcp.client.server_requests import CLIENT_CAPABILITIES

__all__ = ["HANDSHAKE_VERSIONS", "PlainListing", "Unanswered", "list_tools_plainly",
           "surely_valid"]

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions the SDK negotiates by ``initialize`` (a test keeps them equal);
the last is offered."""
_MODERN_ERRORS = frozenset({-32020, -32021, -32022})
"""The errors only a modern server gives (a header mismatch, a missing client capability,
an unsupported version): a probe refused with one is not a legacy server's refusal."""
_LEGACY = "legacy"
"""What :func:`_discover` says of a server that refused the probe as only a server of the
handshake does."""
_TOOL_FIELDS = frozenset({"name", "title", "description", "inputSchema", "outputSchema",
                          "annotations", "execution", "_meta"})
_HINTS = frozenset({"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
_TASK_SUPPORT = ("forbidden", "optional", "required")


class Unanswered(TargetError):
    """The server did not answer within the time given."""


@dataclass(frozen=True, slots=True)
class PlainListing:
    """The tools of a server listed plainly, and the protocol agreed with it."""

    tools: list[dict[str, Any]]
    """Every ``tools/list`` entry, as the server sent it."""
    agreement: Agreement
    """The protocol version (and a modern server's ``server/discover`` result, or the
    ``initialize`` result of the legacy session left open)."""
    session: PlainSession | None = None
    """A legacy session left open (its ``Mcp-Session-Id``): the caller closes it."""


def surely_valid(tool: object) -> bool:
    """Whether the SDK's types surely accept ``tool`` (a ``tools/list`` entry) and keep
    every field of it: known fields only, each of a plain type, no ``null``."""
    if not isinstance(tool, dict) or not tool.keys() <= _TOOL_FIELDS:
        return False
    name = tool.get("name")
    if not (isinstance(name, str) and name) or not _object_schema(tool.get("inputSchema")):
        return False
    if not all(isinstance(tool[key], str) for key in ("title", "description") if key in tool):
        return False
    if "outputSchema" in tool and not _object_schema(tool["outputSchema"]):
        return False
    if "_meta" in tool and not isinstance(tool["_meta"], dict):
        return False
    annotations = tool.get("annotations", {})
    if not (isinstance(annotations, dict) and annotations.keys() <= _HINTS | {"title"}
            and all(type(annotations[hint]) is bool for hint in _HINTS & annotations.keys())
            and isinstance(annotations.get("title", ""), str)):
        return False
    execution = tool.get("execution", {})
    return (isinstance(execution, dict) and execution.keys() <= {"taskSupport"}
            and execution.get("taskSupport", "optional") in _TASK_SUPPORT)


def _plain_initialize(result: dict[str, Any]) -> bool:
    """Whether the SDK surely accepts an ``initialize`` result: a handshake version, the
    server's name and version, capabilities that are objects, text instructions."""
    info = result.get("serverInfo")
    capabilities = result.get("capabilities")
    return (result.get("protocolVersion") in HANDSHAKE_VERSIONS
            and isinstance(info, dict) and isinstance(info.get("name"), str)
            and isinstance(info.get("version"), str)
            and isinstance(capabilities, dict)
            and all(isinstance(value, dict) for value in capabilities.values())
            and isinstance(result.get("instructions", ""), str))


def _object_schema(schema: object) -> bool:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return False
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    return (isinstance(properties, dict)
            and all(isinstance(value, dict | bool) for value in properties.values())
            and isinstance(required, list) and all(isinstance(key, str) for key in required)
            and isinstance(schema.get("$schema", ""), str))


def list_tools_plainly(url: str, headers: Mapping[str, str], timeout: float,
                       client_version: str, max_pages: int, *,
                       era: ProtocolEra = DEFAULT_ERA, log_level: str | None = None
                       ) -> PlainListing | None:
    """The tools of the server at ``url`` (every page) and the protocol agreed, or
    ``None`` when anything is not plain (see the module). Every request declares the
    client capabilities of
    :data:`~agentforge_cli.integrations.mcp.client.server_requests.CLIENT_CAPABILITIES`
    (and, to a modern server, asks for log messages from ``log_level`` up), as the SDK's
    session does.

    Raises:
        Unanswered: The server did not answer within ``timeout`` seconds.
    """
    import http.client
    from urllib.parse import urlsplit
    from urllib.request import getproxies, proxy_bypass

    try:
        parts = urlsplit(url)
        if (parts.scheme not in ("http", "https") or not parts.hostname or parts.username
                or parts.password or (parts.scheme in getproxies()
                                      and not proxy_bypass(parts.hostname))):
            return None
        session = PlainSession(parts.scheme, parts.netloc, parts.path or "/", parts.query,
                               headers, time.monotonic() + timeout, log_level=log_level)
    except (ValueError, http.client.HTTPException):  # the SDK's path says what is wrong
        return None
    kept = False
    try:
        agreed = _agree(session, era, {"name": "agentforge", "version": client_version})
        if agreed is None:
            return None
        tools = _tools(session, max_pages, modern=agreed.discovered is not None)
        if tools is None:
            return None
        if agreed.initialized is not None and session.session_id is not None:
            kept = True  # the session goes on: the caller ends it
            session.connection.close()  # (a request later connects again)
            return PlainListing(tools, agreed, session)
        return PlainListing(tools, Agreement(agreed.version, agreed.discovered))
    except TimeoutError:
        raise Unanswered(f"no answer within {timeout:g} s") from None
    except (OSError, http.client.HTTPException, ValueError, RecursionError):
        return None  # (RecursionError: JSON nested too deep)
    finally:
        if not kept:
            session.close()


def _agree(session: PlainSession, era: ProtocolEra, client: dict[str, str]
           ) -> Agreement | None:
    """The protocol agreed in ``era`` (``None``: not plainly)."""
    if era != "legacy":
        found = _discover(session, client)
        if found is not _LEGACY:
            return found if isinstance(found, Agreement) else None
        if era == "modern":
            return None  # the SDK's path says why
        session.speak_legacy()
    init = session.request("initialize", {
        "protocolVersion": HANDSHAKE_VERSIONS[-1], "capabilities": CLIENT_CAPABILITIES,
        "clientInfo": client})
    if init is None or not _plain_initialize(init):
        return None
    session.version = init["protocolVersion"]
    if not session.notify("notifications/initialized"):
        return None
    return Agreement(init["protocolVersion"], initialized=init)


def _discover(session: PlainSession, client: dict[str, str]) -> Agreement | str | None:
    """``server/discover``: what a modern server agrees on, :data:`_LEGACY` when the
    server is surely not modern, ``None`` when that is not plain."""
    version = MODERN_VERSIONS[-1]
    session.speak_modern(version, client)
    status, answer = session.exchange("server/discover", None)
    if answer is None:
        return _LEGACY if status >= 400 else None
    error = answer.get("error")
    if isinstance(error, dict):
        return None if error.get("code") in _MODERN_ERRORS else _LEGACY
    result = answer.get("result")
    if status != 200 or not isinstance(result, dict):
        return None
    supported = result.get("supportedVersions")
    if not isinstance(supported, list):
        return _LEGACY  # no discover result: the SDK falls back to initialize too
    if not _plain_discover(result):
        return None
    return Agreement(version, result) if version in supported else _LEGACY


def _plain_discover(result: dict[str, Any]) -> bool:
    """Whether the SDK surely accepts a ``server/discover`` result as it is."""
    capabilities = result.get("capabilities")
    return (all(isinstance(version, str) for version in result["supportedVersions"])
            and isinstance(capabilities, dict)
            and all(isinstance(value, dict) for value in capabilities.values())
            and isinstance(result.get("instructions", ""), str)
            and result.get("resultType", "complete") == "complete"
            and type(result.get("ttlMs", 0)) is int and result.get("ttlMs", 0) >= 0
            and result.get("cacheScope", "public") in ("public", "private")
            and isinstance(result.get("_meta", {}), dict))


def _tools(session: PlainSession, max_pages: int, *, modern: bool
           ) -> list[dict[str, Any]] | None:
    """Every page of ``tools/list``, when each tool is plain."""
    tools: list[dict[str, Any]] = []
    cursor = None
    plain = _modern_plain if modern else surely_valid
    for _ in range(max_pages):
        page = session.request("tools/list", {"cursor": cursor} if cursor else None)
        listed = None if page is None else page.get("tools")
        cursor = None if page is None else page.get("nextCursor")
        if not isinstance(listed, list) or not all(map(plain, listed)) or (
                cursor is not None and not isinstance(cursor, str)):
            return None
        tools.extend(listed)
        if not cursor:
            return tools
    return None  # a server that keeps paging: the SDK's path says so


def _modern_plain(tool: object) -> bool:
    """:func:`surely_valid`, without the fields a modern session reads its own way."""
    return (surely_valid(tool) and isinstance(tool, dict) and "execution" not in tool
            and not _names_key(tool["inputSchema"], "x-mcp-header"))


def _names_key(value: object, key: str) -> bool:
    """Whether ``key`` is a key of an object anywhere in the JSON ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if key in item:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
