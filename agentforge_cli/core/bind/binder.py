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

from agentforge_cli.core.bind.jsonvalues import describe
from agentforge_cli.core.define.definition import NO_DEFAULT, ParamDef, ToolDefinition
from agentforge_cli.core.observe.masking import MASK, is_sensitive_name, mask_text
from agentforge_cli.core.run.forks import FORKED
from agentforge_cli.errors import ArgumentError

if TYPE_CHECKING:
    from agentforge_cli.core.define.spec import ToolExecutionRequest, ToolExecutionResult

__all__ = ["Binder", "FastExecute", "broken_constraint", "make_binder", "make_execute",
           "make_invoker", "missing_note", "param_binder", "tool_argument_error", "tool_takes",
           "unknown_keys_message"]

Binder = Callable[[dict[str, Any]], tuple[Any, ...]]


class FastExecute(Protocol):
    """What :func:`make_execute` generates: ``execute(request, memory_id=None)``, with
    ``remade(call, parse, on_argument_error, on_failure, finish)``."""

    remade: Callable[..., FastExecute]

    def __call__(self, request: ToolExecutionRequest, memory_id: object = None
                 ) -> ToolExecutionResult: ...


def param_binder(definition: ToolDefinition, param: ParamDef, strict: bool
                 ) -> Callable[[Any], Any]:
    """``bind(raw) -> value`` for one parameter: missing/null handling and coercion;
    errors carry the parameter's path, with secrets masked."""
    coerce = param.handler.coerce
    key = param.key
    missing = _missing(definition, param, strict)
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


def _missing(definition: ToolDefinition, param: ParamDef, strict: bool
             ) -> Callable[[], Any]:
    """What a missing (or null) argument gets: its default, ``None`` when it is optional,
    else an argument error (strict) or the lenient default when that value keeps every
    constraint the parameter declares (bounds, enum and ``Literal`` values)."""
    tool = definition.name
    if strict and param.required:
        def refuse() -> Any:
            raise ArgumentError(
                f'Required parameter "{param.key}" of tool "{tool}" is missing; '
                f"{tool_takes(definition)}", tool=tool, expected=param.handler.label)

        return refuse
    value = param.missing_value()
    broken = None if param.default is not NO_DEFAULT or param.optional else (
        broken_constraint(param, value))
    if broken is None:
        return lambda: value
    shown = MASK if param.sensitive else repr(value)
    kind = "Required parameter" if param.required else "Parameter"

    def refuse_filled() -> Any:
        raise ArgumentError(
            f'{kind} "{param.key}" of tool "{tool}" is missing, and the lenient default '
            f"{shown} {broken}; send a value", tool=tool, expected=param.handler.label)

    return refuse_filled


_CONSTRAINTS = frozenset({
    "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "pattern", "minLength", "maxLength", "minItems", "maxItems"})
"""Schema keywords that declare a constraint a filled-in value must keep."""


def broken_constraint(param: ParamDef, value: Any) -> str | None:
    """How ``value``, filled in for a missing ``param``, breaks a constraint the parameter
    declares (``is out of range for int (minimum 1, maximum 50)``), or ``None``. ``None``
    filled in for a type that declares no constraint (a ``str``, an object) keeps none."""
    if value is None and not (_CONSTRAINTS & param.handler.schema.keys()):
        return None
    try:
        param.handler.coerce(value)
    except ArgumentError as error:
        return error.problem.removesuffix(f": {describe(value)}")
    return None


def tool_takes(definition: ToolDefinition) -> str:
    """What a tool takes, for a model to correct its call: ``scale_service takes name
    (string), replicas (integer 1..50), env (string, optional)``; at most 20 parameters."""
    from agentforge_cli.core.define.schema_labels import schema_label

    properties = definition.spec.parameters.get("properties") or {}
    parts = [f"{p.key} ({schema_label(properties.get(p.key))}"
             f"{'' if p.required else ', optional'})" for p in definition.params[:_SHOWN]]
    more = len(definition.params) - _SHOWN
    listed = ", ".join(parts) + (f" and {more} more" if more > 0 else "")
    return f"{definition.name} takes {listed or 'no arguments'}"


_SHOWN = 20
"""Parameters listed at most in :func:`tool_takes`."""


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


def _unknown_keys_check(definition: ToolDefinition) -> Callable[[dict[str, Any]], None]:
    keys = frozenset(p.key for p in definition.params)

    def check(args: dict[str, Any]) -> None:
        unknown = [k for k in args if k not in keys]
        if unknown:
            raise ArgumentError(unknown_keys_message(definition, unknown, args),
                                tool=definition.name)

    return check


def unknown_keys_message(definition: ToolDefinition, unknown: list[str], args: dict[str, Any]
                         ) -> str:
    """``"replicas" is not a parameter of tool "scale_service"; did you mean "count"?``.

    The parameter suggested is the closest in spelling among those the call did not send;
    when none is close, a lone unknown key is taken for the one required parameter missing
    (a renamed parameter, as a model still sends it)."""
    import difflib
    import json

    unsent = [p.key for p in definition.params if p.key not in args]
    missing = [p.key for p in definition.params if p.required and args.get(p.key) is None]
    clauses = []
    for key in unknown[:_SHOWN]:
        close = difflib.get_close_matches(key, unsent, n=1, cutoff=0.6) if len(key) <= 100 else []
        if not close and len(unknown) == 1 and len(missing) == 1:
            close = missing
        hint = f'; did you mean "{close[0]}"?' if close else ""
        name = json.dumps(key if len(key) <= 60 else f"{key[:57]}...", ensure_ascii=False)
        clauses.append(f'{name} is not a parameter of tool "{definition.name}"{hint}')
    more = len(unknown) - _SHOWN
    tail = f" (and {more} more unknown keys)" if more > 0 else ""
    said = f"{'; '.join(clauses)}{tail}"
    return f"{said}{' ' if said.endswith('?') else '. '}{tool_takes(definition)}"


def _bind_lines(definition: ToolDefinition, strict: bool, namespace: dict[str, Any],
                indent: str) -> list[str]:
    """Source lines binding ``args`` (a dict) to ``a0, a1, ...``; fills ``namespace``."""
    lines = []
    if strict:  # an unknown key first: it may be a renamed parameter the call then lacks
        namespace["check_unknown"] = _unknown_keys_check(definition)
        namespace["KEYS"] = frozenset(p.key for p in definition.params)
        lines.append(f"{indent}if not KEYS.issuperset(args):")
        lines.append(f"{indent}    check_unknown(args)")
    for index, param in enumerate(definition.params):
        namespace[f"slow_{index}"] = param_binder(definition, param, strict)
        lines.append(f"{indent}v = args.get({param.key!r})")
        fast = param.handler.fast_type
        if fast is not None:
            namespace[f"fast_{index}"] = fast
            lines.append(f"{indent}if v.__class__ is not fast_{index}:")
            lines.append(f"{indent}    v = slow_{index}(v)")
        else:
            lines.append(f"{indent}v = slow_{index}(v)")
        lines.append(f"{indent}a{index} = v")
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


def make_binder(definition: ToolDefinition, *, strict: bool = True) -> Binder:
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
    and a ``str`` result is returned without normalisation (but in a child the tool forked:
    ``finish`` ends it, :mod:`~agentforge_cli.core.run.forks`). Anything else falls back to
    the same functions the general path uses (``parse``, the per-parameter slow paths,
    ``finish``), so both paths behave identically. A tool's failure is handed the
    arguments too (``on_failure(exc, args)``), to say what a lenient binding filled in.
    """
    namespace: dict[str, Any] = {
        "scan": scan, "new": tuple.__new__, "Result": result_type,
        "ArgumentError": ArgumentError, "MAX_CHARS": max_chars, "MAX_DEPTH": max_depth,
        "MAX_RESULT": max_result_chars if max_result_chars is not None else float("inf"),
        "FORKED": FORKED,
    }
    call = _call_expression(definition)
    if definition.is_async:  # asyncio is imported only for tools that need it
        from agentforge_cli.core.run.coroutines import (
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
        "    if r.__class__ is str and len(r) <= MAX_RESULT and not FORKED:",
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
