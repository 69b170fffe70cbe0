"""The compiled call path (``binder.make_execute``) answers every request exactly as the
general path of ``LocalToolExecutor`` does: the one equivalence test of that speed trick."""

from __future__ import annotations

from typing import Annotated, Any

import pytest

from agentforge_cli import P, ToolExecutionRequest, tool
from agentforge_cli.core.run.executor import LocalToolExecutor


@tool
def scale(name: str, replicas: Annotated[int, P("how many", minimum=1, maximum=50)],
          env: str = "prod") -> Any:
    """Scale a service."""
    if name == "raise":
        raise ValueError("cannot scale")
    if name == "exit":
        raise SystemExit(3)
    if name == "object":
        return {"name": name, "replicas": replicas}
    if name == "huge":
        return "x" * 100
    if name == "opaque":
        return object()
    return f"{name}:{replicas}:{env}"


ARGUMENTS = [
    '{"name": "api", "replicas": 3}',
    '{"name": "api", "replicas": "3"}',
    '{"name": "api", "replicas": 3, "env": "dev"}',
    '{"name": "api"}',
    '{"name": "api", "replicas": 0}',
    '{"name": "api", "replicas": 3, "replica": 1}',
    '{"name": "api", "replicas": 3,}',
    '"{\\"name\\": \\"api\\", \\"replicas\\": 3}"',
    '{"name": "api", "replicas": [[[[1]]]]}',
    "[1, 2]",
    "not json",
    "",
    None,
    '{"name": "raise", "replicas": 1}',
    '{"name": "exit", "replicas": 1}',
    '{"name": "object", "replicas": 1}',
    '{"name": "huge", "replicas": 1}',
    '{"name": "opaque", "replicas": 1}',
    '{"name": "' + "a" * 300 + '", "replicas": 1}',
]


def outcome(run: Any, arguments: str | None) -> tuple[str, Any]:
    try:
        return "result", tuple(run(ToolExecutionRequest(name="scale", arguments=arguments)))
    except Exception as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("options", [
    {}, {"strict": False}, {"wrap_argument_errors": True},
    {"max_result_chars": 50, "max_argument_chars": 200, "max_depth": 3},
])
def test_the_compiled_path_answers_as_the_general_path(options):
    compiled, general = LocalToolExecutor(scale, **options), LocalToolExecutor(scale, **options)
    for arguments in ARGUMENTS:
        assert outcome(compiled.execute, arguments) == outcome(general._general, arguments), (
            arguments)
    assert hasattr(compiled._run, "remade")  # the compiled path ran (it compiles once)
