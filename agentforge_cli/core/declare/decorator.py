"""``@tool``: mark a function or method as a tool the model can call.

The decorator returns the very function it was given, with frozen metadata attached as
``__agentforge_tool__``; decorated functions stay normal, testable functions. Nothing is
inspected here: signatures are read when the tool is registered (``build_local_tools``).
"""

from __future__ import annotations

from agentforge_cli.core.declare.immutable import Immutable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

__all__ = ["TOOL_ATTRIBUTE", "ToolMeta", "tool", "tool_meta"]

TOOL_ATTRIBUTE = "__agentforge_tool__"


class ToolMeta(Immutable):
    """What ``@tool`` recorded about a function."""

    __slots__ = ("annotations", "description", "icons", "lint_ignore", "meta", "name", "title",
                 "volatile")

    name: str | None
    """The tool name the model calls, or ``None`` for the function's ``__name__``."""
    description: str | None
    """The description, or ``None`` for the docstring's summary."""
    title: str | None
    """A human-readable title (MCP ``title``), or ``None``."""
    annotations: dict[str, object] | None
    """MCP tool annotations (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``,
    ``openWorldHint``), or ``None``."""
    icons: tuple[dict[str, object], ...] | None
    """MCP icons (``{"src": ..., "mimeType": ..., "sizes": [...]}`` each), or ``None``."""
    meta: dict[str, object] | None
    """The tool's MCP ``_meta`` (keys such as ``"com.example/owner"``), or ``None``."""
    lint_ignore: tuple[str, ...]
    """The lint rules ``tools check`` silences for this tool (never part of its
    schema)."""
    volatile: tuple[str, ...]
    """The volatile parts of its results, as scrubbers (``$.created_at``,
    ``timestamps``, ``re:...``): ``replay`` compares its results without them. Read
    (and checked) by replay, never part of its schema."""

    def __init__(self, name: str | None, description: str | None, title: str | None = None,
                 annotations: dict[str, object] | None = None,
                 lint_ignore: tuple[str, ...] = (), volatile: tuple[str, ...] = (),
                 icons: tuple[dict[str, object], ...] | None = None,
                 meta: dict[str, object] | None = None) -> None:
        self._fill(name=name, description=description, title=title,
                   annotations=dict(annotations) if annotations else None,
                   lint_ignore=tuple(lint_ignore), volatile=tuple(volatile),
                   icons=tuple(dict(icon) for icon in icons) if icons else None,
                   meta=dict(meta) if meta else None)

    def __repr__(self) -> str:
        return f"ToolMeta(name={self.name!r}, description={self.description!r})"


def _check_icons(icons: object) -> None:
    """Raise ``TypeError`` unless ``icons`` is ``None`` or a list of dicts, each with a
    string ``src``."""
    if icons is None:
        return
    if not isinstance(icons, list | tuple) or not all(
            isinstance(icon, dict) and isinstance(icon.get("src"), str) and icon["src"]
            and all(isinstance(key, str) for key in icon) for icon in icons):
        raise TypeError(f'@tool(icons=...) must be a list of dicts such as [{{"src": '
                        f'"https://example.com/icon.png"}}], got {icons!r}')


def tool(func: Any = None, /, *, name: str | None = None, description: str | None = None,
         title: str | None = None, annotations: dict[str, object] | None = None,
         lint_ignore: list[str] | tuple[str, ...] | None = None,
         volatile: list[str] | tuple[str, ...] | None = None,
         icons: list[dict[str, object]] | tuple[dict[str, object], ...] | None = None,
         meta: dict[str, object] | None = None) -> Any:
    """Declare a tool: ``@tool`` or ``@tool(name=..., description=...)``.

    Works on module-level functions, methods (the tool is bound to its instance when the
    instance is registered), ``staticmethod``/``classmethod`` objects and ``async def``
    functions.

    Args:
        func: The function, when used bare as ``@tool``.
        name: Tool name shown to the model; defaults to the function's name.
        description: Tool description; defaults to the docstring's summary.
        title: A human-readable title, shown by MCP clients.
        annotations: MCP tool annotations, e.g. ``{"readOnlyHint": True}``.
        lint_ignore: Lint rule ids ``tools check`` silences for this tool, e.g.
            ``["no-description", "gemini:free-form-object"]``; what they silence is
            still reported, apart. The schema does not change.
        volatile: The parts of its results that change from run to run, which
            ``agentforge replay`` scrubs from both the recorded and today's result
            before comparing them: JSON paths (``"$.created_at"``, ``"$..id"``),
            regular expressions (``"re:op-[0-9a-f]+"``) or detectors (``"timestamps"``,
            ``"uuids"``, ``"hex-ids"``, ``"durations"``). Checked when a replay loads
            the tool. The schema does not change.
        icons: MCP icons for clients that show them, each a dict with a ``src`` URL
            (``https:`` or a ``data:`` URI) and optionally ``mimeType``, ``sizes``
            (``["48x48"]``) and ``theme`` (``"light"``/``"dark"``).
        meta: The tool's MCP ``_meta``: a dict with string keys, sent as it is.

    Returns:
        The function itself (or a decorator, when called with options).

    Raises:
        TypeError: When ``name``/``description`` are not strings, ``lint_ignore`` is not
            a list of rule ids, ``volatile`` not a list of strings, or the target is
            not callable.
    """
    if name is not None and (not isinstance(name, str) or not name):
        raise TypeError(f"@tool(name=...) must be a non-empty string, got {name!r}")
    if description is not None and not isinstance(description, str):
        raise TypeError(f"@tool(description=...) must be a string, got {description!r}")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"@tool(title=...) must be a string, got {title!r}")
    if annotations is not None and (not isinstance(annotations, dict) or not all(
            isinstance(key, str) for key in annotations)):
        raise TypeError(f"@tool(annotations=...) must be a dict with string keys, "
                        f"got {annotations!r}")
    if lint_ignore is not None and (not isinstance(lint_ignore, list | tuple) or not all(
            isinstance(rule, str) and rule.strip() for rule in lint_ignore)):
        raise TypeError(f"@tool(lint_ignore=...) must be a list of rule ids such as "
                        f'["no-description"], got {lint_ignore!r}')
    if volatile is not None and (not isinstance(volatile, list | tuple) or not all(
            isinstance(rule, str) and rule.strip() for rule in volatile)):
        raise TypeError(f"@tool(volatile=...) must be a list of scrubbers such as "
                        f'["$.created_at", "timestamps"], got {volatile!r}')
    _check_icons(icons)
    if meta is not None and (not isinstance(meta, dict) or not all(
            isinstance(key, str) for key in meta)):
        raise TypeError(f"@tool(meta=...) must be a dict with string keys, got {meta!r}")
    recorded = ToolMeta(name, description, title, annotations,
                        tuple(dict.fromkeys(rule.strip() for rule in lint_ignore or ())),
                        tuple(dict.fromkeys(volatile or ())),
                        tuple(icons) if icons else None, meta)

    def mark(target: Any) -> Any:  # the function (or static/class method) itself
        inner = target.__func__ if isinstance(target, staticmethod | classmethod) else target
        if not callable(inner):
            raise TypeError(f"@tool can only decorate a function, got {target!r}")
        setattr(inner, TOOL_ATTRIBUTE, recorded)
        return target

    if func is not None:
        if isinstance(func, str):
            raise TypeError("use @tool(name=...) to name a tool, not @tool('...')")
        return mark(func)
    return mark


def tool_meta(obj: object) -> ToolMeta | None:
    """Return the ``@tool`` metadata of a function (or static/class method), else ``None``."""
    if isinstance(obj, staticmethod | classmethod):
        obj = obj.__func__
    meta = getattr(obj, TOOL_ATTRIBUTE, None)
    return meta if isinstance(meta, ToolMeta) else None
