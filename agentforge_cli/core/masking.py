"""Keeping secrets out of logs, explanations, reports and error messages.

A value is secret when its parameter is marked ``P(sensitive=True)`` or its key is named
like a secret: ``password``, ``passwd``, ``secret``, ``token``, ``api_key``/``apikey``,
``authorization``, ``private_key``, ``credential`` — any case, ``_``/``-`` ignored, as the
whole key or its ending (``access_token``, ``db_password``; not ``max_tokens``). Secrets
are shown as ``***``.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MASK", "is_sensitive_name", "mask_text", "mask_value"]

MASK = "***"

_SENSITIVE_ENDINGS = ("password", "passwd", "secret", "token", "apikey", "authorization",
                      "privatekey", "credential", "credentials")

_KEY_VALUE = re.compile(
    r'("(?P<key>(?:[^"\\]|\\.)*)"\s*:\s*)'
    r'(?P<value>"(?:[^"\\]|\\.)*"?|[^,}\]\s]+)')


def is_sensitive_name(name: str) -> bool:
    """True for keys named like a secret (``password``, ``api_key``, ``access_token``...)."""
    key = name.lower().replace("_", "").replace("-", "")
    return key.endswith(_SENSITIVE_ENDINGS)


def mask_value(value: Any, sensitive_keys: frozenset[str] = frozenset()) -> Any:
    """Return a parsed JSON value with secrets replaced by ``***`` (at any depth)."""
    if isinstance(value, dict):
        return {
            key: MASK if (key in sensitive_keys or (isinstance(key, str)
                                                    and is_sensitive_name(key)))
            else mask_value(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_value(item) for item in value]
    return value


def mask_text(text: str, sensitive_keys: frozenset[str] = frozenset()) -> str:
    """Mask ``"key": value`` pairs of secret keys in text that may not parse as JSON."""

    def replace(match: re.Match[str]) -> str:
        key = match.group("key")
        if key in sensitive_keys or is_sensitive_name(key):
            return f'{match.group(1)}"{MASK}"'
        return match.group(0)

    return _KEY_VALUE.sub(replace, text)
