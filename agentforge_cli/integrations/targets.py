"""Finding and loading the tools a command works on: the one loader of the command line,
the MCP server and the pytest plugin.

A target is ``package.module``, ``package.module:Name``, ``path/to/file.py[:Name]``, or an
MCP server: ``mcp:COMMAND [ARGS...]`` (started over stdio) or an ``http(s)://`` endpoint
(``mcp_target.py``; their tools follow the Python targets' tools).
Without ``:Name`` the module is scanned as ``build_local_tools`` scans a module. ``Name``
(dotted names reach into objects) may be an instance, a class whose constructor takes no
arguments (it is instantiated), a tool function, a module, or a list of these.

Where targets come from, first match wins:

1. the caller (the command line's ``TARGET ...`` / ``-t/--tools``, the plugin's options);
2. the ``AGENTFORGE_TOOLS`` environment variable, separated by commas;
3. ``tools = [...]`` under ``[tool.agentforge]`` in the nearest ``pyproject.toml``
   (relative file paths are read from that file's directory, which is also importable).

``tools check`` also reads ``providers = [...]`` from that table (:func:`find_providers`)
when no ``--provider`` is given.

Failures raise :class:`~agentforge_cli.errors.TargetConfigError` (nothing usable given)
or :class:`~agentforge_cli.errors.TargetError` (a target cannot be loaded). The current
directory is on the import path. Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentforge_cli.errors import TargetConfigError, TargetError
from agentforge_cli.integrations.importing import (
    ensure_on_path,
    import_location,
    instantiate,
    read_attribute,
    short,
    split_target,
)

__all__ = ["CONFIG_KEYS", "ENV_VAR", "TargetSource", "find_providers", "find_targets",
           "load_objects", "load_service", "load_target", "load_tools"]

ENV_VAR = "AGENTFORGE_TOOLS"
CONFIG_KEYS = ("providers", "tools")
"""The keys ``[tool.agentforge]`` may hold; any other is an error (a typo never passes)."""
_HOW_TO_GIVE = (
    "give one: `agentforge tools list package.module:Name` (or `-t package.module:Name` "
    f"for call and replay), set {ENV_VAR}=package.module[:Name] (comma-separated), or add "
    'to pyproject.toml:\n  [tool.agentforge]\n  tools = ["package.module:Name"]')


@dataclass(frozen=True, kw_only=True, slots=True)
class TargetSource:
    """The targets a command uses and where they were found."""

    specs: tuple[str, ...]
    """The target strings, duplicates removed, in order."""
    origin: str
    """``command line``, ``AGENTFORGE_TOOLS`` or the ``pyproject.toml`` path."""
    base: Path
    """Directory relative file targets are read from (and added to the import path)."""


def _unique(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item.strip() for item in items if item and item.strip()))


def find_targets(given: Sequence[str] | None, *, cwd: Path | None = None,
                 environ: dict[str, str] | None = None) -> TargetSource:
    """Decide which targets to load (see the module docstring for the order).

    Raises:
        TargetConfigError: No target anywhere (the hint says how to give one), or a
            ``pyproject.toml`` whose ``[tool.agentforge]`` table cannot be read.
    """
    cwd = cwd or Path.cwd()
    environ = os.environ if environ is None else environ
    specs = _unique(given or ())
    if specs:
        return TargetSource(specs=specs, origin="command line", base=cwd)
    specs = _unique(environ.get(ENV_VAR, "").split(","))
    if specs:
        return TargetSource(specs=specs, origin=ENV_VAR, base=cwd)
    pyproject = _nearest_pyproject(cwd)
    if pyproject is not None:
        specs = _string_list(pyproject, _agentforge_table(pyproject), "tools")
        if specs:
            return TargetSource(specs=specs, origin=str(pyproject), base=pyproject.parent)
    raise TargetConfigError("no tool target given", hint=_HOW_TO_GIVE)


def find_providers(*, cwd: Path | None = None) -> tuple[tuple[str, ...], str | None]:
    """``providers = [...]`` under ``[tool.agentforge]`` in the nearest ``pyproject.toml``.

    Returns:
        The provider names as written (not validated) and the file they came from;
        ``((), None)`` when there is no such setting.

    Raises:
        TargetConfigError: The ``pyproject.toml`` cannot be read, or ``providers`` is not a
            list of strings.
    """
    pyproject = _nearest_pyproject(cwd or Path.cwd())
    if pyproject is None:
        return (), None
    names = _string_list(pyproject, _agentforge_table(pyproject), "providers")
    return (names, str(pyproject)) if names else ((), None)


def _nearest_pyproject(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _agentforge_table(path: Path) -> dict[str, Any]:
    """The ``[tool.agentforge]`` table of a ``pyproject.toml`` (``{}`` when absent)."""
    import tomllib

    try:
        with path.open("rb") as stream:
            data = tomllib.load(stream)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TargetConfigError(f"cannot read {path}: {exc}") from exc
    tool = data.get("tool", {})
    table = tool.get("agentforge", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise TargetConfigError(f"{path}: [tool.agentforge] must be a table, got {table!r}")
    unknown = [key for key in table if key not in CONFIG_KEYS]
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], CONFIG_KEYS, n=1)
        raise TargetConfigError(
            f"{path}: unknown key {unknown[0]!r} in [tool.agentforge]; the keys are: "
            f"{', '.join(CONFIG_KEYS)}",
            hint=f"did you mean {close[0]!r}?" if close else None)
    return table


def _string_list(path: Path, table: dict[str, Any], key: str) -> tuple[str, ...]:
    value = table.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TargetConfigError(f"{path}: [tool.agentforge] {key} must be a list of strings, "
                                f"got {value!r}")
    return _unique(value)


# -- loading ---------------------------------------------------------------------------------


def _expand(spec: str, value: Any, created: dict[type, Any]) -> list[Any]:
    if isinstance(value, list | tuple):
        return [obj for item in value for obj in _expand(spec, item, created)]
    if isinstance(value, type):
        if value not in created:
            created[value] = instantiate(spec, value)
        return [created[value]]
    return [value]


def _tool_classes(module: Any) -> list[str]:
    from agentforge_cli.core.decorator import tool_meta

    found = []
    for name, value in vars(module).items():
        if (isinstance(value, type) and getattr(value, "__module__", None) == module.__name__
                and any(tool_meta(member) is not None for member in vars(value).values())):
            found.append(name)
    return found


def load_target(spec: str, base: Path | None = None,
                created: dict[type, Any] | None = None) -> list[Any]:
    """Import one target and return the objects it contributes to the factory.

    ``created`` maps classes already instantiated (by an earlier target) to their
    instance, so two targets naming the same class share one instance.

    Raises:
        TargetError: The module cannot be imported, the name is missing, a class cannot be
            created, or the target yields no tool.
        TargetConfigError: The target string is malformed.
    """
    import types

    from agentforge_cli.core.discovery import find_tools
    from agentforge_cli.integrations.mcp_target import is_mcp_target

    if is_mcp_target(spec):
        raise TargetConfigError(f"target {spec!r} is an MCP server, not Python objects: "
                                "load its tools with load_tools")
    base = base or Path.cwd()
    ensure_on_path(Path.cwd())
    ensure_on_path(base)
    location, name = split_target(spec)
    module = import_location(spec, location, base)
    objects = _expand(spec, read_attribute(spec, module, name) if name else module,
                      {} if created is None else created)
    count = 0
    for obj in objects:
        try:
            count += sum(1 for _ in find_tools(obj))
        except Exception as exc:
            raise TargetError(f"cannot load target {spec!r}: {short(exc)}") from exc
    if not count:
        hint = None
        if name is None and isinstance(module, types.ModuleType):
            classes = _tool_classes(module)
            if classes:
                hint = (f"{module.__name__} defines {', '.join(classes)} with @tool methods "
                        f"but no instance of it; target {location}:{classes[0]}")
        raise TargetError(f"target {spec!r} yields no tool: no @tool function, and no "
                          "instance with @tool methods", hint=hint)
    return objects


def load_objects(source: TargetSource) -> list[Any]:
    """Every object the targets contribute, each once: a module or class named by two
    targets yields its tools once, from one shared instance."""
    objects: dict[int, Any] = {}  # by identity
    created: dict[type, Any] = {}
    for spec in source.specs:
        for obj in load_target(spec, source.base, created):
            objects.setdefault(id(obj), obj)
    return list(objects.values())


def load_tools(source: TargetSource, objects: Sequence[Any] = (), *,
               mcp_options: Any = None, **options: Any) -> dict[Any, Any]:
    """The ``build_local_tools`` table of the targets' tools, then the MCP servers' tools.

    ``objects`` (instances, modules, functions given directly) join the Python targets'.
    ``options`` are ``build_local_tools``' keyword switches (``logging``, ``strict``,
    ``wrap_argument_errors``, ``propagate_execution_errors``, ``timeout``); an MCP
    server's tools take ``logging``, ``propagate_execution_errors`` and ``timeout``, and
    ``mcp_options`` (an ``mcp_target.McpOptions``: headers, environment, directory).

    Raises:
        TargetError: A target cannot be loaded, or its tools cannot be defined.
        TargetConfigError: A target string is malformed.
    """
    from agentforge_cli.core.discovery import build_local_tools
    from agentforge_cli.errors import ToolDefinitionError
    from agentforge_cli.integrations.mcp_target import is_mcp_target

    servers = [spec for spec in source.specs if is_mcp_target(spec)]
    local = TargetSource(specs=tuple(spec for spec in source.specs if spec not in servers),
                         origin=source.origin, base=source.base)
    table: dict[Any, Any] = {}
    if local.specs or objects:
        loaded = load_objects(local) if local.specs else []
        unique = list({id(obj): obj for obj in [*loaded, *objects]}.values())
        try:
            table = build_local_tools(unique, **options)
        except ToolDefinitionError as exc:
            named = ", ".join(local.specs) or "the objects given"
            raise TargetError(f"cannot load the tools of {named}: {exc}") from exc
    for spec in servers:
        _add_server_tools(table, spec, source.base, options, mcp_options)
    return table


def _add_server_tools(table: dict[Any, Any], spec: str, base: Path,
                      options: dict[str, Any], mcp_options: Any) -> None:
    """Start the MCP server ``spec`` names and add its tools (names must stay unique)."""
    from agentforge_cli.integrations.mcp_target import load_mcp_tools

    known = {specification.name for specification in table}
    tools = load_mcp_tools(spec, base, timeout=options.get("timeout"),
                           logging=bool(options.get("logging")),
                           propagate_execution_errors=bool(
                               options.get("propagate_execution_errors")),
                           options=mcp_options)
    for specification, executor in tools.items():
        if specification.name in known:
            raise TargetError(f"Duplicated definition for tool: {specification.name} (also "
                              f"served by {spec}); load only one of them")
        table[specification] = executor


def load_service(given: Sequence[str] | None, *, cwd: Path | None = None,
                 mcp_options: Any = None, **options: Any) -> Any:
    """Find the targets, load them and return a ``ToolService`` holding their tools.

    ``mcp_options`` (an ``mcp_target.McpOptions``) says how to reach MCP targets.

    Raises:
        TargetConfigError: No target given anywhere, or a malformed one.
        TargetError: A target cannot be loaded, or its tools cannot be defined.
    """
    from agentforge_cli.core.service import ToolService

    service = ToolService()
    service.tools(load_tools(find_targets(given, cwd=cwd), mcp_options=mcp_options,
                             **options))
    return service
