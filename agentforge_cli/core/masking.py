"""Keeping secrets out of logs, explanations, traces, reports and error messages.

The one place masking is decided. A value is secret when its key is one of the tool's
sensitive keys (parameters marked ``P(sensitive=True)``, see :func:`sensitive_keys`) or is
named like a secret — any case, ``_``/``-`` ignored — as the whole key or its ending
(``access_token``, ``db_password``, ``client_secret``, ``set-cookie``; not ``max_tokens``,
``tokens_used``, ``author``): ``password``, ``passwd``, ``passphrase``, ``secret``,
``token``, ``api_key``, ``authorization``, ``auth``, ``bearer``, ``jwt``, ``otp``,
``private_key`` and the other ``..._key``s of cryptography (``secret_key``, ``access_key``,
``signing_key``, ``encryption_key``, ``session_key``), ``credential(s)``, ``cookie(s)``; or
exactly ``pass``, ``pwd``. Not masked by name: ``session_id`` (it names a session, as a
``user_id`` names a user) and ``pin`` (as often "pin a message" as a PIN) — mark such a
parameter ``P(sensitive=True)``. Secrets are shown as ``***``.

Every output goes through :func:`mask_value` (parsed values, bound arguments keyed by JSON
key) or :func:`mask_arguments` (a model's argument string); :func:`mask_text` is their
fallback for text that does not parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["MASK", "is_sensitive_name", "mask_arguments", "mask_text", "mask_url", "mask_value",
           "mask_values", "may_hold_secret", "sensitive_keys", "tool_sensitive_keys"]

MASK = "***"

_NONE: frozenset[str] = frozenset()

_SENSITIVE_ENDINGS = ("password", "passwd", "passphrase", "secret", "token", "apikey",
                      "authorization", "auth", "bearer", "jwt", "otp", "privatekey",
                      "secretkey", "accesskey", "signingkey", "encryptionkey", "sessionkey",
                      "credential", "credentials", "cookie", "cookies")
_SENSITIVE_NAMES = frozenset({"pass", "pwd"})  # too short to match as an ending
_ALL_NAMES = (*_SENSITIVE_ENDINGS, *sorted(_SENSITIVE_NAMES))
_SHORTEST = tuple(name for name in _ALL_NAMES
                  if not any(other != name and other in name for other in _ALL_NAMES))
"""The secret names no other one holds: text holds a secret name iff it holds one of these."""
_UNKEYED = tuple(name for name in _SHORTEST if "key" not in name)
_KEYED = tuple(name for name in _SHORTEST if "key" in name)
_NAME_LETTERS = "bcjkpu"
"""Every secret name holds one of these letters (the rarest such set in English text)."""
_NAME_CHARACTERS = (*_NAME_LETTERS, *_NAME_LETTERS.upper(), "\u212a", "\\")
"""Text holding none of these cannot hold a secret name once folded: no letter of
:data:`_NAME_LETTERS` in any case (the Kelvin sign lower-cases to k), and no backslash (an
escape could spell any letter)."""


def _may_name_a_secret(text: str) -> bool:
    # one search per character (memchr, in C) runs at memory speed; a regular
    # expression's character class costs tens of instructions per character
    return any(map(text.__contains__, _NAME_CHARACTERS))


_STRING = {quote: re.compile(rf"{quote}(?:[^{quote}\\]|\\.)*{quote}?", re.DOTALL)
           for quote in "\"'"}  # from a quote to its closing quote (or the end)
_QUOTE = re.compile("[\"']")
_SPACE = re.compile(r"\s*")
_BARE_VALUE = re.compile(r"[^,}\]\s]*")
_WORD_KEY = re.compile(r"""['"]([\w.-]+)['"]\s*:\s*""")


def is_sensitive_name(name: str) -> bool:
    """True for keys named like a secret (``password``, ``api_key``, ``access_token``,
    ``client_secret``, ``set-cookie``...); not ``max_tokens``, ``author``."""
    key = name.lower().replace("_", "").replace("-", "")
    return key.endswith(_SENSITIVE_ENDINGS) or key in _SENSITIVE_NAMES


def sensitive_keys(executor: Any) -> frozenset[str]:
    """The JSON keys of a tool's sensitive parameters, for any executor (through wrappers
    such as the logging decorator); empty for an executor that does not declare any."""
    keys = getattr(executor, "sensitive_keys", _NONE)
    return keys if isinstance(keys, frozenset) else _NONE


def tool_sensitive_keys(service: Any, name: str) -> frozenset[str]:
    """The sensitive keys of the tool called ``name`` in a service (anything with
    ``executor(name)`` and ``names``). For a name the service does not know, every tool's:
    a call recorded under an old name may carry a secret parameter of today's tool."""
    executor = service.executor(name)
    if executor is not None:
        return sensitive_keys(executor)
    return frozenset().union(*(sensitive_keys(service.executor(known))
                               for known in service.names))


def _secret(key: object, keys: frozenset[str]) -> bool:
    return isinstance(key, str) and (key in keys or is_sensitive_name(key))


def mask_value(value: Any, sensitive_keys: frozenset[str] = _NONE) -> Any:
    """A parsed JSON value with secrets replaced by ``***``.

    ``sensitive_keys`` (the tool's) apply to the keys of ``value`` itself, an arguments
    object; keys named like a secret are masked at any depth, also inside JSON text held
    in a string (an object a lenient ``str`` parameter took as its JSON text).
    """
    if isinstance(value, dict):
        return {key: MASK if _secret(key, sensitive_keys) else mask_value(item)
                for key, item in value.items()}
    if isinstance(value, list):
        return [mask_value(item) for item in value]
    if isinstance(value, str) and ('"' in value or "'" in value):
        return mask_text(value)  # JSON text in a string (an object bound to a str)
    return value


def mask_text(text: str, sensitive_keys: frozenset[str] = _NONE) -> str:
    """Mask ``"key": value`` pairs of secret keys in text that may not parse as JSON;
    single quotes (Python's ``{'password': 'x'}``) count as quotes too.

    Two passes, each from left to right and linear in the text whatever it holds (a
    double-encoded string's run of ``\\"``, say): the first reads each quoted string once,
    as JSON or Python would; the second finds every quoted key that is a plain word, even
    where a stray apostrophe (``here's {'pin': 1}``) threw the quote pairing off.
    """
    return _mask_word_keys(_mask_pairs(text, sensitive_keys), sensitive_keys)


def _end(pattern: re.Pattern[str], text: str, start: int) -> int:
    """Where ``pattern`` (one that may match nothing, so always matches) ends from
    ``start``."""
    found = pattern.match(text, start)
    assert found is not None  # each matches here: nothing at all, or the quote at start
    return found.end()


def _value_end(text: str, start: int) -> int:
    """Where the value starting at ``start`` ends (a quoted string, or bare text)."""
    if start < len(text) and text[start] in "\"'":
        return _end(_STRING[text[start]], text, start)
    return _end(_BARE_VALUE, text, start)


def _mask_pairs(text: str, sensitive_keys: frozenset[str]) -> str:
    out: list[str] = []
    position, end = 0, len(text)
    while (quote := _QUOTE.search(text, position)) is not None:
        start = quote.start()
        closed = _end(_STRING[text[start]], text, start)
        colon = _end(_SPACE, text, closed)
        if (closed - start < 2 or text[closed - 1] != text[start] or colon >= end
                or text[colon] != ":"):
            out.append(text[position:closed])
            position = closed
            continue
        value = _end(_SPACE, text, colon + 1)
        out.append(text[position:value])
        position = value
        if _secret(text[start + 1:closed - 1], sensitive_keys):
            position = _value_end(text, value)
            out.append(f'"{MASK}"')
    out.append(text[position:])
    return "".join(out)


def _mask_word_keys(text: str, sensitive_keys: frozenset[str]) -> str:
    out: list[str] = []
    position = 0
    for match in _WORD_KEY.finditer(text):
        if match.start() < position or not _secret(match.group(1), sensitive_keys):
            continue  # inside a value just masked, or not a secret
        value = match.end()
        if text.startswith(f'"{MASK}"', value):
            continue
        out.append(text[position:value])
        out.append(f'"{MASK}"')
        position = _value_end(text, value)
    out.append(text[position:])
    return "".join(out)


def may_hold_secret(text: str, sensitive_keys: frozenset[str] = _NONE) -> bool:
    """Whether argument text may hold a secret: it names one of ``sensitive_keys``, holds
    a secret name's ending (case, ``_`` and ``-`` ignored) or a ``\\u`` escape (which
    could spell either). Never false for text that holds one; cheap (no parsing)."""
    for key in sensitive_keys:
        if key in text:
            return True
    if not _may_name_a_secret(text):
        return False
    if "\\u" in text:
        return True
    folded = text.lower().replace("_", "").replace("-", "")
    # one substring search per name (in C) is much faster than a regex of alternatives
    return (any(map(folded.__contains__, _UNKEYED))
            or ("key" in folded and any(map(folded.__contains__, _KEYED))))


def mask_arguments(arguments: Any, sensitive_keys: frozenset[str] = _NONE, *,
                   as_recorded: bool = False) -> str:
    """A model's argument string as compact JSON with secrets masked.

    The text is parsed the way the executor parses it (repairs included), so a secret in
    a double-encoded or sloppy argument string is masked too; text that cannot be parsed
    is shown with the ``"key": value`` pairs of secret keys masked.

    Args:
        as_recorded: Return text that cannot hold a secret (:func:`may_hold_secret`)
            unchanged, unparsed: how a replay shows recorded arguments, at no cost for
            the calls without secrets.
    """
    if as_recorded and isinstance(arguments, str) and not may_hold_secret(arguments,
                                                                           sensitive_keys):
        return arguments
    from agentforge_cli.core.arguments import parse_arguments
    from agentforge_cli.core.jsonvalues import to_json_text
    from agentforge_cli.errors import ArgumentError

    try:
        parsed = parse_arguments(arguments)
    except ArgumentError:
        return mask_text(str(arguments), sensitive_keys)
    return to_json_text(mask_value(parsed, sensitive_keys))


_URL_SECRET_PARAMETERS = frozenset({"key", "sig", "signature", "code", "auth"})


def mask_url(text: str) -> str:
    """``text`` with the credentials of a URL in it masked: the user and password before
    ``@`` (``https://***@host/``) and the values of query parameters named like a secret
    (``?api_key=***``, also ``key``, ``sig``, ``signature``, ``code``, ``auth``). Text
    that is not an ``http(s)://`` URL is returned as it is."""
    if not text.startswith(("http://", "https://")):
        return text
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(text)
    except ValueError:  # not parsed: whatever precedes an @ may be credentials
        scheme, _, rest = text.partition("://")
        return f"{scheme}://{MASK}@{rest.rpartition('@')[2]}" if "@" in rest else text
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@" + netloc.rpartition("@")[2]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_url_secret(name) for name, _ in pairs):
            query = urlencode([(name, MASK if _url_secret(name) else value)
                               for name, value in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _url_secret(name: str) -> bool:
    return is_sensitive_name(name) or name.lower() in _URL_SECRET_PARAMETERS


def mask_values(text: str, values: Iterable[str]) -> str:
    """``text`` with every occurrence of each of ``values`` (secrets given to a server:
    ``--env`` and ``--header`` values) written as ``***``; values shorter than three
    characters are left, they would mask ordinary text."""
    for value in sorted({v for v in values if len(v) >= 3}, key=len, reverse=True):
        text = text.replace(value, MASK)
    return text
