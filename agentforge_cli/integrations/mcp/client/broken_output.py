"""A result that breaks its tool's own ``outputSchema``, as the SDK's client finds it
(it raises ``RuntimeError`` from a ``jsonschema`` ``ValidationError``): said in one line
naming the tool, where in the result, and the value (bounded), as other clients say it.
"""

from __future__ import annotations

__all__ = ["MAX_VALUE_CHARS", "broken_output"]

MAX_VALUE_CHARS = 80
"""Characters of the offending value shown at most."""


def broken_output(exc: BaseException, tool: str) -> str | None:
    """The one-line message when ``exc`` is the SDK's refusal of ``tool``'s structured
    result (``None`` for anything else)."""
    cause = exc.__cause__
    if not isinstance(exc, RuntimeError) or cause is None or not all(
            hasattr(cause, name) for name in ("absolute_path", "instance", "validator")):
        return None
    import json

    path = "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}"
                         for part in getattr(cause, "absolute_path", ()))
    try:
        value = json.dumps(getattr(cause, "instance", None), ensure_ascii=False)
    except (TypeError, ValueError):
        value = repr(getattr(cause, "instance", None))
    if len(value) > MAX_VALUE_CHARS:
        value = value[:MAX_VALUE_CHARS - 3] + "..."
    validator = str(getattr(cause, "validator", ""))
    schema = getattr(cause, "schema", {})
    expected = schema.get(validator) if isinstance(schema, dict) else None
    rule = f"{validator}: {json.dumps(expected)}" if expected is not None else validator
    line = (f'Tool "{tool}" returned structured content that breaks its outputSchema at '
            f"{path} ({rule}): {value}")
    return " ".join(line.split())
