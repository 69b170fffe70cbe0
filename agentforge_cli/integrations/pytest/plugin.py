"""pytest plugin: your tools, and their schema snapshot, checked by your own test suite.

Registered through the ``pytest11`` entry point (``-p agentforge_cli.integrations.pytest.plugin``
loads it by hand). It gives:

* the fixture ``agentforge_service`` — a :class:`~agentforge_cli.ToolService` built from
  the configured targets, fresh for each test — and ``agentforge_specs``, their
  specifications;
* :func:`assert_tools_match_snapshot` (also the fixture ``agentforge_snapshot``), which
  compares the current specifications with a snapshot file and fails the test with the
  classified report (:mod:`agentforge_cli.schema.schema_drift`) when a change is breaking;
  for MCP targets the snapshot also keeps the servers' resources, resource templates and
  prompts, compared as ``tools diff`` compares them
  (:mod:`agentforge_cli.schema.surface`);
* the fixture ``agentforge_scripted_model`` — ``agentforge_scripted_model(steps)`` makes a
  :class:`~agentforge_cli.testing.ScriptedModel` whose every call is checked against the
  binding of the configured tools (``agentforge_service``'s);
* ``pytest --agentforge-update-snapshots``, which (re)writes the snapshot files instead;
* ``pytest --agentforge-record DIR``, which records every call the tests make through a
  ``ToolService`` into agentforge JSONL transcripts in DIR (``AGENTFORGE_RECORD``), to
  replay in the next run.
* ``--agentforge-strict`` / ``--agentforge-lenient``, the binding of every tool the plugin
  loads; without them, ``strict`` under ``[tool.agentforge]`` decides (else strict), and
  ``timeout`` there bounds each call.

Targets (``package.module``, ``package.module:Name``, ``path/to/file.py[:Name]``) come
from, first match wins: ``--agentforge-tools TARGET`` (repeatable), the ini option
``agentforge_tools`` (one a line), the ``AGENTFORGE_TOOLS`` environment variable
(comma-separated), then ``tools = [...]`` under ``[tool.agentforge]`` in the nearest
``pyproject.toml``. Relative snapshot paths are read from pytest's rootdir.

Example::

    from agentforge_cli.integrations.pytest.plugin import assert_tools_match_snapshot

    def test_tool_schemas_have_no_breaking_change(agentforge_specs):
        assert_tools_match_snapshot(agentforge_specs, "tests/tools.snapshot.json")
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from agentforge_cli.core.define.spec import ToolSpecification

if TYPE_CHECKING:
    from agentforge_cli.core.run.service import ToolService
    from agentforge_cli.integrations.targets.loading import TargetSource

__all__ = [
    "STRICT_OPTION",
    "UPDATE_OPTION",
    "agentforge_service",
    "agentforge_snapshot",
    "agentforge_specs",
    "assert_tools_match_snapshot",
]

UPDATE_OPTION = "--agentforge-update-snapshots"
RECORD_OPTION = "--agentforge-record"
"""The command-line flag that rewrites snapshot files instead of comparing."""
STRICT_OPTION = "--agentforge-strict"
"""The command-line flag that binds the plugin's tools strictly (``--agentforge-lenient``:
leniently), whatever ``[tool.agentforge]`` says."""

pytest_plugins = ["agentforge_cli.integrations.pytest.fuzz_items",  # pytest --agentforge-fuzz
                  "agentforge_cli.integrations.pytest.replay_items"]  # --agentforge-replay

_CONFIGS: list[pytest.Config] = []


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentforge", "agentforge tool schemas")
    group.addoption("--agentforge-tools", action="append", default=[], metavar="TARGET",
                    help="a tool target for the agentforge fixtures (repeatable): "
                         "package.module[:Name] or path/to/file.py[:Name]")
    group.addoption(UPDATE_OPTION, action="store_true", default=False,
                    help="write agentforge tool snapshots instead of comparing with them")
    group.addoption(RECORD_OPTION, metavar="DIR", default=None,
                    help="record every call the tests make through a ToolService into "
                         "agentforge JSONL transcripts in DIR (one file a process)")
    group.addoption(STRICT_OPTION, action="store_const", const=True, default=None,
                    dest="agentforge_strict",
                    help="bind the agentforge tools strictly: a missing required parameter "
                         "or an unknown key is an argument error (the default, unless "
                         "[tool.agentforge] says strict = false)")
    group.addoption("--agentforge-lenient", action="store_const", const=False,
                    dest="agentforge_strict",
                    help="bind the agentforge tools leniently (a missing value gets a "
                         "default for its type), whatever [tool.agentforge] says")
    parser.addini("agentforge_tools", type="linelist", default=[],
                  help="tool targets for the agentforge fixtures, one a line")


def pytest_configure(config: pytest.Config) -> None:
    _CONFIGS.append(config)
    directory = config.getoption(RECORD_OPTION)
    if directory:
        from agentforge_cli.core.observe.recording import ENV_VAR

        # every ToolService made from now on records (xdist workers inherit it)
        os.environ[ENV_VAR] = str(Path(directory).resolve())


def pytest_unconfigure(config: pytest.Config) -> None:
    if config in _CONFIGS:
        _CONFIGS.remove(config)


def _current_config() -> pytest.Config | None:
    return _CONFIGS[-1] if _CONFIGS else None


def _fail(message: str, hint: str | None = None) -> NoReturn:
    """Fail the test with one short message and one hint, as pytest plugins do: the error
    being handled is not chained to it (``from None``)."""
    __tracebackhide__ = True
    try:
        pytest.fail(f"agentforge: {message}" + (f"\n  hint: {hint}" if hint else ""),
                    pytrace=False)
    except pytest.fail.Exception as failed:
        raise failed from None


# --- targets ------------------------------------------------------------------------------
# One loader for the command line, the MCP server and this plugin: integrations.targets.

_HOW_TO_CONFIGURE = ("set agentforge_tools in the pytest configuration, pass "
                     "--agentforge-tools TARGET, set AGENTFORGE_TOOLS, or add tools = [...] "
                     "under [tool.agentforge] in pyproject.toml")


def configured_targets(config: pytest.Config) -> TargetSource:
    """The configured targets
    (a :class:`~agentforge_cli.integrations.targets.loading.TargetSource`).

    Fails the test (``pytest.fail``) when no target is configured anywhere.
    """
    __tracebackhide__ = True
    from agentforge_cli.errors import TargetError
    from agentforge_cli.integrations.targets.loading import NO_TARGET, find_targets

    given = list(config.getoption("--agentforge-tools") or ()) or [
        line.strip() for line in config.getini("agentforge_tools") if line.strip()]
    try:
        return find_targets(given, cwd=Path(config.rootpath))
    except TargetError as exc:  # none anywhere, or a malformed [tool.agentforge]
        _fail(exc.message, _HOW_TO_CONFIGURE if exc.message == NO_TARGET else exc.hint)


def project_options(config: pytest.Config | None) -> dict[str, Any]:
    """``strict`` and ``timeout`` for the tools the plugin loads: the command line's
    ``--agentforge-strict``/``--agentforge-lenient``, else ``[tool.agentforge]``.

    Raises:
        TargetConfigError: The ``pyproject.toml`` is malformed.
    """
    from agentforge_cli.integrations.targets.loading import find_settings

    rootpath = Path(config.rootpath) if config is not None else Path.cwd()
    settings = find_settings(cwd=rootpath)
    given = config.getoption("agentforge_strict") if config is not None else None
    strict = given if given is not None else settings.strict is not False
    return {"strict": strict, "timeout": settings.timeout}


def _load_tools(source: TargetSource, objects: Sequence[Any] = ()
                ) -> dict[ToolSpecification, Any]:
    """The tools of ``source``'s targets, plus those of ``objects`` (instances, modules,
    functions given directly)."""
    __tracebackhide__ = True
    from agentforge_cli.errors import TargetError
    from agentforge_cli.integrations.targets.loading import load_tools

    try:  # the one loader: Python targets, MCP servers (mcp:...) and objects
        return load_tools(source, objects, **project_options(_current_config()))
    except TargetError as exc:
        _fail(exc.message, exc.hint)
    return {}  # not reached


@pytest.fixture
def agentforge_service(request: pytest.FixtureRequest) -> ToolService:
    """A ``ToolService`` holding the tools of the configured targets."""
    from agentforge_cli.core.run.service import ToolService

    service = ToolService()
    service.tools(_load_tools(configured_targets(request.config)))
    return service


class _ServiceSpecifications(list[ToolSpecification]):
    """``agentforge_specs``: a list of specifications that remembers the service they come
    from, so that a snapshot of them keeps the MCP servers' resources and prompts too."""

    def __init__(self, service: ToolService) -> None:
        super().__init__(service.specifications)
        self.service = service


@pytest.fixture
def agentforge_specs(agentforge_service: ToolService) -> list[ToolSpecification]:
    """The specifications of the configured targets' tools, in registration order."""
    return _ServiceSpecifications(agentforge_service)


@pytest.fixture
def agentforge_scripted_model(agentforge_service: ToolService) -> Callable[..., Any]:
    """``agentforge_scripted_model(steps, tools=None)``: a scripted model checked against
    ``tools`` (by default this test's ``agentforge_service``); a step that names an
    unknown tool or does not bind fails at once, naming the step."""
    from agentforge_cli.models.scripted import ScriptedModel

    def make(steps: Any, tools: Any = None) -> ScriptedModel:
        __tracebackhide__ = True
        return ScriptedModel(steps, agentforge_service if tools is None else tools)

    return make


@pytest.fixture
def agentforge_snapshot(request: pytest.FixtureRequest) -> Callable[..., list[Any]]:
    """``agentforge_snapshot(path, specs_or_targets=None, *, fail_on="breaking")``.

    :func:`assert_tools_match_snapshot` bound to this test's configuration; without
    ``specs_or_targets`` it checks the configured targets.
    """
    config = request.config

    def check(path: str | os.PathLike[str], specs_or_targets: Any = None, *,
              fail_on: str = "breaking") -> list[Any]:
        __tracebackhide__ = True
        if specs_or_targets is None:
            table = _load_tools(configured_targets(config))
        else:
            table = _tool_table(specs_or_targets, Path(config.rootpath))
        return _check(table, path, fail_on=fail_on, config=config)

    return check


# --- the assertion -----------------------------------------------------------------------

def _tool_table(value: Any, base: Path) -> dict[ToolSpecification, Any]:
    """Specifications and their executors (``None`` where only a specification is given)
    from specs, a ``ToolService``, a factory table or targets."""
    __tracebackhide__ = True
    if isinstance(value, ToolSpecification):
        return {value: None}
    if isinstance(value, _ServiceSpecifications):  # agentforge_specs
        return {spec: value.service.executor(spec.name) for spec in value}
    specifications = getattr(value, "specifications", None)
    if isinstance(specifications, list):  # a ToolService
        return {spec: value.executor(spec.name) for spec in specifications}
    if isinstance(value, Mapping):
        return {spec: executor for spec, executor in value.items()
                if isinstance(spec, ToolSpecification)}
    many = isinstance(value, list | tuple | set | frozenset | types.GeneratorType)
    items = list(value) if many else [value]
    table: dict[ToolSpecification, Any] = {
        item: None for item in items if isinstance(item, ToolSpecification)}
    strings = tuple(item for item in items if isinstance(item, str))
    objects = [item for item in items if not isinstance(item, ToolSpecification | str)]
    if strings or objects:
        from agentforge_cli.integrations.targets.loading import TargetSource

        source = TargetSource(specs=strings, origin="assert_tools_match_snapshot", base=base)
        table.update(_load_tools(source, objects))
    return table


def assert_tools_match_snapshot(specs_or_targets: Any, path: str | os.PathLike[str], *,
                                fail_on: str = "breaking",
                                update: bool | None = None) -> list[Any]:
    """Fail the test when the tools drifted from the snapshot file in a breaking way.

    Args:
        specs_or_targets: ``ToolSpecification`` objects, a ``ToolService``, a
            ``build_local_tools`` table, or targets (target strings, modules, instances,
            functions), alone or in a list.
        path: The snapshot file; relative paths are read from pytest's rootdir.
        fail_on: ``breaking`` (default), ``warning`` (also fail on warnings such as a
            changed description) or ``info`` (fail on any difference).
        update: Rewrite the snapshot instead of comparing; defaults to whether pytest
            runs with ``--agentforge-update-snapshots``.

    Returns:
        The findings (:class:`~agentforge_cli.schema.findings.Finding`) that did not fail the test.
    """
    __tracebackhide__ = True
    config = _current_config()
    base = Path(config.rootpath) if config is not None else Path.cwd()
    table = _tool_table(specs_or_targets, base)
    return _check(table, path, fail_on=fail_on, config=config, update=update)


def _served_surface(table: Mapping[ToolSpecification, Any]) -> Any:
    """The resources, templates and prompts of the MCP servers whose tools ``table``
    holds, as ``tools check --snapshot`` keeps them; ``None`` without an MCP tool (the
    snapshot keeps the tools alone, as before)."""
    __tracebackhide__ = True
    from agentforge_cli.errors import SnapshotError, TargetError
    from agentforge_cli.integrations.mcp.client.surface import served_surface

    try:
        return served_surface(executor for executor in table.values() if executor is not None)
    except (SnapshotError, TargetError) as exc:
        _fail(str(exc))


def _check(table: Mapping[ToolSpecification, Any], path: str | os.PathLike[str], *,
           fail_on: str, config: pytest.Config | None, update: bool | None = None
           ) -> list[Any]:
    __tracebackhide__ = True
    from agentforge_cli.schema.findings import fails, format_findings, summarize
    from agentforge_cli.schema.snapshots import SnapshotError, SnapshotMissingError, check_snapshot

    if fail_on not in ("breaking", "warning", "info"):
        raise ValueError(f"fail_on must be 'breaking', 'warning' or 'info', not {fail_on!r}")
    target = Path(path)
    if not target.is_absolute():
        target = (Path(config.rootpath) if config is not None else Path.cwd()) / target
    if update is None:
        update = bool(config is not None and config.getoption(UPDATE_OPTION))
    surface = _served_surface(table)
    try:
        findings = check_snapshot(list(table), target, update=update, surface=surface)
    except SnapshotMissingError:  # its message carries the command line's flag: not shown
        _fail(f"snapshot file {target} does not exist",
              f"run pytest {UPDATE_OPTION} to create it")
    except SnapshotError as exc:
        _fail(str(exc), f"fix the file or run pytest {UPDATE_OPTION} to rewrite it")
    if not update and fails(findings, fail_on):
        counts = summarize(findings)
        shown = ", ".join(f"{count} {level}" for level, count in counts.items() if count)
        report = format_findings(findings).replace("\n", "\n  ")
        _fail(f"the tools differ from the snapshot {target} ({shown}):\n  {report}",
              f"if the change is intended, run pytest {UPDATE_OPTION} to accept it")
    return findings
