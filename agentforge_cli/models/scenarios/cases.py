"""A scenario file: prompts with expectations, read from YAML or JSON and checked strictly.

::

    max_steps: 5                 # optional, for every case (default 5)
    system: You are a CRM agent. # optional, for every case
    scenarios:
      - name: look a customer up
        prompt: Find the customer 长路
        max_steps: 3             # optional, this case's own
        system: ...              # optional, this case's own
        expect:
          must_call: [queryCustomer]
          must_not_call: [deleteCustomer]
          order: [queryCustomer, sendEmail]
          arguments:
            - tool: queryCustomer
              exact: {name: 长路, limit: 5}
              subset: {name: 长路}
              regex: {name: "^长"}
              json_path: {"$.name": 长路}

An unknown key, a value of the wrong type or a bad regex or JSON path is a
:class:`ScenarioFileError` naming the case and the key.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentforge_cli.errors import AgentForgeError

__all__ = ["ArgumentMatcher", "Expectations", "Scenario", "ScenarioFileError",
           "load_scenarios"]

DEFAULT_MAX_STEPS = 5
_MOST_STEPS = 50
_TOP: dict[str, type] = {"scenarios": list, "max_steps": int, "system": str}
_CASE: dict[str, type] = {"name": str, "prompt": str, "max_steps": int, "system": str,
                          "expect": dict}
_EXPECT: dict[str, type] = {"must_call": list, "must_not_call": list, "order": list,
                            "arguments": list}
_MATCHER: dict[str, type] = {"tool": str, "exact": dict, "subset": dict, "regex": dict,
                             "json_path": dict}


class ScenarioFileError(AgentForgeError):
    """A scenario file cannot be read or is not a valid one (the message says where)."""


@dataclass(frozen=True, slots=True)
class ArgumentMatcher:
    """What one call of ``tool`` must send: a call of it must match every part given."""

    tool: str
    exact: dict[str, Any] | None = None
    subset: dict[str, Any] | None = None
    regex: dict[str, re.Pattern[str]] = field(default_factory=dict)
    json_path: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    """path text -> (the parsed path, the value expected there)."""


@dataclass(frozen=True, slots=True)
class Expectations:
    must_call: tuple[str, ...] = ()
    must_not_call: tuple[str, ...] = ()
    order: tuple[str, ...] = ()
    arguments: tuple[ArgumentMatcher, ...] = ()


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    prompt: str
    max_steps: int
    system: str | None
    expect: Expectations


def _type_name(kind: type) -> str:
    return {list: "a list", dict: "a mapping", str: "a string", int: "an integer"}[kind]


def _checked(where: str, value: Any, shape: dict[str, type], required: tuple[str, ...]
             ) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioFileError(f"{where}: must be a mapping, got {type(value).__name__}")
    for key, item in value.items():
        if key not in shape:
            raise ScenarioFileError(f"{where}: unknown key {key!r} (known: "
                                    f"{', '.join(shape)})")
        kind = shape[key]
        if not isinstance(item, kind) or (kind is int and isinstance(item, bool)):
            raise ScenarioFileError(f"{where}: {key!r} must be {_type_name(kind)}, got "
                                    f"{type(item).__name__}")
    for key in required:
        if key not in value:
            raise ScenarioFileError(f"{where}: {key!r} is required")
    return value


def _names(where: str, key: str, value: list[Any]) -> tuple[str, ...]:
    if not all(isinstance(item, str) and item for item in value):
        raise ScenarioFileError(f"{where}: {key!r} must be a list of tool names")
    return tuple(value)


def _steps(where: str, value: int) -> int:
    if not 1 <= value <= _MOST_STEPS:
        raise ScenarioFileError(f"{where}: 'max_steps' must be from 1 to {_MOST_STEPS}, "
                                f"got {value}")
    return value


def _matcher(where: str, value: Any) -> ArgumentMatcher:
    from agentforge_cli.replay.json_paths import parse_path

    data = _checked(where, value, _MATCHER, ("tool",))
    if len(data) == 1:
        raise ScenarioFileError(f"{where}: give at least one of exact, subset, regex, "
                                "json_path")
    patterns: dict[str, re.Pattern[str]] = {}
    for key, pattern in data.get("regex", {}).items():
        if not isinstance(pattern, str):
            raise ScenarioFileError(f"{where}: regex {key!r} must be a string")
        try:
            patterns[key] = re.compile(pattern)
        except re.error as exc:
            raise ScenarioFileError(f"{where}: regex {key!r}: {exc}") from None
    paths: dict[str, tuple[Any, Any]] = {}
    for text, expected in data.get("json_path", {}).items():
        try:
            paths[text] = (parse_path(str(text)), expected)
        except ValueError as exc:
            raise ScenarioFileError(f"{where}: json_path {text!r}: {exc}") from None
    return ArgumentMatcher(data["tool"], data.get("exact"), data.get("subset"), patterns,
                           paths)


def _expectations(where: str, value: Any) -> Expectations:
    data = _checked(f"{where}: expect", value, _EXPECT, ())
    names = [_names(f"{where}: expect", key, data.get(key, []))
             for key in ("must_call", "must_not_call", "order")]
    return Expectations(
        names[0], names[1], names[2],
        tuple(_matcher(f"{where}: expect: arguments {n + 1}", item)
              for n, item in enumerate(data.get("arguments", []))))


def _scenario(number: int, value: Any, steps: int, system: str | None) -> Scenario:
    name = value.get("name") if isinstance(value, dict) else None
    where = f"scenario {number}" + (f" ({name!r})" if isinstance(name, str) else "")
    data = _checked(where, value, _CASE, ("name", "prompt"))
    return Scenario(data["name"], data["prompt"],
                    _steps(where, data.get("max_steps", steps)),
                    data.get("system", system),
                    _expectations(where, data.get("expect", {})))


def parse_scenarios(data: Any) -> list[Scenario]:
    """The scenarios of a loaded file."""
    top = _checked("the file", data, _TOP, ("scenarios",))
    steps = _steps("the file", top.get("max_steps", DEFAULT_MAX_STEPS))
    scenarios = [_scenario(n + 1, item, steps, top.get("system"))
                 for n, item in enumerate(top["scenarios"])]
    if not scenarios:
        raise ScenarioFileError("the file: 'scenarios' is empty")
    seen: set[str] = set()
    for scenario in scenarios:
        if scenario.name in seen:
            raise ScenarioFileError(f"two scenarios are named {scenario.name!r}")
        seen.add(scenario.name)
    return scenarios


def load_scenarios(path: Path) -> list[Scenario]:
    """Read a ``.json`` file as JSON, anything else as YAML.

    Raises:
        ScenarioFileError: The file cannot be read or parsed, or is not a scenario file.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioFileError(f"cannot read {path}: {exc}") from None
    try:
        if path.suffix == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:  # any parser's complaint, said plainly
        kind = "JSON" if path.suffix == ".json" else "YAML"
        raise ScenarioFileError(f"{path}: not valid {kind}: "
                                f"{' '.join(str(exc).split())}") from None
    try:
        return parse_scenarios(data)
    except ScenarioFileError as exc:
        raise ScenarioFileError(f"{path}: {exc}") from None
