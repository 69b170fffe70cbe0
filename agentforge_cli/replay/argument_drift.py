"""Argument drift: whether a recorded call's arguments still fit today's tool.

A recorded call *drifted* when, checked against the tool as it is today,

* it carries an argument the tool no longer has (a renamed parameter: recorded ``query``,
  today ``search_query``);
* a required parameter is absent (missing, or ``null``);
* today's binding refuses a value (:meth:`ArgumentFit.refused`; what the coercion table
  repairs, such as ``"5"`` for an ``int``, binds and is no drift).

Its arguments no longer mean what the model meant, so replay does not run it.
Python tools are checked by their parameters; an MCP tool by its ``inputSchema``
(``properties``, ``required``, and unknown keys only under ``additionalProperties:
false``); its values are the server's to judge. A tool that declares neither is not
checked, and an unknown tool name is no drift (the call answers an unknown-tool error).

Standard library and core only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agentforge_cli.core.bind.arguments import parse_arguments, scan_object
from agentforge_cli.core.bind.binder import make_binder
from agentforge_cli.core.define.capabilities import DefinedToolExecutor, SpecifiedToolExecutor
from agentforge_cli.core.define.definition import ToolDefinition
from agentforge_cli.core.run.wrapping import innermost
from agentforge_cli.errors import AgentForgeError, ArgumentError

__all__ = ["ArgumentFit", "argument_fit"]


def _quoted(keys: list[str]) -> str:
    return ", ".join(json.dumps(key, ensure_ascii=False) for key in keys)


class ArgumentFit:
    """What one tool accepts today, read once: its keys and its required keys.

    Args:
        tool: The tool's name.
        keys: Every parameter's JSON key, in declaration order.
        required: The keys that must be present.
        closed: A key outside ``keys`` is drift (always for a Python tool).
        bind: Parse and bind arguments as today's tool does, leniently (a Python tool's
            generated binder), or ``None`` when values cannot be checked here.
    """

    __slots__ = ("_bind", "_closed", "_keys", "_order", "_required", "drift", "tool")

    def __init__(self, tool: str, keys: list[str], required: list[str], *, closed: bool,
                 bind: Callable[[str], Any] | None = None) -> None:
        self.tool = tool
        self._order = keys
        self._keys = frozenset(keys)
        self._required = frozenset(required)
        self._closed = closed
        self._bind = bind
        self.drift: Callable[[str], str | None] = self._checker()
        """``drift(arguments)``: what no longer fits in a recorded argument string (an
        unknown or a missing key), or ``None``. Arguments that do not parse are no drift:
        running them reports the parse error."""

    def _checker(self) -> Callable[[str], str | None]:
        # a closure over what it reads: this runs once per replayed call
        superset, subset = self._keys.issuperset, self._required.issubset
        closed, explain = self._closed, self._explain

        def drift(arguments: str) -> str | None:
            try:  # the common case: one well-formed object, read by json's C scanner
                args, end = scan_object(arguments, 0)
            except (StopIteration, ValueError, RecursionError, TypeError):
                end = -1
            if end != len(arguments) or type(args) is not dict:
                try:
                    args = parse_arguments(arguments)  # the executor's repairs, slowly
                except ArgumentError:
                    return None
            if (not closed or superset(args)) and subset(args) and None not in args.values():
                return None
            return explain(args)

        return drift

    def _unknown_and_absent(self, args: dict[str, Any]) -> tuple[list[str], list[str]]:
        """The recorded keys today's tool does not have, and the parameters the call
        lacks (the required ones when a required one is missing)."""
        unknown = [key for key in args if key not in self._keys] if self._closed else []
        absent = [key for key in self._order if args.get(key) is None]
        wanted = [key for key in absent if key in self._required]
        return unknown, wanted or absent  # a renamed parameter is most often required

    def _explain(self, args: dict[str, Any]) -> str | None:
        unknown, absent = self._unknown_and_absent(args)
        if unknown:
            listed = _quoted(unknown)
            one = len(unknown) == 1
            hint = (f"it has {', '.join(absent)}" if absent else
                    f"its parameters: {', '.join(self._order)}" if self._order else
                    "it takes no arguments")
            return (f"{listed} {'was' if one else 'were'} recorded but {self.tool} has no "
                    f"such parameter{'' if one else 's'} ({hint})")
        missing = [key for key in self._order
                   if key in self._required and args.get(key) is None]
        if not missing:
            return None
        one = len(missing) == 1
        return (f"{_quoted(missing)} {'is' if one else 'are'} required by {self.tool} but "
                f"{'was' if one else 'were'} not recorded")

    def remedies(self, arguments: str) -> list[tuple[str, str]]:
        """The migration that would make a drifted call fit, as ``replay --update`` takes
        it: ``--rename-arg TOOL.OLD=NEW`` when the call has one key today's tool lacks and
        lacks one parameter, ``--drop-arg TOOL.KEY`` for keys the tool lacks when it lacks
        nothing else; none when the drift says nothing that clear."""
        try:
            args = parse_arguments(arguments)
        except ArgumentError:
            return []
        unknown, absent = self._unknown_and_absent(args)
        if len(unknown) == 1 and len(absent) == 1:
            return [("--rename-arg", f"{self.tool}.{unknown[0]}={absent[0]}")]
        if unknown and not absent:
            return [("--drop-arg", f"{self.tool}.{key}") for key in unknown]
        return []

    def refused(self, arguments: str) -> str | None:
        """The value today's binding refuses in ``arguments`` (checked after a call
        answered an error, or when a key drifted: a refused value never reaches the tool,
        in either binding mode), or ``None`` when the arguments bind, do not parse, or
        cannot be checked here."""
        if self._bind is None:
            return None
        try:
            self._bind(arguments)
        except AgentForgeError as exc:
            error = exc if isinstance(exc, ArgumentError) else exc.__cause__
            if isinstance(error, ArgumentError) and error.path:
                return (f'"{error.parameter_path}" was recorded with a value {self.tool} '
                        f"refuses today: {error.problem}")
        return None


def argument_fit(executor: Any) -> ArgumentFit | None:
    """The :class:`ArgumentFit` of a registered tool: a Python tool's parameters, an MCP
    tool's ``inputSchema``; ``None`` when it declares neither (through wrappers such as
    the logging decorator, whose attributes reach the tool's)."""
    executor = innermost(executor)
    if isinstance(executor, DefinedToolExecutor):
        definition = executor.definition
        params = definition.params
        return ArgumentFit(definition.name, [p.key for p in params],
                           [p.key for p in params if p.required], closed=True,
                           bind=_lenient_binding(definition))
    if not isinstance(executor, SpecifiedToolExecutor):
        return None
    spec = executor.specification
    schema = spec.parameters
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return None
    required = schema.get("required")
    required = [key for key in required if isinstance(key, str)] if isinstance(
        required, list) else []
    return ArgumentFit(spec.name, list(schema["properties"]), required,
                       closed=schema.get("additionalProperties") is False)


def _lenient_binding(definition: ToolDefinition) -> Callable[[str], Any]:
    """Parse and bind as a lenient executor of the tool does: a value it refuses is
    refused whatever the executor's mode (strict binding refuses all that and more). The
    binder is made at the first check (most replays never need one)."""
    made: list[Callable[[dict[str, Any]], Any]] = []

    def parse_and_bind(arguments: str) -> Any:
        if not made:
            made.append(make_binder(definition, strict=False))
        return made[0](parse_arguments(arguments))

    return parse_and_bind
