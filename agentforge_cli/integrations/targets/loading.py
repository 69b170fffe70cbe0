"""Finding and loading the tools a command works on: the one loader of the command line,
the MCP server and the pytest plugin.

A target is ``package.module``, ``package.module:Name``, ``path/to/file.py[:Name]``, or an
MCP server: ``mcp:COMMAND [ARGS...]`` (started over stdio) or an ``http(s)://`` endpoint
(``integrations/mcp/client/``; their tools follow the Python targets' tools).
Without ``:Name`` the module is scanned as ``build_local_tools`` scans a module. ``Name``
(dotted names reach into objects) may be an instance, a class whose constructor takes no
arguments (it is instantiated), a tool function, a module, or a list of these. ``Name()``
names a factory: it is called without arguments and its value read as ``Name``'s would be.

Replay asks for a :class:`ToolSupply` (:func:`load_supply`): the service, and ``fresh``,
which makes another with the classes instantiated and the factories called again, for
each conversation; module-level instances, functions, modules scanned and MCP servers
are shared by every service it makes.

Where targets come from, first match wins:

1. the caller (the command line's ``TARGET ...`` / ``-t/--tools``, the plugin's options);
2. the ``AGENTFORGE_TOOLS`` environment variable, separated by commas;
3. ``tools = [...]`` under ``[tool.agentforge]`` in the nearest ``pyproject.toml``
   (relative file paths are read from that file's directory, which is also importable).

``tools check`` also reads ``providers = [...]`` from that table (:func:`find_providers`)
when no ``--provider`` is given, and the lint rules silenced per tool, ``ignore = {tool =
["rule", ...]}`` under ``[tool.agentforge.lint]`` (:func:`find_lint_ignores`); ``strict``
and ``timeout`` there are the project's settings (:func:`find_settings`), which a
command-line flag overrides, as are the scrubbers of ``[tool.agentforge.replay]``, which
``replay --scrub`` adds to. The whole table is checked whenever it is read: an unknown
key, a value of the wrong type or an unknown lint rule is an error.

Failures raise :class:`~agentforge_cli.errors.TargetConfigError` (nothing usable given)
or :class:`~agentforge_cli.errors.TargetError` (a target cannot be loaded). The current
directory is on the import path. Standard library only.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentforge_cli.core.define.capabilities import ForeignToolExecutor
from agentforge_cli.core.run.wrapping import innermost
from agentforge_cli.errors import TargetConfigError, TargetError, ToolDefinitionError
from agentforge_cli.integrations.config.keys import refuse_unknown_keys as _known_keys
from agentforge_cli.integrations.targets.importing import (
    call_factory,
    describe_value,
    import_location,
    instantiate,
    on_path,
    project_directories,
    read_attribute,
    short,
    split_factory,
    split_target,
)

__all__ = ["CONFIG_KEYS", "ENV_VAR", "LINT_KEYS", "NO_TARGET", "LintIgnores",
           "ProjectSettings", "TargetSource", "ToolSupply", "find_budget", "find_lint_ignores",
           "find_providers", "find_settings", "find_targets", "load_objects", "load_service",
           "load_supply", "load_target", "load_tools", "supply_tools"]

ENV_VAR = "AGENTFORGE_TOOLS"
CONFIG_KEYS = ("budget", "clients", "lint", "models", "providers", "replay", "serve",
               "strict", "timeout", "tools")
"""The keys ``[tool.agentforge]`` may hold; any other is an error (a typo never passes)."""
LINT_KEYS = ("ignore",)
"""The keys ``[tool.agentforge.lint]`` may hold."""
NO_TARGET = "no tool target given"
"""The message when no target is given anywhere."""
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
                 environ: Mapping[str, str] | None = None) -> TargetSource:
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
    raise TargetConfigError(NO_TARGET, hint=_HOW_TO_GIVE)


def find_providers(*, cwd: Path | None = None, key: str = "providers"
                   ) -> tuple[tuple[str, ...], str | None]:
    """``providers = [...]`` (or another list of names, ``key``: ``clients``) under
    ``[tool.agentforge]`` in the nearest ``pyproject.toml``.

    Returns:
        The names as written (not validated) and the file they came from; ``((), None)``
        when there is no such setting.

    Raises:
        TargetConfigError: The ``pyproject.toml`` cannot be read, or the setting is not a
            list of strings.
    """
    pyproject = _nearest_pyproject(cwd or Path.cwd())
    if pyproject is None:
        return (), None
    names = _string_list(pyproject, _agentforge_table(pyproject), key)
    return (names, str(pyproject)) if names else ((), None)


@dataclass(frozen=True, kw_only=True, slots=True)
class ProjectSettings:
    """``strict`` and ``timeout`` under ``[tool.agentforge]``, the scrubbers of
    ``[tool.agentforge.replay]`` and the identity of ``[tool.agentforge.serve]`` (``None``:
    not set)."""

    strict: bool | None = None
    """Bind strictly (``True``) or leniently (``False``)."""
    timeout: float | None = None
    """Seconds a call may run."""
    scrub: Any = None
    """What ``replay`` scrubs from results: a
    :class:`~agentforge_cli.replay.scrubbing.ScrubSettings`."""
    server: Any = None
    """How ``serve`` introduces itself (``[tool.agentforge.serve]``): a
    :class:`~agentforge_cli.integrations.config.serve.ServerIdentity`."""
    prices: Any = None
    """What ``eval`` prices a model's tokens at (``[tool.agentforge.models.prices]``):
    model name -> :class:`~agentforge_cli.models.prices.Price`."""


def find_settings(*, cwd: Path | None = None) -> ProjectSettings:
    """The project's settings, from the nearest ``pyproject.toml`` (none: all unset).

    Raises:
        TargetConfigError: The ``pyproject.toml`` cannot be read, or its table is malformed.
    """
    pyproject = _nearest_pyproject(cwd or Path.cwd())
    if pyproject is None:
        return ProjectSettings()
    table = _agentforge_table(pyproject)
    from agentforge_cli.integrations.config.models import model_prices
    from agentforge_cli.integrations.config.replay import replay_scrubbing
    from agentforge_cli.integrations.config.serve import server_identity

    return ProjectSettings(strict=table.get("strict"), timeout=table.get("timeout"),
                           scrub=replay_scrubbing(pyproject, table),
                           server=server_identity(pyproject, table),
                           prices=model_prices(pyproject, table))


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
    _known_keys(path, table, CONFIG_KEYS, "[tool.agentforge]")
    _check_settings(path, table)
    return table


def _check_settings(path: Path, table: dict[str, Any]) -> None:
    """Every key of the table has a value of its type (the error names the key)."""
    for key in ("clients", "providers", "tools"):
        _string_list(path, table, key)
    _lint_ignores(path, table)
    from agentforge_cli.integrations.config.budget import budget_limits

    budget_limits(path, table)  # [tool.agentforge.budget]
    if "replay" in table:
        from agentforge_cli.integrations.config.replay import replay_scrubbing

        replay_scrubbing(path, table)  # [tool.agentforge.replay]
    if "serve" in table:
        from agentforge_cli.integrations.config.serve import server_identity

        server_identity(path, table)  # [tool.agentforge.serve]
    if "models" in table:
        from agentforge_cli.integrations.config.models import model_prices

        model_prices(path, table)  # [tool.agentforge.models]
    strict = table.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise TargetConfigError(f"{path}: [tool.agentforge] strict must be true or false, "
                                f"got {strict!r}")
    timeout = table.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or not 0 < timeout < math.inf):
        raise TargetConfigError(f"{path}: [tool.agentforge] timeout must be a positive number "
                                f"of seconds, got {timeout!r}")


def find_budget(*, cwd: Path | None = None) -> Any:
    """The budgets of ``[tool.agentforge.budget]`` in the nearest ``pyproject.toml`` (a
    :class:`~agentforge_cli.schema.budget.BudgetLimits`; none set: every budget unset).

    Raises:
        TargetConfigError: The file cannot be read, or its table is malformed.
    """
    from agentforge_cli.integrations.config.budget import budget_limits

    pyproject = _nearest_pyproject(cwd or Path.cwd())
    return budget_limits(pyproject, _agentforge_table(pyproject) if pyproject else {})


LintIgnores = dict[str, tuple[str, ...]]
"""Tool name -> the lint rule ids silenced for it."""


def find_lint_ignores(*, cwd: Path | None = None) -> tuple[LintIgnores, str | None]:
    """``ignore = {tool = ["rule", ...]}`` under ``[tool.agentforge.lint]`` in the
    nearest ``pyproject.toml``.

    Returns:
        The rules silenced per tool, and the file they came from; ``({}, None)`` when
        there is no such setting.

    Raises:
        TargetConfigError: The ``pyproject.toml`` cannot be read, or its table is malformed
            (a value that is not a list of rule ids, a rule id that does not exist).
    """
    pyproject = _nearest_pyproject(cwd or Path.cwd())
    if pyproject is None:
        return {}, None
    ignores = _lint_ignores(pyproject, _agentforge_table(pyproject))
    return (ignores, str(pyproject)) if ignores else ({}, None)


def _lint_ignores(path: Path, table: dict[str, Any]) -> LintIgnores:
    """The ``[tool.agentforge.lint]`` table's ``ignore``, checked: a table of tool names,
    each a list of rule ids that exist."""
    lint = table.get("lint")
    if lint is None:
        return {}
    if not isinstance(lint, dict):
        raise TargetConfigError(f"{path}: [tool.agentforge] lint must be a table "
                                f'([tool.agentforge.lint]), got {lint!r}')
    _known_keys(path, lint, LINT_KEYS, "[tool.agentforge.lint]")
    ignore = lint.get("ignore")
    if ignore is None:
        return {}
    example = 'e.g. ignore = {get_weather = ["no-description"]}'
    if not isinstance(ignore, dict):
        raise TargetConfigError(f"{path}: [tool.agentforge.lint] ignore must be a table of "
                                f"tool names, each with a list of rule ids, got {ignore!r}",
                                hint=example)
    from agentforge_cli.schema.rule_ids import rule_problem

    ignores: LintIgnores = {}
    for tool, rules in ignore.items():
        where = f"{path}: [tool.agentforge.lint] ignore, tool {tool!r}"
        if not isinstance(rules, list) or not all(isinstance(rule, str) for rule in rules):
            raise TargetConfigError(f"{where}: must be a list of rule ids, got {rules!r}",
                                    hint=example)
        for rule in rules:
            problem = rule_problem(rule.strip())
            if problem is not None:
                raise TargetConfigError(f"{where}: {problem}")
        ignores[tool] = _unique(rules)
    return ignores


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


def _classes(value: Any) -> list[type]:
    """The classes ``value`` names (itself, or inside a list): made anew per conversation."""
    if isinstance(value, list | tuple):
        return [cls for item in value for cls in _classes(item)]
    return [value] if isinstance(value, type) else []


def _tool_classes(module: Any) -> list[str]:
    from agentforge_cli.core.declare.decorator import tool_meta

    found = []
    for name, value in vars(module).items():
        if (isinstance(value, type) and getattr(value, "__module__", None) == module.__name__
                and any(tool_meta(member) is not None for member in vars(value).values())):
            found.append(name)
    return found


@dataclass(frozen=True, kw_only=True, slots=True)
class _Contribution:
    """The objects one target contributes, and how to make them anew."""

    objects: list[Any]
    remake: Callable[[dict[type, Any]], list[Any]] | None
    """The objects made anew (its classes instantiated, its factory called again), the
    classes created so far given (shared by the targets naming them); ``None``: nothing
    can be made anew, the objects are shared."""
    fresh: str = ""
    """What is made anew, as the trace names it (``CrmTools``, ``make_tools()``)."""
    shared: str = ""
    """What is shared, as the trace names it (``module-level instance pkg.mod:tools``)."""


def _shared_label(spec: str, name: str | None, value: Any) -> str:
    import types

    if name is None or isinstance(value, types.ModuleType):
        return f"module {spec}"
    if isinstance(value, list | tuple):
        return f"objects of {spec}"
    if isinstance(value, types.FunctionType | types.BuiltinFunctionType | types.MethodType):
        return f"function {spec}"
    return f"module-level instance {spec}"


def _count_tools(spec: str, objects: list[Any]) -> int:
    from agentforge_cli.core.run.discovery import find_tools
    from agentforge_cli.integrations.frameworks import adapter_for, read_foreign

    count = 0
    for obj in objects:
        if adapter_for(obj) is not None:
            count += len(read_foreign(obj, spec))
            continue
        try:
            count += sum(1 for _ in find_tools(obj))
        except Exception as exc:
            raise TargetError(f"cannot load target {spec!r}: {short(exc)}") from exc
    return count


def _declares_extras(objects: list[Any]) -> bool:
    """Whether ``objects`` declare a resource or a prompt (``serve`` serves a target that
    has only those)."""
    from agentforge_cli.core.run.served_extras import DeclaredExtras

    try:
        return bool(DeclaredExtras.find(objects))
    except ToolDefinitionError:
        return True  # refused with its reason when the service is built


def _made_by(spec: str, name: str, factory: Any, created: dict[type, Any]) -> list[Any]:
    """What the factory ``name`` returns, expanded as a ``:Name`` value; refused when it
    holds no tool."""
    value = call_factory(spec, name, factory)
    objects = _expand(spec, value, created)
    if not _count_tools(spec, objects):
        raise TargetError(
            f"target {spec!r} yields no tool: {name}() returned {describe_value(value)}, which "
            "holds no @tool function and no instance with @tool methods",
            hint="return an instance with @tool methods, a @tool function, or a list of them")
    return objects


def _contribute(spec: str, base: Path | None, created: dict[type, Any]) -> _Contribution:
    """Import one target: its objects, how to make them anew, and how the trace names
    them (see :func:`load_target`)."""
    import types

    from agentforge_cli.integrations.mcp.client.transports.inference import is_mcp_target

    if is_mcp_target(spec):
        raise TargetConfigError(f"target {spec!r} is an MCP server, not Python objects: "
                                "load its tools with load_tools")
    base = base or Path.cwd()
    location, name = split_target(spec)
    name, factory = split_factory(spec, name) if name else (None, False)
    with on_path(project_directories(location, [base, Path.cwd()])):
        module = import_location(spec, location, base)
    value = read_attribute(spec, module, name) if name else module
    if factory:
        assert name is not None  # a factory is named: ``target:name()``

        def remade(again: dict[type, Any]) -> list[Any]:
            return _made_by(spec, name, value, again)

        return _Contribution(objects=remade(created), remake=remade, fresh=f"{name}()")
    objects = _expand(spec, value, created)
    if isinstance(value, types.ModuleType):
        from agentforge_cli.integrations.frameworks import module_members

        objects.extend(module_members(value))  # LangChain tools, FastMCP servers, ...
    if not _count_tools(spec, objects) and not _declares_extras(objects):
        hint = None
        if name is None and isinstance(module, types.ModuleType):
            defined = _tool_classes(module)
            if defined:
                hint = (f"{module.__name__} defines {', '.join(defined)} with @tool methods "
                        f"but no instance of it; target {location}:{defined[0]}")
        raise TargetError(f"target {spec!r} yields no tool: no @tool function, and no "
                          "instance with @tool methods", hint=hint)
    classes = _classes(value)
    if not classes:
        return _Contribution(objects=objects, remake=None,
                             shared=_shared_label(spec, name, value))
    others = len(objects) > len(classes)  # a list of classes and shared objects
    return _Contribution(objects=objects, remake=lambda again: _expand(spec, value, again),
                         fresh=", ".join(dict.fromkeys(cls.__qualname__ for cls in classes)),
                         shared=_shared_label(spec, name, value) if others else "")


def load_target(spec: str, base: Path | None = None,
                created: dict[type, Any] | None = None) -> list[Any]:
    """Import one target and return the objects it contributes to the factory.

    ``created`` maps classes already instantiated (by an earlier target) to their
    instance, so two targets naming the same class share one instance. A target ending
    in ``()`` names a factory: it is called without arguments, and what it returns is
    read as a ``:Name`` value.

    Raises:
        TargetError: The module cannot be imported, the name is missing, a class cannot be
            created, a factory cannot be called or fails, or the target yields no tool.
        TargetConfigError: The target string is malformed (arguments inside ``()``).
    """
    return _contribute(spec, base, {} if created is None else created).objects


def _contributions(source: TargetSource) -> list[_Contribution]:
    created: dict[type, Any] = {}
    return [_contribute(spec, source.base, created) for spec in source.specs]


def _each_once(objects: Iterable[Any]) -> list[Any]:
    """``objects`` without repeats (by identity), in order."""
    return list({id(obj): obj for obj in objects}.values())


def load_objects(source: TargetSource) -> list[Any]:
    """Every object the targets contribute, each once: a module or class named by two
    targets yields its tools once, from one shared instance."""
    return _each_once(obj for part in _contributions(source) for obj in part.objects)


def _python_table(objects: list[Any], specs: Sequence[str], options: dict[str, Any]
                  ) -> dict[Any, Any]:
    """The table of Python objects: agentforge's tools, then those of other libraries
    (``frameworks``; ``options["binding"]`` says how they are called)."""
    from agentforge_cli.core.run.discovery import build_local_tools
    from agentforge_cli.integrations.frameworks import Binding, adapter_for, foreign_table

    named = ", ".join(specs) or "the objects given"
    options = dict(options)
    binding: Binding = options.pop("binding", None) or "native"
    foreign = [obj for obj in objects if adapter_for(obj) is not None]
    plain = [obj for obj in objects if all(obj is not other for other in foreign)]
    try:
        table = build_local_tools(plain, **options)
    except ToolDefinitionError as exc:
        raise TargetError(f"cannot load the tools of {named}: {exc}") from exc
    if foreign:
        _add_served(table, foreign_table(foreign, named, binding=binding, **options), named)
    return table


def _split_servers(source: TargetSource) -> tuple[TargetSource, list[str]]:
    from agentforge_cli.integrations.mcp.client.transports.inference import is_mcp_target

    servers = [spec for spec in source.specs if is_mcp_target(spec)]
    local = TargetSource(specs=tuple(spec for spec in source.specs if spec not in servers),
                         origin=source.origin, base=source.base)
    return local, servers


def load_tools(source: TargetSource, objects: Sequence[Any] = (), *,
               mcp_options: Any = None, **options: Any) -> dict[Any, Any]:
    """The ``build_local_tools`` table of the targets' tools, then the MCP servers' tools.

    ``objects`` (instances, modules, functions given directly) join the Python targets'.
    ``options`` are ``build_local_tools``' keyword switches (``logging``, ``strict``,
    ``wrap_argument_errors``, ``propagate_execution_errors``, ``timeout``); an MCP
    server's tools take ``logging``, ``propagate_execution_errors`` and ``timeout``, and
    ``mcp_options`` (an
    :class:`~agentforge_cli.integrations.mcp.client.options.McpOptions`: headers,
    environment, directory).

    Raises:
        TargetError: A target cannot be loaded, or its tools cannot be defined.
        TargetConfigError: A target string is malformed.
    """
    return _load_tools(source, objects, mcp_options, options)[0]


def _load_tools(source: TargetSource, objects: Sequence[Any], mcp_options: Any,
                options: dict[str, Any]) -> tuple[dict[Any, Any], list[Any], list[Any]]:
    """:func:`load_tools`' table, the Python objects it was read from, and the MCP
    servers' connections (one per server, those without tools too)."""
    local, servers = _split_servers(source)
    table: dict[Any, Any] = {}
    python: list[Any] = []
    if local.specs or objects:
        loaded = load_objects(local) if local.specs else []
        python = _each_once([*loaded, *objects])
        table = _python_table(python, local.specs, options)
    connections = [_add_server_tools(table, spec, source.base, options, mcp_options)
                   for spec in servers]
    return table, python, connections


def _add_server_tools(table: dict[Any, Any], spec: str, base: Path,
                      options: dict[str, Any], mcp_options: Any) -> Any:
    """Start the MCP server ``spec`` names and add its tools (names must stay unique);
    its connection, kept whether or not it lists a tool."""
    from agentforge_cli.integrations.mcp.client.loading import load_mcp_server

    connection, tools = load_mcp_server(
        spec, base, timeout=options.get("timeout"), logging=bool(options.get("logging")),
        propagate_execution_errors=bool(options.get("propagate_execution_errors")),
        options=mcp_options, skip_problems=options.get("skip_problems"))
    _add_served(table, tools, spec)
    return connection


def _add_served(table: dict[Any, Any], tools: dict[Any, Any], spec: str) -> None:
    known = {specification.name for specification in table}
    for specification, executor in tools.items():
        if specification.name in known:
            raise TargetError(f"Duplicated definition for tool: {specification.name} (also "
                              f"served by {spec}); load only one of them")
        table[specification] = executor


def load_service(given: Sequence[str] | None, *, cwd: Path | None = None,
                 mcp_options: Any = None, record: Any = None,
                 **options: Any) -> Any:
    """Find the targets, load them and return a ``ToolService`` holding their tools.

    ``mcp_options`` (an
    :class:`~agentforge_cli.integrations.mcp.client.options.McpOptions`) says how to reach
    MCP targets;
    ``record``, where the service records every call (``ToolService(record=...)``).

    Raises:
        TargetConfigError: No target given anywhere, or a malformed one.
        TargetError: A target cannot be loaded, or its tools cannot be defined.
    """
    from agentforge_cli.core.run.served_extras import DeclaredExtras
    from agentforge_cli.core.run.service import ToolService

    service = ToolService(record=record)
    table, python, service.servers = _load_tools(find_targets(given, cwd=cwd), (),
                                                 mcp_options, options)
    service.tools(table)
    try:
        service.extras = DeclaredExtras.find(python)
    except ToolDefinitionError as exc:
        raise TargetError(f"cannot load the resources and prompts of "
                          f"{', '.join(given or ()) or 'the targets'}: {exc}") from exc
    return service


# -- fresh tools per conversation ------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolSupply:
    """The tools a replay runs against: one service, and how to make another.

    A class target is instantiated anew and a factory target (``Name()``) called again
    for each new service; a module-level instance, a function, a module scanned and an
    MCP server are shared: every service holds the same ones. Made by
    :func:`supply_tools` / :func:`load_supply`; given to ``Replayer(service, fresh=...)``.
    """

    service: Any
    """The ``ToolService`` holding every target's tools, made once."""
    fresh: Callable[[], Any] | None
    """Makes another ``ToolService``: its fresh part made anew, its shared part kept;
    ``None`` when no target can be made afresh."""
    description: str
    """What is made afresh and what is shared, for the trace's ``tools:`` line."""


def supply_tools(source: TargetSource, *, mcp_options: Any = None,
                 **options: Any) -> ToolSupply:
    """The targets' tools as a :class:`ToolSupply` (the arguments are :func:`load_tools`').

    Raises:
        TargetError: A target cannot be loaded, or its tools cannot be defined.
        TargetConfigError: A target string is malformed.
    """
    from agentforge_cli.core.run.service import ToolService

    local, servers = _split_servers(source)
    parts = _contributions(local)
    table: dict[Any, Any] = {}
    if parts:
        table = _python_table(_each_once(obj for part in parts for obj in part.objects),
                              local.specs, options)
    python = dict(table)
    connections = {spec: _add_server_tools(table, spec, source.base, options, mcp_options)
                   for spec in servers}
    protocols = {spec: connection.agreement.version if connection.agreement else None
                 for spec, connection in connections.items()}
    served = {spec: executor for spec, executor in table.items() if spec not in python}
    renewable = any(part.remake is not None for part in parts)
    return ToolSupply(service=ToolService().tools(table),
                      fresh=_Renewal(parts, python, served, local.specs, options)
                      if renewable else None,
                      description=_description(parts, protocols))


def load_supply(given: Sequence[str] | None, *, cwd: Path | None = None,
                mcp_options: Any = None, **options: Any) -> ToolSupply:
    """:func:`load_service`, as a :class:`ToolSupply` (for replay)."""
    return supply_tools(find_targets(given, cwd=cwd), mcp_options=mcp_options, **options)


class _Renewal:
    """``ToolSupply.fresh``: a new ``ToolService`` with the fresh part made anew.

    A shared tool keeps its executor; a new instance of a class seen when loading gets
    executors built from the definitions read then (nothing is scanned or parsed again);
    anything else (a factory giving other tools) is built as the first table was.
    """

    def __init__(self, parts: list[_Contribution], first: dict[Any, Any],
                 served: dict[Any, Any], specs: Sequence[str], options: dict[str, Any]
                 ) -> None:
        self.parts, self.served, self.specs, self.options = parts, served, specs, options
        if options.get("skip_problems") is not None:  # said once, when first loaded
            self.options = {**options, "skip_problems": _said_already}
        self.kept: dict[Any, Any] = {}  # what a shared tool calls -> its executor
        self.definitions: dict[Any, Any] = {}  # a method's function -> its definition
        self.bases: dict[Any, Any] = {}  # a method's function -> its first local executor
        for executor in first.values():
            definition = executor.definition
            self.kept[definition.call] = executor
            function = getattr(definition.call, "__func__", definition.call)
            self.definitions[function] = definition
            base = innermost(executor)
            if callable(getattr(base, "rebound", None)):
                self.bases[function] = base
        self.settings = {key: value for key, value in options.items()
                         if key not in ("logging", "binding", "skip_problems")}
        self.foreign: dict[int, Any] = {}  # a library's tool object -> its executor
        for executor in first.values():
            if isinstance(base := innermost(executor), ForeignToolExecutor):
                self.foreign[id(base.foreign.source)] = executor
        self.logging = bool(options.get("logging"))
        self.methods: dict[type, list[str]] = {}
        """A class made anew -> the names of its tool methods (found once)."""

    def __call__(self) -> Any:
        from agentforge_cli.core.run.service import ToolService

        created: dict[type, Any] = {}
        objects = _each_once(obj for part in self.parts for obj in (
            part.remake(created) if part.remake else part.objects))
        table = self._rebound(objects)
        if table is None:
            table = _python_table(objects, self.specs, self.options)
        _add_served(table, self.served, "an MCP server")
        return ToolService().tools(table)

    def _rebound(self, objects: list[Any]) -> dict[Any, Any] | None:
        """The table of ``objects`` from the executors and definitions of the first;
        ``None`` when a tool is not among them, or a name repeats."""
        from dataclasses import replace

        table: dict[Any, Any] = {}
        names: set[str] = set()
        from agentforge_cli.integrations.frameworks import adapter_for, read_foreign

        for obj in objects:
            if adapter_for(obj) is not None:  # another library's: kept if already seen
                for tool in read_foreign(obj, ", ".join(self.specs)):
                    kept = self.foreign.get(id(tool.source))
                    if kept is None or kept.name in names:
                        return None
                    names.add(kept.name)
                    table[kept.specification] = kept
                continue
            for func in self._tools_of(obj):
                executor = self.kept.get(func)
                function = getattr(func, "__func__", func)
                if executor is None and function in self.bases:
                    executor = _logged(self.bases[function].rebound(func), self.logging)
                elif executor is None:
                    definition = self.definitions.get(function)
                    if definition is None:
                        return None
                    executor = _executor(func, replace(definition, call=func),
                                         self.settings, logging=self.logging)
                if executor.name in names:  # the full build names the duplicate
                    return None
                names.add(executor.name)
                table[executor.specification] = executor
        return table


    def _tools_of(self, obj: Any) -> list[Any]:
        """What ``obj`` contributes, as discovery finds it; an instance of a class made
        anew before is not scanned again."""
        from agentforge_cli.core.run.discovery import find_tools, tool_method_names

        cls = type(obj)
        methods = self.methods.get(cls)
        if methods is not None:
            return [getattr(obj, name) for name in methods]
        found = list(find_tools(obj))
        if all(getattr(func, "__self__", None) is obj for func in found):
            self.methods[cls] = tool_method_names(cls)
        return found


def _said_already(problem: str) -> None:
    """A tool left out again, for another conversation: said when first loaded."""


def _executor(func: Any, definition: Any, settings: dict[str, Any], *, logging: bool) -> Any:
    from agentforge_cli.core.run.executor import LocalToolExecutor

    return _logged(LocalToolExecutor(func, definition=definition, **settings), logging)


def _logged(executor: Any, logging: bool) -> Any:
    if not logging:
        return executor
    from agentforge_cli.core.observe.calllog import LoggingToolExecutor

    return LoggingToolExecutor(executor)


def _description(parts: list[_Contribution], servers: Mapping[str, str | None]) -> str:
    """``CrmTools, made afresh for each conversation; shared across conversations
    (module-level instance pkg.mod:tools)``: the parts that apply (each MCP server with
    the protocol version agreed)."""
    fresh = list(dict.fromkeys(part.fresh for part in parts if part.fresh))
    shared = [*dict.fromkeys(part.shared for part in parts if part.shared),
              *(f"MCP server {_server_shown(spec)}"
                + (f" (protocol {version})" if version else "")
                for spec, version in servers.items())]
    said = []
    if fresh:
        said.append(f"{', '.join(fresh)}, made afresh for each conversation")
    if shared:
        said.append(f"shared across conversations ({'; '.join(shared)})")
    return "; ".join(said)


def _server_shown(spec: str) -> str:
    """An MCP target without what may be a secret: ``mcp:`` and the program it starts
    (not its arguments), or a URL's scheme, host and path (no credentials, no query)."""
    if spec.startswith("mcp:"):
        words = spec[4:].split()
        return f"mcp:{words[0]}" + (" ..." if len(words) > 1 else "") if words else "mcp:"
    from urllib.parse import urlsplit

    parts = urlsplit(spec)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"
