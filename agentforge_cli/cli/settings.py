"""The project's settings under the command line's: ``strict`` and ``timeout``.

A flag given on the command line wins; then ``strict`` / ``timeout`` under
``[tool.agentforge]`` in the nearest ``pyproject.toml``; then the default: every command
binds strictly. Read inside ``guarded()``: a
malformed table is a usage error (exit 2) naming the key and the file.
"""

from __future__ import annotations

from typing import Annotated, Literal

import typer

__all__ = ["BindingOption", "SeedOption", "StrictOption", "project_choices"]

StrictOption = Annotated[
    bool | None,
    typer.Option("--strict/--lenient", show_default=False,
                 help="Strict (the default): a missing required parameter or an unknown "
                      "key is an argument error; lenient: a missing value gets a default "
                      "for its type if it keeps the parameter's constraints, unknown keys "
                      "are ignored. strict = false in \\[tool.agentforge] makes lenient the "
                      "default."),
]

SeedOption = Annotated[
    int | None,
    typer.Option("--seed", metavar="S", show_default=False,
                 help="Generate the same inputs as a run with this seed. Default: a random "
                      "seed, printed so the run can be repeated."),
]
"""The option that makes ``tools fuzz`` and ``tools audit`` repeat a run's generated inputs."""

BindingOption = Annotated[
    Literal["native", "agentforge"],
    typer.Option("--binding", metavar="native|agentforge", show_default=False,
                 help="How tools of other libraries (LangChain, pydantic-ai, OpenAI Agents, "
                      "FastMCP, smolagents) are called: native, through the library's own "
                      "validation (the default); agentforge, through agentforge's coercion "
                      "table in front of the tool's function."),
]


def project_choices(strict: bool | None, timeout: float | None, *,
                    strict_default: bool = True, timeout_default: float | None = None
                    ) -> tuple[bool, float | None]:
    """``(strict, timeout)``: each flag given, else the project's setting, else the default.

    Raises:
        TargetConfigError: The ``pyproject.toml`` is malformed.
    """
    from agentforge_cli.integrations.targets.loading import find_settings

    settings = find_settings()
    if strict is None:
        strict = settings.strict if settings.strict is not None else strict_default
    if timeout is None:
        timeout = settings.timeout if settings.timeout is not None else timeout_default
    return strict, timeout
