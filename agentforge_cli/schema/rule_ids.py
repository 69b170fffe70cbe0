"""Every lint rule id ``tools check`` can report about one tool, so that a silencing
(``@tool(lint_ignore=...)``, ``[tool.agentforge.lint] ignore``) naming a rule that does
not exist is refused instead of silencing nothing.

A provider's rules read ``<provider>:<rule>``: ``<provider>`` is a registered provider
and ``<rule>`` one of :data:`PROVIDER_RULES` (what the built-in providers' exports and
lint rules report; the test suite checks the list against them). A client's read
``<client>:<kind>``, a kind of :data:`~agentforge_cli.schema.clients.RULE_KINDS`.
"""

from __future__ import annotations

__all__ = ["BUDGET_RULES", "MCP_TASK_REQUIRED", "MCP_TOOL_UNUSABLE", "NEUTRAL_RULES",
           "PROVIDER_RULES", "rule_problem"]

NEUTRAL_RULES = frozenset({
    "schema-invalid", "root-not-object", "unresolved-ref", "ref-cycle", "duplicate-name",
    "invalid-default", "no-description", "single-enum", "any-type", "mutable-default",
})
"""The provider-neutral rules (``jsonschema-missing`` is about the run, not a tool)."""

PROVIDER_RULES = frozenset({
    "name", "parameter-name",
    "all-of", "array-without-items", "boolean-schema", "dropped-keyword", "exclusive-bound",
    "free-form-object", "invalid-schema", "mapping-values-dropped", "non-string-enum",
    "null-only", "one-of", "one-of-dropped", "recursive-ref", "recursive-type", "ref-crash",
    "ref-sent-unresolved", "ref-siblings-dropped", "too-deep", "too-many-properties",
    "tuple-positions", "type-list-dropped", "unique-items", "unsupported-format",
    "unsupported-keyword", "untyped-items", "untyped-value",
})
"""What follows ``<provider>:`` in a provider's rule ids."""

BUDGET_RULES = frozenset({"tool-tokens", "set-tokens", "result-tokens"})
"""What a budget of ``[tool.agentforge.budget]`` reports (see ``schema.budget``)."""

MCP_TOOL_UNUSABLE = "mcp:tool-unusable"
"""A tool an MCP server lists that cannot be used (left out)."""
MCP_TASK_REQUIRED = "mcp:task-required"
"""A tool an MCP server says must be called as a task."""
_SERVER_RULES = frozenset({MCP_TOOL_UNUSABLE, MCP_TASK_REQUIRED})
_TOOL_RULES = NEUTRAL_RULES | _SERVER_RULES | BUDGET_RULES


def rule_problem(rule: str) -> str | None:
    """``None`` when ``rule`` is a rule id a finding about a tool can carry, else what is
    wrong with it (with the closest id, when one is close)."""
    from agentforge_cli.schema.providers import PROVIDERS

    if not isinstance(rule, str):
        return f"a rule id is a string, got {rule!r}"
    if rule in _TOOL_RULES:
        return None
    provider, colon, suffix = rule.partition(":")
    if colon and provider in PROVIDERS and suffix in PROVIDER_RULES:
        return None
    from agentforge_cli.schema.clients import RULE_KINDS, client_names

    if colon and provider in client_names() and suffix in RULE_KINDS:
        return None
    import difflib

    known = [*sorted(NEUTRAL_RULES), *sorted(_SERVER_RULES), *sorted(BUDGET_RULES),
             *(f"{name}:{suffix}" for name in PROVIDERS for suffix in sorted(PROVIDER_RULES)),
             *(f"{name}:{kind}" for name in client_names() for kind in RULE_KINDS)]
    close = difflib.get_close_matches(rule, known, n=1)
    guess = f" (did you mean {close[0]!r}?)" if close else ""
    if colon and provider not in PROVIDERS and provider not in client_names():
        why = (f"no provider is named {provider!r}; the providers: {', '.join(PROVIDERS)}; "
               f"nor a client; the clients: {', '.join(client_names())}")
    elif colon and provider in client_names():
        why = f"the client {provider} has no rule {suffix!r}"
    elif colon:
        why = f"{provider} has no rule {suffix!r}"
    else:
        why = (f"the provider-neutral rules are: {', '.join(sorted(NEUTRAL_RULES))}; a "
               "provider's rules are written <provider>:<rule>, e.g. "
               "gemini:free-form-object")
    return f"unknown lint rule {rule!r}{guess}: {why}"
