"""The resources, resource templates and prompts that targets declare (``@resource``,
``@prompt``), found as tools are (:mod:`~agentforge_cli.core.run.discovery`: a module's
functions and module-level instances, an instance's methods), and answered as the
protocol's JSON: what ``agentforge serve`` lists, reads and gets.

Each function runs in the caller's thread (``async def`` on an event loop of its own);
the server calls these from a worker thread.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.core.declare.served_extras import (
    PromptDeclaration,
    ResourceDeclaration,
    prompt_declaration,
    resource_declaration,
)
from agentforge_cli.errors import ToolDefinitionError

__all__ = ["DeclaredExtras", "Refusal"]


@dataclass(frozen=True, slots=True)
class Refusal:
    """A read or a get that cannot be answered. ``kind``: ``"not-found"`` (no such
    resource), ``"invalid"`` (no such prompt, an argument missing or unknown: the
    request's fault) or ``"failed"`` (the function raised, or returned what has no
    protocol form)."""

    message: str
    kind: str = "failed"


class _Refused(Exception):
    """Carries a :class:`Refusal` out of a nested call; never leaves this module."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


def _members(obj: Any) -> Iterator[Any]:
    found: dict[str, Any] = {}
    for klass in reversed(type(obj).__mro__):
        found.update(vars(klass))
    for attr, value in found.items():
        if resource_declaration(value) or prompt_declaration(value):
            yield getattr(obj, attr)


def _declared(target: Any) -> Iterator[Any]:
    if isinstance(target, type):
        return
    if isinstance(target, types.ModuleType):
        for value in list(vars(target).values()):
            if isinstance(value, type | types.ModuleType):
                continue
            if isinstance(value, types.FunctionType | types.MethodType):
                if resource_declaration(value) or prompt_declaration(value):
                    yield value
            else:
                yield from _members(value)
    elif isinstance(target, types.FunctionType | types.MethodType):
        if resource_declaration(target) or prompt_declaration(target):
            yield target
    else:
        yield from _members(target)


def _run(func: Callable[..., Any], arguments: Mapping[str, str]) -> Any:
    import inspect

    if inspect.iscoroutinefunction(func):
        import asyncio

        return asyncio.run(func(**arguments))
    return func(**arguments)


@dataclass
class DeclaredExtras:
    """What the targets declare besides tools, each function with its declaration."""

    resources: list[tuple[ResourceDeclaration, Callable[..., Any]]] = field(
        default_factory=list)
    prompts: dict[str, tuple[PromptDeclaration, Callable[..., Any]]] = field(
        default_factory=dict)

    @classmethod
    def find(cls, targets: Iterable[Any]) -> DeclaredExtras:
        """Every ``@resource`` and ``@prompt`` of ``targets``, each function once.

        Raises:
            ToolDefinitionError: Two resources share a URI, or two prompts a name.
        """
        extras = cls()
        seen: set[tuple[int, int]] = set()
        for target in targets:
            for func in _declared(target):
                identity = (id(getattr(func, "__self__", None)),
                            id(getattr(func, "__func__", func)))
                if identity not in seen:
                    seen.add(identity)
                    extras._add(func)
        return extras

    def _add(self, func: Callable[..., Any]) -> None:
        declared = resource_declaration(func)
        if declared is not None:
            if any(other.uri == declared.uri for other, _ in self.resources):
                raise ToolDefinitionError(f"two resources are declared at {declared.uri!r}")
            self.resources.append((declared, func))
        asked = prompt_declaration(func)
        if asked is not None:
            if asked.name in self.prompts:
                raise ToolDefinitionError(f"two prompts are named {asked.name!r}")
            self.prompts[asked.name] = (asked, func)

    def __bool__(self) -> bool:
        return bool(self.resources or self.prompts)

    # -- lists ----------------------------------------------------------------------------

    @staticmethod
    def _listed(declared: ResourceDeclaration, key: str) -> dict[str, Any]:
        item = {key: declared.uri, "name": declared.name, "title": declared.title,
                "description": declared.description, "mimeType": declared.mime_type}
        return {name: value for name, value in item.items() if value is not None}

    def list_resources(self) -> list[dict[str, Any]]:
        """``resources/list``'s resources."""
        return [self._listed(d, "uri") for d, _ in self.resources if not d.parts]

    def list_templates(self) -> list[dict[str, Any]]:
        """``resources/templates/list``'s templates."""
        return [self._listed(d, "uriTemplate") for d, _ in self.resources if d.parts]

    def list_prompts(self) -> list[dict[str, Any]]:
        """``prompts/list``'s prompts."""
        listed = []
        for declared, _ in self.prompts.values():
            item: dict[str, Any] = {"name": declared.name}
            for key, value in (("title", declared.title),
                               ("description", declared.description)):
                if value is not None:
                    item[key] = value
            item["arguments"] = [
                {"name": a.name, "required": a.required,
                 **({"description": a.description} if a.description else {})}
                for a in declared.arguments]
            listed.append(item)
        return listed

    # -- read and get ---------------------------------------------------------------------

    def read(self, uri: str) -> dict[str, Any] | Refusal:
        """The ``resources/read`` result of ``uri``: a resource's, or a template's that
        ``uri`` is an instance of (resources first).

        A :class:`Refusal` when there is no such resource (``not-found``), or its
        function failed or returned neither ``str`` nor ``bytes``.
        """
        try:
            return self._read(uri)
        except _Refused as refused:
            return refused.refusal

    def _read(self, uri: str) -> dict[str, Any]:
        ordered = sorted(self.resources, key=lambda pair: bool(pair[0].parts))
        for declared, func in ordered:
            parts = declared.match(uri)
            if parts is None:
                continue
            value = self._called(func, parts, f"resource {uri}")
            content: dict[str, Any] = {"uri": uri}
            if declared.mime_type:
                content["mimeType"] = declared.mime_type
            if isinstance(value, str):
                content["text"] = value
            elif isinstance(value, bytes | bytearray):
                import base64

                content["blob"] = base64.b64encode(bytes(value)).decode("ascii")
            else:
                raise _Refused(Refusal(f"resource {uri}: the function returned "
                                       f"{type(value).__name__}, not str or bytes"))
            return {"contents": [content]}
        raise _Refused(Refusal(f"Unknown resource: {uri}", kind="not-found"))

    def get(self, name: str, arguments: Mapping[str, str] | None
            ) -> dict[str, Any] | Refusal:
        """The ``prompts/get`` result of ``name`` with ``arguments``.

        A :class:`Refusal` when there is no such prompt, a required argument is missing
        or an unknown one given (``invalid``), or the function failed or returned
        something else than a text or a list of messages.
        """
        try:
            return self._get(name, arguments)
        except _Refused as refused:
            return refused.refusal

    def _get(self, name: str, arguments: Mapping[str, str] | None) -> dict[str, Any]:
        if name not in self.prompts:
            known = ", ".join(self.prompts) or "none"
            raise _Refused(Refusal(f"Unknown prompt {name!r} (prompts: {known})",
                                   kind="invalid"))
        declared, func = self.prompts[name]
        given = dict(arguments or {})
        names = {a.name for a in declared.arguments}
        missing = [a.name for a in declared.arguments if a.required and a.name not in given]
        extra = sorted(set(given) - names)
        if missing or extra:
            problem = (f"missing the argument {', '.join(missing)}" if missing
                       else f"no argument {', '.join(extra)}")
            raise _Refused(Refusal(f"prompt {name!r}: {problem}", kind="invalid"))
        result: dict[str, Any] = {"messages": _messages(name, self._called(
            func, given, f"prompt {name}"))}
        if declared.description:
            result["description"] = declared.description
        return result

    @staticmethod
    def _called(func: Callable[..., Any], arguments: Mapping[str, str], what: str) -> Any:
        try:
            return _run(func, arguments)
        except Exception as exc:
            raise _Refused(Refusal(f"{what} failed: {type(exc).__name__}: {exc}")) from exc


def _messages(name: str, value: Any) -> list[dict[str, Any]]:
    """A prompt function's return as the protocol's messages."""
    if isinstance(value, str):
        return [{"role": "user", "content": {"type": "text", "text": value}}]
    if isinstance(value, list) and all(
            isinstance(m, dict) and m.get("role") in ("user", "assistant")
            and isinstance(m.get("content"), str) for m in value):
        return [{"role": m["role"], "content": {"type": "text", "text": m["content"]}}
                for m in value]
    raise _Refused(Refusal(f"prompt {name}: the function returned {type(value).__name__}, "
                           'not a str or a list of {"role": "user"|"assistant", "content": '
                           "str}"))
