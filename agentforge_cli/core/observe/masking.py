"""Keeping secrets out of logs, explanations, traces, reports and error messages.

The one place masking is decided. A value is secret when its key is one of the tool's
sensitive keys (parameters marked ``P(sensitive=True)``, see
:func:`~agentforge_cli.core.observe.declared_secrets.sensitive_keys`) or is
named like a secret — any case, ``_``/``-`` ignored — as the whole key or its ending
(``access_token``, ``db_password``, ``client_secret``, ``set-cookie``; not ``max_tokens``,
``tokens_used``, ``author``): ``password``, ``passwd``, ``passphrase``, ``secret``,
``token``, ``api_key``, ``authorization``, ``auth``, ``bearer``, ``jwt``, ``otp``,
``private_key`` and the other ``..._key``s of cryptography (``secret_key``, ``access_key``,
``signing_key``, ``encryption_key``, ``session_key``), ``credential(s)``, ``cookie(s)``;
the plurals ``passwords``, ``passphrases``, ``secrets``, ``api_keys``, ``private_keys`` and
the ``tokens`` of a kind of credential (``auth_tokens``, ``access_tokens``,
``refresh_tokens``, ``api_tokens``, ``bearer_tokens``, ``session_tokens``, ``csrf_tokens``,
exactly ``id_tokens``; not ``max_tokens``); or exactly ``pass``, ``pwd``. Not masked by
name: ``session``/``session_id`` (they name a session, as a ``user_id`` names a user; the
MCP transport's ``Mcp-Session-Id`` is masked by value where sessions are recorded) and
``pin`` (as often "pin a message" as a PIN) — mark such a parameter
``P(sensitive=True)``. A tool's sensitive keys match in any case, ``_``/``-`` ignored,
under their JSON key or Python name. Secrets are shown as ``***``.

Every output goes through :func:`mask_value` (parsed values, bound arguments keyed by JSON
key) or :func:`mask_arguments` (a model's argument string); :func:`mask_text` is their
fallback for text that does not parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["MASK", "fold_name", "is_secret_value", "is_sensitive_name", "mask_arguments",
           "mask_command", "mask_target", "mask_text", "mask_url", "mask_value", "mask_values",
           "may_hold_secret", "secret_values"]

MASK = "***"

_NONE: frozenset[str] = frozenset()

_SENSITIVE_ENDINGS = ("password", "passwd", "passphrase", "secret", "token", "apikey",
                      "authorization", "auth", "bearer", "jwt", "otp", "privatekey",
                      "secretkey", "accesskey", "signingkey", "encryptionkey", "sessionkey",
                      "credential", "credentials", "cookie", "cookies", "passwords",
                      "passphrases", "secrets", "apikeys", "privatekeys", "authtokens",
                      "accesstokens", "refreshtokens", "apitokens", "bearertokens",
                      "sessiontokens", "csrftokens")
_SENSITIVE_NAMES = frozenset({"pass", "pwd", "idtokens"})  # too short to match as an ending
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


def fold_name(name: str) -> str:
    """``name`` as names are compared: lower case, without ``_`` and ``-``."""
    return name.lower().replace("_", "").replace("-", "")


def is_sensitive_name(name: str) -> bool:
    """True for keys named like a secret (``password``, ``api_key``, ``access_token``,
    ``client_secret``, ``set-cookie``, ``passwords``...); not ``max_tokens``, ``author``."""
    key = fold_name(name)
    return key.endswith(_SENSITIVE_ENDINGS) or key in _SENSITIVE_NAMES


def _secret(key: object, keys: frozenset[str]) -> bool:
    return isinstance(key, str) and (key in keys or is_sensitive_name(key)
                                     or (bool(keys) and fold_name(key) in keys))


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
    if sensitive_keys and any(map(fold_name(text).__contains__, sensitive_keys)):
        return True  # a key in another case or spelling (the keys hold their folded forms)
    if not _may_name_a_secret(text):
        return False
    if "\\u" in text:
        return True
    folded = fold_name(text)
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
    from agentforge_cli.core.bind.arguments import parse_arguments
    from agentforge_cli.core.bind.jsonvalues import to_json_text
    from agentforge_cli.errors import ArgumentError

    try:
        parsed = parse_arguments(arguments)
    except ArgumentError:
        return mask_text(str(arguments), sensitive_keys)
    return to_json_text(mask_value(parsed, sensitive_keys))


_URL_SECRET_PARAMETERS = frozenset({"key", "sig", "signature", "code", "auth"})
_URL_SECRET_ENDINGS = ("signature", "credential")  # X-Amz-Signature, X-Goog-Credential
_URL_PARAMETER = re.compile(r"(?:^|(?<=[?&;#]))([^=&;#]*)=([^&;#]*)")
"""A ``name=value`` pair of a query or fragment (split at ``&`` and at ``;``)."""


def mask_url(text: str) -> str:
    """``text`` with the credentials of a URL in it masked: the user and password before
    ``@`` (``https://***@host/``) and the values of query or fragment parameters named like
    a secret (``?api_key=***``, ``#access_token=***``, also ``key``, ``sig``,
    ``signature``, ``code``, ``auth`` and names ending in ``signature`` or ``credential``
    such as ``X-Amz-Signature``), pairs split at ``&`` or ``;``. Only the values change.
    Text that is not an ``http(s)://`` URL (in any case) is returned as it is."""
    if not text[:8].lower().startswith(("http://", "https://")):
        return text
    scheme, _, rest = text.partition("://")
    end = min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))
    netloc, tail = rest[:end], rest[end:]
    if "@" in netloc:
        netloc = f"{MASK}@" + netloc.rpartition("@")[2]
    if "?" in tail or "#" in tail:
        path, mark, parameters = tail.partition("?") if "?" in tail else tail.partition("#")
        tail = path + mark + _URL_PARAMETER.sub(_masked_parameter, parameters)
    return f"{scheme}://{netloc}{tail}"


def _masked_parameter(pair: re.Match[str]) -> str:
    name = pair.group(1)
    from urllib.parse import unquote

    plain = unquote(name).lower()
    if (is_sensitive_name(plain) or plain in _URL_SECRET_PARAMETERS
            or fold_name(plain).endswith(_URL_SECRET_ENDINGS)):
        return f"{name}={MASK}"
    return pair.group(0)


_SECRET_FLAG = re.compile(r"^(--?[\w-]+)(=.*)?$")


def mask_command(words: Iterable[str]) -> list[str]:
    """A command line's words with secrets masked: the value after a flag named like a
    secret (``--token abc``, ``--api-key=abc``, ``-password abc``) and the credentials of
    a URL among them."""
    out: list[str] = []
    after_flag = False
    for word in words:
        flag = _SECRET_FLAG.match(word)
        if after_flag and not word.startswith("-"):
            out.append(MASK)
        elif flag is not None and is_sensitive_name(flag.group(1).lstrip("-")):
            out.append(f"{flag.group(1)}={MASK}" if flag.group(2) else word)
            after_flag = not flag.group(2)
            continue
        else:
            out.append(mask_url(word))
        after_flag = False
    return out


def mask_target(target: str) -> str:
    """A target as messages show it: a URL with :func:`mask_url`, an ``mcp:`` command line
    with :func:`mask_command` (its words rejoined with single spaces)."""
    if target.startswith("mcp:"):
        return "mcp:" + " ".join(mask_command(target[4:].split()))
    return mask_url(target)


_COMMON_VALUES = frozenset({"true", "false", "enabled", "disabled", "production",
                            "development", "localhost", "staging", "default", "undefined"})
_SHORTEST_SECRET_VALUE = 8
_NOT_A_SECRET_VALUE = re.compile(r"[\d\W_]*")  # numbers, dates, versions, addresses


def is_secret_value(value: str) -> bool:
    """Whether a value given to a server is worth hunting down in everything it writes: at
    least 8 characters, not only digits and punctuation (``1``, ``2025-06-18``,
    ``10.0.0.1``) and not a common word (``true``, ``production``, ``localhost``). A
    shorter or commoner value would mask ordinary text and break the recording."""
    value = value.strip()
    return (len(value) >= _SHORTEST_SECRET_VALUE and value.lower() not in _COMMON_VALUES
            and _NOT_A_SECRET_VALUE.fullmatch(value) is None)


def secret_values(env: Mapping[str, str] | None = None,
                  headers: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The values given to a server that are masked wherever they appear: those of
    ``env`` variables named like a secret (``API_TOKEN``, ``DB_PASSWORD``; not ``DEBUG``)
    and of every header (and the credentials after an ``Authorization`` scheme such as
    ``Bearer``), each kept only when :func:`is_secret_value`."""
    found = [value for name, value in (env or {}).items() if is_sensitive_name(name)]
    for value in (headers or {}).values():
        found += [value, value.strip().partition(" ")[2]]
    return tuple(dict.fromkeys(value.strip() for value in found if is_secret_value(value)))


def mask_values(text: str, values: Iterable[str]) -> str:
    """``text`` with every occurrence of each of ``values`` (secrets given to a server)
    written as ``***``, longest first; only values :func:`is_secret_value` accepts (a
    shorter or commoner one would mask ordinary text)."""
    for value in sorted({v for v in values if is_secret_value(v)}, key=len, reverse=True):
        text = text.replace(value, MASK)
    return text
