"""A scripted model for tests: it plays a script of replies (tool calls, texts) in order,
and checks every scripted call against the binding of the tool it names before playing
it, so a script cannot drift from the tools it tests.

A step is one model reply: :func:`call` (one tool call), :func:`calls` (parallel calls,
with an optional text), :func:`refused` (a call the binding must refuse: a mistake on
purpose, to test the error path) or :func:`say` (a text, no call). A call naming no tool of the
service, missing a required argument or holding a value the tool's binding refuses
raises :class:`~agentforge_cli.models.errors.ScriptError`, naming the step, the tool,
the parameter's path, the type expected and the value scripted. Values are checked as a
model's would be (the coercion table applies: ``"5"`` binds an ``int``); the tool never
runs. :func:`read_script` reads a script from a JSON file (``chat --model
scripted:FILE``).

Standard library only at import; usable wherever a model is asked (``chat``, a user's
own loop), and from pytest through the ``agentforge_scripted_model`` fixture.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentforge_cli.models.errors import ScriptError
from agentforge_cli.models.prompt import Call, Prompt, Reply, Usage

__all__ = ["ScriptedModel", "Step", "call", "calls", "read_script", "refused", "say"]


@dataclass(frozen=True, slots=True)
class Step:
    """One scripted reply: calls (in order) and a text."""

    calls: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    text: str = ""
    refused: bool = False
    """The calls are a mistake the test means: each must be refused by the binding (a
    step marked so that binds is an error too), so the loop's error path is tested."""


def call(name: str, /, **arguments: Any) -> Step:
    """A reply making one call: ``call("queryCustomer", name="长路", limit=5)``."""
    return Step(((name, arguments),))


def calls(*made: tuple[str, Mapping[str, Any]], text: str = "") -> Step:
    """A reply making parallel calls: ``calls(("a", {...}), ("b", {...}))``."""
    return Step(tuple((name, dict(arguments)) for name, arguments in made), text)


def refused(name: str, /, **arguments: Any) -> Step:
    """A reply making one call the binding must refuse: the model's mistake, on purpose,
    to test that the error goes back and the model can correct itself."""
    return Step(((name, arguments),), refused=True)


def say(text: str) -> Step:
    """A reply of text only (the final answer, or a question back)."""
    return Step((), text)


_STEP_KEYS = frozenset({"call", "arguments", "calls", "text", "refused"})


def _step(value: Any, number: int) -> Step:
    """A step from a script file's entry: ``{"call": NAME, "arguments": {...}}``,
    ``{"calls": [{"name", "arguments"}...], "text": ...}``, ``{"text": ...}`` or a string."""
    if isinstance(value, Step):
        return value
    if isinstance(value, str):
        return say(value)
    if isinstance(value, dict) and value and set(value) <= _STEP_KEYS:
        text = value.get("text", "")
        made = ([{"name": value["call"], "arguments": value.get("arguments", {})}]
                if "call" in value else value.get("calls", []))
        if isinstance(text, str) and isinstance(made, list) and all(
                isinstance(m, dict) and isinstance(m.get("name"), str)
                and isinstance(m.get("arguments", {}), dict) for m in made):
            return Step(tuple((m["name"], m.get("arguments", {})) for m in made), text,
                        value.get("refused") is True)
    raise ScriptError(f"script step {number}: not a step: {value!r} (write "
                      '{"call": NAME, "arguments": {...}}, {"calls": [...]} or {"text": ...}, '
                      'with "refused": true for calls the binding must refuse)')


def read_script(path: str | Path) -> list[Step]:
    """The steps of a JSON script file (a list of steps).

    Raises:
        ScriptError: The file cannot be read, or an entry is not a step.
    """
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ScriptError(f"cannot read the script {path}: {exc}") from None
    if not isinstance(document, list):
        raise ScriptError(f"the script {path} is not a JSON list of steps")
    return [_step(value, n) for n, value in enumerate(document, 1)]


def _binding_problem(service: Any, name: str, arguments: Mapping[str, Any]) -> str | None:
    """Why the tool's binding refuses ``arguments``: the parameter's path, the type
    expected and the value, or ``None`` when they bind."""
    from agentforge_cli.core.define.capabilities import DefinedToolExecutor
    from agentforge_cli.core.run.wrapping import innermost
    from agentforge_cli.errors import ArgumentError

    executor = service.executor(name)
    if executor is None:
        known = ", ".join(service.names) or "none"
        return f"no tool {name!r} among the tools ({known})"
    inner = innermost(executor)
    if isinstance(inner, DefinedToolExecutor):
        from agentforge_cli.core.bind.binder import make_binder

        try:
            make_binder(inner.definition, strict=getattr(inner, "strict", True))(
                dict(arguments))
        except ArgumentError as exc:
            if not exc.path:
                return exc.problem
            path = "".join(exc.path)
            expected = f"expected {exc.expected}, " if exc.expected else ""
            value = json.dumps(exc.received, ensure_ascii=False, default=repr)
            return f"parameter {path!r}: {expected}got {value} ({exc.problem})"
        return None
    from agentforge_cli.replay.argument_drift import argument_fit

    fit = argument_fit(executor)  # a tool bound elsewhere (MCP): its schema's keys
    return fit.drift(json.dumps(dict(arguments))) if fit is not None else None


class ScriptedModel:
    """A model that answers each prompt with the script's next step.

    ``tools`` is the :class:`~agentforge_cli.ToolService` the calls are checked against
    (every step at once by :meth:`check`, and each again when it plays). ``prompts``
    keeps what the model was asked, for a test to look at.
    """

    def __init__(self, script: Iterable[Step | str | Mapping[str, Any]], tools: Any = None,
                 *, name: str = "scripted") -> None:
        self.script: list[Step] = [_step(value, n) for n, value in enumerate(script, 1)]
        self.tools = tools
        self.name = name
        self.prompts: list[Prompt] = []
        self.usage = Usage()  # a script counts no tokens
        if tools is not None:
            self.check()

    def check(self) -> None:
        """Check every scripted call against the tools.

        Raises:
            ScriptError: The first call the tools refuse.
        """
        for number, step in enumerate(self.script, 1):
            self._check(number, step)

    def _check(self, number: int, step: Step) -> None:
        if self.tools is None:
            return
        for name, arguments in step.calls:
            problem = _binding_problem(self.tools, name, arguments)
            if problem is not None and not step.refused:
                raise ScriptError(f"script step {number}: {name}: {problem}")
            if problem is None and step.refused:
                raise ScriptError(f"script step {number}: {name}: marked refused, but "
                                  f"{json.dumps(dict(arguments), ensure_ascii=False)} binds")

    @property
    def remaining(self) -> int:
        """Steps not played yet."""
        return len(self.script) - len(self.prompts)

    def export(self, specs: Iterable[Any], origins: Mapping[str, Any] | None = None
               ) -> list[dict[str, Any]]:
        """The tools as the neutral JSON Schema listing (``tools list --format json``)."""
        return [{"name": spec.name, "description": spec.description,
                 "parameters": spec.parameters} for spec in specs]

    def ask(self, prompt: Prompt) -> Reply:
        """The next step, checked, as a reply.

        Raises:
            ScriptError: The script is played out, or the step's calls do not bind.
        """
        number = len(self.prompts) + 1
        if number > len(self.script):
            raise ScriptError(f"the script has {len(self.script)} steps and is played out: "
                              f"the model was asked a {_ordinal(number)} time")
        step = self.script[number - 1]
        self._check(number, step)
        self.prompts.append(prompt)
        made = tuple(Call(f"call_{number}_{n}", name,
                          json.dumps(dict(arguments), ensure_ascii=False,
                                     separators=(",", ":")))
                     for n, (name, arguments) in enumerate(step.calls, 1))
        return Reply(made, step.text)

    def request_counts(self) -> tuple[int, int]:
        """No request is sent: every reply is the script's."""
        return 0, 0

    def close(self) -> None:
        """Nothing to close."""


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        number % 10, "th")
    return f"{number}{suffix}"
