"""The model connections, in one registry: OpenAI chat completions (and every server
speaking it, through ``--base-url``), OpenAI Responses, Anthropic Messages, Gemini.

Other packages add connections through the ``agentforge.model_connections`` entry-point
group, or :meth:`MODEL_CONNECTIONS.register`.
"""

from __future__ import annotations

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.errors import CommandInputError
from agentforge_cli.models.anthropic_messages import ANTHROPIC
from agentforge_cli.models.connection import ModelConnection
from agentforge_cli.models.gemini import GEMINI
from agentforge_cli.models.openai_chat import OPENAI_CHAT
from agentforge_cli.models.openai_responses import OPENAI_RESPONSES

__all__ = ["MODEL_CONNECTIONS", "parse_model"]


def _check(entry: object) -> ModelConnection:
    if not isinstance(entry, ModelConnection):
        raise TypeError(f"{entry!r} is not a ModelConnection")
    return entry


MODEL_CONNECTIONS: ExtensionPoint[ModelConnection] = ExtensionPoint(
    "model connection", "agentforge.model_connections",
    (OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, GEMINI), check=_check)


def parse_model(spec: str) -> tuple[ModelConnection, str]:
    """``openai:gpt-4o`` -> the connection and the model's name.

    Raises:
        CommandInputError: No connection of that name, or no model named.
    """
    name, colon, model = spec.partition(":")
    connection = MODEL_CONNECTIONS.get(name.strip().lower())
    names = ", ".join(MODEL_CONNECTIONS.names())
    if connection is None or not colon or not model.strip():
        problem = (f"no model connection {name!r}" if connection is None
                   else "no model named after the colon")
        raise CommandInputError(f"--model {spec!r}: {problem}",
                                hint=f"write CONNECTION:MODEL, CONNECTION one of {names} "
                                     "(e.g. openai:gpt-4o)")
    return connection, model.strip()
