"""``TypeRule``: one entry of the type registry — which annotations it matches and how it
builds their :class:`~agentforge_cli.core.define.handlers.base.TypeHandler`.

A rule matches in one or more of three ways, each optional, and needs at least one:
``exact`` (the annotation itself, ``uuid.UUID``), ``generic`` (its ``typing.get_origin``,
``list`` for ``list[int]``) and ``applies`` with ``build_class`` (a predicate on a class,
dataclasses). The registry tries the exact matches of every rule first, then the generic
ones, then the class predicates; within each, in the rules' declared order (``before``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from agentforge_cli.errors import ToolDefinitionError

if TYPE_CHECKING:
    from agentforge_cli.core.define.handlers.base import TypeHandler

__all__ = ["ClassBuild", "GenericBuild", "Resolver", "TypeRule", "UnsupportedTypeError",
           "a_type_rule"]


class Resolver(Protocol):
    """What a build is given (``ctx``): the handlers of other annotations, and the
    ``$defs`` of the tool being built."""

    defs: dict[str, dict[str, Any]]
    """``$defs`` name -> schema of every object type met so far."""

    def resolve(self, annotation: Any) -> TypeHandler:
        """The handler of ``annotation`` (a member, an item type)."""
        ...

    def define(self, cls: type,
               build: Callable[[], tuple[dict[str, Any], Callable[[Any], Any]]]
               ) -> TypeHandler:
        """The handler of an object type filed under ``$defs``; ``build`` gives its
        schema and coercer, once per tool (a recursive reference gets the same handler)."""
        ...


GenericBuild = Callable[[Any, tuple[Any, ...], Resolver], "TypeHandler"]
"""``(origin, args, ctx) -> handler`` for a generic annotation (``list``, ``(int,)``)."""

ClassBuild = Callable[[type, Resolver], "TypeHandler"]
"""``(cls, ctx) -> handler`` for a class a predicate chose."""


class UnsupportedTypeError(ToolDefinitionError):
    """An annotation no handler supports."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TypeRule:
    """Annotations of one kind and how their handlers are built; the registry in
    :mod:`agentforge_cli.core.define.handlers.registry` keeps them."""

    name: str
    """Unique in the registry (``scalars``, ``enum``, ``ipv4``); what ``before`` names."""
    exact: Mapping[Any, Callable[[], TypeHandler]] = field(default_factory=dict)
    """Annotations matched as they are -> the function that builds their handler (built
    once, then shared by every tool)."""
    generic: Mapping[Any, GenericBuild] = field(default_factory=dict)
    """Generic origins (``typing.get_origin``) -> the build of such an annotation; a bare
    class among them (``list``) is built with no arguments."""
    applies: Callable[[type], bool] | None = None
    """A predicate on a class; the class rules are tried in declared order."""
    build_class: ClassBuild | None = None
    """The build of a class ``applies`` chose (given with it)."""
    before: tuple[str, ...] = ()
    """Rules this one is tried ahead of: for a class both predicates accept, or a type both
    rules match exactly, the earlier rule wins."""

    def __post_init__(self) -> None:
        if (self.applies is None) != (self.build_class is None):
            raise TypeError(f"type rule {self.name!r}: give applies and build_class "
                            f"together")
        if not (self.exact or self.generic or self.applies):
            raise TypeError(f"type rule {self.name!r} matches nothing; give exact, generic "
                            f"or applies with build_class")


def a_type_rule(entry: object) -> TypeRule:
    """``entry`` when it is a :class:`TypeRule` (the registry's check of what plugins give)."""
    if not isinstance(entry, TypeRule):
        raise TypeError(f"a type handler entry is a TypeRule "
                        f"(agentforge_cli.core.define.handlers.type_rule), not "
                        f"{type(entry).__name__}")
    return entry
