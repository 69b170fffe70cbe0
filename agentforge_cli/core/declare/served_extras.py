"""``@resource("uri")`` and ``@prompt``: what ``agentforge serve`` offers besides tools.

Like ``@tool``, each decorator returns the function itself with its declaration attached
(``__agentforge_resource__``, ``__agentforge_prompt__``), so it stays a plain, testable
function; nothing is registered anywhere. A resource URI with ``{name}`` parts is a
resource template: its function takes those parts as keyword arguments. A prompt's
arguments are its function's parameters (required when they have no default), described
by ``Annotated[str, P("...")]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["PROMPT_ATTRIBUTE", "RESOURCE_ATTRIBUTE", "PromptArgument", "PromptDeclaration",
           "ResourceDeclaration", "prompt", "prompt_declaration", "resource",
           "resource_declaration"]

RESOURCE_ATTRIBUTE = "__agentforge_resource__"
PROMPT_ATTRIBUTE = "__agentforge_prompt__"
_PART = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class ResourceDeclaration:
    """What ``@resource`` declared: a resource, or a template when ``uri`` has parts."""

    uri: str
    name: str
    description: str | None
    mime_type: str | None
    title: str | None

    @property
    def parts(self) -> tuple[str, ...]:
        """The ``{name}`` parts of a template's URI (none for a resource)."""
        return tuple(_PART.findall(self.uri))

    def match(self, uri: str) -> dict[str, str] | None:
        """The parts of ``uri`` when it is this resource or an instance of this template
        (each part one path segment or more, never empty), else ``None``."""
        if not self.parts:
            return {} if uri == self.uri else None
        pattern = "".join(f"(?P<{piece}>[^/?#]+)" if index % 2 else re.escape(piece)
                          for index, piece in enumerate(_PART.split(self.uri)))
        found = re.fullmatch(pattern, uri)
        return None if found is None else found.groupdict()


@dataclass(frozen=True, slots=True)
class PromptArgument:
    """One argument of a prompt, as ``prompts/list`` shows it."""

    name: str
    description: str | None
    required: bool


@dataclass(frozen=True, slots=True)
class PromptDeclaration:
    """What ``@prompt`` declared."""

    name: str
    description: str | None
    title: str | None
    arguments: tuple[PromptArgument, ...]


def _doc(func: Callable[..., Any]) -> str | None:
    import inspect

    text = inspect.getdoc(func)
    return text.strip().split("\n\n")[0].strip() or None if text else None


def resource(uri: str, *, name: str | None = None, description: str | None = None,
             mime_type: str | None = None, title: str | None = None
             ) -> Callable[[F], F]:
    """Declare a function as a resource (``memo://greeting``) or a resource template
    (``memo://notes/{topic}``), read by ``resources/read``.

    The function returns the resource's content: ``str`` (text) or ``bytes`` (a blob);
    it may be ``async def``. ``name`` defaults to the function's name, ``description`` to
    the first paragraph of its docstring.

    Raises:
        TypeError: ``uri`` is not a non-empty string, or a template's parts are not the
            function's parameters.
    """
    if not isinstance(uri, str) or not uri.strip():
        raise TypeError(f"@resource needs a URI string, got {uri!r}")

    def mark(func: F) -> F:
        import inspect

        parts = set(_PART.findall(uri))
        parameters = set(inspect.signature(func).parameters) - {"self"}
        if parts != parameters:
            raise TypeError(f"@resource({uri!r}) on {func.__qualname__}: the URI's parts "
                            f"{sorted(parts)} must be the function's parameters "
                            f"{sorted(parameters)}")
        setattr(func, RESOURCE_ATTRIBUTE, ResourceDeclaration(
            uri=uri, name=name or func.__name__, description=description or _doc(func),
            mime_type=mime_type, title=title))
        return func

    return mark


def _arguments(func: Callable[..., Any]) -> tuple[PromptArgument, ...]:
    import inspect
    import typing

    from agentforge_cli.core.declare.params import P

    arguments = []
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except (NameError, TypeError):  # an annotation that does not resolve: no descriptions
        hints = {}
    for parameter in inspect.signature(func).parameters.values():
        if parameter.name == "self" or parameter.kind in (parameter.VAR_POSITIONAL,
                                                          parameter.VAR_KEYWORD):
            continue
        described = [extra for extra in getattr(hints.get(parameter.name), "__metadata__", ())
                     if isinstance(extra, P)]
        arguments.append(PromptArgument(
            name=parameter.name,
            description=described[0].description if described else None,
            required=parameter.default is parameter.empty))
    return tuple(arguments)


def prompt(func: F | None = None, *, name: str | None = None,
           description: str | None = None, title: str | None = None) -> Any:
    """Declare a function as a prompt, got by ``prompts/get`` (``@prompt`` or
    ``@prompt(name=...)``).

    Its parameters are the prompt's arguments, given as strings; it returns the text of
    one user message, or a list of messages: ``{"role": "user"|"assistant", "content":
    str}`` each. It may be ``async def``. ``name`` defaults to the function's name,
    ``description`` to the first paragraph of its docstring.
    """

    def mark(inner: F) -> F:
        setattr(inner, PROMPT_ATTRIBUTE, PromptDeclaration(
            name=name or inner.__name__, description=description or _doc(inner),
            title=title, arguments=_arguments(inner)))
        return inner

    return mark(func) if func is not None else mark


def resource_declaration(obj: Any) -> ResourceDeclaration | None:
    """The ``@resource`` declaration of ``obj`` (a function or bound method), if any."""
    found = getattr(obj, RESOURCE_ATTRIBUTE, None)
    return found if isinstance(found, ResourceDeclaration) else None


def prompt_declaration(obj: Any) -> PromptDeclaration | None:
    """The ``@prompt`` declaration of ``obj`` (a function or bound method), if any."""
    found = getattr(obj, PROMPT_ATTRIBUTE, None)
    return found if isinstance(found, PromptDeclaration) else None
