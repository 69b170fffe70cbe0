"""``ExtensionPoint``: one registry of declared values, the pattern every extension point
shares (type handlers, provider exports, transcript formats, framework adapters).

An entry is a frozen value with a ``name`` and, when its place matters, ``before``: the
names of entries it must come ahead of. The order is data next to each entry, not a
comment above a list: the registry keeps the order entries were given in, moving an entry
ahead of those it names (a stable topological order), and refuses a cycle.

Entries come from three places, in this order: the package's own (given when the registry
is made), :meth:`ExtensionPoint.register` (code), and the installed packages' entry points
in the registry's group (``agentforge.transcript_formats`` ...), read at first use. An
entry point names one entry or a sequence of them. One that fails to load is reported on
standard error and left out; the others still load. The installed packages' entry points
are scanned once per process, for every registry; a lookup by name that the package's own
entries answer scans nothing.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from agentforge_cli.errors import AgentForgeError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["Entry", "ExtensionError", "ExtensionPoint"]


class Entry(Protocol):
    """What every extension point's entries have: a name, unique in its registry."""

    @property
    def name(self) -> str: ...


E = TypeVar("E", bound=Entry)


class ExtensionError(AgentForgeError):
    """An extension point's entries do not fit together: two share a name, or their
    ``before`` declarations form a cycle."""


class ExtensionPoint(Generic[E]):
    """The entries of one extension point, in their declared order.

    ``kind`` says what an entry is, for messages (``transcript format``); ``group`` is the
    entry-point group other packages add entries through; ``check`` (optional) refuses an
    entry that is not one (it raises :class:`TypeError` naming what is missing).
    """

    def __init__(self, kind: str, group: str, entries: Iterable[E] = (),
                 check: Callable[[object], E] | None = None) -> None:
        self.kind = kind
        self.group = group
        self._check = check
        self._given: list[E] = list(entries)
        self._ordered: tuple[E, ...] | None = None
        self._by_name: dict[str, E] = {}
        self._loaded_plugins = False
        self._lock = threading.Lock()

    def register(self, entry: E) -> E:
        """Add ``entry`` (the package's own entries and those of code that imports this
        one); returns it, so a module-level ``FORMAT = registry.register(...)`` reads."""
        with self._lock:
            self._given.append(self._checked(entry, "register()"))
            self._ordered = None
        return entry

    def __iter__(self) -> Iterator[E]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self.entries())

    def entries(self) -> tuple[E, ...]:
        """Every entry, in declared order; entry points are read the first time."""
        ordered = self._ordered
        if ordered is None:
            with self._lock:
                if not self._loaded_plugins:
                    self._loaded_plugins = True
                    self._given.extend(self._plugin_entries())
                ordered = self._ordered = _in_declared_order(self.kind, self._given)
                self._by_name = {entry.name: entry for entry in ordered}
        return ordered

    def names(self) -> tuple[str, ...]:
        return tuple(entry.name for entry in self.entries())

    def get(self, name: str) -> E | None:
        """The entry of that name, or ``None``."""
        if self._ordered is None and not self._loaded_plugins:
            own = next((entry for entry in self._given if entry.name == name), None)
            if own is not None:
                return own
        self.entries()
        return self._by_name.get(name)

    def _checked(self, entry: object, origin: str) -> E:
        if self._check is not None:
            return self._check(entry)
        if not isinstance(getattr(entry, "name", None), str):
            raise TypeError(f"a {self.kind} needs a name (from {origin})")
        return entry  # type: ignore[return-value]  # checked: it has a string name

    def _plugin_entries(self) -> list[E]:
        found: list[E] = []
        points = entry_points_of(self.group)
        for point in sorted(points, key=lambda ep: ep.name):
            origin = f"entry point {point.name!r} ({point.value}) of group {self.group}"
            try:
                loaded = point.load()
                values = loaded if isinstance(loaded, (list, tuple)) else [loaded]
                found.extend(self._checked(value, origin) for value in values)
            except Exception as exc:  # a broken plugin never takes the others down
                print(f"agentforge: skipped the {self.kind} of {origin}: "
                      f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return found


def entry_points_of(group: str) -> tuple[EntryPoint, ...]:
    """The installed packages' entry points in ``group``, from the one scan per process."""
    installed = _installed_entry_points()
    return () if installed is None else tuple(installed.select(group=group))


@functools.cache
def _installed_entry_points() -> Any:
    """Every installed package's entry points, scanned once per process (the scan reads
    each installed distribution's metadata: tens of milliseconds), or ``None`` when no
    installed package can have one in an agentforge group (:func:`_may_extend`: then
    ``importlib.metadata`` is not even imported). ``Any``: Python 3.11 gives a
    ``SelectableGroups``, later versions an ``EntryPoints``; both ``select``."""
    if not _may_extend():
        return None
    import importlib.metadata

    return importlib.metadata.entry_points()


_GROUP_HEADER = "[agentforge."
"""How an ``entry_points.txt`` opens a section of one of agentforge's groups."""


def _may_extend() -> bool:
    """Whether an installed package may declare an entry point in an agentforge group:
    a look into each ``entry_points.txt`` of the distributions on ``sys.path``, a few
    milliseconds where the full scan takes tens. ``True`` whenever it cannot be sure: a
    zip or an egg on the path, or a finder of distributions other than the path's."""
    import importlib.machinery
    import os

    if any(hasattr(finder, "find_distributions") and finder is not importlib.machinery.PathFinder
           for finder in sys.meta_path):
        return True
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except NotADirectoryError:  # a zip archive on the path
            return True
        except OSError:  # a folder that does not exist (yet)
            continue
        for name in names:
            if name.endswith(".egg"):
                return True
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"),
                          encoding="utf-8", errors="replace") as stream:
                    if _GROUP_HEADER in stream.read():
                        return True
            except (FileNotFoundError, NotADirectoryError):  # no entry points at all
                continue
            except OSError:
                return True
    return False


def _in_declared_order(kind: str, entries: Sequence[E]) -> tuple[E, ...]:
    """The entries in the order given, each moved ahead of the entries its ``before``
    names (names not registered are ignored); a repeated name or a cycle is refused."""
    by_name: dict[str, E] = {}
    for entry in entries:
        if entry.name in by_name:
            raise ExtensionError(f"two {kind}s are named {entry.name!r}; "
                                 f"rename one of them")
        by_name[entry.name] = entry
    after: dict[str, set[str]] = {entry.name: set() for entry in entries}
    for entry in entries:
        for later in getattr(entry, "before", ()):
            if later in after:
                after[later].add(entry.name)
    ordered: list[E] = []
    placed: set[str] = set()
    visiting: list[str] = []

    def place(name: str) -> None:
        if name in placed:
            return
        if name in visiting:
            cycle = " -> ".join([*visiting[visiting.index(name):], name])
            raise ExtensionError(f"the {kind}s' 'before' declarations form a cycle: "
                                 f"{cycle}; drop one of them")
        visiting.append(name)
        for earlier in sorted(after[name], key=[e.name for e in entries].index):
            place(earlier)
        visiting.pop()
        placed.add(name)
        ordered.append(by_name[name])

    for entry in entries:
        place(entry.name)
    return tuple(ordered)
