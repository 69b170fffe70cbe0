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

import functools
from collections.abc import Callable
from types import CodeType
from typing import TYPE_CHECKING, Any, Protocol

from agentforge_cli.core.definition import ParamDef, ToolDefinition
from agentforge_cli.core.masking import MASK, is_sensitive_name, mask_text
from agentforge_cli.errors import ArgumentError

if TYPE_CHECKING:
    from agentforge_cli.core.spec import ToolExecutionRequest, ToolExecutionResult

__all__ = ["Binder", "FastExecute", "make_binder", "make_execute", "make_invoker",
           "missing_note", "param_binder", "tool_argument_error"]

Binder = Callable[[dict[str, Any]], tuple[Any, ...]]


class FastExecute(Protocol):
    """What :func:`make_execute` generates: ``execute(request, memory_id=None)``, with
    ``remade(call, parse, on_argument_error, on_failure, finish)``."""

    remade: Callable[..., FastExecute]

    def __call__(self, request: ToolExecutionRequest, memory_id: object = None
                 ) -> ToolExecutionResult: ...


def param_binder(tool: str, param: ParamDef, strict: bool) -> Callable[[Any], Any]:
    """``bind(raw) -> value`` for one parameter: missing/null handling and coercion;
    errors carry the parameter's path, with secrets masked."""
    coerce = param.handler.coerce
    key = param.key
    if strict and param.required:
        missing_message = f'Required parameter "{key}" of tool "{tool}" is missing'

        def missing() -> Any:
            raise ArgumentError(missing_message, tool=tool, expected=param.handler.label)
    else:
        value = param.missing_value()

        def missing() -> Any:
            return value

    sensitive = param.sensitive

    def slow(raw: Any) -> Any:
        if raw is None:
            return missing()
        try:
            return coerce(raw)
        except ArgumentError as error:
            error.at(key)
            if sensitive or _names_a_secret(error.path):
                error.mask_received()
            raise

    return slow


def tool_argument_error(error: ArgumentError, tool: str, sensitive_keys: frozenset[str]
                        ) -> ArgumentError:
    """``error`` as a call of ``tool`` reports it: the tool named, and a parse error's echo
    of the argument text masked (a binding error masked its value where it was raised)."""
    error.tool = tool
    if not error.path:
        error.problem = mask_text(error.problem, sensitive_keys)
    return error


def missing_note(definition: ToolDefinition, strict: bool, args: dict[str, Any]) -> str:
    """What a lenient binding filled in for missing required parameters, as a failed call
    says it first (``"customer" was missing and was passed as None``); ``""`` when nothing
    was. Read from the arguments once a call has failed: the bound path records nothing."""
    if strict:
        return ""
    filled = [param for param in definition.params
              if param.required and args.get(param.key) is None]
    if not filled:
        return ""
    names = _listed([f'"{param.key}"' for param in filled])
    values = _listed([MASK if param.sensitive else _shown(param.missing_value())
                      for param in filled])
    if len(filled) == 1:
        return f"{names} was missing and was passed as {values}"
    return f"{names} were missing and were passed as {values}"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _names_a_secret(path: list[str]) -> bool:
    return any(is_sensitive_name(segment.strip('.[]"')) for segment in path)


def _unknown_keys_check(tool: str, keys: frozenset[str]
                        ) -> Callable[[dict[str, Any]], None]:
    shown = ", ".join(sorted(keys)) or "none"

    def check(args: dict[str, Any]) -> None:
        unknown = [k for k in args if k not in keys]
        if unknown:
            listed = ", ".join(f'"{k}"' for k in unknown)
            raise ArgumentError(
                f'Tool "{tool}" has no parameter {listed} (parameters: {shown})', tool=tool)

    return check


def _bind_lines(definition: ToolDefinition, strict: bool, namespace: dict[str, Any],
                indent: str) -> list[str]:
    """Source lines binding ``args`` (a dict) to ``a0, a1, ...``; fills ``namespace``."""
    lines = []
    for index, param in enumerate(definition.params):
        namespace[f"slow_{index}"] = param_binder(definition.name, param, strict)
        lines.append(f"{indent}v = args.get({param.key!r})")
        fast = param.handler.fast_type
        if fast is not None:
            namespace[f"fast_{index}"] = fast
            lines.append(f"{indent}if v.__class__ is not fast_{index}:")
            lines.append(f"{indent}    v = slow_{index}(v)")
        else:
            lines.append(f"{indent}v = slow_{index}(v)")
        lines.append(f"{indent}a{index} = v")
    if strict:
        keys = frozenset(p.key for p in definition.params)
        namespace["check_unknown"] = _unknown_keys_check(definition.name, keys)
        namespace["KEYS"] = keys
        lines.append(f"{indent}if not KEYS.issuperset(args):")
        lines.append(f"{indent}    check_unknown(args)")
    return lines


def _values(definition: ToolDefinition) -> str:
    names = ", ".join(f"a{i}" for i in range(len(definition.params)))
    return f"({names}{',' if len(definition.params) == 1 else ''})"


@functools.lru_cache(maxsize=1024)
def _compiled(source: str) -> CodeType:
    """The code of generated source, compiled once: a tool's executors made again (fresh
    tools for each conversation of a replay) run the same text in new namespaces."""
    return compile(source, "<agentforge generated>", "exec")


def _define(lines: list[str], namespace: dict[str, Any], name: str) -> Callable[..., Any]:
    """The function ``name`` that ``lines`` define, run in ``namespace``."""
    exec(_compiled("\n".join(lines)), namespace)  # code built from identifiers and reprs only
    defined: Callable[..., Any] = namespace[name]
    return defined


def _call_expression(definition: ToolDefinition) -> str:
    parts = [f"{p.name}=a{i}" if p.keyword_only else f"a{i}"
             for i, p in enumerate(definition.params)]
    return f"call({', '.join(parts)})"


def make_binder(definition: ToolDefinition, *, strict: bool = False) -> Binder:
    """Generate ``bind(args: dict) -> tuple`` of the values for each parameter, in order."""
    namespace: dict[str, Any] = {}
    lines = ["def bind(args):", *_bind_lines(definition, strict, namespace, "    "),
             f"    return {_values(definition)}"]
    bind: Binder = _define(lines, namespace, "bind")
    return bind


def make_execute(definition: ToolDefinition, *, strict: bool,
                 parse: Callable[[Any], dict[str, Any]],
                 scan: Callable[[str, int], tuple[Any, int]], max_chars: int, max_depth: int,
                 max_result_chars: int | None, on_argument_error: Callable[[ArgumentError], Any],
                 on_failure: Callable[[BaseException, dict[str, Any]], Any],
                 finish: Callable[[Any], Any], result_type: type) -> FastExecute:
    """Generate the whole per-call path ``execute(request, memory_id=None) -> result``;
    its ``remade(call, parse, on_argument_error, on_failure, finish)`` makes it again for
    other callables, from the same code.

    Fast path: a well-formed argument object is scanned directly (no ``json.loads``
    wrapper), each value whose JSON type already is its parameter's type is taken as is,
    and a ``str`` result is returned without normalisation. Anything else falls back to
    the same functions the general path uses (``parse``, the per-parameter slow paths,
    ``finish``), so both paths behave identically. A tool's failure is handed the
    arguments too (``on_failure(exc, args)``), to say what a lenient binding filled in.
    """
    namespace: dict[str, Any] = {
        "scan": scan, "new": tuple.__new__, "Result": result_type,
        "ArgumentError": ArgumentError, "MAX_CHARS": max_chars, "MAX_DEPTH": max_depth,
        "MAX_RESULT": max_result_chars if max_result_chars is not None else float("inf"),
    }
    call = _call_expression(definition)
    if definition.is_async:  # asyncio is imported only for tools that need it
        from agentforge_cli.core.coroutines import (
            never_suspends,
            run_coroutine,
            run_never_suspending,
        )

        namespace["run_coroutine"] = (
            run_never_suspending if never_suspends(definition.call) else run_coroutine)
        call = f"run_coroutine({call})"
    body = [
        "def execute(request, memory_id=None):",
        "    s = request.arguments",
        "    try:",
        "        args = None",
        "        if s.__class__ is str and s[:1] == '{' and len(s) <= MAX_CHARS:",
        "            try:",
        "                args, end = scan(s, 0)",
        "            except (StopIteration, ValueError, RecursionError):",
        "                args = None",
        "            else:",
        "                if end != len(s) or args.__class__ is not dict or (",
        "                        len(s) > MAX_DEPTH and s.count('{') + s.count('[') > MAX_DEPTH):",
        "                    args = None",
        "        if args is None:",
        "            args = parse(s)",
        *_bind_lines(definition, strict, namespace, "        "),
        "    except ArgumentError as error:",
        "        on_argument_error(error)",
        "    try:",
        f"        r = {call}",
        "    except BaseException as exc:",
        "        return on_failure(exc, args)",
        "    if r.__class__ is str and len(r) <= MAX_RESULT:",
        "        return new(Result, (r, False))",
        "    return finish(r)",
    ]
    # the executor's own callables are the factory's arguments (closure cells): another
    # instance's executor of the same tool gets its execute from the same code
    lines = ["def factory(call, parse, on_argument_error, on_failure, finish):",
             *("    " + line for line in body), "    execute.remade = factory",
             "    return execute"]
    factory = _define(lines, namespace, "factory")
    execute: FastExecute = factory(definition.call, parse, on_argument_error, on_failure,
                                   finish)
    return execute


def make_invoker(definition: ToolDefinition) -> Callable[[tuple[Any, ...]], Any]:
    """Generate ``invoke(values) -> result``: the call, positional and keyword as declared."""
    parts = []
    for index, param in enumerate(definition.params):
        parts.append(f"{param.name}=v[{index}]" if param.keyword_only else f"v[{index}]")
    namespace = {"call": definition.call}
    return _define(["def invoke(v):", f"    return call({', '.join(parts)})"], namespace,
                   "invoke")
