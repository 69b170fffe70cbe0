"""The type rules agentforge ships: every annotation a tool's parameter may have out of the
box, as :class:`~agentforge_cli.core.define.handlers.type_rule.TypeRule` entries."""

from __future__ import annotations

import datetime as _dt
import pathlib
import types
import typing
import uuid
from decimal import Decimal
from typing import Any

from agentforge_cli.core.define.handlers import classes, generics, objects, scalars
from agentforge_cli.core.define.handlers.type_rule import TypeRule

__all__ = ["BUILTIN_RULES"]

BUILTIN_RULES: tuple[TypeRule, ...] = (
    TypeRule(name="scalars", exact={
        str: scalars.str_handler,
        bool: scalars.bool_handler,
        int: scalars.int_handler,
        float: scalars.float_handler,
        Decimal: scalars.decimal_handler,
        uuid.UUID: scalars.uuid_handler,
        _dt.datetime: lambda: scalars.iso_handler(_dt.datetime),
        _dt.date: lambda: scalars.iso_handler(_dt.date),
        _dt.time: lambda: scalars.iso_handler(_dt.time),
        pathlib.Path: scalars.path_handler,
    }),
    TypeRule(name="any", exact={Any: scalars.any_handler, object: scalars.any_handler}),
    TypeRule(name="collections", generic={
        **dict.fromkeys(generics.ARRAY_BUILDS, generics.build_array),
        tuple: generics.build_tuple,
        **dict.fromkeys(generics.MAPPINGS, generics.build_mapping),
    }),
    TypeRule(name="union", generic={typing.Union: generics.build_union,
                                    types.UnionType: generics.build_union}),
    TypeRule(name="literal", generic={typing.Literal: generics.build_literal}),
    TypeRule(name="annotated", generic={typing.Annotated: generics.build_annotated}),
    TypeRule(name="wrappers", generic=dict.fromkeys(
        (typing.Required, typing.NotRequired, typing.ClassVar), generics.build_wrapped)),
    # an Enum may be declared with @dataclass too; it is an enum
    TypeRule(name="enum", applies=classes.is_enum, build_class=classes.build_enum,
             before=("dataclass",)),
    TypeRule(name="dataclass", applies=classes.is_dataclass_type,
             build_class=classes.build_fields_object),
    TypeRule(name="typeddict", applies=classes.is_typeddict,
             build_class=classes.build_fields_object),
    TypeRule(name="namedtuple", applies=objects.is_named_tuple,
             build_class=classes.build_fields_object),
    TypeRule(name="pydantic", applies=objects.is_pydantic_model,
             build_class=classes.build_pydantic),
)
"""In the order they are tried (see ``TypeRule.before``)."""
