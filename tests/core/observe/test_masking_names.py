"""Which names are secrets (a table, both ways), Python-dict style argument text, and
masking in linear time whatever the text holds."""

from __future__ import annotations

import time

import pytest

from agentforge_cli.core.observe.masking import (
    MASK,
    is_sensitive_name,
    mask_arguments,
    mask_text,
    may_hold_secret,
)

MASKED = ["password", "db_password", "passwd", "passphrase", "key_passphrase", "secret",
          "client_secret", "token", "access_token", "api_key", "x-api-key", "apiKey",
          "authorization", "Proxy-Authorization", "auth", "basic_auth", "oauth", "bearer",
          "jwt", "id_jwt", "otp", "totp", "pass", "pwd", "private_key",
          "privateKey", "secret_key", "aws_secret_access_key", "signing_key",
          "encryption_key", "session_key", "credential", "credentials", "cookie",
          "set-cookie", "Set-Cookie", "cookies", "passwords", "db_passwords", "secrets",
          "client_secrets", "passphrases", "api_keys", "private_keys", "auth_tokens",
          "access_tokens", "refresh_tokens", "api_tokens", "bearer_tokens",
          "session_tokens", "csrf_tokens", "id_tokens", "oauth_tokens", "AuthTokens"]
NOT_MASKED = ["tokens_used", "max_tokens", "token_count", "author", "authority",
              "authored_by", "passenger", "passport_country", "pinned", "spin", "shipping",
              "session_id", "session", "sessions", "pin", "user_id", "keyword", "monkey",
              "key", "public_key_id", "door", "description", "pincode", "optional",
              "input_tokens", "output_tokens", "prompt_tokens", "total_tokens",
              "valid_tokens", "tokens", "num_tokens", "secretary", "passwordless"]


@pytest.mark.parametrize("name", MASKED)
def test_named_like_a_secret(name) -> None:
    assert is_sensitive_name(name)
    assert mask_text(f'{{"{name}": "s3cr3t", "n": 1}}') == f'{{"{name}": "{MASK}", "n": 1}}'
    assert may_hold_secret(f'{{"{name}": "s3cr3t"}}')


@pytest.mark.parametrize("name", NOT_MASKED)
def test_not_named_like_a_secret(name) -> None:
    assert not is_sensitive_name(name)
    assert mask_text(f'{{"{name}": "plain", "n": 1}}') == f'{{"{name}": "plain", "n": 1}}'


@pytest.mark.parametrize(("text", "masked"), [
    ("{'password': 'hunter2', 'user': 'al'}", "{'password': \"***\", 'user': 'al'}"),
    ("{'otp': 1234}", "{'otp': \"***\"}"),
    ("here's the call: {'api_key': 'k-1', 'q': 'x'}",
     "here's the call: {'api_key': \"***\", 'q': 'x'}"),
    ("{'note': \"it's\", 'password': 'x'}", "{'note': \"it's\", 'password': \"***\"}"),
    ("it's {\"token\": \"t-1\"}", "it's {\"token\": \"***\"}"),
    ('{"client_secret": "a\\"b", "n": 2', '{"client_secret": "***", "n": 2'),
])
def test_python_dict_style_text_is_masked(text, masked) -> None:
    assert mask_text(text) == masked


def test_python_dict_style_arguments_are_masked() -> None:
    shown = mask_arguments("{'user': 'al', 'passphrase': 'open sesame'}")
    assert "open sesame" not in shown and "al" in shown


def _fastest(text: str) -> float:
    """The fastest of three maskings of ``text``, in seconds (the least disturbed by load)."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        mask_text(text)
        times.append(time.perf_counter() - started)
    return min(times)


@pytest.mark.parametrize("unit", [
    '\\"',  # a double-encoded string's run of escaped quotes, after one '"'
    "a",  # a quote that never closes, after one "'"
    "'a':",  # keys without values
    '"x": ',
])
def test_masking_is_linear(unit: str) -> None:
    # Four times the text takes about four times as long in linear time, sixteen in
    # quadratic: the ratio, not a wall-clock limit, so a loaded machine cannot fail it.
    lead = {'\\"': '"', "a": "'"}.get(unit, "")
    small = lead + unit * 50_000
    large = lead + unit * 200_000
    assert _fastest(large) < 9 * _fastest(small) + 0.01
