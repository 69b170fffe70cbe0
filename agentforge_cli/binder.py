"""The per-tool binder: a specialised function generated once, at registration.

For a tool ``queryCustomer(name: str, limit: int)`` the generated binder reads::

    def bind(args):
        v = args.get('name')
        if v.__class__ is not str:
            v = slow_0(v)
        a0 = v
        v = args.get('limit')
        if v.__class__ is not int:
            v = slow_1(v)
        a1 = v
        return (a0, a1)

so a value whose JSON type already is the target type costs one dict lookup and one type
check; everything else (missing, null, coercion, errors with their path) happens in the
per-parameter ``slow_i`` built from the type handler. Generated code contains only
identifiers and ``repr`` of JSON keys — never user text as code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentforge_cli.definition import ParamDef, ToolDefinition
from agentforge_cli.errors import ArgumentError

__all__ = ["Binder", "make_binder", "make_invoker"]

Binder = Callable[[dict], tuple]


def _slow_path(tool: str, param: ParamDef, strict: bool) -> Callable[[Any], Any]:
    """Missing/null handling and coercion for one parameter (SPEC 4.2, 4.3)."""
    coerce = param.handler.coerce
    key = param.key
    if strict and param.required:
        missing_message = f'Required parameter "{key}" of tool "{tool}" is missing'

        def missing() -> Any:
            raise ArgumentError(missing_message, tool=tool, expected=param.handler.label)
    else:
        value = param.missing_value()
        if isinstance(value, list | dict | set):  # never share a mutable default's copy
            def missing() -> Any:
                return param.missing_value()
        else:
            def missing() -> Any:
                return value

    def slow(raw: Any) -> Any:
        if raw is None:
            return missing()
        try:
            return coerce(raw)
        except ArgumentError as error:
            error.at(key)
            raise

    return slow


def _unknown_keys_check(tool: str, keys: frozenset[str]) -> Callable[[dict], None]:
    shown = ", ".join(sorted(keys)) or "none"

    def check(args: dict) -> None:
        unknown = [k for k in args if k not in keys]
        if unknown:
            listed = ", ".join(f'"{k}"' for k in unknown)
            raise ArgumentError(
                f'Tool "{tool}" has no parameter {listed} (parameters: {shown})', tool=tool)

    return check


def make_binder(definition: ToolDefinition, *, strict: bool = False) -> Binder:
    """Generate ``bind(args: dict) -> tuple`` of the values for each parameter, in order."""
    namespace: dict[str, Any] = {}
    lines = ["def bind(args):"]
    get = "args.get"
    for index, param in enumerate(definition.params):
        namespace[f"slow_{index}"] = _slow_path(definition.name, param, strict)
        lines.append(f"    v = {get}({param.key!r})")
        fast = param.handler.fast_type
        if fast is not None:
            namespace[f"fast_{index}"] = fast
            lines.append(f"    if v.__class__ is not fast_{index}:")
            lines.append(f"        v = slow_{index}(v)")
        else:
            lines.append(f"    v = slow_{index}(v)")
        lines.append(f"    a{index} = v")
    if strict:
        namespace["check_unknown"] = _unknown_keys_check(
            definition.name, frozenset(p.key for p in definition.params))
        lines.append("    if not KEYS.issuperset(args):")
        lines.append("        check_unknown(args)")
        namespace["KEYS"] = frozenset(p.key for p in definition.params)
    values = ", ".join(f"a{i}" for i in range(len(definition.params)))
    lines.append(f"    return ({values}{',' if len(definition.params) == 1 else ''})")
    exec("\n".join(lines), namespace)
    return namespace["bind"]


def make_invoker(definition: ToolDefinition) -> Callable[[tuple], Any]:
    """Generate ``invoke(values) -> result``: the call, positional and keyword as declared."""
    parts = []
    for index, param in enumerate(definition.params):
        parts.append(f"{param.name}=v[{index}]" if param.keyword_only else f"v[{index}]")
    namespace = {"call": definition.call}
    exec(f"def invoke(v):\n    return call({', '.join(parts)})", namespace)
    return namespace["invoke"]
