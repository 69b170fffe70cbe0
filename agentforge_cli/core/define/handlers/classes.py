"""The handlers of classes a predicate recognises: enums, and object types (dataclasses,
``TypedDict``, ``NamedTuple``, pydantic models), filed under ``$defs`` while a tool is built.
Each build is ``(cls, ctx)``."""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable
from typing import Any

from agentforge_cli.core.define.handlers import choices, objects
from agentforge_cli.core.define.handlers.base import TypeHandler
from agentforge_cli.core.define.handlers.param_info import param_metadata
from agentforge_cli.core.define.handlers.type_rule import Resolver

__all__ = ["build_enum", "build_fields_object", "build_pydantic", "is_dataclass_type",
           "is_enum", "is_typeddict"]


def is_enum(cls: type) -> bool:
    """True for an ``Enum`` subclass."""
    return issubclass(cls, enum.Enum)


def build_enum(cls: type, ctx: Resolver) -> TypeHandler:
    return choices.enum_handler(cls)


def build_fields_object(cls: type, ctx: Resolver) -> TypeHandler:
    from agentforge_cli.core.define.docstrings import parse_docstring

    def build() -> tuple[dict[str, Any], Callable[[Any], Any]]:
        # the class's own docstring: inspect.getdoc would inherit dict's or a base's
        doc = parse_docstring(cls.__dict__.get("__doc__") or "")
        fields = []
        for name, annotation, has_default, default in objects.object_fields(cls):
            info = param_metadata(typing.get_args(annotation)[1:]
                                  if typing.get_origin(annotation) is typing.Annotated else ())
            fields.append(objects.FieldSpec(
                attr=name, key=info.name or name, handler=ctx.resolve(annotation),
                has_default=has_default, default=default,
                description=info.description or doc.params.get(name)))
        if objects.is_named_tuple(cls) or not is_typeddict(cls):
            construct: Callable[[dict[str, Any]], Any] = lambda kw: cls(**kw)  # noqa: E731
        else:
            construct = dict
        schema, coerce = objects.object_handler(cls.__name__, fields, construct)
        summary = doc.summary
        if summary and not summary.startswith(f"{cls.__name__}("):
            schema = {"description": summary, **schema}
        return {"title": cls.__name__, **schema}, coerce

    return ctx.define(cls, build)


def build_pydantic(cls: type, ctx: Resolver) -> TypeHandler:
    def build() -> tuple[dict[str, Any], Callable[[Any], Any]]:
        # is_pydantic_model chose the class (by duck typing: the core never imports pydantic)
        model = typing.cast("objects.ModelClass", cls)
        schema, nested, coerce = objects.pydantic_handler_parts(model)
        for name, sub in nested.items():
            ctx.defs.setdefault(name, sub)
        return schema, coerce

    return ctx.define(cls, build)


def is_typeddict(cls: type) -> bool:
    """True for ``typing.TypedDict`` classes (and ``typing_extensions``' on 3.11)."""
    return isinstance(cls, type) and issubclass(cls, dict) and hasattr(cls, "__total__")


def is_dataclass_type(cls: type) -> bool:
    import dataclasses

    return dataclasses.is_dataclass(cls)
