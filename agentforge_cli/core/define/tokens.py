"""Token counts for budgets: which tokenizer each provider's export is measured with.

:data:`TOKENIZERS` is the one table: a provider listed there is counted with that
``tiktoken`` encoding; any other provider (Anthropic and Gemini publish no tokenizer that
runs offline) gets an estimate, one token per four characters, and says so. ``tiktoken``
is imported only when a count is asked for, and its encoding is used only when it is
already in tiktoken's local cache: tiktoken downloads an encoding on first use, and a
budget check must not reach the network (nor give different numbers depending on
whether it could). When the encoding is not cached, the count is the estimate, labelled.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = ["CHARS_PER_TOKEN", "TOKENIZERS", "SizeStats", "TokenCounter", "estimate_tokens",
           "size_stats", "token_counter"]

CHARS_PER_TOKEN = 4
"""The estimate's ratio: one token per four characters (rounded up)."""

TOKENIZERS: dict[str, str] = {
    "openai": "o200k_base",
    "openai-strict": "o200k_base",
    "openai-responses": "o200k_base",
    "openai-responses-strict": "o200k_base",
}
"""Provider -> the ``tiktoken`` encoding its models use (GPT-4o and later)."""

_ENCODING_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
"""Where tiktoken downloads an encoding from; its cache file is named by this URL's SHA-1."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TokenCounter:
    """How one provider's text is counted."""

    label: str
    """``tiktoken o200k_base``, or ``estimate (characters/4)`` with why when one was
    wanted."""
    estimate: bool
    """The count is the characters/4 estimate, not a tokenizer's."""
    count: Callable[[str], int]
    """Text -> its tokens."""


def estimate_tokens(text: str) -> int:
    """One token per :data:`CHARS_PER_TOKEN` characters, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


_ESTIMATE = f"estimate (characters/{CHARS_PER_TOKEN})"


def token_counter(provider: str) -> TokenCounter:
    """The counter for ``provider``'s export (see the module docstring)."""
    encoding = TOKENIZERS.get(provider)
    if encoding is None:
        return TokenCounter(label=_ESTIMATE, estimate=True, count=estimate_tokens)
    encoder = _cached_encoding(encoding)
    if encoder is None:
        return TokenCounter(label=f"{_ESTIMATE}: tiktoken {encoding} not available offline",
                            estimate=True, count=estimate_tokens)

    def count(text: str) -> int:
        return len(encoder.encode(text, disallowed_special=()))

    return TokenCounter(label=f"tiktoken {encoding}", estimate=False, count=count)


def _cached_encoding(name: str) -> Any:
    """The tiktoken encoding ``name`` when tiktoken is installed and the encoding is in its
    cache (found as tiktoken finds it: ``TIKTOKEN_CACHE_DIR``, ``DATA_GYM_CACHE_DIR``, or
    ``data-gym-cache`` in the temporary directory); else ``None``."""
    directory = (os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
                 or os.path.join(tempfile.gettempdir(), "data-gym-cache"))
    key = hashlib.sha1(_ENCODING_URL.format(name).encode()).hexdigest()
    if not os.path.isfile(os.path.join(directory, key)):
        return None
    return _load(name)


@cache
def _load(name: str) -> Any:
    try:
        import tiktoken

        return tiktoken.get_encoding(name)
    except Exception:  # a broken cache file, an old tiktoken: fall back to the estimate
        return None


@dataclass(frozen=True, kw_only=True, slots=True)
class SizeStats:
    """The sizes of a tool's recorded results: p50, p95 and the largest, in characters
    and in tokens (nearest-rank percentiles)."""

    count: int
    """How many results were measured."""
    chars: tuple[int, int, int]
    """p50, p95, max characters."""
    tokens: tuple[int, int, int]
    """p50, p95, max tokens."""


def size_stats(texts: list[str], count: Callable[[str], int] = estimate_tokens) -> SizeStats:
    """:class:`SizeStats` of ``texts`` (at least one), tokens counted with ``count``."""
    chars = sorted(len(text) for text in texts)
    tokens = sorted(count(text) for text in texts)
    return SizeStats(count=len(texts), chars=_summary(chars), tokens=_summary(tokens))


def _summary(ordered: list[int]) -> tuple[int, int, int]:
    def rank(fraction: float) -> int:
        return ordered[max(math.ceil(fraction * len(ordered)) - 1, 0)]

    return rank(0.5), rank(0.95), ordered[-1]
