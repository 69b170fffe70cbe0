"""Keeping secrets out of logs, explanations, traces, reports and error messages.

The one place masking is decided. A value is secret when its key is one of the tool's
sensitive keys (parameters marked ``P(sensitive=True)``, see :func:`sensitive_keys`) or is
named like a secret: ``password``, ``passwd``, ``secret``, ``token``, ``api_key``/``apikey``,
``authorization``, ``private_key``, ``credential`` — any case, ``_``/``-`` ignored, as the
whole key or its ending (``access_token``, ``db_password``; not ``max_tokens``). Secrets are
shown as ``***``.

Every output goes through :func:`mask_value` (parsed values, bound arguments keyed by JSON
key) or :func:`mask_arguments` (a model's argument string); :func:`mask_text` is their
fallback for text that does not parse.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MASK", "is_sensitive_name", "mask_arguments", "mask_text", "mask_value",
           "may_hold_secret", "sensitive_keys", "tool_sensitive_keys"]

MASK = "***"

_NONE: frozenset[str] = frozenset()

_SENSITIVE_ENDINGS = ("password", "passwd", "secret", "token", "apikey", "authorization",
                      "privatekey", "credential", "credentials")
_FIND_ENDING = re.compile("|".join(_SENSITIVE_ENDINGS)).search  # one scan, not one per ending

_KEY_VALUE = re.compile(
    r'("(?P<key>(?:[^"\\]|\\.)*)"\s*:\s*)'
    r'(?P<value>"(?:[^"\\]|\\.)*"?|[^,}\]\s]+)')


def is_sensitive_name(name: str) -> bool:
    """True for keys named like a secret (``password``, ``api_key``, ``access_token``...)."""
    key = name.lower().replace("_", "").replace("-", "")
    return key.endswith(_SENSITIVE_ENDINGS)


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
    if isinstance(value, str) and '"' in value:
        return mask_text(value)  # JSON text in a string (an object bound to a str)
    return value


def mask_text(text: str, sensitive_keys: frozenset[str] = _NONE) -> str:
    """Mask ``"key": value`` pairs of secret keys in text that may not parse as JSON."""

    def replace(match: re.Match[str]) -> str:
        if _secret(match.group("key"), sensitive_keys):
            return f'{match.group(1)}"{MASK}"'
        return match.group(0)

    return _KEY_VALUE.sub(replace, text)


def may_hold_secret(text: str, sensitive_keys: frozenset[str] = _NONE) -> bool:
    """Whether argument text may hold a secret: it names one of ``sensitive_keys``, holds
    a secret name's ending (case, ``_`` and ``-`` ignored) or a ``\\u`` escape (which
    could spell either). Never false for text that holds one; cheap (no parsing)."""
    if "\\u" in text:
        return True
    for key in sensitive_keys:
        if key in text:
            return True
    folded = text.lower().replace("_", "").replace("-", "")
    return _FIND_ENDING(folded) is not None


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
