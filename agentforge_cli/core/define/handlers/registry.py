"""The type registry: which :class:`TypeHandler` an annotation gets.

A handler carries both the JSON Schema and the coercer of a type, so the schema a model
sees and the binding its arguments get cannot disagree. :data:`TYPE_HANDLERS` keeps the
:class:`~agentforge_cli.core.define.handlers.type_rule.TypeRule` entries — agentforge's own
(:mod:`~agentforge_cli.core.define.handlers.builtin_rules`), those added with
``TYPE_HANDLERS.register(...)``, and those of the ``agentforge.type_handlers`` entry points
(read the first time an annotation is looked up). :func:`handler_for` tries, in the rules'
declared order, the annotation itself (``exact``), then its generic origin (``generic``),
then ``None``, ``NewType``, and the class predicates (``applies``).

Object types are filed under ``$defs`` while a tool is built (:class:`BuildContext`);
:func:`~agentforge_cli.core.define.handlers.schema_defs.finalize_schema` inlines each one again
unless it recurs. :mod:`~agentforge_cli.core.define.handlers.param_info` merges a parameter's
``P(...)`` marks.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from typing import Any, NamedTuple

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.core.define.handlers import choices
from agentforge_cli.core.define.handlers.base import TypeHandler
from agentforge_cli.core.define.handlers.builtin_rules import BUILTIN_RULES
from agentforge_cli.core.define.handlers.classes import is_typeddict
from agentforge_cli.core.define.handlers.type_rule import (
    ClassBuild,
    GenericBuild,
    TypeRule,
    UnsupportedTypeError,
    a_type_rule,
)

__all__ = ["TYPE_HANDLERS", "BuildContext", "TypeRule", "UnsupportedTypeError", "exact_types",
           "handler_for", "is_typeddict", "type_label"]

TYPE_HANDLERS: ExtensionPoint[TypeRule] = ExtensionPoint(
    "type handler", "agentforge.type_handlers", BUILTIN_RULES, check=a_type_rule)
"""Every type rule, in the order they are tried."""


class BuildContext:
    """State while one tool's handlers are built: ``$defs`` and object recursion.

    Attributes:
        defs: ``$defs`` name -> schema of every object type met so far.
    """

    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}
        self._objects: dict[type, TypeHandler] = {}
        self._names: dict[str, type] = {}

    def resolve(self, annotation: Any) -> TypeHandler:
        """Return the handler of ``annotation`` (see :func:`handler_for`)."""
        return handler_for(annotation, self)

    def define(self, cls: type,
               build: Callable[[], tuple[dict[str, Any], Callable[[Any], Any]]]
               ) -> TypeHandler:
        """Return the handler of an object type, building it once per tool.

        A recursive reference met while building gets the same handler; its coercer is a
        trampoline that reaches the real one once the build finishes.
        """
        known = self._objects.get(cls)
        if known is not None:
            return known
        name = self._def_name(cls)
        cell: list[Callable[[Any], Any]] = []

        def trampoline(value: Any) -> Any:
            return cell[0](value)

        handler = TypeHandler(label=cls.__name__, schema={"$ref": f"#/$defs/{name}"},
                              coerce=trampoline, json_types=frozenset({"object"}))
        self._objects[cls] = handler
        schema, coerce = build()
        cell.append(coerce)
        handler.coerce = coerce
        self.defs[name] = schema
        return handler

    def _def_name(self, cls: type) -> str:
        name = cls.__name__
        owner = self._names.get(name)
        if owner is not None and owner is not cls:
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{cls.__module__}.{cls.__qualname__}")
        self._names[name] = cls
        return name


# --- the lookup tables, made from the registry ---------------------------------------------

class _Tables(NamedTuple):
    rules: tuple[TypeRule, ...]
    """The registry's entries these tables were made from."""
    exact: dict[Any, Callable[[], TypeHandler]]
    generic: dict[Any, GenericBuild]
    classes: tuple[tuple[Callable[[type], bool], ClassBuild], ...]


_tables: _Tables | None = None

_BUILT: dict[Callable[[], TypeHandler], TypeHandler] = {}
"""Each ``exact`` handler, built once (keyed by its maker, so the rules stay the truth)."""


def _current_tables() -> _Tables:
    """The tables of the registry as it is; remade only when a rule was registered."""
    rules = TYPE_HANDLERS.entries()
    tables = _tables
    if tables is None or tables.rules is not rules:
        tables = _make_tables(rules)
    return tables


def _make_tables(rules: tuple[TypeRule, ...]) -> _Tables:
    global _tables
    exact: dict[Any, Callable[[], TypeHandler]] = {}
    generic: dict[Any, GenericBuild] = {}
    for rule in rules:  # the first rule to name a type or an origin has it
        for annotation, maker in rule.exact.items():
            exact.setdefault(annotation, maker)
        for origin, build in rule.generic.items():
            generic.setdefault(origin, build)
    classes = tuple((rule.applies, rule.build_class) for rule in rules
                    if rule.applies is not None and rule.build_class is not None)
    _tables = _Tables(rules, exact, generic, classes)
    return _tables


def exact_types() -> tuple[Any, ...]:
    """Every annotation a rule matches as it is, in the rules' order."""
    return tuple(_current_tables().exact)


# --- lookup ------------------------------------------------------------------------------

def handler_for(annotation: Any, ctx: BuildContext) -> TypeHandler:
    """Return the :class:`TypeHandler` for an annotation.

    Raises:
        UnsupportedTypeError: When no rule matches the annotation.
    """
    tables = _current_tables()
    try:
        maker = tables.exact.get(annotation)
    except TypeError:  # unhashable annotation
        maker = None
    if maker is not None:
        handler = _BUILT.get(maker)
        if handler is None:
            handler = _BUILT[maker] = maker()
        return handler
    origin = typing.get_origin(annotation)
    if origin is not None:
        build = tables.generic.get(origin)
        if build is not None:
            return build(origin, typing.get_args(annotation), ctx)
    elif isinstance(annotation, type) and annotation in tables.generic:  # a bare list
        return tables.generic[annotation](annotation, (), ctx)
    if annotation is None or annotation is type(None):
        return choices.literal_handler((None,))
    supertype = getattr(annotation, "__supertype__", None)  # typing.NewType
    if supertype is not None:
        return ctx.resolve(supertype)
    if isinstance(annotation, type):
        for applies, build_class in tables.classes:
            if applies(annotation):
                return build_class(annotation, ctx)
    raise UnsupportedTypeError(f"unsupported type {type_label(annotation)}")


def type_label(annotation: Any) -> str:
    """A short readable name for an annotation (for messages)."""
    if isinstance(annotation, type) and typing.get_origin(annotation) is None:
        return annotation.__qualname__
    return repr(annotation).replace("typing.", "")
