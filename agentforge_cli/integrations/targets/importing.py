"""Import what a target names: a module by dotted name or a ``.py`` file, then an attribute
path inside it, then an instance of a class whose constructor takes no arguments, or
the value a factory (``Name()``: a function called without arguments) returns.

Every failure becomes a :class:`~agentforge_cli.errors.TargetError` that names the target
and says what to do. Standard library only.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from agentforge_cli.errors import TargetConfigError, TargetError

__all__ = ["call_factory", "describe_value", "import_location", "instantiate", "on_path",
           "project_directories", "read_attribute", "short", "split_factory",
           "split_target"]

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def split_target(spec: str) -> tuple[str, str | None]:
    """``location[:Name]`` -> (location, Name); a Windows drive colon is not a separator."""
    head, sep, tail = spec.rpartition(":")
    if not sep or not head or tail.startswith(("/", "\\")):
        return spec, None
    if not tail:
        raise TargetConfigError(f"target {spec!r} has nothing after ':'",
                                hint="write package.module:Name or path/to/file.py:Name")
    return head, tail


def split_factory(spec: str, name: str) -> tuple[str, bool]:
    """``make_tools()`` -> (``make_tools``, True); a name without parentheses -> (name,
    False). Only an empty pair of parentheses at the end is a factory call.

    Raises:
        TargetConfigError: Arguments inside the parentheses, or parentheses elsewhere.
    """
    if "(" not in name and ")" not in name:
        return name, False
    head, _, rest = name.partition("(")
    if not head.strip() or not rest.endswith(")") or "(" in rest or ")" in rest[:-1]:
        raise TargetConfigError(
            f"target {spec!r}: parentheses may only end the name, as in "
            "package.module:make_tools() (a function called without arguments)")
    inside = rest[:-1].strip()
    if inside:
        raise TargetConfigError(
            f"target {spec!r} passes arguments ({inside}) to {head.strip()}; a factory "
            "target is called without arguments",
            hint="write a function that takes none and returns the tools, e.g. "
                 f"`def make_tools(): return Tools({inside})`, and target module:make_tools()")
    return head.strip(), True


def _names_file(location: str) -> bool:
    """Whether a target location is a path to a ``.py`` file, not a dotted name."""
    return location.endswith(".py") or "/" in location or "\\" in location


def _listed(directory: str) -> bool:
    return any(os.path.abspath(entry or ".") == directory for entry in sys.path)


@contextlib.contextmanager
def on_path(directories: Iterable[Path]) -> Iterator[None]:
    """Put ``directories`` first on the import path while a target from them is imported
    (its own imports find its neighbours, as when it runs as a script), then at the end:
    a module kept there never shadows the standard library or an installed package that
    agentforge imports later. A directory already on the path stays where it is."""
    added = [text for text in dict.fromkeys(str(d) for d in directories)
             if not _listed(os.path.abspath(text))]
    sys.path[:0] = added
    try:
        yield
    finally:
        for text in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(text)
        sys.path.extend(added)


def project_directories(location: str, directories: Iterable[Path]) -> list[Path]:
    """Which of ``directories`` a target location names: all of them for a file path (read
    relative to them), else those holding its top-level module or package."""
    if _names_file(location):
        return list(directories)
    top = location.partition(".")[0]
    return [d for d in directories
            if (d / top).is_dir() or (d / f"{top}.py").is_file()]


def short(exc: BaseException) -> str:
    """``TypeName: first line of the message``."""
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def import_location(spec: str, location: str, base: Path) -> Any:
    """The module at ``location``: a ``.py`` path (relative to ``base``) or a dotted name."""
    if _names_file(location):
        return _import_file(spec, location, base)
    return _import_module(spec, location)


_ISOLATED_PREFIXES = ("pipx/venvs/", "uv/tools/")
"""Where pipx and ``uv tool`` keep the environments of the commands they install."""


def isolated_install() -> str | None:
    """``pipx`` or ``uv tool`` when agentforge runs in an environment of its own made by
    one of them (which cannot import a project's modules or their dependencies), else
    ``None``."""
    prefix = Path(sys.prefix).as_posix() + "/"
    for marker, tool in zip(_ISOLATED_PREFIXES, ("pipx", "uv tool"), strict=True):
        if marker in prefix:
            return tool
    return None


def _isolated_hint(missing: str | None) -> str | None:
    """How to make ``missing`` importable from an isolated install, or ``None``."""
    tool = isolated_install()
    if tool is None:
        return None
    what = f"--with {missing}" if missing else "--with-editable ."
    inject = f"pipx inject agentforge-tools {missing or '-e .'}"
    add = f"uv tool install {what} agentforge-tools"
    return (f"this agentforge was installed with {tool}, in an environment of its own that "
            f"cannot see your project: run {inject if tool == 'pipx' else add} (from your "
            "project's root), or install agentforge into the project's environment")


def _import_failure(spec: str, module: str, exc: BaseException) -> TargetError:
    if isinstance(exc, ModuleNotFoundError) and exc.name and (
            module == exc.name or module.startswith(exc.name + ".")):
        top = exc.name.partition(".")[0]
        hint = _isolated_hint(None)
        if hint is None and (Path.cwd() / "src" / top).is_dir():
            hint = (f"{top} is under src/: install the project into this environment "
                    "(pip install -e .), or run with PYTHONPATH=src")
        return TargetError(f"cannot load target {spec!r}: no module named {exc.name!r}",
                           hint=hint or "check the spelling; the current directory is on "
                                        "the import path, so run agentforge from your "
                                        "project's root")
    if isinstance(exc, ModuleNotFoundError) and exc.name:  # one of the module's imports
        hint = _isolated_hint(exc.name.partition(".")[0])
        if hint is not None:
            return TargetError(f"cannot load target {spec!r}: importing {module} failed: "
                               f"{short(exc)}", hint=hint)
    if isinstance(exc, SyntaxError):
        where = f"{exc.filename}, line {exc.lineno}" if exc.filename else "the module"
        message = f"cannot load target {spec!r}: syntax error in {where}: {exc.msg}"
        if exc.text and exc.text.strip():
            message += f"\n  {exc.text.strip()}"
        return TargetError(message)
    line = _failing_line(exc)
    return TargetError(f"cannot load target {spec!r}: importing {module} failed: {short(exc)}"
                       + (f"\n  at {line}" if line else ""),
                       hint="run again with --debug to see the whole traceback")


def _shown(filename: str) -> str:
    """A file as messages show it: relative to the current directory when inside it."""
    try:
        relative = os.path.relpath(filename) if os.path.isabs(filename) else filename
    except ValueError:  # another drive
        return filename
    return filename if relative.startswith("..") else relative


def _failing_line(exc: BaseException) -> str | None:
    """``file, line N: source`` of the innermost frame in the user's code (not in the
    standard library, an installed package or the import machinery)."""
    import linecache
    import sysconfig
    import traceback

    library = tuple({sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib",
                                                            "purelib", "platlib")})
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
              if frame.filename and not frame.filename.startswith(("<", *library))
              and not frame.filename.startswith(__file__.rsplit("integrations", 1)[0])]
    if not frames:
        return None
    frame = frames[-1]
    shown = _shown(frame.filename)
    source = (frame.line or linecache.getline(frame.filename, frame.lineno or 0)).strip()
    return f"{shown}, line {frame.lineno}" + (f": {source}" if source else "")


def _import_module(spec: str, name: str) -> Any:
    if not _DOTTED.fullmatch(name):
        hint = ("a factory is named after the module: package.module:make_tools()"
                if name.endswith(")") else None)
        raise TargetError(f"cannot load target {spec!r}: {name!r} is neither a module name "
                          "nor a path to a .py file", hint=hint)
    try:
        return importlib.import_module(name)
    except (Exception, SystemExit) as exc:
        raise _import_failure(spec, name, exc) from exc


def _package_module(path: Path) -> tuple[str, Path] | None:
    """The dotted name of a file inside packages (``src/helpdesk/tools.py`` ->
    ``helpdesk.tools``) and the folder its top package is in (``src``), so that it imports
    as its package and its relative and absolute imports of that package work; ``None``
    for a file outside packages, or when a package of the same name is already imported
    from elsewhere (the file is then imported on its own)."""
    parts = [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file():
        parts.insert(0, directory.name)
        directory = directory.parent
    name = ".".join(parts)
    if len(parts) == 1 or not _DOTTED.fullmatch(name):
        return None
    loaded = sys.modules.get(parts[0])
    if loaded is not None and str(directory / parts[0]) not in [
            os.path.abspath(entry) for entry in getattr(loaded, "__path__", ())]:
        return None
    return name, directory


def _in_directory(location: str, path: Path) -> str:
    """How to name a module in the directory ``location`` (``path``, resolved)."""
    modules = sorted(p for p in path.glob("*.py") if p.name != "__init__.py")
    shown = location.rstrip("/\\")
    if not modules:
        return "name a Python file (path/to/file.py) or a module (package.module)"
    first = f"{shown}/{modules[0].name}"
    if (path / "__init__.py").is_file() and _DOTTED.fullmatch(shown.replace("/", ".")):
        dotted = f"{shown.replace('/', '.')}.{modules[0].stem}"
        return (f"it is a package: name one of its modules by file ({first}) or by dotted "
                f"name ({dotted}, {dotted}:Name)")
    return f"name a Python file in it, such as {first}"


def _import_file(spec: str, location: str, base: Path) -> Any:
    path = Path(location)
    if not path.is_absolute():
        path = base / path
    path = path.resolve()
    if path.is_dir():
        raise TargetError(f"cannot load target {spec!r}: {location} is a directory, not a "
                          "Python file", hint=_in_directory(location, path))
    if not path.is_file():
        raise TargetError(f"cannot load target {spec!r}: no such file {str(path)!r}")
    package = _package_module(path)
    if package is not None:
        dotted, root = package
        with on_path([root]):
            return _import_module(spec, dotted)
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
        raise TargetError(f"cannot load target {spec!r}: {path} is not a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        with on_path([path.parent]):
            module_spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        raise _import_failure(spec, _shown(str(path)), exc) from exc
    return module


def read_attribute(spec: str, module: Any, name: str) -> Any:
    """``module.a.b`` for the dotted ``name``; a missing part suggests close names."""
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
            raise TargetError(f"cannot load target {spec!r}: {owner!r} has no attribute "
                              f"{part!r}", hint=hint) from None
        except Exception as exc:  # a property that raises
            raise TargetError(f"cannot load target {spec!r}: reading {part!r} failed: "
                              f"{short(exc)}") from exc
    return value


def _required_parameters(function: Any) -> list[str]:
    """The parameters a call without arguments would lack (none when unknowable)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    return [p.name for p in signature.parameters.values()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def instantiate(spec: str, cls: type) -> Any:
    """``cls()``, refused with a hint when the constructor needs arguments (its signature
    is read only then: fresh tools make a class anew for each conversation)."""
    try:
        return cls()
    except Exception as exc:
        needed = _required_parameters(cls) if isinstance(exc, TypeError) else []
        if needed:
            raise TargetError(
                f"cannot load target {spec!r}: class {cls.__qualname__} needs constructor "
                f"arguments ({', '.join(needed)}); only a class whose constructor takes no "
                "arguments can be created for you",
                hint=f"create an instance in its module, e.g. `tools = {cls.__name__}(...)`, "
                     "and target module:tools") from None
        raise TargetError(f"cannot load target {spec!r}: creating {cls.__qualname__}() "
                          f"failed: {short(exc)}") from exc


def describe_value(value: Any) -> str:
    """``a CrmTools instance``, ``the module json``, ``None``: for messages."""
    import types

    if value is None:
        return "None"
    if isinstance(value, types.ModuleType):
        return f"the module {value.__name__}"
    if isinstance(value, list | tuple):
        return f"an empty {type(value).__name__}" if not value else (
            f"a {type(value).__name__} of {len(value)} item{'' if len(value) == 1 else 's'}")
    return f"a {type(value).__qualname__} object"


def call_factory(spec: str, name: str, factory: Any) -> Any:
    """``factory()``, the value a factory target names; refused, with what to do, when it
    cannot be called, needs arguments, fails, or is ``async def``."""
    if not callable(factory):
        raise TargetError(
            f"cannot load target {spec!r}: {name} is {describe_value(factory)}, which cannot be "
            "called",
            hint=f"drop the parentheses to use {name} as it is, or name a function that "
                 "returns the tools")
    needed = _required_parameters(factory)
    if needed:
        raise TargetError(
            f"cannot load target {spec!r}: {name}() needs arguments "
            f"({', '.join(needed)}); a factory target is called without arguments",
            hint="give the parameters defaults, or write a function that takes none "
                 "and returns the tools")
    try:
        value = factory()
    except (Exception, SystemExit) as exc:
        where = _failing_line(exc)
        raise TargetError(f"cannot load target {spec!r}: calling {name}() failed: "
                          f"{short(exc)}" + (f"\n  at {where}" if where else ""),
                          hint="run again with --debug to see the whole traceback") from exc
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close is not None:
            close()  # never awaited: no "coroutine was never awaited" warning
        raise TargetError(f"cannot load target {spec!r}: {name}() returned an awaitable; a "
                          "factory target must be a plain function, not async def",
                          hint="make the tools in a plain function (run any async set-up "
                               "inside it with asyncio.run)")
    return value
