"""Finding and loading the tools a command works on (SPEC 5, TARGET).

A target is ``package.module``, ``package.module:Name`` or ``path/to/file.py[:Name]``.
Without ``:Name`` the module is scanned as ``build_local_tools`` scans a module. ``Name``
(dotted names reach into objects) may be an instance, a class whose constructor takes no
arguments (it is instantiated), a tool function, a module, or a list of these.

Where targets come from, first match wins:

1. the command line (``TARGET ...`` or ``-t/--tools``);
2. the ``AGENTFORGE_TOOLS`` environment variable, separated by commas;
3. ``tools = [...]`` under ``[tool.agentforge]`` in the nearest ``pyproject.toml``
   (relative file paths are read from that file's directory, which is also importable).

``tools check`` also reads ``providers = [...]`` from that table (:func:`find_providers`)
when no ``--provider`` is given.

The current directory is on the import path. Standard library only.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentforge_cli.cli.errors import LoadError, UsageError

__all__ = ["ENV_VAR", "TargetSource", "find_providers", "find_targets", "load_service",
           "load_target"]

ENV_VAR = "AGENTFORGE_TOOLS"
_HOW_TO_GIVE = (
    "give one: `agentforge tools list package.module:Name` (or `-t package.module:Name` "
    f"for call and replay), set {ENV_VAR}=package.module[:Name] (comma-separated), or add "
    'to pyproject.toml:\n  [tool.agentforge]\n  tools = ["package.module:Name"]')
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass(frozen=True)
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
        UsageError: No target anywhere (the message says how to give one), or a
            ``pyproject.toml`` whose ``[tool.agentforge]`` table cannot be read.
    """
    cwd = cwd or Path.cwd()
    environ = os.environ if environ is None else environ
    specs = _unique(given or ())
    if specs:
        return TargetSource(specs, "command line", cwd)
    specs = _unique(environ.get(ENV_VAR, "").split(","))
    if specs:
        return TargetSource(specs, ENV_VAR, cwd)
    pyproject = _nearest_pyproject(cwd)
    if pyproject is not None:
        specs = _pyproject_targets(pyproject)
        if specs:
            return TargetSource(specs, str(pyproject), pyproject.parent)
    raise UsageError("no tool target given", hint=_HOW_TO_GIVE)


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
        raise UsageError(f"cannot read {path}: {exc}") from exc
    tool = data.get("tool", {})
    table = tool.get("agentforge", {}) if isinstance(tool, dict) else {}
    return table if isinstance(table, dict) else {}


def _string_list(path: Path, table: dict[str, Any], key: str) -> tuple[str, ...]:
    value = table.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{path}: [tool.agentforge] {key} must be a list of strings, "
                         f"got {value!r}")
    return _unique(value)


def _pyproject_targets(path: Path) -> tuple[str, ...]:
    return _string_list(path, _agentforge_table(path), "tools")


def find_providers(*, cwd: Path | None = None) -> tuple[tuple[str, ...], str | None]:
    """``providers = [...]`` under ``[tool.agentforge]`` in the nearest ``pyproject.toml``.

    Returns:
        The provider names as written (not validated) and the file they came from;
        ``((), None)`` when there is no such setting.

    Raises:
        UsageError: The ``pyproject.toml`` cannot be read, or ``providers`` is not a list
            of strings.
    """
    pyproject = _nearest_pyproject(cwd or Path.cwd())
    if pyproject is None:
        return (), None
    names = _string_list(pyproject, _agentforge_table(pyproject), "providers")
    return (names, str(pyproject)) if names else ((), None)


# -- loading one target ----------------------------------------------------------------------


def _split(spec: str) -> tuple[str, str | None]:
    """``location[:Name]`` -> (location, Name); a Windows drive colon is not a separator."""
    head, sep, tail = spec.rpartition(":")
    if not sep or not head or tail.startswith(("/", "\\")):
        return spec, None
    if not tail:
        raise UsageError(f"target {spec!r} has nothing after ':'",
                         hint="write package.module:Name or path/to/file.py:Name")
    return head, tail


def _is_path(location: str) -> bool:
    return location.endswith(".py") or "/" in location or "\\" in location


def _ensure_on_path(directory: Path) -> None:
    text = str(directory)
    if text not in sys.path:
        sys.path.insert(0, text)


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _import_failure(spec: str, module: str, exc: BaseException) -> LoadError:
    if isinstance(exc, ModuleNotFoundError) and exc.name and (
            module == exc.name or module.startswith(exc.name + ".")):
        return LoadError(f"cannot load target {spec!r}: no module named {exc.name!r}",
                         hint="check the spelling; the current directory is on the import "
                              "path, so run agentforge from your project's root")
    if isinstance(exc, SyntaxError):
        where = f"{exc.filename}, line {exc.lineno}" if exc.filename else "the module"
        message = f"cannot load target {spec!r}: syntax error in {where}: {exc.msg}"
        if exc.text and exc.text.strip():
            message += f"\n  {exc.text.strip()}"
        return LoadError(message)
    return LoadError(f"cannot load target {spec!r}: importing {module} failed: {_short(exc)}")


def _import_module(spec: str, name: str) -> Any:
    if not _DOTTED.fullmatch(name):
        raise LoadError(f"cannot load target {spec!r}: {name!r} is neither a module name "
                        "nor a path to a .py file")
    try:
        return importlib.import_module(name)
    except (Exception, SystemExit) as exc:
        raise _import_failure(spec, name, exc) from exc


def _module_name_for(path: Path) -> str | None:
    """The dotted name of a file inside packages reachable from ``sys.path``, if any."""
    parts = [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file():
        parts.insert(0, directory.name)
        directory = directory.parent
    if len(parts) == 1:
        return None
    root = str(directory)
    if any(os.path.abspath(entry or ".") == root for entry in sys.path):
        name = ".".join(parts)
        return name if _DOTTED.fullmatch(name) else None
    return None


def _import_file(spec: str, location: str, base: Path) -> Any:
    path = Path(location)
    if not path.is_absolute():
        path = base / path
    path = path.resolve()
    if not path.is_file():
        raise LoadError(f"cannot load target {spec!r}: no such file {str(path)!r}")
    dotted = _module_name_for(path)
    if dotted is not None:
        return _import_module(spec, dotted)
    _ensure_on_path(path.parent)
    name = path.stem if path.stem.isidentifier() else "agentforge_target"
    existing = sys.modules.get(name)
    if existing is not None:
        if os.path.abspath(getattr(existing, "__file__", "") or "") == str(path):
            return existing
        name = f"_agentforge_target_{abs(hash(str(path))):x}"
        if name in sys.modules:
            return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise LoadError(f"cannot load target {spec!r}: {path} is not a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        raise _import_failure(spec, str(path), exc) from exc
    return module


def _attribute(spec: str, module: Any, name: str) -> Any:
    value = module
    for part in name.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            import difflib

            owner = getattr(value, "__name__", type(value).__name__)
            close = difflib.get_close_matches(part, [a for a in dir(value)
                                                     if not a.startswith("_")], n=3)
            hint = f"did you mean: {', '.join(close)}?" if close else None
            raise LoadError(f"cannot load target {spec!r}: {owner!r} has no attribute "
                            f"{part!r}", hint=hint) from None
        except Exception as exc:  # a property that raises
            raise LoadError(f"cannot load target {spec!r}: reading {part!r} failed: "
                            f"{_short(exc)}") from exc
    return value


def _instantiate(spec: str, cls: type) -> Any:
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        signature = None
    if signature is not None:
        needed = [p.name for p in signature.parameters.values()
                  if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if needed:
            raise LoadError(
                f"cannot load target {spec!r}: class {cls.__qualname__} needs constructor "
                f"arguments ({', '.join(needed)}); only a class whose constructor takes no "
                "arguments can be created for you",
                hint=f"create an instance in its module, e.g. `tools = {cls.__name__}(...)`, "
                     "and target module:tools")
    try:
        return cls()
    except Exception as exc:
        raise LoadError(f"cannot load target {spec!r}: creating {cls.__qualname__}() failed: "
                        f"{_short(exc)}") from exc


def _expand(spec: str, value: Any, created: dict[type, Any]) -> list[Any]:
    if isinstance(value, list | tuple):
        return [obj for item in value for obj in _expand(spec, item, created)]
    if isinstance(value, type):
        if value not in created:
            created[value] = _instantiate(spec, value)
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
        LoadError: The module cannot be imported, the name is missing, a class cannot be
            created, or the target yields no tool.
        UsageError: The target string is malformed.
    """
    import types

    from agentforge_cli.core.discovery import find_tools

    base = base or Path.cwd()
    _ensure_on_path(Path.cwd())
    _ensure_on_path(base)
    location, name = _split(spec)
    module = (_import_file(spec, location, base) if _is_path(location)
              else _import_module(spec, location))
    objects = _expand(spec, _attribute(spec, module, name) if name else module,
                      {} if created is None else created)
    count = 0
    for obj in objects:
        try:
            count += sum(1 for _ in find_tools(obj))
        except Exception as exc:
            raise LoadError(f"cannot load target {spec!r}: {_short(exc)}") from exc
    if not count:
        hint = None
        if name is None and isinstance(module, types.ModuleType):
            classes = _tool_classes(module)
            if classes:
                hint = (f"{module.__name__} defines {', '.join(classes)} with @tool methods "
                        f"but no instance of it; target {location}:{classes[0]}")
        raise LoadError(f"target {spec!r} yields no tool: no @tool function, and no "
                        "instance with @tool methods", hint=hint)
    return objects


def load_service(
    given: Sequence[str] | None,
    *,
    logging: bool = False,
    strict: bool = False,
    wrap_argument_errors: bool = False,
    propagate_execution_errors: bool = False,
    timeout: float | None = None,
) -> Any:
    """Find the targets, load them and return a ``ToolService`` holding their tools.

    Raises:
        UsageError: No target given anywhere.
        LoadError: A target cannot be loaded, or its tools cannot be defined.
    """
    from agentforge_cli.core.discovery import build_local_tools
    from agentforge_cli.core.service import ToolService
    from agentforge_cli.errors import ToolDefinitionError

    source = find_targets(given)
    objects: dict[int, Any] = {}  # by identity: one target named twice counts once
    created: dict[type, Any] = {}
    for spec in source.specs:
        for obj in load_target(spec, source.base, created):
            objects.setdefault(id(obj), obj)
    try:
        tools = build_local_tools(
            list(objects.values()), logging, strict=strict,
            wrap_argument_errors=wrap_argument_errors,
            propagate_execution_errors=propagate_execution_errors, timeout=timeout)
    except ToolDefinitionError as exc:
        raise LoadError(f"cannot load the tools of {', '.join(source.specs)}: {exc}") from exc
    service = ToolService()
    service.tools(tools)
    return service
