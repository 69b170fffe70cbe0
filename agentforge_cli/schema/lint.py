"""Lint rules over tool specifications -> :class:`~agentforge_cli.schema.findings.Finding`
data (never printed here).

Provider-neutral rules always run:

==================  =======  ==========================================================
``schema-invalid``  error    ``parameters`` is not valid JSON Schema 2020-12 (checked
                             with ``jsonschema`` when it is installed; a warning
                             ``jsonschema-missing`` says when it is not)
``root-not-object`` error    ``parameters`` is not a plain ``{"type": "object"}`` schema
``unresolved-ref``  error    a ``$ref`` resolves to no schema (see ``jsonschema``)
``ref-cycle``       error    a ``$defs`` entry is only a ``$ref`` back to itself
``duplicate-name``  error    two tools share a name
``no-description``  warning  a tool, or one of its parameters, has no description
``single-enum``     warning  an ``enum`` with one value (the parameter is a constant)
``any-type``        warning  a parameter (or part of one) accepts any JSON value
``invalid-default`` error    a ``default`` its own schema refuses (a ``Literal`` or
                             enum default outside the values, a number beyond a bound,
                             a string failing its pattern, length or format), and, with
                             a ``build_local_tools`` table, a Python default the
                             parameter's type refuses (see
                             :mod:`~agentforge_cli.schema.default_rule`; needs
                             ``jsonschema``)
``mutable-default`` warning  a parameter's Python default is a list, dict or set: one
                             object shared between calls (read from the functions, so
                             only when :func:`check_specs` gets a ``build_local_tools``
                             table; a schema alone keeps no Python default)
==================  =======  ==========================================================

A rule can be silenced for one tool (:mod:`~agentforge_cli.schema.silencing`): what it
finds is still returned, marked, and counts for nothing.

Each selected provider (see :data:`~agentforge_cli.schema.providers.REGISTRY`) adds
``<provider>:name`` (error: the provider refuses the tool's name), the findings of its own
lint rules, every part its export has no form for (error) and every part it exports in
the closest form only (warning), as ``<provider>:<rule>``.

Each selected client (see :data:`~agentforge_cli.schema.clients.REGISTRY`) adds the
lint of the providers behind it (but their name rule: the client's own name rules say
what it does with a name) and its own rules over the whole tool set, as
``<client>:<kind>``.
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from agentforge_cli.core.define.capabilities import DefinedToolExecutor
from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.core.run.wrapping import innermost
from agentforge_cli.schema.clients import client_findings, get_client
from agentforge_cli.schema.default_rule import DefaultChecker
from agentforge_cli.schema.findings import ERROR, WARNING, Finding, finding
from agentforge_cli.schema.jsonschema import (
    ROOT,
    SchemaWalker,
    argument_path,
    child_path,
    definition_path,
    is_object_root,
    ref_cycle,
    ref_name,
    unresolved_reason,
)
from agentforge_cli.schema.providers import Provider, get_provider
from agentforge_cli.schema.silencing import (
    Silencing,
    check_silencings,
    declared_silencings,
    silence,
)
from agentforge_cli.schema.snapshots import check_snapshot
from agentforge_cli.schema.surface import McpSurface
from agentforge_cli.schema.tool_origins import ToolOrigin, origin_of

__all__ = ["check_specs", "run_checks"]

_NO_DEFAULT = inspect.Parameter.empty  # a ParamDef's "no default" (core.definition.NO_DEFAULT)


# --- running -----------------------------------------------------------------------------

def check_specs(specs: Iterable[ToolSpecification], providers: Iterable[str] = (), *,
                validate_schema: bool = True,
                origins: Mapping[str, ToolOrigin] | None = None,
                silencings: Iterable[Silencing] = (),
                clients: Iterable[str] = ()) -> list[Finding]:
    """Run the neutral rules, then each provider's rules, over every tool, then each
    client's rules over the whole tool set.

    Args:
        specs: The specifications, or a ``build_local_tools`` table (spec -> executor):
            only a table's executors show the Python defaults ``mutable-default`` and
            ``invalid-default`` read, and the rules ``@tool(lint_ignore=...)`` silences.
        providers: Provider names (see
            :data:`~agentforge_cli.schema.providers.PROVIDERS`); none runs only the
            neutral rules.
        validate_schema: Check each schema against the JSON Schema 2020-12 metaschema.
        origins: Where each tool comes from, by name (see
            :mod:`~agentforge_cli.schema.tool_origins`), so that advice fits it; a tool left
            out is agentforge's own.
        silencings: Rules silenced per tool besides a table's ``@tool(lint_ignore=...)``
            (the project configuration's): the findings they cover are returned marked
            (see :mod:`~agentforge_cli.schema.silencing`).
        clients: Client names (see :mod:`~agentforge_cli.schema.clients`): their rules,
            and the rules of the providers behind them.

    Raises:
        ValueError: An unknown provider or client name, or a silencing naming an
            unknown rule.
    """
    params = _python_params(specs) if isinstance(specs, Mapping) else {}
    silencings = [*silencings, *(declared_silencings(specs) if isinstance(specs, Mapping)
                                 else ())]
    check_silencings(silencings)
    specs = list(specs)
    chosen_clients = list({c.name: c for c in map(get_client, clients)}.values())
    # a provider only a client brings is linted without its name rule: the client's own
    # name rules say what it does to a name (Claude Code rewrites what the API refuses)
    named = {get_provider(name).name for name in providers}
    providers = [*providers, *(name for c in chosen_clients for name in c.providers)]
    selected = list({p.name: p for p in map(get_provider, providers)}.values())
    findings: list[Finding] = []
    validator = _metaschema_validator() if validate_schema else None
    if validate_schema and validator is None:
        findings.append(Finding(tool="", rule="jsonschema-missing", level=WARNING,
                                message="jsonschema not installed, schema validity not "
                                        "checked (pip install jsonschema)"))
    counts = Counter(spec.name for spec in specs)
    for name, count in counts.items():
        if count > 1:
            findings.append(finding(name, "duplicate-name", ERROR,
                                    f"{count} tools share this name; a model cannot tell "
                                    "them apart"))
    for spec in specs:
        origin = origin_of(origins, spec.name)
        findings.extend(_neutral(spec, validator, origin, params.get(spec.name, ())))
        findings.extend(_mutable_defaults(spec.name, params.get(spec.name, ())))
        for provider in selected:
            findings.extend(_provider(spec, provider, origin, provider.name in named))
    for client in chosen_clients:
        findings.extend(client_findings(client, specs))
    return silence(findings, silencings)


def run_checks(specs: Iterable[ToolSpecification], *, providers: Iterable[str] = (),
               snapshot: Any = None, update_snapshot: bool = False,
               origins: Mapping[str, ToolOrigin] | None = None,
               silencings: Iterable[Silencing] = (),
               clients: Iterable[str] = (), surface: McpSurface | None = None
               ) -> list[Finding]:
    """Everything ``tools check`` runs: lint, then the snapshot comparison if asked.

    Args:
        specs: The specifications, or a ``build_local_tools`` table (see
            :func:`check_specs`).
        providers: Provider names for the provider rules.
        snapshot: A snapshot file path, or ``None``.
        update_snapshot: Write ``snapshot`` from ``specs`` instead of comparing.
        origins: Where each tool comes from (see :func:`check_specs`).
        silencings: Rules silenced per tool (see :func:`check_specs`); snapshot changes
            are never silenced.
        clients: Client names for the client rules (see :func:`check_specs`).
        surface: The MCP servers' resources, templates and prompts, compared with the
            snapshot's and written into it (``None``: the tools only).

    Raises:
        SnapshotMissingError: ``snapshot`` does not exist and ``update_snapshot`` is off
            (the CLI exits 3).
        SnapshotError: ``snapshot`` cannot be read.
    """
    findings = check_specs(specs, providers, origins=origins, silencings=silencings,
                           clients=clients)
    specs = list(specs)
    if snapshot is not None:
        findings.extend(check_snapshot(specs, snapshot, update=update_snapshot,
                                       surface=surface))
    return findings


# --- neutral rules -----------------------------------------------------------------------

def _metaschema_validator() -> Any:
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        return None
    return Draft202012Validator(Draft202012Validator.META_SCHEMA)


def _neutral(spec: ToolSpecification, validator: Any, origin: ToolOrigin,
             params: Sequence[Any]) -> Iterator[Finding]:
    name = spec.name
    parameters = spec.parameters
    valid = True
    if validator is not None:
        for error in sorted(validator.iter_errors(parameters), key=lambda e: list(e.path)):
            valid = False
            where = argument_path(list(error.absolute_path))
            pointer = "/" + "/".join(str(p) for p in error.absolute_path)
            yield finding(name, "schema-invalid", ERROR,
                          f"not valid JSON Schema 2020-12 at {pointer}: {error.message}",
                          where)
    if not isinstance(parameters, dict):
        return
    # defaults are judged against a schema only when the schema itself is valid
    defaults = (DefaultChecker(name, parameters, type(validator))
                if validator is not None and valid else None)
    if not is_object_root(parameters):
        yield finding(name, "root-not-object", ERROR,
                      'the parameters schema must be a plain {"type": "object"} schema; '
                      "every provider requires it", ROOT)
    if not (spec.description or "").strip():
        yield finding(name, "no-description", WARNING,
                      "the tool has no description; the model chooses tools by it "
                      f"({origin.describe_tool})")
    rules = _ValueRules(spec, origin, defaults)
    properties = parameters.get("properties")
    if isinstance(properties, dict):
        for key, schema in properties.items():
            if isinstance(schema, dict) and not rules.described(schema):
                yield finding(name, "no-description", WARNING,
                              f"the parameter has no description ({origin.describe_parameter})",
                              child_path(ROOT, key))
    for def_name in rules.defs:
        cycle = ref_cycle(def_name, rules.defs)
        if cycle:
            yield finding(name, "ref-cycle", ERROR,
                          f"the definition {def_name!r} is only a $ref to itself "
                          f"({' -> '.join(cycle)}); it describes no value",
                          definition_path(def_name))
    rules.walk(parameters, ROOT)
    yield from rules.findings
    if defaults is not None:
        yield from _python_defaults(defaults, parameters, params)


def _python_params(table: Mapping[ToolSpecification, Any]) -> dict[str, Sequence[Any]]:
    """Tool name -> its parameters (``ParamDef``: key, Python default, sensitive) for
    the executors that keep their function's definition (a logging wrapper is looked
    through)."""
    return {spec.name: base.definition.params if isinstance(
                base := innermost(executor), DefinedToolExecutor) else ()
            for spec, executor in table.items()}


def _python_defaults(checker: DefaultChecker, parameters: dict[str, Any],
                     params: Sequence[Any]) -> Iterator[Finding]:
    """``invalid-default`` for the Python defaults the exported schema left out (one
    it shows is judged in the schema)."""
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return
    for param in params:
        schema = properties.get(param.key)
        if param.default is _NO_DEFAULT or not isinstance(schema, dict) or "default" in schema:
            continue
        yield from checker.in_python(param.default, schema, child_path(ROOT, param.key),
                                     secret=param.sensitive)


def _mutable_defaults(tool: str, params: Sequence[Any]) -> Iterator[Finding]:
    for param in params:
        default = param.default
        if isinstance(default, list | dict | set):
            kind = type(default).__name__
            yield finding(tool, "mutable-default", WARNING,
                          f"the default {default!r} is one {kind} shared between calls: a "
                          "call that changes it changes it for every later call (default "
                          "to None, or to a tuple or frozenset)", child_path(ROOT, param.key))


class _ValueRules(SchemaWalker):
    """``any-type``, ``unresolved-ref``, ``single-enum`` and ``invalid-default``, over
    every schema a value of the arguments meets (a ``$ref``'s definition once per
    branch)."""

    def __init__(self, spec: ToolSpecification, origin: ToolOrigin,
                 defaults: DefaultChecker | None) -> None:
        super().__init__(spec.parameters)
        self.tool = spec.name
        self.origin = origin
        self.defaults = defaults
        self.findings: list[Finding] = []

    def described(self, schema: dict[str, Any]) -> bool:
        """Whether a property's schema, or the definition it refers to, has a
        description."""
        if str(schema.get("description") or "").strip():
            return True
        target = self.defs.get(ref_name(schema.get("$ref")) or "")
        return isinstance(target, dict) and bool(str(target.get("description") or "").strip())

    def untyped(self, schema: Any, path: str) -> None:
        if path != ROOT:
            self.findings.append(finding(
                self.tool, "any-type", WARNING, "accepts any JSON value (typed Any or not "
                "annotated); a concrete type tells the model what to send", path))

    def reference(self, schema: dict[str, Any], path: str) -> None:
        ref = schema["$ref"]
        if isinstance(ref, str):
            name = ref_name(ref)
            if name is None or name not in self.defs:
                self.findings.append(finding(self.tool, "unresolved-ref", ERROR,
                                             unresolved_reason(ref), path))
            elif name not in self.following:
                with self.entering(name):
                    self.walk(self.defs[name], path)
        self.node(schema, path)

    def node(self, schema: dict[str, Any], path: str) -> None:
        if self.defaults is not None and "default" in schema:
            self.findings.extend(self.defaults.in_schema(schema, path))
        enum = schema.get("enum")
        if isinstance(enum, list) and len(enum) == 1:
            self.findings.append(finding(
                self.tool, "single-enum", WARNING, f"the enum has a single value "
                f"({enum[0]!r}); the parameter is a constant the model has to repeat", path))
        properties = schema.get("properties")
        if path != ROOT and isinstance(properties, dict):  # the parameters: see _neutral
            for key, sub in properties.items():
                if isinstance(sub, dict) and not self.described(sub):
                    self.findings.append(finding(
                        self.tool, "no-description", WARNING, "the field has no description "
                        f"({self.origin.describe_field})", child_path(path, key)))
        super().node(schema, path)


# --- provider rules ----------------------------------------------------------------------

_NEUTRAL_RULES = frozenset({"root-not-object", "unresolved-ref", "ref-cycle"})


def _provider(spec: ToolSpecification, provider: Provider, origin: ToolOrigin,
              names: bool = True) -> Iterator[Finding]:
    problem = provider.name_rule.problem(spec.name) if names else None
    if problem:
        yield finding(spec.name, f"{provider.name}:name", ERROR,
                      f"{provider.name} refuses {problem}")
    for rule in provider.lint_rules:
        yield from rule(spec)
    conversion = provider.convert(spec)
    for level, issues in ((ERROR, conversion.errors), (WARNING, conversion.warnings)):
        for issue in issues:
            if issue.rule in _NEUTRAL_RULES:
                continue  # reported once, by the neutral rule of the same name
            yield finding(spec.name, f"{provider.name}:{issue.rule}", level,
                          issue.told(origin).message, issue.path)
