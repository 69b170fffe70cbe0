"""The argument string -> a dict: strict first, then string-aware repair.

1. Empty, blank or ``null`` -> no arguments.
2. Strict JSON. An object is the result; a string holding an object (the whole object
   encoded twice) is decoded once more.
3. Only when strict parsing fails: strip one pair of surrounding quotes and undo one level
   of escaping, drop trailing commas before ``}``/``]`` outside string literals, parse again.
4. Anything else is an :class:`~agentforge_cli.errors.ArgumentError` naming what was
   received and where parsing stopped.

Non-standard constants (``NaN``, ``Infinity``), nesting deeper than the interpreter takes,
integers with more digits than Python converts and strings over ``max_chars`` are argument
errors too. Numbers with a fraction or exponent stay exact (:class:`JsonFloat`).
Duplicate keys: the last one wins, as in ``json``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from agentforge_cli.core.bind.jsonvalues import describe, json_type, make_json_float
from agentforge_cli.errors import ArgumentError

__all__ = [
    "DEFAULT_MAX_ARGUMENT_CHARS",
    "DEFAULT_MAX_DEPTH",
    "argument_repairs",
    "loads_exact",
    "parse_arguments",
    "scan_object",
    "strip_one_layer",
]

DEFAULT_MAX_ARGUMENT_CHARS = 1_048_576
"""Default limit on the length of an argument string (characters)."""

DEFAULT_MAX_DEPTH = 100
"""Default limit on how deeply arrays and objects may nest in the arguments."""


def _refuse_constant(name: str) -> float:
    raise _ConstantError(name)


class _ConstantError(ValueError):
    pass


_STRICT = json.JSONDecoder(parse_float=make_json_float, parse_constant=_refuse_constant)
_LENIENT = json.JSONDecoder(
    parse_float=make_json_float, parse_constant=_refuse_constant, strict=False
)
scan_object: Callable[[str, int], tuple[Any, int]]
scan_object = _STRICT.scan_once  # type: ignore[attr-defined]  # set by __init__, not in typeshed
"""``scan_object(text, index) -> (value, end)``: the strict scanner with exact numbers."""
_scan = scan_object

_STRING_OR_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,(\s*[}\]])', re.DOTALL)
_ONE_ESCAPE = re.compile(r'\\(["\\/])')


def loads_exact(text: str, *, lenient: bool = False) -> object:
    """Parse JSON text keeping exact numbers.

    Raises:
        ArgumentError: For every way the text can fail, with a clear message.
    """
    decoder = _LENIENT if lenient else _STRICT
    try:
        return decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise ArgumentError(
            # json's "Unterminated string starting at" already ends with "at"
            f"could not be parsed as JSON: {exc.msg.removesuffix(' at')} at line {exc.lineno}"
            f" column {exc.colno}"
            f" (char {exc.pos}); received: {describe(text)}",
            received=text,
        ) from None
    except _ConstantError as exc:
        raise ArgumentError(
            f"contain the non-standard JSON constant {exc.args[0]}, which is refused",
            received=text,
        ) from None
    except RecursionError:
        raise ArgumentError("are nested too deeply to parse", received=None) from None
    except ValueError as exc:  # int() refusing a huge literal (sys.get_int_max_str_digits)
        raise ArgumentError(
            f"contain a number that cannot be converted ({exc})", received=None
        ) from None


def strip_one_layer(text: str) -> str:
    """Strip one pair of surrounding quotes and undo one level of escaping."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    return _ONE_ESCAPE.sub(r"\1", text)


def _drop_trailing_commas(text: str) -> str:
    return _STRING_OR_TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), text)


def _repair(text: str) -> str:
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "\"'":
        stripped = strip_one_layer(stripped)
    return _drop_trailing_commas(stripped)


def argument_repairs(text: str | None) -> tuple[str, ...]:
    """What :func:`parse_arguments` does to ``text`` beyond strict JSON, in words
    (``--explain``): the object decoded a second time, quotes and escaping removed,
    trailing commas dropped. ``()`` for strict JSON, and for text it refuses."""
    if text is None or not text.strip():
        return ()
    said: list[str] = []

    def decoded(part: str) -> object:
        try:
            return loads_exact(part)
        except ArgumentError:
            pass
        stripped = part.strip()
        quoted = len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "\"'"
        unquoted = strip_one_layer(stripped) if quoted else stripped
        if unquoted != stripped:
            said.append("surrounding quotes and one level of escaping removed")
        if _drop_trailing_commas(unquoted) != unquoted:
            said.append("trailing commas dropped")
        try:
            return loads_exact(_repair(part), lenient=True)
        except ArgumentError:
            return None

    value = decoded(text.strip())
    if type(value) is str and value.strip()[:1] == "{":
        said.insert(0, "the object was encoded twice (a JSON string holding it): decoded "
                       "once more")
        value = decoded(value.strip())
    return tuple(said) if type(value) is dict else ()


def parse_arguments(
    arguments: str | dict[str, Any] | None,
    *,
    max_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> dict[str, Any]:
    """Parse a model's argument string into a dict (strict JSON, then repair).

    Args:
        arguments: The raw JSON string (a dict is accepted as already parsed, ``None`` as
            no arguments).
        max_chars: Longest argument string accepted.
        max_depth: Deepest nesting of arrays and objects accepted.

    Returns:
        The arguments object; numbers with a fraction or exponent are ``JsonFloat``.

    Raises:
        ArgumentError: When the text is not, and cannot be repaired into, a JSON object.
    """
    if type(arguments) is str:
        # Fast path: a well-formed object, no surrounding whitespace.
        if arguments[:1] == "{" and len(arguments) <= max_chars:
            try:
                value, end = _scan(arguments, 0)
            except (StopIteration, ValueError, RecursionError):
                pass
            else:
                if end == len(arguments) and type(value) is dict:
                    if arguments.count("{") + arguments.count("[") > max_depth:
                        _check_depth(value, max_depth)
                    return value
        value = _parse_slow(arguments, max_chars)
        if arguments.count("{") + arguments.count("[") > max_depth:
            _check_depth(value, max_depth)
        return value
    if arguments is None:
        return {}
    if isinstance(arguments, dict):
        _refuse_non_finite(arguments)  # parsed elsewhere (MCP): the rule of the text path
        return arguments
    raise ArgumentError(
        f"Arguments must be a JSON string, received a Python {type(arguments).__name__}",
        received=arguments,
    )


def _refuse_non_finite(value: dict[str, Any]) -> None:
    """Refuse ``NaN``/``Infinity`` anywhere in arguments parsed by someone else (an MCP
    client's JSON parser accepts them), as :func:`loads_exact` refuses them in text."""
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:  # type: ignore[attr-defined]  # a dict or a list, pushed below
            kind = type(child)
            if kind is dict or kind is list:
                stack.append(child)
            elif kind is float and child - child != 0.0:  # NaN and the infinities
                name = "NaN" if child != child else ("Infinity" if child > 0 else "-Infinity")
                raise ArgumentError(
                    f"Arguments contain the non-standard JSON constant {name}, which is"
                    " refused", received=None)


def _check_depth(value: dict[str, Any], max_depth: int) -> None:
    """Refuse arrays/objects nested deeper than ``max_depth`` (iterative: no recursion)."""
    level: list[dict[str, Any] | list[Any]] = [value]
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            raise ArgumentError(
                f"Arguments are nested more than {max_depth} levels deep", received=None)
        nested: list[dict[str, Any] | list[Any]] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            nested.extend(c for c in children if type(c) is dict or type(c) is list)
        level = nested


def _parse_slow(text: str, max_chars: int) -> dict[str, Any]:
    if len(text) > max_chars:
        raise ArgumentError(
            f"Arguments are too long: {len(text)} characters, the limit is {max_chars}",
            received=None)
    stripped = text.strip()
    if not stripped or stripped == "null":
        return {}
    value = _decode_or_repair(stripped)
    if type(value) is str:  # the whole object encoded twice
        inner = value.strip()
        if inner[:1] == "{":
            value = _decode_or_repair(inner)
        elif not inner or inner == "null":
            return {}
    if type(value) is dict:
        return value
    raise ArgumentError(
        f"Arguments must be a JSON object, received a JSON {json_type(value)}: "
        f"{describe(value)}",
        received=value,
    )


def _decode_or_repair(text: str) -> object:
    """Strict JSON first; only if that fails, the string-aware repair (step 3 above)."""
    try:
        return loads_exact(text)
    except ArgumentError as first:
        if not first.problem.startswith("could not be parsed"):
            raise _arguments_error(first) from None
        repaired = _repair(text)  # may be unchanged: lenient parsing still admits raw
        try:                      # control characters (a NUL, a newline) inside strings
            return loads_exact(repaired, lenient=True)
        except ArgumentError:
            raise _arguments_error(first) from None


def _arguments_error(cause: ArgumentError) -> ArgumentError:
    return ArgumentError(f"Arguments {cause.problem}", received=cause.received)
