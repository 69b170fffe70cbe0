"""The sloppy ways a model writes an argument object, besides plain JSON.

Each form turns one schema-valid argument object into the argument string a model might
send. Forms are listed simplest first: a shrunk failure moves towards ``clean``.

* ``clean`` — compact JSON;
* ``string numbers`` — every number (at any depth) as a JSON string: ``5`` -> ``"5"``;
* ``double-encoded containers`` — each top-level array or object value as a JSON string;
* ``double-encoded arguments`` — the whole argument object encoded twice;
* ``trailing commas`` — a comma before every closing ``]`` and ``}``;
* ``missing optional keys`` — the keys that are not required left out;
* ``nulls`` — every optional key that is present sent as ``null``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Any

__all__ = ["CLEAN", "FORMS", "render"]

CLEAN = "clean"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _string_numbers(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return _dumps(value)
    if isinstance(value, list):
        return [_string_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: _string_numbers(item) for key, item in value.items()}
    return value


def _trailing_commas(value: Any) -> str:
    if isinstance(value, list) and value:
        return "[" + ",".join(_trailing_commas(item) for item in value) + ",]"
    if isinstance(value, dict) and value:
        return "{" + ",".join(f"{_dumps(key)}:{_trailing_commas(item)}"
                              for key, item in value.items()) + ",}"
    return _dumps(value)


def _clean(args: dict[str, Any], required: Collection[str]) -> str:
    return _dumps(args)


def _numbers(args: dict[str, Any], required: Collection[str]) -> str:
    return _dumps(_string_numbers(args))


def _double_containers(args: dict[str, Any], required: Collection[str]) -> str:
    return _dumps({key: _dumps(value) if isinstance(value, list | dict) else value
                   for key, value in args.items()})


def _double_arguments(args: dict[str, Any], required: Collection[str]) -> str:
    return _dumps(_dumps(args))


def _commas(args: dict[str, Any], required: Collection[str]) -> str:
    return _trailing_commas(args)


def _missing(args: dict[str, Any], required: Collection[str]) -> str:
    return _dumps({key: value for key, value in args.items() if key in required})


def _nulls(args: dict[str, Any], required: Collection[str]) -> str:
    return _dumps({key: value if key in required else None for key, value in args.items()})


FORMS: dict[str, Callable[[dict[str, Any], Collection[str]], str]] = {
    CLEAN: _clean,
    "string numbers": _numbers,
    "double-encoded containers": _double_containers,
    "double-encoded arguments": _double_arguments,
    "trailing commas": _commas,
    "missing optional keys": _missing,
    "nulls": _nulls,
}
"""Form name -> writer(argument object, required keys) -> argument string."""


def render(form: str, args: dict[str, Any], required: Collection[str]) -> str:
    """The argument string of ``args`` written in ``form``."""
    return FORMS[form](args, required)
